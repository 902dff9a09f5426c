//! Tensor units (issue 26) through the real binary on the Vulkan device: peaks/tensor.toml and
//! scenarios/gemm_tensor.toml compile (GL_KHR_cooperative_matrix), and on a device without
//! VK_KHR_cooperative_matrix (lavapipe in CI) every row is `unsupported`, naming what it
//! lacks, the run goes on and exits 0, and `p3lab peak` reports the tensor units as failed
//! with the reason. The loader refuses malformed cooperative-matrix requirements and tensor
//! work without its unit, naming file, line and key.
mod common;
use common::*;

/// The device the tests run on, as `p3lab devices --format json` describes it.
fn device() -> serde_json::Value {
    let o = run(&["devices", "--format", "json"]);
    assert_eq!(o.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    v[0].clone()
}

fn has_coopmat(d: &serde_json::Value) -> bool {
    d["cooperative_matrix"]
        .as_array()
        .is_some_and(|a| !a.is_empty())
}

#[test]
fn both_files_compile_and_list_their_tensor_work() {
    for (file, want) in [
        (
            "peaks/tensor.toml",
            "requires cooperative_matrix:f16*f16+f32=f32 16x16x16, shader_float16",
        ),
        (
            "scenarios/gemm_tensor.toml",
            "requires cooperative_matrix:f16*f16+f32=f32 16x16x16, shader_float16",
        ),
    ] {
        let o = run(&["list", "--details", file]);
        assert_eq!(o.status.code(), Some(0), "{file}");
        let out = String::from_utf8_lossy(&o.stdout);
        assert!(out.contains(want), "{file}: expected `{want}` in\n{out}");
        assert!(out.contains("tensor_flops"), "{file}: {out}");
        assert!(out.contains("tensor_unit"), "{file}: {out}");
        assert!(!out.contains("does not compile"), "{file}: {out}");
    }
}

#[test]
fn gemm_tensor_rows_are_unsupported_without_cooperative_matrices() {
    let d = device();
    if has_coopmat(&d) {
        eprintln!("skipped: this device has VK_KHR_cooperative_matrix (the GPU reports cover it)");
        return;
    }
    let (_t, out) = out_dir("gemm_tensor");
    let o = run(&[
        "run",
        "scenarios/gemm_tensor.toml",
        "--out",
        out.to_str().unwrap(),
        "--set",
        "n=256",
        "--warmup-ms",
        "0",
        "--reps",
        "1",
        "--no-hw-counters",
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let rows = read_csv(&out.join("results.csv"));
    assert_eq!(rows.len(), 12, "{rows:?}");
    for r in &rows {
        assert_eq!(r["status"], "unsupported", "{r:?}");
        assert!(
            r["reason"].contains("cooperative_matrix:f16*f16+f32=f32 16x16x16")
                && r["reason"].contains("VK_KHR_cooperative_matrix"),
            "{r:?}"
        );
        // The declared work is on the row whether it ran or not.
        assert_eq!(num(r, "tensor_flops"), 2.0 * 256f64.powi(3), "{r:?}");
        assert_eq!(r["tensor_unit"], "tensor_f16_f32", "{r:?}");
        assert_eq!(r["tensor_pct"], "", "{r:?}");
    }
}

#[test]
fn peak_reports_tensor_units_failed_with_the_reason_on_a_device_without_them() {
    let d = device();
    if has_coopmat(&d) {
        eprintln!("skipped: this device has VK_KHR_cooperative_matrix");
        return;
    }
    let (_t, out) = out_dir("peak_tensor");
    let cache = tempfile::tempdir().unwrap();
    let o = bin()
        .args(["-q", "peak", "--out"])
        .arg(&out)
        .args(["--filter", "tensor_*-c4", "--reps", "1", "--warmup-ms", "0"])
        .arg("--cache-dir")
        .arg(cache.path())
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let rows = read_csv(&out.join("results.csv"));
    assert_eq!(
        rows.len(),
        13,
        "4 units x 3 shapes and bf16 x 1, at 4 chains: {rows:?}"
    );
    for r in &rows {
        assert_eq!(r["status"], "unsupported", "{r:?}");
    }
    let peaks = read_csv(&out.join("peaks.csv"));
    let tensor: Vec<_> = peaks
        .iter()
        .filter(|p| p["unit"].starts_with("tensor_"))
        .collect();
    let units: Vec<&str> = tensor.iter().map(|p| p["unit"].as_str()).collect();
    assert_eq!(
        units,
        [
            "tensor_f16_f16",
            "tensor_f16_f32",
            "tensor_bf16_f32",
            "tensor_s8_s32",
            "tensor_u8_u32"
        ]
    );
    for p in tensor {
        assert_eq!(p["status"], "failed", "{p:?}");
        assert!(p["reason"].contains("VK_KHR_cooperative_matrix"), "{p:?}");
    }
}

/// A scenario file with one variant whose `requires` or `[measure]` is `extra`.
fn load_error(extra_requires: &str, measure: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("t.toml");
    std::fs::write(
        &f,
        format!(
            r#"[scenario]
name = "t"
shader = "{shader}"

[[resources]]
name = "dst"
type = "buffer"
binding = 0
element = "f32"
count = 64

[[dispatch]]
grid = [1, 1, 1]

[measure]
{measure}

[[variants]]
name = "v"
requires = [{extra_requires}]
"#,
            shader = std::fs::canonicalize("glsl/smoke/smoke.comp")
                .unwrap()
                .display()
        ),
    )
    .unwrap();
    let o = run(&["list", f.to_str().unwrap()]);
    assert_eq!(
        o.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn malformed_tensor_declarations_are_refused_with_file_line_and_key() {
    let e = load_error(r#""cooperative_matrix:f16*f16+f32 16x16x16""#, "");
    assert!(
        e.contains("t.toml:20: key `variants[0].requires[0]`") && e.contains("no `=`"),
        "{e}"
    );
    let e = load_error(r#""cooperative_matrix:f17*f16+f32=f32 16x16x16""#, "");
    assert!(e.contains("`f17` is not a component type"), "{e}");
    let e = load_error(r#""cooperative_matrix:f16*f16+f32=f32 16x16""#, "");
    assert!(e.contains("is not MxNxK"), "{e}");
    let e = load_error("", "tensor_flops = 1000");
    assert!(
        e.contains("key `measure.tensor_unit`") && e.contains("needs `tensor_unit`"),
        "{e}"
    );
    let e = load_error("", "tensor_flops = 1000\ntensor_unit = \"tensor_f32\"");
    assert!(
        e.contains("key `measure.tensor_unit`") && e.contains("not a tensor unit"),
        "{e}"
    );
}
