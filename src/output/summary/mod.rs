//! The summary `p3lab run` prints on stdout when it ends: per params case and mode, each
//! variant's median with its 95 % CI, its speedup against the case's baseline, the fastest
//! marked, and the variants that did not run with their reason. Pure: rows in, a [`Summary`]
//! out, written as text (text.rs), Markdown and JSON (export.rs); docs/csv.md, "The run's
//! summary".
//!
//! **Speedup** = baseline median / variant median (above 1: faster than the baseline).
//! results.csv has no ratio column, so its 95 % interval comes from the two rows' CIs: each
//! CI's half-width on the log scale, `ln(high / low) / 2`, combined in quadrature around
//! `ln(speedup)`. That treats the two medians' errors as independent; the variants of a case
//! run interleaved in the same rounds, so their errors share the device's drift and the
//! interval errs on the wide side. `p3lab compare RUN --pair BASE=NEW` pairs the rounds for
//! a narrower one.
use crate::results::{Check, Mode, Placement, ResultRow, RowStatus};
use serde::Serialize;
use std::collections::BTreeMap;

mod export;
mod text;
pub use export::{to_json, to_markdown};
pub use text::{
    decimals, fmt_speedup, fmt_time, heading, placement_tag, render_text, table_format, time_unit,
    verdict_line, PLACEMENT_NOTE,
};

/// The method above in a sentence, for the exports.
pub const SPEEDUP_METHOD: &str = "baseline median / variant median; its 95 % interval combines the two rows' median CIs (results.csv median_ci_low_ns, median_ci_high_ns) as log-scale half-widths in quadrature, treating their errors as independent";

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
    /// The variant the speedups are against.
    pub baseline: Option<String>,
    /// Why that is not the case's baseline, when it is not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// The lowest median, when at least two variants were timed.
    pub fastest: Option<String>,
    pub variants: Vec<Timed>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Timed {
    pub variant: String,
    pub median_ns: f64,
    pub median_ci_low_ns: Option<f64>,
    pub median_ci_high_ns: Option<f64>,
    /// Against the baseline; 1 (no interval) for the baseline itself.
    pub speedup: Option<Speedup>,
    pub baseline: bool,
    pub fastest: bool,
    /// The placement check found its time depends on where its data sits: the change in %
    /// with the case's buffers and images moved (results.csv `placement_pct`); None otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub placement_pct: Option<f64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Speedup {
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

/// `base` median / `t` median, with the interval of the module's comment.
pub fn speedup(base: &Timed, t: &Timed) -> Option<Speedup> {
    if !(base.median_ns > 0.0 && t.median_ns > 0.0) {
        return None;
    }
    let ratio = base.median_ns / t.median_ns;
    let h = match (log_half_width(base), log_half_width(t)) {
        (Some(a), Some(b)) => Some((a * a + b * b).sqrt()),
        _ => None,
    };
    Some(Speedup {
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
    Summary {
        rows: counts,
        cases,
    }
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
                speedup: None,
                baseline: false,
                fastest: false,
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
            note = Some(format!("{why}; speedups against `{}`", timed[0].variant));
            Some(0)
        }
    };
    if let Some(b) = base_idx {
        let base = timed[b].clone();
        for (i, t) in timed.iter_mut().enumerate() {
            t.baseline = i == b;
            t.speedup = if i == b {
                Some(Speedup {
                    ratio: 1.0,
                    ci_low: None,
                    ci_high: None,
                })
            } else {
                speedup(&base, t)
            };
        }
    }
    let fastest = (timed.len() >= 2)
        .then(|| {
            timed
                .iter()
                .enumerate()
                .min_by(|a, b| a.1.median_ns.total_cmp(&b.1.median_ns))
                .map(|(i, _)| i)
        })
        .flatten();
    if let Some(f) = fastest {
        timed[f].fastest = true;
    }
    ModeSummary {
        mode: mode.into(),
        baseline: base_idx.map(|i| timed[i].variant.clone()),
        note,
        fastest: fastest.map(|i| timed[i].variant.clone()),
        variants: timed,
    }
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
            speedup: None,
            baseline: false,
            fastest: false,
            placement_pct: None,
        }
    }

    #[test]
    fn speedup_is_the_ratio_of_medians_with_log_half_widths_in_quadrature() {
        // Base 200 ± 2 %, variant 100 ± 1 % (on the log scale, near enough).
        let base = timed(200.0, 200.0 / 1.02, 200.0 * 1.02);
        let v = timed(100.0, 100.0 / 1.01, 100.0 * 1.01);
        let s = speedup(&base, &v).unwrap();
        assert_eq!(s.ratio, 2.0);
        let h = (1.02f64.ln().powi(2) + 1.01f64.ln().powi(2)).sqrt();
        assert!((s.ci_low.unwrap() - 2.0 * (-h).exp()).abs() < 1e-12);
        assert!((s.ci_high.unwrap() - 2.0 * h.exp()).abs() < 1e-12);
        // No CI on one side: the ratio alone.
        let bare = Timed {
            median_ci_low_ns: None,
            ..timed(100.0, 0.0, 0.0)
        };
        let s = speedup(&base, &bare).unwrap();
        assert_eq!((s.ratio, s.ci_low, s.ci_high), (2.0, None, None));
        assert!(speedup(&timed(0.0, 0.0, 0.0), &v).is_none());
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
