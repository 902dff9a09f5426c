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
use crate::results::ResultRow;
use crate::vk::cupti::{self, Cupti, Host, Sampler};
use crate::vk::submit::{Dispatch, EvictWith};
use crate::vk::Context;
use std::time::Instant;

/// `hw_source` of the NVIDIA backend.
pub const SOURCE_CUPTI: &str = "cupti-pm-sampling";
/// `hw_source` of the Vulkan backend.
pub const SOURCE_PERF: &str = "vk-performance-query";

mod nvidia;
mod vulkan;
mod window;

pub use crate::measure::options::{HwOptions, DEFAULT_INTERVAL_NS};
pub use nvidia::{list_cupti, nv_unit};
use nvidia::{open_cupti, CuptiBackend, Phases, GROUP};
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
/// The counter data image holds this many samples; a full image is evaluated and reused.
const IMAGE_SAMPLES: u32 = 256;
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
}

/// A variant's counters in one mode: measured, or why not.
pub type HwOutcome = Result<HwMeasured, String>;

enum Backend {
    Cupti(Box<CuptiBackend>),
    Perf(PerfBackend),
}

pub use crate::output::run_json::HwStatus;

/// A row counted at a clock this much (%) below the run's highest keeps its declared limiter
/// (its counted values describe a clocked-down GPU).
pub const CLOCK_DROP_PCT: f64 = 3.0;

/// The counters of one run: the backend, opened on first use.
pub struct HwCounters {
    backend: Option<Backend>,
    /// What run.json records about the counters: backend, library, chip, columns, and why none when
    /// they could not be opened.
    pub status: HwStatus,
}

/// Fill a timed row's `hw_*` columns from its counter batch (or say why there are none), then
/// let the counted verdict lead (`peaks::limiter::apply_counted`), unless the batch was counted
/// in cold mode or at a clock more than CLOCK_DROP_PCT % below the run's highest.
///
/// A clock that low is the GPU clocking itself down at low load, not a throttle: on an H100
/// the SM clock sank to 345-870 MHz (nvidia-smi: clock-event reason "idle") during the counter
/// batches of 7-21 µs kernels, and to 1035-1065 MHz while coalescing's 6-12 µs kernels were
/// timed and counted, while ms-long kernels held 1980 MHz (reports/nvidia-h100/i26-clock).
/// Busy percentages counted at such a clock describe another operating point (a DRAM-bound
/// kernel reads less DRAM % when its SMs run at half their clock), so they stay in the row,
/// with the reason, but the limiter stays the declared one.
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
    let note = |row: &mut ResultRow, why: String| {
        row.hw_reason = if row.hw_reason.is_empty() {
            why
        } else {
            format!("{why}; {}", row.hw_reason)
        };
    };
    let max = status.as_ref().and_then(|s| s.max_sm_clock_mhz);
    let slow = match (v.sm_clock_mhz, max) {
        (Some(c), Some(max)) if c < max * (1.0 - CLOCK_DROP_PCT / 100.0) => Some((c, max)),
        _ => None,
    };
    if row.mode == Some(crate::results::Mode::Cold) && m.source == SOURCE_CUPTI {
        // Device-wide samples count the L2 eviction before each repetition too (on an H100 a
        // 256 MiB eviction read 301 MB against the kernel's 33 MB): the values stay as
        // counted, but they do not decide the limiter.
        note(row, "cold mode: the counted values include the L2 eviction before each repetition, so the limiter stays the declared one".into());
    } else if let Some((c, max)) = slow {
        note(
            row,
            format!(
                "counted at an SM clock of {c:.0} MHz, {:.1} % below the run's highest ({max:.0} MHz): the GPU had clocked down (it does when short kernels leave it idle between batches), so the counted percentages describe a GPU at that clock and the limiter stays the declared one",
                (1.0 - c / max) * 100.0
            ),
        );
    } else {
        crate::peaks::limiter::apply_counted(row);
    }
    if let (Some(_), Some(s)) = (slow, status) {
        s.throttled_rows += 1;
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A batch counted while the GPU had clocked down (an H100 at 870 MHz against 1980 MHz,
    /// nvidia-smi saying "idle") keeps the declared limiter with the reason, and is not called
    /// throttled; one at the run's clock lets the counted verdict lead.
    #[test]
    fn a_batch_counted_at_a_low_clock_keeps_the_declared_limiter() {
        let measured = |mhz: f64| -> HwOutcome {
            Ok(HwMeasured {
                source: SOURCE_CUPTI,
                values: HwValues {
                    sm_pct: Some(90.0),
                    dram_pct: Some(20.0),
                    sm_clock_mhz: Some(mhz),
                    ..Default::default()
                },
                metrics: Vec::new(),
                samples: 40,
                lost: 0,
                interval_ns: 200_000,
                window: "calibrated",
                window_ns: 8e6,
                reps: 100,
                notes: Vec::new(),
            })
        };
        let row = || ResultRow {
            mode: Some(crate::results::Mode::Warm),
            ..Default::default()
        };
        let mut status = HwStatus {
            max_sm_clock_mhz: Some(1980.0),
            ..Default::default()
        };
        let mut low = row();
        fill_row(&mut low, Some(&measured(870.0)), Some(&mut status));
        assert_ne!(
            low.limiter_source,
            Some(crate::results::LimiterSource::Counted)
        );
        assert!(
            low.hw_reason
                .contains("870 MHz, 56.1 % below the run's highest (1980 MHz)")
                && low.hw_reason.contains("limiter stays the declared one"),
            "{}",
            low.hw_reason
        );
        assert!(!low.flags.contains("throttled"), "{}", low.flags);
        assert_eq!(status.throttled_rows, 1);
        let mut full = row();
        fill_row(&mut full, Some(&measured(1975.0)), Some(&mut status));
        assert_eq!(
            full.limiter_source,
            Some(crate::results::LimiterSource::Counted)
        );
        assert_eq!(status.throttled_rows, 1);
    }

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
