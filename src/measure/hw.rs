//! Counters from the hardware (issue 25): after a variant's timed rounds in a mode, one
//! *counter batch* of the same dispatches runs under the device's counters, separate from the
//! timed rounds (so timings stay what they are), and its values fill the `hw_*` columns.
//!
//! Two backends, the same columns:
//! - **`cupti-pm-sampling`** (NVIDIA): CUPTI's PM sampling (src/vk/cupti.rs) samples
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
use crate::output::ResultRow;
use crate::vk::cupti::{self, Cupti, Host, Sampler};
use crate::vk::submit::{Dispatch, EvictWith};
use crate::vk::Context;
use std::time::Instant;

/// `hw_source` of the NVIDIA backend.
pub const SOURCE_CUPTI: &str = "cupti-pm-sampling";
/// `hw_source` of the Vulkan backend.
pub const SOURCE_PERF: &str = "vk-performance-query";

pub use crate::measure::options::{HwOptions, DEFAULT_INTERVAL_NS};

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
/// The counter data image holds this many samples; a full image is evaluated and reused.
const IMAGE_SAMPLES: u32 = 256;
/// CUPTI's hardware buffer for raw samples.
const HW_BUFFER_BYTES: usize = 256 << 20;

/// The columns the counters fill.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Col {
    Sm,
    Dram,
    L2,
    L1tex,
    Tensor,
    DramRead,
    DramWrite,
    SmClock,
}

/// NVIDIA PM-sampling metrics for each column, most specific first: the Triage variants are
/// one-pass on GH100 together (measured on an H100); the plain throughputs need 19/4/5 passes
/// there and are tried only where a chip takes them in one.
pub const NV_METRICS: &[(Col, &[&str])] = &[
    (
        Col::Sm,
        &[
            "TriageCompute.sm__throughput.avg.pct_of_peak_sustained_elapsed",
            "sm__throughput.avg.pct_of_peak_sustained_elapsed",
        ],
    ),
    (
        Col::Dram,
        &["dram__throughput.avg.pct_of_peak_sustained_elapsed"],
    ),
    (
        Col::L2,
        &[
            "LTS.TriageCompute.lts__throughput.avg.pct_of_peak_sustained_elapsed",
            "lts__throughput.avg.pct_of_peak_sustained_elapsed",
        ],
    ),
    (
        Col::L1tex,
        &[
            "SM_A.TriageCompute.l1tex__throughput.avg.pct_of_peak_sustained_elapsed",
            "l1tex__throughput.avg.pct_of_peak_sustained_elapsed",
        ],
    ),
    (
        Col::Tensor,
        &["sm__pipe_tensor_cycles_active_realtime.avg.pct_of_peak_sustained_elapsed"],
    ),
    (Col::DramRead, &["dram__bytes_read.sum"]),
    (Col::DramWrite, &["dram__bytes_write.sum"]),
    (Col::SmClock, &["gpc__cycles_elapsed.avg.per_second"]),
];

/// How a Vulkan counter's value becomes a column's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Conv {
    /// Already a percentage.
    Pct,
    /// Bytes over the replay of one repetition.
    Bytes,
    /// Hz, to MHz.
    Hertz,
}

/// VK_KHR_performance_query counter names per driver, from Mesa's sources (radv_perfcounter.c;
/// Intel's OA metric sets oa-tgl.xml and oa-lnl.xml through anv_perf.c; tu_query_pool.cc).
/// The table whose names the device lists most is used. DRAM, L2 and tensor busy percentages
/// have no counter on these drivers: those columns stay empty there.
/// One driver's counters: name, column, conversion.
pub type DriverTable = &'static [(&'static str, Col, Conv)];
/// A table's counters found on a device: index in the device's list, column, conversion.
pub type TableHits = Vec<(usize, Col, Conv)>;

pub const DRIVER_TABLES: &[(&str, DriverTable)] = &[
    (
        "radv",
        &[
            ("VALU Busy", Col::Sm, Conv::Pct),
            ("VRAM read size", Col::DramRead, Conv::Bytes),
            ("VRAM write size", Col::DramWrite, Conv::Bytes),
        ],
    ),
    (
        "anv-gen12",
        &[
            ("EU Active", Col::Sm, Conv::Pct),
            ("Samplers Busy", Col::L1tex, Conv::Pct),
            ("GTI Read Throughput", Col::DramRead, Conv::Bytes),
            ("GTI Write Throughput", Col::DramWrite, Conv::Bytes),
            ("AVG GPU Core Frequency", Col::SmClock, Conv::Hertz),
        ],
    ),
    (
        "anv-xe2",
        &[
            ("XVE Active", Col::Sm, Conv::Pct),
            ("GPU Memory Byte Read", Col::DramRead, Conv::Bytes),
            ("GPU Memory Byte Write", Col::DramWrite, Conv::Bytes),
            ("AVG GPU Core Frequency", Col::SmClock, Conv::Hertz),
        ],
    ),
    (
        "turnip",
        &[
            ("% Shaders Busy", Col::Sm, Conv::Pct),
            ("% Texture Pipes Busy", Col::L1tex, Conv::Pct),
        ],
    ),
];

/// The counted columns of one row.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HwValues {
    pub sm_pct: Option<f64>,
    pub dram_pct: Option<f64>,
    pub l2_pct: Option<f64>,
    pub l1tex_pct: Option<f64>,
    pub tensor_pct: Option<f64>,
    /// Per repetition.
    pub dram_read_bytes: Option<f64>,
    pub dram_write_bytes: Option<f64>,
    pub sm_clock_mhz: Option<f64>,
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
    pub source: &'static str,
    pub values: HwValues,
    /// Every metric captured, full name, value and unit (for metrics.csv).
    pub metrics: Vec<(String, f64, String)>,
    /// Samples evaluated inside the batch's window (PM sampling: at most MAX_EVALUATED, evenly
    /// spread), or replays (performance query).
    pub samples: u32,
    /// Samples missing inside the window (gaps between neighbours, hardware buffer overflow).
    pub lost: u32,
    pub interval_ns: u64,
    /// How the window was placed: `calibrated` (GPU timestamps on the host clock) or `host`.
    pub window: &'static str,
    pub window_ns: f64,
    pub reps: u32,
    /// Passes after the first (`--counters` metrics) that gave nothing, and why: the columns'
    /// pass still stands.
    pub notes: Vec<String>,
}

/// A variant's counters in one mode: measured, or why not.
pub type HwOutcome = Result<HwMeasured, String>;

/// A sample's span, on CLOCK_REALTIME (ns).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Span {
    pub start: i128,
    pub end: i128,
}

/// The samples wholly inside `window` (indices, in time order).
pub fn inside(samples: &[Span], window: Span) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..samples.len())
        .filter(|&i| {
            let s = samples[i];
            s.end > s.start && s.start >= window.start && s.end <= window.end
        })
        .collect();
    idx.sort_by_key(|&i| samples[i].start);
    idx
}

/// Samples missing between neighbours inside the window: a gap of more than half an interval
/// counts as the intervals it spans.
pub fn lost_between(samples: &[Span], idx: &[usize], interval_ns: u64) -> u32 {
    let iv = interval_ns.max(1) as f64;
    idx.windows(2)
        .map(|w| {
            let gap = (samples[w[1]].start - samples[w[0]].end) as f64;
            if gap > iv / 2.0 {
                (gap / iv).round().max(1.0) as u32
            } else {
                0
            }
        })
        .sum()
}

/// Combine the samples inside a window into one value per metric: `.sum` metrics are totalled,
/// scaled from the sampled time to the whole window and divided by the repetitions (a value
/// per repetition); every other metric is the duration-weighted mean.
pub fn combine(
    names: &[String],
    spans: &[Span],
    values: &[Vec<f64>],
    window_ns: f64,
    reps: u32,
) -> Vec<f64> {
    let durations: Vec<f64> = spans.iter().map(|s| (s.end - s.start) as f64).collect();
    let covered: f64 = durations.iter().sum();
    names
        .iter()
        .enumerate()
        .map(|(m, name)| {
            if covered <= 0.0 {
                return f64::NAN;
            }
            if name.ends_with(".sum") {
                let total: f64 = values.iter().map(|v| v[m]).sum();
                total * (window_ns / covered) / reps.max(1) as f64
            } else {
                values
                    .iter()
                    .zip(&durations)
                    .map(|(v, d)| v[m] * d)
                    .sum::<f64>()
                    / covered
            }
        })
        .collect()
}

/// The unit of a PM-sampling metric, from its name.
pub fn nv_unit(name: &str) -> &'static str {
    if name.contains("pct_of_peak") || name.ends_with(".pct") {
        "%"
    } else if name.ends_with(".per_second") {
        "1/s"
    } else if name.contains("bytes") {
        "bytes"
    } else if name.ends_with(".ratio") {
        "ratio"
    } else {
        "count"
    }
}

/// One PM-sampling pass: metrics that fit one config.
struct Pass {
    host: Host,
    names: Vec<String>,
    config: Vec<u8>,
    image: Vec<u8>,
}

struct CuptiBackend {
    _cupti: Cupti,
    sampler: Sampler,
    passes: Vec<Pass>,
    current: Option<usize>,
    interval_ns: u64,
    /// CUPTI's clock minus CLOCK_REALTIME, ns.
    offset_ns: i128,
    /// Which metric fills which column.
    columns: Vec<(String, Col)>,
}

struct PerfBackend {
    table: &'static str,
    counters: Vec<(crate::vk::perf::CounterInfo, Col, Conv)>,
}

enum Backend {
    Cupti(Box<CuptiBackend>),
    Perf(PerfBackend),
}

pub use crate::output::run_json::HwStatus;

/// A row counted at a clock this much (%) below the run's highest is flagged.
pub const CLOCK_DROP_PCT: f64 = 3.0;

/// The counters of one run: the backend, opened on first use.
pub struct HwCounters {
    backend: Option<Backend>,
    pub status: HwStatus,
}

/// Fill a timed row's `hw_*` columns from its counter batch (or say why there are none), then
/// let the counted verdict lead (`peaks::limiter::apply_counted`) and flag a clock that was
/// more than CLOCK_DROP_PCT % below the run's highest.
pub fn fill_row(row: &mut ResultRow, outcome: Option<&HwOutcome>, status: Option<&mut HwStatus>) {
    let m = match outcome {
        Some(Ok(m)) => m,
        Some(Err(why)) => {
            row.hw_reason = why.clone();
            return;
        }
        None => {
            row.hw_reason = match status {
                Some(s) if !s.reason.is_empty() => s.reason.clone(),
                _ => "no counter batch ran for this row (interrupted)".into(),
            };
            return;
        }
    };
    let v = &m.values;
    row.hw_source = m.source.into();
    row.hw_sm_pct = v.sm_pct;
    row.hw_dram_pct = v.dram_pct;
    row.hw_l2_pct = v.l2_pct;
    row.hw_l1tex_pct = v.l1tex_pct;
    row.hw_tensor_pct = v.tensor_pct;
    row.hw_dram_read_bytes = v.dram_read_bytes.map(|b| b.max(0.0).round() as u64);
    row.hw_dram_write_bytes = v.dram_write_bytes.map(|b| b.max(0.0).round() as u64);
    row.hw_sm_clock_mhz = v.sm_clock_mhz;
    row.hw_samples = Some(m.samples);
    row.hw_lost_samples = Some(m.lost);
    row.hw_reason = m.notes.join("; ");
    if row.mode == "cold" && m.source == SOURCE_CUPTI {
        // Device-wide samples count the L2 eviction before each repetition too (on an H100 a
        // 256 MiB eviction read 301 MB against the kernel's 33 MB): the values stay as
        // counted, but they do not decide the limiter.
        let cold = "cold mode: the counted values include the L2 eviction before each repetition, so the limiter stays the declared one";
        row.hw_reason = if row.hw_reason.is_empty() {
            cold.into()
        } else {
            format!("{cold}; {}", row.hw_reason)
        };
    } else {
        crate::peaks::limiter::apply_counted(row);
    }
    if let (Some(c), Some(s)) = (v.sm_clock_mhz, status) {
        if let Some(max) = s
            .max_sm_clock_mhz
            .filter(|max| c < max * (1.0 - CLOCK_DROP_PCT / 100.0))
        {
            s.throttled_rows += 1;
            crate::peaks::limiter::flag(
                row,
                format!(
                    "sm clock {c:.0} MHz while counted, {:.1} % below the run's highest ({max:.0} MHz): the GPU was throttled",
                    (1.0 - c / max) * 100.0
                ),
            );
        }
    }
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
                    backend: Some(Backend::Cupti(Box::new(b))),
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
                    source: SOURCE_PERF.into(),
                    library: b.table.into(),
                    passes: vec![b.counters.iter().map(|c| c.0.name.clone()).collect()],
                    ..Default::default()
                },
                backend: Some(Backend::Perf(b)),
            },
            Err(why) => Self::off(&why),
        }
    }

    /// Whether a backend is open.
    pub fn active(&self) -> bool {
        self.backend.is_some()
    }

    /// Run the counter batches of several variants (their dispatches and one repetition's
    /// time), in cold mode with `evict` before each repetition: one outcome per job.
    pub fn measure_many(
        &mut self,
        ctx: &Context,
        jobs: &[(&[Dispatch], f64)],
        timeout_ms: u64,
        evict: Option<&EvictWith>,
    ) -> Vec<HwOutcome> {
        let t = Instant::now();
        let mut ph = Phases::default();
        let out: Vec<HwOutcome> = match self.backend.as_mut() {
            None => jobs
                .iter()
                .map(|_| Err(self.status.reason.clone()))
                .collect(),
            Some(Backend::Cupti(b)) => jobs
                .chunks(GROUP)
                .flat_map(|g| b.measure_many(ctx, g, timeout_ms, evict, &mut ph))
                .collect(),
            Some(Backend::Perf(b)) => jobs
                .iter()
                .map(|(d, _)| b.measure(ctx, d, timeout_ms))
                .collect(),
        };
        self.status.wall_ms += t.elapsed().as_secs_f64() * 1e3;
        self.status.start_stop_ms += ph.start_stop_ns / 1e6;
        self.status.batches_ms += ph.batches_ns / 1e6;
        self.status.decode_ms += ph.decode_ns / 1e6;
        self.status.evaluate_ms += ph.evaluate_ns / 1e6;
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

/// Counter batches under one Start/Stop at most. 16 failed on an H100 (reports/nvidia-h100/
/// i25/grouped16/): decoding 16 batches' samples ran CUPTI out of memory
/// (CUPTI_ERROR_OUT_OF_MEMORY), every later Start failed (CUPTI_ERROR_UNKNOWN), and only 100
/// of 478 rows were counted. Start and Stop cost 0.8 ms a pair there, so one batch per
/// Start/Stop loses little.
const GROUP: usize = 1;

fn open_cupti(
    ctx: &Context,
    opts: &HwOptions,
    extra: &[String],
) -> Result<(CuptiBackend, HwStatus), String> {
    let c = Cupti::load(opts.cupti.as_deref())?;
    let device = parse_uuid(&ctx.info.uuid)
        .and_then(|u| cupti::cuda_index_of(&u))
        .unwrap_or(0);
    let privilege = |e: cupti::CuptiError| {
        if e.is_privilege() {
            format!(
                "CUPTI refused profiling ({e}): this user lacks the GPU profiling privilege; {PRIVILEGE_FIX}"
            )
        } else {
            format!("CUPTI at {}: {e}", c.path.display())
        }
    };
    let chip = c.chip_name(device).map_err(privilege)?;
    let avail = c.counter_availability(device).map_err(privilege)?;
    let one_pass = |names: &[String]| -> Result<(Host, Vec<u8>), String> {
        let host = c.host(&chip, &avail).map_err(|e| e.to_string())?;
        let (image, passes) = host.config(names).map_err(|e| e.to_string())?;
        if passes != 1 {
            return Err(format!("needs {passes} passes; PM sampling takes one"));
        }
        Ok((host, image))
    };
    // The columns' metrics: per column the first candidate that still fits one pass.
    let mut names: Vec<String> = Vec::new();
    let mut columns = Vec::new();
    let mut first: Option<(Host, Vec<u8>)> = None;
    for (col, cands) in NV_METRICS {
        for cand in cands.iter() {
            let mut trial = names.clone();
            trial.push((*cand).into());
            if let Ok(hc) = one_pass(&trial) {
                names = trial;
                columns.push(((*cand).to_string(), *col));
                first = Some(hc);
                break;
            }
        }
    }
    let mut status = HwStatus {
        source: SOURCE_CUPTI.into(),
        library: c.path.display().to_string(),
        chip: chip.clone(),
        device_index: Some(device),
        interval_ns: opts.interval_ns,
        ..Default::default()
    };
    let mut passes = Vec::new();
    if let Some((host, config)) = first {
        passes.push(Pass {
            host,
            names: names.clone(),
            config,
            image: Vec::new(),
        });
    }
    // `--counters`: more metrics in more passes, packed greedily.
    let wanted = match nv_select(&c, &chip, &avail, extra) {
        Ok((w, unmatched)) => {
            for g in unmatched {
                tracing::warn!("counter glob `{g}` matches no PM-sampling metric of {chip} (see `p3lab counters`)");
                status.refused.push(format!("{g}: matches no metric"));
            }
            w
        }
        Err(e) => {
            status.refused.push(e);
            Vec::new()
        }
    };
    let mut pending: Vec<String> = Vec::new();
    let mut last: Option<(Host, Vec<u8>)> = None;
    for w in wanted.into_iter().filter(|w| !names.contains(w)) {
        let mut trial = pending.clone();
        trial.push(w.clone());
        match one_pass(&trial) {
            Ok(hc) => {
                pending = trial;
                last = Some(hc);
            }
            Err(e) if pending.is_empty() => status.refused.push(format!("{w}: {e}")),
            Err(_) => {
                if let Some((host, config)) = last.take() {
                    passes.push(Pass {
                        host,
                        names: std::mem::take(&mut pending),
                        config,
                        image: Vec::new(),
                    });
                }
                match one_pass(std::slice::from_ref(&w)) {
                    Ok(hc) => {
                        pending = vec![w];
                        last = Some(hc);
                    }
                    Err(e) => status.refused.push(format!("{w}: {e}")),
                }
            }
        }
    }
    if let Some((host, config)) = last {
        passes.push(Pass {
            host,
            names: pending,
            config,
            image: Vec::new(),
        });
    }
    for r in &status.refused {
        tracing::warn!("hardware counters: {r}");
    }
    if passes.is_empty() {
        return Err(format!(
            "CUPTI at {}: none of p3lab's PM-sampling metrics is available on {chip}",
            c.path.display()
        ));
    }
    let sampler = c.sampler(device).map_err(privilege)?;
    // CUPTI's clock against CLOCK_REALTIME, read back to back (the lowest-latency pair of 5).
    let mut offset: Option<(i128, i128)> = None;
    for _ in 0..5 {
        let (r0, _) = cupti::host_clocks();
        let ts = c.timestamp();
        let (r1, _) = cupti::host_clocks();
        if let Some(ts) = ts {
            let o = ts as i128 - (r0 + r1) / 2;
            if offset.is_none_or(|(_, w)| r1 - r0 < w) {
                offset = Some((o, r1 - r0));
            }
        }
    }
    status.passes = passes.iter().map(|p| p.names.clone()).collect();
    tracing::info!(
        "hardware counters: CUPTI PM sampling on {chip} (CUDA device {device}, {}), {} pass(es), every {} µs",
        c.path.display(),
        passes.len(),
        opts.interval_ns / 1000
    );
    Ok((
        CuptiBackend {
            _cupti: c,
            sampler,
            passes,
            current: None,
            interval_ns: opts.interval_ns,
            offset_ns: offset.map(|(o, _)| o).unwrap_or(0),
            columns,
        },
        status,
    ))
}

/// `--counters` globs against the chip's PM-sampling metrics: the full names to capture, and
/// the globs that matched none.
fn nv_select(
    c: &Cupti,
    chip: &str,
    avail: &[u8],
    globs: &[String],
) -> Result<(Vec<String>, Vec<String>), String> {
    if globs.is_empty() {
        return Ok((Vec::new(), Vec::new()));
    }
    let all = nv_metrics(c, chip, avail).map_err(|e| e.to_string())?;
    let mut out = Vec::new();
    let mut unmatched = Vec::new();
    for g in globs {
        let m = globset::GlobBuilder::new(g)
            .case_insensitive(true)
            .build()
            .map_err(|e| format!("counter glob `{g}`: {e}"))?
            .compile_matcher();
        let mut hit = false;
        for (base, kind) in &all {
            let full = nv_full_name(base, *kind);
            if m.is_match(base) || m.is_match(&full) {
                hit = true;
                if !out.contains(&full) {
                    out.push(full);
                }
            }
        }
        // A full name with its own rollup (`dram__bytes.sum.per_second`) is taken as given.
        if !hit && !g.contains(['*', '?', '[']) && g.contains('.') {
            let base = g.split('.').find(|p| p.contains("__")).unwrap_or("");
            if all.iter().any(|(b, _)| b == base) {
                hit = true;
                out.push(g.clone());
            }
        }
        if !hit {
            unmatched.push(g.clone());
        }
    }
    Ok((out, unmatched))
}

/// Every base metric of the chip, with its kind.
fn nv_metrics(
    c: &Cupti,
    chip: &str,
    avail: &[u8],
) -> Result<Vec<(String, cupti::MetricType)>, cupti::CuptiError> {
    let host = c.host(chip, avail)?;
    let mut all = Vec::new();
    for kind in [
        cupti::MetricType::Counter,
        cupti::MetricType::Ratio,
        cupti::MetricType::Throughput,
    ] {
        for n in host.base_metrics(kind)? {
            all.push((n, kind));
        }
    }
    Ok(all)
}

/// `p3lab counters` on a CUPTI device: every PM-sampling metric of the chip, with the full
/// name `--counters` takes.
pub fn list_cupti(
    uuid: &str,
    explicit: Option<&std::path::Path>,
) -> Result<(String, Vec<cupti::MetricInfo>), String> {
    let c = Cupti::load(explicit)?;
    let device = parse_uuid(uuid)
        .and_then(|u| cupti::cuda_index_of(&u))
        .unwrap_or(0);
    let err = |e: cupti::CuptiError| {
        if e.is_privilege() {
            format!("{e}: {PRIVILEGE_FIX}")
        } else {
            e.to_string()
        }
    };
    let chip = c.chip_name(device).map_err(err)?;
    let avail = c.counter_availability(device).map_err(err)?;
    let all = nv_metrics(&c, &chip, &avail).map_err(err)?;
    let host = c.host(&chip, &avail).map_err(err)?;
    let list = all
        .into_iter()
        .map(|(base, kind)| {
            let mut info = host.properties(&base).unwrap_or(cupti::MetricInfo {
                name: base.clone(),
                kind: kind.label().into(),
                hw_unit: String::new(),
                dim_unit: String::new(),
                description: String::new(),
            });
            info.name = nv_full_name(&base, kind);
            info.kind = kind.label().into();
            info
        })
        .collect();
    Ok((chip, list))
}

/// One job's accumulating result over the passes.
#[derive(Default)]
struct Acc {
    values: HwValues,
    metrics: Vec<(String, f64, String)>,
    samples: u32,
    lost: u32,
    window_kind: &'static str,
    window_ns: f64,
    reps: u32,
    error: Option<String>,
    notes: Vec<String>,
}

/// Where the phases of the counter batches spent their wall time (run.json).
#[derive(Default)]
struct Phases {
    start_stop_ns: f64,
    batches_ns: f64,
    decode_ns: f64,
    evaluate_ns: f64,
}

impl CuptiBackend {
    /// The counter batches of several variants under one Start/Stop per pass: each batch's
    /// window picks its samples out of the one decoded stream, so CUPTI's fixed costs (start,
    /// stop, the decoder's set-up) are paid once per group, not per variant.
    fn measure_many(
        &mut self,
        ctx: &Context,
        jobs: &[(&[Dispatch], f64)],
        timeout_ms: u64,
        evict: Option<&EvictWith>,
        ph: &mut Phases,
    ) -> Vec<HwOutcome> {
        let iv = self.interval_ns as f64;
        let target = WINDOW_MIN_NS.max(MIN_SAMPLES * iv);
        let mut acc: Vec<Acc> = jobs
            .iter()
            .map(|(_, rep_ns)| Acc {
                reps: ((target / rep_ns.max(100.0)).ceil() as u32).clamp(2, MAX_REPS),
                window_kind: "calibrated",
                ..Default::default()
            })
            .collect();
        for p in 0..self.passes.len() {
            if let Err(e) = self.pass(ctx, p, jobs, timeout_ms, evict, &mut acc, ph) {
                for a in acc.iter_mut().filter(|a| a.error.is_none()) {
                    a.error = Some(e.clone());
                }
                break;
            }
        }
        acc.into_iter()
            .map(|a| match a.error {
                Some(e) => Err(e),
                None => Ok(HwMeasured {
                    source: SOURCE_CUPTI,
                    values: a.values,
                    metrics: a.metrics,
                    samples: a.samples,
                    lost: a.lost,
                    interval_ns: self.interval_ns,
                    window: a.window_kind,
                    window_ns: a.window_ns,
                    reps: a.reps,
                    notes: a.notes,
                }),
            })
            .collect()
    }

    /// One pass (config) over every job. Err: a CUPTI failure that spoils the whole pass.
    #[allow(
        clippy::too_many_arguments,
        reason = "one pass's inputs and its outputs"
    )]
    fn pass(
        &mut self,
        ctx: &Context,
        p: usize,
        jobs: &[(&[Dispatch], f64)],
        timeout_ms: u64,
        evict: Option<&EvictWith>,
        acc: &mut [Acc],
        ph: &mut Phases,
    ) -> Result<(), String> {
        let e = |e: cupti::CuptiError| e.to_string();
        let iv = self.interval_ns as f64;
        if self.current != Some(p) {
            if self.current.is_some() {
                // Another pass's config is loaded: on GH100 a second config set on the same
                // sampler gave no samples at all (reports/nvidia-h100/i25/final/extra), so the
                // sampler is disabled and enabled anew before it takes another config.
                self.current = None;
                self.sampler.renew().map_err(e)?;
                // Counter data images belong to the sampler object that initialized them
                // (GH100 refused the old ones: CUPTI_ERROR_INVALID_PARAMETER): made anew.
                for pass in &mut self.passes {
                    pass.image.clear();
                }
            }
            self.current = None;
            let pass = &self.passes[p];
            self.sampler
                .set_config(&pass.config, self.interval_ns, HW_BUFFER_BYTES)
                .map_err(e)?;
            self.current = Some(p);
        }
        let pass = &mut self.passes[p];
        if pass.image.is_empty() {
            pass.image = self
                .sampler
                .counter_data(&pass.names, IMAGE_SAMPLES)
                .map_err(e)?;
        } else {
            self.sampler.reset(&mut pass.image).map_err(e)?;
        }
        let t = Instant::now();
        self.sampler.start().map_err(e)?;
        ph.start_stop_ns += t.elapsed().as_nanos() as f64;
        // The batches, back to back, each with its own window.
        let t = Instant::now();
        let mut windows: Vec<Option<Span>> = Vec::with_capacity(jobs.len());
        for (j, (dispatches, _)) in jobs.iter().enumerate() {
            if crate::measure::options::interrupted() {
                acc[j].error.get_or_insert("interrupted".into());
                windows.push(None);
                continue;
            }
            let (h0, _) = cupti::host_clocks();
            let timed = ctx.run_timed_evict(dispatches, 1, acc[j].reps, timeout_ms, evict);
            let (h1, _) = cupti::host_clocks();
            let timed = match timed {
                Ok(t) => t,
                Err(err) => {
                    acc[j]
                        .error
                        .get_or_insert(format!("the counter batch: {err:#}"));
                    windows.push(None);
                    continue;
                }
            };
            let host_window = Span { start: h0, end: h1 };
            let w = match (ctx.clock_map(), timed.span_ticks) {
                (Some(m), Some((a, b))) => {
                    let w = Span {
                        start: m.realtime_of(a),
                        end: m.realtime_of(b),
                    };
                    // A correlation that puts the batch outside the host's own window is not
                    // believed.
                    if w.end > w.start
                        && w.start >= host_window.start - 1_000_000
                        && w.end <= host_window.end + 1_000_000
                    {
                        w
                    } else {
                        acc[j].window_kind = "host";
                        host_window
                    }
                }
                _ => {
                    acc[j].window_kind = "host";
                    host_window
                }
            };
            acc[j].window_ns = (w.end - w.start) as f64;
            windows.push(Some(w));
        }
        ph.batches_ns += t.elapsed().as_nanos() as f64;
        let t = Instant::now();
        let stopped = self.sampler.stop();
        ph.start_stop_ns += t.elapsed().as_nanos() as f64;
        stopped.map_err(e)?;
        // Decode the stream; each whole sample inside a window goes to that job, every
        // `stride`-th of them evaluated.
        let strides: Vec<usize> = acc
            .iter()
            .map(|a| {
                ((a.window_ns / iv).floor().max(1.0) as usize)
                    .div_ceil(MAX_EVALUATED)
                    .max(1)
            })
            .collect();
        let mut in_window: Vec<Vec<Span>> = vec![Vec::new(); jobs.len()];
        let mut picked: Vec<(Vec<Span>, Vec<Vec<f64>>)> =
            vec![(Vec::new(), Vec::new()); jobs.len()];
        let mut decoded = 0usize;
        let mut overflow = false;
        loop {
            let t = Instant::now();
            let d = self.sampler.decode(&mut pass.image).map_err(e)?;
            overflow |= d.overflow;
            let n = self.sampler.completed(&pass.image).map_err(e)?;
            ph.decode_ns += t.elapsed().as_nanos() as f64;
            let t = Instant::now();
            for i in 0..n {
                let (s0, s1) = self.sampler.sample_time(&pass.image, i).map_err(e)?;
                decoded += 1;
                let span = Span {
                    start: s0 as i128 - self.offset_ns,
                    end: s1 as i128 - self.offset_ns,
                };
                let Some(j) = windows
                    .iter()
                    .position(|w| w.is_some_and(|w| !inside(&[span], w).is_empty()))
                else {
                    continue;
                };
                in_window[j].push(span);
                if !(in_window[j].len() - 1).is_multiple_of(strides[j]) {
                    continue;
                }
                let v = pass.host.evaluate(&pass.image, i, &pass.names).map_err(e)?;
                picked[j].0.push(span);
                picked[j].1.push(v);
            }
            ph.evaluate_ns += t.elapsed().as_nanos() as f64;
            // A full image is evaluated, emptied and decoded into again (CUPTI may report a
            // full image as the end of the records).
            if n > 0 && (d.full || n >= IMAGE_SAMPLES as usize) {
                self.sampler.reset(&mut pass.image).map_err(e)?;
                continue;
            }
            break;
        }
        for (j, a) in acc.iter_mut().enumerate() {
            if a.error.is_some() {
                continue;
            }
            let (spans, vals) = &picked[j];
            if spans.is_empty() {
                let why = format!(
                    "no PM sample fell wholly inside the counter batch ({:.2} ms; {decoded} samples decoded, every {} µs)",
                    a.window_ns / 1e6,
                    self.interval_ns / 1000
                );
                if p == 0 {
                    a.error = Some(why);
                } else {
                    a.notes
                        .push(format!("pass {} (--counters metrics): {why}", p + 1));
                }
                continue;
            }
            let order: Vec<usize> = (0..in_window[j].len()).collect();
            let mut lost = lost_between(&in_window[j], &order, self.interval_ns);
            if overflow && lost == 0 {
                lost = 1;
            }
            a.lost += lost;
            a.samples += spans.len() as u32;
            let combined = combine(&pass.names, spans, vals, a.window_ns, a.reps);
            for (name, v) in pass.names.iter().zip(combined) {
                if !v.is_finite() {
                    continue;
                }
                a.metrics.push((name.clone(), v, nv_unit(name).to_string()));
                if let Some((_, col)) = self.columns.iter().find(|(n, _)| n == name) {
                    let v = if *col == Col::SmClock { v / 1e6 } else { v };
                    a.values.set(*col, v);
                }
            }
        }
        Ok(())
    }
}

/// The driver table whose counter names `all` lists most (at least one).
pub fn pick_table(names: &[String]) -> Option<(&'static str, TableHits)> {
    DRIVER_TABLES
        .iter()
        .map(|(t, rows)| {
            let hits: TableHits = rows
                .iter()
                .filter_map(|(n, c, v)| {
                    names
                        .iter()
                        .position(|x| x.eq_ignore_ascii_case(n))
                        .map(|i| (i, *c, *v))
                })
                .collect();
            (*t, hits)
        })
        .filter(|(_, h)| !h.is_empty())
        .max_by_key(|(_, h)| h.len())
}

fn open_perf(ctx: &Context) -> Result<PerfBackend, String> {
    if let Some(why) = crate::vk::perf::unavailable_reason(ctx) {
        return Err(format!(
            "no hardware counters: not an NVIDIA device (CUPTI), and {why}"
        ));
    }
    let all = ctx.perf_counters().map_err(|e| format!("{e:#}"))?;
    let names: Vec<String> = all.iter().map(|c| c.name.clone()).collect();
    let Some((table, hits)) = pick_table(&names) else {
        return Err(format!(
            "device `{}` offers VK_KHR_performance_query, but none of its {} counters is in p3lab's driver tables (src/measure/hw.rs)",
            ctx.info.name,
            all.len()
        ));
    };
    Ok(PerfBackend {
        table,
        counters: hits
            .into_iter()
            .map(|(i, c, v)| (all[i].clone(), c, v))
            .collect(),
    })
}

impl PerfBackend {
    fn measure(&mut self, ctx: &Context, dispatches: &[Dispatch], timeout_ms: u64) -> HwOutcome {
        let chosen: Vec<_> = self.counters.iter().map(|c| c.0.clone()).collect();
        let cap = ctx
            .capture_counters(dispatches, &chosen, timeout_ms)
            .map_err(|e| format!("VK_KHR_performance_query capture: {e:#}"))?;
        let mut values = HwValues::default();
        let mut metrics = Vec::new();
        for (info, v) in &cap.values {
            metrics.push((info.name.clone(), *v, info.unit.clone()));
            if let Some((_, col, conv)) = self.counters.iter().find(|c| c.0.name == info.name) {
                let v = match conv {
                    Conv::Pct | Conv::Bytes => *v,
                    Conv::Hertz => *v / 1e6,
                };
                values.set(*col, v);
            }
        }
        Ok(HwMeasured {
            source: SOURCE_PERF,
            values,
            metrics,
            samples: cap.passes,
            lost: 0,
            interval_ns: 0,
            window: "query",
            window_ns: 0.0,
            reps: 1,
            notes: Vec::new(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sp(a: i128, b: i128) -> Span {
        Span { start: a, end: b }
    }

    #[test]
    fn only_samples_wholly_inside_the_window_count() {
        let s = [
            sp(0, 100),
            sp(100, 200),
            sp(200, 300),
            sp(300, 400),
            sp(400, 500),
        ];
        assert_eq!(inside(&s, sp(150, 450)), vec![2, 3]);
        assert_eq!(inside(&s, sp(100, 500)), vec![1, 2, 3, 4]);
        assert!(inside(&s, sp(120, 180)).is_empty());
    }

    #[test]
    fn gaps_between_neighbours_are_lost_samples() {
        let s = [sp(0, 100), sp(100, 200), sp(400, 500), sp(500, 600)];
        assert_eq!(lost_between(&s, &[0, 1, 2, 3], 100), 2);
        assert_eq!(lost_between(&s, &[0, 1], 100), 0);
        // Jitter under half an interval is not a loss.
        let j = [sp(0, 100), sp(140, 240)];
        assert_eq!(lost_between(&j, &[0, 1], 100), 0);
    }

    #[test]
    fn sums_scale_to_the_window_and_rates_are_weighted_means() {
        let names = vec!["dram__bytes_read.sum".to_string(), "x.avg.pct".to_string()];
        let spans = [sp(0, 100), sp(100, 300)];
        let vals = vec![vec![1000.0, 50.0], vec![2000.0, 80.0]];
        // 3000 bytes over 300 ns sampled; the window is 600 ns and held 4 repetitions.
        let c = combine(&names, &spans, &vals, 600.0, 4);
        assert_eq!(c[0], 3000.0 * 2.0 / 4.0);
        assert!((c[1] - (50.0 * 100.0 + 80.0 * 200.0) / 300.0).abs() < 1e-9);
    }

    #[test]
    fn a_driver_table_is_picked_by_the_names_the_device_lists() {
        let names: Vec<String> = ["GPU Busy", "EU Active", "GTI Read Throughput", "x"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let (t, hits) = pick_table(&names).unwrap();
        assert_eq!(t, "anv-gen12");
        assert_eq!(hits.len(), 2);
        let radv: Vec<String> = vec!["valu busy".into()];
        assert_eq!(pick_table(&radv).unwrap().0, "radv");
        assert!(pick_table(&["invocations".to_string()]).is_none());
    }

    #[test]
    fn uuids_parse_from_hex() {
        let u = parse_uuid("000102030405060708090a0b0c0d0e0f").unwrap();
        assert_eq!(u[15], 15);
        assert!(parse_uuid("00").is_none());
    }
}
