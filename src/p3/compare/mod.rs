//! Before/after comparison of two runs (or two variants of one run), P3 style: the time with
//! a 95 % CI of the ratio new/base and a verdict, then every metric side by side with its
//! ratio, like Figure 4 of the L2-locality article (shared/seeds/000_30983497c181790a.txt) (time −32 %, VRAM throughput ×0.54, …).
//!
//! Timing statistics come from samples.csv. Runs timed in rounds (samples.csv has `round` and
//! `kept`) are judged on their kept round medians, the level where a run's variance lives
//! (src/stats/inference.rs): two variants of one run round by round ([`Method::PairedRounds`]:
//! drift shared by a round cancels), two runs with Welch's interval
//! ([`Method::UnpairedRounds`]). Older runs fall back to a bootstrap CI of the ratio of
//! repetition medians and Mann-Whitney's p ([`Method::Repetitions`]).
//!
//! A repetition's time is its `repetition_ns` (first pass's begin to last pass's end), or the
//! sum of its passes' `gpu_ns` in files without that column. For multi-pass variants in such
//! files results.csv's `median_ns` (barriers included) differs, so both are shown (`time_ns`
//! and `median_ns`) and the verdict uses `time_ns`.
//!
//! Timings from different devices or drivers say nothing about a code change: every such pair
//! is marked `cross_device`, and the command line refuses them unless asked
//! ([`cross_device_refusal`]).
use crate::stats::inference::placement_verdict;
use crate::stats::inference::{
    paired_ratio, round_prediction, unpaired_ratio, widen_for_step, RatioInterval,
};
use crate::stats::{bootstrap_ratio_ci, mann_whitney_p, median};
use anyhow::{anyhow, bail};
use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Fewer timed repetitions than this on either side earns a warning: a bootstrap CI of a
/// median from a handful of samples is too optimistic to trust.
pub const MIN_SAMPLES: usize = 10;

pub use crate::results::{Record, RowKey};

/// One samples.csv row: one timed pass of one repetition.
#[derive(Debug, Clone, PartialEq)]
pub struct SampleRecord {
    /// Shared by every sample of the row (a million samples hold a few thousand keys).
    pub key: std::sync::Arc<RowKey>,
    /// The run it came from ("" in files without the column); a merged folder holds many.
    pub run_id: std::sync::Arc<str>,
    /// Running index over the variant's timed repetitions in this mode (all rounds).
    pub repetition: u32,
    /// samples.csv `dispatch`: the pass index from 0, in `[[dispatch]]` order.
    pub dispatch: u32,
    /// samples.csv `gpu_ns`: this pass's time, ns (summed over passes where the file has no
    /// `repetition_ns`).
    pub gpu_ns: f64,
    /// The repetition's span (first dispatch's start to last one's end), when the file has it.
    pub repetition_ns: Option<f64>,
    /// Where the repetition ran in the round design; None in runs written before rounds.
    pub round: Option<RoundTag>,
}

/// samples.csv's `round`, `round_position`, `batch_repetition` and `kept` of one row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RoundTag {
    /// 0-based round; round k of every variant of one params case and mode ran close in time.
    pub round: u32,
    /// The variant's slot in that round's shuffled order.
    pub round_position: u32,
    /// Index among the batch's timed repetitions.
    pub batch_repetition: u32,
    /// The round counts in results.csv's statistics (false: a leading warm-up round, a
    /// transient, or the placement check's round).
    pub kept: bool,
    /// The placement check's round, on the case's resources moved to new memory (samples.csv
    /// `phase`; for files without it, the rounds run.json numbers after the case's `order`).
    pub placement: bool,
    /// The placement of the case's resources it ran in (samples.csv `placement`; 0 in files
    /// without it).
    pub at: u32,
}

/// One metrics.csv row. `mode` is empty for metrics that hold for every mode of the variant.
#[derive(Debug, Clone, PartialEq)]
pub struct MetricRecord {
    /// The run it came from ("" in files without the column).
    pub run_id: String,
    /// metrics.csv `scenario`.
    pub scenario: String,
    /// metrics.csv `variant`.
    pub variant: String,
    /// metrics.csv `params`.
    pub params: String,
    /// metrics.csv `mode`: `warm` / `cold`, or empty for a metric of every mode.
    pub mode: String,
    /// metrics.csv `source` (`executable_statistic`, `probe`, `runner`, …).
    pub source: String,
    /// metrics.csv `name`; compared as `source/name`.
    pub name: String,
    /// metrics.csv `value`, in `unit`.
    pub value: f64,
    /// metrics.csv `unit` (may be empty).
    pub unit: String,
}

/// A run folder as read from disk.
#[derive(Debug, Clone, Default)]
pub struct RunData {
    /// The folder the files came from.
    pub dir: PathBuf,
    /// results.csv rows in file order.
    pub results: Vec<Record>,
    /// samples.csv rows in file order (empty when the file is missing).
    pub samples: Vec<SampleRecord>,
    /// metrics.csv rows in file order (empty when the file is missing).
    pub metrics: Vec<MetricRecord>,
    /// Things worth telling the reader that are not errors (a missing samples.csv, …).
    pub notes: Vec<String>,
    /// Indices into `samples` by row key, built on first use (so that a comparison reads
    /// the samples once, not once per pair). Fill `samples` before querying.
    pub by_key: std::sync::OnceLock<(usize, HashMap<RowKey, Vec<usize>>)>,
}

mod brief;
mod devices;
mod load;
mod pairs;
mod placements;
pub mod process;
mod render;
mod select;
mod steady;
pub use brief::{
    geomean, headline, summary_line, to_brief, to_brief_csv, to_json, to_p3, Geomean, Shown,
    BRIEF_COLUMNS,
};
pub use devices::cross_device_refusal;
use devices::DeviceId;
pub use load::load_run;
pub use pairs::compare;
#[cfg(test)]
use pairs::fnv1a;
use pairs::pair_label;
pub use process::MeasuredProcessSd;
pub use render::*;
pub use select::{ambiguity, Selector};

/// One `--pair`, resolved to concrete variant names (app/compare.rs expands globs and
/// `scenario/variant`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PairSpec {
    /// Only this scenario's rows; None: every scenario that has both variants.
    pub scenario: Option<String>,
    /// The base variant's name (the `BASE` of `--pair BASE=NEW`): ratios divide by it.
    pub base: String,
    /// The new variant's name: the numerator of every ratio.
    pub new: String,
}

impl PairSpec {
    /// The pair `base`=`new` in every scenario.
    pub fn new(base: &str, new: &str) -> PairSpec {
        PairSpec {
            scenario: None,
            base: base.into(),
            new: new.into(),
        }
    }
}

/// Options of `compare`.
#[derive(Debug, Clone, PartialEq)]
pub struct CompareOptions {
    /// Noise threshold in percent: a change is reported only when the whole 95 % CI of the
    /// time ratio lies beyond 1 ± noise_pct/100. Default 1.0.
    pub noise_pct: f64,
    /// Seed of the bootstrap (each pair mixes in a stable hash of its key). Default 0.
    pub seed: u64,
    /// Bootstrap resamples. Default 2000.
    pub resamples: usize,
    /// Variant pairs: compare variant BASE of `base` with variant NEW of `new` (pass the same
    /// run twice to compare two variants of one run) for every params case and mode that has
    /// both, in the pair's scenario or in every scenario. Empty: match rows by (scenario,
    /// variant, params, mode).
    pub pairs: Vec<PairSpec>,
    /// Measured process SDs (`p3lab calibrate-process`): a pair of two runs on one of these
    /// devices and drivers carries its SD; others a conservative one for their device type
    /// ([`process`]).
    pub process_sds: Vec<MeasuredProcessSd>,
}

impl Default for CompareOptions {
    fn default() -> Self {
        CompareOptions {
            noise_pct: 1.0,
            seed: 0,
            resamples: 2000,
            pairs: Vec::new(),
            process_sds: Vec::new(),
        }
    }
}

/// The outcome for one pair, judged on time.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// The whole CI of new/base lies below 1 − noise.
    Improved,
    /// The whole CI of new/base lies above 1 + noise.
    Regressed,
    /// The CI reaches into the noise band (or straddles 1).
    NoChange,
    /// No timing comparison is possible; the reason says why.
    NotComparable(String),
    /// Within one placement of the data the ratio would read as the inner verdict (improved
    /// or regressed), but across placements its interval reaches into the noise band: where
    /// the data sits decides it. `--fail-on-regression` fails on it only with
    /// `--fail-on-placement-dependent`.
    PlacementDependent(Box<Verdict>),
    /// Two runs' pair with a side whose rounds drifted or that stopped at `max_rounds` short
    /// of its CI target (`PairRow::unsteady` says which): the interval, widened by the drift,
    /// would read as the inner verdict (improved or regressed), but a device that changed
    /// speed while it measured does not support it ([`steady`]). `--fail-on-regression`
    /// does not fail on it.
    Unstable(Box<Verdict>),
}

impl Verdict {
    /// `improved`, `regressed`, `no change`, `not comparable`.
    pub fn as_str(&self) -> &'static str {
        match self {
            Verdict::Improved => "improved",
            Verdict::Regressed => "regressed",
            Verdict::NoChange => "no change",
            Verdict::NotComparable(_) => "not comparable",
            Verdict::PlacementDependent(_) => "placement-dependent",
            Verdict::Unstable(_) => "unstable",
        }
    }

    /// Improved or regressed, in one placement at least: what a reader would act on.
    pub fn within_placement(&self) -> Option<&Verdict> {
        match self {
            Verdict::Improved | Verdict::Regressed => Some(self),
            Verdict::PlacementDependent(v) => Some(v),
            _ => None,
        }
    }

    /// Why a pair is not comparable; "" otherwise.
    pub fn reason(&self) -> &str {
        match self {
            Verdict::NotComparable(r) => r,
            _ => "",
        }
    }
}

/// criterion's rule on the 95 % CI `(low, high)` of the ratio new/base.
pub fn verdict_for_ci(ci: (f64, f64), noise_pct: f64) -> Verdict {
    let noise = noise_pct / 100.0;
    if ci.1 < 1.0 - noise {
        Verdict::Improved
    } else if ci.0 > 1.0 + noise {
        Verdict::Regressed
    } else {
        Verdict::NoChange
    }
}

/// One metric side by side. `ratio` is after/before.
#[derive(Debug, Clone, PartialEq)]
pub struct MetricPair {
    /// A results.csv column (`gbytes_per_s`), `time_ns`, or `source/name` from metrics.csv.
    pub name: String,
    /// Its unit (`ns`, `GB/s`, `%`, metrics.csv's own unit, …).
    pub unit: String,
    /// The base side's value; `None` when that side lacks it (an empty cell, a missing column).
    pub before: Option<f64>,
    /// The new side's value; `None` when that side lacks it.
    pub after: Option<f64>,
}

impl MetricPair {
    /// after / before; None when either is missing or the ratio is not finite.
    pub fn ratio(&self) -> Option<f64> {
        let r = self.after? / self.before?;
        r.is_finite().then_some(r)
    }
}

/// How a pair's ratio CI and p-value were computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    /// Two variants of one run, kept rounds matched by index: t-interval of the mean log
    /// ratio and the paired t-test ([`paired_ratio`]).
    PairedRounds,
    /// Two runs: Welch's interval on log kept round medians ([`unpaired_ratio`]).
    UnpairedRounds,
    /// Rows measured over several placements of their data (results.csv `placements` > 1):
    /// within one run, the per-placement geometric mean ratios (rounds paired inside each)
    /// with a t-interval over placements; across runs, Welch's interval on the log placement
    /// means (a side measured in one placement contributes its rounds).
    Placements,
    /// A run without rounds (or with fewer than two kept rounds): bootstrap CI of the ratio of
    /// repetition medians and Mann-Whitney's p; too narrow when repetitions are correlated.
    Repetitions,
}

impl Method {
    /// compare.csv's spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Method::PairedRounds => "paired_rounds",
            Method::UnpairedRounds => "unpaired_rounds",
            Method::Placements => "placements",
            Method::Repetitions => "repetitions",
        }
    }
}

/// One compared pair of rows.
#[derive(Debug, Clone, PartialEq)]
pub struct PairRow {
    /// results.csv `scenario` of both rows (compare.csv `scenario`).
    pub scenario: String,
    /// The base row's `variant` (differs from `variant_new` only with `--pair`).
    pub variant_base: String,
    /// The new row's `variant`.
    pub variant_new: String,
    /// results.csv `params` of both rows.
    pub params: String,
    /// `warm` or `cold`, the same on both sides.
    pub mode: String,
    /// The base row's results.csv `status` (`ok` unless the pair is not comparable).
    pub status_base: String,
    /// The new row's results.csv `status`.
    pub status_new: String,
    /// Kept rounds (round methods) or kept repetitions (otherwise) on each side.
    pub n_base: usize,
    /// Kept rounds (round methods) or kept repetitions on the new side (JSON `n_new`).
    pub n_new: usize,
    /// The variant's time, as results.csv's `median_ns` gives it wherever the run was timed
    /// in rounds (the mean of the kept round medians, or of the placements' means), whether
    /// or not the pair is comparable; for runs before rounds the median repetition time from
    /// samples.csv; results.csv's `median_ns` when the run has no samples.
    pub median_base_ns: Option<f64>,
    /// The new side's time, ns, as `median_base_ns` (compare.csv `after` of `time_ns`).
    pub median_new_ns: Option<f64>,
    /// (ratio − 1) × 100, with the method's ratio estimate (round methods: the geometric mean
    /// the CI is centred on; repetitions: median(new) / median(base)).
    pub change_pct: Option<f64>,
    /// 1 / ratio: above 1 is faster.
    pub speedup: Option<f64>,
    /// 95 % CI of the ratio new/base, by `method`.
    pub ratio_ci: Option<(f64, f64)>,
    /// Two-sided p-value of "no difference", by `method`.
    pub p_value: Option<f64>,
    /// None when the pair is not comparable before any statistics (a failed row, no samples).
    pub method: Option<Method>,
    /// Observations behind the CI: rounds paired, the smaller side's rounds (unpaired), or the
    /// smaller side's repetitions.
    pub n: Option<usize>,
    /// Base and new ran on different devices or drivers (never within one run).
    pub cross_device: bool,
    /// Both sides come from one run (one process): its shared effects cancel in the ratio. Two
    /// runs' pairs share each process's effect instead, which the overall figure must carry
    /// ([`brief::geomean`]).
    pub same_run: bool,
    /// Two variants of one run: the time ratio new/base in the placement check's round, with
    /// the case's buffers and images moved to new memory (the geometric mean over the
    /// placement rounds both ran).
    pub ratio_moved: Option<f64>,
    /// Why the verdict depends on where the data sits (a side whose time moved with its data,
    /// or a ratio that did); empty when the placement check saw nothing or did not run. The
    /// pair is then marked `[placement]`.
    pub placement: String,
    /// results.csv `fresh` of each side (what every round after the first made anew); a pair
    /// whose sides differ is marked `[design]`.
    pub fresh_base: String,
    /// The new side's results.csv `fresh`; empty where the row has none.
    pub fresh_new: String,
    /// Two runs' pair: why a side was not steady (its round medians drifted, or it stopped at
    /// `max_rounds` short of its CI target), in words; empty when both were. The pair is
    /// then marked `[unsteady]`, and a change it would claim reads `unstable`.
    pub unsteady: String,
    /// Improved / regressed / no change / placement-dependent / not comparable, from
    /// `ratio_ci` against 1 ± the noise band (compare.csv `verdict`).
    pub verdict: Verdict,
    /// What limited each side (results.csv `limiter`, with `limiter_pct` when it is a unit:
    /// `dram 92 %`); empty when the row has none (failed, or a run before schema 2).
    pub limiter_base: String,
    /// The new side's limiter, as `limiter_base` (compare.csv `limiter_after`).
    pub limiter_new: String,
    /// Each side's unit percentages (src/results/units.rs), for `compare --p3`.
    pub units_base: Vec<(String, f64)>,
    /// The new side's `(unit, %-of-peak)` pairs, as `units_base`.
    pub units_new: Vec<(String, f64)>,
    /// `time_ns` first, then results.csv columns, then metrics.csv rows present on both sides.
    pub metrics: Vec<MetricPair>,
}

/// The result of `compare`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Comparison {
    /// Every compared pair, comparable or not, in the base run's results.csv order (with
    /// `--pair`: pair by pair, each in that order).
    pub rows: Vec<PairRow>,
    /// Small samples, unmatched rows, pairs that matched nothing, missing files, …
    pub warnings: Vec<String>,
    /// The noise threshold the verdicts used, in percent.
    pub noise_pct: f64,
    /// Distinct (base device, new device) descriptions of the pairs marked `cross_device`.
    pub cross_device: Vec<(String, String)>,
    /// Which process SD the pairs of two runs carry and where it came from, one line per
    /// device (empty for pairs of one run).
    pub process: Vec<String>,
}

impl PairRow {
    /// The time ratio new ÷ base the verdict judges, below 1 faster (round methods: the
    /// estimate the CI is centred on; repetitions: median(new) / median(base)). The one ratio
    /// every output prints (terminal, compare.csv's `time_ns` line, `--format csv|json`,
    /// report).
    pub fn ratio(&self) -> Option<f64> {
        self.change_pct.map(|c| 1.0 + c / 100.0)
    }

    /// The verdict's word, the one every output prints (terminal, compare.csv and
    /// `--format csv|json`, compare.md, report.html): `improved`, `regressed`, `no change`,
    /// `placement-dependent`, `not comparable`; across devices `faster` and `slower`, since
    /// the ratio is then the hardware's as much as the code's (issue 29).
    pub fn verdict_word(&self) -> &'static str {
        match self.verdict {
            Verdict::Improved if self.cross_device => "faster",
            Verdict::Regressed if self.cross_device => "slower",
            ref v => v.as_str(),
        }
    }

    /// The verdict as a reader sees it: its word, why a pair is not comparable, what one
    /// placement alone said, and the marks (` [cross-device]`, ` [placement]`, ` [design]`).
    pub fn verdict_text(&self) -> String {
        let v = match &self.verdict {
            Verdict::NotComparable(why) => format!("not comparable: {why}"),
            Verdict::PlacementDependent(v) => {
                format!("placement-dependent ({} in one placement)", v.as_str())
            }
            Verdict::Unstable(v) => format!(
                "unstable ({} if its rounds were steady): {}",
                v.as_str(),
                self.unsteady
            ),
            _ => self.verdict_word().to_string(),
        };
        v + &render::markers(self)
    }

    /// The sides were measured with different `fresh` designs (both known).
    pub fn design_differs(&self) -> bool {
        !self.fresh_base.is_empty()
            && !self.fresh_new.is_empty()
            && self.fresh_base != self.fresh_new
    }
}

/// results.csv columns shown side by side, Figure-4 style, with their units. Columns missing
/// from both files (e.g. `%-of-peak` columns before they exist) are skipped.
fn result_metrics() -> Vec<(&'static str, &'static str)> {
    let head = [
        ("median_ns", "ns"),
        ("cv_pct", "%"),
        ("gbytes_per_s", "GB/s"),
        ("gflops_per_s", "GFLOP/s"),
    ];
    // Each declared unit's %-of-peak, as the unit registry lists them.
    let units = crate::units::DECLARED
        .iter()
        .map(|u| (u.column, "% of peak"));
    let tail = [
        ("registers_per_thread", "registers"),
        ("spill_bytes_per_thread", "bytes"),
        ("shared_bytes_per_group", "bytes"),
        ("occupancy_pct", "%"),
        ("invocations", "invocations"),
    ];
    head.into_iter().chain(units).chain(tail).collect()
}

/// True when any pair regressed (for a CI exit code).
/// A pair regressed; with `placement_dependent`, also one that regressed in one placement
/// only (`placement-dependent` whose inner verdict is `regressed`).
pub fn has_regression(c: &Comparison, placement_dependent: bool) -> bool {
    c.rows.iter().any(|r| match &r.verdict {
        Verdict::Regressed => true,
        Verdict::PlacementDependent(v) => placement_dependent && **v == Verdict::Regressed,
        _ => false,
    })
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_overall;
