//! examples/llama-cpp (issue 40, item 6): llama.cpp's Vulkan soft_max.comp and mul_mm.comp,
//! unmodified, run on lavapipe as ggml-vulkan.cpp sets them up. Every row passes its NumPy
//! reference, every row says the subgroup size that ran (the probe p3lab adds: the shaders do
//! not include p3lab.glsl), the f16 forms of one binding compare with `--pair`, and a push
//! block filled wrongly is caught by the same check.
mod common;
use common::*;
use std::path::{Path, PathBuf};

const SOFT_MAX: &str = "examples/llama-cpp/soft_max.toml";
const MUL_MM: &str = "examples/llama-cpp/mul_mm.toml";

/// A PATH whose `python3` has NumPy: Debian's (scripts/setup.sh installs python3-numpy) may be
/// behind another python3 (pyenv) on the PATH the tests inherit.
fn path_with_numpy() -> String {
    let path = std::env::var("PATH").unwrap_or_default();
    for dir in std::env::split_paths(&path).chain([PathBuf::from("/usr/bin")]) {
        let py = dir.join("python3");
        let ok = std::process::Command::new(&py)
            .args(["-c", "import numpy"])
            .stderr(std::process::Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if ok {
            return format!("{}:{path}", dir.display());
        }
    }
    panic!("no python3 with NumPy: run scripts/setup.sh (P3LAB_SETUP=test) first");
}

/// `p3lab run FILE --out OUT` at the least measuring (as `quick_run`), with NumPy on the PATH.
fn run_example(file: &Path, out: &Path, extra: &[&str]) -> std::process::Output {
    let mut args = vec![
        "run",
        file.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--warmup-ms",
        "0",
        "--rounds",
        "2",
        "--max-rounds",
        "2",
        "--budget-ms",
        "1",
        "-q",
    ];
    args.extend_from_slice(extra);
    let o = bin()
        .env("PATH", path_with_numpy())
        .args(&args)
        .output()
        .expect("p3lab runs");
    eprintln!(
        "--- p3lab {}\n{}",
        args.join(" "),
        String::from_utf8_lossy(&o.stderr)
    );
    o
}

/// Every row ran, passed its check against NumPy (and the others against the baseline), and measured
/// lavapipe's subgroup size of 8 through the added probe.
fn assert_rows_pass(rows: &[Row], baseline: &str) {
    for r in rows {
        let v = &r["variant"];
        assert_eq!(r["status"], "ok", "{v}: {}", r["reason"]);
        // With a reference the baseline is checked too: every row says `pass`.
        assert_eq!(r["check"], "pass", "{v}: {}", r["check_detail"]);
        assert!(
            r["check_detail"].starts_with("vs reference: "),
            "{v}: {}",
            r["check_detail"]
        );
        assert_eq!(
            r["check_detail"].contains("vs baseline: "),
            v != baseline,
            "{v}: {}",
            r["check_detail"]
        );
        assert_eq!(r["subgroup_size"], "8", "{v}: {}", r["reason"]);
        assert!(
            !r["reason"].contains("subgroup size not measured"),
            "{v}: {}",
            r["reason"]
        );
    }
}

fn pair(out: &Path, spec: &str) {
    let o = run(&["compare", out.to_str().unwrap(), "--pair", spec]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{text}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let right = spec.split('=').nth(1).unwrap();
    assert!(text.contains(right), "{text}");
}

#[test]
fn soft_max_runs_as_llama_cpp_runs_it_and_matches_numpy() {
    let (_t, out) = out_dir("soft_max");
    let o = run_example(Path::new(SOFT_MAX), &out, &[]);
    assert_eq!(o.status.code(), Some(0));
    let rows = read_csv(&out.join("results.csv"));
    // Two params cases (a row inside the register cache, one past it) x llama.cpp's four
    // pipelines.
    assert_eq!(rows.len(), 8, "{rows:?}");
    assert_rows_pass(&rows, "soft_max_f32");
    for v in [
        "soft_max_f32",
        "soft_max_f32_wg512",
        "soft_max_f32_f16",
        "soft_max_f32_f16_wg512",
    ] {
        assert_eq!(rows.iter().filter(|r| r["variant"] == v).count(), 2, "{v}");
    }
    // The f16 mask is a variant of the same case: paired round by round with the f32 one.
    pair(&out, "soft_max_f32=soft_max_f32_f16");
}

/// The float members of the push block reach the shader: ALiBi slopes (max_bias, m0, m1) and
/// the attention sinks change every row, and the rows still match NumPy.
#[test]
fn soft_max_alibi_and_sinks_match_numpy() {
    let (_t, out) = out_dir("alibi");
    let o = run_example(
        Path::new(SOFT_MAX),
        &out,
        &[
            "--set",
            "max_bias=8",
            "--set",
            "has_sinks=1",
            "--set",
            "ne02=6",
            "--filter",
            "soft_max_f32",
            "--filter",
            "soft_max_f32_f16",
        ],
    );
    assert_eq!(o.status.code(), Some(0));
    let rows = read_csv(&out.join("results.csv"));
    assert_eq!(rows.len(), 4, "{rows:?}");
    assert_rows_pass(&rows, "soft_max_f32");
}

/// The check is what makes the example trustworthy, so it must fail when the push block is
/// filled wrongly: KY = 0 tells the shader there is no mask, which NumPy still adds.
#[test]
fn a_wrong_push_block_fails_the_check() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/llama-cpp");
    let text = std::fs::read_to_string(root.join("soft_max.toml")).unwrap();
    let ky = r#"{ name = "KY", type = "u32", value = "ne01" }"#;
    assert!(text.contains(ky));
    let shader = root.join("vulkan-shaders/soft_max.comp");
    let script = root.join("soft_max_ref.py");
    let text = text
        .replace(ky, r#"{ name = "KY", type = "u32", value = 0 }"#)
        .replace(
            "\"vulkan-shaders/soft_max.comp\"",
            &format!("{:?}", shader.to_str().unwrap()),
        )
        .replace(
            "\"soft_max_ref.py\"",
            &format!("{:?}", script.to_str().unwrap()),
        );
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("soft_max_no_mask.toml");
    std::fs::write(&file, text).unwrap();
    let out = dir.path().join("out");
    let o = run_example(
        &file,
        &out,
        &["--set", "ne00=77", "--filter", "soft_max_f32"],
    );
    // Exit 3: the run finished with a check_failed row.
    assert_eq!(o.status.code(), Some(3));
    let rows = read_csv(&out.join("results.csv"));
    assert_eq!(rows.len(), 1, "{rows:?}");
    let r = &rows[0];
    assert_eq!(r["status"], "check_failed", "{r:?}");
    assert_eq!(r["check"], "fail", "{}", r["check_detail"]);
    assert!(
        r["check_detail"].contains("vs reference: dst:"),
        "{}",
        r["check_detail"]
    );
}

#[test]
fn mul_mm_tiles_and_f16_weights_match_numpy() {
    let (_t, out) = out_dir("mul_mm");
    // Under the Khronos validation layer: the spec constants, the 16-bit storage the f16
    // weights need and the push block are valid Vulkan as p3lab sets them up.
    let o = run_example(Path::new(MUL_MM), &out, &["--validate"]);
    assert_eq!(o.status.code(), Some(0));
    let json = run_json(&out);
    assert_eq!(json["validation"], true, "{json}");
    assert_eq!(json["validation_errors"], 0, "{json}");
    // llama.cpp's whole warptile list goes in: BK (id 3), declared only in the shader's
    // quantized branch, is accepted and listed as unused by every variant (beside TK, id 9,
    // which only the cooperative-matrix path reads: the optimizer removes it).
    let unused = json["unused_spec_constants"].as_array().unwrap();
    assert_eq!(unused.len(), 6, "{json}");
    let has_bk = |u: &serde_json::Value| {
        u["spec_ids"]
            .as_array()
            .is_some_and(|ids| ids.contains(&serde_json::json!(3)))
    };
    assert!(unused.iter().all(has_bk), "{unused:?}");
    let rows = read_csv(&out.join("results.csv"));
    assert_eq!(rows.len(), 6, "{rows:?}");
    assert_rows_pass(&rows, "matmul_f32_f32_l");
    // The f16 weights are read as half through the same binding: half the bytes of A.
    let f32_l = row(&rows, "matmul_f32_f32_l");
    let f16_l = row(&rows, "matmul_f16_f32_l");
    assert_eq!(
        num(f32_l, "bytes_read") - num(f16_l, "bytes_read"),
        2.0 * 128.0 * 256.0
    );
    pair(&out, "matmul_f32_f32_l=matmul_f16_f32_l");
}

/// The full-size profile (the GPU benchmark's) expands without a device: llama.cpp's grids at
/// 512 tokens x 32 heads and 4096 x 512 x 4096.
#[test]
fn full_profiles_expand_to_llama_cpp_grids() {
    let o = run(&["list", "--details", "--profile", "full", SOFT_MAX]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{text}");
    // 16384 rows: 512 along x, 32 along y.
    assert!(text.contains("512x32x1"), "{text}");
    let o = run(&["list", "--details", "--profile", "full", MUL_MM]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{text}");
    // The large tile at N = 512: 4096 / 128 by 512 / 128.
    assert!(text.contains("32x4x1"), "{text}");
}

/// The values the full profile gives an NVIDIA GPU (subgroup size 32: llama.cpp's warptiles
/// with WARP = 32, soft_max's BLOCK_SIZE = 32 on rows of more than 32 blocks (the shader's
/// soft_max(num_blocks) path that full-size rows take), more than 512 rows so the
/// grid goes along y) compute the same answers on lavapipe, at sizes it runs quickly.
#[test]
fn nvidia_block_sizes_match_numpy_on_lavapipe() {
    let (_t, out) = out_dir("mm32");
    let sets = ["M=128", "N=256", "K=256", "warp=32"];
    let mut args = Vec::new();
    for s in &sets {
        args.extend(["--set", s]);
    }
    let o = run_example(Path::new(MUL_MM), &out, &args);
    assert_eq!(o.status.code(), Some(0));
    let rows = read_csv(&out.join("results.csv"));
    assert_eq!(rows.len(), 6, "{rows:?}");
    assert_rows_pass(&rows, "matmul_f32_f32_l");
    assert_eq!(row(&rows, "matmul_f32_f32_s")["grid"], "4x8x1");

    let (_t, out) = out_dir("sm32");
    let sets = ["ne00=2048", "ne01=300", "ne02=2", "sg=32"];
    let mut args = vec!["--filter", "soft_max_f32", "--filter", "soft_max_f32_f16"];
    for s in &sets {
        args.extend(["--set", s]);
    }
    let o = run_example(Path::new(SOFT_MAX), &out, &args);
    assert_eq!(o.status.code(), Some(0));
    let rows = read_csv(&out.join("results.csv"));
    assert_eq!(rows.len(), 2, "{rows:?}");
    assert_rows_pass(&rows, "soft_max_f32");
    assert_eq!(row(&rows, "soft_max_f32")["grid"], "512x2x1");
}
