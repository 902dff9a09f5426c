//! Before/after comparison of two runs (or two variants of one run), P3 style: the time with
//! a 95 % CI of the ratio new/base and a verdict, then every metric side by side with its
//! ratio, like Figure 4 of seeds/000 (time −32 %, VRAM throughput ×0.54, …).
//!
//! Timing statistics come from samples.csv. Runs timed in rounds (samples.csv has `round` and
//! `kept`) are judged on their kept round medians, the level where a run's variance lives
//! (measure/inference.rs): two variants of one run round by round ([`Method::PairedRounds`]:
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
use crate::measure::inference::{paired_ratio, unpaired_ratio, RatioInterval};
use crate::measure::stats::{bootstrap_ratio_ci, mann_whitney_p, median};
use crate::output::csv_out::SCHEMA_VERSION;
use anyhow::{anyhow, bail, Context};
use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Fewer timed repetitions than this on either side earns a warning: a bootstrap CI of a
/// median from a handful of samples is too optimistic to trust.
pub const MIN_SAMPLES: usize = 10;

/// Mode assumed for files written before the `mode` column existed (all runs were warm then).
const DEFAULT_MODE: &str = "warm";

/// Identifies one row of results.csv across runs: what `compare` matches on.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RowKey {
    pub scenario: String,
    pub variant: String,
    pub params: String,
    pub mode: String,
}

impl std::fmt::Display for RowKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.scenario, self.variant)?;
        if !self.params.is_empty() {
            write!(f, " [{}]", self.params)?;
        }
        write!(f, " ({})", self.mode)
    }
}

/// One results.csv row, read by column name so that columns appended later are carried along
/// and columns that do not exist yet read as empty.
#[derive(Debug, Clone, PartialEq)]
pub struct ResultRecord {
    /// 1-based line in results.csv, for messages.
    pub line: u64,
    /// Every cell by column name, as written.
    pub fields: BTreeMap<String, String>,
}

impl ResultRecord {
    /// The cell of `column`, or "" when the column is absent.
    pub fn get(&self, column: &str) -> &str {
        self.fields.get(column).map(String::as_str).unwrap_or("")
    }

    /// The cell of `column` as a number; None when absent, empty or not a finite number
    /// (numeric columns were validated by `load_run`, so None means missing).
    pub fn num(&self, column: &str) -> Option<f64> {
        let s = self.get(column);
        if s.is_empty() {
            return None;
        }
        s.parse::<f64>().ok().filter(|x| x.is_finite())
    }

    pub fn key(&self) -> RowKey {
        RowKey {
            scenario: self.get("scenario").to_string(),
            variant: self.get("variant").to_string(),
            params: self.get("params").to_string(),
            mode: self.mode().to_string(),
        }
    }

    /// `mode`, or `warm` for files from before the column existed.
    pub fn mode(&self) -> &str {
        match self.fields.get("mode") {
            Some(m) if !m.is_empty() => m,
            _ => DEFAULT_MODE,
        }
    }

    pub fn status(&self) -> &str {
        self.get("status")
    }
}

/// One samples.csv row: one timed pass of one repetition.
#[derive(Debug, Clone, PartialEq)]
pub struct SampleRecord {
    pub key: RowKey,
    /// Running index over the variant's timed repetitions in this mode (all rounds).
    pub repetition: u32,
    pub dispatch: u32,
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
    /// The round counts in results.csv's statistics (false: a leading warm-up round).
    pub kept: bool,
}

/// One metrics.csv row. `mode` is empty for metrics that hold for every mode of the variant.
#[derive(Debug, Clone, PartialEq)]
pub struct MetricRecord {
    pub scenario: String,
    pub variant: String,
    pub params: String,
    pub mode: String,
    pub source: String,
    pub name: String,
    pub value: f64,
    pub unit: String,
}

/// A run folder as read from disk.
#[derive(Debug, Clone, Default)]
pub struct RunData {
    /// The folder the files came from.
    pub dir: PathBuf,
    /// results.csv rows in file order.
    pub results: Vec<ResultRecord>,
    /// samples.csv rows in file order (empty when the file is missing).
    pub samples: Vec<SampleRecord>,
    /// metrics.csv rows in file order (empty when the file is missing).
    pub metrics: Vec<MetricRecord>,
    /// Things worth telling the reader that are not errors (a missing samples.csv, …).
    pub notes: Vec<String>,
}

/// Columns of results.csv that `compare` and `report` read as numbers: validated on load so
/// that a garbled cell is an error naming file, line and column rather than a silent gap.
const NUMERIC_RESULT_COLUMNS: &[&str] = &[
    "schema_version",
    "dispatches",
    "invocations",
    "n",
    "median_ns",
    "cv_pct",
    "median_ci_low_ns",
    "median_ci_high_ns",
    "gbytes_per_s",
    "gflops_per_s",
    "dram_pct",
    "flop_pct",
    "shared_pct",
    "registers_per_thread",
    "spill_bytes_per_thread",
    "shared_bytes_per_group",
    "occupancy_pct",
];

const REQUIRED_RESULT_COLUMNS: &[&str] = &["schema_version", "scenario", "variant", "status"];

mod devices;
mod load;
mod render;
pub use devices::cross_device_refusal;
use devices::DeviceId;
pub use load::load_run;
pub use render::*;

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
    /// `(BASE, NEW)` variant names: compare variant BASE of `base` with variant NEW of `new`
    /// (pass the same run twice to compare two variants of one run) for every scenario,
    /// params case and mode that has both. Empty: match rows by (scenario, variant, params,
    /// mode).
    pub pairs: Vec<(String, String)>,
}

impl Default for CompareOptions {
    fn default() -> Self {
        CompareOptions {
            noise_pct: 1.0,
            seed: 0,
            resamples: 2000,
            pairs: Vec::new(),
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
}

impl Verdict {
    /// `improved`, `regressed`, `no change`, `not comparable`.
    pub fn as_str(&self) -> &'static str {
        match self {
            Verdict::Improved => "improved",
            Verdict::Regressed => "regressed",
            Verdict::NoChange => "no change",
            Verdict::NotComparable(_) => "not comparable",
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
    pub unit: String,
    pub before: Option<f64>,
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
            Method::Repetitions => "repetitions",
        }
    }
}

/// One compared pair of rows.
#[derive(Debug, Clone, PartialEq)]
pub struct PairRow {
    pub scenario: String,
    pub variant_base: String,
    pub variant_new: String,
    pub params: String,
    pub mode: String,
    pub status_base: String,
    pub status_new: String,
    /// Kept rounds (round methods) or kept repetitions (otherwise) on each side.
    pub n_base: usize,
    pub n_new: usize,
    /// Mean of the kept round medians (round methods: results.csv's `median_ns`), else the
    /// median repetition time from samples.csv; results.csv's `median_ns` when the run has no
    /// samples.
    pub median_base_ns: Option<f64>,
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
    pub verdict: Verdict,
    /// `time_ns` first, then results.csv columns, then metrics.csv rows present on both sides.
    pub metrics: Vec<MetricPair>,
}

/// The result of `compare`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Comparison {
    pub rows: Vec<PairRow>,
    /// Small samples, unmatched rows, pairs that matched nothing, missing files, …
    pub warnings: Vec<String>,
    /// The noise threshold the verdicts used, in percent.
    pub noise_pct: f64,
    /// Distinct (base device, new device) descriptions of the pairs marked `cross_device`.
    pub cross_device: Vec<(String, String)>,
}

/// results.csv columns shown side by side, Figure-4 style, with their units. Columns missing
/// from both files (e.g. `%-of-peak` columns before they exist) are skipped.
const RESULT_METRICS: &[(&str, &str)] = &[
    ("median_ns", "ns"),
    ("cv_pct", "%"),
    ("gbytes_per_s", "GB/s"),
    ("gflops_per_s", "GFLOP/s"),
    ("dram_pct", "% of peak"),
    ("flop_pct", "% of peak"),
    ("shared_pct", "% of peak"),
    ("registers_per_thread", "registers"),
    ("spill_bytes_per_thread", "bytes"),
    ("shared_bytes_per_group", "bytes"),
    ("occupancy_pct", "%"),
    ("invocations", "invocations"),
];

/// Compare `new` against `base`. Rows match by (scenario, variant, params, mode), or by
/// `opts.pairs` (variant BASE of `base` against variant NEW of `new`, same scenario, params
/// and mode). Output order follows `base`'s results.csv. Deterministic for fixed options.
pub fn compare(base: &RunData, new: &RunData, opts: &CompareOptions) -> Comparison {
    let mut cmp = Comparison {
        noise_pct: opts.noise_pct,
        ..Comparison::default()
    };
    for (label, run) in [("base", base), ("new", new)] {
        for note in &run.notes {
            cmp.warnings.push(format!("{label}: {note}"));
        }
    }
    let new_index: HashMap<RowKey, &ResultRecord> = {
        let mut m = HashMap::new();
        for r in &new.results {
            m.entry(r.key()).or_insert(r);
        }
        m
    };
    for run in [base, new] {
        let mut seen = HashMap::new();
        for r in &run.results {
            if seen.insert(r.key(), r.line).is_some() {
                cmp.warnings.push(format!(
                    "{}:{}: {} appears more than once; the first row is used",
                    run.dir.join("results.csv").display(),
                    r.line,
                    r.key()
                ));
            }
        }
    }

    if opts.pairs.is_empty() {
        let mut matched = HashMap::new();
        let mut seen_base: HashMap<RowKey, ()> = HashMap::new();
        for b in &base.results {
            let key = b.key();
            if seen_base.insert(key.clone(), ()).is_some() {
                continue;
            }
            match new_index.get(&key) {
                Some(n) => {
                    matched.insert(key.clone(), ());
                    let row = compare_rows(base, b, new, n, opts, &mut cmp);
                    cmp.rows.push(row);
                }
                None => cmp.warnings.push(format!("{key}: only in base")),
            }
        }
        let mut reported = HashMap::new();
        for n in &new.results {
            let key = n.key();
            if !matched.contains_key(&key) && reported.insert(key.clone(), ()).is_none() {
                cmp.warnings.push(format!("{key}: only in new"));
            }
        }
    } else {
        for (vb, vn) in &opts.pairs {
            let before = cmp.rows.len();
            let mut done: HashMap<RowKey, ()> = HashMap::new();
            for b in base.results.iter().filter(|r| r.get("variant") == vb) {
                let key = b.key();
                if done.insert(key.clone(), ()).is_some() {
                    continue; // a duplicate row, already warned about
                }
                let nkey = RowKey {
                    variant: vn.clone(),
                    ..key.clone()
                };
                match new_index.get(&nkey) {
                    Some(n) => {
                        let row = compare_rows(base, b, new, n, opts, &mut cmp);
                        cmp.rows.push(row);
                    }
                    None => cmp.warnings.push(format!(
                        "pair {vb}={vn}: {key} has no `{vn}` counterpart in new"
                    )),
                }
            }
            if cmp.rows.len() == before {
                cmp.warnings.push(format!(
                    "pair {vb}={vn}: no scenario/params/mode has both variants"
                ));
            }
        }
    }

    for p in &cmp.rows {
        if matches!(p.verdict, Verdict::NotComparable(_)) || p.method != Some(Method::Repetitions) {
            continue;
        }
        if p.n_base < MIN_SAMPLES || p.n_new < MIN_SAMPLES {
            cmp.warnings.push(format!(
                "{}: {} vs {} repetitions; fewer than {MIN_SAMPLES} makes the CI unreliable",
                pair_label(p),
                p.n_base,
                p.n_new
            ));
        }
    }
    let marked = cmp.rows.iter().filter(|r| r.cross_device).count();
    if marked > 0 {
        let which: Vec<String> = cmp
            .cross_device
            .iter()
            .map(|(b, n)| format!("base ran on {b}, new on {n}"))
            .collect();
        cmp.warnings.push(format!(
            "{marked} pair(s) marked [cross-device]: {}",
            which.join("; ")
        ));
    }
    cmp
}

/// Both rows come from one run (same non-empty `run_id`): their rounds were shared.
fn same_run(b: &ResultRecord, n: &ResultRecord) -> bool {
    let id = b.get("run_id");
    !id.is_empty() && id == n.get("run_id")
}

fn pair_label(p: &PairRow) -> String {
    let variants = if p.variant_base == p.variant_new {
        p.variant_base.clone()
    } else {
        format!("{} -> {}", p.variant_base, p.variant_new)
    };
    let mut s = format!("{}/{variants}", p.scenario);
    if !p.params.is_empty() {
        let _ = write!(s, " [{}]", p.params);
    }
    let _ = write!(s, " ({})", p.mode);
    s
}

/// FNV-1a: a hash that is the same on every platform and Rust version, so seeds derived from
/// keys (and therefore CIs) are byte-stable.
fn fnv1a(parts: &[&str]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for part in parts {
        for b in part.bytes().chain(std::iter::once(0xff)) {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    h
}

fn compare_rows(
    base: &RunData,
    b: &ResultRecord,
    new: &RunData,
    n: &ResultRecord,
    opts: &CompareOptions,
    cmp: &mut Comparison,
) -> PairRow {
    let (kb, kn) = (b.key(), n.key());
    let tb = base.repetition_times(&kb);
    let tn = new.repetition_times(&kn);
    let rb = base.round_medians(&kb);
    let rn = new.round_medians(&kn);
    let same_run = same_run(b, n);
    // Rounds when both sides have at least two kept ones (one gives no spread); otherwise
    // the repetitions, as for runs written before rounds.
    let rounds = rb.len() >= 2 && rn.len() >= 2;
    if !rounds && (rb.len() == 1 || rn.len() == 1) {
        cmp.warnings.push(format!(
            "{kb}: {} vs {} kept rounds; the CI falls back to repetitions, which is too narrow",
            rb.len(),
            rn.len()
        ));
    }
    let median_of = |t: &[f64], rounds_of: &[(u32, f64)], r: &ResultRecord| {
        if rounds {
            // The estimate results.csv reports: the mean of the kept round medians.
            Some(rounds_of.iter().map(|(_, m)| m).sum::<f64>() / rounds_of.len() as f64)
        } else if t.is_empty() {
            r.num("median_ns")
        } else {
            let mut s = t.to_vec();
            s.sort_by(f64::total_cmp);
            Some(median(&s))
        }
    };
    let (mb, mn) = (median_of(&tb, &rb, b), median_of(&tn, &rn, n));

    let (db, dn) = (DeviceId::of(b), DeviceId::of(n));
    let cross_device = !same_run && !db.same_as(&dn);
    if cross_device {
        let pair = (db.describe(), dn.describe());
        if !cmp.cross_device.contains(&pair) {
            cmp.cross_device.push(pair);
        }
    }

    let mut row = PairRow {
        scenario: kb.scenario.clone(),
        variant_base: kb.variant.clone(),
        variant_new: kn.variant.clone(),
        params: kb.params.clone(),
        mode: kb.mode.clone(),
        status_base: b.status().to_string(),
        status_new: n.status().to_string(),
        n_base: if rounds { rb.len() } else { tb.len() },
        n_new: if rounds { rn.len() } else { tn.len() },
        median_base_ns: mb,
        median_new_ns: mn,
        change_pct: None,
        speedup: None,
        ratio_ci: None,
        p_value: None,
        method: None,
        n: None,
        cross_device,
        verdict: Verdict::NoChange,
        metrics: Vec::new(),
    };

    let mut reasons = Vec::new();
    for (side, r) in [("base", b), ("new", n)] {
        if r.status() != "ok" {
            let why = r.get("reason");
            reasons.push(if why.is_empty() {
                format!("{side} `{}` is {}", r.get("variant"), r.status())
            } else {
                format!("{side} `{}` is {}: {why}", r.get("variant"), r.status())
            });
        }
    }
    if reasons.is_empty() {
        if rounds {
            let values = |r: &[(u32, f64)]| r.iter().map(|(_, m)| *m).collect::<Vec<f64>>();
            // Within one run round k of both variants ran close in time: pair them by index,
            // only rounds both have.
            let common: Vec<(f64, f64)> = if same_run {
                let by_round: HashMap<u32, f64> = rn.iter().copied().collect();
                rb.iter()
                    .filter_map(|(r, x)| by_round.get(r).map(|y| (*x, *y)))
                    .collect()
            } else {
                Vec::new()
            };
            let (method, ratio) = if common.len() >= 2 {
                let (x, y): (Vec<f64>, Vec<f64>) = common.into_iter().unzip();
                (Method::PairedRounds, paired_ratio(&x, &y))
            } else {
                // Two runs, or (rarely) variants of one run with under two common rounds.
                (
                    Method::UnpairedRounds,
                    unpaired_ratio(&values(&rb), &values(&rn)),
                )
            };
            row.method = Some(method);
            match ratio {
                Some(RatioInterval {
                    ratio,
                    low,
                    high,
                    p,
                    n,
                }) => {
                    row.change_pct = Some((ratio - 1.0) * 100.0);
                    row.speedup = Some(1.0 / ratio);
                    row.ratio_ci = Some((low, high));
                    row.p_value = Some(p);
                    row.n = Some(n);
                    row.verdict = verdict_for_ci((low, high), opts.noise_pct);
                }
                None => reasons.push("the ratio is undefined (zero or missing times)".into()),
            }
        } else {
            if let (Some(x), Some(y)) = (mb, mn) {
                if x > 0.0 {
                    row.change_pct = Some((y - x) / x * 100.0);
                }
                if y > 0.0 {
                    row.speedup = Some(x / y);
                }
            }
            if tb.is_empty() || tn.is_empty() {
                let side = if tb.is_empty() { "base" } else { "new" };
                reasons.push(format!("no samples in {side}'s samples.csv"));
            } else {
                let seed = opts.seed
                    ^ fnv1a(&[&kb.scenario, &kb.variant, &kn.variant, &kb.params, &kb.mode]);
                row.method = Some(Method::Repetitions);
                row.n = Some(tb.len().min(tn.len()));
                row.ratio_ci = bootstrap_ratio_ci(&tb, &tn, seed, opts.resamples);
                row.p_value = mann_whitney_p(&tb, &tn);
                match row.ratio_ci {
                    Some(ci) => row.verdict = verdict_for_ci(ci, opts.noise_pct),
                    None => reasons.push("the ratio of medians is undefined (zero times)".into()),
                }
            }
        }
    }
    if !reasons.is_empty() {
        row.verdict = Verdict::NotComparable(reasons.join("; "));
    }

    row.metrics.push(MetricPair {
        name: "time_ns".into(),
        unit: "ns".into(),
        before: mb,
        after: mn,
    });
    let multi_pass =
        b.num("dispatches").unwrap_or(1.0) > 1.0 || n.num("dispatches").unwrap_or(1.0) > 1.0;
    for (col, unit) in RESULT_METRICS {
        if !b.fields.contains_key(*col) && !n.fields.contains_key(*col) {
            continue;
        }
        // For single-pass rows `median_ns` equals `time_ns`; show it only where it differs.
        // With rounds `time_ns` is results.csv's estimate itself.
        if *col == "median_ns" && (rounds || !multi_pass) && !tb.is_empty() && !tn.is_empty() {
            continue;
        }
        let (x, y) = (b.num(col), n.num(col));
        if x.is_none() && y.is_none() {
            continue;
        }
        row.metrics.push(MetricPair {
            name: (*col).into(),
            unit: (*unit).into(),
            before: x,
            after: y,
        });
    }
    let after: Vec<&MetricRecord> = new.metrics_of(&kn).collect();
    let mut shown = HashMap::new();
    for m in base.metrics_of(&kb) {
        let name = format!("{}/{}", m.source, m.name);
        if shown.contains_key(&name) {
            continue;
        }
        if let Some(a) = after
            .iter()
            .find(|a| a.source == m.source && a.name == m.name)
        {
            shown.insert(name.clone(), ());
            row.metrics.push(MetricPair {
                name,
                unit: m.unit.clone(),
                before: Some(m.value),
                after: Some(a.value),
            });
        }
    }
    row
}

/// True when any pair regressed (for a CI exit code).
pub fn has_regression(c: &Comparison) -> bool {
    c.rows.iter().any(|r| r.verdict == Verdict::Regressed)
}

#[cfg(test)]
mod tests;
