//! HLSL, SPIR-V binaries and SPIR-V assembly run like GLSL: compiled (or loaded, or
//! assembled), validated, reflected, checked against a GLSL baseline and timed on lavapipe; and
//! their mistakes stop the run before anything is written (exit 2, file and line or key).
mod common;
use common::*;
use std::path::Path;

/// b = 3a in GLSL, the baseline every other language is checked against.
const GLSL: &str = "#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0, std430) readonly buffer A { float a[]; };
layout(set = 0, binding = 1, std430) buffer B { float b[]; };
layout(push_constant) uniform P { uint n; } pc;
void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i < pc.n) { b[i] = a[i] * 3.0; }
}
";

/// The same kernel in HLSL, with the HLSL subgroup probe.
const HLSL: &str = "#include \"p3lab.hlsl\"
[[vk::binding(0, 0)]] StructuredBuffer<float> a;
[[vk::binding(1, 0)]] RWStructuredBuffer<float> b;
struct P { uint n; };
[[vk::push_constant]] ConstantBuffer<P> pc;
[numthreads(64, 1, 1)]
void Triple(uint3 id : SV_DispatchThreadID) {
    p3_probe_record();
    if (id.x < pc.n) { b[id.x] = a[id.x] * 3.0; }
}
";

fn scenario(dir: &Path, variants: &str) -> std::path::PathBuf {
    let text = format!(
        r#"[scenario]
name = "langs"
push_constants = ["n"]

[params]
n = 1000

[[resources]]
name = "a"
type = "buffer"
binding = 0
element = "f32"
count = "n"
init = {{ kind = "random", seed = 5, min = -1, max = 1 }}

[[resources]]
name = "b"
type = "buffer"
binding = 1
element = "f32"
count = "n"
output = true

[[dispatch]]
cover = ["n", 1, 1]

[check]
baseline = "glsl"

[[variants]]
name = "glsl"
shader = "k.comp"
{variants}"#
    );
    let file = dir.join("langs.toml");
    std::fs::write(&file, text).unwrap();
    file
}

/// `.spvasm` text and `.spv` words of the GLSL kernel, with the entry point renamed `run`.
fn spirv_files(dir: &Path) {
    let c = shaderc::Compiler::new().unwrap();
    let mut o = shaderc::CompileOptions::new().unwrap();
    o.set_target_env(
        shaderc::TargetEnv::Vulkan,
        shaderc::EnvVersion::Vulkan1_3 as u32,
    );
    let asm = c
        .compile_into_spirv_assembly(
            GLSL,
            shaderc::ShaderKind::Compute,
            "k.comp",
            "main",
            Some(&o),
        )
        .unwrap()
        .as_text()
        .replace(
            "OpEntryPoint GLCompute %main \"main\"",
            "OpEntryPoint GLCompute %main \"run\"",
        );
    assert!(asm.contains("\"run\""), "{asm}");
    std::fs::write(dir.join("k.spvasm"), &asm).unwrap();
    let words = p3lab::vk::spirv_tools::assemble(&asm).unwrap();
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    std::fs::write(dir.join("k.spv"), bytes).unwrap();
}

#[test]
fn hlsl_spirv_and_assembly_match_the_glsl_baseline() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("k.comp"), GLSL).unwrap();
    std::fs::write(dir.path().join("k.hlsl"), HLSL).unwrap();
    spirv_files(dir.path());
    let file = scenario(
        dir.path(),
        r#"
[[variants]]
name = "hlsl"
shader = "k.hlsl"
entry = "Triple"

[[variants]]
name = "spv"
shader = "k.spv"
entry = "run"

[[variants]]
name = "spvasm"
shader = "k.spvasm"
entry = "run"
"#,
    );
    let out = dir.path().join("out");
    let o = quick_run(&file, &out, &[]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let rows = read_csv(&out.join("results.csv"));
    assert_eq!(rows.len(), 4);
    for v in ["hlsl", "spv", "spvasm"] {
        let r = row(&rows, v);
        assert_eq!(r["status"], "ok", "{v}: {}", r["reason"]);
        assert_eq!(r["check"], "pass", "{v}");
        assert!(
            r["check_detail"].contains("exact"),
            "{v}: {}",
            r["check_detail"]
        );
        assert_eq!(r["workgroup_x"], "64", "{v}: the shader's own size");
    }
    // The HLSL probe measured the wave size; the shaders without it (the GLSL kernel, the
    // SPIR-V files) got the probe p3lab adds for the check run (issue 40): the same size, and
    // no "not measured" note.
    let sg: u32 = row(&rows, "hlsl")["subgroup_size"].parse().unwrap();
    assert!(sg.is_power_of_two(), "{sg}");
    for v in ["glsl", "spv", "spvasm"] {
        let r = row(&rows, v);
        assert_eq!(r["subgroup_size"], sg.to_string(), "{v}: {}", r["reason"]);
        assert!(
            !r["reason"].contains("not measured"),
            "{v}: {}",
            r["reason"]
        );
    }
}

/// Issue 40: an HLSL shader without p3lab.hlsl (SPIR-V 1.3, a `cbuffer`-free kernel as a
/// project writes it) gets the added probe too, and a variant that asks for the device's size
/// is verified by it.
#[test]
fn an_unmodified_hlsl_shader_gets_its_subgroup_size_measured() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("k.comp"), GLSL).unwrap();
    let plain = HLSL
        .replace("#include \"p3lab.hlsl\"\n", "")
        .replace("    p3_probe_record();\n", "");
    assert!(!plain.contains("p3_probe"), "{plain}");
    std::fs::write(dir.path().join("k.hlsl"), plain).unwrap();
    let file = scenario(
        dir.path(),
        "\n[[variants]]\nname = \"hlsl\"\nshader = \"k.hlsl\"\nentry = \"Triple\"\n\n[[variants]]\nname = \"hlsl-sg8\"\nshader = \"k.hlsl\"\nentry = \"Triple\"\nsubgroup_size = 8\n",
    );
    let out = dir.path().join("out");
    let o = quick_run(&file, &out, &[]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let rows = read_csv(&out.join("results.csv"));
    for v in ["hlsl", "hlsl-sg8"] {
        let r = row(&rows, v);
        assert_eq!(r["status"], "ok", "{v}: {}", r["reason"]);
        assert_eq!(r["check"], "pass", "{v}");
        assert_eq!(r["subgroup_size"], "8", "{v}: lavapipe's; {}", r["reason"]);
    }
}

/// A scenario with `variant` added fails at load or preflight: exit 2, the words given, and
/// nothing written.
fn refused(variant: &str, setup: impl Fn(&Path), words: &[&str]) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("k.comp"), GLSL).unwrap();
    setup(dir.path());
    let file = scenario(dir.path(), variant);
    let out = dir.path().join("out");
    let o = quick_run(&file, &out, &[]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    for w in words {
        assert!(err.contains(w), "expected `{w}` in:\n{err}");
    }
    assert!(!err.contains("panicked"), "{err}");
    assert!(!out.exists(), "nothing may be written:\n{err}");
}

#[test]
fn language_mistakes_stop_before_anything_runs() {
    // Not SPIR-V at all.
    refused(
        "[[variants]]\nname = \"x\"\nshader = \"bad.spv\"\n",
        |d| std::fs::write(d.join("bad.spv"), b"#version 450\nvoid main(){ }\n").unwrap(),
        &["bad.spv", "not a SPIR-V binary", "magic number"],
    );
    // A binary cut in half.
    refused(
        "[[variants]]\nname = \"x\"\nshader = \"k.spv\"\nentry = \"run\"\n",
        |d| {
            spirv_files(d);
            let b = std::fs::read(d.join("k.spv")).unwrap();
            std::fs::write(d.join("k.spv"), &b[..b.len() / 8 * 4]).unwrap();
        },
        &["k.spv", "not a valid SPIR-V module"],
    );
    // Assembly with a typo: its line.
    refused(
        "[[variants]]\nname = \"x\"\nshader = \"t.spvasm\"\n",
        |d| {
            std::fs::write(
                d.join("t.spvasm"),
                "OpCapability Shader\n%x = OpNoSuchThing\n",
            )
            .unwrap()
        },
        &["t.spvasm:2:", "SPIR-V assembly"],
    );
    // An entry point the module does not have: the ones it has.
    refused(
        "[[variants]]\nname = \"x\"\nshader = \"k.spv\"\nentry = \"nope\"\n",
        spirv_files,
        &["no compute entry point `nope`", "run"],
    );
    // GLSL's entry point is main.
    refused(
        "[[variants]]\nname = \"x\"\nshader = \"k.comp\"\nentry = \"CSMain\"\n",
        |_| {},
        &["variants[1].entry", "always `main`"],
    );
    // Defines cannot reach a binary.
    refused(
        "[[variants]]\nname = \"x\"\nshader = \"k.spv\"\nentry = \"run\"\ndefines = { N = 4 }\n",
        spirv_files,
        &["defines (N) cannot reach it", "spec"],
    );
    // An HLSL error names the file and line.
    refused(
        "[[variants]]\nname = \"x\"\nshader = \"e.hlsl\"\n",
        |d| {
            std::fs::write(
                d.join("e.hlsl"),
                "[numthreads(64,1,1)]\nvoid main() {\n  this is not hlsl;\n}\n",
            )
            .unwrap()
        },
        &["e.hlsl:3"],
    );
}

/// Issue 29: `StructuredBuffer<float> src : register(t0)` beside a `cbuffer` at `b0` (or `n`
/// as a global, which HLSL gathers into `$Global` at binding 0) put a uniform buffer and a
/// storage buffer at set 0 binding 0, and the error read as if `src` were the uniform buffer.
/// It names both now, why (HLSL's b, t and u registers share Vulkan's binding numbers) and
/// what to do; the same buffers with `n` as a push constant run and match GLSL.
#[test]
fn an_hlsl_structured_buffer_beside_a_cbuffer_at_its_binding() {
    const BUFFERS: &str = "StructuredBuffer<float> src : register(t0);
RWStructuredBuffer<float> dst : register(u1);
";
    const BODY: &str = "[numthreads(64, 1, 1)]
void CSMain(uint3 id : SV_DispatchThreadID) {
    if (id.x < N) { dst[id.x] = src[id.x] * 3.0; }
}
";
    let variant = "[[variants]]\nname = \"hlsl\"\nshader = \"s.hlsl\"\nentry = \"CSMain\"\n";
    for params in ["cbuffer P : register(b0) { uint N; };\n", "uint N;\n"] {
        refused(
            variant,
            |d| {
                let text = format!("{BUFFERS}{params}{BODY}");
                std::fs::write(d.join("s.hlsl"), text).unwrap()
            },
            &[
                "langs.toml:",
                "key `resources[0].binding`",
                "s.hlsl: the shader declares both a uniform buffer and a storage buffer at set 0 binding 0",
                "register(bN), register(tN) and register(uN) all map to binding N",
                "[[vk::binding(N, M)]]",
                "`$Global`",
                "[[vk::push_constant]] ConstantBuffer<P> pc;",
            ],
        );
    }
    // As a push constant: the read-only StructuredBuffer is a storage buffer, and it runs.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("k.comp"), GLSL).unwrap();
    std::fs::write(
        dir.path().join("s.hlsl"),
        format!(
            "{BUFFERS}struct P {{ uint N; }};\n[[vk::push_constant]] ConstantBuffer<P> pc;\n{}",
            BODY.replace("< N", "< pc.N")
        ),
    )
    .unwrap();
    let file = scenario(dir.path(), variant);
    let out = dir.path().join("out");
    let o = quick_run(&file, &out, &[]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let rows = read_csv(&out.join("results.csv"));
    let r = row(&rows, "hlsl");
    assert_eq!(r["status"], "ok", "{}", r["reason"]);
    assert_eq!(r["check_detail"], "vs baseline: b: exact");
}

#[test]
fn the_articles_hlsl_tiling_matches_the_glsl_filter_bit_for_bit() {
    let (_t, out) = out_dir("tiling-hlsl");
    let o = quick_run(Path::new("scenarios/tiling_hlsl.toml"), &out, &[]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let rows = read_csv(&out.join("results.csv"));
    assert_eq!(rows.len(), 8);
    for r in &rows {
        assert_eq!(r["status"], "ok", "{}: {}", r["variant"], r["reason"]);
        assert!(
            r["check_detail"].contains("vs reference: dst: exact"),
            "{}: {}",
            r["variant"],
            r["check_detail"]
        );
        if r["variant"] != "glsl-rowmajor-wg8x8" {
            assert!(
                r["check_detail"].contains("vs baseline: dst: exact"),
                "{}",
                r["variant"]
            );
        }
        assert_ne!(
            r["subgroup_size"], "",
            "{}: measured by the probe",
            r["variant"]
        );
    }
}

#[test]
fn list_details_shows_what_each_variant_would_run_with() {
    let o = run(&["list", "--details", "scenarios/tiling_hlsl.toml"]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let out = String::from_utf8_lossy(&o.stdout);
    for want in [
        "resource src          set 0 binding 0  sampled image rgba16f 176 x 99",
        "check: outputs dst; reference `tiling_filter`; baseline glsl-rowmajor-wg8x8",
        "variant hlsl-tilex16-wg8x8  subgroup default  defines ORDER=1 TILE_N=16 WG_X=8 WG_Y=8",
        "(hlsl, entry CSMain)",
        "workgroup 8x8x1 (the shader's), grid 22x13x1 = 18304 invocations",
        "workgroup 8x8x1 (declared), grid 22x13x1",
        "push constants [176, 99, 2] (12 bytes; the shader's block: 12 bytes)",
        "shader bindings: 0.0 sampled image (combined image sampler); 0.1 storage image",
    ] {
        assert!(out.contains(want), "expected `{want}` in:\n{out}");
    }
    // A shader that does not compile is shown, not fatal: list runs nothing.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("k.comp"),
        "#version 450\nvoid main() { oops }\n",
    )
    .unwrap();
    let file = scenario(dir.path(), "");
    let o = run(&["list", "--details", file.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&o.stdout).contains("does not compile: "));
}

/// Issue 40: `list --filter` shows the variants `run --filter` would run, by name or
/// scenario/name; a glob that matches nothing is exit 2 naming the flag.
#[test]
fn list_filter_shows_only_the_variants_a_run_filter_would_run() {
    let o = run(&["list", "scenarios/", "--filter", "smoke/wg64-sg*"]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("smoke (") && out.contains("wg64-sg8"), "{out}");
    assert!(
        !out.contains(" wg128 ") && !out.contains("tiling ("),
        "{out}"
    );
    let d = run(&[
        "list",
        "--details",
        "scenarios/smoke.toml",
        "--filter",
        "wg128",
    ]);
    assert_eq!(d.status.code(), Some(0));
    let details = String::from_utf8_lossy(&d.stdout);
    assert!(
        details.contains("variant wg128") && !details.contains("variant wg64 "),
        "{details}"
    );
    let none = run(&["list", "scenarios/smoke.toml", "--filter", "nothing-*"]);
    assert_eq!(none.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&none.stderr).contains("--filter nothing-*"));
}

/// Issue 40: `list --details` lists spec constants by SpecId as numbers (2 before 10).
#[test]
fn list_details_sorts_spec_constants_by_number() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("spec.toml");
    let shader =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/glsl/scale.comp");
    std::fs::write(
        &file,
        format!(
            "[scenario]\nshader = {:?}\npush_constants = [\"n\"]\nworkgroup = [32, 1, 1]\n\n\
             [params]\nn = 64\n\n\
             [[resources]]\nname = \"a\"\ntype = \"buffer\"\nbinding = 0\nelement = \"f32\"\ncount = \"n\"\n\n\
             [[resources]]\nname = \"b\"\ntype = \"buffer\"\nbinding = 1\nelement = \"f32\"\ncount = \"n\"\noutput = true\n\n\
             [[dispatch]]\ncover = [\"n\", 1, 1]\n\n\
             [[variants]]\nname = \"v\"\nspec = {{ \"10\" = 1, \"2\" = 3, \"1\" = 5 }}\n",
            shader.to_str().unwrap()
        ),
    )
    .unwrap();
    let o = run(&["list", "--details", file.to_str().unwrap()]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("spec 1=5 2=3 10=1"), "{out}");
}
