//! Tests of the counters' columns, the clock rule, cold mode's subtraction and the sample
//! windows (pure: no GPU).
use super::*;
use crate::results::ResultRow;

/// A timed row's counter columns and verdict as the edge makes them (results/record/rows.rs):
/// `row`'s mode and clock are the inputs, its verdict starts empty.
fn fill_row(
    row: ResultRow,
    outcome: Option<&HwOutcome>,
    status: Option<&mut HwStatus>,
) -> ResultRow {
    let mode = row.mode.unwrap_or(crate::results::Mode::Warm);
    let c = super::counted(outcome, status, row.clock_mhz, mode);
    let mut v = crate::results::record::Verdict::default();
    crate::peaks::limiter::apply_counted(&mut v, &c, &crate::scenario::Work::default());
    let r = crate::results::record::with_counted(row, &c);
    crate::results::record::with_verdict(r, &v)
}

/// A batch counted while the GPU had clocked down (an H100 at 870 MHz against 1980 MHz,
/// nvidia-smi saying "idle") keeps the declared limiter with the reason, and is not called
/// throttled; one at the run's clock lets the counted verdict lead.
#[test]
fn a_batch_counted_at_a_low_clock_keeps_the_declared_limiter() {
    let measured = |mhz: f64| {
        counted(HwValues {
            sm_pct: Some(90.0),
            dram_pct: Some(20.0),
            sm_clock_mhz: Some(mhz),
            ..Default::default()
        })
    };
    let row = || ResultRow {
        mode: Some(crate::results::Mode::Warm),
        ..Default::default()
    };
    let mut status = HwStatus {
        max_sm_clock_mhz: Some(1980.0),
        ..Default::default()
    };
    let low = fill_row(row(), Some(&measured(870.0)), Some(&mut status));
    assert_ne!(
        low.limiter_source,
        Some(crate::results::LimiterSource::Counted)
    );
    assert!(
        low.hw_reason
            .contains("870 MHz, 56.1 % below the run's highest (1980 MHz)")
            && low.hw_reason.contains("limiter stays the declared one"),
        "{}",
        low.hw_reason
    );
    assert!(!low.flags.contains("throttled"), "{}", low.flags);
    assert_eq!(status.throttled_rows, 1);
    let full = fill_row(row(), Some(&measured(1975.0)), Some(&mut status));
    assert_eq!(
        full.limiter_source,
        Some(crate::results::LimiterSource::Counted)
    );
    assert_eq!(status.throttled_rows, 1);
}

/// A counter batch of 40 samples with these values.
fn counted(values: HwValues) -> HwOutcome {
    Ok(HwMeasured {
        source: SOURCE_CUPTI,
        values,
        metrics: Vec::new(),
        samples: 40,
        lost: 0,
        interval_ns: 200_000,
        window: "calibrated",
        window_ns: 8e6,
        reps: 100,
        notes: Vec::new(),
        evict_removed: None,
        own_clock: None,
        series: None,
    })
}

/// A tensor GEMM's counters at `mhz`.
fn counted_at(mhz: f64) -> HwOutcome {
    counted(HwValues {
        sm_pct: Some(48.0),
        l1tex_pct: Some(77.0),
        tensor_pct: Some(42.0),
        dram_pct: Some(14.0),
        sm_clock_mhz: Some(mhz),
        ..Default::default()
    })
}

/// Issue 39: the tensor-core GEMM ran at its own power-limited 1811 MHz, timed and counted
/// alike, 8.5 % under the run's highest clock. Its counters describe its own operating
/// point and decide; a batch counted below the row's own timed clock still does not.
#[test]
fn a_kernel_counted_at_its_own_sustained_clock_keeps_its_counted_verdict() {
    let mut status = HwStatus {
        max_sm_clock_mhz: Some(1980.0),
        ..Default::default()
    };
    let r = ResultRow {
        mode: Some(crate::results::Mode::Warm),
        clock_mhz: Some(1815.0),
        ..Default::default()
    };
    let r = fill_row(r, Some(&counted_at(1811.0)), Some(&mut status));
    assert_eq!(
        r.limiter_source,
        Some(crate::results::LimiterSource::Counted)
    );
    assert_eq!(crate::results::cell(&r.limiter), "l1tex");
    assert_eq!(status.throttled_rows, 0);
    let idle = ResultRow {
        mode: Some(crate::results::Mode::Warm),
        clock_mhz: Some(1980.0),
        ..Default::default()
    };
    let idle = fill_row(idle, Some(&counted_at(1035.0)), Some(&mut status));
    assert_ne!(
        idle.limiter_source,
        Some(crate::results::LimiterSource::Counted)
    );
    assert!(
        idle.hw_reason
            .contains("below its timed batches' clock (1980 MHz)"),
        "{}",
        idle.hw_reason
    );
}

/// The redo's judgement: a tensor GEMM counted at 1830 MHz against its timed 1995, again
/// at 1831 after the keeper, runs at its own clock; an idle 345 MHz that the keeper raises
/// to 1975 was a clock-down; one raised only to 1200 gets more keeper.
#[test]
fn a_clock_the_keeper_does_not_raise_is_the_kernels_own() {
    assert_eq!(judge_redo(1830.0, 1831.0, 1995.0), Redo::OwnClock);
    assert_eq!(judge_redo(345.0, 1975.0, 1980.0), Redo::Back);
    assert_eq!(judge_redo(345.0, 1200.0, 1980.0), Redo::Again);
}

/// A counted percentage over 100 (a sample's edge) is shown as 100 and flagged.
#[test]
fn counted_percentages_are_at_most_100() {
    let mut m = counted_at(1980.0).unwrap();
    m.values.dram_pct = Some(101.7);
    let r = ResultRow {
        mode: Some(crate::results::Mode::Warm),
        ..Default::default()
    };
    let r = fill_row(r, Some(&Ok(m)), None);
    assert_eq!(r.hw_dram_pct, Some(100.0));
    assert!(r.flags.contains("hw_dram_pct 101.7 > 100"), "{}", r.flags);
}

/// Cold mode: the cold batch holds `reps` kernels and `reps - 1` evictions; the
/// eviction-only batch `reps` evictions. A kernel at 30 % DRAM for 1 ms a repetition and an
/// eviction at 90 % for 0.5 ms: the cold window (4 reps) is 4 + 1.5 ms at
/// (0.3 * 4 + 0.9 * 1.5) / 5.5; subtracting gives 30 % back, and the bytes per repetition
/// lose 3/4 of an eviction's.
#[test]
fn the_eviction_counted_apart_is_taken_out_of_a_cold_batch() {
    let names = vec![
        "dram__throughput.avg.pct_of_peak_sustained_elapsed".to_string(),
        "dram__bytes_read.sum".to_string(),
        "gpc__cycles_elapsed.avg.per_second".to_string(),
    ];
    let cold_pct = (30.0 * 4.0 + 90.0 * 1.5) / 5.5;
    // Per repetition: 4 kernels x 10 MB + 3 evictions x 256 MB, over 4 reps.
    let cold_bytes = (4.0 * 10e6 + 3.0 * 256e6) / 4.0;
    let cold = [cold_pct, cold_bytes, 1.98e9];
    let evict = [90.0, 256e6, 1.98e9];
    let k = subtract_evictions(&names, &cold, &evict, 5.5e6, 0.5e6, 4).unwrap();
    assert!((k[0] - 30.0).abs() < 1e-9, "{k:?}");
    assert!((k[1] - 10e6).abs() < 1.0, "{k:?}");
    assert_eq!(k[2], 1.98e9);
    // Evictions that fill the window leave nothing to measure.
    assert!(subtract_evictions(&names, &cold, &evict, 1.55e6, 0.5e6, 4).is_err());
}

fn sp(a: i128, b: i128) -> Span {
    Span { start: a, end: b }
}

#[test]
fn only_samples_wholly_inside_the_window_count() {
    let s = [
        sp(0, 100),
        sp(100, 200),
        sp(200, 300),
        sp(300, 400),
        sp(400, 500),
    ];
    assert_eq!(inside(&s, sp(150, 450)), vec![2, 3]);
    assert_eq!(inside(&s, sp(100, 500)), vec![1, 2, 3, 4]);
    assert!(inside(&s, sp(120, 180)).is_empty());
}

#[test]
fn gaps_between_neighbours_are_lost_samples() {
    let s = [sp(0, 100), sp(100, 200), sp(400, 500), sp(500, 600)];
    assert_eq!(lost_between(&s, &[0, 1, 2, 3], 100), 2);
    assert_eq!(lost_between(&s, &[0, 1], 100), 0);
    // Jitter under half an interval is not a loss.
    let j = [sp(0, 100), sp(140, 240)];
    assert_eq!(lost_between(&j, &[0, 1], 100), 0);
}

#[test]
fn sums_scale_to_the_window_and_rates_are_weighted_means() {
    let names = vec!["dram__bytes_read.sum".to_string(), "x.avg.pct".to_string()];
    let spans = [sp(0, 100), sp(100, 300)];
    let vals = vec![vec![1000.0, 50.0], vec![2000.0, 80.0]];
    // 3000 bytes over 300 ns sampled; the window is 600 ns and held 4 repetitions.
    let c = combine(&names, &spans, &vals, 600.0, 4);
    assert_eq!(c[0], 3000.0 * 2.0 / 4.0);
    assert!((c[1] - (50.0 * 100.0 + 80.0 * 200.0) / 300.0).abs() < 1e-9);
}

#[test]
fn a_driver_table_is_picked_by_the_names_the_device_lists() {
    let names: Vec<String> = ["GPU Busy", "EU Active", "GTI Read Throughput", "x"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let (t, hits) = pick_table(&names).unwrap();
    assert_eq!(t, "anv-gen12");
    assert_eq!(hits.len(), 2);
    let radv: Vec<String> = vec!["valu busy".into()];
    assert_eq!(pick_table(&radv).unwrap().0, "radv");
    assert!(pick_table(&["invocations".to_string()]).is_none());
}

#[test]
fn uuids_parse_from_hex() {
    let u = parse_uuid("000102030405060708090a0b0c0d0e0f").unwrap();
    assert_eq!(u[15], 15);
    assert!(parse_uuid("00").is_none());
}

/// The counted-again loop (issue 39) redoes at most twice and never redoes a redo: a clock
/// the keeper does not raise is judged the kernel's own after one more batch (b164ed8 redid
/// the redone batch itself, without end, on the H200's tensor GEMMs).
#[test]
fn a_low_batch_is_counted_again_at_most_twice_and_its_own_clock_stands() {
    // The kernel's own clock: 1860 MHz whatever the keeper does, against 1970 timed.
    let mut calls = 0;
    let mut o = counted_at(1860.0);
    redo_if_slow(Some(1970.0), &mut o, |_| {
        calls += 1;
        Some(counted_at(1861.0))
    });
    assert_eq!(
        calls, 1,
        "one more batch shows the keeper does not raise it"
    );
    let m = o.as_ref().unwrap();
    assert!(
        m.own_clock.as_deref().unwrap().contains("the kernel's own"),
        "{m:?}"
    );
    // An idle clock-down that more keeper brings back: 1500, rising to 1700, then back.
    let (mut calls, mut o) = (0, counted_at(1500.0));
    let clocks = [1700.0, 1960.0];
    redo_if_slow(Some(1970.0), &mut o, |heat_ms| {
        assert_eq!(heat_ms, REDO_HEAT_MS[calls]);
        calls += 1;
        Some(counted_at(clocks[calls - 1]))
    });
    assert_eq!(calls, 2);
    let m = o.as_ref().unwrap();
    assert_eq!(m.values.sm_clock_mhz, Some(1960.0));
    assert!(m.own_clock.is_none());
    // Still rising after both: no third batch.
    let (mut calls, mut o) = (0, counted_at(1000.0));
    redo_if_slow(Some(1970.0), &mut o, |_| {
        calls += 1;
        Some(counted_at(1000.0 + 200.0 * calls as f64))
    });
    assert_eq!(calls, REDO_HEAT_MS.len());
    // At the timed clock, or without one: nothing is redone.
    let mut o = counted_at(1965.0);
    redo_if_slow(Some(1970.0), &mut o, |_| {
        panic!("no redo at the timed clock")
    });
    redo_if_slow(None, &mut counted_at(900.0), |_| {
        panic!("no reference, no redo")
    });
}

/// `P3LAB_CUPTI_IMAGE`: `grow` makes an image anew only larger; `fit` also smaller, once the
/// image is more than twice what the batch needs.
#[test]
fn an_image_is_made_anew_larger_always_and_smaller_only_when_fitted() {
    use super::nvidia::make_anew;
    assert!(make_anew(256, 300, false) && make_anew(256, 300, true));
    assert!(!make_anew(8192, 300, false), "grow keeps the large one");
    assert!(
        make_anew(8192, 300, true),
        "fit makes one of the batch's size"
    );
    assert!(!make_anew(600, 300, true), "twice the need is kept");
    assert!(!make_anew(300, 300, true) && !make_anew(300, 300, false));
}
