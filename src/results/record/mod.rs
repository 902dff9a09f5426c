//! A variant's measurement as typed parts, one per measure step, and the edge that flattens
//! them into results.csv rows (criterion's `Estimate`/`CsvRow` split: typed inside, CSV only
//! here).
//!
//! Each step of src/measure/ returns its own part: [`BuildFacts`] (build.rs: the pipelines
//! and the driver's statistics), [`CheckRunFacts`] (verify.rs: invocations, the subgroup size
//! that ran, occupancy, the probes' [`ProbeOutcome`]), [`CheckOutcome`] (the output check),
//! and per measurement mode a [`ModeRecord`]: [`Timing`] (row.rs, over the rounds),
//! [`ClockFacts`] (clock.rs), [`Counted`] (hw/: the hardware counters) and the P3
//! [`Verdict`] (peaks/limiter: %-of-peak per unit, where the traffic was served, the limiter
//! and the flags). The runner gathers them in one [`VariantRecord`]; [`VariantRecord::rows`]
//! ([`rows`]) is the one place they become [`ResultRow`]s, through its column mappers (each
//! takes a row by value and returns it with its part's columns). Nothing outside
//! src/results/ writes into a row.
//!
//! The record also keeps when the work ran, as measured ([`timeline`]): each timed batch with
//! its repetitions' GPU start and end on the host's clock ([`TimedBatch`], [`RepSpan`]), and
//! each counter batch with its samples before they are averaged ([`CounterBatch`]). No column
//! is made from them; an output that draws time (the trace, src/sink/trace.rs) reads them.
use super::kinds::{Check, Limiter, LimiterSource, MemoryLevel, Mode, Placement, RowStatus};
use super::kinds::{Fresh, StopReason};
use super::row::ResultRow;
use crate::scenario::Work;

mod rows;
pub use rows::{with_clock, with_counted, with_timing, with_verdict};
pub mod timeline;
pub use timeline::{BatchKind, CounterBatch, CounterReading, CounterSample, RepSpan, TimedBatch};

/// Who and what a row is about: the columns that do not depend on running it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Identity {
    /// The run's id (`run_id`).
    pub run_id: String,
    /// The machine (`host`).
    pub host: String,
    /// The scenario's name (`scenario`).
    pub scenario: String,
    /// The variant's name (`variant`).
    pub variant: String,
    /// The params case's label (`params`).
    pub params: String,
    /// The variant's defines, `K=V;K=V` (`defines`).
    pub defines: String,
    /// The subgroup size asked for, `default | full | N` (`subgroup_size_requested`).
    pub subgroup_size_requested: String,
    /// Passes per repetition (`dispatches`).
    pub dispatches: u32,
    /// `deviceName`.
    pub device_name: String,
    /// PCI vendor id.
    pub vendor_id: u32,
    /// `discrete`, `integrated`, `virtual`, `cpu` or `other`.
    pub device_type: String,
    /// `driverName`.
    pub driver_name: String,
    /// `driverInfo`.
    pub driver_info: String,
    /// The device's Vulkan version.
    pub api_version: String,
    /// `deviceUUID` as 32 hex digits.
    pub device_uuid: String,
    /// Raw `driverVersion`.
    pub driver_version: u32,
}

/// Step 4 (measure/build.rs): what making the variant's pipelines settled. Set as far as the
/// build got: a failed build keeps what it knew (the declared workgroup size, say).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BuildFacts {
    /// The first pass's workgroup size (x, y, z).
    pub workgroup: Option<[u32; 3]>,
    /// Each pass's grid, `XxYxZ` joined by `;`.
    pub grid: String,
    /// Workgroups one repetition launches, all passes.
    pub workgroups: Option<u64>,
    /// Σ over passes of grid × workgroup size.
    pub expected_invocations: Option<u64>,
    /// The driver's registers per thread.
    pub registers_per_thread: Option<u32>,
    /// The driver's spilled bytes per thread.
    pub spill_bytes_per_thread: Option<u32>,
    /// The driver's shared memory per workgroup.
    pub shared_bytes_per_group: Option<u32>,
}

/// The theoretical occupancy of the first pass (src/occupancy/).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct OccupancyFacts {
    /// Resident workgroups per SM / CU.
    pub groups_per_unit: u32,
    /// Resident warps / waves per SM / CU.
    pub waves_per_unit: u32,
    /// `waves_per_unit` of the unit's maximum, %.
    pub occupancy_pct: f64,
    /// What binds: registers, shared_memory, threads or groups.
    pub limiter: String,
}

/// The per-subgroup probes' verdict on the first pass (measure/probes.rs, `--probe`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ProbeOutcome {
    /// The most workgroups at once on one SM.
    pub achieved_groups_per_unit: Option<u32>,
    /// Their time-weighted mean.
    pub achieved_groups_per_unit_mean: Option<f64>,
    /// The most warps / waves at once on one SM.
    pub achieved_waves_per_unit: Option<u32>,
    /// Their time-weighted mean.
    pub achieved_waves_per_unit_mean: Option<f64>,
    /// `ok`, `invalid: …` or `unchecked: …`; empty with probes off.
    pub status: String,
    /// Achieved counts that cannot be true, in the order found.
    pub flags: Vec<String>,
}

/// Step 5 (measure/verify.rs): what the untimed check run proved. Set as far as it got.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CheckRunFacts {
    /// Compute invocations the pipeline statistics counted.
    pub invocations: Option<u64>,
    /// The one subgroup size every subgroup ran with.
    pub subgroup_size: Option<u32>,
    /// The smallest subgroup size seen.
    pub subgroup_size_min: Option<u32>,
    /// The largest subgroup size seen.
    pub subgroup_size_max: Option<u32>,
    /// The fewest active lanes at entry.
    pub active_lanes_min: Option<u32>,
    /// Why the subgroup size is not one number (not measured, or it varied); empty when it is.
    pub note: String,
    /// The theoretical occupancy, where the vendor's rule is known.
    pub occupancy: Option<OccupancyFacts>,
    /// The probes' verdict.
    pub probe: ProbeOutcome,
}

/// The output check's verdict (measure/verify.rs `judge`).
#[derive(Debug, Clone, PartialEq)]
pub struct CheckOutcome {
    /// pass, fail, baseline, none or skipped.
    pub check: Check,
    /// What differed, or why the check was skipped.
    pub detail: String,
}

impl Default for CheckOutcome {
    fn default() -> Self {
        CheckOutcome {
            check: Check::None,
            detail: String::new(),
        }
    }
}

/// Statistics over a mode's rounds (measure/row.rs `timing`): the columns docs/csv.md
/// describes under the same names, and the notes the rounds add to `reason`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Timing {
    /// The CI target the rounds ran to, %.
    pub ci_target_pct: f64,
    /// The per-variant budget, ms.
    pub budget_ms: f64,
    /// Untimed repetitions per batch.
    pub untimed_per_batch: u32,
    /// Repetitions per batch.
    pub reps_per_batch: u32,
    /// Rounds left out (warm-up and transients).
    pub rounds_discarded: u32,
    /// Why the rounds stopped.
    pub stop_reason: Option<StopReason>,
    /// Kept rounds.
    pub rounds: u32,
    /// The timer's step, ns; `None` where none was seen.
    pub timer_step_ns: Option<f64>,
    /// What each round made anew.
    pub fresh: Fresh,
    /// Placements the estimate is over.
    pub placements: u32,
    /// Kept repetitions; the descriptive statistics below are `None` without them.
    pub n: Option<usize>,
    /// Fastest repetition, ns.
    pub min_ns: Option<f64>,
    /// Slowest repetition, ns.
    pub max_ns: Option<f64>,
    /// Mean repetition, ns.
    pub mean_ns: Option<f64>,
    /// SD of the repetitions, ns.
    pub stddev_ns: Option<f64>,
    /// `stddev_ns / mean_ns`, %.
    pub cv_pct: Option<f64>,
    /// 5th percentile, ns.
    pub p5_ns: Option<f64>,
    /// 95th percentile, ns.
    pub p95_ns: Option<f64>,
    /// Median absolute deviation, ns.
    pub mad_ns: Option<f64>,
    /// The headline time, ns.
    pub median_ns: Option<f64>,
    /// Its CI's lower end, ns.
    pub median_ci_low_ns: Option<f64>,
    /// Its CI's upper end, ns.
    pub median_ci_high_ns: Option<f64>,
    /// A re-run's interval, lower end, ns.
    pub rerun_low_ns: Option<f64>,
    /// A re-run's interval, upper end, ns.
    pub rerun_high_ns: Option<f64>,
    /// How much the placement moves the time, SD in %.
    pub placement_sd_pct: Option<f64>,
    /// The CI's half-width, % of the median.
    pub ci_half_width_pct: Option<f64>,
    /// The round medians' drift, %.
    pub trend_pct: Option<f64>,
    /// Its p-value.
    pub trend_p: Option<f64>,
    /// The placement check's time against the median, %.
    pub placement_pct: Option<f64>,
    /// The placement check's verdict.
    pub placement: Option<Placement>,
    /// Declared bytes over the median, GB/s.
    pub gbytes_per_s: Option<f64>,
    /// Declared flops over the median, GFLOP/s.
    pub gflops_per_s: Option<f64>,
    /// Declared shared bytes over the median, GB/s.
    pub shared_gbytes_per_s: Option<f64>,
    /// Transients, drift and placement effects, in words, in the order found.
    pub notes: Vec<String>,
}

/// The SM clock of a mode's kept batches (measure/clock.rs `facts`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ClockFacts {
    /// The median reading in MHz, where the tick is known.
    pub clock_mhz: Option<f64>,
    /// That reading against the run's reference, %.
    pub clock_pct: Option<f64>,
    /// Tries timed again because the clock was low.
    pub clock_redone: Option<u32>,
    /// Kept rounds still clocked low.
    pub clock_low: Option<u32>,
}

/// A mode's hardware-counter batch (measure/hw `counted`): the `hw_*` columns, the flags the
/// counted figures raise, and whether the counted verdict may lead.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Counted {
    /// `cupti-pm-sampling`, `vk-performance-query`, or empty.
    pub hw_source: String,
    /// Why the figures are empty or were not used, and notes; empty when counted and used.
    pub hw_reason: String,
    /// SM busy, % of peak.
    pub hw_sm_pct: Option<f64>,
    /// DRAM, % of peak.
    pub hw_dram_pct: Option<f64>,
    /// L2, % of peak.
    pub hw_l2_pct: Option<f64>,
    /// L1/texture, % of peak.
    pub hw_l1tex_pct: Option<f64>,
    /// Tensor pipe, % of peak.
    pub hw_tensor_pct: Option<f64>,
    /// FMA pipe, % of peak.
    pub hw_fma_pct: Option<f64>,
    /// fmaheavy pipe, % of peak.
    pub hw_fmaheavy_pct: Option<f64>,
    /// ALU pipe, % of peak.
    pub hw_alu_pct: Option<f64>,
    /// FP64 pipe, % of peak.
    pub hw_fp64_pct: Option<f64>,
    /// XU pipe, % of peak.
    pub hw_xu_pct: Option<f64>,
    /// Shared-memory wavefronts, % of peak.
    pub hw_shared_pct: Option<f64>,
    /// Texture wavefronts, % of peak.
    pub hw_tex_pct: Option<f64>,
    /// Counted DRAM bytes read per repetition.
    pub hw_dram_read_bytes: Option<u64>,
    /// Counted DRAM bytes written per repetition.
    pub hw_dram_write_bytes: Option<u64>,
    /// The SM clock the counters saw, MHz.
    pub hw_sm_clock_mhz: Option<f64>,
    /// Samples the values are over.
    pub hw_samples: Option<u32>,
    /// Samples lost in the window.
    pub hw_lost_samples: Option<u32>,
    /// Counted figures that cannot be true (over 100 % of a peak), in the order found.
    pub flags: Vec<String>,
    /// The counted verdict may take the limiter over (the batch ran at the row's clock and,
    /// in cold mode, without the eviction in its figures).
    pub lead: bool,
}

impl Counted {
    /// A counted `hw_*_pct` figure by its column's name; `None` for another name.
    pub fn pct(&self, column: &str) -> Option<f64> {
        match column {
            "hw_sm_pct" => self.hw_sm_pct,
            "hw_dram_pct" => self.hw_dram_pct,
            "hw_l2_pct" => self.hw_l2_pct,
            "hw_l1tex_pct" => self.hw_l1tex_pct,
            "hw_tensor_pct" => self.hw_tensor_pct,
            "hw_fma_pct" => self.hw_fma_pct,
            "hw_fmaheavy_pct" => self.hw_fmaheavy_pct,
            "hw_alu_pct" => self.hw_alu_pct,
            "hw_fp64_pct" => self.hw_fp64_pct,
            "hw_xu_pct" => self.hw_xu_pct,
            "hw_shared_pct" => self.hw_shared_pct,
            "hw_tex_pct" => self.hw_tex_pct,
            _ => None,
        }
    }
}

/// Each declared unit's %-of-peak (the `*_pct` columns of the declared work).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct UnitPcts {
    /// DRAM.
    pub dram_pct: Option<f64>,
    /// L2.
    pub l2_pct: Option<f64>,
    /// FP32.
    pub flop_pct: Option<f64>,
    /// Shared memory.
    pub shared_pct: Option<f64>,
    /// Texture (point plus bilinear).
    pub texture_pct: Option<f64>,
    /// Global atomics.
    pub atomic_pct: Option<f64>,
    /// Shared-memory atomics.
    pub shared_atomic_pct: Option<f64>,
    /// int32.
    pub int_pct: Option<f64>,
    /// SFU.
    pub sfu_pct: Option<f64>,
    /// L1.
    pub l1_pct: Option<f64>,
    /// Launch rate.
    pub launch_pct: Option<f64>,
    /// FP64.
    pub fp64_pct: Option<f64>,
    /// int8 dot products.
    pub int8_dot_pct: Option<f64>,
    /// int16.
    pub int16_pct: Option<f64>,
    /// int64.
    pub int64_pct: Option<f64>,
    /// Tensor cores.
    pub tensor_pct: Option<f64>,
    /// FP16.
    pub fp16_pct: Option<f64>,
}

impl UnitPcts {
    /// The cell of a declared unit (`dram`, `fp32`, `texture`, …); `None` for another name.
    pub fn cell(&mut self, unit: &str) -> Option<&mut Option<f64>> {
        Some(match unit {
            "dram" => &mut self.dram_pct,
            "l2" => &mut self.l2_pct,
            "fp32" => &mut self.flop_pct,
            "shared" => &mut self.shared_pct,
            "texture" => &mut self.texture_pct,
            "atomic" => &mut self.atomic_pct,
            "shared_atomic" => &mut self.shared_atomic_pct,
            "int32" => &mut self.int_pct,
            "sfu" => &mut self.sfu_pct,
            "l1" => &mut self.l1_pct,
            "launch" => &mut self.launch_pct,
            "fp64" => &mut self.fp64_pct,
            "int8_dot" => &mut self.int8_dot_pct,
            "int16" => &mut self.int16_pct,
            "int64" => &mut self.int64_pct,
            "tensor" => &mut self.tensor_pct,
            "fp16" => &mut self.fp16_pct,
            _ => return None,
        })
    }
}

/// The P3 verdict of a timed mode (peaks/limiter): the declared units' %-of-peak, where the
/// traffic was served, the limiter (declared, or counted with the declared one kept as a
/// second opinion) and the flags for numbers that cannot be true.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Verdict {
    /// Where the declared traffic was counted (`dram` or `l2`).
    pub memory_level: Option<MemoryLevel>,
    /// Each declared unit's %-of-peak.
    pub pcts: UnitPcts,
    /// What limits the variant.
    pub limiter: Option<Limiter>,
    /// The limiting unit's %.
    pub limiter_pct: Option<f64>,
    /// The evidence, in words.
    pub limiter_evidence: String,
    /// Counted or declared.
    pub limiter_source: Option<LimiterSource>,
    /// The declared units over 100 %, `+`-joined.
    pub declared_over_units: String,
    /// The largest of them.
    pub declared_over_peak: Option<f64>,
    /// The counted units' limiter.
    pub hw_limiter: Option<Limiter>,
    /// Its %.
    pub hw_limiter_pct: Option<f64>,
    /// The declared verdict, when the counted one leads.
    pub declared_limiter: Option<Limiter>,
    /// Its %.
    pub declared_limiter_pct: Option<f64>,
    /// Derived numbers that cannot be true, in the order found.
    pub flags: Vec<String>,
}

/// One measurement mode of a timed variant.
#[derive(Debug, Clone, PartialEq)]
pub struct ModeRecord {
    /// warm or cold.
    pub mode: Mode,
    /// The statistics over its rounds.
    pub timing: Timing,
    /// The clock its batches ran at.
    pub clock: ClockFacts,
    /// Cold mode: how the L2 was evicted (`read` / `write`); empty when warm.
    pub cold_evict: String,
    /// Its counter batch.
    pub counted: Counted,
    /// The P3 verdict.
    pub verdict: Verdict,
}

/// How a variant ended.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// Stopped before timing (or while timed): one row per mode with the status and reason.
    Failed {
        /// Never `Ok`.
        status: RowStatus,
        /// What went wrong.
        reason: String,
        /// The case's modes, one row each.
        modes: Vec<Mode>,
    },
    /// Timed in every mode.
    Timed(Vec<ModeRecord>),
}

/// Everything measured about one variant of one params case.
#[derive(Debug, Clone, PartialEq)]
pub struct VariantRecord {
    /// Who and what.
    pub identity: Identity,
    /// The scenario's declared work per repetition.
    pub declared: Work,
    /// The build's facts.
    pub build: BuildFacts,
    /// The check run's facts.
    pub check_run: CheckRunFacts,
    /// The output check's verdict.
    pub check: CheckOutcome,
    /// Failed, or each mode's measurement.
    pub outcome: Outcome,
    /// Every timed batch, in the order it ran (rounds, then placement rounds, mode by mode),
    /// with its repetitions on the host's clock; a variant that failed while timed keeps those
    /// before the failure.
    pub batches: Vec<TimedBatch>,
    /// Every counter batch with its samples as measured, mode by mode (CUPTI PM sampling;
    /// the performance query's one reading per replay has no time and is not here).
    pub counter_batches: Vec<CounterBatch>,
}

impl VariantRecord {
    /// Every timed repetition, batch by batch, with the batch it belongs to (its mode, round
    /// and kind).
    pub fn repetitions(&self) -> impl Iterator<Item = (&TimedBatch, &RepSpan)> + '_ {
        self.batches
            .iter()
            .flat_map(|b| b.reps.iter().map(move |r| (b, r)))
    }
}

#[cfg(test)]
mod tests;
