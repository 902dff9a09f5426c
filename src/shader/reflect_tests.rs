//! Tests of src/shader/reflect.rs: bindings, workgroup sizes, spec constants, shared memory.
use super::*;
use crate::shader::compile::{CompileRequest, Compiler, OptLevel};
use std::path::PathBuf;

fn compile(name: &str, opt: OptLevel) -> Vec<u32> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/shader")
        .join(name);
    let req = CompileRequest {
        wrap_groups: false,
        path,
        defines: vec![],
        include_dirs: vec![],
        opt,
        entry_point: "main".into(),
    };
    Compiler::new(None)
        .unwrap()
        .compile(&req)
        .unwrap()
        .as_ref()
        .clone()
}

#[test]
fn spec_constant_workgroup_and_mixed_descriptors() {
    for opt in [OptLevel::Performance, OptLevel::Zero] {
        let r = reflect(&compile("reflect_spec.comp", opt)).unwrap();
        assert_eq!(r.local_size_spec_ids, [Some(0), Some(1), None], "{opt:?}");
        assert_eq!(r.local_size, Some([1, 1, 1]), "{opt:?}");
        assert_eq!(
            r.spec_constants,
            vec![
                (0, "u32".to_string()),
                (1, "u32".to_string()),
                (2, "f32".to_string()),
                (3, "bool".to_string()),
                (4, "i32".to_string()),
            ],
            "{opt:?}"
        );
        // uint + float + vec2 at 8 + vec3 at 16 → 28 bytes.
        assert_eq!(r.push_constant_bytes, 28, "{opt:?}");
        assert!(r.uses_subgroup_ops);
        let kinds: Vec<_> = r
            .bindings
            .iter()
            .map(|b| (b.set, b.binding, b.kind))
            .collect();
        assert_eq!(
            kinds,
            vec![
                (0, 0, DescriptorKind::StorageBuffer),
                (0, 1, DescriptorKind::CombinedImageSampler),
                (1, 0, DescriptorKind::StorageImage),
                (1, 2, DescriptorKind::UniformBuffer),
            ],
            "{opt:?}"
        );
        if opt == OptLevel::Zero {
            let names: Vec<_> = r.bindings.iter().map(|b| b.name.as_str()).collect();
            assert_eq!(names, ["outBuf", "tex", "img", "params"]);
        }
    }
}

#[test]
fn literal_local_size() {
    let r = reflect(&compile("reflect_literal.comp", OptLevel::Performance)).unwrap();
    assert_eq!(r.local_size, Some([64, 1, 1]));
    assert_eq!(r.local_size_spec_ids, [None; 3]);
    assert!(r.spec_constants.is_empty());
    assert_eq!(r.push_constant_bytes, 0);
    assert!(!r.uses_subgroup_ops);
    let b: Vec<_> = r
        .bindings
        .iter()
        .map(|b| (b.set, b.binding, b.kind))
        .collect();
    assert_eq!(
        b,
        vec![
            (0, 3, DescriptorKind::StorageBuffer),
            (0, 4, DescriptorKind::StorageBuffer),
        ]
    );
}

#[test]
fn shared_memory_sizes_follow_spec_constants() {
    for opt in [OptLevel::Performance, OptLevel::Zero] {
        let r = reflect(&compile("reflect_shared.comp", opt)).unwrap();
        // Defaults (wg 1x1, TILE 16): row 4*1, tile 16*16*17, pairs 8*8, counter 4,
        // twice 4*2.
        assert_eq!(r.shared_bytes, 4 + 16 * 16 * 17 + 64 + 4 + 8, "{opt:?}");
        let mut names: Vec<_> = r.shared_vars.iter().map(|v| v.name.as_str()).collect();
        names.sort();
        if opt == OptLevel::Zero {
            assert_eq!(names, ["counter", "pairs", "row", "tile", "twice"]);
        }
        let spec = |id: u32| match id {
            0 => Some(256),
            1 => Some(4),
            3 => Some(8),
            _ => None,
        };
        assert_eq!(
            r.shared_bytes_with(&spec),
            Some(4 * 256 + 16 * 8 * 9 + 64 + 4 + 4 * 4 * 2),
            "{opt:?}"
        );
        // Only the workgroup size set: TILE keeps its default.
        let wg_only = |id: u32| (id == 0).then_some(1024);
        assert_eq!(
            r.shared_bytes_with(&wg_only),
            Some(4 * 1024 + 16 * 16 * 17 + 64 + 4 + 8),
            "{opt:?}"
        );
        let row = r
            .shared_vars
            .iter()
            .find(|v| v.elem_bytes == 4 && matches!(v.len, SharedLen::Spec { spec_id: 0, .. }));
        assert!(
            row.is_some() || opt == OptLevel::Zero,
            "{:?}",
            r.shared_vars
        );
    }
}

#[test]
fn fixed_shared_array_and_none() {
    let r = reflect(&compile("reflect_shared_fixed.comp", OptLevel::Performance)).unwrap();
    assert_eq!(r.shared_bytes, 65536);
    assert_eq!(r.shared_bytes_with(&|_| Some(7)), Some(65536));
    let r = reflect(&compile("reflect_literal.comp", OptLevel::Performance)).unwrap();
    assert_eq!(r.shared_bytes, 0);
    assert!(r.shared_vars.is_empty());
    assert_eq!(r.shared_bytes_with(&|_| None), Some(0));
}

#[test]
fn shared_len_evaluation_refuses_what_it_cannot_compute() {
    let spec = |d| SharedLen::Spec {
        spec_id: 0,
        default: d,
    };
    let op = |o, a, b| SharedLen::Op(o, Box::new(a), Box::new(b));
    assert_eq!(
        op(SpecOp::Div, SharedLen::Fixed(8), spec(0)).eval(&|_| None),
        None
    );
    assert_eq!(
        op(SpecOp::Sub, SharedLen::Fixed(1), spec(2)).eval(&|_| None),
        None
    );
    assert_eq!(
        op(SpecOp::Mul, SharedLen::Fixed(u64::MAX / 2), spec(4)).eval(&|_| None),
        None
    );
    assert_eq!(
        op(SpecOp::Shl, spec(1), SharedLen::Fixed(4)).eval(&|_| Some(3)),
        Some(48)
    );
    assert_eq!(SharedLen::Unknown.eval(&|_| Some(1)), None);
    let v = SharedVar {
        name: String::new(),
        elem_bytes: 16,
        len: spec(3),
    };
    assert_eq!(v.bytes_with(&|_| None), Some(48));
}

#[test]
fn rejects_garbage() {
    assert!(reflect(&[1, 2, 3]).is_err());
}

/// HLSL's structured buffers as glslang writes them for SPIR-V 1.0 (`BufferBlock` structs in
/// the Uniform storage class) and from 1.3 on (`Block` structs in StorageBuffer, what p3lab
/// compiles to) are storage buffers, read-only or not; a `cbuffer` (a `Block` in Uniform) is a
/// uniform buffer, here at binding 0 beside `src`: HLSL's b and t registers share binding
/// numbers (issue 29; src/measure/prepare/bindings.rs names both).
#[test]
fn hlsl_structured_buffers_are_storage_buffers_at_every_spirv_version() {
    let hlsl = "cbuffer P : register(b0) { uint n; };
StructuredBuffer<float> src : register(t0);
RWStructuredBuffer<float> dst : register(u1);
[numthreads(64, 1, 1)]
void CSMain(uint3 id : SV_DispatchThreadID) { if (id.x < n) dst[id.x] = src[id.x] * 2.0; }
";
    let c = shaderc::Compiler::new().unwrap();
    for (env, spirv, block) in [
        (
            shaderc::EnvVersion::Vulkan1_0,
            shaderc::SpirvVersion::V1_0,
            "BufferBlock",
        ),
        (
            shaderc::EnvVersion::Vulkan1_1,
            shaderc::SpirvVersion::V1_3,
            "StorageBuffer",
        ),
    ] {
        let mut o = shaderc::CompileOptions::new().unwrap();
        o.set_target_env(shaderc::TargetEnv::Vulkan, env as u32);
        o.set_source_language(shaderc::SourceLanguage::HLSL);
        o.set_hlsl_io_mapping(true);
        o.set_target_spirv(spirv);
        let compile = |o: &shaderc::CompileOptions| {
            c.compile_into_spirv(
                hlsl,
                shaderc::ShaderKind::Compute,
                "s.hlsl",
                "CSMain",
                Some(o),
            )
            .unwrap()
        };
        let asm = c
            .compile_into_spirv_assembly(
                hlsl,
                shaderc::ShaderKind::Compute,
                "s.hlsl",
                "CSMain",
                Some(&o),
            )
            .unwrap()
            .as_text();
        assert!(asm.contains(block), "{spirv:?}: {asm}");
        let r = reflect(compile(&o).as_binary()).unwrap();
        let mut kinds: Vec<_> = r
            .bindings
            .iter()
            .map(|b| (b.set, b.binding, b.kind, b.name.as_str()))
            .collect();
        kinds.sort_by_key(|k| (k.0, k.1, k.3.to_string()));
        assert_eq!(
            kinds,
            [
                (0, 0, DescriptorKind::UniformBuffer, "P"),
                (0, 0, DescriptorKind::StorageBuffer, "src"),
                (0, 1, DescriptorKind::StorageBuffer, "dst"),
            ],
            "{spirv:?}"
        );
    }
}
