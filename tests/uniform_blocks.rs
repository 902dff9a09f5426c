//! Uniform buffers on lavapipe (issue 40, item 2): a `type = "uniform"` resource filled by
//! typed members binds GLSL's `uniform` blocks and HLSL's `cbuffer` and `$Global`; the shaders
//! write the members back and a reference checks the bit patterns; bad forms stop the run
//! (exit 2) naming file, line and key.
mod common;
use common::*;
use p3lab::scenario::Elem;
use std::path::{Path, PathBuf};

/// The `U` block's members, one per line; `glsl` picks the GLSL form (an f16 and an i64
/// member) or the HLSL one (glslang reads HLSL's `half` as a 32-bit float without 16-bit types,
/// and has no 64-bit integers: the i64's two words as an int2).
fn members(glsl: bool) -> Vec<String> {
    vec![
        r#"{ name = "alpha", type = "f32", value = "2 ** -3" },"#.into(),
        r#"{ name = "n", type = "u32", value = "n" },"#.into(),
        r#"{ name = "tint", type = "vec4", value = [0.25, 0.5, -1, "n / 2"] },"#.into(),
        format!(
            r#"{{ name = "h", type = "{}", value = 1.5 }},"#,
            if glsl { "f16" } else { "f32" }
        ),
        if glsl {
            r#"{ name = "big", type = "i64", value = "-(2 ** 33) - 5" },"#.into()
        } else {
            // HLSL's cbuffer packing: a vector may start anywhere that keeps it within a
            // 16-byte row.
            r#"{ name = "big", type = "ivec2", value = [-5, -3], offset = 36 },"#.into()
        },
    ]
}

/// A scenario on `shader` with `u` as the `U` block's members (from line 19 on).
fn scenario(dir: &Path, shader: &str, u: &[String]) -> PathBuf {
    let text = format!(
        r#"[scenario]
name = "uniform"
shader = "{shader}"

[params]
n = 6

[[resources]]
name = "g"
type = "uniform"
binding = 0
members = [{{ name = "g_n", type = "u32", value = "n + 1" }}]

[[resources]]
name = "u"
type = "uniform"
binding = 1
members = [
{}
]

[[resources]]
name = "out"
type = "buffer"
binding = 3
element = "u32"
count = 10
output = true

[[dispatch]]
grid = [1]

[measure]
reps = 2
warmup = 0

[check]
reference = {{ files = {{ out = "expected.npy" }} }}

[[variants]]
name = "one"
"#,
        u.join("\n")
    );
    let expected: Vec<u32> = {
        let f = |x: f32| x.to_bits();
        let big = -(1i64 << 33) - 5;
        vec![
            f(0.125),
            6,
            f(0.25),
            f(0.5),
            f(-1.0),
            f(3.0),
            f(1.5),
            big as u32,
            ((big as u64) >> 32) as u32,
            7,
        ]
    };
    let bytes: Vec<u8> = expected.iter().flat_map(|w| w.to_le_bytes()).collect();
    p3lab::scenario::npy::write(&dir.join("expected.npy"), Elem::U32, &[10], &bytes).unwrap();
    let file = dir.join("uniform.toml");
    std::fs::write(&file, text).unwrap();
    file
}

#[test]
fn uniform_blocks_glsl_and_hlsl_round_trip() {
    for (shader, glsl) in [
        ("tests/data/glsl/uniform_block.comp", true),
        ("tests/data/hlsl/uniform_block.hlsl", false),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let file = scenario(dir.path(), shader, &members(glsl));
        let out = dir.path().join("out");
        let o = quick_run(&file, &out, &[]);
        assert_eq!(o.status.code(), Some(0), "{shader}");
        let rows = read_csv(&out.join("results.csv"));
        assert_eq!(rows[0]["status"], "ok", "{shader}: {}", rows[0]["reason"]);
        assert_eq!(
            rows[0]["check"], "pass",
            "{shader}: {}",
            rows[0]["check_detail"]
        );
    }
}

/// The GLSL scenario with member `i` of `U` replaced by `with`: exit 2, and the message.
fn bad(i: usize, with: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    let mut u = members(true);
    u[i] = with.to_string();
    let file = scenario(dir.path(), "tests/data/glsl/uniform_block.comp", &u);
    let out = dir.path().join("out");
    let o = quick_run(&file, &out, &[]);
    let err = String::from_utf8_lossy(&o.stderr).to_string();
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(!out.join("results.csv").exists(), "nothing written: {err}");
    err
}

#[test]
fn bad_uniform_members_name_file_line_and_key() {
    // Member 0 of `U` is on line 19.
    let e = bad(2, r#"{ name = "tint", type = "vec3", value = [1, 2, 3] },"#);
    assert!(
        e.contains("uniform.toml:21: key `resources[1].members[2]`"),
        "{e}"
    );
    assert!(e.contains("uniform buffer `u` at set 0 binding 1: member `tint` is vec3 but the shader's member 2 `tint` is vec4"), "{e}");

    let e = bad(1, r#"{ name = "n", type = "u32", value = -1 },"#);
    assert!(
        e.contains("uniform.toml:20: key `resources[1].members[1].value`"),
        "{e}"
    );
    assert!(e.contains("does not fit in u32"), "{e}");

    let e = bad(
        4,
        r#"{ name = "big", type = "i64", value = 1, offset = 48 },"#,
    );
    assert!(
        e.contains("uniform.toml:23: key `resources[1].members[4]`"),
        "{e}"
    );
    assert!(
        e.contains("at offset 48 but the shader's member 4 `big` is at offset 40"),
        "{e}"
    );

    let e = bad(4, "");
    assert!(e.contains("the shader's block has 5 members but the scenario gives 4; the first missing is member 4 `big` (i64 at offset 40)"), "{e}");
}

#[test]
fn a_uniform_resource_refuses_keys_of_other_kinds() {
    let dir = tempfile::tempdir().unwrap();
    let file = scenario(
        dir.path(),
        "tests/data/glsl/uniform_block.comp",
        &members(true),
    );
    let text = std::fs::read_to_string(&file).unwrap().replace(
        "name = \"g\"\ntype = \"uniform\"",
        "name = \"g\"\ntype = \"uniform\"\ncount = 4",
    );
    std::fs::write(&file, text).unwrap();
    let o = run(&["list", file.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains(
            "uniform.toml:11: key `resources[0].count`: `count` does not apply to a uniform buffer"
        ),
        "{err}"
    );
}
