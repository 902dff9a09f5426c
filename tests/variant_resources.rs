//! A variant's own form of an input buffer (issue 40, item 3): A in f32 and in f16 on one
//! binding, as variants of one case (interleaved round by round), the f16 one checked against
//! the f32 baseline and compared with `--pair`; the bad forms name file, line and key.
mod common;
use common::*;
use std::path::{Path, PathBuf};

/// tests/data/glsl/scale_typed.comp with A's element type a matrix key; `extra` replaces the
/// variant's `[variants.resources.a]` table.
fn scenario(dir: &Path, extra: &str) -> PathBuf {
    let text = format!(
        r#"[scenario]
name = "typed"
shader = "tests/data/glsl/scale_typed.comp"
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
cover = ["n"]

[check]
baseline = "a-f32"
tolerance = 2e-3

[[variants]]
name = "a-{{T}}"
matrix = {{ T = ["f32", "f16"] }}
[variants.resources.a]
{extra}
"#
    );
    let file = dir.join("typed.toml");
    std::fs::write(&file, text).unwrap();
    file
}

#[test]
fn f32_and_f16_forms_of_one_binding_are_variants_of_one_case() {
    let dir = tempfile::tempdir().unwrap();
    let file = scenario(dir.path(), "element = \"{T}\"");
    let o = run(&["list", "--details", file.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("own resource a: buffer f16 x 1000 (2000 bytes)"),
        "{text}"
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
    assert_eq!(rows.len(), 2, "{rows:?}");
    for (v, check) in [("a-f32", "baseline"), ("a-f16", "pass")] {
        let r = row(&rows, v);
        assert_eq!(r["status"], "ok", "{r:?}");
        assert_eq!(r["check"], check, "{}", r["check_detail"]);
    }
    // f16 inputs round: the f16 variant is not bit-exact with the f32 one.
    assert!(
        row(&rows, "a-f16")["check_detail"].contains("max_abs_err"),
        "{rows:?}"
    );
    // One case, so the two compare round by round.
    let o = run(&["compare", out.to_str().unwrap(), "--pair", "a-f32=a-f16"]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{text}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(text.contains("a-f16"), "{text}");
}

#[test]
fn bad_overrides_name_file_line_and_key() {
    let go = |extra: &str| {
        let dir = tempfile::tempdir().unwrap();
        let file = scenario(dir.path(), extra);
        let o = run(&["list", file.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(2));
        String::from_utf8_lossy(&o.stderr).to_string()
    };
    let e = go("element = \"f8\"");
    assert!(
        e.contains(
            "typed.toml:36: key `variants[0].resources.a.element`: unknown element type `f8`"
        ),
        "{e}"
    );
    let e = go("colour = 1");
    assert!(e.contains("unknown field `colour`"), "{e}");
    let e = go("count = \"n / 3\"");
    assert!(e.contains("key `variants[0].resources.a.count`"), "{e}");
    // An override of a resource the scenario lacks, and of an output.
    let dir = tempfile::tempdir().unwrap();
    let file = scenario(dir.path(), "element = \"{T}\"");
    let text = std::fs::read_to_string(&file).unwrap();
    for (from, to, want) in [
        (
            "[variants.resources.a]",
            "[variants.resources.x]",
            "key `variants[0].resources.x`: no resource is named `x`; the scenario's: a, b",
        ),
        (
            "[variants.resources.a]",
            "[variants.resources.b]",
            "key `variants[0].resources.b`: `b` is an output",
        ),
    ] {
        std::fs::write(&file, text.replace(from, to)).unwrap();
        let o = run(&["list", file.to_str().unwrap()]);
        let e = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{e}");
        assert!(e.contains(want), "{e}");
    }
}
