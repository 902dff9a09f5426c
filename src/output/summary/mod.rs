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

mod build;
mod export;
mod text;
pub use build::summarize;
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

/// One params case as its scenario lists it.
#[derive(Debug, Clone, Default)]
pub struct CaseLayout {
    /// Its variants in the scenario's order: the order the summary lists them in.
    pub variants: Vec<String>,
    /// `--baseline-variant` where the case has it, else `[scenario] baseline`, else `[check]
    /// baseline`, else the first variant.
    pub baseline: Option<String>,
}

impl Layout {
    /// The layout of every case of `scenarios`, the baseline `chosen` (`--baseline-variant`)
    /// where the case has that variant, else `[scenario] baseline`, else `[check] baseline`,
    /// else the case's first variant.
    pub fn of(scenarios: &[crate::scenario::Scenario], chosen: Option<&str>) -> Layout {
        let mut l = Layout::default();
        for sc in scenarios {
            for case in &sc.cases {
                let variants: Vec<String> = case.variants.iter().map(|v| v.name.clone()).collect();
                let baseline = chosen
                    .filter(|c| variants.iter().any(|v| v == c))
                    .map(str::to_string)
                    .or_else(|| sc.baseline.clone())
                    .or_else(|| case.check.as_ref().and_then(|c| c.baseline.clone()))
                    .or_else(|| variants.first().cloned());
                l.insert(&sc.name, &case.params_label, variants, baseline);
            }
        }
        l
    }

    /// Record one case's variant order and baseline, keyed by scenario name and params
    /// label (replacing an earlier entry for the same case).
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

/// The whole summary of one run folder's results.csv, as text, Markdown and JSON show it.
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
    /// One entry per params case (and device, in a merged folder), in the order their rows
    /// first appear in results.csv.
    pub cases: Vec<CaseSummary>,
}

/// One params case: its timed variants per mode, and the variants that did not run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CaseSummary {
    /// results.csv `scenario` of the case's rows.
    pub scenario: String,
    /// results.csv `params` of the case's rows (`k=v;k=v`).
    pub params: String,
    /// Set when the rows come from more than one device (a merged folder).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub device: Option<String>,
    /// One table per mode the case's rows have (`warm`, `cold`).
    pub modes: Vec<ModeSummary>,
    /// Variants without timings, grouped by status and reason.
    pub not_run: Vec<NotRun>,
}

/// One table of the summary: a params case in one mode.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ModeSummary {
    /// results.csv `mode`: `warm` or `cold`.
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
    /// The case's `ok` rows with a `median_ns` in this mode, in the scenario's order.
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

/// One timed variant's line in a mode's table, from its results.csv row.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Timed {
    /// results.csv `variant`.
    pub variant: String,
    /// results.csv `median_ns`, ns.
    pub median_ns: f64,
    /// results.csv `median_ci_low_ns`, ns; `None` for a row without a CI.
    pub median_ci_low_ns: Option<f64>,
    /// results.csv `median_ci_high_ns`, ns; `None` for a row without a CI.
    pub median_ci_high_ns: Option<f64>,
    /// Time ratio to the baseline (variant / baseline, below 1 faster); 1 (no interval) for
    /// the baseline itself.
    pub vs_baseline: Option<Ratio>,
    /// This is the variant the mode's ratios are against (`ModeSummary::baseline`).
    pub baseline: bool,
    /// Marked `*` / fastest: the lowest median, its interval clear of every other and its
    /// CI target met.
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

/// A time ratio with its 95 % interval (below 1: the variant is faster).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Ratio {
    /// Variant median / baseline median.
    pub ratio: f64,
    /// Lower end of the 95 % interval; `None` when either row has no CI or its CI reaches
    /// zero, and for the baseline itself.
    pub ci_low: Option<f64>,
    /// Upper end of the 95 % interval; `None` as for `ci_low`.
    pub ci_high: Option<f64>,
}

/// Variants of a case that got no timings, grouped by identical status and reason.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NotRun {
    /// results.csv `status`: `unsupported`, `compile_error`, `check_failed` or `error`.
    pub status: String,
    /// results.csv `reason`, whole (the text output shortens it to 120 characters).
    pub reason: String,
    /// The variants with this status and reason, each once, in the scenario's order.
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

#[cfg(test)]
mod tests;
