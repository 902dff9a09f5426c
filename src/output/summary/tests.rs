//! Tests of the summary: ratios, the fastest, the P3 view, placement marks.
use super::*;

fn timed(median: f64, lo: f64, hi: f64) -> Timed {
    Timed {
        variant: String::new(),
        median_ns: median,
        median_ci_low_ns: Some(lo),
        median_ci_high_ns: Some(hi),
        vs_baseline: None,
        baseline: false,
        fastest: false,
        missed: None,
        limiter: None,
        units: Vec::new(),
        placement_pct: None,
    }
}

#[test]
fn ratio_is_variant_over_baseline_with_log_half_widths_in_quadrature() {
    // Base 200 ± 2 %, variant 100 ± 1 % (on the log scale, near enough).
    let base = timed(200.0, 200.0 / 1.02, 200.0 * 1.02);
    let v = timed(100.0, 100.0 / 1.01, 100.0 * 1.01);
    let s = ratio_to(&base, &v).unwrap();
    assert_eq!(s.ratio, 0.5);
    let h = (1.02f64.ln().powi(2) + 1.01f64.ln().powi(2)).sqrt();
    assert!((s.ci_low.unwrap() - 0.5 * (-h).exp()).abs() < 1e-12);
    assert!((s.ci_high.unwrap() - 0.5 * h.exp()).abs() < 1e-12);
    // No CI on one side: the ratio alone.
    let bare = Timed {
        median_ci_low_ns: None,
        ..timed(100.0, 0.0, 0.0)
    };
    let s = ratio_to(&base, &bare).unwrap();
    assert_eq!((s.ratio, s.ci_low, s.ci_high), (0.5, None, None));
    assert!(ratio_to(&timed(0.0, 0.0, 0.0), &v).is_none());
}

#[test]
fn overlapping_or_missed_intervals_are_not_called_fastest() {
    let row = |variant: &str, median: f64, half: f64, stop: StopReason, ci: f64| ResultRow {
        scenario: "s".into(),
        variant: variant.into(),
        mode: Some(Mode::Warm),
        status: RowStatus::Ok,
        median_ns: Some(median),
        median_ci_low_ns: Some(median - half),
        median_ci_high_ns: Some(median + half),
        stop_reason: Some(stop),
        ci_half_width_pct: Some(ci),
        ci_target_pct: Some(0.5),
        ..Default::default()
    };
    // Clear: 100 ± 1 against 120 ± 1, both met the target.
    let clear = [
        row("a", 120.0, 1.0, StopReason::Target, 0.4),
        row("b", 100.0, 1.0, StopReason::Target, 0.4),
    ];
    let s = summarize(&clear, &Layout::default());
    let m = &s.cases[0].modes[0];
    assert_eq!(m.fastest.as_deref(), Some("b"));
    assert!(m.unclear.is_none());
    let text = render_text(&s, false);
    assert!(
        text.contains("b ran 1.20× faster than a (time ratio 0.833"),
        "{text}"
    );
    assert!(!text.contains("missed"), "{text}");
    // Overlapping: 100 ± 15 against 110 ± 15 (the lavapipe case of issue 29).
    let wide = [
        row("a", 110.0, 15.0, StopReason::Budget, 13.0),
        row("b", 100.0, 15.0, StopReason::Budget, 15.0),
    ];
    let s = summarize(&wide, &Layout::default());
    let m = &s.cases[0].modes[0];
    assert_eq!(m.fastest, None);
    let u = m.unclear.as_ref().unwrap();
    assert_eq!(
        (u.lowest.as_str(), u.overlaps.clone()),
        ("b", vec!["a".to_string()])
    );
    let text = render_text(&s, false);
    assert!(
        !text.contains("fastest  ") && !text.contains("* b"),
        "{text}"
    );
    assert!(
        text.contains("b has the lowest median, but its interval overlaps a and its CI (±15.0 %) missed the 0.5 % target (stopped at the time budget): no clear fastest"),
        "{text}"
    );
    assert!(
        text.contains(
            "2 of 2 timed rows missed the 0.5 % CI target (2 stopped at the time budget)"
        ),
        "{text}"
    );
    assert!(to_markdown(&s).contains("no clear fastest"));
    // Apart but missed: not called fastest either.
    let missed = [
        row("a", 120.0, 1.0, StopReason::Target, 0.4),
        row("b", 100.0, 1.0, StopReason::MaxRounds, 0.9),
    ];
    let s = summarize(&missed, &Layout::default());
    assert_eq!(s.cases[0].modes[0].fastest, None);
    assert_eq!(s.missed_target.get("max_rounds"), Some(&1));
}

#[test]
fn an_interval_reaching_below_zero_is_no_interval() {
    let row = |variant: &str, median: f64, lo: f64, hi: f64| ResultRow {
        scenario: "s".into(),
        variant: variant.into(),
        mode: Some(Mode::Warm),
        status: RowStatus::Ok,
        median_ns: Some(median),
        median_ci_low_ns: Some(lo),
        median_ci_high_ns: Some(hi),
        ..Default::default()
    };
    let rows = [
        row("a", 66e6, -319.66e6, 451.62e6),
        row("b", 60e6, 59e6, 61e6),
    ];
    let s = summarize(&rows, &Layout::default());
    let text = render_text(&s, false);
    assert!(!text.contains("-319"), "{text}");
    assert!(text.contains("no CI (too few rounds)"), "{text}");
    assert!(!to_markdown(&s).contains("-319"));
}

#[test]
fn the_p3_view_shows_limiter_and_units_next_to_the_time() {
    let r = ResultRow {
        scenario: "coalescing".into(),
        variant: "stride4".into(),
        mode: Some(Mode::Warm),
        status: RowStatus::Ok,
        median_ns: Some(553_700.0),
        median_ci_low_ns: Some(553_000.0),
        median_ci_high_ns: Some(554_000.0),
        dram_pct: Some(88.6),
        launch_pct: Some(2.95),
        limiter: Some(crate::results::Limiter::one("dram")),
        limiter_pct: Some(88.6),
        limiter_source: Some(crate::results::LimiterSource::Declared),
        ..Default::default()
    };
    let s = summarize(&[r], &Layout::default());
    let text = render_text(&s, false);
    assert!(
        text.contains("  limiter  ") && text.contains("% of peak"),
        "{text}"
    );
    assert!(text.contains("dram 89 %  dram 89 · launch 3.0"), "{text}");
    assert_eq!(s.with_limiter, 1);
    let md = to_markdown(&s);
    assert!(md.contains("| dram 89 % | dram 89 · launch 3.0 |"), "{md}");
}

#[test]
fn a_variant_whose_time_moves_with_its_data_is_marked() {
    let row = |variant: &str, median: f64, placement: &str, pct: f64| ResultRow {
        scenario: "bank_conflicts".into(),
        variant: variant.into(),
        mode: Some(Mode::Warm),
        status: RowStatus::Ok,
        median_ns: Some(median),
        median_ci_low_ns: Some(median * 0.999),
        median_ci_high_ns: Some(median * 1.001),
        placement: Placement::parse(placement),
        placement_pct: Some(pct),
        ..Default::default()
    };
    let rows = [
        row("pad0", 99_000.0, "stable", 0.2),
        row("pad1", 82_900.0, "sensitive", 15.3),
    ];
    let s = summarize(&rows, &Layout::default());
    let text = render_text(&s, false);
    let pad1 = text.lines().find(|l| l.contains("pad1")).unwrap();
    assert!(
        pad1.ends_with("fastest  moves +15.3 % with its data"),
        "{text}"
    );
    let pad0 = text.lines().find(|l| l.contains("pad0 ")).unwrap();
    assert!(!pad0.contains("moves"), "{text}");
    assert!(text.contains(PLACEMENT_NOTE), "{text}");
    assert!(to_markdown(&s).contains("(fastest) (moves +15.3 % with its data)"));
    assert!(to_json(&s).contains("\"placement_pct\": 15.3"));
    // Nothing moved: no mark, no note.
    let calm = summarize(&rows[..1], &Layout::default());
    assert!(!render_text(&calm, false).contains("moves"));
}

/// Issue 39: a counted row shows `(hw)` on its limiter and its counted units, counted units
/// first; a declared figure over 100 % with no counter behind it reads `>100 (declared)`.
#[test]
fn counted_units_carry_hw_and_come_first_and_impossible_ones_say_so() {
    let r = ResultRow {
        scenario: "tiling".into(),
        variant: "tilex16".into(),
        mode: Some(Mode::Warm),
        status: RowStatus::Ok,
        median_ns: Some(553_700.0),
        median_ci_low_ns: Some(553_000.0),
        median_ci_high_ns: Some(554_000.0),
        l2_pct: Some(40.0),
        hw_dram_pct: Some(70.0),
        hw_sm_pct: Some(45.0),
        declared_over_units: "texture".into(),
        limiter: Some(crate::results::Limiter::one("dram")),
        limiter_pct: Some(70.0),
        limiter_source: Some(crate::results::LimiterSource::Counted),
        ..Default::default()
    };
    let s = summarize(&[r], &Layout::default());
    let text = render_text(&s, false);
    let want = "dram 70 % (hw)  dram (hw) 70 · sm (hw) 45 · l2 40 · texture >100 (declared)";
    assert!(text.contains(want), "{text}");
    let md = to_markdown(&s);
    assert!(
        md.contains(
            "| dram 70 % (hw) | dram (hw) 70 · sm (hw) 45 · l2 40 · texture >100 (declared) |"
        ),
        "{md}"
    );
}
