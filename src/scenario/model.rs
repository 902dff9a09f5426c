//! The raw TOML model of a scenario file, as serde reads it (before expressions are evaluated).
use serde::Deserialize;
use std::collections::BTreeMap;

/// A number in a scenario file: an integer, a real, or an expression over params.
#[derive(Debug, Clone, PartialEq)]
pub enum Num {
    Int(i64),
    Real(f64),
    Expr(String),
}

impl<'de> Deserialize<'de> for Num {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        // By hand rather than `untagged`, whose error ("data did not match any variant of
        // untagged enum Num") neither says what was found nor what is expected.
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = Num;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a number or an expression in quotes (e.g. \"n / 4\")")
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Num, E> {
                Ok(Num::Int(v))
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Num, E> {
                Ok(i64::try_from(v).map_or(Num::Real(v as f64), Num::Int))
            }
            fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Num, E> {
                // TOML's `nan` and `inf` are floats, but no count or size can be one; said
                // here, they would otherwise surface as "unknown variable `NaN`".
                if v.is_finite() {
                    Ok(Num::Real(v))
                } else {
                    Err(E::custom(format!(
                        "{v} is not allowed: a number must be finite"
                    )))
                }
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Num, E> {
                Ok(Num::Expr(v.to_string()))
            }
        }
        d.deserialize_any(V)
    }
}

impl Num {
    /// The expression text this number stands for.
    pub fn as_expr(&self) -> String {
        match self {
            Num::Int(i) => i.to_string(),
            Num::Real(r) => format!("{r:?}"),
            Num::Expr(e) => e.clone(),
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawScenario {
    pub scenario: RawHeader,
    #[serde(default)]
    pub params: BTreeMap<String, toml::Value>,
    #[serde(default)]
    pub resources: Vec<RawResource>,
    #[serde(default)]
    pub dispatch: Vec<RawDispatch>,
    #[serde(default)]
    pub measure: RawMeasure,
    #[serde(default)]
    pub check: Option<RawCheck>,
    #[serde(default)]
    pub variants: Vec<RawVariant>,
    /// Named sets of param values: `[profiles.full]` with `--profile full`.
    #[serde(default)]
    pub profiles: BTreeMap<String, BTreeMap<String, toml::Value>>,
    /// The profile that was applied (not a file key).
    #[serde(skip)]
    pub profile: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawHeader {
    pub name: Option<String>,
    #[serde(default)]
    pub description: String,
    /// Which source article the scenario comes from (free text).
    #[serde(default)]
    pub source: String,
    /// Default shader for every dispatch, relative to the scenario file's folder.
    pub shader: Option<String>,
    /// The compute entry point (HLSL function or SPIR-V entry point name); default `main`.
    pub entry: Option<String>,
    /// Default workgroup size for every variant.
    pub workgroup: Option<Vec<Num>>,
    /// Default subgroup size request for every variant.
    pub subgroup_size: Option<toml::Value>,
    /// shaderc optimization level: "performance" (default), "size" or "zero".
    pub opt: Option<String>,
    /// Push constants for every dispatch: 32-bit words, each an expression.
    #[serde(default)]
    pub push_constants: Vec<Num>,
    /// Device features the scenario cannot run without (e.g. "shader_clock").
    #[serde(default)]
    pub requires: Vec<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawResource {
    pub name: String,
    #[serde(rename = "type")]
    pub kind: String,
    #[serde(default)]
    pub set: u32,
    pub binding: u32,
    /// Element of a descriptor array at (set, binding).
    #[serde(default)]
    pub index: u32,
    pub element: Option<String>,
    pub count: Option<Num>,
    pub size_bytes: Option<Num>,
    pub format: Option<String>,
    pub width: Option<Num>,
    pub height: Option<Num>,
    pub usage: Option<String>,
    pub filter: Option<String>,
    pub init: Option<toml::Value>,
    #[serde(default)]
    pub output: bool,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawDispatch {
    pub name: Option<String>,
    pub shader: Option<String>,
    /// This pass's entry point (else `[scenario] entry`, else `main`).
    pub entry: Option<String>,
    pub workgroup: Option<Vec<Num>>,
    pub grid: Option<Vec<Num>>,
    pub cover: Option<Vec<Num>>,
    pub push_constants: Option<Vec<Num>>,
    #[serde(default)]
    pub defines: BTreeMap<String, toml::Value>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawMeasure {
    pub warmup: Option<u32>,
    pub warmup_ms: Option<u64>,
    pub reps: Option<u32>,
    pub bytes_read: Option<Num>,
    pub bytes_written: Option<Num>,
    /// Declared shared-memory traffic (bytes read + written) per repetition.
    pub shared_bytes: Option<Num>,
    pub flops: Option<Num>,
    /// Texel fetches (point / unfiltered, and bilinear), global and shared-memory atomics,
    /// int32 operations, transcendental operations, L1 bytes, and the unique bytes touched.
    pub texels: Option<Num>,
    pub texels_linear: Option<Num>,
    pub atomics: Option<Num>,
    pub shared_atomics: Option<Num>,
    pub int_ops: Option<Num>,
    pub sfu_ops: Option<Num>,
    pub l1_bytes: Option<Num>,
    pub l2_bytes: Option<Num>,
    pub footprint_bytes: Option<Num>,
    /// FP64 flops (an FMA counts 2), packed int8 dot-product operations (8 per dot of four
    /// bytes with its add), int16 and int64 operations (a multiply-add counts 2).
    pub fp64_flops: Option<Num>,
    pub int8_dot_ops: Option<Num>,
    pub int16_ops: Option<Num>,
    pub int64_ops: Option<Num>,
    /// Tensor-core (cooperative-matrix) operations, 2·M·N·K per multiply-add, and the
    /// `tensor_*` peak they count against (e.g. `tensor_f16_f32`).
    pub tensor_flops: Option<Num>,
    /// FP16 flops (an FMA counts 2, a packed f16vec2 FMA 4), against the FP16 peak.
    pub fp16_flops: Option<Num>,
    pub tensor_unit: Option<String>,
    /// Cold mode's L2 eviction: "read" (default) or "write".
    pub evict: Option<String>,
    /// What every round after the first makes anew: none (default), resources, pipelines, all.
    pub fresh: Option<String>,
    /// One more round after the rounds with the resources moved (default true).
    pub placement_check: Option<bool>,
    /// Placements of the resources to measure over: "auto" (default) or a whole number.
    pub placements: Option<toml::Value>,
    /// Fence timeout for one submission, in milliseconds.
    pub timeout_ms: Option<u64>,
    /// "warm" and/or "cold" (L2 evicted before every timed repetition).
    pub modes: Option<Vec<String>>,
    /// Bytes written to evict the L2 in cold mode.
    pub cold_bytes: Option<Num>,
    /// Hardware counters to capture (names or globs; VK_KHR_performance_query).
    pub counters: Option<Vec<String>>,
    /// Per-subgroup probes (glsl/common/p3lab.glsl, `P3_PROBE_GROUPS`).
    pub probe: Option<bool>,
    /// Rounds every variant is timed in at least (one batch per round, interleaved).
    pub rounds: Option<u32>,
    /// Rounds at most.
    pub max_rounds: Option<u32>,
    /// Rounds go on until the median's 95 % CI half-width is below this (% of the median).
    pub ci_target_pct: Option<f64>,
    /// ...or a variant's batches have taken this much wall time (ms).
    pub budget_ms: Option<f64>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawCheck {
    pub outputs: Option<Vec<String>>,
    /// Absolute tolerance: a number, or an expression over params (an error bound that grows
    /// with a size, e.g. the length of a dot product).
    pub tolerance: Option<Num>,
    /// Relative tolerance, likewise.
    pub rel_tolerance: Option<Num>,
    /// A built-in reference's name, or `{ command = [...] }`, or `{ files = { OUT = "x.npy" } }`.
    pub reference: Option<toml::Value>,
    pub baseline: Option<String>,
    /// "auto" (default), "gpu" or "host".
    pub on: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawVariant {
    pub name: String,
    pub shader: Option<String>,
    /// The entry point of this variant's shader (a dispatch's own `entry` wins).
    pub entry: Option<String>,
    #[serde(default)]
    pub defines: BTreeMap<String, toml::Value>,
    #[serde(default)]
    pub spec: BTreeMap<String, toml::Value>,
    pub workgroup: Option<Vec<Num>>,
    pub subgroup_size: Option<toml::Value>,
    #[serde(default)]
    pub matrix: BTreeMap<String, Vec<toml::Value>>,
    /// Device features or extensions this variant needs (else its row is `unsupported`).
    #[serde(default)]
    pub requires: Vec<String>,
    /// This variant's own passes (`[[variants.dispatch]]`): they replace the scenario's
    /// `[[dispatch]]` list as a whole.
    pub dispatch: Option<Vec<RawDispatch>>,
    /// This variant's declared work (`[variants.measure]`): each key given replaces the
    /// scenario's `[measure]` key of that name; the others are the scenario's.
    pub measure: Option<RawWork>,
}

/// The declared-work keys of `[measure]`, which a variant may also give in `[variants.measure]`.
/// (A struct of its own because serde cannot both flatten it into [`RawMeasure`] and refuse
/// unknown keys there.)
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawWork {
    pub bytes_read: Option<Num>,
    pub bytes_written: Option<Num>,
    pub flops: Option<Num>,
    pub shared_bytes: Option<Num>,
    pub texels: Option<Num>,
    pub texels_linear: Option<Num>,
    pub atomics: Option<Num>,
    pub shared_atomics: Option<Num>,
    pub int_ops: Option<Num>,
    pub sfu_ops: Option<Num>,
    pub l1_bytes: Option<Num>,
    pub l2_bytes: Option<Num>,
    pub footprint_bytes: Option<Num>,
    /// FP64 flops (an FMA counts 2), packed int8 dot-product operations (8 per dot of four
    /// bytes with its add), int16 and int64 operations (a multiply-add counts 2).
    pub fp64_flops: Option<Num>,
    pub int8_dot_ops: Option<Num>,
    pub int16_ops: Option<Num>,
    pub int64_ops: Option<Num>,
    /// Tensor-core (cooperative-matrix) operations, 2·M·N·K per multiply-add, and the
    /// `tensor_*` peak they count against (e.g. `tensor_f16_f32`).
    pub tensor_flops: Option<Num>,
    /// FP16 flops (an FMA counts 2, a packed f16vec2 FMA 4), against the FP16 peak.
    pub fp16_flops: Option<Num>,
    pub tensor_unit: Option<String>,
}

impl RawWork {
    /// Every key with its value, in [`crate::scenario::Work::KEYS`] order.
    pub fn entries(&self) -> [(&'static str, Option<&Num>); 19] {
        [
            ("bytes_read", self.bytes_read.as_ref()),
            ("bytes_written", self.bytes_written.as_ref()),
            ("flops", self.flops.as_ref()),
            ("shared_bytes", self.shared_bytes.as_ref()),
            ("texels", self.texels.as_ref()),
            ("texels_linear", self.texels_linear.as_ref()),
            ("atomics", self.atomics.as_ref()),
            ("shared_atomics", self.shared_atomics.as_ref()),
            ("int_ops", self.int_ops.as_ref()),
            ("sfu_ops", self.sfu_ops.as_ref()),
            ("l1_bytes", self.l1_bytes.as_ref()),
            ("l2_bytes", self.l2_bytes.as_ref()),
            ("footprint_bytes", self.footprint_bytes.as_ref()),
            ("fp64_flops", self.fp64_flops.as_ref()),
            ("int8_dot_ops", self.int8_dot_ops.as_ref()),
            ("int16_ops", self.int16_ops.as_ref()),
            ("int64_ops", self.int64_ops.as_ref()),
            ("tensor_flops", self.tensor_flops.as_ref()),
            ("fp16_flops", self.fp16_flops.as_ref()),
        ]
    }
}

impl RawMeasure {
    /// The declared-work keys of `[measure]`.
    pub fn work(&self) -> RawWork {
        RawWork {
            bytes_read: self.bytes_read.clone(),
            bytes_written: self.bytes_written.clone(),
            flops: self.flops.clone(),
            shared_bytes: self.shared_bytes.clone(),
            texels: self.texels.clone(),
            texels_linear: self.texels_linear.clone(),
            atomics: self.atomics.clone(),
            shared_atomics: self.shared_atomics.clone(),
            int_ops: self.int_ops.clone(),
            sfu_ops: self.sfu_ops.clone(),
            l1_bytes: self.l1_bytes.clone(),
            l2_bytes: self.l2_bytes.clone(),
            footprint_bytes: self.footprint_bytes.clone(),
            fp64_flops: self.fp64_flops.clone(),
            int8_dot_ops: self.int8_dot_ops.clone(),
            int16_ops: self.int16_ops.clone(),
            int64_ops: self.int64_ops.clone(),
            tensor_flops: self.tensor_flops.clone(),
            fp16_flops: self.fp16_flops.clone(),
            tensor_unit: self.tensor_unit.clone(),
        }
    }
}
