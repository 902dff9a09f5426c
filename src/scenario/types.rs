//! The resolved scenario: every expression over params evaluated, every matrix expanded.
use crate::scenario::error::Seg;
use crate::scenario::expr::{self, Vars};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// Shader compiler optimization level.
pub use crate::shader::OptLevel;

#[derive(Debug, Clone)]
pub struct Scenario {
    pub name: String,
    /// The scenario file as the user named it.
    pub path: PathBuf,
    pub description: String,
    pub source: String,
    /// The file's text, for errors found after loading (file, line and key).
    pub text: String,
    pub requires: Vec<String>,
    pub opt: OptLevel,
    /// The `[profiles.NAME]` applied, if any.
    pub profile: Option<String>,
    pub cases: Vec<Case>,
}

/// One point of the params sweep: the resources and variants run with those param values.
#[derive(Debug, Clone)]
pub struct Case {
    pub params: BTreeMap<String, f64>,
    /// `k=v;k=v`, sorted by key: the `params` column of the CSVs.
    pub params_label: String,
    pub resources: Vec<Resource>,
    pub check: Option<Check>,
    pub variants: Vec<Variant>,
    /// Measurement modes: each gives its own row.
    pub modes: Vec<Mode>,
    /// Bytes written before each timed repetition in cold mode, to evict the L2.
    pub cold_bytes: u64,
    /// How cold mode evicts the L2 (`measure.evict`, `--evict`).
    pub evict: Evict,
    /// What every round after the first makes anew (`measure.fresh`, `--fresh`).
    pub fresh: Fresh,
    /// After the rounds, one more round with the resources moved to new memory
    /// (`measure.placement_check`, `--no-placement-check`).
    pub placement_check: bool,
    pub warmup: u32,
    /// Minimum warm-up time before the timed repetitions, in ms.
    pub warmup_ms: u64,
    /// Timed repetitions per batch (at least; short dispatches get more).
    pub reps: u32,
    pub timeout_ms: u64,
    /// The adaptive length of the rounds (docs/scenarios.md, `[measure]`).
    pub rounds: u32,
    pub max_rounds: u32,
    pub ci_target_pct: f64,
    pub budget_ms: f64,
    /// Hardware counters to capture, as names or globs (`measure.counters`).
    pub counters: Vec<String>,
    /// Per-subgroup probes (`measure.probe`): compile with `P3_PROBE_GROUPS` and bind the
    /// subgroup records at set 3, binding 1.
    pub probe: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Resource {
    pub name: String,
    pub set: u32,
    pub binding: u32,
    /// Element of the descriptor array at (set, binding); 0 for a plain binding.
    pub index: u32,
    pub kind: ResourceKind,
    pub init: Init,
    /// Read back after the run and compared by the check.
    pub output: bool,
    /// Where it is written in the scenario file (`resources[i]`), for errors.
    pub key: Vec<Seg>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum ResourceKind {
    Buffer {
        element: Elem,
        bytes: u64,
    },
    Image {
        format: ImageFormat,
        width: u32,
        height: u32,
        usage: ImageUsage,
        linear: bool,
    },
}

impl Resource {
    /// Size in bytes of the resource's contents (tightly packed for images).
    pub fn bytes(&self) -> u64 {
        match &self.kind {
            ResourceKind::Buffer { bytes, .. } => *bytes,
            ResourceKind::Image {
                format,
                width,
                height,
                ..
            } => *width as u64 * *height as u64 * format.texel_bytes() as u64,
        }
    }

    /// The scalar type of each element of the contents.
    pub fn element(&self) -> Elem {
        match &self.kind {
            ResourceKind::Buffer { element, .. } => *element,
            ResourceKind::Image { format, .. } => format.element(),
        }
    }
}

/// Scalar element types for buffer contents.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Elem {
    F32,
    U32,
    I32,
    F16,
    U8,
}

impl Elem {
    pub fn parse(s: &str) -> Option<Elem> {
        Some(match s {
            "f32" | "float" => Elem::F32,
            "u32" | "uint" => Elem::U32,
            "i32" | "int" => Elem::I32,
            "f16" | "half" => Elem::F16,
            "u8" => Elem::U8,
            _ => return None,
        })
    }
    pub fn bytes(self) -> u64 {
        match self {
            Elem::F32 | Elem::U32 | Elem::I32 => 4,
            Elem::F16 => 2,
            Elem::U8 => 1,
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            Elem::F32 => "f32",
            Elem::U32 => "u32",
            Elem::I32 => "i32",
            Elem::F16 => "f16",
            Elem::U8 => "u8",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImageFormat {
    Rgba32f,
    Rgba16f,
    R32f,
    Rgba8,
    R32ui,
}

impl ImageFormat {
    pub fn parse(s: &str) -> Option<ImageFormat> {
        Some(match s.to_ascii_lowercase().as_str() {
            "rgba32f" => ImageFormat::Rgba32f,
            "rgba16f" => ImageFormat::Rgba16f,
            "r32f" => ImageFormat::R32f,
            "rgba8" => ImageFormat::Rgba8,
            "r32ui" => ImageFormat::R32ui,
            _ => return None,
        })
    }
    pub fn texel_bytes(self) -> u32 {
        match self {
            ImageFormat::Rgba32f => 16,
            ImageFormat::Rgba16f => 8,
            ImageFormat::R32f | ImageFormat::Rgba8 | ImageFormat::R32ui => 4,
        }
    }
    pub fn element(self) -> Elem {
        match self {
            ImageFormat::Rgba32f | ImageFormat::R32f => Elem::F32,
            ImageFormat::Rgba16f => Elem::F16,
            ImageFormat::Rgba8 => Elem::U8,
            ImageFormat::R32ui => Elem::U32,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImageUsage {
    Storage,
    Sampled,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Init {
    Zero,
    Constant(f64),
    Ramp {
        start: f64,
        step: f64,
    },
    Random {
        seed: u64,
        min: f64,
        max: f64,
    },
    /// Contents from a file (`init = { file = "frame.npy" }`), its path resolved against the
    /// scenario's folder and its type and size checked when the scenario loaded.
    File {
        path: PathBuf,
        format: FileFormat,
    },
}

/// The kinds of file an `init` can read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileFormat {
    /// NumPy `.npy`: dtype and element count (shape for images) must fit the resource.
    Npy,
    /// An 8-bit RGBA or RGB PNG, for `rgba8` images.
    Png,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Check {
    pub outputs: Vec<String>,
    pub tolerance: f64,
    pub rel_tolerance: f64,
    pub reference: Option<Reference>,
    /// The variant every other variant is compared with; `None` when only a CPU reference checks.
    pub baseline: Option<String>,
    /// Where outputs are compared (`[check] on`).
    pub on: CheckOn,
}

/// Where a check's expected outputs come from (`[check] reference`).
#[derive(Debug, Clone, PartialEq)]
pub enum Reference {
    /// A built-in CPU reference (src/scenario/refs), by name.
    Builtin(String),
    /// A command run in a scratch folder holding the case's inputs as `NAME.npy` and its
    /// params as `params.json`; it writes `NAME.npy` for each checked output.
    Command {
        /// The command and its arguments; an argument naming a file next to the scenario is
        /// made absolute.
        argv: Vec<String>,
        timeout_s: f64,
    },
    /// Precomputed answers: (output, `.npy` file) per checked output, resolved for this case.
    Files(Vec<(String, PathBuf)>),
}

impl Reference {
    /// How messages name it: "`tiling_filter`", "command `python3 ref.py`", "files".
    pub fn label(&self) -> String {
        match self {
            Reference::Builtin(n) => format!("`{n}`"),
            Reference::Command { argv, .. } => format!("command `{}`", argv.join(" ")),
            Reference::Files(_) => "files".into(),
        }
    }
}

/// Where a check compares outputs: on the GPU with a compare shader (only a mismatch count and
/// the first mismatch come back), or on the host after reading them back.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CheckOn {
    /// The GPU when a checked output is 1 MiB or larger, else the host.
    #[default]
    Auto,
    Gpu,
    Host,
}

/// What is made anew before each round after the first (`[measure] fresh`, `--fresh`).
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Default,
    serde::Serialize,
    serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum Fresh {
    /// One instance for all rounds.
    #[default]
    None,
    /// The variants' pipelines.
    Pipelines,
    /// The case's buffers and images (moved to new memory, contents kept).
    Resources,
    /// Both.
    All,
}

impl Fresh {
    pub const NAMES: [&'static str; 4] = ["all", "pipelines", "resources", "none"];

    pub fn parse(s: &str) -> Option<Fresh> {
        Some(match s {
            "all" => Fresh::All,
            "pipelines" => Fresh::Pipelines,
            "resources" => Fresh::Resources,
            "none" => Fresh::None,
            _ => return None,
        })
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Fresh::All => "all",
            Fresh::Pipelines => "pipelines",
            Fresh::Resources => "resources",
            Fresh::None => "none",
        }
    }

    pub fn pipelines(self) -> bool {
        matches!(self, Fresh::All | Fresh::Pipelines)
    }

    pub fn resources(self) -> bool {
        matches!(self, Fresh::All | Fresh::Resources)
    }
}

/// How cold mode evicts the L2 before each repetition.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Evict {
    /// A compute pass reads `cold_bytes` of a buffer of p3lab's own: the L2 ends up full of
    /// clean lines, so nothing is written back inside the timed window.
    #[default]
    Read,
    /// `vkCmdFillBuffer` writes `cold_bytes`: the L2 ends up full of dirty lines, which the
    /// timed work then pays to write back (p3lab before issue 12).
    Write,
}

impl Evict {
    pub fn label(self) -> &'static str {
        match self {
            Evict::Read => "read",
            Evict::Write => "write",
        }
    }

    pub fn parse(s: &str) -> Option<Evict> {
        match s {
            "read" => Some(Evict::Read),
            "write" => Some(Evict::Write),
            _ => None,
        }
    }
}

/// How the caches stand when a repetition starts.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// Back-to-back repetitions: whatever the previous one left in the caches.
    Warm,
    /// The L2 evicted before every repetition, as a full-screen pass meets it in a frame.
    Cold,
}

impl Mode {
    pub fn label(self) -> &'static str {
        match self {
            Mode::Warm => "warm",
            Mode::Cold => "cold",
        }
    }

    pub fn parse(s: &str) -> Option<Mode> {
        match s {
            "warm" => Some(Mode::Warm),
            "cold" => Some(Mode::Cold),
            _ => None,
        }
    }
}

impl std::fmt::Display for Mode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.label())
    }
}

impl std::fmt::Display for Fresh {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The subgroup size a variant asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SubgroupReq {
    /// Whatever the driver picks.
    Default,
    /// Any size, but every subgroup full (VK_PIPELINE_SHADER_STAGE_CREATE_REQUIRE_FULL_SUBGROUPS).
    Full,
    /// Exactly N lanes (VkPipelineShaderStageRequiredSubgroupSizeCreateInfo).
    Size(u32),
}

impl SubgroupReq {
    pub fn label(&self) -> String {
        match self {
            SubgroupReq::Default => "default".into(),
            SubgroupReq::Full => "full".into(),
            SubgroupReq::Size(n) => n.to_string(),
        }
    }
}

/// Declared work of one repetition (all dispatches of one sample).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Work {
    pub bytes_read: Option<u64>,
    pub bytes_written: Option<u64>,
    pub flops: Option<u64>,
    pub shared_bytes: Option<u64>,
    pub texels: Option<u64>,
    pub texels_linear: Option<u64>,
    pub atomics: Option<u64>,
    pub shared_atomics: Option<u64>,
    pub int_ops: Option<u64>,
    pub sfu_ops: Option<u64>,
    pub l1_bytes: Option<u64>,
    /// Bytes requested from the L2 (every access that misses the L1, e.g. every tap).
    pub l2_bytes: Option<u64>,
    /// Unique bytes the repetition touches; `None`: take `bytes()`.
    pub footprint_bytes: Option<u64>,
    /// FP64 flops, packed int8 dot-product operations (8 per dot of four bytes), int16 and
    /// int64 operations.
    pub fp64_flops: Option<u64>,
    pub int8_dot_ops: Option<u64>,
    pub int16_ops: Option<u64>,
    pub int64_ops: Option<u64>,
}

impl Work {
    /// The declared-work keys, as `[measure]` and `[variants.measure]` spell them.
    pub const KEYS: [&'static str; 17] = [
        "bytes_read",
        "bytes_written",
        "flops",
        "shared_bytes",
        "texels",
        "texels_linear",
        "atomics",
        "shared_atomics",
        "int_ops",
        "sfu_ops",
        "l1_bytes",
        "l2_bytes",
        "footprint_bytes",
        "fp64_flops",
        "int8_dot_ops",
        "int16_ops",
        "int64_ops",
    ];

    /// Every key with its value, in [`Work::KEYS`] order.
    pub fn entries(&self) -> [(&'static str, Option<u64>); 17] {
        let mut copy = self.clone();
        Self::KEYS.map(|key| (key, *copy.slot(key).expect("one of KEYS")))
    }

    /// The field a key names; `None` for a name that is not one of [`Work::KEYS`].
    pub fn slot(&mut self, key: &str) -> Option<&mut Option<u64>> {
        Some(match key {
            "bytes_read" => &mut self.bytes_read,
            "bytes_written" => &mut self.bytes_written,
            "flops" => &mut self.flops,
            "shared_bytes" => &mut self.shared_bytes,
            "texels" => &mut self.texels,
            "texels_linear" => &mut self.texels_linear,
            "atomics" => &mut self.atomics,
            "shared_atomics" => &mut self.shared_atomics,
            "int_ops" => &mut self.int_ops,
            "sfu_ops" => &mut self.sfu_ops,
            "l1_bytes" => &mut self.l1_bytes,
            "l2_bytes" => &mut self.l2_bytes,
            "footprint_bytes" => &mut self.footprint_bytes,
            "fp64_flops" => &mut self.fp64_flops,
            "int8_dot_ops" => &mut self.int8_dot_ops,
            "int16_ops" => &mut self.int16_ops,
            "int64_ops" => &mut self.int64_ops,
            _ => return None,
        })
    }

    pub fn bytes(&self) -> Option<u64> {
        match (self.bytes_read, self.bytes_written) {
            (None, None) => None,
            (r, w) => Some(r.unwrap_or(0) + w.unwrap_or(0)),
        }
    }

    /// The unique bytes touched: `footprint_bytes`, else bytes read + written.
    pub fn footprint(&self) -> Option<u64> {
        self.footprint_bytes.or_else(|| self.bytes())
    }
}

#[derive(Debug, Clone)]
pub struct Variant {
    pub name: String,
    pub subgroup: SubgroupReq,
    /// Declared workgroup size; `None` means "take the shader's own `local_size`".
    pub workgroup: Option<[u32; 3]>,
    pub defines: Vec<(String, String)>,
    /// Specialization constants by SpecId, as numbers (converted to the shader's type).
    pub spec: Vec<(u32, f64)>,
    /// params and matrix values: the names expressions of this variant may use.
    pub vars: Vars,
    pub passes: Vec<PassSpec>,
    /// The declared work: the variant's `[variants.measure]` keys over `[measure]`'s.
    pub work: Work,
    /// The work keys the variant gives itself (`[variants.measure]`), in [`Work::KEYS`] order.
    pub work_own: Vec<&'static str>,
    /// Device features or extensions the variant needs.
    pub requires: Vec<String>,
    /// Where it is written in the scenario file (`variants[i]`), for errors.
    pub key: Vec<Seg>,
    /// Where its workgroup size is written (the variant, its matrix or `[scenario]`); `None`
    /// when the shader's own `local_size` decides.
    pub workgroup_key: Option<Vec<Seg>>,
}

#[derive(Debug, Clone)]
pub struct PassSpec {
    pub name: String,
    /// Where the pass is written: `dispatch[i]`, or `variants[v].dispatch[i]` for a variant's
    /// own passes.
    pub key: Vec<Seg>,
    pub shader: PathBuf,
    /// The compute entry point: `main` for GLSL; the HLSL function or the SPIR-V entry point.
    pub entry: String,
    pub workgroup: Option<[u32; 3]>,
    pub grid: GridSpec,
    pub push_constants: Option<Vec<String>>,
    /// Defines for this pass only, after the variant's.
    pub defines: Vec<(String, String)>,
    /// Where the pass's shader, workgroup and push constants are written, for errors.
    pub shader_key: Vec<Seg>,
    pub workgroup_key: Option<Vec<Seg>>,
    pub push_key: Option<Vec<Seg>>,
}

#[derive(Debug, Clone)]
pub enum GridSpec {
    /// Number of workgroups per dimension.
    Grid([String; 3]),
    /// Invocations to cover per dimension; the grid is `ceil(cover / workgroup)`.
    Cover([String; 3]),
}

/// A pass with its numbers final: what the runner records into a command buffer.
#[derive(Debug, Clone, PartialEq)]
pub struct ResolvedPass {
    pub workgroup: [u32; 3],
    pub grid: [u32; 3],
    pub push_constants: Option<Vec<u32>>,
}

impl ResolvedPass {
    pub fn invocations(&self) -> u64 {
        (0..3)
            .map(|i| self.workgroup[i] as u64 * self.grid[i] as u64)
            .product()
    }
}

impl Variant {
    /// Evaluate a pass's grid given the workgroup size that will run.
    pub fn resolve_pass(
        &self,
        pass: &PassSpec,
        workgroup: [u32; 3],
    ) -> Result<ResolvedPass, String> {
        let mut vars = self.vars.clone();
        for (i, axis) in ["wg_x", "wg_y", "wg_z"].iter().enumerate() {
            vars.insert(axis.to_string(), workgroup[i] as f64);
        }
        let mut grid = [0u32; 3];
        let (exprs, cover) = match &pass.grid {
            GridSpec::Grid(e) => (e, false),
            GridSpec::Cover(e) => (e, true),
        };
        for i in 0..3 {
            let v = expr::eval_u64(&exprs[i], &vars).map_err(|e| e.to_string())?;
            let g = if cover {
                v.div_ceil(workgroup[i] as u64)
            } else {
                v
            };
            if g == 0 {
                return Err(format!(
                    "pass `{}` has an empty grid along {} ({} = 0): nothing would run",
                    pass.name,
                    ["x", "y", "z"][i],
                    exprs[i]
                ));
            }
            grid[i] = u32::try_from(g)
                .map_err(|_| format!("pass `{}`: grid {} is too large", pass.name, g))?;
        }
        let push_constants = match &pass.push_constants {
            None => None,
            Some(list) => Some(
                list.iter()
                    .map(|e| {
                        let v = expr::eval_i64(e, &vars).map_err(|err| err.to_string())?;
                        // Push constants are 32-bit words: negative values wrap as two's complement.
                        if v < i32::MIN as i64 || v > u32::MAX as i64 {
                            return Err(format!(
                                "push constant `{e}` = {v} does not fit in 32 bits"
                            ));
                        }
                        Ok(v as u32)
                    })
                    .collect::<Result<Vec<_>, String>>()?,
            ),
        };
        Ok(ResolvedPass {
            workgroup,
            grid,
            push_constants,
        })
    }
}
