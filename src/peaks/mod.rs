//! Measured peaks (`p3lab peak`): each unit's best throughput on this device, from the
//! calibration scenarios in peaks/, cached per device and driver, and the %-of-peak columns
//! and limiter that `p3lab run` derives from them and a variant's declared work
//! ([`limiter`]).
//!
//! Every calibration kernel checks its own output (a row that failed its check never becomes
//! a peak), and peaks.csv says whether each unit's peak can be trusted: `status` is `ok`, or
//! `suspect` with the `reason`: the unit's best variant is not matched within 1.5x by another
//! one (a kernel the compiler shortened, say), or it breaks a relation between units that holds
//! on every GPU (FP32 ≤ FP16 ≤ 4x FP32 without tensor cores, FP64 ≤ FP32, int64 ≤ int32, a
//! wider texel format's rate ≤ a narrower one's on the same path (rgba32f ≤ rgba16f ≤ rgba8),
//! bilinear ≤ point-sampled, each with [`CROSS_SLACK`] for noise; DRAM ≤ L2 ≤ L1 ≤ 16x L2
//! bandwidth).
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

mod calibrate;
mod file;
pub mod limiter;
mod process;
pub mod verify;

pub use calibrate::{from_results, from_rows, knee, unit_of as unit_of_variant};
pub use file::{cache_path, mismatch, read_csv, same_model, sibling_cache, write_csv};
pub use process::{
    between_process_sd, pool_kinds, process_cache_path, process_mismatch, read_process_sd,
    write_process_sd, KindSd, ProcessSd, RowSd, PROCESS_SD_SCHEMA_VERSION,
};

/// peaks.csv's schema version (2: `status`, `reason`, `variants`; `value` may be empty).
/// 3: a peak's `value` is the work over the median less an empty dispatch, and the L2
/// capacity is read at 90 % of the plateau (2: work over the median, the L2 halfway to DRAM;
/// 1: calibrations that did not check their own output).
pub const PEAKS_SCHEMA_VERSION: u32 = 3;

/// One unit's peak, as peaks.csv stores it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Peak {
    /// peaks.csv's schema version when written ([`PEAKS_SCHEMA_VERSION`]).
    pub schema_version: u32,
    /// The calibration run's `device_name`: the device the peak was measured on.
    pub device_name: String,
    /// The device's UUID (hex), from the calibration rows: peaks of another UUID are not this
    /// device's ([`mismatch`]).
    pub device_uuid: String,
    /// The driver's raw `driverVersion` at calibration: peaks of another driver version are not
    /// this driver's ([`mismatch`]).
    pub driver_version: u32,
    /// See [`UNITS`].
    pub unit: String,
    /// The peak in `value_unit`: the best variant's work ÷ (median less the empty dispatch's time),
    /// the median itself for overheads, the knee for `l2_capacity`; None when no variant gave one
    /// (`failed`).
    pub value: Option<f64>,
    /// See [`UNITS`].
    pub value_unit: String,
    /// The calibration variant that gave the value (for `l2_capacity`, the first point of the
    /// curve).
    pub best_variant: String,
    /// That variant's median time, ns; None for `l2_capacity` and `failed` units.
    pub median_ns: Option<f64>,
    /// Low end of that median's 95 % CI, ns; None like `median_ns`.
    pub median_ci_low_ns: Option<f64>,
    /// High end of that median's 95 % CI, ns; None like `median_ns`.
    pub median_ci_high_ns: Option<f64>,
    /// That variant's coefficient of variation, %; None like `median_ns`.
    pub cv_pct: Option<f64>,
    /// Timed repetitions behind that variant's median (its results.csv `n`); None for
    /// `l2_capacity` and `failed` units.
    pub n: Option<usize>,
    /// `ok`, `suspect` or `failed` (see the module docs).
    #[serde(default)]
    pub status: PeakStatus,
    /// Why the status is `suspect` or `failed`; empty when `ok`.
    #[serde(default)]
    pub reason: String,
    /// Variants of the unit that ran and passed their check.
    #[serde(default)]
    pub variants: Option<usize>,
    /// The hardware counter behind the unit that the best variant was counted with: the
    /// busiest of the results.csv `hw_*_pct` column behind the unit (e.g. `hw_fma_pct` for
    /// fp32, `hw_dram_pct` for dram_read) and the unit's own sub-unit metrics that `p3lab peak`
    /// counts on NVIDIA (a full metric name, e.g.
    /// `sm__pipe_fmaheavy_cycles_active.avg.pct_of_peak_sustained_elapsed` for int64:
    /// [`verify`]); empty where the device has no counters or the unit none (issue 39).
    #[serde(default)]
    pub counted_metric: String,
    /// How busy that counter read the unit while the best variant ran, % of its sustained
    /// peak: a calibration that drives its unit's counter under [`COUNTED_MIN_PCT`] has not
    /// found the hardware's limit, and the peak is `suspect`.
    #[serde(default)]
    pub counted_pct: Option<f64>,
}

/// A calibration whose unit's own counter reads under this (% of the counter's sustained
/// peak) has not found the peak (issue 39).
pub const COUNTED_MIN_PCT: f64 = 90.0;

/// The declared unit (results.csv's `*_pct` and [`crate::results::units::counted_for`]) a
/// peak unit stands for, from the unit registry (crate::units); None for the peaks that are
/// no unit's throughput (`empty`, `l2_capacity`).
pub fn declared_unit_of(peak_unit: &str) -> Option<&'static str> {
    crate::units::declared_of_peak(peak_unit).map(|u| u.name)
}

/// A peak's standing in peaks.csv.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PeakStatus {
    /// Measured and agreeing with the other variants and units (files without the column).
    #[default]
    Ok,
    /// Measured, but a variant or a cross-unit rule disagrees: rows using it are flagged.
    Suspect,
    /// No variant of the unit ran and passed its check.
    Failed,
}

impl PeakStatus {
    /// `ok`, `suspect` or `failed`: the `status` column of peaks.csv.
    pub fn as_str(self) -> &'static str {
        match self {
            PeakStatus::Ok => "ok",
            PeakStatus::Suspect => "suspect",
            PeakStatus::Failed => "failed",
        }
    }
}

impl std::fmt::Display for PeakStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl PartialEq<&str> for PeakStatus {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

/// A unit: its name (the prefix of its calibration variants' names), the results.csv column
/// of declared work it divides by the median (`median_ns` for the overheads, where smaller is
/// better), and the unit of `value`.
pub struct Unit {
    /// The unit's name: the prefix of its calibration variants (`dram_read`, `fp32`, ...) and the
    /// key of its value in [`Peaks`].
    pub name: &'static str,
    /// The results.csv column of declared work its value divides (`bytes`, `flops`, ...); empty:
    /// the value is the median itself (an overhead, smaller is better).
    pub work: &'static str,
    /// The unit of its value (`gbytes_per_s`, ...): peaks.csv's `value_unit`.
    pub value_unit: &'static str,
    /// What it measures, in words (`p3lab peak --list`).
    pub description: &'static str,
}

/// Every unit `p3lab peak` measures, in peaks.csv order. `work` = "" means the value is the
/// median itself (smaller is better).
pub const UNITS: &[Unit] = &[
    Unit {
        name: "dram_read",
        work: "bytes",
        value_unit: "gbytes_per_s",
        description: "DRAM read bandwidth",
    },
    Unit {
        name: "dram_write",
        work: "bytes",
        value_unit: "gbytes_per_s",
        description: "DRAM write bandwidth",
    },
    Unit {
        name: "dram_copy",
        work: "bytes",
        value_unit: "gbytes_per_s",
        description: "DRAM copy bandwidth (read + written)",
    },
    Unit {
        name: "l2_read",
        work: "bytes",
        value_unit: "gbytes_per_s",
        description: "L2-resident read bandwidth",
    },
    Unit {
        name: "l1_read",
        work: "l1_bytes",
        value_unit: "gbytes_per_s",
        description: "L1 read bandwidth",
    },
    Unit {
        name: "shared",
        work: "shared_bytes",
        value_unit: "gbytes_per_s",
        description: "shared-memory bandwidth",
    },
    Unit {
        name: "fp32",
        work: "flops",
        value_unit: "gflops_per_s",
        description: "FP32 FMA throughput",
    },
    Unit {
        name: "fp16",
        work: "flops",
        value_unit: "gflops_per_s",
        description: "FP16 FMA throughput (packed)",
    },
    Unit {
        name: "fp64",
        work: "fp64_flops",
        value_unit: "gflops_per_s",
        description: "FP64 FMA throughput (needs shaderFloat64)",
    },
    Unit {
        name: "int32",
        work: "int_ops",
        value_unit: "gops_per_s",
        description: "int32 multiply-add throughput (2 ops each)",
    },
    Unit {
        name: "int8_dot",
        work: "int8_dot_ops",
        value_unit: "gops_per_s",
        description:
            "packed int8 dot products, dotPacked4x8EXT (8 ops each; needs shaderIntegerDotProduct)",
    },
    Unit {
        name: "int16",
        work: "int16_ops",
        value_unit: "gops_per_s",
        description:
            "int16 multiply-add throughput, packed u16vec2 (2 ops each; needs shaderInt16)",
    },
    Unit {
        name: "int64",
        work: "int64_ops",
        value_unit: "gops_per_s",
        description: "int64 multiply-add throughput, the best of a 64 x 32-bit (`mul32`) and a full 64 x 64-bit multiplier (2 ops each; needs shaderInt64)",
    },
    Unit {
        name: "tensor_f16_f16",
        work: "tensor_flops",
        value_unit: "gflops_per_s",
        description:
            "tensor cores (VK_KHR_cooperative_matrix): f16 x f16 + f16 (2 M N K per multiply-add)",
    },
    Unit {
        name: "tensor_f16_f32",
        work: "tensor_flops",
        value_unit: "gflops_per_s",
        description: "tensor cores: f16 x f16 + f32",
    },
    Unit {
        name: "tensor_bf16_f32",
        work: "tensor_flops",
        value_unit: "gflops_per_s",
        description: "tensor cores: bf16 x bf16 + f32 (needs VK_KHR_shader_bfloat16)",
    },
    Unit {
        name: "tensor_s8_s32",
        work: "tensor_flops",
        value_unit: "gops_per_s",
        description: "tensor cores: s8 x s8 + s32",
    },
    Unit {
        name: "tensor_u8_u32",
        work: "tensor_flops",
        value_unit: "gops_per_s",
        description: "tensor cores: u8 x u8 + u32",
    },
    Unit {
        name: "sfu",
        work: "sfu_ops",
        value_unit: "gops_per_s",
        description: "transcendental (exp2) throughput",
    },
    Unit {
        name: "texture_point",
        work: "texels",
        value_unit: "gtexels_per_s",
        description: "texture fetches, rgba8, texture() point-sampled (`texels`' default unit)",
    },
    Unit {
        name: "texture_bilinear",
        work: "texels_linear",
        value_unit: "gtexels_per_s",
        description: "texture fetches, rgba8, texture() bilinear (`texels_linear`)",
    },
    Unit {
        name: "texture_point_rgba16f",
        work: "texels",
        value_unit: "gtexels_per_s",
        description: "texture fetches, rgba16f, texture() point-sampled",
    },
    Unit {
        name: "texture_point_rgba32f",
        work: "texels",
        value_unit: "gtexels_per_s",
        description: "texture fetches, rgba32f, texture() point-sampled",
    },
    Unit {
        name: "texture_fetch_rgba8",
        work: "texels",
        value_unit: "gtexels_per_s",
        description: "texture fetches, rgba8, texelFetch()",
    },
    Unit {
        name: "texture_fetch_rgba16f",
        work: "texels",
        value_unit: "gtexels_per_s",
        description: "texture fetches, rgba16f, texelFetch()",
    },
    Unit {
        name: "texture_fetch_rgba32f",
        work: "texels",
        value_unit: "gtexels_per_s",
        description: "texture fetches, rgba32f, texelFetch()",
    },
    Unit {
        name: "atomic",
        work: "atomics",
        value_unit: "gatomics_per_s",
        description: "global atomicAdd throughput",
    },
    Unit {
        name: "shared_atomic",
        work: "shared_atomics",
        value_unit: "gatomics_per_s",
        description: "shared-memory atomicAdd throughput",
    },
    Unit {
        name: "launch",
        work: "workgroups",
        value_unit: "ggroups_per_s",
        description: "workgroup launch rate",
    },
    Unit {
        name: "empty",
        work: "",
        value_unit: "ns",
        description: "GPU time of an empty dispatch",
    },
];

/// The peaks the %-of-peak columns divide by.
/// peaks.csv's row for the L2 capacity (the knee of l2_capacity-* rows), in bytes.
pub const L2_CAPACITY: &str = "l2_capacity";
/// Two variants of one unit must agree within this factor (best against the next best).
pub const AGREE: f64 = 1.5;
/// Packed FP16 without tensor cores runs at 1x (Ada, RDNA without packed math) to 4x (A100:
/// 78 vs 19.5 TFLOP/s) the FP32 rate; Hopper is 2x (H100 SXM 133.8 vs 66.9).
pub const FP16_OVER_FP32: (f64, f64) = (1.0, 4.0);
/// A tensor (matrix-unit) peak over this many times the FP32 peak is not believed: the
/// fastest published ratio is B200's int8, ~56x (4500 TOPS dense over 80 TFLOP/s).
pub const TENSOR_OVER_FP32: f64 = 64.0;
/// Measured ratios between units may miss a published one by this factor (noise, clocks).
pub const CROSS_SLACK: f64 = 1.1;
/// An L1 read peak over this many times the L2 read peak is not believed.
pub const L1_OVER_L2: f64 = 16.0;

/// A device's peaks as `p3lab run` uses them: the values behind the %-of-peak columns and the
/// limiter.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Peaks {
    /// Unit name → value (units with a value: `ok` and `suspect` ones).
    pub values: BTreeMap<String, f64>,
    /// Units whose peak is suspect (their %-of-peak is flagged on the row).
    pub suspect: Vec<String>,
    /// The measured L2 capacity in bytes.
    pub l2_capacity: Option<f64>,
    /// Why these peaks are another device's or driver's (`--force-peaks`): every row says so.
    pub foreign: Option<String>,
}

impl Peaks {
    /// The usable peaks of peaks.csv's rows: every unit with a value (`suspect` ones noted as
    /// such); the L2 capacity only when `ok`.
    pub fn from_list(list: &[Peak]) -> Peaks {
        let mut p = Peaks::default();
        for x in list {
            let Some(v) = x.value else { continue };
            if x.unit == L2_CAPACITY {
                if x.status == PeakStatus::Ok {
                    p.l2_capacity = Some(v);
                }
                continue;
            }
            p.values.insert(x.unit.clone(), v);
            if x.status == PeakStatus::Suspect {
                p.suspect.push(x.unit.clone());
            }
        }
        p
    }

    /// The value of `unit` when it has one above 0.
    pub fn get(&self, unit: &str) -> Option<f64> {
        self.values.get(unit).copied().filter(|v| *v > 0.0)
    }

    /// The DRAM peak: the best of read, write and copy, in GB/s.
    pub fn dram(&self) -> Option<f64> {
        ["dram_read", "dram_write", "dram_copy"]
            .iter()
            .filter_map(|u| self.get(u))
            .fold(None, |a: Option<f64>, v| Some(a.map_or(v, |a| a.max(v))))
    }
}

#[cfg(test)]
mod tests;
