//! Counters from the hardware (issue 25): after a variant's timed rounds in a mode, one
//! *counter batch* of the same dispatches runs under the device's counters, separate from the
//! timed rounds (so timings stay what they are), and its values fill the `hw_*` columns.
//!
//! Two backends, the same columns:
//! - **`cupti-pm-sampling`** (NVIDIA): CUPTI's PM sampling (src/vk/cupti/) samples
//!   device-wide counters every `interval_ns`. The batch's first and last GPU timestamps are
//!   put on the host's CLOCK_REALTIME through VK_EXT_calibrated_timestamps (else the host's
//!   submit-to-done window is used, and metrics.csv says so), CUPTI's clock is put on the same
//!   clock by reading both back to back, and only the samples wholly inside the batch count.
//!   Rates and percentages are the samples' duration-weighted means; `.sum` counters (bytes)
//!   are totalled, scaled from the sampled time to the window, and divided by the repetitions.
//! - **`vk-performance-query`** (AMD, Intel, Qualcomm through Mesa): VK_KHR_performance_query
//!   over one replay of the dispatches, with the driver's counter names mapped to the columns
//!   by [`DRIVER_TABLES`].
//!
//! Without a backend, every row says why in `hw_reason` and run.json's `hw_counters`.
use crate::results::record::Counted;
use crate::vk::cupti::{self, Cupti, Host, Sampler};
use crate::vk::submit::{Dispatch, EvictWith};
use crate::vk::Context;
use std::time::Instant;

/// `hw_source` of the NVIDIA backend.
pub const SOURCE_CUPTI: &str = "cupti-pm-sampling";
/// `hw_source` of the Vulkan backend.
pub const SOURCE_PERF: &str = "vk-performance-query";

mod batch;
mod metrics;
mod nvidia;
mod redo;
mod vulkan;
mod window;

pub use crate::measure::options::{HwOptions, DEFAULT_INTERVAL_NS};
use batch::batch_window;
pub use batch::subtract_evictions;
use metrics::nv_select;
pub use metrics::{list_cupti, nv_unit, NV_METRICS};
pub use nvidia::{image_sizing, IMAGE_ENV};
use nvidia::{open_cupti, CuptiBackend, Phases, GROUP};
use redo::redo_if_slow;
pub use redo::{judge_redo, Redo};
use vulkan::{open_perf, PerfBackend};
pub use vulkan::{pick_table, Conv, DriverTable, TableHits, DRIVER_TABLES};
pub use window::{combine, inside, lost_between, Span};

/// A counter batch keeps the GPU busy at least this long...
const WINDOW_MIN_NS: f64 = 8e6;
/// ...and long enough for this many whole samples.
const MIN_SAMPLES: f64 = 40.0;
/// Samples evaluated per batch at most, evenly spread over the window: evaluating one costs
/// about 0.1-0.2 ms on an H100, and `combine` scales totals from the time sampled, so a
/// subset gives the same means and totals.
const MAX_EVALUATED: usize = 40;
/// Repetitions in a counter batch at most (short kernels: a query pool and a command buffer
/// that stay small).
const MAX_REPS: u32 = 20_000;
/// The counter data image holds at least this many samples, more for a longer batch; a full
/// image is evaluated and reused.
const IMAGE_SAMPLES: u32 = 256;
/// ...and at most this many (1.6 s at 200 µs).
const MAX_IMAGE_SAMPLES: u32 = 8192;
/// CUPTI's hardware buffer for raw samples.
const HW_BUFFER_BYTES: usize = 256 << 20;

/// The columns the counters fill.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Col {
    /// SM busy, % of peak (`hw_sm_pct`).
    Sm,
    /// DRAM throughput, % of peak (`hw_dram_pct`).
    Dram,
    /// L2 throughput, % of peak (`hw_l2_pct`).
    L2,
    /// L1/texture throughput, % of peak (`hw_l1tex_pct`).
    L1tex,
    /// Tensor-pipe active cycles, % of peak (`hw_tensor_pct`).
    Tensor,
    /// DRAM bytes read per repetition (`hw_dram_read_bytes`).
    DramRead,
    /// DRAM bytes written per repetition (`hw_dram_write_bytes`).
    DramWrite,
    /// SM clock while counted, MHz (`hw_sm_clock_mhz`).
    SmClock,
    /// FMA-pipe activity, % of peak (`hw_fma_pct`).
    Fma,
    /// fmaheavy-pipe activity, % of peak (`hw_fmaheavy_pct`).
    FmaHeavy,
    /// ALU-pipe activity, % of peak (`hw_alu_pct`).
    Alu,
    /// FP64-pipe activity, % of peak (`hw_fp64_pct`).
    Fp64,
    /// XU-pipe activity, % of peak (`hw_xu_pct`).
    Xu,
    /// Shared-memory wavefronts of the L1TEX data pipe, % of peak (`hw_shared_pct`).
    Shared,
    /// Texture wavefronts of the L1TEX data pipe, % of peak (`hw_tex_pct`).
    Tex,
}

/// The counted columns of one row.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HwValues {
    /// SM busy, % of peak; the `hw_sm_pct` column. None: no counter for it on this device.
    pub sm_pct: Option<f64>,
    /// DRAM throughput, % of peak; the `hw_dram_pct` column. None: not counted.
    pub dram_pct: Option<f64>,
    /// L2 throughput, % of peak; the `hw_l2_pct` column. None: not counted.
    pub l2_pct: Option<f64>,
    /// L1/texture throughput, % of peak; the `hw_l1tex_pct` column. None: not counted.
    pub l1tex_pct: Option<f64>,
    /// Tensor-pipe activity, % of peak; the `hw_tensor_pct` column. None: not counted.
    pub tensor_pct: Option<f64>,
    /// Per repetition.
    pub dram_read_bytes: Option<f64>,
    /// Per repetition; the `hw_dram_write_bytes` column (rounded). None: not counted.
    pub dram_write_bytes: Option<f64>,
    /// Average SM clock over the batch, MHz (from Hz); the `hw_sm_clock_mhz` column. None: not
    /// counted.
    pub sm_clock_mhz: Option<f64>,
    /// FMA-pipe activity, % of peak; the `hw_fma_pct` column. None: not counted.
    pub fma_pct: Option<f64>,
    /// fmaheavy-pipe activity, % of peak; the `hw_fmaheavy_pct` column.
    pub fmaheavy_pct: Option<f64>,
    /// ALU-pipe activity, % of peak; the `hw_alu_pct` column.
    pub alu_pct: Option<f64>,
    /// FP64-pipe activity, % of peak; the `hw_fp64_pct` column.
    pub fp64_pct: Option<f64>,
    /// XU-pipe activity, % of peak; the `hw_xu_pct` column.
    pub xu_pct: Option<f64>,
    /// Shared-memory wavefronts, % of peak; the `hw_shared_pct` column.
    pub shared_pct: Option<f64>,
    /// Texture wavefronts, % of peak; the `hw_tex_pct` column.
    pub tex_pct: Option<f64>,
}

impl HwValues {
    fn set(&mut self, c: Col, v: f64) {
        let slot = match c {
            Col::Sm => &mut self.sm_pct,
            Col::Dram => &mut self.dram_pct,
            Col::L2 => &mut self.l2_pct,
            Col::L1tex => &mut self.l1tex_pct,
            Col::Tensor => &mut self.tensor_pct,
            Col::DramRead => &mut self.dram_read_bytes,
            Col::DramWrite => &mut self.dram_write_bytes,
            Col::SmClock => &mut self.sm_clock_mhz,
            Col::Fma => &mut self.fma_pct,
            Col::FmaHeavy => &mut self.fmaheavy_pct,
            Col::Alu => &mut self.alu_pct,
            Col::Fp64 => &mut self.fp64_pct,
            Col::Xu => &mut self.xu_pct,
            Col::Shared => &mut self.shared_pct,
            Col::Tex => &mut self.tex_pct,
        };
        *slot = Some(v);
    }

    /// The counted units and their busy percentages, in the P3 table's order.
    pub fn units(&self) -> [(&'static str, Option<f64>); 5] {
        [
            ("sm", self.sm_pct),
            ("dram", self.dram_pct),
            ("l2", self.l2_pct),
            ("l1tex", self.l1tex_pct),
            ("tensor", self.tensor_pct),
        ]
    }
}

/// One counter batch's result.
#[derive(Debug, Clone)]
pub struct HwMeasured {
    /// Which backend counted: `cupti-pm-sampling` or `vk-performance-query` (the `hw_source`
    /// column).
    pub source: &'static str,
    /// The counted columns.
    pub values: HwValues,
    /// Every metric captured, full name, value and unit (for metrics.csv).
    pub metrics: Vec<(String, f64, String)>,
    /// Samples evaluated inside the batch's window (PM sampling: at most MAX_EVALUATED, evenly
    /// spread), or replays (performance query).
    pub samples: u32,
    /// Samples missing inside the window (gaps between neighbours, hardware buffer overflow).
    pub lost: u32,
    /// PM sampling's interval, ns; 0 for the performance query.
    pub interval_ns: u64,
    /// How the window was placed: `calibrated` (GPU timestamps on the host clock) or `host`.
    pub window: &'static str,
    /// Length of the batch's window, ns (0 for the performance query).
    pub window_ns: f64,
    /// Repetitions in the counter batch (1 for the performance query's replay).
    pub reps: u32,
    /// Passes after the first (`--counters` metrics) that gave nothing, and why: the columns'
    /// pass still stands.
    pub notes: Vec<String>,
    /// Cold mode: how the L2 eviction was taken out of the counted values (an eviction-only
    /// batch counted the same way, subtracted in busy time and bytes); None where it was not.
    pub evict_removed: Option<String>,
    /// Set where the batch ran below its timed clock and the keeper did not raise that clock:
    /// the kernel's own sustained clock under load (a power-limited tensor kernel's), in words.
    pub own_clock: Option<String>,
    /// The first pass's evaluated samples inside the batch's window, as measured (the
    /// timeline trace's counter tracks); None for the performance query.
    pub series: Option<Series>,
}

/// A counter batch's samples as measured, before they are combined into one value each.
#[derive(Debug, Clone, Default)]
pub struct Series {
    /// The metrics, in the order of each sample's values.
    pub names: Vec<String>,
    /// The batch's window, on CLOCK_REALTIME.
    pub window: Span,
    /// Each sample's span, on CLOCK_REALTIME, in time order.
    pub spans: Vec<Span>,
    /// Each sample's values, one per name.
    pub values: Vec<Vec<f64>>,
}

/// A variant's counters in one mode: measured, or why not.
pub type HwOutcome = Result<HwMeasured, String>;

/// One counter batch to run: a variant's dispatches, one repetition's time, and the SM clock
/// its timed batches ran at (MHz: the clock rule's reference, where the row has a gauge).
pub struct CounterJob<'a> {
    /// The dispatches of one repetition.
    pub dispatches: &'a [Dispatch<'a>],
    /// One repetition's time, ns (the batch is sized from it).
    pub rep_ns: f64,
    /// The SM clock of the variant's timed batches, MHz; None without a gauge reading.
    pub clock_mhz: Option<f64>,
    /// The metrics this variant is counted for beyond the columns' pass (`HwOptions::nv_own_for`):
    /// the passes after the first that hold none of them are not run for it. Empty: every pass.
    pub want: &'static [&'static str],
}

/// p3lab's clock keeper (measure/clock.rs), where the device has one: it keeps the GPU's
/// clock up while the host decodes a counter batch's samples, and brings it back before a
/// batch counted again (issue 39: on an H100 the counter batches of a peak run sank to
/// 345-495 MHz while the host decoded between them).
#[derive(Clone, Copy)]
pub struct Heat<'a> {
    /// The gauge whose pass the keeper spins.
    pub gauge: &'a crate::measure::clock::ClockGauge,
    /// The gauge's reference reading (cycles per tick), to size the keeper in time.
    pub reading: Option<f64>,
}

impl Heat<'_> {
    /// Keep every SM busy for about `ms` ms (in keepers of at most MAX_HEAT_MS each),
    /// without waiting: later submissions on the queue start after it.
    pub fn run(&self, ctx: &Context, ms: f64) {
        let mut left = ms;
        while left > 0.0 {
            let chunk = left.min(crate::measure::clock::MAX_HEAT_MS);
            if let Err(e) = ctx.submit_detached(&self.gauge.keeper(chunk * 1e6, self.reading)) {
                tracing::debug!("the clock keeper around a counter batch: {e:#}");
                return;
            }
            left -= chunk;
        }
    }
}

/// A batch counted more than CLOCK_DROP_PCT below its timed clock is counted again after
/// this much keeper (ms), then after the next: the timed rounds' rule (measure/clock.rs). A
/// clock that the keeper does not raise by NO_RISE is the kernel's own.
pub const REDO_HEAT_MS: [f64; 2] = [64.0, 256.0];

/// A source of hardware counters: opened once per run (its capabilities in the run's
/// [`HwStatus`]), then asked to count groups of variants' batches. A new backend (another
/// vendor's sampler) is a type implementing this and a line in [`HwCounters::open`].
trait CounterBackend {
    /// The `hw_source` its rows carry.
    fn source(&self) -> &'static str;
    /// One outcome per job, in order: the counted columns, the metrics and the samples as
    /// measured, or why not. `heat` keeps the clock up between batches and lets a batch that
    /// ran clocked down be counted again; `ph` collects where the wall time went.
    fn measure_many(
        &mut self,
        ctx: &Context,
        jobs: &[CounterJob],
        timeout_ms: u64,
        evict: Option<&EvictWith>,
        heat: Option<Heat>,
        ph: &mut Phases,
    ) -> Vec<HwOutcome>;
}

impl CounterBackend for CuptiBackend {
    fn source(&self) -> &'static str {
        SOURCE_CUPTI
    }

    fn measure_many(
        &mut self,
        ctx: &Context,
        jobs: &[CounterJob],
        timeout_ms: u64,
        evict: Option<&EvictWith>,
        heat: Option<Heat>,
        ph: &mut Phases,
    ) -> Vec<HwOutcome> {
        // Groups of GROUP under one Start/Stop (CUPTI's memory bounds a group).
        let mut out: Vec<HwOutcome> = jobs
            .chunks(GROUP)
            .flat_map(|g| self.measure_group(ctx, g, timeout_ms, evict, heat, ph))
            .collect();
        if let Some(h) = heat {
            for (job, o) in jobs.iter().zip(out.iter_mut()) {
                redo_if_slow(job.clock_mhz, o, |heat_ms| {
                    let t = Instant::now();
                    h.run(ctx, heat_ms);
                    ph.keeper_ns += t.elapsed().as_nanos() as f64;
                    ph.redone += 1;
                    let one = std::slice::from_ref(job);
                    self.measure_group(ctx, one, timeout_ms, evict, Some(h), ph)
                        .pop()
                });
            }
        }
        out
    }
}

impl CounterBackend for PerfBackend {
    fn source(&self) -> &'static str {
        SOURCE_PERF
    }

    fn measure_many(
        &mut self,
        ctx: &Context,
        jobs: &[CounterJob],
        timeout_ms: u64,
        _evict: Option<&EvictWith>,
        _heat: Option<Heat>,
        _ph: &mut Phases,
    ) -> Vec<HwOutcome> {
        jobs.iter()
            .map(|j| self.measure(ctx, j.dispatches, timeout_ms))
            .collect()
    }
}

pub use crate::output::run_json::HwStatus;

/// A row counted at a clock this much (%) below the run's highest keeps its declared limiter
/// (its counted values describe a clocked-down GPU).
pub const CLOCK_DROP_PCT: f64 = 3.0;

/// The counters of one run: the backend, opened on first use.
pub struct HwCounters {
    backend: Option<Box<dyn CounterBackend>>,
    /// What run.json records about the counters: backend, library, chip, columns, and why none when
    /// they could not be opened.
    pub status: HwStatus,
}

/// A timed mode's `hw_*` figures from its counter batch (or why there are none), and whether
/// the counted verdict may lead (`peaks::limiter::apply_counted`): not where the batch was
/// counted at a clock more than CLOCK_DROP_PCT % below the clock the mode's own timed batches
/// ran at (`clock_mhz`), nor (cold mode) where the L2 eviction could not be taken out of the
/// counted values.
///
/// The clock rule compares like with like (issue 39). A GPU clocks itself down at low load:
/// on an H100 the SM clock sank to 345-870 MHz (nvidia-smi: clock-event reason "idle")
/// during the counter batches of 7-21 µs kernels while ms-long kernels held 1980 MHz
/// (reports/nvidia-h100/i26-clock); busy percentages counted at such a clock describe another
/// operating point. But a kernel's own sustained clock is its operating point: every
/// tensor-core GEMM ran at 1807-1904 MHz, timed and counted alike, and its counters were
/// dropped against the run's highest clock. So the reference is the row's timed clock
/// (`clock_mhz`, the gauge's median over its kept batches), and the run's highest only where
/// the row has no gauge reading. A `*_pct_of_peak_sustained_elapsed` counter is a fraction of
/// elapsed cycles: it holds at whatever clock the kernel ran.
pub fn counted(
    outcome: Option<&HwOutcome>,
    status: Option<&mut HwStatus>,
    clock_mhz: Option<f64>,
    mode: crate::results::Mode,
) -> Counted {
    let mut out = Counted::default();
    let m = match outcome {
        Some(Ok(m)) => m,
        Some(Err(why)) => {
            out.hw_reason = why.clone();
            return out;
        }
        None => {
            out.hw_reason = match status {
                Some(s) if !s.reason.is_empty() => s.reason.clone(),
                _ => "no counter batch ran for this row (interrupted)".into(),
            };
            return out;
        }
    };
    let v = &m.values;
    out.hw_source = m.source.into();
    out.hw_reason = m.notes.join("; ");
    let note = |out: &mut Counted, why: String| {
        out.hw_reason = if out.hw_reason.is_empty() {
            why
        } else {
            format!("{why}; {}", out.hw_reason)
        };
    };
    // A busy percentage is a fraction of the unit's sustained peak: at most 100. Sampling
    // can read a hair over (a sample's edges); more than that is flagged, and the cell holds
    // 100 (metrics.csv keeps what was counted).
    let mut over: Vec<String> = Vec::new();
    let mut pct = |name: &str, x: Option<f64>| {
        x.map(|x| {
            if x > 100.5 {
                over.push(format!("hw_{name}_pct {x:.1}"));
            }
            x.clamp(0.0, 100.0)
        })
    };
    out.hw_sm_pct = pct("sm", v.sm_pct);
    out.hw_dram_pct = pct("dram", v.dram_pct);
    out.hw_l2_pct = pct("l2", v.l2_pct);
    out.hw_l1tex_pct = pct("l1tex", v.l1tex_pct);
    out.hw_tensor_pct = pct("tensor", v.tensor_pct);
    out.hw_fma_pct = pct("fma", v.fma_pct);
    out.hw_fmaheavy_pct = pct("fmaheavy", v.fmaheavy_pct);
    out.hw_alu_pct = pct("alu", v.alu_pct);
    out.hw_fp64_pct = pct("fp64", v.fp64_pct);
    out.hw_xu_pct = pct("xu", v.xu_pct);
    out.hw_shared_pct = pct("shared", v.shared_pct);
    out.hw_tex_pct = pct("tex", v.tex_pct);
    for o in over {
        out.flags.push(format!(
            "{o} > 100 of the counter's sustained peak: shown as 100"
        ));
    }
    out.hw_dram_read_bytes = v.dram_read_bytes.map(|b| b.max(0.0).round() as u64);
    out.hw_dram_write_bytes = v.dram_write_bytes.map(|b| b.max(0.0).round() as u64);
    out.hw_sm_clock_mhz = v.sm_clock_mhz;
    out.hw_samples = Some(m.samples);
    out.hw_lost_samples = Some(m.lost);
    let run_max = status.as_ref().and_then(|s| s.max_sm_clock_mhz);
    let (reference, whose) = match (clock_mhz, run_max) {
        (Some(c), _) => (Some(c), "its timed batches' clock"),
        (None, Some(max)) => (Some(max), "the run's highest"),
        (None, None) => (None, ""),
    };
    let slow = match (v.sm_clock_mhz, reference) {
        (Some(c), Some(r)) if c < r * (1.0 - CLOCK_DROP_PCT / 100.0) && m.own_clock.is_none() => {
            Some((c, r))
        }
        _ => None,
    };
    if let Some(own) = &m.own_clock {
        note(&mut out, own.clone());
    }
    let cold = mode == crate::results::Mode::Cold && m.source == SOURCE_CUPTI;
    if cold && m.evict_removed.is_none() {
        // Device-wide samples count the L2 eviction before each repetition too (on an H100 a
        // 256 MiB eviction read 301 MB against the kernel's 33 MB).
        note(&mut out, "cold mode: the counted values include the L2 eviction before each repetition (it could not be counted apart), so the limiter stays the declared one".into());
    } else if let Some((c, r)) = slow {
        note(
            &mut out,
            format!(
                "counted at an SM clock of {c:.0} MHz, {:.1} % below {whose} ({r:.0} MHz): the GPU had clocked down (it does when short kernels leave it idle between batches), so the counted percentages describe a GPU at another clock and the limiter stays the declared one",
                (1.0 - c / r) * 100.0
            ),
        );
    } else {
        if let Some(how) = &m.evict_removed {
            note(&mut out, format!("cold mode: {how}"));
        }
        out.lead = true;
    }
    if let (Some(_), Some(s)) = (slow, status) {
        s.throttled_rows += 1;
    }
    out
}

/// The fix to print with a privilege error.
pub const PRIVILEGE_FIX: &str = "run as root, or let every user profile: `options nvidia \
     NVreg_RestrictProfilingToAdminUsers=0` in /etc/modprobe.d, then reload the driver or reboot";

fn parse_uuid(hex: &str) -> Option<[u8; 16]> {
    let b: Vec<u8> = (0..hex.len() / 2)
        .filter_map(|i| u8::from_str_radix(hex.get(2 * i..2 * i + 2)?, 16).ok())
        .collect();
    b.try_into().ok()
}

/// The full PM-sampling name a `--counters` entry stands for: as given when it has a rollup
/// (`.sum`, `.avg...`), else the base metric with its kind's usual rollup.
fn nv_full_name(base: &str, kind: cupti::MetricType) -> String {
    match kind {
        cupti::MetricType::Counter => format!("{base}.sum"),
        cupti::MetricType::Ratio => format!("{base}.ratio"),
        cupti::MetricType::Throughput => format!("{base}.avg.pct_of_peak_sustained_elapsed"),
    }
}

impl HwCounters {
    /// Off, with `why` on every row.
    pub fn off(why: &str) -> HwCounters {
        HwCounters {
            backend: None,
            status: HwStatus {
                reason: why.into(),
                ..Default::default()
            },
        }
    }

    /// Open the backend for this device: CUPTI on NVIDIA (or wherever `--cupti` names one),
    /// else VK_KHR_performance_query with a known driver table. `extra`: `--counters` globs.
    pub fn open(ctx: &Context, opts: &HwOptions, extra: &[String]) -> HwCounters {
        if !opts.enabled {
            return Self::off("hardware counters off (--no-hw-counters)");
        }
        let nvidia = ctx.info.vendor_id == 0x10de;
        if nvidia || opts.cupti.is_some() {
            return match open_cupti(ctx, opts, extra) {
                Ok((b, status)) => HwCounters {
                    backend: Some(Box::new(b)),
                    status,
                },
                Err(why) => {
                    tracing::warn!("hardware counters: {why}");
                    Self::off(&why)
                }
            };
        }
        match open_perf(ctx) {
            Ok(b) => HwCounters {
                status: HwStatus {
                    source: b.source().into(),
                    library: b.table.into(),
                    passes: vec![b.counters.iter().map(|c| c.0.name.clone()).collect()],
                    ..Default::default()
                },
                backend: Some(Box::new(b)),
            },
            Err(why) => Self::off(&why),
        }
    }

    /// Whether a backend is open.
    pub fn active(&self) -> bool {
        self.backend.is_some()
    }

    /// Run the counter batches of several variants, in cold mode with `evict` before each
    /// repetition: one outcome per job. A batch counted more than CLOCK_DROP_PCT below its
    /// job's timed clock is counted again after the keeper (`heat`, REDO_HEAT_MS); where the
    /// keeper does not raise the clock, that clock is the kernel's own (`own_clock`).
    pub fn measure_many(
        &mut self,
        ctx: &Context,
        jobs: &[CounterJob],
        timeout_ms: u64,
        evict: Option<&EvictWith>,
        heat: Option<Heat>,
    ) -> Vec<HwOutcome> {
        let t = Instant::now();
        let mut ph = Phases::default();
        let out: Vec<HwOutcome> = match self.backend.as_mut() {
            None => jobs
                .iter()
                .map(|_| Err(self.status.reason.clone()))
                .collect(),
            Some(b) => b.measure_many(ctx, jobs, timeout_ms, evict, heat, &mut ph),
        };
        self.status.wall_ms += t.elapsed().as_secs_f64() * 1e3;
        self.status.start_stop_ms += ph.start_stop_ns / 1e6;
        self.status.batches_ms += ph.batches_ns / 1e6;
        self.status.decode_ms += ph.decode_ns / 1e6;
        self.status.evaluate_ms += ph.evaluate_ns / 1e6;
        self.status.image_ms += ph.image_ns / 1e6;
        self.status.keeper_ms += ph.keeper_ns / 1e6;
        self.status.redone_batches += ph.redone;
        for m in out.iter().flatten() {
            self.status.batches += 1;
            self.status.samples += m.samples as u64;
            self.status.lost_samples += m.lost as u64;
            if let Some(c) = m.values.sm_clock_mhz {
                let max = self.status.max_sm_clock_mhz.get_or_insert(c);
                *max = max.max(c);
            }
        }
        out
    }
}

#[cfg(test)]
mod tests;
