//! Rows that know they were not steady (issue 41, item 2): a row whose round medians drifted
//! (results.csv `trend_pct` / `trend_p` flagged, the note in `reason`) or that stopped at
//! `max_rounds` without reaching its CI target was measured while the device changed speed,
//! and its interval is not the whole story. Compared with another run, each drifted side
//! widens the pair's interval by its drift (its level is known only to within it), and a pair
//! with such a side is never `improved` or `regressed`: it reads `unstable`, and says why.
//! Two variants of one run are exempt: a round's drift hits both alike and cancels in the
//! paired ratio.
use super::*;
use crate::stats::inference::Trend;

/// What a pair of two runs knows about its sides' steadiness.
#[derive(Debug, Clone, Default, PartialEq)]
pub(super) struct Steadiness {
    /// Each drifted side's fitted change over its rounds, as a fraction (its magnitude).
    pub(super) drifts: Vec<f64>,
    /// Why a side is not steady, in words; empty when both are.
    pub(super) words: String,
}

impl Steadiness {
    /// `ri` widened by every drifted side's drift, in quadrature on the log scale with each
    /// side of the interval; the ratio itself stays.
    pub(super) fn widen(&self, ri: RatioInterval) -> RatioInterval {
        let extra = self
            .drifts
            .iter()
            .map(|d| (1.0 + d).ln())
            .fold(0.0, f64::hypot);
        if !(extra > 0.0 && ri.ratio > 0.0 && ri.low > 0.0 && ri.high > 0.0) {
            return ri;
        }
        let l = ri.ratio.ln();
        RatioInterval {
            low: (l - (l - ri.low.ln()).max(0.0).hypot(extra)).exp(),
            high: (l + (ri.high.ln() - l).max(0.0).hypot(extra)).exp(),
            ..ri
        }
    }

    /// Records the words on the pair, and turns a change it would claim into `unstable`.
    pub(super) fn mark(self, row: &mut PairRow) {
        if self.words.is_empty() {
            return;
        }
        if let v @ (Verdict::Improved | Verdict::Regressed) = row.verdict.clone() {
            row.verdict = Verdict::Unstable(Box::new(v));
        }
        row.unsteady = self.words;
    }
}

/// Why one side's row was not steady, if it was not: its drift (flagged by the runner's
/// rule) and whether it stopped at `max_rounds` short of its CI target.
fn side(label: &str, r: &Record, drifts: &mut Vec<f64>) -> Vec<String> {
    let mut why = Vec::new();
    if let (Some(change_pct), Some(p)) = (r.num("trend_pct"), r.num("trend_p")) {
        if (Trend { change_pct, p }).flagged() {
            drifts.push(change_pct.abs() / 100.0);
            why.push(format!(
                "{label}'s round medians drift by {change_pct:+.1} % (p = {p:.1e})"
            ));
        }
    }
    let short = match (r.num("ci_half_width_pct"), r.num("ci_target_pct")) {
        (Some(hw), Some(target)) => (hw > target).then_some((hw, target)),
        _ => None,
    };
    if let (Some((hw, target)), "max_rounds") = (short, r.get("stop_reason")) {
        why.push(format!(
            "{label} stopped at max_rounds with its CI at ±{hw:.1} % (target ±{target:.1} %)"
        ));
    }
    why
}

/// The steadiness of a pair of two runs' rows `b` (base) and `n` (new).
pub(super) fn of(b: &Record, n: &Record) -> Steadiness {
    let mut drifts = Vec::new();
    let mut why = side("base", b, &mut drifts);
    why.extend(side("new", n, &mut drifts));
    Steadiness {
        drifts,
        words: why.join("; "),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(cells: &[(&str, &str)]) -> Record {
        let mut fields: BTreeMap<String, String> = [
            ("schema_version", "2"),
            ("scenario", "s"),
            ("variant", "a"),
            ("status", "ok"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        for (k, v) in cells {
            fields.insert(k.to_string(), v.to_string());
        }
        Record::from_cells(2, fields).unwrap()
    }

    fn interval(ratio: f64, low: f64, high: f64) -> RatioInterval {
        RatioInterval {
            ratio,
            low,
            high,
            p: 0.0,
            n: 10,
        }
    }

    /// The rows: 1.15x slower with a narrow interval, each side drifting by 9 %.
    #[test]
    fn a_drifted_row_is_widened_and_never_a_change() {
        let drifted = row(&[("trend_pct", "9.1"), ("trend_p", "0.0001")]);
        let s = of(&drifted, &row(&[]));
        assert_eq!(s.drifts, [0.091]);
        assert!(
            s.words.contains("base's round medians drift by +9.1 %"),
            "{}",
            s.words
        );
        let w = s.widen(interval(1.15, 1.13, 1.17));
        // ±ln(1.091) in quadrature with ±1.7 %: about [1.05, 1.26].
        assert!(w.low < 1.06 && w.high > 1.25, "{w:?}");
        assert_eq!(w.ratio, 1.15);
        let mut p = crate::p3::compare::tests::pair_row();
        p.verdict = verdict_for_ci((w.low, w.high), 1.0);
        s.mark(&mut p);
        assert!(matches!(
            p.verdict,
            Verdict::Unstable(_) | Verdict::NoChange
        ));
        assert!(
            p.verdict_text().contains("drift by +9.1 %"),
            "{}",
            p.verdict_text()
        );
    }

    #[test]
    fn a_change_beyond_even_the_drift_reads_unstable() {
        let s = of(
            &row(&[]),
            &row(&[("trend_pct", "-2.0"), ("trend_p", "0.001")]),
        );
        let mut p = crate::p3::compare::tests::pair_row();
        p.verdict = Verdict::Regressed;
        s.mark(&mut p);
        assert_eq!(p.verdict, Verdict::Unstable(Box::new(Verdict::Regressed)));
        assert_eq!(p.verdict.as_str(), "unstable");
        let text = p.verdict_text();
        assert!(
            text.starts_with("unstable (regressed if its rounds were steady)"),
            "{text}"
        );
        assert!(
            text.contains("new's round medians drift by -2.0 %"),
            "{text}"
        );
    }

    #[test]
    fn a_row_short_of_its_target_at_max_rounds_is_unsteady_and_a_steady_one_is_not() {
        let short = row(&[
            ("stop_reason", "max_rounds"),
            ("ci_half_width_pct", "2.3"),
            ("ci_target_pct", "0.5"),
        ]);
        let s = of(&short, &row(&[]));
        assert!(s.drifts.is_empty());
        assert!(
            s.words
                .contains("base stopped at max_rounds with its CI at ±2.3 % (target ±0.5 %)"),
            "{}",
            s.words
        );
        // A trend too small or not significant, a budget stop, a target reached: steady.
        let fine = row(&[
            ("trend_pct", "0.5"),
            ("trend_p", "0.0001"),
            ("stop_reason", "budget"),
            ("ci_half_width_pct", "2.3"),
            ("ci_target_pct", "0.5"),
        ]);
        let s = of(&fine, &row(&[("trend_pct", "5"), ("trend_p", "0.2")]));
        assert_eq!(s, Steadiness::default());
        let mut p = crate::p3::compare::tests::pair_row();
        p.verdict = Verdict::Improved;
        s.mark(&mut p);
        assert_eq!(p.verdict, Verdict::Improved);
    }

    /// Two synthetic runs (six kept rounds a side), new `factor` times base, base's rows
    /// carrying `cells`.
    fn two_runs(factor: f64, cells: &[(&str, &str)]) -> Comparison {
        use crate::p3::compare::tests::placement_run;
        let mut base = placement_run(83.0, 100.0, 83.0, "none");
        let mut new = placement_run(83.0, 100.0, 83.0, "none");
        for s in &mut new.samples {
            s.run_id = "r2".into();
            s.gpu_ns *= factor;
            s.repetition_ns = s.repetition_ns.map(|t| t * factor);
        }
        for r in &mut new.results {
            r.set("run_id", "r2").unwrap();
        }
        for r in &mut base.results {
            for (k, v) in cells {
                r.set(k, v).unwrap();
            }
        }
        compare(&base, &new, &CompareOptions::default())
    }

    #[test]
    fn two_runs_with_a_drifted_side_say_so_in_every_output() {
        let drift = [("trend_pct", "9.1"), ("trend_p", "0.0001")];
        // Steady, 15 % slower: regressed.
        let c = two_runs(1.15, &[]);
        assert!(
            c.rows.iter().all(|p| p.verdict == Verdict::Regressed),
            "{:?}",
            c.rows
        );
        // The same with base's rounds drifting by 9.1 %: unstable, in words.
        let c = two_runs(1.15, &drift);
        assert!(
            c.rows
                .iter()
                .all(|p| p.verdict == Verdict::Unstable(Box::new(Verdict::Regressed))),
            "{:?}",
            c.rows
        );
        let brief = crate::p3::compare::to_brief(&c, crate::p3::compare::Shown::All, false);
        assert!(brief.contains("2 unstable"), "{brief}");
        // The headline sums up no change that no pair claims.
        assert!(
            brief.contains("(unstable overall: 2 pairs drifted or missed their CI target"),
            "{brief}"
        );
        assert!(
            brief.contains("unstable (regressed if its rounds were steady): base's round medians drift by +9.1 %"),
            "{brief}"
        );
        assert!(!crate::p3::compare::has_regression(&c, true));
        let md = crate::p3::compare::to_markdown(&c);
        assert!(
            md.contains("Unsteady: base's round medians drift by +9.1 %"),
            "{md}"
        );
        // Unchanged code on a drifting device: the widened interval holds 1, no change, and
        // the terminal still says why the pair is marked.
        let c = two_runs(1.04, &drift);
        assert!(
            c.rows.iter().all(|p| p.verdict == Verdict::NoChange),
            "{:?}",
            c.rows
        );
        let brief = crate::p3::compare::to_brief(&c, crate::p3::compare::Shown::All, false);
        assert!(brief.contains("no change [unsteady]"), "{brief}");
        assert!(
            brief.contains("[unsteady] 2 pairs: a side's rounds drifted"),
            "{brief}"
        );
        // Two variants of one run: a round's drift cancels in the paired ratio; not marked.
        let run = crate::p3::compare::tests::placement_run(90.0, 100.0, 90.0, "none");
        let mut run = run;
        for r in &mut run.results {
            for (k, v) in drift {
                r.set(k, v).unwrap();
            }
        }
        let pair = CompareOptions {
            pairs: vec![PairSpec::new("a", "b")],
            ..Default::default()
        };
        let c = compare(&run, &run, &pair);
        assert_eq!(c.rows[0].verdict, Verdict::Improved);
        assert!(c.rows[0].unsteady.is_empty());
    }
}
