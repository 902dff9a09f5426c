//! The unit registry (issue 43 item 4): every declared unit of the P3 view in one table —
//! its name, its results.csv %-of-peak column, the `[measure]` keys that count against it, the
//! peaks.csv units it divides by, the hardware counters that stand behind it and why a
//! declaration of it can read over 100 %. Scenario parsing (the work keys), the rows' unit
//! columns (crate::results::units), the peaks (which declared unit a peak stands for), the
//! limiter (the units it weighs, their columns, peaks and counters) and `compare` (the columns
//! it sets side by side) read it from here. It depends on nothing in the crate, so every layer
//! may read it.
//!
//! Adding a declared unit: a row here, its `[measure]` key in `scenario::variant::Work`, its
//! column in the results row and the limiter's `UnitPcts`, and a calibration in peaks/.

/// A unit the scenario declares work for, as the P3 view weighs it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Declared {
    /// The unit as the limiter names it (`dram`, `fp32`, `texture`, …).
    pub name: &'static str,
    /// Its results.csv %-of-peak column.
    pub column: &'static str,
    /// The `[measure]` keys whose work counts against it (`launch`: none, its workgroups come
    /// from the grid).
    pub work: &'static [&'static str],
    /// The peaks.csv units it divides by; the first is the one a verdict names unless the
    /// row's `texture_unit` or `tensor_unit` picks another.
    pub peaks: &'static [&'static str],
    /// The counted (`hw_*_pct`) columns behind it, in groups: the figure is the largest of the
    /// first group with a value (a later group is the coarser unit the work also runs
    /// through). NVIDIA's units: FP32 and FP16 FMAs issue to the FMA pipe (packed HFMA2 also
    /// to the tensor pipe), integer multiply-adds to its fmaheavy half and the rest of
    /// integer work to the ALU pipe, exp2 and friends to the XU; shared memory and texture
    /// fetches are wavefronts of the L1TEX data pipe; global atomics resolve in the L2.
    pub counters: &'static [&'static [&'static str]],
    /// The counted units (the limiter's names, [`COUNTED`]) its work runs through, for the
    /// counted verdict's agreement with the declared one.
    pub counted_units: &'static [&'static str],
    /// The likely reason a declaration of it reads over 100 % of its peak.
    pub over_cause: &'static str,
}

/// A unit the hardware counters measure (NVIDIA's CUPTI names, issue 25).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Counted {
    /// The unit as the counted limiter names it (`dram`, `l1tex`, `fma`, …).
    pub name: &'static str,
    /// Its results.csv column.
    pub column: &'static str,
}

/// The tensor peaks (`[measure].tensor_unit` names one of them).
pub const TENSOR_PEAKS: &[&str] = &[
    "tensor_f16_f16",
    "tensor_f16_f32",
    "tensor_bf16_f32",
    "tensor_s8_s32",
    "tensor_u8_u32",
];

/// The texture peaks `[measure].texture_unit` may name for `texels`, the default first
/// (rgba8 point-sampled through texture()).
pub const TEXELS_PEAKS: &[&str] = &[
    "texture_point",
    "texture_point_rgba16f",
    "texture_point_rgba32f",
    "texture_fetch_rgba8",
    "texture_fetch_rgba16f",
    "texture_fetch_rgba32f",
];

/// The peak `texels_linear` (bilinear fetches) count against.
pub const BILINEAR_PEAK: &str = "texture_bilinear";

/// Every texture peak: [`TEXELS_PEAKS`] and [`BILINEAR_PEAK`] (a test keeps them equal).
pub const TEXTURE_PEAKS: &[&str] = &[
    "texture_point",
    "texture_bilinear",
    "texture_point_rgba16f",
    "texture_point_rgba32f",
    "texture_fetch_rgba8",
    "texture_fetch_rgba16f",
    "texture_fetch_rgba32f",
];

const INT_COUNTERS: &[&[&str]] = &[&["hw_alu_pct", "hw_fmaheavy_pct"], &["hw_sm_pct"]];
const SOMETHING_WRONG: &str = "the declared work or the peak is wrong";
const BROADCAST: &str = "the declared bytes count a broadcast read once per thread (the hardware reads it once per warp: one wavefront)";

/// Every declared unit, in the limiter's order (a tie goes to the earlier).
pub const DECLARED: &[Declared] = &[
    Declared {
        name: "dram",
        column: "dram_pct",
        work: &["bytes_read", "bytes_written"],
        peaks: &["dram_read", "dram_write", "dram_copy"],
        counters: &[&["hw_dram_pct"]],
        counted_units: &["dram"],
        over_cause: "the declared bytes include reads the L2 served (L2 hits never reach DRAM)",
    },
    Declared {
        name: "l2",
        column: "l2_pct",
        work: &["l2_bytes"],
        peaks: &["l2_read"],
        counters: &[&["hw_l2_pct"]],
        counted_units: &["l2"],
        over_cause: "the declared bytes include reads the L1 served (L1 hits never reach the L2)",
    },
    Declared {
        name: "fp32",
        column: "flop_pct",
        work: &["flops"],
        peaks: &["fp32"],
        counters: &[&["hw_fma_pct"], &["hw_sm_pct"]],
        counted_units: &["sm"],
        over_cause: SOMETHING_WRONG,
    },
    Declared {
        name: "shared",
        column: "shared_pct",
        work: &["shared_bytes"],
        peaks: &["shared"],
        counters: &[&["hw_shared_pct"], &["hw_l1tex_pct"]],
        counted_units: &["l1tex", "sm"],
        over_cause: BROADCAST,
    },
    Declared {
        name: "texture",
        column: "texture_pct",
        work: &["texels", "texels_linear"],
        peaks: TEXTURE_PEAKS,
        counters: &[&["hw_tex_pct"], &["hw_l1tex_pct"]],
        counted_units: &["l1tex", "sm"],
        over_cause: "the declared texels include reuse (neighbouring fetches share a quad and the L1TEX cache)",
    },
    Declared {
        name: "atomic",
        column: "atomic_pct",
        work: &["atomics"],
        peaks: &["atomic"],
        counters: &[&["hw_l2_pct"]],
        counted_units: &["l2"],
        over_cause: SOMETHING_WRONG,
    },
    Declared {
        name: "shared_atomic",
        column: "shared_atomic_pct",
        work: &["shared_atomics"],
        peaks: &["shared_atomic"],
        counters: &[&["hw_shared_pct"], &["hw_l1tex_pct"]],
        counted_units: &["l1tex", "sm"],
        over_cause: BROADCAST,
    },
    Declared {
        name: "int32",
        column: "int_pct",
        work: &["int_ops"],
        peaks: &["int32"],
        counters: INT_COUNTERS,
        counted_units: &["sm"],
        over_cause: SOMETHING_WRONG,
    },
    Declared {
        name: "sfu",
        column: "sfu_pct",
        work: &["sfu_ops"],
        peaks: &["sfu"],
        counters: &[&["hw_xu_pct"], &["hw_sm_pct"]],
        counted_units: &["sm"],
        over_cause: SOMETHING_WRONG,
    },
    Declared {
        name: "l1",
        column: "l1_pct",
        work: &["l1_bytes"],
        peaks: &["l1_read"],
        counters: &[&["hw_l1tex_pct"]],
        counted_units: &["l1tex", "sm"],
        over_cause: "the declared bytes count one read per thread where a warp's coalesced read is one request",
    },
    Declared {
        name: "launch",
        column: "launch_pct",
        work: &[],
        peaks: &["launch"],
        counters: &[],
        counted_units: &[],
        over_cause: "the declared workgroups are more than the dispatch launched",
    },
    Declared {
        name: "fp64",
        column: "fp64_pct",
        work: &["fp64_flops"],
        peaks: &["fp64"],
        counters: &[&["hw_fp64_pct"], &["hw_sm_pct"]],
        counted_units: &["sm"],
        over_cause: SOMETHING_WRONG,
    },
    Declared {
        name: "int8_dot",
        column: "int8_dot_pct",
        work: &["int8_dot_ops"],
        peaks: &["int8_dot"],
        counters: INT_COUNTERS,
        counted_units: &["sm"],
        over_cause: SOMETHING_WRONG,
    },
    Declared {
        name: "int16",
        column: "int16_pct",
        work: &["int16_ops"],
        peaks: &["int16"],
        counters: INT_COUNTERS,
        counted_units: &["sm"],
        over_cause: SOMETHING_WRONG,
    },
    Declared {
        name: "int64",
        column: "int64_pct",
        work: &["int64_ops"],
        peaks: &["int64"],
        counters: INT_COUNTERS,
        counted_units: &["sm"],
        over_cause: SOMETHING_WRONG,
    },
    Declared {
        name: "tensor",
        column: "tensor_pct",
        work: &["tensor_flops"],
        peaks: TENSOR_PEAKS,
        counters: &[&["hw_tensor_pct"]],
        counted_units: &["tensor", "sm"],
        over_cause: SOMETHING_WRONG,
    },
    Declared {
        name: "fp16",
        column: "fp16_pct",
        work: &["fp16_flops"],
        peaks: &["fp16"],
        counters: &[&["hw_fma_pct", "hw_tensor_pct"], &["hw_sm_pct"]],
        counted_units: &["sm"],
        over_cause: SOMETHING_WRONG,
    },
];

/// Every counted unit, in results.csv's column order.
pub const COUNTED: &[Counted] = &[
    Counted {
        name: "sm",
        column: "hw_sm_pct",
    },
    Counted {
        name: "dram",
        column: "hw_dram_pct",
    },
    Counted {
        name: "l2",
        column: "hw_l2_pct",
    },
    Counted {
        name: "l1tex",
        column: "hw_l1tex_pct",
    },
    Counted {
        name: "tensor",
        column: "hw_tensor_pct",
    },
    Counted {
        name: "fma",
        column: "hw_fma_pct",
    },
    Counted {
        name: "fmaheavy",
        column: "hw_fmaheavy_pct",
    },
    Counted {
        name: "alu",
        column: "hw_alu_pct",
    },
    Counted {
        name: "fp64",
        column: "hw_fp64_pct",
    },
    Counted {
        name: "xu",
        column: "hw_xu_pct",
    },
    Counted {
        name: "shared",
        column: "hw_shared_pct",
    },
    Counted {
        name: "tex",
        column: "hw_tex_pct",
    },
];

/// `[measure]` keys that declare something other than a unit's work.
pub const OTHER_WORK_KEYS: &[&str] = &["footprint_bytes"];

/// The declared unit called `name`.
pub fn declared(name: &str) -> Option<&'static Declared> {
    DECLARED.iter().find(|u| u.name == name)
}

/// The declared unit a peaks.csv unit stands for (`dram_copy` → `dram`); None for the peaks
/// that are no unit's throughput (`empty`, `l2_capacity`).
pub fn declared_of_peak(peak: &str) -> Option<&'static Declared> {
    DECLARED.iter().find(|u| u.peaks.contains(&peak))
}

/// The declared unit whose work a `[measure]` key declares.
pub fn declared_of_work(key: &str) -> Option<&'static Declared> {
    DECLARED.iter().find(|u| u.work.contains(&key))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_columns_and_keys_are_unique_and_counters_exist() {
        let mut names: Vec<&str> = DECLARED.iter().map(|u| u.name).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), DECLARED.len());
        let mut keys: Vec<&str> = DECLARED
            .iter()
            .flat_map(|u| u.work.iter().copied())
            .collect();
        let n = keys.len();
        keys.sort();
        keys.dedup();
        assert_eq!(keys.len(), n, "a work key counts against two units");
        for u in DECLARED {
            assert!(!u.peaks.is_empty(), "{}", u.name);
            for c in u.counters.iter().flat_map(|g| g.iter()) {
                assert!(COUNTED.iter().any(|x| x.column == *c), "{}: {c}", u.name);
            }
            for c in u.counted_units {
                assert!(COUNTED.iter().any(|x| x.name == *c), "{}: {c}", u.name);
            }
            assert_eq!(u.counters.is_empty(), u.name == "launch", "{}", u.name);
        }
        assert_eq!(declared_of_peak("dram_copy").map(|u| u.name), Some("dram"));
        assert_eq!(
            declared_of_peak("texture_fetch_rgba8").map(|u| u.name),
            Some("texture")
        );
        assert_eq!(declared_of_peak("l2_capacity"), None);
        let mut texture: Vec<&str> = TEXELS_PEAKS.to_vec();
        texture.insert(1, BILINEAR_PEAK);
        assert_eq!(texture, TEXTURE_PEAKS);
        assert_eq!(
            declared_of_work("texels_linear").map(|u| u.name),
            Some("texture")
        );
    }
}
