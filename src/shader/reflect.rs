//! Reads descriptor bindings, workgroup size, spec constants and push-constant size out of SPIR-V.

use std::collections::{HashMap, HashSet};

use rspirv::dr::{Instruction, Module, Operand};

mod block;
mod shared;
pub use block::{BlockMember, MemberType, Scalar};
use rspirv::spirv::{
    BuiltIn, Capability, Decoration, ExecutionMode, ExecutionModel, Op, StorageClass, Word,
};
pub use shared::{SharedLen, SharedVar, SpecOp};

/// What a shader binding is, from its SPIR-V storage class and type: matched against the scenario's
/// resources.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum DescriptorKind {
    /// A storage buffer (`StorageBuffer` class, or `Uniform` with `BufferBlock`).
    StorageBuffer,
    /// A uniform buffer (`Uniform` class without `BufferBlock`): GLSL's `uniform` block, HLSL's
    /// `cbuffer` and `$Global`.
    UniformBuffer,
    /// A storage image (`OpTypeImage` with Sampled = 2: read/write, no sampler).
    StorageImage,
    /// A combined image sampler (`OpTypeSampledImage`, GLSL's `sampler2D`).
    CombinedImageSampler,
    /// A separate sampled image (`OpTypeImage` with Sampled other than 2); p3lab binds none.
    SampledImage,
    /// A separate sampler (`OpTypeSampler`); p3lab binds none.
    Sampler,
    /// Anything else (acceleration structures, ...).
    Other,
}

/// One descriptor binding a shader declares.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Binding {
    /// Descriptor set.
    pub set: u32,
    /// Binding within the set.
    pub binding: u32,
    /// What it is.
    pub kind: DescriptorKind,
    /// Variable name, else block type name, else empty (optimised SPIR-V carries no names).
    pub name: String,
    /// A uniform buffer's members as laid out (empty for every other kind).
    pub members: Vec<BlockMember>,
}

/// What reflection found in one SPIR-V module: entry points, bindings, workgroup size, spec
/// constants, push constants, subgroup use and shared memory.
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Serialize)]
pub struct Reflection {
    /// The name of the module's (first) GLCompute entry point: `main` for GLSL, the HLSL
    /// function's name, whatever a `.spv` file says.
    pub entry_point: String,
    /// Every GLCompute entry point's name, in module order.
    pub entry_points: Vec<String>,
    /// Sorted by (set, binding). From SPIR-V 1.4 on only those in the entry points'
    /// interfaces (i.e. statically used); before that every declared one.
    pub bindings: Vec<Binding>,
    /// Literal `LocalSize`, or the spec constants' default values when the size comes from them.
    pub local_size: Option<[u32; 3]>,
    /// SpecId per component when the workgroup size comes from spec constants.
    pub local_size_spec_ids: [Option<u32>; 3],
    /// (SpecId, "u32"/"i32"/"f32"/"bool" or other type name), sorted by SpecId.
    pub spec_constants: Vec<(u32, String)>,
    /// Size of the push-constant block; 0 if none.
    pub push_constant_bytes: u32,
    /// The push-constant block's members as laid out; empty if none.
    pub push_members: Vec<BlockMember>,
    /// Any `GroupNonUniform*` capability declared.
    pub uses_subgroup_ops: bool,
    /// Total bytes of the Workgroup-storage (`shared`) variables with every spec constant at
    /// its default value (a `gl_WorkGroupSize`-sized array counts as the shader's default size,
    /// usually 1). Variables whose size cannot be worked out count 0 here; the real figure for
    /// a specialization comes from [`Reflection::shared_bytes_with`].
    pub shared_bytes: u32,
    /// The `shared` variables the entry point uses (every declared one before SPIR-V 1.4).
    pub shared_vars: Vec<SharedVar>,
}

impl Reflection {
    /// Total `shared` bytes once specialized: `spec` gives a spec constant's value by SpecId
    /// (the workgroup size's included), `None` for its default. `None` when any variable's
    /// size cannot be computed.
    pub fn shared_bytes_with(&self, spec: &dyn Fn(u32) -> Option<i64>) -> Option<u64> {
        self.shared_vars
            .iter()
            .try_fold(0u64, |acc, v| acc.checked_add(v.bytes_with(spec)?))
    }
}

/// Reflect a SPIR-V module (as 32-bit words); an error when rspirv cannot parse it.
pub fn reflect(spirv: &[u32]) -> Result<Reflection, String> {
    let (words, mode_ids) = split_execution_mode_ids(spirv)?;
    let module = rspirv::dr::load_words(words).map_err(|e| format!("invalid SPIR-V: {e}"))?;
    let mut reflector = Reflector::new(&module);
    reflector.mode_ids = mode_ids;
    Ok(reflector.run())
}

/// SPV_KHR_bfloat16's capabilities (BFloat16TypeKHR, BFloat16DotProductKHR,
/// BFloat16CooperativeMatrixKHR), newer than rspirv 0.12's grammar.
const BFLOAT16_CAPABILITIES: [u32; 3] = [5116, 5117, 5118];

/// `OpExecutionModeId` operands after the entry point: (mode, ids).
type ModeIds = Vec<(u32, Vec<Word>)>;

/// rspirv's loader rejects `OpExecutionModeId`, which glslang emits for every workgroup size
/// when targeting SPIR-V 1.6, so those instructions are taken out and decoded here. It also
/// rejects the cooperative-matrix types (`OpTypeCooperativeMatrixKHR`/`NV`: it does not count
/// them as types), which reflection has no use for (no descriptor, push constant or `shared`
/// variable can hold one): each becomes an `OpTypeOpaque` of the same id. SPV_KHR_bfloat16's
/// capabilities and its encoding operand of `OpTypeFloat` are unknown to it too.
fn split_execution_mode_ids(spirv: &[u32]) -> Result<(Vec<u32>, ModeIds), String> {
    const HEADER: usize = 5;
    if spirv.len() < HEADER {
        return Err("invalid SPIR-V: shorter than its header".into());
    }
    let mut words = spirv[..HEADER].to_vec();
    let mut modes = Vec::new();
    let mut at = HEADER;
    while at < spirv.len() {
        let count = (spirv[at] >> 16) as usize;
        let opcode = spirv[at] & 0xffff;
        if count == 0 || at + count > spirv.len() {
            return Err(format!(
                "invalid SPIR-V: bad instruction length at word {at}"
            ));
        }
        let inst = &spirv[at..at + count];
        if opcode == Op::ExecutionModeId as u32 && count >= 3 {
            modes.push((inst[2], inst[3..].to_vec()));
        } else if opcode == Op::Capability as u32
            && count == 2
            && BFLOAT16_CAPABILITIES.contains(&inst[1])
        {
            // Capabilities rspirv 0.12 cannot decode; reflection does not read them.
        } else if opcode == Op::TypeFloat as u32 && count == 4 {
            // OpTypeFloat %id 16 BFloat16KHR (SPV_KHR_bfloat16): a 16-bit float to reflection,
            // which only needs its size.
            words.extend_from_slice(&[(3 << 16) | Op::TypeFloat as u32, inst[1], inst[2]]);
        } else if (opcode == Op::TypeCooperativeMatrixKHR as u32
            || opcode == Op::TypeCooperativeMatrixNV as u32)
            && count >= 2
        {
            // OpTypeOpaque %id "coopmat": 4 words, the name NUL-terminated in two.
            let name = u32::from_le_bytes(*b"coop");
            let rest = u32::from_le_bytes(*b"mat\0");
            words.extend_from_slice(&[(4 << 16) | Op::TypeOpaque as u32, inst[1], name, rest]);
        } else {
            words.extend_from_slice(inst);
        }
        at += count;
    }
    Ok((words, modes))
}

struct Reflector<'m> {
    module: &'m Module,
    defs: HashMap<Word, &'m Instruction>,
    names: HashMap<Word, String>,
    decorations: HashMap<Word, Vec<(Decoration, Vec<Operand>)>>,
    member_offsets: HashMap<(Word, u32), u32>,
    mode_ids: ModeIds,
}

impl<'m> Reflector<'m> {
    fn new(module: &'m Module) -> Self {
        let defs = module
            .types_global_values
            .iter()
            .filter_map(|i| i.result_id.map(|id| (id, i)))
            .collect();
        let mut names = HashMap::new();
        for i in &module.debug_names {
            if let (Op::Name, [Operand::IdRef(id), Operand::LiteralString(s), ..]) =
                (i.class.opcode, i.operands.as_slice())
            {
                names.insert(*id, s.clone());
            }
        }
        let mut decorations: HashMap<Word, Vec<(Decoration, Vec<Operand>)>> = HashMap::new();
        let mut member_offsets = HashMap::new();
        for i in &module.annotations {
            match (i.class.opcode, i.operands.as_slice()) {
                (Op::Decorate, [Operand::IdRef(id), Operand::Decoration(d), rest @ ..]) => {
                    decorations
                        .entry(*id)
                        .or_default()
                        .push((*d, rest.to_vec()));
                }
                (
                    Op::MemberDecorate,
                    [Operand::IdRef(id), Operand::LiteralBit32(member), Operand::Decoration(Decoration::Offset), Operand::LiteralBit32(off), ..],
                ) => {
                    member_offsets.insert((*id, *member), *off);
                }
                _ => {}
            }
        }
        Self {
            module,
            defs,
            names,
            decorations,
            member_offsets,
            mode_ids: Vec::new(),
        }
    }

    fn run(&self) -> Reflection {
        let uses_subgroup_ops = self.module.capabilities.iter().any(|i| {
            matches!(
                i.operands.first(),
                Some(Operand::Capability(
                    Capability::GroupNonUniform
                        | Capability::GroupNonUniformVote
                        | Capability::GroupNonUniformArithmetic
                        | Capability::GroupNonUniformBallot
                        | Capability::GroupNonUniformShuffle
                        | Capability::GroupNonUniformShuffleRelative
                        | Capability::GroupNonUniformClustered
                        | Capability::GroupNonUniformQuad
                        | Capability::GroupNonUniformPartitionedNV
                        | Capability::GroupNonUniformRotateKHR
                ))
            )
        });
        let (local_size, local_size_spec_ids) = self.workgroup_size();
        let shared_vars = self.shared_vars();
        let shared_bytes = shared_vars
            .iter()
            .filter_map(|v| v.bytes_with(&|_| None))
            .fold(0u64, u64::saturating_add);
        let entry_points: Vec<String> = self
            .module
            .entry_points
            .iter()
            .filter_map(|e| match e.operands.as_slice() {
                [Operand::ExecutionModel(ExecutionModel::GLCompute), _, Operand::LiteralString(n), ..] => {
                    Some(n.clone())
                }
                _ => None,
            })
            .collect();
        Reflection {
            entry_point: entry_points.first().cloned().unwrap_or_default(),
            entry_points,
            bindings: self.bindings(),
            local_size,
            local_size_spec_ids,
            spec_constants: self.spec_constants(),
            push_constant_bytes: self.push_constant_bytes(),
            push_members: self.push_members(),
            uses_subgroup_ops,
            shared_bytes: u32::try_from(shared_bytes).unwrap_or(u32::MAX),
            shared_vars,
        }
    }

    /// Globals in the entry points' interfaces from SPIR-V 1.4 on; `None` (take every
    /// declared one) before, when the interface lists only Input/Output.
    fn interface(&self) -> Option<HashSet<Word>> {
        let version = self.module.header.as_ref().map_or(0, |h| h.version);
        (version >= 0x0001_0400).then(|| {
            self.module
                .entry_points
                .iter()
                .flat_map(|e| e.operands.iter().skip(3))
                .filter_map(|o| match o {
                    Operand::IdRef(id) => Some(*id),
                    _ => None,
                })
                .collect()
        })
    }

    fn decoration(&self, id: Word, d: Decoration) -> Option<&[Operand]> {
        self.decorations
            .get(&id)?
            .iter()
            .find(|(dd, _)| *dd == d)
            .map(|(_, ops)| ops.as_slice())
    }

    fn decoration_u32(&self, id: Word, d: Decoration) -> Option<u32> {
        match self.decoration(id, d)? {
            [Operand::LiteralBit32(v), ..] => Some(*v),
            _ => None,
        }
    }

    fn def(&self, id: Word) -> Option<&'m Instruction> {
        self.defs.get(&id).copied()
    }

    fn id_operand(i: &Instruction, n: usize) -> Option<Word> {
        match i.operands.get(n)? {
            Operand::IdRef(id) => Some(*id),
            _ => None,
        }
    }

    fn lit_operand(i: &Instruction, n: usize) -> Option<u32> {
        match i.operands.get(n)? {
            Operand::LiteralBit32(v) => Some(*v),
            _ => None,
        }
    }

    fn storage_class(i: &Instruction) -> Option<StorageClass> {
        match i.operands.first()? {
            Operand::StorageClass(sc) => Some(*sc),
            _ => None,
        }
    }

    /// Strips pointers and (runtime) arrays, since descriptor arrays share one binding.
    fn base_type(&self, mut ty: Word) -> Option<&'m Instruction> {
        loop {
            let t = self.def(ty)?;
            ty = match t.class.opcode {
                Op::TypePointer => Self::id_operand(t, 1)?,
                Op::TypeArray | Op::TypeRuntimeArray => Self::id_operand(t, 0)?,
                _ => return Some(t),
            };
        }
    }

    fn bindings(&self) -> Vec<Binding> {
        // From 1.4 the interface lists every global the entry point uses, which is what a
        // pipeline layout must cover; older modules list only Input/Output, so take all.
        let interface = self.interface();
        let mut out = Vec::new();
        for var in &self.module.types_global_values {
            if var.class.opcode != Op::Variable {
                continue;
            }
            let (Some(id), Some(ptr_ty)) = (var.result_id, var.result_type) else {
                continue;
            };
            if interface.as_ref().is_some_and(|s| !s.contains(&id)) {
                continue;
            }
            let (Some(set), Some(binding)) = (
                self.decoration_u32(id, Decoration::DescriptorSet),
                self.decoration_u32(id, Decoration::Binding),
            ) else {
                continue;
            };
            let Some(base) = self.base_type(ptr_ty) else {
                continue;
            };
            let sc = Self::storage_class(var);
            let kind = self.descriptor_kind(sc, base);
            let name = self
                .names
                .get(&id)
                .filter(|n| !n.is_empty())
                .or_else(|| base.result_id.and_then(|t| self.names.get(&t)))
                .cloned()
                .unwrap_or_default();
            let members = match (kind, base.result_id) {
                (DescriptorKind::UniformBuffer, Some(t)) => self.block_members(t),
                _ => Vec::new(),
            };
            out.push(Binding {
                set,
                binding,
                kind,
                name,
                members,
            });
        }
        out.sort_by_key(|b| (b.set, b.binding));
        out
    }

    fn descriptor_kind(&self, sc: Option<StorageClass>, base: &Instruction) -> DescriptorKind {
        let ty = base.result_id.unwrap_or(0);
        match (sc, base.class.opcode) {
            (Some(StorageClass::StorageBuffer), _) => DescriptorKind::StorageBuffer,
            (Some(StorageClass::Uniform), _) => {
                if self.decoration(ty, Decoration::BufferBlock).is_some() {
                    DescriptorKind::StorageBuffer
                } else {
                    DescriptorKind::UniformBuffer
                }
            }
            (_, Op::TypeSampledImage) => DescriptorKind::CombinedImageSampler,
            (_, Op::TypeSampler) => DescriptorKind::Sampler,
            // Operand 5 is `Sampled`: 2 means read/write without a sampler.
            (_, Op::TypeImage) => match Self::lit_operand(base, 5) {
                Some(2) => DescriptorKind::StorageImage,
                _ => DescriptorKind::SampledImage,
            },
            _ => DescriptorKind::Other,
        }
    }

    /// Default value and SpecId of one workgroup-size component.
    fn size_component(&self, id: Word) -> (Option<u32>, Option<u32>) {
        let Some(c) = self.def(id) else {
            return (None, None);
        };
        let value = match c.class.opcode {
            Op::Constant | Op::SpecConstant => Self::lit_operand(c, 0),
            _ => None,
        };
        let spec_id = (c.class.opcode == Op::SpecConstant)
            .then(|| self.decoration_u32(id, Decoration::SpecId))
            .flatten();
        (value, spec_id)
    }

    fn components(&self, ids: [Word; 3]) -> (Option<[u32; 3]>, [Option<u32>; 3]) {
        let parts = ids.map(|id| self.size_component(id));
        let values = match parts.map(|p| p.0) {
            [Some(x), Some(y), Some(z)] => Some([x, y, z]),
            _ => None,
        };
        (values, parts.map(|p| p.1))
    }

    fn workgroup_size(&self) -> (Option<[u32; 3]>, [Option<u32>; 3]) {
        // The WorkgroupSize built-in overrides any execution mode, per the SPIR-V spec.
        let builtin = self.module.types_global_values.iter().find(|i| {
            matches!(
                i.class.opcode,
                Op::ConstantComposite | Op::SpecConstantComposite
            ) && i.result_id.is_some_and(|id| {
                matches!(
                    self.decoration(id, Decoration::BuiltIn),
                    Some([Operand::BuiltIn(BuiltIn::WorkgroupSize), ..])
                )
            })
        });
        if let Some(c) = builtin {
            if let (Some(x), Some(y), Some(z)) = (
                Self::id_operand(c, 0),
                Self::id_operand(c, 1),
                Self::id_operand(c, 2),
            ) {
                return self.components([x, y, z]);
            }
        }
        for m in &self.module.execution_modes {
            match m.operands.as_slice() {
                [_, Operand::ExecutionMode(ExecutionMode::LocalSize), Operand::LiteralBit32(x), Operand::LiteralBit32(y), Operand::LiteralBit32(z), ..] =>
                {
                    return (Some([*x, *y, *z]), [None; 3]);
                }
                [_, Operand::ExecutionMode(ExecutionMode::LocalSizeId), Operand::IdRef(x), Operand::IdRef(y), Operand::IdRef(z), ..] =>
                {
                    return self.components([*x, *y, *z]);
                }
                _ => {}
            }
        }
        for (mode, ids) in &self.mode_ids {
            if let (true, [x, y, z, ..]) = (*mode == ExecutionMode::LocalSizeId as u32, &ids[..]) {
                return self.components([*x, *y, *z]);
            }
        }
        (None, [None; 3])
    }

    fn type_name(&self, ty: Word) -> String {
        let Some(t) = self.def(ty) else {
            return "unknown".into();
        };
        match (
            t.class.opcode,
            Self::lit_operand(t, 0),
            Self::lit_operand(t, 1),
        ) {
            (Op::TypeBool, ..) => "bool".into(),
            (Op::TypeInt, Some(w), Some(1)) => format!("i{w}"),
            (Op::TypeInt, Some(w), _) => format!("u{w}"),
            (Op::TypeFloat, Some(w), _) => format!("f{w}"),
            (op, ..) => format!("{op:?}"),
        }
    }

    fn spec_constants(&self) -> Vec<(u32, String)> {
        let mut out: Vec<(u32, String)> = self
            .module
            .types_global_values
            .iter()
            .filter(|i| {
                matches!(
                    i.class.opcode,
                    Op::SpecConstant | Op::SpecConstantTrue | Op::SpecConstantFalse
                )
            })
            .filter_map(|i| {
                let spec_id = self.decoration_u32(i.result_id?, Decoration::SpecId)?;
                Some((spec_id, self.type_name(i.result_type?)))
            })
            .collect();
        out.sort();
        // Unoptimised glslang output declares the workgroup-size constants twice with one SpecId.
        out.dedup();
        out
    }

    fn push_constant_bytes(&self) -> u32 {
        self.module
            .types_global_values
            .iter()
            .filter(|i| {
                i.class.opcode == Op::Variable
                    && Self::storage_class(i) == Some(StorageClass::PushConstant)
            })
            .filter_map(|v| {
                let ptr = self.def(v.result_type?)?;
                self.type_size(Self::id_operand(ptr, 1)?, 0)
            })
            .max()
            .unwrap_or(0)
    }

    /// Byte size of a type as laid out in a block; `None` for types with no fixed size.
    fn type_size(&self, ty: Word, depth: u32) -> Option<u32> {
        // Guards against malformed, self-referential modules.
        if depth > 32 {
            return None;
        }
        let t = self.def(ty)?;
        match t.class.opcode {
            Op::TypeBool => Some(4),
            Op::TypeInt | Op::TypeFloat => Some(Self::lit_operand(t, 0)? / 8),
            Op::TypeVector => {
                Some(self.type_size(Self::id_operand(t, 0)?, depth + 1)? * Self::lit_operand(t, 1)?)
            }
            Op::TypeMatrix => {
                // Without the member's MatrixStride a tight layout is the best guess.
                Some(self.type_size(Self::id_operand(t, 0)?, depth + 1)? * Self::lit_operand(t, 1)?)
            }
            Op::TypeArray => {
                let len = self.def(Self::id_operand(t, 1)?)?;
                let len = match len.class.opcode {
                    Op::Constant | Op::SpecConstant => Self::lit_operand(len, 0)?,
                    _ => return None,
                };
                let stride = match self.decoration_u32(ty, Decoration::ArrayStride) {
                    Some(s) => s,
                    None => self.type_size(Self::id_operand(t, 0)?, depth + 1)?,
                };
                Some(stride * len)
            }
            Op::TypeStruct => {
                let mut end = 0u32;
                let mut packed = 0u32;
                for (n, op) in t.operands.iter().enumerate() {
                    let Operand::IdRef(member) = op else {
                        return None;
                    };
                    let size = self.type_size(*member, depth + 1)?;
                    let offset = self
                        .member_offsets
                        .get(&(ty, n as u32))
                        .copied()
                        .unwrap_or(packed);
                    packed = offset + size;
                    end = end.max(packed);
                }
                Some(end)
            }
            _ => None,
        }
    }
}

#[cfg(test)]
#[path = "reflect_tests.rs"]
mod tests;
