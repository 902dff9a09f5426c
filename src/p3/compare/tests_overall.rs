//! Tests of what compare shows beside each pair's verdict: the counted limiter's `(hw)` and
//! the overall figure of a set of pairs.
use super::tests::placement_run;
use super::*;

/// Issue 39: compare names a counted limiter `(hw)`, as the summary and the report do, and its
/// units list the counted ones first (`compare --p3`, compare.md and report.html read them).
#[test]
fn a_counted_limiter_and_counted_units_carry_hw() {
    let cells = |source: &str| -> Record {
        let fields: BTreeMap<String, String> = [
            ("schema_version", "2"),
            ("scenario", "s"),
            ("variant", "a"),
            ("status", "ok"),
            ("limiter", "l1tex"),
            ("limiter_pct", "88.4"),
            ("limiter_source", source),
            ("hw_l1tex_pct", "88.4"),
            ("l2_pct", "40"),
            ("declared_over_units", "texture"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        Record::from_cells(2, fields).unwrap()
    };
    assert_eq!(pairs::limiter_of(&cells("counted")), "l1tex 88 % (hw)");
    assert_eq!(pairs::limiter_of(&cells("declared")), "l1tex 88 %");
    let r = cells("counted");
    let units = crate::results::unit_pcts(|c| r.num(c), r.get("declared_over_units"));
    let names: Vec<&str> = units.iter().map(|(n, _)| n.as_str()).collect();
    // texture's counted figure (L1TEX, the coarser unit behind it) stands in: no `>100`.
    assert_eq!(names, ["l1tex (hw)", "l2"]);
}

/// Issue 41: four pairs of two runs, each "no change" with an interval of about [0.47, 1.01],
/// were headlined 0.72 [0.60, 0.87], "1.38× faster": their intervals were combined as if
/// independent, though the pairs share each process's effect. Fully correlated, the overall
/// interval holds 1 whenever every pair's does; pairs of one run stay independent.
#[test]
fn the_overall_figure_of_two_runs_never_claims_what_no_pair_supports() {
    let pair = CompareOptions {
        pairs: vec![PairSpec::new("a", "b")],
        ..Default::default()
    };
    let run = placement_run(83.0, 100.0, 97.0, "none");
    let mut p = compare(&run, &run, &pair).rows[0].clone();
    p.change_pct = Some(-28.0);
    p.ratio_ci = Some((0.47, 1.01));
    p.verdict = Verdict::NoChange;
    p.same_run = false;
    let mut c = Comparison {
        rows: vec![p; 4],
        warnings: Vec::new(),
        noise_pct: 1.0,
        cross_device: Vec::new(),
        process: Vec::new(),
    };
    let (g, ci, n) = brief::geomean(&c).unwrap();
    assert_eq!(n, 4);
    assert!((g - 0.72).abs() < 1e-9);
    let (lo, hi) = ci.unwrap();
    assert!(lo < 1.0 && hi > 1.0, "[{lo}, {hi}]");
    let h = brief::headline(&c, false);
    assert!(h.contains("no change overall"), "{h}");
    assert!(h.contains("share each run's process effect"), "{h}");
    // The same four as variants of one run: independent, the interval narrows by √4.
    for p in &mut c.rows {
        p.same_run = true;
    }
    let (_, ci, _) = brief::geomean(&c).unwrap();
    assert!(ci.unwrap().1 < 1.0, "{ci:?}");
}

/// Issue 40: a row without a verdict (limiter `none`: no peaks) shows no limiter, so that
/// "Limiter: none → none" does not read like one.
#[test]
fn no_verdict_shows_no_limiter() {
    let fields: BTreeMap<String, String> = [
        ("schema_version", "2"),
        ("scenario", "s"),
        ("variant", "a"),
        ("status", "ok"),
        ("limiter", "none"),
        ("limiter_source", "declared"),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    assert_eq!(
        pairs::limiter_of(&Record::from_cells(2, fields).unwrap()),
        ""
    );
}
