//! Step 8: a variant's record. Its identity, each mode's statistics over the rounds with the
//! clock, counters and P3 verdict ([`mode_record`]), its samples and its metrics: typed parts
//! of a [`crate::results::record::VariantRecord`], which makes the rows at the edge.
use crate::measure::left_out::TRANSIENT_PCT;
use crate::measure::plan::Settings;
use crate::measure::schedule::Track;
use crate::peaks::limiter;
use crate::results::record::{BuildFacts, CheckRunFacts, Identity, ModeRecord, Timing, Verdict};
use crate::results::{MetricRow, SampleRow};
use crate::scenario::{Case, Scenario, Variant, Work};
use crate::stats;
use crate::stats::inference;
use crate::vk::DeviceInfo;

/// Which variant of which case of which run a row or metric belongs to.
#[derive(Clone, Copy)]
pub struct Ident<'a> {
    /// The run's id (UTC time, host and process id; kept by `--resume`): the `run_id` column.
    pub run_id: &'a str,
    /// The host name the run records (`$P3LAB_HOST`, else the kernel's): the `host` column.
    pub host: &'a str,
    /// The scenario: its name is the `scenario` column.
    pub sc: &'a Scenario,
    /// The params case: its label is the `params` column.
    pub case: &'a Case,
    /// The variant: its name is the `variant` column.
    pub v: &'a Variant,
}

impl Ident<'_> {
    /// A metrics.csv row of this variant: `source` (e.g. `executable_statistic`, `perf_counter`),
    /// `name`, `value` in `unit`; no mode until [`MetricRow::with_mode`] sets one.
    pub fn metric(&self, source: &str, name: &str, value: f64, unit: &str) -> MetricRow {
        MetricRow {
            run_id: self.run_id.into(),
            scenario: self.sc.name.clone(),
            variant: self.v.name.clone(),
            params: self.case.params_label.clone(),
            source: source.into(),
            name: name.into(),
            value,
            unit: unit.into(),
            mode: String::new(),
        }
    }

    /// Who and what the variant is: the columns that do not depend on running it.
    pub fn identity(&self, d: &DeviceInfo) -> Identity {
        let v = self.v;
        Identity {
            run_id: self.run_id.into(),
            host: self.host.into(),
            scenario: self.sc.name.clone(),
            variant: v.name.clone(),
            params: self.case.params_label.clone(),
            defines: v
                .defines
                .iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect::<Vec<_>>()
                .join(";"),
            subgroup_size_requested: v.subgroup.label(),
            dispatches: v.passes.len() as u32,
            device_name: d.name.clone(),
            vendor_id: d.vendor_id,
            device_type: d.device_type.clone(),
            driver_name: d.driver_name.clone(),
            driver_info: d.driver_info.clone(),
            api_version: d.api_version.clone(),
            device_uuid: d.uuid.clone(),
            driver_version: d.driver_version,
        }
    }
}

/// What a mode's record needs from the run besides its rounds: the settings they ran with,
/// the peaks, the clock gauge, the device kind and the cold-mode eviction.
pub struct RunView<'a> {
    /// The case's round settings.
    pub settings: &'a Settings,
    /// This device's measured peaks (`p3lab peak`), if any.
    pub peaks: Option<&'a crate::peaks::Peaks>,
    /// The clock gauge's real-time tick, ns, where known.
    pub ns_per_tick: Option<f64>,
    /// The run's reference clock reading so far.
    pub reference: Option<f64>,
    /// A GPU (not a CPU device): the re-run interval holds a clock step.
    pub gpu: bool,
    /// How cold mode evicts the L2 (`read` / `write`).
    pub cold_evict: &'a str,
}

/// One timed mode's record: the statistics over its rounds, the clock they ran at, its
/// counter batch, and the P3 verdict from all of them and what the build and check run found.
pub fn mode_record(
    (work, build, check_run): (&Work, &BuildFacts, &CheckRunFacts),
    mode: crate::results::Mode,
    track: &Track,
    run: &RunView,
    hw_status: Option<&mut crate::measure::hw::HwStatus>,
) -> ModeRecord {
    let mut timing = timing(track, run.settings, work);
    let mut verdict = match (timing.median_ns, run.peaks) {
        (None, _) => Verdict::default(),
        (Some(_), None) => limiter::no_peaks(),
        (Some(median), Some(pk)) => {
            let occ = check_run.occupancy.as_ref();
            let input = limiter::Input {
                median_ns: Some(median),
                work,
                workgroups: build.workgroups,
                spill_bytes_per_thread: build.spill_bytes_per_thread,
                occupancy_pct: occ.map(|o| o.occupancy_pct),
                occupancy_waves_per_unit: occ.map(|o| o.waves_per_unit),
                occupancy_limiter: occ.map_or("", |o| o.limiter.as_str()),
                achieved_waves_per_unit: check_run.probe.achieved_waves_per_unit,
                warm: mode == crate::results::Mode::Warm,
            };
            limiter::derive(&input, pk)
        }
    };
    let kept: Vec<f64> = track.kept().iter().filter_map(|k| k.clock).collect();
    let redone = track
        .rounds
        .iter()
        .chain(&track.moved)
        .map(|k| k.redone)
        .sum();
    let clock = crate::measure::clock::facts(&kept, redone, run.ns_per_tick, run.reference);
    crate::measure::clock::widen_rerun(&mut timing, &clock, run.gpu);
    let cold_evict = if mode == crate::results::Mode::Cold {
        run.cold_evict.to_string()
    } else {
        String::new()
    };
    let counted = crate::measure::hw::counted(track.hw.as_ref(), hw_status, clock.clock_mhz, mode);
    limiter::apply_counted(&mut verdict, &counted, work);
    ModeRecord {
        mode,
        timing,
        clock,
        cold_evict,
        counted,
        verdict,
    }
}

/// The statistics of one measurement mode over its kept rounds, and the notes they add to
/// `reason`; `work`: the declared work, for the throughputs.
pub fn timing(track: &Track, settings: &Settings, work: &Work) -> Timing {
    let mut r = Timing {
        ci_target_pct: settings.ci_target_pct,
        budget_ms: settings.budget_ns / 1e6,
        untimed_per_batch: settings.untimed,
        reps_per_batch: track.reps_per_batch,
        rounds_discarded: (track.discarded + track.transient.len()) as u32,
        stop_reason: track.stop,
        ..Default::default()
    };
    let kept = track.kept();
    r.rounds = kept.len() as u32;
    let pooled: Vec<f64> = kept.iter().flat_map(|k| k.rep_ns.iter().copied()).collect();
    // The first placement's rounds (the adaptive stop's, the trend's), and each placement's
    // mean: with more than one placement the estimate and its intervals are over those means
    // (placements are the outer level of the design: a re-run sits in placements of its own).
    let medians = track.base_medians();
    let means = track.placement_means();
    let step = track.step_ns();
    r.timer_step_ns = (step > 0.0).then_some(step);
    r.fresh = settings.fresh;
    // Descriptive statistics over the repetitions; the median and its intervals over the
    // rounds (src/stats/inference.rs), where the run's variance lives.
    let level = if means.len() >= 2 { &means } else { &medians };
    r.placements = means.len().max(1) as u32;
    if let (Some(s), Some(ci)) = (
        stats::summarize(&pooled, 0, 0),
        inference::rounds_interval(level, step),
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
            r.notes.push(note);
        }
        if let Some(t) = inference::trend(&medians) {
            r.trend_pct = Some(t.change_pct);
            r.trend_p = Some(t.p);
            if t.flagged() {
                let note = format!(
                    "the round medians drift by {:+.1} % from the first kept round to the last (p = {:.2e}): the device changed speed while it was measured",
                    t.change_pct, t.p
                );
                r.notes.push(note);
            }
        }
        if means.len() >= 2 && median > 0.0 {
            let sd = inference::sd(&means) / median * 100.0;
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
            r.notes.push(note);
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
                r.notes.push(note);
            }
        }
        if median > 0.0 {
            r.gbytes_per_s = work.bytes().map(|b| b as f64 / median);
            r.gflops_per_s = work.flops.map(|f| f as f64 / median);
            r.shared_gbytes_per_s = work.shared_bytes.map(|b| b as f64 / median);
        }
    }
    r
}

/// samples.csv rows: every timed repetition of every round, kept or not (kept 0: left out as
/// warm-up or transient, or the placement check's round; `phase` says which). `ns_per_tick`:
/// the clock gauge's real-time tick, where known, for `clock_mhz`.
pub fn sample_rows(
    id: &Ident,
    mode: &str,
    track: &Track,
    ns_per_tick: Option<f64>,
) -> Vec<SampleRow> {
    let mut out = Vec::new();
    let mut repetition = 0u32;
    let rounds = track
        .rounds
        .iter()
        .enumerate()
        .map(|(k, r)| (track.phase(k), r));
    for (phase, round) in rounds.chain(track.moved.iter().map(|r| ("placement", r))) {
        let kept = u8::from(phase == "kept");
        for (b, (rep_ns, passes)) in round.rep_ns.iter().zip(&round.pass_ns).enumerate() {
            for (d, ns) in passes.iter().enumerate() {
                out.push(SampleRow {
                    run_id: id.run_id.into(),
                    scenario: id.sc.name.clone(),
                    variant: id.v.name.clone(),
                    params: id.case.params_label.clone(),
                    repetition,
                    dispatch: d as u32,
                    gpu_ns: *ns,
                    mode: mode.into(),
                    repetition_ns: *rep_ns,
                    round: round.round,
                    round_position: round.position,
                    batch_repetition: b as u32,
                    kept,
                    phase: phase.into(),
                    placement: if phase == "placement" {
                        1
                    } else {
                        round.placement
                    },
                    clock_mhz: round.clock.zip(ns_per_tick).map(|(c, ns)| c / ns * 1e3),
                });
            }
            repetition += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::ResultRow;

    /// A timed mode's row over `base` as the edge makes it: `base` with the statistics.
    fn timed_row(
        base: &ResultRow,
        _mode: crate::results::Mode,
        track: &Track,
        s: &Settings,
        _peaks: Option<&crate::peaks::Peaks>,
    ) -> ResultRow {
        let t = timing(track, s, &Work::default());
        crate::results::record::with_timing(base.clone(), &t)
    }
    use crate::measure::batch::Batch;
    use crate::measure::plan::Settings;

    #[test]
    fn notes_are_appended_never_overwritten() {
        // A check-run note, a transient round, a drift and a placement effect: all four stay.
        let mut track = Track::default();
        let mut medians: Vec<f64> = (0..12).map(|i| 100.0 + i as f64).collect();
        medians[5] = 200.0;
        let batch = |m: f64| Batch {
            rep_ns: vec![m; 3],
            pass_ns: vec![vec![m]; 3],
            step_ns: 0.0,
            wall_ns: 1.0,
            ..Default::default()
        };
        for (i, m) in medians.iter().enumerate() {
            track.push(i as u32, 0, batch(*m));
        }
        let s = Settings {
            min_rounds: 5,
            max_rounds: 12,
            ci_target_pct: 0.5,
            budget_ns: 1e9,
            reps: 3,
            untimed: 1,
            warmup_ms: 0,
            timeout_ms: 1000,
            seed: 1,
            fresh: crate::scenario::Fresh::None,
            placement_check: true,
            placements: crate::scenario::Placements::Auto,
        };
        track.decide(&s);
        assert_eq!(track.transient, vec![5]);
        track.push_moved(12, 0, batch(150.0));
        track.push_moved(13, 0, batch(150.0));
        let base = ResultRow {
            reason: "a check-run note".into(),
            ..Default::default()
        };
        let r = timed_row(&base, crate::results::Mode::Warm, &track, &s, None);
        for part in [
            "a check-run note",
            "1 of its rounds left out as transients",
            "the round medians drift by",
            "it depends on where its data sits",
        ] {
            assert!(r.reason.contains(part), "{part}: {}", r.reason);
        }
        assert_eq!(r.reason.matches("a check-run note").count(), 1);
        assert_eq!(crate::results::cell(&r.placement), "sensitive");
        // samples.csv says what each round was.
        let phases: Vec<&str> = (0..12).map(|k| track.phase(k)).collect();
        assert_eq!(phases[4], "kept");
        assert_eq!(phases[5], "transient");
        assert!(phases.iter().filter(|p| **p == "kept").count() == 11);
        let warm = Track {
            discarded: 2,
            ..track.clone()
        };
        assert_eq!(
            (warm.phase(0), warm.phase(1), warm.phase(2)),
            ("warmup", "warmup", "kept")
        );
    }

    /// Issue 29: the transient note gives the figure the rule tested, the round's excess over
    /// the median round when it was left out, never one that contradicts the 10 % (its excess
    /// over the row's median, after the device slowed for good, is under +8 %).
    #[test]
    fn a_transient_note_states_the_excess_the_rule_tested() {
        let mut medians = vec![
            100.0, 101.0, 99.0, 100.0, 102.0, 98.0, 100.0, 101.0, 99.0, 100.0,
        ];
        medians.push(132.0);
        // Then the device slows down gradually, and stays slower.
        medians.extend((1..20).map(|i| 100.0 + 1.5 * i as f64));
        for _ in 0..20 {
            medians.extend([128.5, 129.0, 127.5, 128.0]);
        }
        let s = Settings {
            min_rounds: 5,
            max_rounds: 1000,
            ci_target_pct: 0.0,
            budget_ns: 1e12,
            reps: 3,
            untimed: 1,
            warmup_ms: 0,
            timeout_ms: 1000,
            seed: 1,
            fresh: crate::scenario::Fresh::None,
            placement_check: false,
            placements: crate::scenario::Placements::Auto,
        };
        let mut track = Track::default();
        for (i, m) in medians.iter().enumerate() {
            track.push(
                i as u32,
                0,
                Batch {
                    rep_ns: vec![*m; 3],
                    pass_ns: vec![vec![*m]; 3],
                    step_ns: 0.0,
                    wall_ns: 1.0,
                    ..Default::default()
                },
            );
            track.decide(&s);
        }
        assert_eq!(track.transient, vec![10]);
        let r = timed_row(
            &ResultRow::default(),
            crate::results::Mode::Warm,
            &track,
            &s,
            None,
        );
        // Against the row's median the round is less than 10 % slower: the old note's figure.
        let median = r.median_ns.unwrap();
        assert!(132.0 / median - 1.0 < 0.08, "the row's median {median}");
        assert!(
            r.reason.contains("1 of its rounds left out as transients")
                && r.reason
                    .contains("the furthest +32.0 % above the median round"),
            "{}",
            r.reason
        );
    }
}
