//! What the command line asks of a run, and the interrupt flag every stage looks at.
use crate::scenario::{Scenario, Variant};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};

/// Set by Ctrl-C (SIGINT/SIGTERM): the runner stops after the batch in progress and writes
/// the rows of what it measured.
pub static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// Whether Ctrl-C (SIGINT/SIGTERM) has been seen: [`INTERRUPTED`].
pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}

/// What the command line asks of `p3lab run`; each `None` leaves the scenario's value.
pub struct RunOptions {
    /// The validation layer is on (a recreated device gets it too).
    pub validate: bool,
    /// `--filter`: globs over variant names or `scenario/variant`; None runs every variant.
    pub filter: Option<globset::GlobSet>,
    /// `--reps`: timed repetitions per batch (at least).
    pub reps: Option<u32>,
    /// `--warmup`: untimed repetitions at the start of every batch.
    pub warmup: Option<u32>,
    /// `--warmup-ms`: GPU time of the warm-up before a case's rounds (0: none).
    pub warmup_ms: Option<u64>,
    /// `--rounds`, `--max-rounds`, `--ci-target`, `--budget-ms`: the adaptive length.
    pub rounds: Option<u32>,
    /// `--max-rounds`: kept rounds at most (raised to the rounds if lower).
    pub max_rounds: Option<u32>,
    /// `--ci-target`: stop once the median's CI half-width is at most this, % of the median.
    pub ci_target_pct: Option<f64>,
    /// `--budget-ms`: ...or once a variant's batches took this much wall time, ms.
    pub budget_ms: Option<f64>,
    /// `--seed`: the rounds' shuffles (and bootstrap seeds) derive from it.
    pub seed: u64,
    /// Rows already written (`--resume`): those variants are not run again.
    pub skip: std::collections::BTreeSet<crate::results::RowKey>,
    /// This device's measured peaks, for the %-of-peak columns.
    pub peaks: Option<crate::peaks::Peaks>,
    /// Where shader `#include`s are looked for, in order (`--include-dir`, `$P3LAB_GLSL_COMMON`,
    /// glsl/common near the scenarios, the built-in copy).
    pub glsl_common: Vec<PathBuf>,
    /// `--counters`: hardware counter globs that replace every case's `measure.counters`.
    pub counters: Vec<String>,
    /// The hardware counters' backend and sampling (`--no-hw-counters`, `--cupti`,
    /// `--hw-interval-us`).
    pub hw: HwOptions,
    /// `--probe`: per-subgroup probes in every scenario, as if each set `measure.probe`.
    pub probe: bool,
    /// `--dump-ir`: write the drivers' internal representations of every pipeline to files.
    pub dump_ir: bool,
    /// `--dump-outputs`: write every output of every variant's check run as `.npy`.
    pub dump_outputs: bool,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            validate: false,
            filter: None,
            reps: None,
            warmup: None,
            warmup_ms: None,
            rounds: None,
            max_rounds: None,
            ci_target_pct: None,
            budget_ms: None,
            seed: DEFAULT_SEED,
            skip: Default::default(),
            peaks: None,
            glsl_common: Vec::new(),
            counters: Vec::new(),
            hw: Default::default(),
            probe: false,
            dump_ir: false,
            dump_outputs: false,
        }
    }
}

/// The seed when `--seed` is not given: fixed, so a re-run shuffles the same way.
pub const DEFAULT_SEED: u64 = 0x5033_4C41_4221;

impl RunOptions {
    /// `--filter`: the variant's name or `scenario/variant` matches (everything without one).
    pub fn filter_matches(&self, sc: &Scenario, v: &Variant) -> bool {
        match &self.filter {
            None => true,
            Some(g) => g.is_match(&v.name) || g.is_match(format!("{}/{}", sc.name, v.name)),
        }
    }
}

/// The default PM-sampling interval: CUPTI decodes and evaluates a sample in about 100 µs,
/// and at 20 µs the hardware buffer overflowed on an H100 (GUIDE.md). A counter batch cost
/// about 36 ms at 100 µs (H200) and at 200 µs (H100) alike: a fixed cost, not the samples'.
pub const DEFAULT_INTERVAL_NS: u64 = 200_000;

/// What `run` was asked for.
#[derive(Debug, Clone)]
pub struct HwOptions {
    /// `--no-hw-counters` turns the counter batches off.
    pub enabled: bool,
    /// `--cupti PATH` / `P3LAB_CUPTI`: the library (or its folder), tried on any device.
    pub cupti: Option<PathBuf>,
    /// `--hw-interval-us`, in ns.
    pub interval_ns: u64,
    /// NVIDIA PM-sampling metrics (full names) counted in passes after the columns' where the
    /// chip has them, silently left out where it does not: `p3lab peak`'s own counter of each
    /// unit (crate::peaks::verify). Empty for `p3lab run`.
    pub nv_own: Vec<String>,
    /// Which of `nv_own` a variant (by name) is counted for: the passes after the columns' that
    /// hold none of them are skipped for it (a pass costs a sampler renewal and a batch). None:
    /// every variant is counted in every pass.
    pub nv_own_for: Option<fn(&str) -> &'static [&'static str]>,
    /// Rows (scenario, variant, params, mode) an earlier run of the same scenarios timed, with
    /// what it measured: this run checks those variants and counts them, its counter batch
    /// sized from that time, and times no rounds of them (`stop_reason` `timed_before`).
    /// `p3lab peak`'s own-counter run, whose variants the calibration run had just timed;
    /// empty for `p3lab run`.
    pub timed_before: std::collections::BTreeMap<crate::results::RowKey, TimedBefore>,
}

/// What an earlier run measured of a variant in one mode, which a run that only counts it
/// ([`HwOptions::timed_before`]) sizes its counter batch and judges its clock with.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TimedBefore {
    /// One repetition's median time, ns (results.csv `median_ns`).
    pub median_ns: f64,
    /// The SM clock its timed batches ran at, MHz (results.csv `clock_mhz`); None without a
    /// clock gauge.
    pub clock_mhz: Option<f64>,
}

impl Default for HwOptions {
    fn default() -> Self {
        HwOptions {
            enabled: true,
            cupti: None,
            interval_ns: DEFAULT_INTERVAL_NS,
            nv_own: Vec::new(),
            nv_own_for: None,
            timed_before: Default::default(),
        }
    }
}
