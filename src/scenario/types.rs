//! The resolved scenario: every expression over params evaluated, every matrix expanded.
use std::collections::BTreeMap;
use std::path::PathBuf;

/// Shader compiler optimization level.
pub use crate::shader::OptLevel;

#[derive(Debug, Clone)]
pub struct Scenario {
    pub name: String,
    /// The scenario file as the user named it.
    pub path: PathBuf,
    pub description: String,
    pub source: String,
    /// The file's text, for errors found after loading (file, line and key).
    pub text: String,
    pub requires: Vec<String>,
    pub opt: OptLevel,
    /// The `[profiles.NAME]` applied, if any.
    pub profile: Option<String>,
    pub cases: Vec<Case>,
}

/// One point of the params sweep: the resources and variants run with those param values.
#[derive(Debug, Clone)]
pub struct Case {
    pub params: BTreeMap<String, f64>,
    /// `k=v;k=v`, sorted by key: the `params` column of the CSVs.
    pub params_label: String,
    pub resources: Vec<Resource>,
    pub check: Option<Check>,
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
    pub warmup: u32,
    /// Minimum warm-up time before the timed repetitions, in ms.
    pub warmup_ms: u64,
    /// Timed repetitions per batch (at least; short dispatches get more).
    pub reps: u32,
    pub timeout_ms: u64,
    /// The adaptive length of the rounds (docs/scenarios.md, `[measure]`).
    pub rounds: u32,
    pub max_rounds: u32,
    pub ci_target_pct: f64,
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
