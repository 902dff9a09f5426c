//! Temporary differential check (not committed): the code at 6318b02 against the typed record.
#![allow(dead_code, clippy::all)]
mod limiter;
#[cfg(test)]
mod diff;
use crate::results::ResultRow;
use crate::measure::left_out::TRANSIENT_PCT;
pub fn fill_row(row: &mut ResultRow, outcome: Option<&crate::measure::hw::HwOutcome>, status: Option<&mut crate::measure::hw::HwStatus>) {
    let m = match outcome {
        Some(Ok(m)) => m,
        Some(Err(why)) => {
            row.hw_reason = why.clone();
            return;
        }
        None => {
            row.hw_reason = match status {
                Some(s) if !s.reason.is_empty() => s.reason.clone(),
                _ => "no counter batch ran for this row (interrupted)".into(),
            };
            return;
        }
    };
    let v = &m.values;
    row.hw_source = m.source.into();
    row.hw_reason = m.notes.join("; ");
    let note = |row: &mut ResultRow, why: String| {
        row.hw_reason = if row.hw_reason.is_empty() {
            why
        } else {
            format!("{why}; {}", row.hw_reason)
        };
    };
    // A busy percentage is a fraction of the unit's sustained peak: at most 100. Sampling
    // can read a hair over (a sample's edges); more than that is flagged, and the cell holds
    // 100 (metrics.csv keeps what was counted).
    let mut over: Vec<String> = Vec::new();
    let mut pct = |name: &str, x: Option<f64>| {
        x.map(|x| {
            if x > 100.5 {
                over.push(format!("hw_{name}_pct {x:.1}"));
            }
            x.clamp(0.0, 100.0)
        })
    };
    row.hw_sm_pct = pct("sm", v.sm_pct);
    row.hw_dram_pct = pct("dram", v.dram_pct);
    row.hw_l2_pct = pct("l2", v.l2_pct);
    row.hw_l1tex_pct = pct("l1tex", v.l1tex_pct);
    row.hw_tensor_pct = pct("tensor", v.tensor_pct);
    row.hw_fma_pct = pct("fma", v.fma_pct);
    row.hw_fmaheavy_pct = pct("fmaheavy", v.fmaheavy_pct);
    row.hw_alu_pct = pct("alu", v.alu_pct);
    row.hw_fp64_pct = pct("fp64", v.fp64_pct);
    row.hw_xu_pct = pct("xu", v.xu_pct);
    row.hw_shared_pct = pct("shared", v.shared_pct);
    row.hw_tex_pct = pct("tex", v.tex_pct);
    for o in over {
        self::limiter::flag(
            row,
            format!("{o} > 100 of the counter's sustained peak: shown as 100"),
        );
    }
    row.hw_dram_read_bytes = v.dram_read_bytes.map(|b| b.max(0.0).round() as u64);
    row.hw_dram_write_bytes = v.dram_write_bytes.map(|b| b.max(0.0).round() as u64);
    row.hw_sm_clock_mhz = v.sm_clock_mhz;
    row.hw_samples = Some(m.samples);
    row.hw_lost_samples = Some(m.lost);
    let run_max = status.as_ref().and_then(|s| s.max_sm_clock_mhz);
    let (reference, whose) = match (row.clock_mhz, run_max) {
        (Some(c), _) => (Some(c), "its timed batches' clock"),
        (None, Some(max)) => (Some(max), "the run's highest"),
        (None, None) => (None, ""),
    };
    let slow = match (v.sm_clock_mhz, reference) {
        (Some(c), Some(r)) if c < r * (1.0 - crate::measure::hw::CLOCK_DROP_PCT / 100.0) && m.own_clock.is_none() => {
            Some((c, r))
        }
        _ => None,
    };
    if let Some(own) = &m.own_clock {
        note(row, own.clone());
    }
    let cold = row.mode == Some(crate::results::Mode::Cold) && m.source == crate::measure::hw::SOURCE_CUPTI;
    if cold && m.evict_removed.is_none() {
        // Device-wide samples count the L2 eviction before each repetition too (on an H100 a
        // 256 MiB eviction read 301 MB against the kernel's 33 MB).
        note(row, "cold mode: the counted values include the L2 eviction before each repetition (it could not be counted apart), so the limiter stays the declared one".into());
    } else if let Some((c, r)) = slow {
        note(
            row,
            format!(
                "counted at an SM clock of {c:.0} MHz, {:.1} % below {whose} ({r:.0} MHz): the GPU had clocked down (it does when short kernels leave it idle between batches), so the counted percentages describe a GPU at another clock and the limiter stays the declared one",
                (1.0 - c / r) * 100.0
            ),
        );
    } else {
        if let Some(how) = &m.evict_removed {
            note(row, format!("cold mode: {how}"));
        }
        self::limiter::apply_counted(row);
    }
    if let (Some(_), Some(s)) = (slow, status) {
        s.throttled_rows += 1;
    }
}


pub fn widen_rerun(r: &mut crate::results::ResultRow, gpu: bool) {
    if !gpu || r.clock_pct.is_none() {
        return;
    }
    if let (Some(m), Some(lo), Some(hi)) = (r.median_ns, r.rerun_low_ns, r.rerun_high_ns) {
        let extra = 1.96 * std::f64::consts::SQRT_2 * crate::measure::clock::PROCESS_CLOCK_SD * m;
        r.rerun_low_ns = Some(m - (m - lo).hypot(extra));
        r.rerun_high_ns = Some(m + (hi - m).hypot(extra));
    }
}

/// A row's clock columns from its kept rounds' gauge readings `kept` (cycles per tick) and
/// the tries of its batches `redone` over all its rounds: `clock_mhz` (where the tick is
/// known), `clock_pct` against the run's `reference` so far, `clock_redone`, `clock_low`.
/// Nothing where the batches were not gauged.
pub fn clock_fill_row(
    r: &mut crate::results::ResultRow,
    kept: &[f64],
    redone: u32,
    ns_per_tick: Option<f64>,
    reference: Option<f64>,
) {
    if kept.is_empty() {
        return;
    }
    let mut readings = kept.to_vec();
    readings.sort_by(f64::total_cmp);
    let median = crate::stats::median(&readings);
    r.clock_mhz = ns_per_tick.map(|ns| median / ns * 1e3);
    r.clock_redone = Some(redone);
    if let Some(h) = reference.filter(|h| *h > 0.0) {
        r.clock_pct = Some((100.0 * median / h).min(100.0));
        r.clock_low = Some(readings.iter().filter(|c| crate::measure::clock::is_low(**c, h)).count() as u32);
    }
}


/// The row of one measurement mode, with its timing columns from the kept rounds.
pub fn timed_row(
    base: &ResultRow,
    mode: crate::results::Mode,
    track: &crate::measure::schedule::Track,
    settings: &crate::measure::plan::Settings,
    peaks: Option<&crate::peaks::Peaks>,
) -> ResultRow {
    let mut r = base.clone();
    r.mode = Some(mode);
    r.status = crate::results::RowStatus::Ok;
    r.ci_target_pct = Some(settings.ci_target_pct);
    r.budget_ms = Some(settings.budget_ns / 1e6);
    r.untimed_per_batch = Some(settings.untimed);
    r.reps_per_batch = Some(track.reps_per_batch);
    r.rounds_discarded = Some((track.discarded + track.transient.len()) as u32);
    r.stop_reason = track.stop;
    let kept = track.kept();
    r.rounds = Some(kept.len() as u32);
    let pooled: Vec<f64> = kept.iter().flat_map(|k| k.rep_ns.iter().copied()).collect();
    // The first placement's rounds (the adaptive stop's, the trend's), and each placement's
    // mean: with more than one placement the estimate and its intervals are over those means
    // (placements are the outer level of the design: a re-run sits in placements of its own).
    let medians = track.base_medians();
    let means = track.placement_means();
    let step = track.step_ns();
    r.timer_step_ns = (step > 0.0).then_some(step);
    r.fresh = Some(settings.fresh);
    // Descriptive statistics over the repetitions; the median and its intervals over the
    // rounds (src/stats/inference.rs), where the run's variance lives.
    let level = if means.len() >= 2 { &means } else { &medians };
    r.placements = Some(means.len().max(1) as u32);
    if let (Some(s), Some(ci)) = (
        crate::stats::summarize(&pooled, 0, 0),
        crate::stats::inference::rounds_interval(level, step),
    ) {
        r.n = Some(s.n);
        r.min_ns = Some(s.min);
        r.max_ns = Some(s.max);
        r.mean_ns = Some(s.mean);
        r.stddev_ns = Some(s.stddev);
        r.cv_pct = Some(s.cv_pct);
        r.p5_ns = Some(s.p5);
        r.p95_ns = Some(s.p95);
        r.mad_ns = Some(s.mad);
        let median = ci.estimate;
        r.median_ns = Some(median);
        r.median_ci_low_ns = Some(ci.low);
        r.median_ci_high_ns = Some(ci.high);
        r.rerun_low_ns = Some(ci.rerun_low);
        r.rerun_high_ns = Some(ci.rerun_high);
        // One placement: a re-run sits in a placement of its own, so its median differs by
        // the two placements' effects too (their SD pooled over the case from the check).
        if let (Some(sd), true) = (track.placement_sd, means.len() < 2) {
            r.placement_sd_pct = Some(sd * 100.0);
            let extra = 1.96 * std::f64::consts::SQRT_2 * sd * ci.estimate;
            let hw = (ci.rerun_high - ci.estimate).hypot(extra);
            r.rerun_low_ns = Some(ci.estimate - hw);
            r.rerun_high_ns = Some(ci.estimate + hw);
        }
        r.ci_half_width_pct = ci.half_width_pct.is_finite().then_some(ci.half_width_pct);
        if !track.transient.is_empty() {
            // The figure the rule tested: against the median round when the round was left
            // out, not against the row's median (other rounds, placements, move that one).
            let furthest = track
                .transient
                .iter()
                .filter_map(|i| track.transient_pct.get(i))
                .copied()
                .fold(f64::NEG_INFINITY, f64::max);
            let note = format!(
                "{} of its rounds left out as transients (each slower than the median round by more than {TRANSIENT_PCT} % and 4 robust SDs when left out; the furthest {furthest:+.1} % above the median round)",
                track.transient.len(),
            );
            add_note(&mut r.reason, note);
        }
        if let Some(t) = crate::stats::inference::trend(&medians) {
            r.trend_pct = Some(t.change_pct);
            r.trend_p = Some(t.p);
            if t.flagged() {
                let note = format!(
                    "the round medians drift by {:+.1} % from the first kept round to the last (p = {:.2e}): the device changed speed while it was measured",
                    t.change_pct, t.p
                );
                add_note(&mut r.reason, note);
            }
        }
        if means.len() >= 2 && median > 0.0 {
            let sd = crate::stats::inference::sd(&means) / median * 100.0;
            r.placement_sd_pct = Some(sd);
            let (lo, hi) = means
                .iter()
                .fold((f64::INFINITY, 0.0f64), |(l, h), m| (l.min(*m), h.max(*m)));
            let note = format!(
                "measured over {} placements of the case's resources: their means span {:+.1} % to {:+.1} % (SD {sd:.2} %), and the interval is over them",
                means.len(),
                (lo / median - 1.0) * 100.0,
                (hi / median - 1.0) * 100.0,
            );
            add_note(&mut r.reason, note);
        }
        let moved = match track.check {
            Some((_, m)) => Some((m, 1usize)),
            None if !track.moved.is_empty() => Some((
                track.moved.iter().map(|m| m.median).sum::<f64>() / track.moved.len() as f64,
                track.moved.len(),
            )),
            None => None,
        };
        if let (Some((moved, n_moved)), true) = (moved, median > 0.0) {
            // Against the first placement, as the check decided it.
            let base = if medians.is_empty() {
                median
            } else {
                medians.iter().sum::<f64>() / medians.len() as f64
            };
            let pct = (moved / base - 1.0) * 100.0;
            r.placement_pct = Some(pct);
            let verdict = track.placement_moved();
            r.placement = verdict.map(|sensitive| {
                if sensitive {
                    crate::results::Placement::Sensitive
                } else {
                    crate::results::Placement::Stable
                }
            });
            if verdict == Some(true) {
                let note = format!(
                    "its time moved by {pct:+.1} % when the case's buffers and images moved to new memory (placement check, {n_moved} rounds): it depends on where its data sits"
                );
                add_note(&mut r.reason, note);
            }
        }
        if median > 0.0 {
            r.gbytes_per_s = r.bytes.map(|b| b as f64 / median);
            r.gflops_per_s = r.flops.map(|f| f as f64 / median);
            r.shared_gbytes_per_s = r.shared_bytes.map(|b| b as f64 / median);
        }
        match peaks {
            Some(pk) => {
                self::limiter::derive(&mut r, pk, mode == crate::results::Mode::Warm)
            }
            None => {
                r.limiter = Some(crate::results::Limiter::None);
                r.limiter_evidence = "no peaks for this device: run `p3lab peak`".into();
            }
        }
    }
    r
}

/// Append `note` to a row's `reason`, `; `-separated (a transient, a trend and the placement
/// check can each add one; none may overwrite another).
fn add_note(reason: &mut String, note: String) {
    if !reason.is_empty() {
        reason.push_str("; ");
    }
    reason.push_str(&note);
}

