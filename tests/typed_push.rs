//! Typed push constants on lavapipe (issue 40, item 2): a block of u32, i32, f32, f16, u64,
//! i64, f64 and vector members, values as expressions (floats included), swept over a param,
//! written back by tests/data/glsl/push_types.comp and checked against the bit patterns
//! encoded here; the bad forms stop the run (exit 2) naming file, line and key.
mod common;
use common::*;
use p3lab::scenario::Elem;
use std::path::{Path, PathBuf};

/// The block as tests/data/glsl/push_types.comp declares it, one member per line (line 5 on).
const MEMBERS: [&str; 11] = [
    r#"{ name = "n", type = "u32", value = "n" },"#,
    r#"{ name = "neg", type = "i32", value = -5 },"#,
    r#"{ name = "scale", type = "f32", value = 0.125 },"#,
    r#"{ name = "h", type = "f16", value = "2 ** -3 + 1" },"#,
    r#"{ name = "big", type = "u64", value = "0x1_0000_0003" },"#,
    r#"{ name = "sneg", type = "i64", value = "-(2 ** 40) - n" },"#,
    r#"{ name = "v", type = "vec3", value = [1.5, "2 ** -8", -2] },"#,
    r#"{ name = "u2", type = "uvec2", value = [7, "n * 2"] },"#,
    r#"{ name = "h2", type = "f16vec2", value = [0.5, -65504] },"#,
    r#"{ name = "d", type = "f64", value = 0.1 },"#,
    r#"{ name = "i4", type = "ivec4", value = [-1, 0, 1, "wg_x"] },"#,
];

/// A scenario with `members` as its push block (each on its own line, from line 5).
fn scenario(dir: &Path, members: &[String]) -> PathBuf {
    let text = format!(
        r#"[scenario]
name = "push"
shader = "tests/data/glsl/push_types.comp"
push_constants = [
{}
]

[params]
n = [3, 4]

[[resources]]
name = "out"
type = "buffer"
binding = 0
element = "u32"
count = 20
output = true

[[dispatch]]
grid = [1]

[measure]
reps = 2
warmup = 0

[check]
reference = {{ files = {{ out = "expected-{{n}}.npy" }} }}

[[variants]]
name = "typed"
"#,
        members.join("\n")
    );
    for n in [3u32, 4] {
        let bytes: Vec<u8> = expected(n).iter().flat_map(|w| w.to_le_bytes()).collect();
        let npy = dir.join(format!("expected-{n}.npy"));
        p3lab::scenario::npy::write(&npy, Elem::U32, &[20], &bytes).unwrap();
    }
    let file = dir.join("push.toml");
    std::fs::write(&file, text).unwrap();
    file
}

fn good() -> Vec<String> {
    MEMBERS.iter().map(|m| m.to_string()).collect()
}

/// What the shader writes back for `n`, encoded here independently of p3lab.
fn expected(n: u32) -> Vec<u32> {
    let f = |x: f32| x.to_bits();
    let h = |x: f32| half::f16::from_f32(x).to_f32().to_bits();
    let sneg = -(1i64 << 40) - i64::from(n);
    vec![
        n,
        (-5i32) as u32,
        f(0.125),
        h(1.125),
        3,
        1,
        sneg as u32,
        ((sneg as u64) >> 32) as u32,
        f(1.5),
        f(1.0 / 256.0),
        f(-2.0),
        7,
        n * 2,
        h(0.5),
        h(-65504.0),
        f(0.1f64 as f32),
        (-1i32) as u32,
        0,
        1,
        1,
    ]
}

#[test]
fn typed_members_round_trip_through_the_shader() {
    let dir = tempfile::tempdir().unwrap();
    let file = scenario(dir.path(), &good());
    let out = dir.path().join("out");
    let o = quick_run(&file, &out, &[]);
    assert_eq!(o.status.code(), Some(0));
    let rows = read_csv(&out.join("results.csv"));
    assert_eq!(rows.len(), 2);
    for r in &rows {
        assert_eq!(r["status"], "ok", "{r:?}");
        assert_eq!(r["check"], "pass", "{}", r["check_detail"]);
    }
    // list --details shows the members with their types and values.
    let o = run(&["list", file.to_str().unwrap(), "--details"]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("scale: f32 @8 = 0.125"), "{text}");
    assert!(text.contains("v: vec3 @32 = [1.5, 2 ** -8, -2]"), "{text}");
}

/// Run with member `i` replaced by `with`; exit 2 and the message, which names the line.
fn bad(i: usize, with: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    let mut members = good();
    members[i] = with.to_string();
    let file = scenario(dir.path(), &members);
    let out = dir.path().join("out");
    let o = quick_run(&file, &out, &[]);
    let err = String::from_utf8_lossy(&o.stderr).to_string();
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(!out.join("results.csv").exists(), "nothing written: {err}");
    err
}

#[test]
fn bad_typed_members_name_file_line_and_key() {
    // Line 5 holds member 0, so member i is on line 5 + i.
    let e = bad(2, r#"{ name = "scale", type = "u32", value = 1 },"#);
    assert!(
        e.contains("push.toml:7: key `scenario.push_constants[2]`"),
        "{e}"
    );
    assert!(
        e.contains("member `scale` is u32 but the shader's member 2 `scale` is f32"),
        "{e}"
    );

    let e = bad(6, r#"{ name = "v", type = "vec2", value = [1, 2] },"#);
    assert!(
        e.contains("push.toml:11: key `scenario.push_constants[6]`"),
        "{e}"
    );
    assert!(
        e.contains("is vec2 but the shader's member 6 `v` is vec3"),
        "{e}"
    );

    let e = bad(6, r#"{ name = "v", type = "vec3", value = [1, 2] },"#);
    assert!(
        e.contains("push.toml:11: key `scenario.push_constants[6].value`"),
        "{e}"
    );
    assert!(
        e.contains("takes a list of 3 values; got a list of 2"),
        "{e}"
    );

    let e = bad(3, r#"{ name = "h", type = "half3x", value = 1 },"#);
    assert!(
        e.contains("push.toml:8: key `scenario.push_constants[3].type`"),
        "{e}"
    );
    assert!(e.contains("`half3x` is not a member type"), "{e}");

    let e = bad(3, r#"{ name = "h", type = "f16", value = 1e6 },"#);
    assert!(
        e.contains("push.toml:8: key `scenario.push_constants[3].value`"),
        "{e}"
    );
    assert!(e.contains("beyond f16's range"), "{e}");

    let e = bad(1, r#"{ name = "negative", type = "i32", value = -5 },"#);
    assert!(
        e.contains("push.toml:6: key `scenario.push_constants[1]`"),
        "{e}"
    );
    assert!(
        e.contains("member `negative` is not the shader's member 1, `neg`"),
        "{e}"
    );

    let e = bad(
        10,
        r#"{ name = "i4", type = "ivec4", value = [0, 0, 0, 0] }, { name = "extra", type = "u32", value = 1 },"#,
    );
    assert!(e.contains("key `scenario.push_constants[11]`"), "{e}");
    assert!(
        e.contains("member `extra`: the shader's block has only 11 member(s)"),
        "{e}"
    );

    let e = bad(1, r#""n","#);
    assert!(
        e.contains("push.toml:6: key `scenario.push_constants[1]`"),
        "{e}"
    );
    assert!(e.contains("either 32-bit words or typed members"), "{e}");
}
