//! Step 7: the GPU work of the rounds. A batch is one submission of one variant (in pieces
//! when it would hold over MAX_SUBMIT_NS of GPU work): untimed
//! repetitions first (the first-repetition effect: caches, TLBs, instruction fetch), then
//! timed ones, each dispatch bracketed by timestamps. Before a case's first round the GPU is
//! warmed up, for longer only after it measurably sat idle.
pub use crate::output::run_json::Warmup;
use crate::vk::submit::{Dispatch, EvictWith, OwnedPass};
use crate::vk::Context;
use std::time::{Duration, Instant};

/// A batch asks for at least this much timed GPU time: short dispatches get more repetitions,
/// so a round's median is not one timestamp's jitter.
pub const BATCH_MIN_NS: f64 = 1e6;
/// Timed repetitions per batch at most.
pub const MAX_BATCH_REPS: u32 = 2000;

/// The timed repetitions of a batch for a variant whose one repetition took `rep_ns`.
pub fn reps_per_batch(reps: u32, rep_ns: f64) -> u32 {
    let fill = (BATCH_MIN_NS / rep_ns.max(100.0)).ceil() as u32;
    reps.max(fill).clamp(1, MAX_BATCH_REPS.max(reps))
}

/// One batch's timestamps.
#[derive(Debug, Clone, Default)]
pub struct Batch {
    /// Each timed repetition's span, ns, from its first dispatch's start to its last one's end
    /// (`vk::timestamps::Timings::rep_ns`), pieces concatenated in order.
    pub rep_ns: Vec<f64>,
    /// Each timed repetition's per-pass durations, ns: `pass_ns[rep][pass]`
    /// (`vk::timestamps::Timings::pass_ns`).
    pub pass_ns: Vec<Vec<f64>>,
    /// The timer's observed step (`vk::timestamps::Timings::step_ns`).
    pub step_ns: f64,
    /// Each piece's timestamps as submitted, for placing its repetitions on the host's clock
    /// ([`Batch::rep_start_ns`]): the ticks and the host window of each.
    pub pieces: Vec<crate::vk::timestamps::Timings>,
    /// The submission's wall span on CLOCK_MONOTONIC, ns: from before recording to the
    /// read-back.
    pub host_span: (f64, f64),
    /// Wall time of the submission (recording, GPU, read-back).
    pub wall_ns: f64,
    /// The clock gauge's reading after the timed repetitions, SM cycles per real-time tick
    /// (measure/clock.rs); None without a gauge.
    pub clock: Option<f64>,
    /// Tries of this batch before it that were timed again because the GPU had clocked down
    /// (measure/clock.rs).
    pub redone: u32,
}

impl Batch {
    /// Each timed repetition's start on the host's CLOCK_MONOTONIC, ns, through the
    /// correlation `map` where it holds, else anchored at each piece's fence
    /// (`vk::timestamps::place_on_host`); `timer`: the timestamps' valid bits and period.
    pub fn rep_start_ns(
        &self,
        map: Option<&crate::vk::timestamps::ClockMap>,
        timer: (u32, f64),
    ) -> Vec<f64> {
        self.pieces
            .iter()
            .flat_map(|p| crate::vk::timestamps::place_on_host(p, p.host_window, map, timer))
            .collect()
    }
}

/// The most GPU time one submission of a batch holds, by the repetition time: a longer batch
/// (`--reps 100000` of a slow kernel) goes in pieces, so that an interrupt is honoured between
/// them and never finds seconds of work in flight (tearing that down took the kernel 1.3 s on
/// an H200, reports/nvidia-h200 `i1314/`).
pub const MAX_SUBMIT_NS: f64 = 200e6;

/// One batch: `untimed` repetitions, then `timed` ones, in one submission, or in pieces of at
/// most MAX_SUBMIT_NS by `rep_ns` (each later piece starts with one untimed repetition, for
/// its own first-repetition effect). After an interrupt, the repetitions timed so far.
pub fn run_batch(
    ctx: &Context,
    dispatches: &[Dispatch],
    (untimed, timed, rep_ns): (u32, u32, f64),
    timeout_ms: u64,
    evict: Option<&EvictWith>,
    gauge: Option<&OwnedPass>,
) -> anyhow::Result<Batch> {
    let t = Instant::now();
    let t0 = crate::vk::timestamps::monotonic_ns() as f64;
    let per = ((MAX_SUBMIT_NS / rep_ns.max(1.0)) as u32).clamp(1, timed.max(1));
    let mut b = Batch {
        rep_ns: Vec::with_capacity(timed as usize),
        pass_ns: Vec::with_capacity(timed as usize),
        step_ns: 0.0,
        pieces: Vec::new(),
        host_span: (t0, t0),
        wall_ns: 0.0,
        clock: None,
        redone: 0,
    };
    let mut done = 0u32;
    while done < timed {
        let n = per.min(timed - done);
        let lead = if done == 0 { untimed } else { untimed.min(1) };
        // The gauge after the last piece: the clock the batch ended at.
        let g = if done + n >= timed { gauge } else { None };
        let timings = ctx.run_timed_gauged(dispatches, lead, n, timeout_ms, evict, g)?;
        b.rep_ns.extend(timings.rep_ns);
        b.pass_ns.extend(timings.pass_ns);
        // Only what placing needs is kept.
        b.pieces.push(crate::vk::timestamps::Timings {
            rep_begin_ticks: timings.rep_begin_ticks,
            span_ticks: timings.span_ticks,
            host_window: timings.host_window,
            ..Default::default()
        });
        b.step_ns = b.step_ns.max(timings.step_ns);
        done += n;
        if done < timed && crate::measure::options::interrupted() {
            break;
        }
    }
    b.wall_ns = t.elapsed().as_nanos() as f64;
    b.host_span.1 = crate::vk::timestamps::monotonic_ns() as f64;
    Ok(b)
}

/// The warm-up's GPU time, in ms, after the GPU sat idle for `idle` (None: it has not run a
/// batch yet in this run): none after a gap of up to IDLE_GAP (a first round that still ran
/// slow is left out instead); after a longer gap as long as the gap, at least `warmup_ms` and
/// at most LONG_WARMUP_MS; LONG_WARMUP_MS at the start of a run. A warm-up goes on until two
/// cycles agree within 2 %.
pub fn warmup_target(idle: Option<Duration>, warmup_ms: u64) -> u64 {
    match idle {
        None => warmup_ms.max(LONG_WARMUP_MS),
        // Busy until moments ago: no warm-up; a first round that still ran slow is left out
        // (schedule::leading_warmup).
        Some(d) if d <= IDLE_GAP => 0,
        Some(d) => (d.as_millis() as u64).clamp(warmup_ms, warmup_ms.max(LONG_WARMUP_MS)),
    }
}

/// A host-side gap longer than this since the GPU's last batch makes the warm-up longer.
pub const IDLE_GAP: Duration = Duration::from_millis(500);
/// The warm-up after such a gap, in ms of GPU time. On an H200 a variant timed right after a
/// seconds-long CPU reference ran 3.3x slower with a steady CV of 0.1 %: clocks can sit at a
/// low level for hundreds of milliseconds before they ramp up.
pub const LONG_WARMUP_MS: u64 = 1500;
/// GPU time one warm-up cycle (a batch of every variant) aims at.
const CYCLE_NS: f64 = 20e6;

/// Warm the GPU up with the case's own work: cycles of one batch per variant (each ending with
/// the clock gauge, where there is one, its readings added to `gauge`'s list), until the
/// batches have kept it busy for `target_ms` (their wall time: cold mode's L2 evictions count) and two cycles agree within 2 % (at most
/// `max(1 s, 5 x target)`). On a failure, the index of the variant whose batch failed.
pub fn warm_up(
    ctx: &Context,
    variants: &[(Vec<Dispatch>, f64)],
    evict: Option<&EvictWith>,
    timeout_ms: u64,
    idle: Option<Duration>,
    warmup_ms: u64,
    mut gauge: Option<(&mut crate::measure::clock::ClockGauge, &mut Vec<f64>)>,
) -> Result<Warmup, (usize, anyhow::Error)> {
    let t0 = Instant::now();
    let mut w = Warmup {
        idle_before_ms: idle.map(|d| d.as_secs_f64() * 1e3),
        ..Default::default()
    };
    if warmup_ms == 0 || variants.is_empty() {
        return Ok(w);
    }
    w.target_ms = warmup_target(idle, warmup_ms);
    if w.target_ms == 0 {
        return Ok(w);
    }
    let (min_ns, max_ns) = (
        w.target_ms as f64 * 1e6,
        (w.target_ms as f64 * 5.0).max(1000.0) * 1e6,
    );
    let share = CYCLE_NS / variants.len() as f64;
    // Batches are sized by timed GPU time; their wall time is what counts towards the target.
    let mut rep_ns: Vec<f64> = variants.iter().map(|(_, r)| r.max(1_000.0)).collect();
    let mut prev: Option<f64> = None;
    let mut gpu_ns = 0.0;
    loop {
        let mut cycle = 0.0;
        for (i, (d, _)) in variants.iter().enumerate() {
            let reps = ((share / rep_ns[i]).ceil() as u32).clamp(1, 100_000);
            let pass = gauge.as_ref().map(|(g, _)| *g.pass());
            let b = run_batch(
                ctx,
                d,
                (0, reps, rep_ns[i]),
                timeout_ms,
                evict,
                pass.as_ref(),
            )
            .map_err(|e| (i, e))?;
            // The warm-up's clock readings give the clock rule its reference before the rounds.
            if let Some((g, readings)) = gauge.as_mut() {
                readings.extend(g.take());
            }
            let mut sorted = b.rep_ns.clone();
            sorted.sort_by(f64::total_cmp);
            let med = crate::stats::median(&sorted).max(1.0);
            rep_ns[i] = med;
            cycle += med;
            // The GPU was busy for the whole batch, L2 evictions of cold mode included.
            gpu_ns += b.wall_ns;
        }
        w.cycles += 1;
        if gpu_ns >= min_ns {
            if let Some(p) = prev {
                if (cycle - p).abs() <= 0.02 * p {
                    w.converged = true;
                    break;
                }
            }
        }
        if gpu_ns >= max_ns || crate::measure::options::interrupted() {
            break;
        }
        prev = Some(cycle);
    }
    w.gpu_ms = gpu_ns / 1e6;
    w.wall_ms = t0.elapsed().as_secs_f64() * 1e3;
    Ok(w)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_warm_up_grows_with_the_measured_idle_gap() {
        let ms = Duration::from_millis;
        assert_eq!(warmup_target(None, 200), 1500, "start of the run");
        assert_eq!(warmup_target(Some(ms(100)), 200), 0, "back to back: none");
        assert_eq!(warmup_target(Some(ms(500)), 200), 0);
        assert_eq!(warmup_target(Some(ms(501)), 200), 501, "as long as the gap");
        assert_eq!(warmup_target(Some(ms(800)), 200), 800, "as long as the gap");
        assert_eq!(warmup_target(Some(ms(9000)), 200), 1500, "at most 1.5 s");
        assert_eq!(
            warmup_target(Some(ms(9000)), 3000),
            3000,
            "a longer warmup_ms wins"
        );
        assert_eq!(warmup_target(Some(ms(600)), 2000), 2000);
    }

    #[test]
    fn short_dispatches_get_more_repetitions_per_batch() {
        assert_eq!(reps_per_batch(10, 5e6), 10);
        assert_eq!(reps_per_batch(10, 10_000.0), 100);
        assert_eq!(reps_per_batch(10, 1.0), 2000, "capped");
        assert_eq!(reps_per_batch(5000, 1.0), 5000, "an explicit count wins");
    }
}
