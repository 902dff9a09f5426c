//! The raw TOML model of a scenario file, as serde reads it (before expressions are evaluated).
use serde::Deserialize;
use std::collections::BTreeMap;

/// A number in a scenario file: an integer, a real, or an expression over params.
#[derive(Debug, Clone, PartialEq)]
pub enum Num {
    /// A plain integer (a TOML integer that fits in i64).
    Int(i64),
    /// A finite real (or an integer too large for i64).
    Real(f64),
    /// A quoted expression over params (and, where allowed, matrix keys and `wg_x`/`wg_y`/`wg_z`),
    /// evaluated later.
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

/// One entry of a `push_constants` list: a 32-bit word (a number or an expression), or a typed
/// member (`{ name = "scale", type = "f32", value = 0.125 }`). One list holds one kind.
#[derive(Debug, Clone, PartialEq)]
pub enum RawPushEntry {
    /// A 32-bit word.
    Word(Num),
    /// A typed member.
    Member(RawMember),
}

impl<'de> Deserialize<'de> for RawPushEntry {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = RawPushEntry;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str(
                    "a number, an expression in quotes, or a typed member \
                     ({ name = \"scale\", type = \"f32\", value = 0.125 })",
                )
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<RawPushEntry, E> {
                Ok(RawPushEntry::Word(Num::Int(v)))
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<RawPushEntry, E> {
                Ok(RawPushEntry::Word(
                    i64::try_from(v).map_or(Num::Real(v as f64), Num::Int),
                ))
            }
            fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<RawPushEntry, E> {
                if !v.is_finite() {
                    return Err(E::custom(format!(
                        "{v} is not allowed: a number must be finite"
                    )));
                }
                Ok(RawPushEntry::Word(Num::Real(v)))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<RawPushEntry, E> {
                Ok(RawPushEntry::Word(Num::Expr(v.to_string())))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                map: A,
            ) -> Result<RawPushEntry, A::Error> {
                RawMember::deserialize(serde::de::value::MapAccessDeserializer::new(map))
                    .map(RawPushEntry::Member)
            }
        }
        d.deserialize_any(V)
    }
}

/// A typed member of a push-constant block or a uniform buffer, as the shader declares it.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawMember {
    /// The member's name (the shader's, by convention; used in errors and `list --details`).
    pub name: String,
    /// `u32`, `i32`, `f32`, `f16`, `u64`, `i64`, `f64`, or a vector (`vec3`, `uvec2`, ...).
    #[serde(rename = "type")]
    pub ty: String,
    /// A number or expression; a list of them for a vector.
    pub value: toml::Value,
    /// Bytes from the block's start; None: the std430 rule.
    pub offset: Option<u32>,
}

/// A whole scenario file as read by serde, keys unknown to any table refused.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawScenario {
    /// `[scenario]`: name, shader and defaults for every variant.
    pub scenario: RawHeader,
    /// `[params]`: each name with a number or a non-empty list of numbers (a list makes a sweep).
    #[serde(default)]
    pub params: BTreeMap<String, toml::Value>,
    /// `[[resources]]`, in file order.
    #[serde(default)]
    pub resources: Vec<RawResource>,
    /// `[[dispatch]]`: the passes of one repetition, in order.
    #[serde(default)]
    pub dispatch: Vec<RawDispatch>,
    /// `[measure]` (all defaults when the table is absent).
    #[serde(default)]
    pub measure: RawMeasure,
    /// `[check]`; None when the file has none.
    #[serde(default)]
    pub check: Option<RawCheck>,
    /// `[[variants]]`, before matrix expansion.
    #[serde(default)]
    pub variants: Vec<RawVariant>,
    /// Named sets of param values: `[profiles.full]` with `--profile full`.
    #[serde(default)]
    pub profiles: BTreeMap<String, BTreeMap<String, toml::Value>>,
    /// The profile that was applied (not a file key).
    #[serde(skip)]
    pub profile: Option<String>,
}

/// The `[scenario]` table.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawHeader {
    /// The `scenario` column; None: the file name without `.toml`.
    pub name: Option<String>,
    /// Free text, never written to the outputs; `""` when absent.
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
    /// Push constants for every dispatch: 32-bit words, each an expression, or typed members.
    #[serde(default)]
    pub push_constants: Vec<RawPushEntry>,
    /// Device features the scenario cannot run without (e.g. "shader_clock").
    #[serde(default)]
    pub requires: Vec<String>,
    /// The variant the summary's time ratios are against (else `[check] baseline`, else the
    /// first variant).
    pub baseline: Option<String>,
}

/// One `[[resources]]` entry, sizes still unevaluated.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawResource {
    /// Unique in the file; what `[check].outputs` and built-in references name it by.
    pub name: String,
    /// The `type` key: `"buffer"`, `"image"` or `"uniform"`.
    #[serde(rename = "type")]
    pub kind: String,
    /// Descriptor set (default 0; set 3 is reserved for the probe).
    #[serde(default)]
    pub set: u32,
    /// Binding within the set.
    pub binding: u32,
    /// Element of a descriptor array at (set, binding).
    #[serde(default)]
    pub index: u32,
    /// Buffers only: the element type (`f32`, `u32`, `i32`, `f16`, `u8`); None: `u32`.
    pub element: Option<String>,
    /// Buffers: number of elements (bytes = count × element size); give this or `size_bytes`.
    pub count: Option<Num>,
    /// Buffers: size in bytes; give this or `count`.
    pub size_bytes: Option<Num>,
    /// Images (required there): `rgba32f`, `rgba16f`, `r32f`, `rgba8` or `r32ui`, case-insensitive.
    pub format: Option<String>,
    /// Images (required there): width in texels.
    pub width: Option<Num>,
    /// Images (required there): height in texels.
    pub height: Option<Num>,
    /// Images only: `"storage"` (default) or `"sampled"` (a combined image sampler).
    pub usage: Option<String>,
    /// Sampled images only: `"nearest"` (default) or `"linear"`.
    pub filter: Option<String>,
    /// Initial contents: a generator name or table, or a `.npy`/PNG file; None: zeros.
    pub init: Option<toml::Value>,
    /// Uniform buffers only (`type = "uniform"`): the block's typed members, in order.
    pub members: Option<Vec<RawMember>>,
    /// Reset to its initial contents before each variant and read back for the check
    /// (`[check].outputs` implies it).
    #[serde(default)]
    pub output: bool,
}

/// One `[[dispatch]]` or `[[variants.dispatch]]` entry: one pass.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawDispatch {
    /// Used in error messages and multi-pass metric names; None: `pass0`, `pass1`, ...
    pub name: Option<String>,
    /// This pass's shader file (may hold `{name}` templates); None: the variant's, else
    /// `[scenario].shader`.
    pub shader: Option<String>,
    /// This pass's entry point (else `[scenario] entry`, else `main`).
    pub entry: Option<String>,
    /// This pass's own workgroup size (1-3 axes), overriding the variant's.
    pub workgroup: Option<Vec<Num>>,
    /// Workgroups per axis (1-3 axes, missing ones 1); exactly one of `grid` and `cover` is given.
    pub grid: Option<Vec<Num>>,
    /// Invocations to cover per axis: the grid is `ceil(cover / workgroup)`; the alternative to
    /// `grid`.
    pub cover: Option<Vec<Num>>,
    /// One 32-bit word per entry, or typed members; None: `[scenario].push_constants`.
    pub push_constants: Option<Vec<RawPushEntry>>,
    /// Preprocessor defines for this pass only, added after the variant's.
    #[serde(default)]
    pub defines: BTreeMap<String, toml::Value>,
}

/// The `[measure]` table: how variants are timed, and the declared work of one repetition.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawMeasure {
    /// Untimed repetitions at the start of every batch (0-100000); None: 3.
    pub warmup: Option<u32>,
    /// Length of the warm-up before a case's first round in each mode, ms (0: none); None: 200.
    pub warmup_ms: Option<u64>,
    /// Timed repetitions per batch, at least (1-100000); None: 10.
    pub reps: Option<u32>,
    /// Bytes one repetition (all dispatches) reads.
    pub bytes_read: Option<Num>,
    /// Bytes one repetition writes.
    pub bytes_written: Option<Num>,
    /// Declared shared-memory traffic (bytes read + written) per repetition.
    pub shared_bytes: Option<Num>,
    /// Floating-point operations of one repetition, counted against the FP32 peak.
    pub flops: Option<Num>,
    /// Texel fetches (point / unfiltered, and bilinear), global and shared-memory atomics,
    /// int32 operations, transcendental operations, L1 bytes, and the unique bytes touched.
    pub texels: Option<Num>,
    /// Bilinear texel fetches of one repetition (see `texels`).
    pub texels_linear: Option<Num>,
    /// Global-memory atomic operations of one repetition.
    pub atomics: Option<Num>,
    /// Shared-memory atomic operations of one repetition.
    pub shared_atomics: Option<Num>,
    /// int32 operations of one repetition (a multiply-add counts 2).
    pub int_ops: Option<Num>,
    /// Transcendental operations (exp2, sin, rsqrt, ...) of one repetition.
    pub sfu_ops: Option<Num>,
    /// Bytes served by the L1 in one repetition.
    pub l1_bytes: Option<Num>,
    /// Bytes requested from the L2 in one repetition (every access that misses the L1).
    pub l2_bytes: Option<Num>,
    /// Unique bytes one repetition touches; None: `bytes_read + bytes_written`.
    pub footprint_bytes: Option<Num>,
    /// FP64 flops (an FMA counts 2), packed int8 dot-product operations (8 per dot of four
    /// bytes with its add), int16 and int64 operations (a multiply-add counts 2).
    pub fp64_flops: Option<Num>,
    /// Packed int8 dot-product operations (8 per dot of four bytes with its add).
    pub int8_dot_ops: Option<Num>,
    /// int16 operations (a multiply-add counts 2).
    pub int16_ops: Option<Num>,
    /// int64 operations (a multiply-add counts 2).
    pub int64_ops: Option<Num>,
    /// Tensor-core (cooperative-matrix) operations, 2·M·N·K per multiply-add, and the
    /// `tensor_*` peak they count against (e.g. `tensor_f16_f32`).
    pub tensor_flops: Option<Num>,
    /// FP16 flops (an FMA counts 2, a packed f16vec2 FMA 4), against the FP16 peak.
    pub fp16_flops: Option<Num>,
    /// The `tensor_*` peak `tensor_flops` counts against (e.g. `tensor_f16_f32`); given with it or
    /// not at all.
    pub tensor_unit: Option<String>,
    /// The texture peak `texels` count against (e.g. `texture_fetch_rgba16f`); only with
    /// `texels`; None: `texture_point`.
    pub texture_unit: Option<String>,
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

/// The `[check]` table: what to compare, against what, within which tolerance.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawCheck {
    /// Resources to compare; None: every resource with `output = true`.
    pub outputs: Option<Vec<String>>,
    /// Absolute tolerance: a number, or an expression over params (an error bound that grows
    /// with a size, e.g. the length of a dot product).
    pub tolerance: Option<Num>,
    /// Relative tolerance, likewise.
    pub rel_tolerance: Option<Num>,
    /// A built-in reference's name, or `{ command = [...] }`, or `{ files = { OUT = "x.npy" } }`.
    pub reference: Option<toml::Value>,
    /// The variant (name after expansion) every other one is compared with; None: the first, unless
    /// `reference` is set.
    pub baseline: Option<String>,
    /// "auto" (default), "gpu" or "host".
    pub on: Option<String>,
}

/// One `[[variants]]` entry, before matrix expansion.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawVariant {
    /// Row name (`variant` column); `{key}` templates are filled from matrix keys and params.
    pub name: String,
    /// Shader for the dispatches that name none; None: `[scenario].shader`.
    pub shader: Option<String>,
    /// The entry point of this variant's shader (a dispatch's own `entry` wins).
    pub entry: Option<String>,
    /// `NAME = value` preprocessor defines (bool becomes 1/0, strings are templated).
    #[serde(default)]
    pub defines: BTreeMap<String, toml::Value>,
    /// Specialization constants by SpecId (`"3" = 2.5`): number, bool or expression string.
    #[serde(default)]
    pub spec: BTreeMap<String, toml::Value>,
    /// Workgroup size (1-3 axes); None: `[scenario].workgroup`.
    pub workgroup: Option<Vec<Num>>,
    /// `"default"`, `"full"` or an integer; None: `[scenario].subgroup_size`.
    pub subgroup_size: Option<toml::Value>,
    /// Keys with lists of values: the entry becomes one variant per combination.
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
    /// This variant's own form of input buffers (`[variants.resources.NAME]`): element type,
    /// size and contents, at the resource's set and binding.
    #[serde(default)]
    pub resources: BTreeMap<String, RawOverride>,
}

/// `[variants.resources.NAME]`: what differs in this variant's copy of an input buffer; the
/// keys not given are the resource's own.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawOverride {
    /// The element type (`f16`, `u8`, ...); may hold `{key}` templates of the matrix.
    pub element: Option<String>,
    /// Number of elements; else the resource's count (its bytes / its element size).
    pub count: Option<Num>,
    /// Size in bytes (for a raw layout such as 8-bit quantized blocks); give this or `count`.
    pub size_bytes: Option<Num>,
    /// Initial contents, as the resource's `init` takes them; else the resource's.
    pub init: Option<toml::Value>,
}

/// The declared-work keys of `[measure]`, which a variant may also give in `[variants.measure]`.
/// (A struct of its own because serde cannot both flatten it into [`RawMeasure`] and refuse
/// unknown keys there.)
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawWork {
    /// Bytes one repetition reads (`[measure].bytes_read`).
    pub bytes_read: Option<Num>,
    /// Bytes one repetition writes (`[measure].bytes_written`).
    pub bytes_written: Option<Num>,
    /// FP32 flops of one repetition (`[measure].flops`).
    pub flops: Option<Num>,
    /// Shared-memory bytes read + written per repetition (`[measure].shared_bytes`).
    pub shared_bytes: Option<Num>,
    /// Point-sampled or unfiltered texel fetches per repetition (`[measure].texels`).
    pub texels: Option<Num>,
    /// Bilinear texel fetches per repetition (`[measure].texels_linear`).
    pub texels_linear: Option<Num>,
    /// Global atomic operations per repetition (`[measure].atomics`).
    pub atomics: Option<Num>,
    /// Shared-memory atomic operations per repetition (`[measure].shared_atomics`).
    pub shared_atomics: Option<Num>,
    /// int32 operations per repetition (`[measure].int_ops`).
    pub int_ops: Option<Num>,
    /// Transcendental operations per repetition (`[measure].sfu_ops`).
    pub sfu_ops: Option<Num>,
    /// Bytes served by the L1 per repetition (`[measure].l1_bytes`).
    pub l1_bytes: Option<Num>,
    /// Bytes requested from the L2 per repetition (`[measure].l2_bytes`).
    pub l2_bytes: Option<Num>,
    /// Unique bytes one repetition touches (`[measure].footprint_bytes`).
    pub footprint_bytes: Option<Num>,
    /// FP64 flops (an FMA counts 2), packed int8 dot-product operations (8 per dot of four
    /// bytes with its add), int16 and int64 operations (a multiply-add counts 2).
    pub fp64_flops: Option<Num>,
    /// Packed int8 dot-product operations (`[measure].int8_dot_ops`).
    pub int8_dot_ops: Option<Num>,
    /// int16 operations (`[measure].int16_ops`).
    pub int16_ops: Option<Num>,
    /// int64 operations (`[measure].int64_ops`).
    pub int64_ops: Option<Num>,
    /// Tensor-core (cooperative-matrix) operations, 2·M·N·K per multiply-add, and the
    /// `tensor_*` peak they count against (e.g. `tensor_f16_f32`).
    pub tensor_flops: Option<Num>,
    /// FP16 flops (an FMA counts 2, a packed f16vec2 FMA 4), against the FP16 peak.
    pub fp16_flops: Option<Num>,
    /// The tensor peak `tensor_flops` counts against (`[measure].tensor_unit`).
    pub tensor_unit: Option<String>,
    /// The texture peak `texels` count against (`[measure].texture_unit`).
    pub texture_unit: Option<String>,
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
            texture_unit: self.texture_unit.clone(),
        }
    }
}
