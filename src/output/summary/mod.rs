//! The summary `p3lab run` prints on stdout when it ends: per params case and mode, each
//! variant's median with its 95 % CI, its time ratio to the case's baseline, its limiter and
//! the %-of-peak of every unit it touches (the P3 view), the fastest marked only where the
//! intervals say so, and the variants that did not run with their reason. Pure: rows in, a
//! [`Summary`] out, written as text (text.rs), Markdown and JSON (export.rs); docs/csv.md,
//! "The run's summary".
//!
//! **Ratio** = variant median / baseline median, below 1 faster: the one direction every
//! p3lab output uses (compare, report), with the words (`1.12× faster`) beside it.
//! results.csv has no ratio column, so its 95 % interval comes from the two rows' CIs: each
//! CI's half-width on the log scale, `ln(high / low) / 2`, combined in quadrature around
//! `ln(ratio)`. That treats the two medians' errors as independent; the variants of a case
//! run interleaved in the same rounds, so their errors share the device's drift and the
//! interval errs on the wide side. `p3lab compare RUN --pair BASE=NEW` pairs the rounds for
//! a narrower one.
//!
//! **Fastest** is said only where it holds: the lowest median is marked fastest when its
//! interval clears every other variant's and its row met its CI target; otherwise the
//! summary says which intervals overlap it or that it missed the target (issue 29).
use crate::results::{Check, Mode, Placement, ResultRow, RowStatus, StopReason};
use serde::Serialize;
use std::collections::BTreeMap;

mod export;
mod text;
pub use export::{to_json, to_markdown};
pub use text::{
    decimals, fmt_ratio, fmt_time, heading, missed_line, placement_tag, render_text, table_format,
    time_unit, verdict_line, PLACEMENT_NOTE,
};

/// The method above in a sentence, for the exports.
pub const RATIO_METHOD: &str = "variant median / baseline median, below 1 faster; its 95 % interval combines the two rows' median CIs (results.csv median_ci_low_ns, median_ci_high_ns) as log-scale half-widths in quadrature, treating their errors as independent";

/// What the scenarios say about their cases: the variants' order and the baseline.
#[derive(Debug, Clone, Default)]
pub struct Layout {
    cases: BTreeMap<(String, String), CaseLayout>,
}

#[derive(Debug, Clone, Default)]
pub struct CaseLayout {
    pub variants: Vec<String>,
    /// `[check] baseline`, else the first variant.
    pub baseline: Option<String>,
}

impl Layout {
    pub fn of(scenarios: &[crate::scenario::Scenario]) -> Layout {
        let mut l = Layout::default();
        for sc in scenarios {
            for case in &sc.cases {
                let variants: Vec<String> = case.variants.iter().map(|v| v.name.clone()).collect();
                let baseline = case
                    .check
                    .as_ref()
                    .and_then(|c| c.baseline.clone())
                    .or_else(|| variants.first().cloned());
                l.insert(&sc.name, &case.params_label, variants, baseline);
            }
        }
        l
    }

    pub fn insert(
        &mut self,
        scenario: &str,
        params: &str,
        variants: Vec<String>,
        baseline: Option<String>,
    ) {
        self.cases.insert(
            (scenario.into(), params.into()),
            CaseLayout { variants, baseline },
        );
    }

    /// The case, else another case of the scenario (a run with other `--set` values).
    fn get(&self, scenario: &str, params: &str) -> Option<&CaseLayout> {
        self.cases
            .get(&(scenario.to_string(), params.to_string()))
            .or_else(|| {
                self.cases
                    .iter()
                    .find(|((s, _), _)| s == scenario)
                    .map(|(_, c)| c)
            })
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Summary {
    /// Rows per status over the whole run.
    pub rows: BTreeMap<String, usize>,
    /// Timed rows whose CI missed its target, per stop reason (`budget`, `max_rounds`).
    pub missed_target: BTreeMap<String, usize>,
    /// The CI target those rows aimed at (%), when the rows agree on one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ci_target_pct: Option<f64>,
    /// Timed rows in all (status ok with a median).
    pub timed: usize,
    /// Timed rows with a limiter other than `none` (0: the run had no peaks).
    pub with_limiter: usize,
    pub cases: Vec<CaseSummary>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CaseSummary {
    pub scenario: String,
    pub params: String,
    /// Set when the rows come from more than one device (a merged folder).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub device: Option<String>,
    pub modes: Vec<ModeSummary>,
    /// Variants without timings, grouped by status and reason.
    pub not_run: Vec<NotRun>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ModeSummary {
    pub mode: String,
    /// The variant the ratios are against.
    pub baseline: Option<String>,
    /// Why that is not the case's baseline, when it is not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// The lowest median, when at least two variants were timed and the intervals say it is
    /// the fastest (see the module's comment).
    pub fastest: Option<String>,
    /// The lowest median when it is not clearly the fastest, and why not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unclear: Option<Unclear>,
    pub variants: Vec<Timed>,
}

/// Why the lowest median is not called the fastest.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Unclear {
    /// The variant with the lowest median.
    pub lowest: String,
    /// Variants whose intervals overlap its interval.
    pub overlaps: Vec<String>,
    /// Its CI's half-width (%) and the target it missed, with the stop reason.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub missed: Option<(f64, f64, String)>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Timed {
    pub variant: String,
    pub median_ns: f64,
    pub median_ci_low_ns: Option<f64>,
    pub median_ci_high_ns: Option<f64>,
    /// Time ratio to the baseline (variant / baseline, below 1 faster); 1 (no interval) for
    /// the baseline itself.
    pub vs_baseline: Option<Ratio>,
    pub baseline: bool,
    pub fastest: bool,
    /// The CI's half-width (%) and its target, when the row missed it, with the stop reason.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub missed: Option<(f64, f64, String)>,
    /// The limiter (`dram`, `latency`, …) with its % where it is a unit; None without peaks.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub limiter: Option<String>,
    /// Every unit's %-of-peak the row has (results.csv's unit columns, src/results/units.rs).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub units: Vec<(String, f64)>,
    /// The placement check found its time depends on where its data sits: the change in %
    /// with the case's buffers and images moved (results.csv `placement_pct`); None otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub placement_pct: Option<f64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Ratio {
    /// Variant median / baseline median.
    pub ratio: f64,
    pub ci_low: Option<f64>,
    pub ci_high: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NotRun {
    pub status: String,
    pub reason: String,
    pub variants: Vec<String>,
}

/// Half-width of a row's CI on the log scale.
fn log_half_width(t: &Timed) -> Option<f64> {
    match (t.median_ci_low_ns, t.median_ci_high_ns) {
        (Some(lo), Some(hi)) if lo > 0.0 && hi >= lo => Some((hi / lo).ln() / 2.0),
        _ => None,
    }
}

/// `t` median / `base` median, with the interval of the module's comment.
pub fn ratio_to(base: &Timed, t: &Timed) -> Option<Ratio> {
    if !(base.median_ns > 0.0 && t.median_ns > 0.0) {
        return None;
    }
    let ratio = t.median_ns / base.median_ns;
    let h = match (log_half_width(base), log_half_width(t)) {
        (Some(a), Some(b)) => Some((a * a + b * b).sqrt()),
        _ => None,
    };
    Some(Ratio {
        ratio,
        ci_low: h.map(|h| ratio * (-h).exp()),
        ci_high: h.map(|h| ratio * h.exp()),
    })
}

/// Build the summary: cases in the order their rows first appear, variants in the scenario's
/// order (then the file's).
pub fn summarize(rows: &[ResultRow], layout: &Layout) -> Summary {
    let mut counts = BTreeMap::new();
    for r in rows {
        *counts.entry(r.status.as_str().to_string()).or_insert(0) += 1;
    }
    let mode_of = |r: &ResultRow| r.mode.unwrap_or(Mode::Warm).label().to_string();
    let device_of = |r: &ResultRow| (r.device_name.clone(), r.host.clone());
    let mut devices: Vec<(String, String)> = rows.iter().map(device_of).collect();
    devices.sort();
    devices.dedup();
    let hosts = devices
        .iter()
        .map(|d| &d.1)
        .collect::<std::collections::BTreeSet<_>>();
    let label = |d: &(String, String)| -> Option<String> {
        (devices.len() > 1).then(|| {
            if hosts.len() > 1 {
                format!("{} on {}", d.0, d.1)
            } else {
                d.0.clone()
            }
        })
    };
    // Cases in order of first appearance.
    let mut keys: Vec<((String, String), String, String)> = Vec::new();
    for r in rows {
        let k = (device_of(r), r.scenario.clone(), r.params.clone());
        if !keys.contains(&k) {
            keys.push(k);
        }
    }
    let mut cases = Vec::new();
    for (dev, scenario, params) in keys {
        let mut of_case: Vec<&ResultRow> = rows
            .iter()
            .filter(|r| device_of(r) == dev && r.scenario == scenario && r.params == params)
            .collect();
        let case_layout = layout.get(&scenario, &params);
        let order = |v: &str| {
            case_layout
                .and_then(|c| c.variants.iter().position(|x| x == v))
                .unwrap_or(usize::MAX)
        };
        // Stable: variants the scenario does not list keep the file's order.
        of_case.sort_by_key(|r| order(&r.variant));
        let baseline = case_layout
            .and_then(|c| c.baseline.clone())
            .or_else(|| {
                of_case
                    .iter()
                    .find(|r| r.check == Some(Check::Baseline))
                    .map(|r| r.variant.clone())
            })
            .or_else(|| of_case.first().map(|r| r.variant.clone()));
        let mut modes: Vec<String> = Vec::new();
        for r in &of_case {
            if !modes.contains(&mode_of(r)) {
                modes.push(mode_of(r));
            }
        }
        let modes = modes
            .iter()
            .map(|m| {
                let in_mode: Vec<&&ResultRow> =
                    of_case.iter().filter(|r| &mode_of(r) == m).collect();
                mode_summary(m, &in_mode, baseline.as_deref())
            })
            .collect();
        let mut not_run: Vec<NotRun> = Vec::new();
        for r in of_case.iter().filter(|r| r.status != RowStatus::Ok) {
            match not_run
                .iter_mut()
                .find(|n| n.status == r.status.as_str() && n.reason == r.reason)
            {
                Some(n) => {
                    if !n.variants.contains(&r.variant) {
                        n.variants.push(r.variant.clone());
                    }
                }
                None => not_run.push(NotRun {
                    status: r.status.as_str().to_string(),
                    reason: r.reason.clone(),
                    variants: vec![r.variant.clone()],
                }),
            }
        }
        cases.push(CaseSummary {
            scenario,
            params,
            device: label(&dev),
            modes,
            not_run,
        });
    }
    let timed_rows: Vec<&ResultRow> = rows
        .iter()
        .filter(|r| r.status == RowStatus::Ok && r.median_ns.is_some())
        .collect();
    let mut missed_target = BTreeMap::new();
    let mut targets: Vec<f64> = Vec::new();
    for r in &timed_rows {
        if let Some((_, target, why)) = missed(r) {
            *missed_target.entry(why).or_insert(0) += 1;
            if !targets.contains(&target) {
                targets.push(target);
            }
        }
    }
    Summary {
        rows: counts,
        missed_target,
        ci_target_pct: match targets.as_slice() {
            [one] => Some(*one),
            _ => None,
        },
        timed: timed_rows.len(),
        with_limiter: timed_rows
            .iter()
            .filter(|r| limiter_text(r).is_some())
            .count(),
        cases,
    }
}

/// The row's CI half-width and target (%) with its stop reason, when it stopped on its budget
/// or its round cap with the CI still wider than the target.
fn missed(r: &ResultRow) -> Option<(f64, f64, String)> {
    let why = match r.stop_reason? {
        StopReason::Budget | StopReason::MaxRounds => r.stop_reason?.as_str().to_string(),
        StopReason::Target | StopReason::Resolution => return None,
    };
    match (r.ci_half_width_pct, r.ci_target_pct) {
        (Some(h), Some(t)) if h > t => Some((h, t, why)),
        _ => None,
    }
}

/// `dram 89 %`, `l1tex 82 % (hw)` (the counters said it), `latency`; None without a verdict.
fn limiter_text(r: &ResultRow) -> Option<String> {
    let l = r.limiter.as_ref()?;
    if *l == crate::results::Limiter::None {
        return None;
    }
    let hw = if r.limiter_source == Some(crate::results::LimiterSource::Counted) {
        " (hw)"
    } else {
        ""
    };
    Some(match (l.is_unit(), r.limiter_pct) {
        (true, Some(p)) => format!("{l} {} %{hw}", crate::results::units::pct_text(p)),
        _ => format!("{l}{hw}"),
    })
}

/// The row's unit percentages (src/results/units.rs) from its typed fields.
fn units_of(r: &ResultRow) -> Vec<(String, f64)> {
    let rec = crate::results::Record::from_row(r.clone());
    crate::results::unit_pcts(|c| rec.num(c))
}

fn mode_summary(mode: &str, rows: &[&&ResultRow], baseline: Option<&str>) -> ModeSummary {
    let mut timed: Vec<Timed> = rows
        .iter()
        .filter(|r| r.status == RowStatus::Ok)
        .filter_map(|r| {
            Some(Timed {
                variant: r.variant.clone(),
                median_ns: r.median_ns?,
                median_ci_low_ns: r.median_ci_low_ns,
                median_ci_high_ns: r.median_ci_high_ns,
                vs_baseline: None,
                baseline: false,
                fastest: false,
                missed: missed(r),
                limiter: limiter_text(r),
                units: units_of(r),
                placement_pct: (r.placement == Some(Placement::Sensitive))
                    .then_some(r.placement_pct)
                    .flatten(),
            })
        })
        .collect();
    let mut note = None;
    let base_idx = match baseline.and_then(|b| timed.iter().position(|t| t.variant == b)) {
        Some(i) => Some(i),
        None if timed.is_empty() => None,
        None => {
            let why = match baseline.and_then(|b| rows.iter().find(|r| r.variant == b)) {
                Some(r) => format!("the baseline `{}` is {}", r.variant, r.status),
                None => match baseline {
                    Some(b) => format!("the baseline `{b}` has no row in this run"),
                    None => "no baseline".into(),
                },
            };
            note = Some(format!("{why}; ratios against `{}`", timed[0].variant));
            Some(0)
        }
    };
    if let Some(b) = base_idx {
        let base = timed[b].clone();
        for (i, t) in timed.iter_mut().enumerate() {
            t.baseline = i == b;
            t.vs_baseline = if i == b {
                Some(Ratio {
                    ratio: 1.0,
                    ci_low: None,
                    ci_high: None,
                })
            } else {
                ratio_to(&base, t)
            };
        }
    }
    let lowest = (timed.len() >= 2)
        .then(|| {
            timed
                .iter()
                .enumerate()
                .min_by(|a, b| a.1.median_ns.total_cmp(&b.1.median_ns))
                .map(|(i, _)| i)
        })
        .flatten();
    let mut unclear = None;
    let mut fastest = None;
    if let Some(f) = lowest {
        let overlaps = overlapping(&timed, f);
        let missed = timed[f].missed.clone();
        if overlaps.is_empty() && missed.is_none() {
            timed[f].fastest = true;
            fastest = Some(timed[f].variant.clone());
        } else {
            unclear = Some(Unclear {
                lowest: timed[f].variant.clone(),
                overlaps,
                missed,
            });
        }
    }
    ModeSummary {
        mode: mode.into(),
        baseline: base_idx.map(|i| timed[i].variant.clone()),
        note,
        fastest,
        unclear,
        variants: timed,
    }
}

/// The variants whose median CI overlaps variant `f`'s (a row without a CI overlaps every
/// other: nothing bounds it).
fn overlapping(timed: &[Timed], f: usize) -> Vec<String> {
    let ci = |t: &Timed| match (t.median_ci_low_ns, t.median_ci_high_ns) {
        (Some(lo), Some(hi)) if lo > 0.0 && hi >= lo => Some((lo, hi)),
        _ => None,
    };
    let mine = ci(&timed[f]);
    timed
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != f)
        .filter(|(_, t)| match (mine, ci(t)) {
            (Some((_, hi)), Some((lo, _))) => lo <= hi,
            _ => true,
        })
        .map(|(_, t)| t.variant.clone())
        .collect()
}

#[cfg(test)]
mod tests {
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
}
