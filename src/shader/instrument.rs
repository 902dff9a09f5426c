//! The subgroup-size probe added to a shader that does not call `p3_probe_record()` (issue
//! 40): a copy of the SPIR-V whose entry point, before anything else, has one lane per subgroup
//! lower the probe buffer's minimum and raise its maximum to `SubgroupSize` (set 3, binding 0,
//! the words glsl/common/p3lab.glsl writes). p3lab runs this copy for the check run only; the
//! timed pipelines are the shader as it is, so the probe costs the timing nothing.
//!
//! Done on the words (rspirv's loader refuses some modules glslang writes): the capability, two
//! built-in inputs, the buffer and its types and constants are appended to their sections, and
//! the entry block is split around a `if (SubgroupLocalInvocationId == 0) { atomics }`.

/// SPIR-V opcodes used here.
mod op {
    pub const CAPABILITY: u32 = 17;
    pub const MEMORY_MODEL: u32 = 14;
    pub const ENTRY_POINT: u32 = 15;
    pub const TYPE_BOOL: u32 = 20;
    pub const TYPE_INT: u32 = 21;
    pub const TYPE_STRUCT: u32 = 30;
    pub const TYPE_POINTER: u32 = 32;
    pub const CONSTANT: u32 = 43;
    pub const FUNCTION: u32 = 54;
    pub const FUNCTION_PARAMETER: u32 = 55;
    pub const VARIABLE: u32 = 59;
    pub const LOAD: u32 = 61;
    pub const ACCESS_CHAIN: u32 = 65;
    pub const DECORATE: u32 = 71;
    pub const MEMBER_DECORATE: u32 = 72;
    pub const IEQUAL: u32 = 170;
    pub const PHI: u32 = 245;
    pub const SELECTION_MERGE: u32 = 247;
    pub const LABEL: u32 = 248;
    pub const BRANCH: u32 = 249;
    pub const BRANCH_CONDITIONAL: u32 = 250;
    pub const ATOMIC_UMIN: u32 = 237;
    pub const ATOMIC_UMAX: u32 = 239;
    pub const LINE: u32 = 8;
    pub const NO_LINE: u32 = 317;
}

/// The sections before the types, constants and globals (capabilities to annotations).
const PREAMBLE: [u32; 22] = [
    17, 10, 11, 14, 15, 16, 331, // capability .. execution mode(Id)
    7, 3, 2, 4, 5, 6, 330, // debug: string, source*, name, member name, module processed
    71, 72, 73, 74, 75, 332, 5632, 5633, // annotations
];

const STORAGE_INPUT: u32 = 1;
const STORAGE_BUFFER: u32 = 12;
const CAP_GROUP_NON_UNIFORM: u32 = 61;
const BUILTIN: u32 = 11;
const BUILTIN_SUBGROUP_SIZE: u32 = 36;
const BUILTIN_SUBGROUP_LOCAL_ID: u32 = 41;
const DECORATION_BLOCK: u32 = 2;
const DECORATION_BINDING: u32 = 33;
const DECORATION_SET: u32 = 34;
const DECORATION_OFFSET: u32 = 35;
const EXECUTION_MODEL_GLCOMPUTE: u32 = 5;

/// One instruction's words (the first holds its length and opcode).
fn inst(opcode: u32, operands: &[u32]) -> Vec<u32> {
    let mut w = Vec::with_capacity(operands.len() + 1);
    w.push(((operands.len() as u32 + 1) << 16) | opcode);
    w.extend_from_slice(operands);
    w
}

/// A SPIR-V literal string as words (NUL-terminated, padded).
fn string_words(words: &[u32]) -> String {
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let end = bytes.iter().position(|b| *b == 0).unwrap_or(bytes.len());
    String::from_utf8_lossy(&bytes[..end]).into_owned()
}

/// `spirv` with the subgroup-size probe at the top of GLCompute entry point `entry`; why not,
/// in words, when it cannot be added (the caller leaves the size unmeasured with that reason).
pub fn subgroup_probe(spirv: &[u32], entry: &str, probe_set: u32) -> Result<Vec<u32>, String> {
    if spirv.len() < 5 {
        return Err("the module is shorter than its header".into());
    }
    let version = spirv[1];
    if version < 0x0001_0300 {
        return Err(format!(
            "the module is SPIR-V {}.{}, before 1.3 has the subgroup built-ins the probe reads",
            version >> 16 & 0xff,
            version >> 8 & 0xff
        ));
    }
    let mut insts: Vec<Vec<u32>> = Vec::new();
    let mut at = 5;
    while at < spirv.len() {
        let n = (spirv[at] >> 16) as usize;
        if n == 0 || at + n > spirv.len() {
            return Err(format!("a bad instruction length at word {at}"));
        }
        insts.push(spirv[at..at + n].to_vec());
        at += n;
    }
    let opcode = |i: &Vec<u32>| i[0] & 0xffff;
    let mut bound = spirv[3];
    let mut fresh = || {
        bound += 1;
        bound - 1
    };
    // The entry point and its function.
    let ep = insts
        .iter()
        .position(|i| {
            opcode(i) == op::ENTRY_POINT
                && i.get(1) == Some(&EXECUTION_MODEL_GLCOMPUTE)
                && string_words(&i[3..]) == entry
        })
        .ok_or_else(|| format!("the module has no GLCompute entry point `{entry}`"))?;
    let function = insts[ep][2];
    let vulkan_model = insts
        .iter()
        .find(|i| opcode(i) == op::MEMORY_MODEL)
        .is_some_and(|i| i.get(2) == Some(&3));
    // Types to reuse (two non-aggregate types with the same operands are invalid).
    let find = |code: u32, operands: &[u32]| {
        insts
            .iter()
            .find(|i| opcode(i) == code && i.len() == operands.len() + 2 && i[2..] == *operands)
            .map(|i| i[1])
    };
    let mut types: Vec<Vec<u32>> = Vec::new();
    let uint = match find(op::TYPE_INT, &[32, 0]) {
        Some(id) => id,
        None => {
            let id = fresh();
            types.push(inst(op::TYPE_INT, &[id, 32, 0]));
            id
        }
    };
    let boolean = match find(op::TYPE_BOOL, &[]) {
        Some(id) => id,
        None => {
            let id = fresh();
            types.push(inst(op::TYPE_BOOL, &[id]));
            id
        }
    };
    let (ptr_in, size_var, lane_var) = (fresh(), fresh(), fresh());
    let (block, ptr_block, probe, ptr_word) = (fresh(), fresh(), fresh(), fresh());
    let (c0, c1, scope) = (fresh(), fresh(), fresh());
    types.extend([
        inst(op::TYPE_POINTER, &[ptr_in, STORAGE_INPUT, uint]),
        inst(op::VARIABLE, &[ptr_in, size_var, STORAGE_INPUT]),
        inst(op::VARIABLE, &[ptr_in, lane_var, STORAGE_INPUT]),
        inst(op::TYPE_STRUCT, &[block, uint, uint, uint, uint]),
        inst(op::TYPE_POINTER, &[ptr_block, STORAGE_BUFFER, block]),
        inst(op::VARIABLE, &[ptr_block, probe, STORAGE_BUFFER]),
        inst(op::TYPE_POINTER, &[ptr_word, STORAGE_BUFFER, uint]),
        inst(op::CONSTANT, &[uint, c0, 0]),
        inst(op::CONSTANT, &[uint, c1, 1]),
        // Device scope; QueueFamily under the Vulkan memory model (Device needs a capability).
        inst(
            op::CONSTANT,
            &[uint, scope, if vulkan_model { 5 } else { 1 }],
        ),
    ]);
    let mut notes = vec![
        inst(op::DECORATE, &[size_var, BUILTIN, BUILTIN_SUBGROUP_SIZE]),
        inst(
            op::DECORATE,
            &[lane_var, BUILTIN, BUILTIN_SUBGROUP_LOCAL_ID],
        ),
        inst(op::DECORATE, &[block, DECORATION_BLOCK]),
        inst(op::DECORATE, &[probe, DECORATION_SET, probe_set]),
        inst(op::DECORATE, &[probe, DECORATION_BINDING, 0]),
    ];
    for m in 0..4 {
        notes.push(inst(
            op::MEMBER_DECORATE,
            &[block, m, DECORATION_OFFSET, 4 * m],
        ));
    }
    // The entry function's first block: split after its variables.
    let f = insts
        .iter()
        .position(|i| opcode(i) == op::FUNCTION && i.get(2) == Some(&function))
        .ok_or("the entry point's function is missing")?;
    let mut i = f + 1;
    while insts
        .get(i)
        .is_some_and(|x| opcode(x) == op::FUNCTION_PARAMETER)
    {
        i += 1;
    }
    let first = match insts.get(i) {
        Some(x) if opcode(x) == op::LABEL => x[1],
        _ => return Err("the entry point's function does not start with a block".into()),
    };
    i += 1;
    while insts
        .get(i)
        .is_some_and(|x| [op::VARIABLE, op::LINE, op::NO_LINE].contains(&opcode(x)))
    {
        i += 1;
    }
    let (size, lane, is_first) = (fresh(), fresh(), fresh());
    let (then, merge) = (fresh(), fresh());
    let (a0, r0, a1, r1) = (fresh(), fresh(), fresh(), fresh());
    let body = [
        inst(op::LOAD, &[uint, size, size_var]),
        inst(op::LOAD, &[uint, lane, lane_var]),
        inst(op::IEQUAL, &[boolean, is_first, lane, c0]),
        inst(op::SELECTION_MERGE, &[merge, 0]),
        inst(op::BRANCH_CONDITIONAL, &[is_first, then, merge]),
        inst(op::LABEL, &[then]),
        inst(op::ACCESS_CHAIN, &[ptr_word, a0, probe, c0]),
        inst(op::ATOMIC_UMIN, &[uint, r0, a0, scope, c0, size]),
        inst(op::ACCESS_CHAIN, &[ptr_word, a1, probe, c1]),
        inst(op::ATOMIC_UMAX, &[uint, r1, a1, scope, c0, size]),
        inst(op::BRANCH, &[merge]),
        inst(op::LABEL, &[merge]),
    ];
    // What followed the first block's start now follows `merge`: phis that name the first
    // block as a predecessor name `merge`.
    let end = insts[f..]
        .iter()
        .position(|x| opcode(x) == 56) // OpFunctionEnd
        .map_or(insts.len(), |p| f + p);
    for x in insts[i..end].iter_mut() {
        if opcode(x) == op::PHI {
            for parent in x[4..].iter_mut().step_by(2) {
                if *parent == first {
                    *parent = merge;
                }
            }
        }
    }
    // The entry point lists what it uses: Input variables always, every global from 1.4 on.
    let mut interface = vec![size_var, lane_var];
    if version >= 0x0001_0400 {
        interface.push(probe);
    }
    let mut entry_inst = insts[ep].clone();
    entry_inst.extend(&interface);
    entry_inst[0] = ((entry_inst.len() as u32) << 16) | op::ENTRY_POINT;
    // Reassemble, section by section.
    let has_cap = insts
        .iter()
        .any(|x| opcode(x) == op::CAPABILITY && x[1] == CAP_GROUP_NON_UNIFORM);
    let preamble_end = insts
        .iter()
        .position(|x| !PREAMBLE.contains(&opcode(x)))
        .unwrap_or(insts.len());
    let functions = insts
        .iter()
        .position(|x| opcode(x) == op::FUNCTION)
        .unwrap_or(insts.len());
    let mut out: Vec<u32> = spirv[..5].to_vec();
    if !has_cap {
        out.extend(inst(op::CAPABILITY, &[CAP_GROUP_NON_UNIFORM]));
    }
    for (k, x) in insts.iter().enumerate() {
        if k == preamble_end {
            notes.iter().for_each(|n| out.extend(n));
        }
        if k == functions {
            types.iter().for_each(|t| out.extend(t));
        }
        if k == i {
            body.iter().for_each(|b| out.extend(b));
        }
        if k == ep {
            out.extend(&entry_inst);
        } else {
            out.extend(x);
        }
    }
    out[3] = bound;
    crate::vk::spirv_tools::validate(&out)
        .map_err(|e| format!("the module with the probe added does not validate: {e}"))?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shader::compile::{CompileRequest, Compiler, OptLevel};

    /// A shader of tests/data/shader (spec-constant workgroup size, SPIR-V 1.6 with
    /// `OpExecutionModeId`) at both opt levels: the probed module validates and binds the
    /// probe buffer at set 3, binding 0.
    #[test]
    fn the_probe_goes_into_a_compiled_shader_and_validates() {
        for opt in [OptLevel::Performance, OptLevel::Zero] {
            let req = CompileRequest {
                wrap_groups: false,
                path: std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                    .join("tests/data/shader/reflect_spec.comp"),
                defines: vec![],
                include_dirs: vec![],
                opt,
                entry_point: "main".into(),
            };
            let words = Compiler::new(None).unwrap().compile(&req).unwrap();
            let before = crate::shader::reflect(&words).unwrap();
            assert!(!before.bindings.iter().any(|b| b.set == 3), "{opt:?}");
            let probed = subgroup_probe(&words, "main", 3).unwrap();
            let after = crate::shader::reflect(&probed).unwrap();
            assert!(
                after.bindings.iter().any(|b| (b.set, b.binding) == (3, 0)),
                "{opt:?}: {:?}",
                after.bindings
            );
            assert_eq!(after.local_size_spec_ids, before.local_size_spec_ids);
        }
    }

    #[test]
    fn old_or_foreign_modules_say_why() {
        assert!(
            subgroup_probe(&[0x0723_0203, 0x0001_0000, 0, 10, 0], "main", 3)
                .unwrap_err()
                .contains("SPIR-V 1.0, before 1.3")
        );
        assert!(subgroup_probe(&[1, 2], "main", 3)
            .unwrap_err()
            .contains("shorter than its header"));
        assert!(
            subgroup_probe(&[0x0723_0203, 0x0001_0300, 0, 10, 0], "main", 3)
                .unwrap_err()
                .contains("no GLCompute entry point `main`")
        );
    }
}
