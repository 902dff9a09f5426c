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
    /// The variant's scenario name, as results.csv's `scenario`.
    pub scenario: String,
    /// The variant's name, as results.csv's `variant`.
    pub variant: String,
    /// The params case label, as results.csv's `params`.
    pub params: String,
    /// Compiling (or fetching from the SPIR-V cache) and reflecting every pass's shader.
    pub compile_ns: u64,
    /// Creating the variant's timed compute pipelines, on the worker thread that made them
    /// while the variants before it were checked (the check phase waits for them only where
    /// they were not ready).
    pub pipeline_ns: u64,
    /// Resetting the case's outputs and probe buffers before the check run.
    pub reset_ns: u64,
    /// The check run: one repetition, submitted and waited for.
    pub check_run_ns: u64,
    /// Reading the check run's outputs back to the host.
    pub readback_ns: u64,
    /// Output comparison on the host.
    pub check_ns: u64,
    /// Wall time of all its batches, rounds left out and the placement check included.
    pub timed_submit_ns: u64,
    /// Making the pipelines anew before rounds (`fresh`).
    pub remake_ns: u64,
    /// Sum of the timed dispatches as the GPU measured them.
    pub gpu_timed_ns: f64,
    /// Hardware-counter capture (one replay per counter pass).
    pub counters_ns: u64,
    /// Building, the check run and counters, summed over modes; the timed batches are not
    /// included (they are `timed_submit_ns`).
    pub total_ns: u64,
    /// The variant's spec constants unused by the compiled code (carried to
    /// [`RunJson::unused_spec_constants`], not written here).
    #[serde(skip)]
    pub unused_spec_constants: Vec<u32>,
}

/// A variant's spec constants that its source declares but its compiled code does not use
/// (the optimizer removed them): accepted, and their values change nothing.
#[derive(Debug, Clone, Default, Serialize)]
pub struct UnusedSpec {
    /// The variant's scenario name, as results.csv's `scenario`.
    pub scenario: String,
    /// The variant's name, as results.csv's `variant`.
    pub variant: String,
    /// The params case label, as results.csv's `params`.
    pub params: String,
    /// The SpecIds, ascending.
    pub spec_ids: Vec<u32>,
}

/// One row of run.json's `cost_table`: a part of the run, its wall time, and the parts
/// measured inside it.
#[derive(Debug, Clone, Default, Serialize)]
pub struct CostPart {
    /// What the time went to.
    pub part: String,
    /// Its wall time, ms.
    pub ms: f64,
    /// The parts measured inside it (their sum is at most `ms`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub of: Vec<CostPart>,
}

/// The arguments `p3lab run --resume` needs to carry on where a run stopped.
#[derive(Debug, Clone, Default, PartialEq, Serialize, serde::Deserialize)]
pub struct RecordedArgs {
    /// The scenario files as given on the command line (folders not yet expanded).
    pub scenarios: Vec<String>,
    /// `--set KEY=VALUE` overrides, in the order given.
    pub set: Vec<String>,
    /// `--filter` patterns that chose the variants.
    pub filter: Vec<String>,
    /// `--profile NAME`, as given (`auto` not resolved); `None` when not given.
    pub profile: Option<String>,
    /// `--device`, as given; `None` when not given (the default device).
    pub device: Option<String>,
    /// `--counters` globs; empty when not given (absent in older run.json files).
    #[serde(default)]
    pub counters: Vec<String>,
    /// `--probe`, `--dump-ir`, `--dump-outputs`, `--keep-going`, `--strict`: a resumed run
    /// keeps them.
    #[serde(default)]
    pub probe: bool,
    /// `--dump-ir` was given.
    #[serde(default)]
    pub dump_ir: bool,
    /// `--dump-outputs` was given.
    #[serde(default)]
    pub dump_outputs: bool,
    /// `--keep-going` was given.
    #[serde(default)]
    pub keep_going: bool,
    /// `--strict` was given.
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
    /// `--reps`: timed repetitions per batch before short dispatches raise it.
    pub reps: Option<u32>,
    /// `--warmup`: untimed repetitions at the start of each batch.
    pub warmup: Option<u32>,
    /// `--warmup-ms`: bound on the warm-up before the first round, ms (0: no warm-up).
    pub warmup_ms: Option<u64>,
    /// `--rounds`: kept rounds needed before a variant may stop.
    pub rounds: Option<u32>,
    /// `--max-rounds`: kept rounds at which a variant stops whatever its CI.
    pub max_rounds: Option<u32>,
    /// `--ci-target`: the CI half-width to stop at, in % of the median.
    pub ci_target: Option<f64>,
    /// `--budget-ms`: wall time of a variant's batches per mode after which it stops, ms.
    pub budget_ms: Option<f64>,
    /// `--seed`: seed of the rounds' shuffled orders and the placements' recipes.
    pub seed: Option<u64>,
    /// `--evict`: how cold mode evicts the L2 (`read` or `write`).
    pub evict: Option<crate::scenario::Evict>,
    /// `--fresh`: what every round after the first makes anew.
    pub fresh: Option<crate::scenario::Fresh>,
    /// `--no-placement-check` was given (false when not: the flag has no "not given").
    pub no_placement_check: bool,
    /// `--placements`, when given.
    #[serde(default)]
    pub placements: Option<crate::scenario::Placements>,
}

/// run.json: written with `complete: false` when the run starts and rewritten at the end
/// (docs/csv.md, "run.json").
#[derive(Debug, Clone, Default, Serialize)]
pub struct RunJson {
    /// The CSVs' schema version ([`crate::results::row::SCHEMA_VERSION`]).
    pub schema_version: u32,
    /// The crate version of the p3lab binary that wrote it.
    pub p3lab_version: String,
    /// The commit the binary was built from (`-dirty` appended when tracked files had
    /// changes); `None` when it was not known at build time.
    pub git_revision: Option<String>,
    /// SHA-256 (16 hex digits) of the files built into the binary (src/assets.rs): the
    /// calibration scenarios and the common GLSL includes.
    pub assets_hash: String,
    /// As the CSVs' `run_id`.
    pub run_id: String,
    /// The argv of the process that started the run, unchanged; a resumed run keeps it
    /// (issue 41: `--resume` had replaced it with `p3lab run --resume --out DIR`).
    pub command_line: Vec<String>,
    /// The argv of each `--resume` that continued the run, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub resume_command_lines: Vec<Vec<String>>,
    /// Start time, RFC 3339 UTC; a resumed run keeps the first run's.
    pub started_utc: String,
    /// End time, RFC 3339 UTC; `None` (null) until the run ends or is interrupted.
    pub finished_utc: Option<String>,
    /// Every scenario ran; false in the copy written at the start.
    pub complete: bool,
    /// Stopped by Ctrl-C / SIGTERM after the batch in progress.
    pub interrupted: bool,
    /// How often the device was recreated after a variant hung or lost it.
    pub device_recreated: u32,
    /// How many times this folder was continued with `--resume`.
    pub resumed: u32,
    /// What `--resume` restores when given no scenario files.
    pub args: RecordedArgs,
    /// Host name ([`hostname`]: `$P3LAB_HOST`, else the kernel's).
    pub host: String,
    /// Everything p3lab read about the device (docs/csv.md lists the keys); `p3lab run`
    /// always sets it.
    pub device: Option<DeviceInfo>,
    /// The theoretical-occupancy rules chosen for the device (src/occupancy); absent where
    /// none is known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub occupancy_rules: Option<OccupancyRules>,
    /// The extensions and features p3lab enabled on the device; `p3lab run` always sets it.
    pub enabled: Option<Enabled>,
    /// `--validate` was given (Vulkan validation layer on).
    pub validation: bool,
    /// Errors the validation layer reported during the run.
    pub validation_errors: u64,
    /// Identifies the shader compiler build (shaderc, SPIR-V version); part of every
    /// SPIR-V cache key.
    pub compiler: String,
    /// Shader compiles, SPIR-V cache hits, compile time and errors of the run.
    pub compile_cache: CacheStats,
    /// The SPIR-V cache folder; `None` with `--no-cache`.
    pub cache_dir: Option<String>,
    /// Scenario files, folders expanded to their `*.toml` files.
    pub scenarios: Vec<String>,
    /// The peaks.csv behind the %-of-peak columns, if any.
    pub peaks_file: Option<String>,
    /// The [profiles.NAME] applied (`--profile`; `auto` resolved), if any.
    pub profile: Option<String>,
    /// results.csv rows per status (one per mode row), e.g. `{"ok": 16}`; a resumed run adds
    /// to the counts it found.
    pub rows: std::collections::BTreeMap<String, u64>,
    /// Case set-up (resource creation and upload), per scenario and params case.
    pub setup_ns: Vec<(String, String, u64)>,
    /// p3lab's own wall time per variant; a case whose set-up failed has no entry, and a
    /// resumed run lists only what it ran itself.
    pub costs: Vec<VariantCost>,
    /// Per variant that sets any: the spec constants unused by the compiled code.
    pub unused_spec_constants: Vec<UnusedSpec>,
    /// The seed of the rounds' shuffles (`--seed`).
    pub seed: u64,
    /// Per params case and mode: the warm-ups and each round's order.
    pub rounds: Vec<RoundsRecord>,
    /// Per params case: where its wall time went.
    pub cases: Vec<CaseTimeline>,
    /// Wall time of the warm-ups, and its share of the run's wall time.
    pub warmup_wall_ns: u64,
    /// `warmup_wall_ns` ÷ `wall_ns`; `None` (null) in the copy written at the start.
    pub warmup_share: Option<f64>,
    /// Share of wall time spent in GPU submissions (warm-up and timed repetitions).
    pub gpu_submit_share: Option<f64>,
    /// Wall time of the whole run, ns.
    pub wall_ns: u64,
    /// Where the wall time went (issue 42): the run's phases, measured, each with the parts
    /// measured inside it; the last top-level row is what no phase measured.
    pub cost_table: Vec<CostPart>,
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
    /// The clock gauge after every timed batch (measure/clock.rs, issue 27): the SM clock each
    /// batch ended at, and the batches timed again because the GPU had clocked down.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock_gauge: Option<ClockGaugeRecord>,
    /// The GPU's timestamp counter against the host's CLOCK_MONOTONIC over the run
    /// (VK_EXT_calibrated_timestamps at its start and end): whether a GPU nanosecond is a
    /// host one. Absent where the device cannot correlate the two.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timestamp_rate: Option<TimestampRate>,
}

/// run.json's `timestamp_rate`: the device's timestamps (ticks × `timestampPeriod`) against
/// CLOCK_MONOTONIC between two calibrated readings, at the run's start and end.
#[derive(Debug, Clone, Default, Serialize)]
pub struct TimestampRate {
    /// CLOCK_MONOTONIC between the two readings, ns.
    pub host_ns: f64,
    /// The device's timestamps between them, ns (ticks × `timestampPeriod`).
    pub device_ns: f64,
    /// (device ÷ host − 1) × 10⁶: positive where the GPU's timestamps run fast, so that every
    /// GPU time reads that many ppm long.
    pub ppm: f64,
    /// The uncertainty of `ppm` from the driver's maximum deviation of each reading.
    pub ppm_bound: f64,
}

impl TimestampRate {
    /// From the two readings' spans (`ClockMap::span_since`) and the driver's maximum
    /// deviation of each, ns; None over under 10 ms of host time.
    pub fn of(device_ns: f64, host_ns: f64, deviation_ns: [u64; 2]) -> Option<TimestampRate> {
        if host_ns.is_nan() || host_ns < 1e7 || !device_ns.is_finite() {
            return None;
        }
        Some(TimestampRate {
            host_ns,
            device_ns,
            ppm: (device_ns / host_ns - 1.0) * 1e6,
            ppm_bound: (deviation_ns[0] + deviation_ns[1]) as f64 / host_ns * 1e6,
        })
    }
}

/// run.json's `clock_gauge`: what the clock gauge saw over the run.
#[derive(Debug, Clone, Default, Serialize)]
pub struct ClockGaugeRecord {
    /// Whether the batches were gauged.
    pub gauged: bool,
    /// Why not, where not (the device lacks the shader clocks, or the gauge could not be
    /// built); empty where gauged.
    pub reason: String,
    /// Nanoseconds per tick of the device's real-time clock where documented (NVIDIA: 1), so
    /// that readings are MHz; None elsewhere (readings are then relative only).
    pub ns_per_tick: Option<f64>,
    /// The run's highest reading, SM cycles per real-time tick (one reading can be off: the
    /// reference is not the highest but `reference`).
    pub highest: Option<f64>,
    /// `highest` in MHz, where `ns_per_tick` is known.
    pub highest_mhz: Option<f64>,
    /// The reference of the clock rule and of `clock_pct`: the 90th percentile of the readings
    /// so far (none before the 16th), SM cycles per real-time tick.
    pub reference: Option<f64>,
    /// `reference` in MHz, where `ns_per_tick` is known.
    pub reference_mhz: Option<f64>,
    /// Every reading so far, for the reference (not written).
    #[serde(skip)]
    pub readings: Vec<f64>,
    /// Timed batches gauged, tries timed again included.
    pub batches: u64,
    /// Tries timed again because their gauge read below 97 % of the reference.
    pub redone: u64,
    /// Wall time of the tries timed again, ms (the price of the rule).
    pub redone_ms: f64,
    /// Batches kept although their clock was still low: after the tries ran out, or because
    /// more work did not raise the clock (the kernel's own clock).
    pub kept_low: u64,
    /// The variants whose lower clock more work did not raise, as `variant (its clock in % of
    /// the reference)`:
    /// their clock is their own (a power-limited kernel's), not an idle GPU's.
    pub own_clock: Vec<String>,
}

/// run.json's `cold_evict_cap`: at most `bytes` per cold-mode eviction, and why.
#[derive(Debug, Clone, Default, Serialize)]
pub struct ColdEvictCap {
    /// The cap on one cold-mode eviction, bytes.
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
    /// The chip name CUPTI reported (NVIDIA); empty for other backends.
    pub chip: String,
    /// CUDA's index of the device (CUPTI); `None` for other backends.
    pub device_index: Option<usize>,
    /// The metrics of each pass (one config each).
    pub passes: Vec<Vec<String>>,
    /// Metrics asked for (`--counters`) that could not be used, with why.
    pub refused: Vec<String>,
    /// PM-sampling interval, ns (`--hw-interval-us`).
    pub interval_ns: u64,
    /// Counter batches run, samples used, samples lost.
    pub batches: u64,
    /// Samples the run's counted values are over, all batches together.
    pub samples: u64,
    /// Samples missing inside the batches' windows, all batches together.
    pub lost_samples: u64,
    /// The highest SM clock counted in this run (MHz): the reference for the clock check (rows counted more than CLOCK_DROP_PCT below it keep the declared limiter).
    pub max_sm_clock_mhz: Option<f64>,
    /// Rows whose clock was below it by more than CLOCK_DROP_PCT when counted (their limiter
    /// stays the declared one: the GPU had clocked down while counting).
    pub throttled_rows: u64,
    /// Wall time of the counter batches, ms, and where it went: CUPTI's start and stop, the
    /// batches themselves, decoding, and reading the samples' times and evaluating them.
    pub wall_ms: f64,
    /// Of `wall_ms`: CUPTI's start and stop, once per batch.
    pub start_stop_ms: f64,
    /// Of `wall_ms`: the counter batches themselves.
    pub batches_ms: f64,
    /// Of `wall_ms`: decoding the counter data.
    pub decode_ms: f64,
    /// Of `wall_ms`: reading the samples' times and evaluating the chosen samples.
    pub evaluate_ms: f64,
    /// Of `wall_ms`: making and emptying CUPTI's counter data images.
    #[serde(default)]
    pub image_ms: f64,
    /// Of `wall_ms`: submitting the clock keepers after each batch and before a batch counted
    /// again (host time; the GPU time they take shows in the next batch's).
    #[serde(default)]
    pub keeper_ms: f64,
    /// Batches counted again after the keeper, their first batch having run clocked down.
    #[serde(default)]
    pub redone_batches: u64,
    /// CUPTI's counter data images: `grow` (made anew only larger) or `fit` (also smaller,
    /// `P3LAB_CUPTI_IMAGE=fit`); empty for other backends.
    #[serde(default)]
    pub image_sizing: String,
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
    /// The device has `VK_KHR_performance_query` with `performanceCounterQueryPools`.
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
    /// Wall time of the whole warm-up, ms.
    pub wall_ms: f64,
    /// Cycles run (one batch per variant each); 0 when the warm-up did not run.
    pub cycles: u32,
    /// Two cycles in a row agreed within 2 %.
    pub converged: bool,
}

/// The rounds of one params case and mode, as run.json records them.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct RoundsRecord {
    /// The case's scenario name.
    pub scenario: String,
    /// The case's params label, as results.csv's `params`.
    pub params: String,
    /// `warm` or `cold`.
    pub mode: String,
    /// The run's seed: `round_order(seed, "SCENARIO/PARAMS", mode, round, n)` reproduces each
    /// round's order over the variants still being measured.
    pub seed: u64,
    /// One per warm-up before the first round (a second one follows a failed batch).
    pub warmups: Vec<Warmup>,
    /// Each round's order, as variant names.
    pub order: Vec<Vec<String>>,
    /// What each round after the first made anew (`fresh`), and how often the case's
    /// resources were moved to new memory.
    pub fresh: String,
    /// How often the case's resources moved to new memory: once for the placement check,
    /// once per round after the first with `fresh = "resources"`.
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
    /// 0 for the case's set-up, 1 for the placement check's, 2 and on for further ones
    /// (samples.csv `placement`).
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
    /// The case's scenario name.
    pub scenario: String,
    /// The case's params label.
    pub params: String,
    /// Host time making the inputs and the CPU reference (on a worker thread, while the
    /// previous case ran), and how long the runner then still waited for them.
    pub inputs_ms: f64,
    /// How long the case still waited for its inputs once its turn came, ms.
    pub inputs_wait_ms: f64,
    /// Resources made and uploaded.
    pub setup_ms: f64,
    /// Building, the check runs and the output checks of every variant.
    pub check_phase_ms: f64,
    /// Warm-ups and rounds of every mode.
    pub rounds_ms: f64,
    /// The case's whole wall time, ms.
    pub total_ms: f64,
}

#[cfg(test)]
mod timestamp_rate_tests {
    use super::TimestampRate;

    #[test]
    fn ppm_is_device_over_host_and_short_spans_give_none() {
        // A GPU whose timestamps run 0.5 % fast over 10 s: every time reads 5000 ppm long.
        let r = TimestampRate::of(10.05e9, 10e9, [1000, 3000]).unwrap();
        assert!((r.ppm - 5000.0).abs() < 1e-6, "{r:?}");
        assert!((r.ppm_bound - 0.4).abs() < 1e-9, "{r:?}");
        assert!(
            TimestampRate::of(1e6, 1e6, [0, 0]).is_none(),
            "1 ms says nothing"
        );
        assert!(TimestampRate::of(f64::NAN, 1e9, [0, 0]).is_none());
    }
}
