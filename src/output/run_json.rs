//! run.json: what ran, where, with which features, and what p3lab itself cost.
use crate::results::write::write_file_atomic;
use crate::shader::CacheStats;
use crate::vk::context::Enabled;
use crate::vk::DeviceInfo;
use serde::Serialize;
use std::path::Path;

/// p3lab's own cost for one variant, in nanoseconds of wall time.
#[derive(Debug, Clone, Default, Serialize)]
pub struct VariantCost {
    pub scenario: String,
    pub variant: String,
    pub params: String,
    pub compile_ns: u64,
    pub pipeline_ns: u64,
    pub reset_ns: u64,
    pub check_run_ns: u64,
    pub readback_ns: u64,
    /// Output comparison on the host.
    pub check_ns: u64,
    pub timed_submit_ns: u64,
    /// Making the pipelines anew before rounds (`fresh`).
    pub remake_ns: u64,
    /// Sum of the timed dispatches as the GPU measured them.
    pub gpu_timed_ns: f64,
    /// Hardware-counter capture (one replay per counter pass).
    pub counters_ns: u64,
    pub total_ns: u64,
}

/// The arguments `p3lab run --resume` needs to carry on where a run stopped.
#[derive(Debug, Clone, Default, Serialize, serde::Deserialize)]
pub struct RecordedArgs {
    pub scenarios: Vec<String>,
    pub set: Vec<String>,
    pub filter: Vec<String>,
    pub profile: Option<String>,
    pub device: Option<String>,
    #[serde(default)]
    pub counters: Vec<String>,
    /// `--probe`, `--dump-ir`, `--dump-outputs`, `--keep-going`, `--strict`: a resumed run
    /// keeps them.
    #[serde(default)]
    pub probe: bool,
    #[serde(default)]
    pub dump_ir: bool,
    #[serde(default)]
    pub dump_outputs: bool,
    #[serde(default)]
    pub keep_going: bool,
    #[serde(default)]
    pub strict: bool,
    /// How the rows were measured (`--reps` … `--no-placement-check`): a resumed run measures
    /// the rest the same way. Absent in run.json files written before it was recorded.
    #[serde(default)]
    pub measure: Option<MeasureFlags>,
}

/// The measurement flags of `p3lab run` as given (None: not given, the scenario's or p3lab's
/// default applies).
#[derive(Debug, Clone, Default, PartialEq, Serialize, serde::Deserialize)]
pub struct MeasureFlags {
    pub reps: Option<u32>,
    pub warmup: Option<u32>,
    pub warmup_ms: Option<u64>,
    pub rounds: Option<u32>,
    pub max_rounds: Option<u32>,
    pub ci_target: Option<f64>,
    pub budget_ms: Option<f64>,
    pub seed: Option<u64>,
    pub evict: Option<crate::scenario::Evict>,
    pub fresh: Option<crate::scenario::Fresh>,
    pub no_placement_check: bool,
    /// `--placements`, when given.
    #[serde(default)]
    pub placements: Option<crate::scenario::Placements>,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct RunJson {
    pub schema_version: u32,
    pub p3lab_version: String,
    pub git_revision: Option<String>,
    /// SHA-256 (16 hex digits) of the files built into the binary (src/assets.rs): the
    /// calibration scenarios and the common GLSL includes.
    pub assets_hash: String,
    pub run_id: String,
    pub command_line: Vec<String>,
    pub started_utc: String,
    pub finished_utc: Option<String>,
    pub complete: bool,
    /// Stopped by Ctrl-C / SIGTERM after the batch in progress.
    pub interrupted: bool,
    /// How often the device was recreated after a variant hung or lost it.
    pub device_recreated: u32,
    /// How many times this folder was continued with `--resume`.
    pub resumed: u32,
    pub args: RecordedArgs,
    pub host: String,
    pub device: Option<DeviceInfo>,
    /// The theoretical-occupancy rules chosen for the device (src/occupancy); absent where
    /// none is known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub occupancy_rules: Option<OccupancyRules>,
    pub enabled: Option<Enabled>,
    pub validation: bool,
    pub validation_errors: u64,
    pub compiler: String,
    pub compile_cache: CacheStats,
    pub cache_dir: Option<String>,
    pub scenarios: Vec<String>,
    /// The peaks.csv behind the %-of-peak columns, if any.
    pub peaks_file: Option<String>,
    /// The [profiles.NAME] applied (`--profile`; `auto` resolved), if any.
    pub profile: Option<String>,
    pub rows: std::collections::BTreeMap<String, u64>,
    /// Case set-up (resource creation and upload), per scenario and params case.
    pub setup_ns: Vec<(String, String, u64)>,
    pub costs: Vec<VariantCost>,
    /// The seed of the rounds' shuffles (`--seed`).
    pub seed: u64,
    /// Per params case and mode: the warm-ups and each round's order.
    pub rounds: Vec<RoundsRecord>,
    /// Per params case: where its wall time went.
    pub cases: Vec<CaseTimeline>,
    /// Wall time of the warm-ups, and its share of the run's wall time.
    pub warmup_wall_ns: u64,
    pub warmup_share: Option<f64>,
    /// Share of wall time spent in GPU submissions (warm-up and timed repetitions).
    pub gpu_submit_share: Option<f64>,
    pub wall_ns: u64,
    /// Hardware counters (`measure.counters`, `--counters`): whether they could be captured;
    /// absent when none were asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub counters: Option<CountersStatus>,
    /// Cold mode's cap on the bytes of each L2 eviction, and where it came from: on a CPU
    /// device its last-level cache (src/measure/evict.rs); null on a GPU (each case's
    /// `cold_bytes` as declared).
    pub cold_evict_cap: Option<ColdEvictCap>,
    /// The hardware counters behind the `hw_*` columns (issue 25): the backend, or why none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hw_counters: Option<HwStatus>,
}

/// run.json's `cold_evict_cap`: at most `bytes` per cold-mode eviction, and why.
#[derive(Debug, Clone, Default, Serialize)]
pub struct ColdEvictCap {
    pub bytes: u64,
    /// E.g. `cpu last-level cache: L3 unified 32768K (/sys/devices/system/cpu/cpu0/cache)`.
    pub source: String,
}

/// run.json's `hw_counters`: the counter backend of the run (src/measure/hw/).
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct HwStatus {
    /// `cupti-pm-sampling`, `vk-performance-query`, or empty.
    pub source: String,
    /// Why there are no counters (empty when there are).
    pub reason: String,
    /// The library loaded (CUPTI), or the driver table used (performance query).
    pub library: String,
    pub chip: String,
    pub device_index: Option<usize>,
    /// The metrics of each pass (one config each).
    pub passes: Vec<Vec<String>>,
    /// Metrics asked for (`--counters`) that could not be used, with why.
    pub refused: Vec<String>,
    pub interval_ns: u64,
    /// Counter batches run, samples used, samples lost.
    pub batches: u64,
    pub samples: u64,
    pub lost_samples: u64,
    /// The highest SM clock counted in this run (MHz): the reference for throttling flags.
    pub max_sm_clock_mhz: Option<f64>,
    /// Rows whose clock was below it by more than CLOCK_DROP_PCT when counted.
    pub throttled_rows: u64,
    /// Wall time of the counter batches, ms, and where it went: CUPTI's start and stop, the
    /// batches themselves, decoding, and reading the samples' times and evaluating them.
    pub wall_ms: f64,
    pub start_stop_ms: f64,
    pub batches_ms: f64,
    pub decode_ms: f64,
    pub evaluate_ms: f64,
}

/// Which occupancy rules apply to the run's device, and how they were chosen.
#[derive(Debug, Clone, Default, Serialize)]
pub struct OccupancyRules {
    /// E.g. "hopper (cc 9.0, by device id 0x2335, GH100; 64 warps per SM agree)".
    pub arch: String,
    /// What `*_per_unit` columns count per: "SM", "CU" or "WGP".
    pub unit: String,
    /// Units on the device, where the driver says.
    pub units: Option<u32>,
    /// The hardware maximum of resident warps / waves per unit.
    pub max_waves_per_unit: u32,
}

/// What became of the hardware counters a run asked for.
#[derive(Debug, Clone, Default, Serialize)]
pub struct CountersStatus {
    pub available: bool,
    /// Why they could not be captured (no VK_KHR_performance_query, or a failed capture).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Every counter captured, over all variants.
    pub captured: Vec<String>,
    /// The most replays (counter passes) one variant took.
    pub passes: u32,
    /// Globs that matched no counter of the device.
    pub unmatched: Vec<String>,
}

impl RunJson {
    /// Written at the start and again at the end, atomically (temp file, then rename; never
    /// through a link: results::write::write_file_atomic).
    pub fn write(&self, dir: &Path) -> anyhow::Result<()> {
        let text = serde_json::to_string_pretty(self)? + "\n";
        write_file_atomic(&dir.join("run.json"), text.as_bytes())
    }
}

/// Mark the run.json in `dir` interrupted (not complete, finished now), keeping every other
/// key: for an exit that cannot wait for the runner to write its own.
pub fn mark_interrupted(dir: &Path) -> anyhow::Result<()> {
    let path = dir.join("run.json");
    let mut v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path)?)?;
    if let Some(o) = v.as_object_mut() {
        o.insert("interrupted".into(), true.into());
        o.insert("complete".into(), false.into());
        let now = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
        o.insert("finished_utc".into(), now.into());
    }
    write_file_atomic(&path, (serde_json::to_string_pretty(&v)? + "\n").as_bytes())
}

/// The host name p3lab records: `$P3LAB_HOST`, else the kernel's (output/out_template.rs).
pub fn hostname() -> String {
    crate::output::out_template::host()
}

/// What the warm-up of one case and mode did (run.json `rounds`).
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct Warmup {
    /// Since the GPU last finished a submission of any kind (batch, check run, upload,
    /// read-back); null before the run's first batch.
    pub idle_before_ms: Option<f64>,
    /// The busy time it aimed at, from the idle gap (src/measure/batch.rs, `warmup_target`).
    pub target_ms: u64,
    /// Wall time of its batches (the GPU was busy for all of it).
    pub gpu_ms: f64,
    pub wall_ms: f64,
    pub cycles: u32,
    /// Two cycles in a row agreed within 2 %.
    pub converged: bool,
}

/// The rounds of one params case and mode, as run.json records them.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct RoundsRecord {
    pub scenario: String,
    pub params: String,
    pub mode: String,
    /// The run's seed: `round_order(seed, "SCENARIO/PARAMS", mode, round, n)` reproduces each
    /// round's order over the variants still being measured.
    pub seed: u64,
    /// One per warm-up (a second one follows a replaced device).
    pub warmups: Vec<Warmup>,
    /// Each round's order, as variant names.
    pub order: Vec<Vec<String>>,
    /// What each round after the first made anew (`fresh`), and how often the case's
    /// resources were moved to new memory.
    pub fresh: String,
    pub relocations: u32,
    /// Wall time moving the resources, ms.
    pub relocate_ms: f64,
    /// The placement check's order, as variant names (empty without one).
    pub placement_order: Vec<String>,
    /// Every placement the rounds ran in, the first (where the resources were when the mode
    /// began) included; the placement check's is the second.
    pub placements: Vec<PlacementRecord>,
    /// Wall time of the rounds in placements after the first (moving the resources
    /// included), ms: what measuring over placements cost this case.
    pub placements_ms: f64,
    /// Cold mode: the bytes read or written to evict the L2 before each repetition (the
    /// case's `cold_bytes`, capped by `cold_evict_cap`); null in warm mode.
    pub evict_bytes: Option<u64>,
}

/// One placement of a case's resources (issue 27): how it was made and where they sat.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct PlacementRecord {
    pub index: u32,
    /// The resources in the order they were allocated.
    pub order: Vec<String>,
    /// Bytes of padding allocated before each of them, in that order.
    pub pad_bytes: Vec<u64>,
    /// Each in memory of its own from the driver (not a shared block).
    pub dedicated: bool,
    /// Bytes of earlier placements' memory still held when this one was made (so the driver
    /// could not give it back to this one).
    pub held_bytes: u64,
    /// Where each sat: `VkDeviceMemory` handle value, offset, size, dedicated.
    pub resources: Vec<crate::vk::resources::PlacedResource>,
    /// The rounds that ran here (the placement check's included).
    pub rounds: Vec<u32>,
    /// The order of each round after the placement check, as variant names.
    pub orders: Vec<Vec<String>>,
}

/// Where one params case's wall time went, in ms.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct CaseTimeline {
    pub scenario: String,
    pub params: String,
    /// Host time making the inputs and the CPU reference (on a worker thread, while the
    /// previous case ran), and how long the runner then still waited for them.
    pub inputs_ms: f64,
    pub inputs_wait_ms: f64,
    /// Resources made and uploaded.
    pub setup_ms: f64,
    /// Building, the check runs and the output checks of every variant.
    pub check_phase_ms: f64,
    /// Warm-ups and rounds of every mode.
    pub rounds_ms: f64,
    pub total_ms: f64,
}
