//! The CSV schema (docs/csv.md): the row types of results.csv, samples.csv and metrics.csv
//! and their headers. src/results/write.rs writes them.
use super::kinds::{
    Check, Fresh, Limiter, LimiterSource, MemoryLevel, Mode, Placement, RowStatus, StopReason,
};
use serde::{Deserialize, Serialize};

/// Bumped whenever a column is removed or changes meaning; new columns are only appended
/// (docs/csv.md, "Schema version policy").
pub const SCHEMA_VERSION: u32 = 2;

/// One row of results.csv: one variant of one params case.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(default)]
pub struct ResultRow {
    /// results.csv column 1: [`SCHEMA_VERSION`] when this p3lab wrote the row (docs/csv.md,
    /// "Schema version policy").
    pub schema_version: u32,
    /// `YYYYMMDDTHHMMSS.mmmZ-HOST-PID` of the run that wrote the row; kept by `--resume`.
    pub run_id: String,
    /// `[scenario].name`, or the scenario file's name without `.toml`.
    pub scenario: String,
    /// The variant's name after matrix expansion and templating.
    pub variant: String,
    /// `ok`, `unsupported`, `compile_error`, `check_failed` or `error`; the same for every mode
    /// of a variant (docs/csv.md, "Status values").
    pub status: RowStatus,
    /// Why the row is not `ok`; on `ok` rows empty or `; `-joined notes (a flagged trend, a
    /// placement effect, subgroup size not measured).
    pub reason: String,
    /// `VkPhysicalDeviceProperties::deviceName`.
    pub device_name: String,
    /// PCI vendor id, written in decimal (4318 = NVIDIA, 4098 = AMD, 32902 = Intel).
    pub vendor_id: u32,
    /// `discrete`, `integrated`, `virtual`, `cpu` or `other`.
    pub device_type: String,
    /// `VkPhysicalDeviceDriverProperties::driverName` (e.g. `llvmpipe`).
    pub driver_name: String,
    /// `VkPhysicalDeviceDriverProperties::driverInfo` (e.g. `Mesa 22.3.6 (LLVM 15.0.6)`).
    pub driver_info: String,
    /// The device's Vulkan version, `major.minor.patch`.
    pub api_version: String,
    /// The params case, `k=v;k=v` sorted by name.
    pub params: String,
    /// The variant's defines, `K=V;K=V`: matrix keys, then `defines` (docs/csv.md column 14).
    pub defines: String,
    /// Workgroup size of the first dispatch in x, invocations; `None` when the row failed
    /// before the size was known.
    pub workgroup_x: Option<u32>,
    /// Workgroup size of the first dispatch in y; `None` as for `workgroup_x`.
    pub workgroup_y: Option<u32>,
    /// Workgroup size of the first dispatch in z; `None` as for `workgroup_x`.
    pub workgroup_z: Option<u32>,
    /// default | full | N
    pub subgroup_size_requested: String,
    /// Measured in the shader by the p3lab probe (gl_SubgroupSize); empty when not measured.
    pub subgroup_size: Option<u32>,
    /// Passes (`[[dispatch]]` entries) per repetition.
    pub dispatches: u32,
    /// Compute-shader invocations counted by a pipeline statistics query over one repetition.
    pub invocations: Option<u64>,
    /// Σ over passes of grid × workgroup size; a count in `invocations` that differs makes
    /// the row `error`. `None` when the row failed before the grids were resolved.
    pub expected_invocations: Option<u64>,
    /// pass | fail | baseline (the variant others are compared with) | none | skipped;
    /// details in `check_detail`, and in `reason` for failures.
    pub check: Option<Check>,
    /// Timed repetitions of the kept rounds of this mode (`rounds` × `reps_per_batch`);
    /// `None` unless the row is `ok`.
    pub n: Option<usize>,
    /// Fastest timed repetition of the kept rounds, ns; `None` unless `ok`.
    pub min_ns: Option<f64>,
    /// The headline time, ns: the mean of the kept rounds' median repetition times (of the
    /// placements' means when `placements` > 1); `None` unless `ok`.
    pub median_ns: Option<f64>,
    /// Mean of the kept rounds' timed repetitions, pooled, ns; `None` unless `ok`.
    pub mean_ns: Option<f64>,
    /// Sample standard deviation (n − 1) of those repetitions, ns; 0 when n = 1.
    pub stddev_ns: Option<f64>,
    /// `stddev_ns` ÷ `mean_ns` × 100, in %.
    pub cv_pct: Option<f64>,
    /// 5th percentile of the kept repetitions (linear interpolation), ns.
    pub p5_ns: Option<f64>,
    /// 95th percentile of the kept repetitions, ns.
    pub p95_ns: Option<f64>,
    /// Lower end of the 95 % Student-t CI of `median_ns` over the kept round medians (or
    /// placement means), ns; at least ½ `timer_step_ns` below it.
    pub median_ci_low_ns: Option<f64>,
    /// Upper end of that CI, ns.
    pub median_ci_high_ns: Option<f64>,
    /// Declared bytes read + written per repetition.
    pub bytes: Option<u64>,
    /// Declared `[measure].flops` per repetition (FP32 FLOP); `None` when not declared.
    pub flops: Option<u64>,
    /// `bytes` ÷ `median_ns`, GB/s (10^9 bytes/s); `None` when either is empty.
    pub gbytes_per_s: Option<f64>,
    /// `flops` ÷ `median_ns`, GFLOP/s; `None` when either is empty.
    pub gflops_per_s: Option<f64>,
    /// Median absolute deviation of the kept repetitions from their own median (not from
    /// `median_ns`), ns, unscaled (not × 1.4826).
    pub mad_ns: Option<f64>,
    /// Slowest timed repetition of the kept rounds, ns.
    pub max_ns: Option<f64>,
    /// Declared `[measure].bytes_read` per repetition, bytes; `None` when not declared.
    pub bytes_read: Option<u64>,
    /// Declared `[measure].bytes_written` per repetition, bytes; `None` when not declared.
    pub bytes_written: Option<u64>,
    /// Each pass's grid in workgroups, `XxYxZ`, passes joined by `;`; empty when the row
    /// failed before the grids were resolved.
    pub grid: String,
    /// `VkPhysicalDeviceIDProperties::deviceUUID` as 32 hex digits.
    pub device_uuid: String,
    /// Raw `VkPhysicalDeviceProperties::driverVersion` (vendor-specific encoding).
    pub driver_version: u32,
    /// Per compared output, `vs baseline: …` / `vs reference: …` joined by ` | `; for
    /// `skipped` why; empty when no comparison was made.
    pub check_detail: String,
    /// The machine that ran it: with run_id and device_uuid, what merged files are keyed by.
    pub host: String,
    /// warm | cold (L2 evicted before each repetition).
    pub mode: Option<Mode>,
    /// From the driver's executable statistics (NVIDIA "Register Count", RADV "VGPRs").
    pub registers_per_thread: Option<u32>,
    /// Per-thread local memory the compiler spilled to (NVIDIA "Local Memory Size", decoded).
    pub spill_bytes_per_thread: Option<u32>,
    /// Shared memory per workgroup as the driver reports it.
    pub shared_bytes_per_group: Option<u32>,
    /// Theoretical resident workgroups per SM (NVIDIA) or CU (AMD), from registers, shared
    /// memory and workgroup size (src/occupancy/); empty where the vendor rule is unknown.
    pub occupancy_groups_per_unit: Option<u32>,
    /// Theoretical resident warps (NVIDIA) or waves (AMD) per SM / CU / WGP; `None` as for
    /// `occupancy_groups_per_unit`.
    pub occupancy_waves_per_unit: Option<u32>,
    /// `occupancy_waves_per_unit` ÷ the unit's maximum × 100, in %.
    pub occupancy_pct: Option<f64>,
    /// registers | shared_memory | threads | groups
    pub occupancy_limiter: String,
    /// Declared shared-memory traffic per repetition, and its rate.
    pub shared_bytes: Option<u64>,
    /// `shared_bytes` ÷ `median_ns`, GB/s; `None` when either is empty.
    pub shared_gbytes_per_s: Option<f64>,
    /// Declared work ÷ time ÷ this device's measured peak (`p3lab peak`), in %: DRAM (best of
    /// read, write, copy; empty when the traffic counts against the L2, see `memory_level`),
    /// FP32, shared memory. Empty without peaks or declared work.
    pub dram_pct: Option<f64>,
    /// `gflops_per_s` ÷ the `fp32` peak × 100, in %; `None` without peaks or declared flops.
    pub flop_pct: Option<f64>,
    /// `shared_gbytes_per_s` ÷ the `shared` peak × 100, in %.
    pub shared_pct: Option<f64>,
    /// Empty since schema 2: the highest %-of-peak is not a limiter; see `limiter`.
    pub top_unit: String,
    /// Measured by the per-subgroup probes (`--probe`), first pass: the most workgroups that
    /// ran at once on one SM (the whole device without SM ids), and the time-weighted mean.
    pub achieved_groups_per_unit: Option<u32>,
    /// Time-weighted mean of the resident workgroups over each SM's busy window, averaged
    /// over SMs (probes, first pass); `None` with probes off.
    pub achieved_groups_per_unit_mean: Option<f64>,
    /// Rounds whose medians the statistics are over (docs/csv.md, "How p3lab measures").
    pub rounds: Option<u32>,
    /// Rounds left out: leading rounds still warming up, and later transient rounds (slower
    /// than the median round by more than 10 % and 4 robust SDs; `reason` says how many).
    pub rounds_discarded: Option<u32>,
    /// Why the rounds stopped: `target`, `resolution`, `budget` or `max_rounds`.
    pub stop_reason: Option<StopReason>,
    /// Half-width of the median's 95 % CI in % of the median, and the target it was run to.
    pub ci_half_width_pct: Option<f64>,
    /// The CI half-width target the rounds ran to (`[measure].ci_target_pct` or
    /// `--ci-target`), in % of the median.
    pub ci_target_pct: Option<f64>,
    /// The per-variant time budget (wall time of its batches), in ms.
    pub budget_ms: Option<f64>,
    /// 95 % interval for the median of a re-run with as many rounds (prediction interval).
    pub rerun_low_ns: Option<f64>,
    /// Upper end of the re-run interval (`rerun_low_ns`), ns.
    pub rerun_high_ns: Option<f64>,
    /// Least-squares change of the kept round medians from the first round to the last, in %
    /// of their mean (`trend_p` is the slope's two-sided p-value).
    pub trend_pct: Option<f64>,
    /// Two-sided p-value of the round medians' slope (t-test, rounds − 2 degrees of freedom);
    /// `None` with fewer than 3 kept rounds.
    pub trend_p: Option<f64>,
    /// Timed and untimed repetitions in each batch (one submission per round).
    pub reps_per_batch: Option<u32>,
    /// Untimed repetitions at the start of each batch (`[measure].warmup`).
    pub untimed_per_batch: Option<u32>,
    /// Declared work per repetition for the units a P3 table needs beyond bytes and flops:
    /// texel fetches, global atomics, shared-memory atomics, int32 operations,
    /// transcendental (SFU) operations, L1/shared-cache bytes, and the unique bytes touched
    /// (`footprint_bytes`, default `bytes_read + bytes_written`; the L2-fit rule uses it).
    pub texels: Option<u64>,
    /// Declared global atomic operations per repetition (`[measure].atomics`).
    pub atomics: Option<u64>,
    /// Declared shared-memory atomic operations per repetition (`[measure].shared_atomics`).
    pub shared_atomics: Option<u64>,
    /// Declared int32 operations per repetition, a multiply-add counting 2
    /// (`[measure].int_ops`).
    pub int_ops: Option<u64>,
    /// Declared transcendental (SFU) operations per repetition (`[measure].sfu_ops`).
    pub sfu_ops: Option<u64>,
    /// Declared bytes served by the L1 per repetition (`[measure].l1_bytes`).
    pub l1_bytes: Option<u64>,
    /// Declared unique bytes touched per repetition (`[measure].footprint_bytes`); the L2-fit
    /// rule falls back to `bytes_read + bytes_written` when `None`.
    pub footprint_bytes: Option<u64>,
    /// Where the declared traffic was counted: `dram`, or `l2` when the footprint fits in the
    /// measured L2 capacity in warm mode (then `dram_pct` is empty and `l2_pct` is set).
    pub memory_level: Option<MemoryLevel>,
    /// %-of-peak of the further units (src/peaks/); empty without a peak or declared work.
    pub l2_pct: Option<f64>,
    /// Point or unfiltered (`texels`, against the `texture_unit` peak) plus bilinear
    /// (`texels_linear`, against `texture_bilinear`) fetches against their texture peaks, in %:
    /// the two time shares add, one texture path serves both.
    pub texture_pct: Option<f64>,
    /// `atomics` ÷ time ÷ the global atomic peak × 100, in %.
    pub atomic_pct: Option<f64>,
    /// `shared_atomics` against the shared-memory atomic peak, in %.
    pub shared_atomic_pct: Option<f64>,
    /// `int_ops` against the int32 peak, in %.
    pub int_pct: Option<f64>,
    /// `sfu_ops` against the SFU (exp2) peak, in %.
    pub sfu_pct: Option<f64>,
    /// `l1_bytes` against the L1 read peak, in %.
    pub l1_pct: Option<f64>,
    /// Workgroups per second ÷ the measured launch-rate peak.
    pub launch_pct: Option<f64>,
    /// What limits the variant (src/peaks/limiter.rs): a unit (`dram`, `l2`, `fp32`, ...) when
    /// its %-of-peak explains the time, else `latency`, `occupancy` or `none`.
    pub limiter: Option<Limiter>,
    /// The limiting unit's %-of-peak (empty for latency / occupancy / none).
    pub limiter_pct: Option<f64>,
    /// The evidence for `limiter`, in words.
    pub limiter_evidence: String,
    /// Derived numbers that are not physically possible, `;`-separated (a %-of-peak over
    /// 100, achieved occupancy above theoretical); empty when all hold.
    pub flags: String,
    /// Per-subgroup probes: the most warps/waves resident at once on one SM/CU, and the
    /// time-weighted mean; `probe_status` is `ok`, or `invalid: <why>`.
    pub achieved_waves_per_unit: Option<u32>,
    /// Time-weighted mean of the resident warps / waves over each SM's busy window, averaged
    /// over SMs; `None` with probes off.
    pub achieved_waves_per_unit_mean: Option<f64>,
    /// `ok`, `invalid: <why>` (an achieved count above the theoretical occupancy or the
    /// hardware's maximum) or `unchecked: <why>`; empty with probes off.
    pub probe_status: String,
    /// Subgroup size and active lanes at entry, sampled in every workgroup (min and max over
    /// all subgroups of the check run).
    pub subgroup_size_min: Option<u32>,
    /// Largest `gl_SubgroupSize` any subgroup ran with in the check run, lanes; `None` when
    /// the shader does not call `p3_probe_record()`.
    pub subgroup_size_max: Option<u32>,
    /// Fewest active lanes any subgroup had on entering `main`, lanes: below
    /// `subgroup_size` when a workgroup's size is not a multiple of it.
    pub active_lanes_min: Option<u32>,
    /// Cold mode: how the L2 was evicted before each repetition (`read`: a read-only sweep;
    /// `write`: a fill that leaves dirty lines).
    pub cold_evict: String,
    /// Declared bilinear texel fetches per repetition (`texels` counts point / unfiltered ones).
    pub texels_linear: Option<u64>,
    /// Workgroups one repetition launches (all dispatches), for `launch_pct`.
    pub workgroups: Option<u64>,
    /// Declared bytes requested from the L2 per repetition (`[measure].l2_bytes`).
    pub l2_bytes: Option<u64>,
    /// The timer's step seen in the raw timestamps of the kept rounds, ns: no interval is
    /// narrower than it allows (src/stats/inference.rs).
    pub timer_step_ns: Option<f64>,
    /// What every round after the first made anew (`[measure].fresh`): `none`, `resources`,
    /// `pipelines` or `all`.
    pub fresh: Option<Fresh>,
    /// The placement check's round against `median_ns`, in %: the time after the case's
    /// resources moved to new memory.
    pub placement_pct: Option<f64>,
    /// The placement check's verdict: `sensitive` (the time moved beyond the rounds' 99 %
    /// prediction interval and by at least 1 %, confirmed by a second round), `stable`, or
    /// empty (no check: `--no-placement-check`, `fresh = "resources"`, or a row without
    /// timings).
    pub placement: Option<Placement>,
    /// Where the `hw_*` columns come from: `cupti-pm-sampling` (NVIDIA), `vk-performance-query`
    /// (AMD/Intel/Qualcomm drivers), or empty with the reason in `hw_reason`.
    pub hw_source: String,
    /// Why the `hw_*` columns are empty (no CUPTI, no profiling privilege,
    /// `--no-hw-counters`, …), or in cold mode that the counted values include the L2
    /// eviction; empty when counters were counted and used.
    pub hw_reason: String,
    /// Counted busy percentages of the hardware's sustained peak, over the counter batch:
    /// SM (the busiest SM sub-unit), DRAM, L2, L1/texture (shared memory included), tensor pipe.
    pub hw_sm_pct: Option<f64>,
    /// Counted DRAM throughput, % of its sustained peak (`dram__throughput`).
    pub hw_dram_pct: Option<f64>,
    /// Counted L2 (LTS) throughput, % of its sustained peak (`lts__throughput`).
    pub hw_l2_pct: Option<f64>,
    /// Counted L1/texture throughput, shared memory included, % of its sustained peak.
    pub hw_l1tex_pct: Option<f64>,
    /// Counted tensor-pipe activity, % of peak
    /// (`sm__pipe_tensor_cycles_active_realtime`).
    pub hw_tensor_pct: Option<f64>,
    /// Counted DRAM bytes per repetition.
    pub hw_dram_read_bytes: Option<u64>,
    /// Counted DRAM bytes written per repetition.
    pub hw_dram_write_bytes: Option<u64>,
    /// The SM clock the counters saw during the batch.
    pub hw_sm_clock_mhz: Option<f64>,
    /// Samples (PM sampling) or replays (performance query) the values are over, and samples
    /// lost inside the window.
    pub hw_samples: Option<u32>,
    /// The limiter from the counted units alone (`+`-joined when several are busy), and its %.
    pub hw_limiter: Option<Limiter>,
    /// The busiest counted unit's %; `None` when `hw_limiter` is not a unit.
    pub hw_limiter_pct: Option<f64>,
    /// Samples missing inside the counter window (at least 1 after a CUPTI hardware-buffer
    /// overflow).
    pub hw_lost_samples: Option<u32>,
    /// `counted` when `limiter` comes from the hardware counters, `declared` when from the
    /// scenario's declared work and p3lab's peaks; empty without a limiter.
    pub limiter_source: Option<LimiterSource>,
    /// The declared work's verdict when the counted one is in `limiter` (its second opinion).
    pub declared_limiter: Option<Limiter>,
    /// The declared verdict's %-of-peak; `None` when it is not a unit or
    /// `declared_limiter` is empty.
    pub declared_limiter_pct: Option<f64>,
    /// Declared work per repetition of the units issue 26 added (`[measure]` keys of the same
    /// names): FP64 flops (an FMA counts 2), packed int8 dot-product operations (8 per dot of
    /// four bytes with its add), int16 and int64 operations (a multiply-add counts 2).
    pub fp64_flops: Option<u64>,
    /// Declared packed int8 dot-product operations per repetition, 8 per four-byte dot with
    /// its add (`[measure].int8_dot_ops`).
    pub int8_dot_ops: Option<u64>,
    /// Declared int16 operations per repetition, a multiply-add counting 2 per lane
    /// (`[measure].int16_ops`).
    pub int16_ops: Option<u64>,
    /// Declared int64 operations per repetition, a multiply-add counting 2
    /// (`[measure].int64_ops`).
    pub int64_ops: Option<u64>,
    /// Their %-of-peak against the fp64, int8_dot, int16 and int64 peaks.
    pub fp64_pct: Option<f64>,
    /// `int8_dot_ops` against the int8_dot peak, in %; `None` without that peak
    /// (no shaderIntegerDotProduct) or declared work.
    pub int8_dot_pct: Option<f64>,
    /// `int16_ops` against the int16 peak, in %; `None` without that peak (no shaderInt16)
    /// or declared work.
    pub int16_pct: Option<f64>,
    /// `int64_ops` against the int64 peak, in %; `None` without that peak (no shaderInt64)
    /// or declared work.
    pub int64_pct: Option<f64>,
    /// Placements of the case's resources the estimate is over (issue 27): 1 when all kept
    /// rounds ran where the case set them up, more where the placement check found the case
    /// sensitive (`placements = "auto"`) or the case asked for more.
    pub placements: Option<u32>,
    /// How much where the data sits moves this variant's time, as an SD in % of `median_ns`:
    /// with several placements the SD of their means; with one, the SD pooled over the case's
    /// variants from the placement check's round; empty without a placement check.
    pub placement_sd_pct: Option<f64>,
    /// Declared tensor-core (cooperative-matrix) operations per repetition, 2·M·N·K per
    /// multiply-add (`[measure].tensor_flops`), the tensor peak they count against
    /// (`[measure].tensor_unit`, e.g. `tensor_f16_f32`), and their %-of-peak (issue 26).
    pub tensor_flops: Option<u64>,
    /// The peaks.csv tensor unit `tensor_flops` counts against (`[measure].tensor_unit`,
    /// e.g. `tensor_f16_f32`); `None` when not declared.
    pub tensor_unit: Option<String>,
    /// `tensor_flops` against the `tensor_unit` peak, in %; `None` without that peak or
    /// declared work.
    pub tensor_pct: Option<f64>,
    /// Declared FP16 flops per repetition (`[measure].fp16_flops`, an FMA counts 2) and their
    /// %-of-peak against the FP16 peak (issue 26: FP16 work read against FP32's peak).
    pub fp16_flops: Option<u64>,
    /// `fp16_flops` against the FP16 peak, in % (`flop_pct` is FP32's).
    pub fp16_pct: Option<f64>,
    /// The SM clock the kept batches ended at, MHz: the median of the clock gauge's readings
    /// (measure/clock.rs). Empty where the device has no shader clocks or its real-time
    /// clock's tick is not documented (then `clock_pct` still says how the clock stood).
    pub clock_mhz: Option<f64>,
    /// That clock as a % of the run's reference clock so far (the 90th percentile of the
    /// gauge's readings; at most 100): below 97 the GPU ran this variant clocked down
    /// (`clock_low`) or at its own lower clock.
    pub clock_pct: Option<f64>,
    /// Tries of its batches timed again because the gauge read below 97 % of the run's
    /// reference clock (the GPU had clocked down when idle); they count in `budget_ms`, not in
    /// the statistics.
    pub clock_redone: Option<u32>,
    /// Kept rounds whose clock was still below 97 % of the highest reading: the tries ran
    /// out, or more work did not raise the clock (the kernel's own: run.json
    /// `clock_gauge.own_clock`).
    pub clock_low: Option<u32>,
    /// The peaks.csv texture unit `texels` count against (`[measure].texture_unit`, else
    /// `texture_point`), e.g. `texture_fetch_rgba16f`; `None` when no `texels` are declared
    /// (issue 26: texture peaks per format and fetch path).
    pub texture_unit: Option<String>,
    /// Counted FMA-pipe activity (FFMA, HFMA2 and IMAD issued to the fmaheavy and fmalite
    /// halves), % of its sustained peak (`sm__inst_executed_pipe_fma`; issue 39): the counter
    /// behind `flop_pct` and `fp16_pct`.
    pub hw_fma_pct: Option<f64>,
    /// Counted fmaheavy-pipe activity (IMAD, the integer multiply-adds, and half the FP32
    /// FMAs), % of its sustained peak: with `hw_alu_pct` the counter behind the int units.
    pub hw_fmaheavy_pct: Option<f64>,
    /// Counted ALU-pipe activity (integer add, logic, shifts, conversions), % of peak.
    pub hw_alu_pct: Option<f64>,
    /// Counted FP64-pipe activity, % of peak: the counter behind `fp64_pct`.
    pub hw_fp64_pct: Option<f64>,
    /// Counted XU-pipe activity (the special-function unit: exp2, rsqrt, …), % of peak: the
    /// counter behind `sfu_pct`.
    pub hw_xu_pct: Option<f64>,
    /// Counted shared-memory wavefronts of the L1TEX data pipe, % of their sustained peak
    /// (`l1tex__data_pipe_lsu_wavefronts_mem_shared`): the counter behind `shared_pct`, where
    /// a warp's broadcast read is one wavefront.
    pub hw_shared_pct: Option<f64>,
    /// Counted texture wavefronts of the L1TEX data pipe, % of their sustained peak
    /// (`l1tex__data_pipe_tex_wavefronts`): the counter behind `texture_pct`.
    pub hw_tex_pct: Option<f64>,
    /// The declared units whose %-of-peak came out over 100 (`+`-joined, e.g. `texture+dram`):
    /// the declaration counts work the hardware did not do at that level (L2 hits, broadcast
    /// reads, texel reuse). Their `*_pct` cells hold the counted figure of the unit where the
    /// row was counted, else stay empty; they are never the limiter (issue 39).
    pub declared_over_units: String,
    /// The largest of those declared percentages (over 100 by definition), kept for the
    /// cross-check; the flag names each one.
    pub declared_over_peak: Option<f64>,
}

/// One row of samples.csv: one timed dispatch.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct SampleRow {
    /// As results.csv's `run_id`.
    pub run_id: String,
    /// As results.csv's `scenario`.
    pub scenario: String,
    /// As results.csv's `variant`.
    pub variant: String,
    /// As results.csv's `params`.
    pub params: String,
    /// Running index from 0 over every timed repetition of the variant in this mode, in the
    /// order they ran (rounds left out included).
    pub repetition: u32,
    /// Pass index from 0, in `[[dispatch]]` order.
    pub dispatch: u32,
    /// This pass's time, ns: end − begin timestamp (ticks masked to `timestampValidBits`) ×
    /// `timestampPeriod`.
    pub gpu_ns: f64,
    /// `warm` or `cold`, as the results.csv row.
    pub mode: String,
    /// The whole repetition: first dispatch's start to last one's end (what results.csv's
    /// statistics are over); the same on every dispatch row of the repetition.
    pub repetition_ns: f64,
    /// The round this batch ran in (shared by every variant of the params case and mode).
    pub round: u32,
    /// The variant's slot in that round's shuffled order.
    pub round_position: u32,
    /// Index among the batch's timed repetitions (after its untimed ones).
    pub batch_repetition: u32,
    /// 1 when the round counts in results.csv's statistics; 0 for a leading warm-up round, a
    /// later transient round, and the placement check's rounds.
    pub kept: u8,
    /// What the round was: `kept`, `warmup` (a leading round left out), `transient` (a later
    /// round left out as a transient) or `placement` (the placement check's round, on the
    /// case's resources moved to new memory).
    pub phase: String,
    /// The placement of the case's resources the round ran in: 0 where the case set them up,
    /// 1 the placement check's, 2 and on the further placements (run.json
    /// `rounds[].placements`).
    pub placement: u32,
    /// The SM clock the batch ended at, MHz (the clock gauge: measure/clock.rs); empty where
    /// not measured or not in MHz (results.csv `clock_mhz`).
    pub clock_mhz: Option<f64>,
}

/// One row of metrics.csv: one named quantity, long format.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct MetricRow {
    /// As results.csv's `run_id`.
    pub run_id: String,
    /// As results.csv's `scenario`.
    pub scenario: String,
    /// As results.csv's `variant`.
    pub variant: String,
    /// As results.csv's `params`.
    pub params: String,
    /// Where the value comes from: `pipeline_statistics`, `executable_statistic`,
    /// `normalized`, `probe`, `runner`, `perf_counter`, … (docs/csv.md, metrics.csv).
    pub source: String,
    /// What the value is, within its `source` (`PASS/`-prefixed for a multi-pass variant's
    /// per-pass figures).
    pub name: String,
    /// The number, in `unit`.
    pub value: f64,
    /// The value's unit (`bytes`, `ns`, `%`, `registers`, …; empty where the driver gives
    /// none).
    pub unit: String,
    /// `warm` or `cold` for metrics of one measurement mode (the runner's round figures, the
    /// hardware counters); empty for metrics that hold for every mode.
    pub mode: String,
}

impl MetricRow {
    /// Marks the metric as one of a single measurement mode (`warm` / `cold`): sets `mode`.
    pub fn with_mode(mut self, mode: &str) -> Self {
        self.mode = mode.into();
        self
    }
}

/// Column names of a row type, from its serde field names.
pub fn header<T: Serialize + Default>() -> Vec<String> {
    // Serializing a default row through a CSV writer with headers yields exactly the header line.
    let mut w = csv::WriterBuilder::new()
        .has_headers(true)
        .from_writer(vec![]);
    w.serialize(T::default()).expect("default row serializes");
    let bytes = w.into_inner().expect("in-memory writer");
    let mut r = csv::ReaderBuilder::new()
        .has_headers(false)
        .from_reader(&bytes[..]);
    let first = r.records().next().expect("header").expect("header parses");
    first.iter().map(String::from).collect()
}

impl Default for SampleRow {
    fn default() -> Self {
        SampleRow {
            run_id: String::new(),
            scenario: String::new(),
            variant: String::new(),
            params: String::new(),
            repetition: 0,
            dispatch: 0,
            gpu_ns: 0.0,
            mode: String::new(),
            repetition_ns: 0.0,
            round: 0,
            round_position: 0,
            batch_repetition: 0,
            kept: 1,
            phase: "kept".into(),
            placement: 0,
            clock_mhz: None,
        }
    }
}

impl Default for MetricRow {
    fn default() -> Self {
        MetricRow {
            run_id: String::new(),
            scenario: String::new(),
            variant: String::new(),
            params: String::new(),
            source: String::new(),
            name: String::new(),
            value: 0.0,
            unit: String::new(),
            mode: String::new(),
        }
    }
}

#[cfg(test)]
#[path = "row_tests.rs"]
mod tests;
