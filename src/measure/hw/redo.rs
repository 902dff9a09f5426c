//! A counter batch counted below its timed clock is counted again after the clock keeper
//! (issue 39): the keeper brings an idle clock back; a clock it does not raise is the
//! kernel's own.
use super::*;

/// Count a job again, after the keeper, while its batch ran below its timed clock
/// (`reference`, MHz; the timed rounds' rule, measure/clock.rs): the clock that the keeper
/// brings back replaces a batch counted at an idle clock; one that the keeper does not raise
/// (by more than NO_RISE) is the kernel's own sustained clock, and its counts stand (issue 39:
/// every tensor-core GEMM ran at 1824-1884 MHz under load on an H100, 6-11 % under its shorter
/// timed batches' clock). `again(heat_ms)` runs that much keeper and counts the job's batch
/// once more, as one batch: it must not judge (and redo) its own result, or a kernel whose low
/// clock is its own is counted again without end (b164ed8 did; the H200 runs of session 45
/// took several times longer). At most REDO_HEAT_MS.len() redos.
pub(super) fn redo_if_slow(
    reference: Option<f64>,
    outcome: &mut HwOutcome,
    mut again: impl FnMut(f64) -> Option<HwOutcome>,
) {
    let Some(reference) = reference else {
        return;
    };
    let low = |c: f64| c < reference * (1.0 - CLOCK_DROP_PCT / 100.0);
    for heat_ms in REDO_HEAT_MS {
        let Ok(m) = &*outcome else { return };
        let Some(before) = m.values.sm_clock_mhz.filter(|c| low(*c)) else {
            return;
        };
        let Some(Ok(mut m2)) = again(heat_ms) else {
            return;
        };
        let after = m2.values.sm_clock_mhz.unwrap_or(0.0);
        m2.notes.push(format!(
            "counted again after {heat_ms:.0} ms of the clock keeper (the first batch ran at {before:.0} MHz)"
        ));
        let next = judge_redo(before, after, reference);
        if next == Redo::OwnClock {
            m2.own_clock = Some(format!(
                "counted at {after:.0} MHz, {:.1} % below its timed batches' clock ({reference:.0} MHz), a clock that {heat_ms:.0} ms of the keeper did not raise: the kernel's own sustained clock under load (a power limit, not idle), so its counts stand",
                (1.0 - after / reference) * 100.0
            ));
        }
        *outcome = Ok(m2);
        if next != Redo::Again {
            return;
        }
    }
}

/// What a batch counted again after the keeper says ([`redo_if_slow`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Redo {
    /// Back within CLOCK_DROP_PCT of the timed clock: an idle clock-down, now gone.
    Back,
    /// Still low, and the keeper did not raise it by NO_RISE: the kernel's own clock.
    OwnClock,
    /// Still low but rising: more keeper (the next of REDO_HEAT_MS), if any is left.
    Again,
}

/// Judge a batch counted again at `after` MHz, first at `before`, against the timed
/// batches' `reference` clock.
pub fn judge_redo(before: f64, after: f64, reference: f64) -> Redo {
    if after >= reference * (1.0 - CLOCK_DROP_PCT / 100.0) {
        Redo::Back
    } else if after < before * (1.0 + crate::measure::clock::NO_RISE) {
        Redo::OwnClock
    } else {
        Redo::Again
    }
}
