//! Variants: their passes, grids, subgroup sizes and declared work.
use crate::scenario::block::TypedMember;
use crate::scenario::error::Seg;
use crate::scenario::expr::{self, Vars};
use std::path::PathBuf;

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
    /// How the request is written: `default`, `full` or the lane count; the
    /// `subgroup_size_requested` column and `{subgroup_size}` in templates.
    pub fn label(&self) -> String {
        match self {
            SubgroupReq::Default => "default".into(),
            SubgroupReq::Full => "full".into(),
            SubgroupReq::Size(n) => n.to_string(),
        }
    }
}

/// The tensor peaks `[measure].tensor_unit` may name (the unit registry's, crate::units; a
/// test in peaks keeps them equal to the calibrated units).
pub const TENSOR_UNITS: &[&str] = crate::units::TENSOR_PEAKS;

/// The texture peaks `[measure].texture_unit` may name for `texels` (all but
/// `texture_bilinear`, which `texels_linear` counts against): the unit registry's.
pub const TEXTURE_UNITS: &[&str] = crate::units::TEXELS_PEAKS;

/// The texture peak `texels` count against when `[measure].texture_unit` names none: rgba8
/// point-sampled through texture() (what the one texture peak measured before issue 26).
pub const DEFAULT_TEXTURE_UNIT: &str = crate::units::TEXELS_PEAKS[0];

/// Declared work of one repetition (all dispatches of one sample).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Work {
    /// Bytes one repetition reads (`bytes_read` column); None: not declared.
    pub bytes_read: Option<u64>,
    /// Bytes one repetition writes (`bytes_written` column); None: not declared.
    pub bytes_written: Option<u64>,
    /// Floating-point operations of one repetition, against the FP32 peak; None: not declared.
    pub flops: Option<u64>,
    /// Shared-memory bytes read + written per repetition (`shared_bytes`, `shared_pct`); None: not
    /// declared.
    pub shared_bytes: Option<u64>,
    /// Point-sampled or unfiltered texel fetches per repetition (`texture_pct`); None: not
    /// declared.
    pub texels: Option<u64>,
    /// Bilinear texel fetches per repetition (`texture_pct`); None: not declared.
    pub texels_linear: Option<u64>,
    /// Global-memory atomic operations per repetition (`atomic_pct`); None: not declared.
    pub atomics: Option<u64>,
    /// Shared-memory atomic operations per repetition (`shared_atomic_pct`); None: not declared.
    pub shared_atomics: Option<u64>,
    /// int32 operations per repetition, a multiply-add counting 2 (`int_pct`); None: not declared.
    pub int_ops: Option<u64>,
    /// Transcendental operations (exp2, sin, rsqrt, ...) per repetition (`sfu_pct`); None: not
    /// declared.
    pub sfu_ops: Option<u64>,
    /// Bytes served by the L1 per repetition (`l1_pct`); None: not declared.
    pub l1_bytes: Option<u64>,
    /// Bytes requested from the L2 (every access that misses the L1, e.g. every tap).
    pub l2_bytes: Option<u64>,
    /// Unique bytes the repetition touches; `None`: take `bytes()`.
    pub footprint_bytes: Option<u64>,
    /// FP64 flops, packed int8 dot-product operations (8 per dot of four bytes), int16 and
    /// int64 operations.
    pub fp64_flops: Option<u64>,
    /// Packed int8 dot-product operations per repetition (`int8_dot_pct`); None: not declared.
    pub int8_dot_ops: Option<u64>,
    /// int16 operations per repetition, a multiply-add counting 2 (`int16_pct`); None: not
    /// declared.
    pub int16_ops: Option<u64>,
    /// int64 operations per repetition, a multiply-add counting 2 (`int64_pct`); None: not
    /// declared.
    pub int64_ops: Option<u64>,
    /// Tensor-core (cooperative-matrix) operations, 2·M·N·K per multiply-add.
    pub tensor_flops: Option<u64>,
    /// FP16 flops (an FMA counts 2), against the FP16 peak.
    pub fp16_flops: Option<u64>,
    /// The `tensor_*` peak `tensor_flops` counts against (peaks::UNITS), e.g. `tensor_f16_f32`.
    pub tensor_unit: Option<String>,
    /// The texture peak `texels` count against as the scenario names it
    /// (`[measure].texture_unit`, one of [`TEXTURE_UNITS`]); None: not named
    /// ([`Work::texels_unit`] then gives [`DEFAULT_TEXTURE_UNIT`]).
    pub texture_unit: Option<String>,
}

impl Work {
    /// The declared-work keys, as `[measure]` and `[variants.measure]` spell them.
    pub const KEYS: [&'static str; 19] = [
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
        "tensor_flops",
        "fp16_flops",
    ];

    /// Every key with its value, in [`Work::KEYS`] order.
    pub fn entries(&self) -> [(&'static str, Option<u64>); 19] {
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
            "tensor_flops" => &mut self.tensor_flops,
            "fp16_flops" => &mut self.fp16_flops,
            _ => return None,
        })
    }

    /// Bytes read + written (a missing one counts 0); None when neither is declared.
    pub fn bytes(&self) -> Option<u64> {
        match (self.bytes_read, self.bytes_written) {
            (None, None) => None,
            (r, w) => Some(r.unwrap_or(0) + w.unwrap_or(0)),
        }
    }

    /// The texture peak `texels` count against: the named `texture_unit`, else
    /// [`DEFAULT_TEXTURE_UNIT`]; None when no `texels` are declared.
    pub fn texels_unit(&self) -> Option<&str> {
        self.texels?;
        Some(self.texture_unit.as_deref().unwrap_or(DEFAULT_TEXTURE_UNIT))
    }

    /// The unique bytes touched: `footprint_bytes`, else bytes read + written.
    pub fn footprint(&self) -> Option<u64> {
        self.footprint_bytes.or_else(|| self.bytes())
    }
}

/// One variant after matrix expansion: what one row of results.csv (per mode) measures.
#[derive(Debug, Clone)]
pub struct Variant {
    /// The row name (`variant` column), `{key}` templates filled; unique within the scenario.
    pub name: String,
    /// The subgroup size asked for (matrix, variant, else `[scenario].subgroup_size`).
    pub subgroup: SubgroupReq,
    /// Declared workgroup size; `None` means "take the shader's own `local_size`".
    pub workgroup: Option<[u32; 3]>,
    /// Preprocessor defines as (name, value text): matrix keys first, then the variant's `defines`
    /// (which replace a matrix define of the same name).
    pub defines: Vec<(String, String)>,
    /// Specialization constants by SpecId, as numbers (converted to the shader's type).
    pub spec: Vec<(u32, f64)>,
    /// params and matrix values: the names expressions of this variant may use.
    pub vars: Vars,
    /// The passes one repetition runs, in order: the variant's own `[[variants.dispatch]]`, else
    /// the scenario's `[[dispatch]]`.
    pub passes: Vec<PassSpec>,
    /// The declared work: the variant's `[variants.measure]` keys over `[measure]`'s.
    pub work: Work,
    /// The work keys the variant gives itself (`[variants.measure]`), in [`Work::KEYS`] order.
    pub work_own: Vec<&'static str>,
    /// Device features or extensions the variant needs.
    pub requires: Vec<String>,
    /// This variant's own form of some input buffers (`[variants.resources.NAME]`), each at its
    /// resource's set and binding, in place of the case's for this variant only.
    pub resources: Vec<crate::scenario::Resource>,
    /// Where it is written in the scenario file (`variants[i]`), for errors.
    pub key: Vec<Seg>,
    /// Where its workgroup size is written (the variant, its matrix or `[scenario]`); `None`
    /// when the shader's own `local_size` decides.
    pub workgroup_key: Option<Vec<Seg>>,
}

/// One pass of a variant, expressions not yet evaluated (they may use `wg_x`/`wg_y`/`wg_z`).
#[derive(Debug, Clone)]
pub struct PassSpec {
    /// The dispatch's `name`, else `pass0`, `pass1`, ... by position; used in messages and
    /// multi-pass metric names.
    pub name: String,
    /// Where the pass is written: `dispatch[i]`, or `variants[v].dispatch[i]` for a variant's
    /// own passes.
    pub key: Vec<Seg>,
    /// The shader file, resolved to a path (next to the scenario, its parent folder, or the working
    /// directory).
    pub shader: PathBuf,
    /// The compute entry point: `main` for GLSL; the HLSL function or the SPIR-V entry point.
    pub entry: String,
    /// The pass's own `workgroup`, overriding the variant's; None: the variant's.
    pub workgroup: Option<[u32; 3]>,
    /// The pass's `grid` or `cover` expressions, per axis.
    pub grid: GridSpec,
    /// One expression per 32-bit word: the dispatch's own list, else `[scenario].push_constants`;
    /// None when neither gives any, or when they are typed members (`push_block`).
    pub push_constants: Option<Vec<String>>,
    /// The push-constant block as typed members (the list's other form); None when the push
    /// constants are words or absent.
    pub push_block: Option<Vec<TypedMember>>,
    /// Defines for this pass only, after the variant's.
    pub defines: Vec<(String, String)>,
    /// Where the pass's shader, workgroup and push constants are written, for errors.
    pub shader_key: Vec<Seg>,
    /// Where the pass's own `workgroup` is written (`dispatch[i].workgroup`); None when it has
    /// none.
    pub workgroup_key: Option<Vec<Seg>>,
    /// Where the push constants are written (the dispatch or `[scenario]`); None without push
    /// constants.
    pub push_key: Option<Vec<Seg>>,
}

/// A pass's grid as written: workgroups, or invocations to cover; three expressions each (a missing
/// axis is `1`).
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
    /// The workgroup size that runs (x, y, z).
    pub workgroup: [u32; 3],
    /// Workgroups per axis (x, y, z), each at least 1.
    pub grid: [u32; 3],
    /// The push-constant words (negative values wrapped as two's complement; a typed block's
    /// bytes, zero-padded to whole words); None without push constants.
    pub push_constants: Option<Vec<u32>>,
}

impl ResolvedPass {
    /// Invocations the pass launches: workgroup size × grid, over all three axes.
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
        let push_constants = match (&pass.push_constants, &pass.push_block) {
            (_, Some(block)) => {
                let bytes = crate::scenario::block::encode(block, &vars)
                    .map_err(|(i, why)| format!("push constant `{}`: {why}", block[i].name))?;
                Some(
                    bytes
                        .chunks_exact(4)
                        .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
                        .collect(),
                )
            }
            (None, None) => None,
            (Some(list), None) => Some(
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

#[cfg(test)]
mod registry_tests {
    use super::Work;

    /// Every `[measure]` work key is a registered unit's (crate::units) or one of its other
    /// keys, and every registered key is one the parser reads.
    #[test]
    fn the_work_keys_are_the_unit_registrys() {
        let mut registered: Vec<&str> = crate::units::DECLARED
            .iter()
            .flat_map(|u| u.work.iter().copied())
            .chain(crate::units::OTHER_WORK_KEYS.iter().copied())
            .collect();
        registered.sort();
        let mut keys = Work::KEYS.to_vec();
        keys.sort();
        assert_eq!(keys, registered);
    }
}
