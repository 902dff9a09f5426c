//! The resolved scenario: every expression over params evaluated, every matrix expanded.
use std::collections::BTreeMap;
use std::path::PathBuf;

/// Shader compiler optimization level.
pub use crate::shader::OptLevel;

/// A loaded scenario file: every expression over params evaluated, every matrix expanded, one
/// [`Case`] per point of the params sweep.
#[derive(Debug, Clone)]
pub struct Scenario {
    /// The `scenario` column: `[scenario].name`, else the file name without `.toml`.
    pub name: String,
    /// The scenario file as the user named it.
    pub path: PathBuf,
    /// `[scenario].description`: free text for `p3lab peak --list` and the like, never written to
    /// the CSVs; `""` when absent.
    pub description: String,
    /// `[scenario].source`: free text naming the article or issue it comes from; `""` when absent.
    pub source: String,
    /// The file's text, for errors found after loading (file, line and key).
    pub text: String,
    /// `[scenario].requires`: features or extensions every variant needs; one the device lacks
    /// makes every row `unsupported`.
    pub requires: Vec<String>,
    /// shaderc's optimization level (`[scenario].opt`; default performance).
    pub opt: OptLevel,
    /// The `[profiles.NAME]` applied, if any.
    pub profile: Option<String>,
    /// The params cases, one per combination of the swept params.
    pub cases: Vec<Case>,
    /// `[scenario].baseline`: the variant the summary's time ratios are against; a variant of
    /// every case (checked at load).
    pub baseline: Option<String>,
}

/// One point of the params sweep: the resources and variants run with those param values.
#[derive(Debug, Clone)]
pub struct Case {
    /// This case's value of every param (after `--set` and the profile).
    pub params: BTreeMap<String, f64>,
    /// `k=v;k=v`, sorted by key: the `params` column of the CSVs.
    pub params_label: String,
    /// The `[[resources]]`, sized with this case's params.
    pub resources: Vec<Resource>,
    /// `[check]` evaluated for this case; None when the file has no `[check]`.
    pub check: Option<Check>,
    /// The variants after matrix expansion, in file order.
    pub variants: Vec<Variant>,
    /// Measurement modes: each gives its own row.
    pub modes: Vec<Mode>,
    /// Bytes written before each timed repetition in cold mode, to evict the L2.
    pub cold_bytes: u64,
    /// How cold mode evicts the L2 (`measure.evict`, `--evict`).
    pub evict: Evict,
    /// What every round after the first makes anew (`measure.fresh`, `--fresh`).
    pub fresh: Fresh,
    /// After the rounds, one more round with the resources moved to new memory
    /// (`measure.placement_check`, `--no-placement-check`).
    pub placement_check: bool,
    /// Over how many placements of the resources (`measure.placements`, `--placements`).
    pub placements: super::settings::Placements,
    /// Untimed repetitions at the start of every batch (`measure.warmup`, default 3; `--warmup`
    /// overrides).
    pub warmup: u32,
    /// Minimum warm-up time before the timed repetitions, in ms.
    pub warmup_ms: u64,
    /// Timed repetitions per batch (at least; short dispatches get more).
    pub reps: u32,
    /// Fence timeout of one submission, ms (`measure.timeout_ms`, default 30000): past it the
    /// variant is an `error` row and the device is replaced.
    pub timeout_ms: u64,
    /// The adaptive length of the rounds (docs/scenarios.md, `[measure]`).
    pub rounds: u32,
    /// Kept rounds at most (`measure.max_rounds`; default 30, or `rounds` if larger).
    pub max_rounds: u32,
    /// A variant stops once its median's 95 % CI half-width is at most this, % of the median
    /// (`measure.ci_target_pct`, default 0.5).
    pub ci_target_pct: f64,
    /// ...or once its batches in a mode took this much wall time, ms (`measure.budget_ms`, default
    /// 400).
    pub budget_ms: f64,
    /// Hardware counters to capture, as names or globs (`measure.counters`).
    pub counters: Vec<String>,
    /// Per-subgroup probes (`measure.probe`): compile with `P3_PROBE_GROUPS` and bind the
    /// subgroup records at set 3, binding 1.
    pub probe: bool,
}

pub use super::checks::*;
pub use super::resources::*;
pub use super::settings::*;
pub use super::variant::*;
