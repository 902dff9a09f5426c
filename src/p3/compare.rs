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

/// Load a run folder, or a results.csv path whose samples.csv and metrics.csv sit next to it.
///
/// Columns are read by name: extra (newer) columns are kept in `ResultRecord::fields`, absent
/// optional ones read as empty. Errors name the file and line: malformed CSV, an unparseable
/// number, a missing required column, or a `schema_version` this build does not know
/// (anything outside `1..=SCHEMA_VERSION`). A missing samples.csv or metrics.csv is not an
/// error; it is recorded in `notes` (the comparison then has no CI for that run).
pub fn load_run(path: &Path) -> anyhow::Result<RunData> {
    let (dir, results_path) = if path.is_dir() {
        (path.to_path_buf(), path.join("results.csv"))
    } else {
        let dir = path
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_else(|| PathBuf::from("."));
        (dir, path.to_path_buf())
    };
    if !results_path.is_file() {
        bail!(
            "{}: no such file (expected a run folder or its results.csv)",
            results_path.display()
        );
    }
    let mut run = RunData {
        dir: dir.clone(),
        ..RunData::default()
    };
    run.results = read_results(&results_path)?;

    let samples_path = dir.join("samples.csv");
    if samples_path.is_file() {
        run.samples = read_samples(&samples_path)?;
    } else {
        run.notes.push(format!(
            "{}: missing; no confidence intervals for this run",
            samples_path.display()
        ));
    }
    let metrics_path = dir.join("metrics.csv");
    if metrics_path.is_file() {
        run.metrics = read_metrics(&metrics_path)?;
    } else {
        run.notes.push(format!(
            "{}: missing; no metrics.csv rows for this run",
            metrics_path.display()
        ));
    }
    Ok(run)
}

/// A CSV file's header and records, with a 1-based line per record.
/// A CSV file as (header, records with their 1-based line).
type Table = (Vec<String>, Vec<(u64, Vec<String>)>);

fn read_table(path: &Path) -> anyhow::Result<Table> {
    let file =
        std::fs::File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(true)
        .flexible(false)
        .from_reader(std::io::BufReader::new(file));
    let header: Vec<String> = reader
        .headers()
        .map_err(|e| csv_error(path, e))?
        .iter()
        .map(String::from)
        .collect();
    if header.iter().all(|h| h.is_empty()) {
        bail!("{}:1: empty header line", path.display());
    }
    let mut rows = Vec::new();
    for record in reader.records() {
        let record = record.map_err(|e| csv_error(path, e))?;
        let line = record.position().map(|p| p.line()).unwrap_or(0);
        rows.push((line, record.iter().map(String::from).collect()));
    }
    Ok((header, rows))
}

fn csv_error(path: &Path, e: csv::Error) -> anyhow::Error {
    let line = match e.kind() {
        csv::ErrorKind::UnequalLengths { pos: Some(p), .. } => Some(p.line()),
        csv::ErrorKind::Utf8 { pos: Some(p), .. } => Some(p.line()),
        csv::ErrorKind::Deserialize { pos: Some(p), .. } => Some(p.line()),
        _ => e.position().map(|p| p.line()),
    };
    let what = match e.kind() {
        csv::ErrorKind::UnequalLengths {
            expected_len, len, ..
        } => format!("malformed CSV: {len} fields where the header has {expected_len}"),
        _ => format!("malformed CSV: {e}"),
    };
    match line {
        Some(l) => anyhow!("{}:{l}: {what}", path.display()),
        None => anyhow!("{}: {what}", path.display()),
    }
}

fn column(path: &Path, header: &[String], name: &str) -> anyhow::Result<usize> {
    header
        .iter()
        .position(|h| h == name)
        .ok_or_else(|| anyhow!("{}:1: missing column `{name}`", path.display()))
}

fn parse_num(path: &Path, line: u64, col: &str, cell: &str) -> anyhow::Result<f64> {
    cell.parse::<f64>()
        .ok()
        .filter(|x| !x.is_nan())
        .ok_or_else(|| {
            anyhow!(
                "{}:{line}: column `{col}`: `{cell}` is not a number",
                path.display()
            )
        })
}

fn read_results(path: &Path) -> anyhow::Result<Vec<ResultRecord>> {
    let (header, rows) = read_table(path)?;
    for c in REQUIRED_RESULT_COLUMNS {
        column(path, &header, c)?;
    }
    let mut out = Vec::with_capacity(rows.len());
    for (line, cells) in rows {
        let fields: BTreeMap<String, String> = header.iter().cloned().zip(cells).collect();
        for col in NUMERIC_RESULT_COLUMNS {
            if let Some(cell) = fields.get(*col).filter(|c| !c.is_empty()) {
                parse_num(path, line, col, cell)?;
            }
        }
        let version = &fields["schema_version"];
        match version.parse::<u32>() {
            Ok(v) if (1..=SCHEMA_VERSION).contains(&v) => {}
            _ => bail!(
                "{}:{line}: schema_version {version} is not one this p3lab reads (1..={SCHEMA_VERSION}); \
                 use a p3lab at least as new as the one that wrote the run",
                path.display()
            ),
        }
        out.push(ResultRecord { line, fields });
    }
    Ok(out)
}

fn read_samples(path: &Path) -> anyhow::Result<Vec<SampleRecord>> {
    let (header, rows) = read_table(path)?;
    let [sc, va, pa, re, di, ns] = [
        "scenario",
        "variant",
        "params",
        "repetition",
        "dispatch",
        "gpu_ns",
    ]
    .map(|c| column(path, &header, c));
    let (sc, va, pa, re, di, ns) = (sc?, va?, pa?, re?, di?, ns?);
    let mo = header.iter().position(|h| h == "mode");
    let span = header.iter().position(|h| h == "repetition_ns");
    // The round columns come together (runs timed in rounds); older runs have none.
    let optional = |name: &str| header.iter().position(|h| h == name);
    let round_cols = match (optional("round"), optional("kept")) {
        (Some(r), Some(k)) => Some((
            r,
            optional("round_position"),
            optional("batch_repetition"),
            k,
        )),
        _ => None,
    };
    let mut out = Vec::with_capacity(rows.len());
    for (line, cells) in rows {
        let int = |i: usize, col: &str| -> anyhow::Result<u32> {
            cells[i].parse::<u32>().map_err(|_| {
                anyhow!(
                    "{}:{line}: column `{col}`: `{}` is not a whole number",
                    path.display(),
                    cells[i]
                )
            })
        };
        let mode = mo
            .map(|i| cells[i].as_str())
            .filter(|m| !m.is_empty())
            .unwrap_or(DEFAULT_MODE);
        out.push(SampleRecord {
            key: RowKey {
                scenario: cells[sc].clone(),
                variant: cells[va].clone(),
                params: cells[pa].clone(),
                mode: mode.to_string(),
            },
            repetition: int(re, "repetition")?,
            dispatch: int(di, "dispatch")?,
            gpu_ns: parse_num(path, line, "gpu_ns", &cells[ns])?,
            repetition_ns: match span.map(|i| cells[i].as_str()) {
                None | Some("") => None,
                Some(v) => Some(parse_num(path, line, "repetition_ns", v)?),
            },
            round: match round_cols {
                Some((r, _, _, _)) if cells[r].is_empty() => None,
                Some((r, pos, brep, k)) => Some(RoundTag {
                    round: int(r, "round")?,
                    round_position: pos
                        .map(|i| int(i, "round_position"))
                        .transpose()?
                        .unwrap_or(0),
                    batch_repetition: brep
                        .map(|i| int(i, "batch_repetition"))
                        .transpose()?
                        .unwrap_or(0),
                    kept: match cells[k].as_str() {
                        "1" => true,
                        "0" => false,
                        other => bail!(
                            "{}:{line}: column `kept`: `{other}` is not 0 or 1",
                            path.display()
                        ),
                    },
                }),
                None => None,
            },
        });
    }
    Ok(out)
}

fn read_metrics(path: &Path) -> anyhow::Result<Vec<MetricRecord>> {
    let (header, rows) = read_table(path)?;
    let [sc, va, pa, so, na, vl] = ["scenario", "variant", "params", "source", "name", "value"]
        .map(|c| column(path, &header, c));
    let (sc, va, pa, so, na, vl) = (sc?, va?, pa?, so?, na?, vl?);
    let un = header.iter().position(|h| h == "unit");
    let mo = header.iter().position(|h| h == "mode");
    let mut out = Vec::with_capacity(rows.len());
    for (line, cells) in rows {
        out.push(MetricRecord {
            scenario: cells[sc].clone(),
            variant: cells[va].clone(),
            params: cells[pa].clone(),
            mode: mo.map(|i| cells[i].clone()).unwrap_or_default(),
            source: cells[so].clone(),
            name: cells[na].clone(),
            value: parse_num(path, line, "value", &cells[vl])?,
            unit: un.map(|i| cells[i].clone()).unwrap_or_default(),
        });
    }
    Ok(out)
}

impl RunData {
    /// Per-repetition times of `key`'s kept repetitions (warm-up rounds left out), in
    /// repetition order: `repetition_ns`, or Σ `gpu_ns` over the passes in files without it.
    /// Empty when samples.csv has none for `key`.
    pub fn repetition_times(&self, key: &RowKey) -> Vec<f64> {
        self.kept_repetitions(key)
            .into_values()
            .map(|(_, t)| t)
            .collect()
    }

    /// `(round, median repetition time)` of every kept round of `key`, by round index: one
    /// value per repetition (not per pass row) goes into each median. Empty for runs without
    /// round columns, or when any of `key`'s rows lacks them.
    pub fn round_medians(&self, key: &RowKey) -> Vec<(u32, f64)> {
        let mut rounds: BTreeMap<u32, Vec<f64>> = BTreeMap::new();
        for (round, t) in self.kept_repetitions(key).into_values() {
            match round {
                Some(r) => rounds.entry(r).or_default().push(t),
                None => return Vec::new(),
            }
        }
        rounds
            .into_iter()
            .map(|(r, mut times)| {
                times.sort_by(f64::total_cmp);
                (r, median(&times))
            })
            .collect()
    }

    /// repetition → (its round, its time), kept rounds only.
    fn kept_repetitions(&self, key: &RowKey) -> BTreeMap<u32, (Option<u32>, f64)> {
        // The span p3lab times a repetition by (results.csv's statistics are over these);
        // files without it fall back to the sum of the dispatches.
        let mut reps: BTreeMap<u32, (Option<u32>, f64)> = BTreeMap::new();
        for s in self.samples.iter().filter(|s| &s.key == key) {
            if s.round.is_some_and(|t| !t.kept) {
                continue;
            }
            let entry = reps
                .entry(s.repetition)
                .or_insert((s.round.map(|t| t.round), 0.0));
            match s.repetition_ns {
                Some(span) => entry.1 = span,
                None => entry.1 += s.gpu_ns,
            }
        }
        reps
    }

    /// metrics.csv rows of `key`: those of its mode and those that hold for every mode.
    pub fn metrics_of<'a>(
        &'a self,
        key: &'a RowKey,
    ) -> impl Iterator<Item = &'a MetricRecord> + 'a {
        self.metrics.iter().filter(move |m| {
            m.scenario == key.scenario
                && m.variant == key.variant
                && m.params == key.params
                && (m.mode.is_empty() || m.mode == key.mode)
        })
    }

    /// The first results row with this key.
    pub fn row(&self, key: &RowKey) -> Option<&ResultRecord> {
        self.results.iter().find(|r| &r.key() == key)
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

/// The user-facing refusal of a comparison with cross-device pairs (the command line's
/// default; `--allow-cross-device` keeps them, marked). None when every pair shares its
/// device and driver.
pub fn cross_device_refusal(c: &Comparison) -> Option<String> {
    if c.cross_device.is_empty() {
        return None;
    }
    let which: Vec<String> = c
        .cross_device
        .iter()
        .map(|(b, n)| format!("base ran on {b}, new on {n}"))
        .collect();
    Some(format!(
        "{}; timings from different devices or drivers do not measure a code change \
         (--allow-cross-device compares them anyway and marks each such pair)",
        which.join("; ")
    ))
}

/// What a results.csv row says about the device and driver it ran on.
#[derive(Debug, Clone, PartialEq, Eq)]
struct DeviceId {
    name: String,
    uuid: String,
    driver_name: String,
    driver_version: String,
    driver_info: String,
}

impl DeviceId {
    fn of(r: &ResultRecord) -> Self {
        DeviceId {
            name: r.get("device_name").to_string(),
            uuid: r.get("device_uuid").to_string(),
            driver_name: r.get("driver_name").to_string(),
            driver_version: r.get("driver_version").to_string(),
            driver_info: r.get("driver_info").to_string(),
        }
    }

    /// Same device (by UUID where both have one, else by name) and same driver (version and
    /// info). A field missing on either side (older files) does not count as a difference.
    fn same_as(&self, o: &DeviceId) -> bool {
        let eq = |a: &str, b: &str| a.is_empty() || b.is_empty() || a == b;
        let device = if !self.uuid.is_empty() && !o.uuid.is_empty() {
            self.uuid == o.uuid
        } else {
            eq(&self.name, &o.name)
        };
        device
            && eq(&self.driver_version, &o.driver_version)
            && eq(&self.driver_info, &o.driver_info)
    }

    fn describe(&self) -> String {
        let name = if self.name.is_empty() {
            "an unnamed device"
        } else {
            &self.name
        };
        let mut s = format!("`{name}`");
        if !self.uuid.is_empty() {
            let _ = write!(s, " (uuid {})", self.uuid);
        }
        let driver: Vec<&str> = [self.driver_name.as_str(), self.driver_info.as_str()]
            .into_iter()
            .filter(|x| !x.is_empty())
            .collect();
        if !driver.is_empty() || !self.driver_version.is_empty() {
            let _ = write!(s, " with driver {}", driver.join(" "));
            if !self.driver_version.is_empty() {
                let _ = write!(s, " (version {})", self.driver_version);
            }
        }
        s
    }
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

// ---------------------------------------------------------------------------------------
// Number formatting shared with report.rs.

/// Full precision for CSV: Rust's shortest round-trip form, `.` decimals, "" for None.
pub(crate) fn csv_num(x: Option<f64>) -> String {
    match x {
        Some(v) if v.is_finite() => format!("{v}"),
        _ => String::new(),
    }
}

/// About four significant digits, no exponent for everyday magnitudes.
pub(crate) fn sig(x: f64) -> String {
    if !x.is_finite() {
        return format!("{x}");
    }
    if x.fract() == 0.0 && x.abs() < 1e15 {
        // Counts (registers, invocations, bytes) read best without decimals.
        return format!("{x:.0}");
    }
    let mag = x.abs().log10().floor() as i32;
    if !(-4..15).contains(&mag) {
        return format!("{x:.3e}");
    }
    let decimals = (3 - mag).clamp(0, 6) as usize;
    format!("{x:.decimals$}")
}

/// A time in the unit that keeps it readable: `812 ns`, `89.02 µs`, `1.264 ms`.
pub(crate) fn fmt_time(ns: f64) -> String {
    let (v, unit) = time_unit(ns.abs());
    format!("{} {unit}", sig(ns / v))
}

/// Divisor and unit name for a time of magnitude `ns`.
pub(crate) fn time_unit(ns: f64) -> (f64, &'static str) {
    if ns >= 1e9 {
        (1e9, "s")
    } else if ns >= 1e6 {
        (1e6, "ms")
    } else if ns >= 1e3 {
        (1e3, "µs")
    } else {
        (1.0, "ns")
    }
}

fn fmt_opt(x: Option<f64>, f: impl Fn(f64) -> String) -> String {
    x.map(f).unwrap_or_else(|| "-".into())
}

fn fmt_metric(m: &MetricPair, x: Option<f64>) -> String {
    fmt_opt(x, |v| if m.unit == "ns" { fmt_time(v) } else { sig(v) })
}

fn fmt_ratio(x: Option<f64>) -> String {
    fmt_opt(x, |v| format!("{v:.3}"))
}

fn fmt_pct(x: Option<f64>) -> String {
    fmt_opt(x, |v| format!("{v:+.1} %"))
}

fn fmt_p(x: Option<f64>) -> String {
    fmt_opt(x, |p| {
        if p < 1e-4 {
            "<0.0001".into()
        } else {
            format!("{p:.4}")
        }
    })
}

fn fmt_ci(ci: Option<(f64, f64)>) -> String {
    ci.map(|(l, h)| format!("[{l:.3}, {h:.3}]"))
        .unwrap_or_else(|| "-".into())
}

/// Text table with the given alignment (true = right), widths by character count.
fn aligned(rows: &[Vec<String>], right: &[bool], indent: &str) -> String {
    let cols = rows.iter().map(Vec::len).max().unwrap_or(0);
    let mut w = vec![0; cols];
    for r in rows {
        for (i, c) in r.iter().enumerate() {
            w[i] = w[i].max(c.chars().count());
        }
    }
    let mut out = String::new();
    for (ri, r) in rows.iter().enumerate() {
        let mut line = String::from(indent);
        for (i, c) in r.iter().enumerate() {
            let pad = w[i] - c.chars().count();
            if i > 0 {
                line.push_str("  ");
            }
            if right.get(i).copied().unwrap_or(false) {
                line.push_str(&" ".repeat(pad));
                line.push_str(c);
            } else {
                line.push_str(c);
                if i + 1 < r.len() {
                    line.push_str(&" ".repeat(pad));
                }
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
        if ri == 0 {
            let total: usize = w.iter().sum::<usize>() + 2 * cols.saturating_sub(1);
            out.push_str(indent);
            out.push_str(&"-".repeat(total));
            out.push('\n');
        }
    }
    out
}

/// ` [cross-device]` for a pair whose sides ran on different devices or drivers, else "".
fn cross_marker(p: &PairRow) -> &'static str {
    if p.cross_device {
        " [cross-device]"
    } else {
        ""
    }
}

/// What the CI rests on: `12 paired rounds`, `12/11 rounds`, `10/10 repetitions`.
fn sample_size(p: &PairRow) -> String {
    match p.method {
        Some(Method::PairedRounds) => format!("{} paired rounds", p.n.unwrap_or(0)),
        Some(Method::UnpairedRounds) => format!("{}/{} rounds", p.n_base, p.n_new),
        Some(Method::Repetitions) | None => format!("{}/{} repetitions", p.n_base, p.n_new),
    }
}

/// Terminal rendering: one block per pair (headline, then `metric | before | after | ratio`),
/// then the warnings.
pub fn to_table(c: &Comparison) -> String {
    let mut out = String::new();
    for p in &c.rows {
        let _ = writeln!(out, "{}{}", pair_label(p), cross_marker(p));
        match &p.verdict {
            Verdict::NotComparable(why) => {
                let _ = writeln!(out, "  not comparable: {why}");
            }
            v => {
                let _ = writeln!(
                    out,
                    "  time {} -> {}  ({}, speedup {})  ratio 95% CI {}  p = {}  n = {}  => {}",
                    fmt_opt(p.median_base_ns, fmt_time),
                    fmt_opt(p.median_new_ns, fmt_time),
                    fmt_pct(p.change_pct),
                    fmt_opt(p.speedup, |s| format!("{s:.3}x")),
                    fmt_ci(p.ratio_ci),
                    fmt_p(p.p_value),
                    sample_size(p),
                    v.as_str().to_uppercase()
                );
            }
        }
        let mut rows = vec![vec![
            "metric".to_string(),
            "before".into(),
            "after".into(),
            "ratio".into(),
        ]];
        for m in &p.metrics {
            rows.push(vec![
                m.name.clone(),
                fmt_metric(m, m.before),
                fmt_metric(m, m.after),
                fmt_ratio(m.ratio()),
            ]);
        }
        out.push_str(&aligned(&rows, &[false, true, true, true], "  "));
        out.push('\n');
    }
    let improved = c
        .rows
        .iter()
        .filter(|r| r.verdict == Verdict::Improved)
        .count();
    let regressed = c
        .rows
        .iter()
        .filter(|r| r.verdict == Verdict::Regressed)
        .count();
    let not_cmp = c
        .rows
        .iter()
        .filter(|r| matches!(r.verdict, Verdict::NotComparable(_)))
        .count();
    let _ = writeln!(
        out,
        "{} pairs: {improved} improved, {regressed} regressed, {} no change, {not_cmp} not comparable (noise threshold {} %)",
        c.rows.len(),
        c.rows.len() - improved - regressed - not_cmp,
        c.noise_pct
    );
    for w in &c.warnings {
        let _ = writeln!(out, "warning: {w}");
    }
    out
}

/// Columns of `to_csv`, in order.
pub const CSV_COLUMNS: &[&str] = &[
    "scenario",
    "variant_base",
    "variant_new",
    "params",
    "mode",
    "metric",
    "before",
    "after",
    "ratio",
    "ci_low",
    "ci_high",
    "p_value",
    "verdict",
    "reason",
    "method",
    "n",
    "cross_device",
];

/// Long CSV: one line per pair and metric. `ratio` is after/before. `ci_low`, `ci_high`,
/// `p_value`, `verdict`, `reason`, `method` (`paired_rounds`, `unpaired_rounds`,
/// `repetitions`) and `n` (rounds paired, the smaller side's rounds, or the smaller side's
/// repetitions) are filled on the `time_ns` line only (they judge time); `cross_device` (1 when
/// base and new ran on different devices or drivers, else 0) on every line. Every missing
/// value is an empty cell.
pub fn to_csv(c: &Comparison) -> String {
    let mut w = csv::WriterBuilder::new().from_writer(Vec::new());
    w.write_record(CSV_COLUMNS).expect("in-memory CSV");
    for p in &c.rows {
        for m in &p.metrics {
            let time = m.name == "time_ns";
            let (lo, hi) = match (time, p.ratio_ci) {
                (true, Some((l, h))) => (Some(l), Some(h)),
                _ => (None, None),
            };
            w.write_record([
                p.scenario.as_str(),
                &p.variant_base,
                &p.variant_new,
                &p.params,
                &p.mode,
                &m.name,
                &csv_num(m.before),
                &csv_num(m.after),
                &csv_num(m.ratio()),
                &csv_num(lo),
                &csv_num(hi),
                &csv_num(if time { p.p_value } else { None }),
                if time { p.verdict.as_str() } else { "" },
                if time { p.verdict.reason() } else { "" },
                match p.method {
                    Some(m) if time => m.as_str(),
                    _ => "",
                },
                &csv_num(p.n.filter(|_| time).map(|n| n as f64)),
                if p.cross_device { "1" } else { "0" },
            ])
            .expect("in-memory CSV");
        }
    }
    String::from_utf8(w.into_inner().expect("in-memory CSV")).expect("CSV of UTF-8 strings")
}

/// Escape a table cell for Markdown.
pub(crate) fn md_cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

/// Markdown: a summary table of all pairs, then per pair its metrics table, then warnings.
pub fn to_markdown(c: &Comparison) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Verdicts judge the time ratio new/base: **improved** or **regressed** only when the whole \
         95 % CI lies beyond 1 ± {} %; otherwise **no change**. Runs timed in rounds: time is the \
         mean of the kept round medians; two variants of one run are paired round by round \
         (t-interval of the log ratios), two runs compared with Welch's interval. Older runs: \
         time is the median repetition (sum of its passes' `gpu_ns` in samples.csv), with a \
         bootstrap CI and Mann-Whitney p; for multi-pass variants results.csv's `median_ns` \
         (barriers included) is listed as its own metric. Ratios are after/before.\n",
        c.noise_pct
    );
    out.push_str(
        "| scenario | base | new | params | mode | before | after | change | speedup | ratio 95 % CI | p | n | verdict |\n",
    );
    out.push_str("|---|---|---|---|---|--:|--:|--:|--:|--:|--:|--:|---|\n");
    for p in &c.rows {
        let verdict = match &p.verdict {
            Verdict::Improved => "**improved**".to_string(),
            Verdict::Regressed => "**regressed**".to_string(),
            Verdict::NoChange => "no change".to_string(),
            Verdict::NotComparable(why) => format!("not comparable: {why}"),
        } + cross_marker(p);
        let n = if p.method.is_some() {
            sample_size(p)
        } else {
            "-".into()
        };
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            md_cell(&p.scenario),
            md_cell(&p.variant_base),
            md_cell(&p.variant_new),
            md_cell(&p.params),
            md_cell(&p.mode),
            fmt_opt(p.median_base_ns, fmt_time),
            fmt_opt(p.median_new_ns, fmt_time),
            fmt_pct(p.change_pct),
            fmt_opt(p.speedup, |s| format!("{s:.3}×")),
            fmt_ci(p.ratio_ci),
            fmt_p(p.p_value),
            n,
            md_cell(&verdict)
        );
    }
    for p in &c.rows {
        let _ = writeln!(
            out,
            "\n#### {}{}\n",
            md_cell(&pair_label(p)),
            cross_marker(p)
        );
        out.push_str("| metric | unit | before | after | ratio |\n|---|---|--:|--:|--:|\n");
        for m in &p.metrics {
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {} |",
                md_cell(&m.name),
                md_cell(&m.unit),
                fmt_metric(m, m.before),
                fmt_metric(m, m.after),
                fmt_ratio(m.ratio())
            );
        }
    }
    if !c.warnings.is_empty() {
        out.push_str("\n**Warnings**\n\n");
        for w in &c.warnings {
            let _ = writeln!(out, "- {}", md_cell(w));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verdict_rule_needs_the_whole_ci_outside_the_noise_band() {
        assert_eq!(verdict_for_ci((0.90, 0.985), 1.0), Verdict::Improved);
        assert_eq!(verdict_for_ci((0.90, 0.995), 1.0), Verdict::NoChange);
        assert_eq!(verdict_for_ci((0.95, 1.05), 1.0), Verdict::NoChange);
        assert_eq!(verdict_for_ci((1.005, 1.2), 1.0), Verdict::NoChange);
        assert_eq!(verdict_for_ci((1.011, 1.2), 1.0), Verdict::Regressed);
        assert_eq!(verdict_for_ci((0.5, 0.6), 50.0), Verdict::NoChange);
    }

    #[test]
    fn number_formats() {
        assert_eq!(sig(89018.0), "89018");
        assert_eq!(sig(1.104315981037543), "1.104");
        assert_eq!(sig(0.015028), "0.01503");
        assert_eq!(fmt_time(89018.0), "89.02 µs");
        assert_eq!(fmt_time(1264480.0), "1.264 ms");
        assert_eq!(fmt_time(812.0), "812 ns");
        assert_eq!(sig(8.0), "8");
        assert_eq!(csv_num(Some(89018.0)), "89018");
        assert_eq!(csv_num(Some(0.5)), "0.5");
        assert_eq!(csv_num(None), "");
    }

    fn sample(
        rep: u32,
        dispatch: u32,
        gpu_ns: f64,
        span: Option<f64>,
        round: Option<(u32, bool)>,
    ) -> SampleRecord {
        SampleRecord {
            key: RowKey {
                scenario: "s".into(),
                variant: "v".into(),
                params: String::new(),
                mode: "warm".into(),
            },
            repetition: rep,
            dispatch,
            gpu_ns,
            repetition_ns: span,
            round: round.map(|(round, kept)| RoundTag {
                round,
                round_position: 0,
                batch_repetition: rep % 3,
                kept,
            }),
        }
    }

    #[test]
    fn round_medians_take_one_time_per_repetition_from_kept_rounds() {
        let mut run = RunData::default();
        // Round 0 is a warm-up (kept = 0); rounds 1 and 2 have 3 repetitions of 2 passes.
        for (rep, round, kept, span) in [
            (0, 0, false, 500.0),
            (1, 0, false, 500.0),
            (2, 0, false, 500.0),
            (3, 2, true, 110.0),
            (4, 2, true, 130.0),
            (5, 2, true, 120.0),
            (6, 1, true, 100.0),
            (7, 1, true, 90.0),
            (8, 1, true, 95.0),
        ] {
            for d in 0..2 {
                run.samples.push(sample(
                    rep,
                    d,
                    span / 2.0 - 1.0,
                    Some(span),
                    Some((round, kept)),
                ));
            }
        }
        let key = run.samples[0].key.clone();
        assert_eq!(run.round_medians(&key), vec![(1, 95.0), (2, 120.0)]);
        assert_eq!(run.repetition_times(&key).len(), 6);
        // Without `repetition_ns` a repetition is the sum of its passes.
        for s in &mut run.samples {
            s.repetition_ns = None;
        }
        assert_eq!(run.round_medians(&key), vec![(1, 93.0), (2, 118.0)]);
        // Rounds are all or nothing: one row without them and the key has none.
        run.samples.push(sample(9, 0, 1.0, None, None));
        assert!(run.round_medians(&key).is_empty());
    }

    #[test]
    fn devices_match_by_uuid_else_name_and_by_driver() {
        let dev = |name: &str, uuid: &str, version: &str, info: &str| DeviceId {
            name: name.into(),
            uuid: uuid.into(),
            driver_name: "NVIDIA".into(),
            driver_version: version.into(),
            driver_info: info.into(),
        };
        let a = dev("NVIDIA H200", "aa", "1", "580");
        assert!(a.same_as(&a.clone()));
        // Two H200s are two devices.
        assert!(!a.same_as(&dev("NVIDIA H200", "bb", "1", "580")));
        // No uuid on one side: the name decides.
        assert!(a.same_as(&dev("NVIDIA H200", "", "1", "580")));
        assert!(!a.same_as(&dev("NVIDIA H100", "", "1", "580")));
        // Another driver.
        assert!(!a.same_as(&dev("NVIDIA H200", "aa", "2", "580")));
        assert!(!a.same_as(&dev("NVIDIA H200", "aa", "1", "590")));
        // Files too old to say: not a difference.
        assert!(a.same_as(&dev("NVIDIA H200", "aa", "", "")));
    }

    #[test]
    fn fnv_is_stable() {
        assert_eq!(fnv1a(&[]), 0xcbf2_9ce4_8422_2325);
        assert_ne!(fnv1a(&["a", "b"]), fnv1a(&["ab"]));
    }
}
