//! Hardware counters (VK_KHR_performance_query) end to end. Lavapipe has no counters, so the
//! counter path runs over tests/perf_layer: a small Vulkan layer, built here with `cc`, that
//! advertises the extension with three counters whose true values the test knows
//! (`invocations` from a pipeline statistics query, `dispatches` between begin and end, and
//! `constant` = 12.5), split over two passes. Without the layer the run must still succeed and
//! say in run.json that counters were unavailable.
mod common;
use common::*;
use std::path::{Path, PathBuf};
use std::process::Output;
use std::sync::OnceLock;

const LAYER: &str = "VK_LAYER_P3LAB_fake_perf";

/// Build the layer once per test process into target/tmp/perf-layer-<pid>/ and write its
/// manifest there. A machine that cannot build it fails the tests: they never skip.
fn layer_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| build_layer("perf_layer", "perf", "fake_perf"))
}

/// p3lab with the layer enabled for this process only (loader 1.3.239: VK_ADD_LAYER_PATH adds
/// a search folder, VK_INSTANCE_LAYERS enables the layer).
fn run_with_layer(args: &[&str]) -> Output {
    let out = bin()
        .env("VK_ADD_LAYER_PATH", layer_dir())
        .env("VK_INSTANCE_LAYERS", LAYER)
        .args(args)
        .output()
        .expect("p3lab runs");
    eprintln!(
        "--- p3lab {} (with {LAYER})\n{}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn run_without_layer(args: &[&str]) -> Output {
    let out = bin()
        .env_remove("VK_INSTANCE_LAYERS")
        .env_remove("VK_LOADER_LAYERS_ENABLE")
        .args(args)
        .output()
        .expect("p3lab runs");
    eprintln!(
        "--- p3lab {}\n{}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// The perf_counter rows of metrics.csv.
fn perf_rows(out: &Path) -> Vec<Row> {
    read_csv(&out.join("metrics.csv"))
        .into_iter()
        .filter(|m| m["source"] == "perf_counter")
        .collect()
}

fn metric<'a>(rows: &'a [Row], r: &Row, name: &str) -> &'a Row {
    rows.iter()
        .find(|m| m["variant"] == r["variant"] && m["params"] == r["params"] && m["name"] == name)
        .unwrap_or_else(|| {
            panic!(
                "no perf_counter `{name}` for {} [{}]",
                r["variant"], r["params"]
            )
        })
}

/// Does the device p3lab picks offer the extension without any layer (a real AMD/Intel GPU)?
fn native_counters() -> bool {
    let o = run_without_layer(&["counters", "--format", "json"]);
    assert_eq!(o.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    v["available"].as_bool().unwrap()
}

#[test]
fn counters_lists_the_layers_counters() {
    let o = run_with_layer(&["counters", "--format", "json"]);
    assert_eq!(o.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["available"], true, "{v}");
    let c = v["counters"].as_array().unwrap();
    let names: Vec<&str> = c.iter().map(|c| c["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["invocations", "dispatches", "constant"]);
    assert_eq!(c[0]["storage"], "uint64");
    assert_eq!(c[0]["unit"], "generic");
    assert_eq!(c[0]["scope"], "command");
    assert_eq!(c[0]["category"], "compute");
    assert_eq!(c[2]["storage"], "float64");
    assert_eq!(c[2]["unit"], "%");
    assert!(c[1]["description"]
        .as_str()
        .unwrap()
        .contains("vkCmdDispatch"));

    let t = run_with_layer(&["counters"]);
    assert_eq!(t.status.code(), Some(0));
    let table = String::from_utf8_lossy(&t.stdout);
    assert!(table.contains("3 counters"), "{table}");
    for h in [
        "name",
        "category",
        "unit",
        "scope",
        "description",
        "dispatches",
    ] {
        assert!(table.contains(h), "`{h}` missing from:\n{table}");
    }

    let csv = run_with_layer(&["counters", "--format", "csv"]);
    assert_eq!(csv.status.code(), Some(0));
    let text = String::from_utf8_lossy(&csv.stdout);
    assert!(
        text.starts_with("index,name,category,unit,scope,storage,description\n"),
        "{text}"
    );
    assert_eq!(text.lines().count(), 4, "{text}");
}

#[test]
fn run_captures_counters_over_two_passes_with_known_values() {
    let (_t, out) = out_dir("counters");
    let o = run_with_layer(&[
        "run",
        "tests/data/scenarios/multipass.toml",
        "--out",
        out.to_str().unwrap(),
        "--counters",
        "*",
        "--warmup-ms",
        "0",
        "--reps",
        "3",
    ]);
    assert_eq!(o.status.code(), Some(0));
    let rows = read_csv(&out.join("results.csv"));
    assert_eq!(rows.len(), 4, "2 variants x 2 sizes");
    let perf = perf_rows(&out);
    assert_eq!(perf.len(), rows.len() * 3, "{perf:?}");
    for r in &rows {
        assert_eq!(r["status"], "ok", "{r:?}");
        let inv = metric(&perf, r, "invocations");
        assert_eq!(num(inv, "value"), num(r, "expected_invocations"), "{r:?}");
        assert_eq!(inv["unit"], "generic");
        assert_eq!(inv["mode"], "", "captured once, outside the timing modes");
        // The scenario's two dispatches (scale, then add), counted between begin and end.
        assert_eq!(num(metric(&perf, r, "dispatches"), "value"), 2.0);
        let k = metric(&perf, r, "constant");
        assert_eq!(num(k, "value"), 12.5);
        assert_eq!(k["unit"], "%");
    }
    let j = run_json(&out);
    let c = &j["counters"];
    assert_eq!(c["available"], true, "{c}");
    assert!(c.get("reason").is_none(), "{c}");
    assert_eq!(
        c["passes"], 2,
        "invocations and the other two are in different passes"
    );
    assert_eq!(
        c["captured"],
        serde_json::json!(["invocations", "dispatches", "constant"])
    );
    assert!(j["costs"][0]["counters_ns"].as_u64().unwrap() > 0);
    // The timed samples are untouched: one per dispatch per timed repetition.
    let reps: f64 = rows.iter().map(|r| num(r, "n")).sum();
    let samples = read_csv(&out.join("samples.csv"));
    let kept = samples.iter().filter(|s| s["kept"] == "1").count();
    assert_eq!(kept, reps as usize * 2);
}

#[test]
fn scenario_key_selects_counters_and_one_pass_suffices() {
    // multipass.toml with `[measure] counters`, in a temp folder: its shader path made absolute.
    let (_t, out) = out_dir("scenario-key");
    let dir = out.parent().unwrap();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/scenarios/multipass.toml");
    let shader = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/glsl/scale.comp");
    assert!(shader.is_file(), "{}", shader.display());
    let text = std::fs::read_to_string(src)
        .unwrap()
        .replace(
            "shader = \"glsl/scale.comp\"",
            &format!(
                "shader = {}",
                serde_json::to_string(shader.to_str().unwrap()).unwrap()
            ),
        )
        .replace(
            "[measure]\n",
            "[measure]\ncounters = [\"DISPATCH*\", \"const*\", \"no-such-counter\"]\n",
        );
    let file = dir.join("counters.toml");
    std::fs::write(&file, text).unwrap();
    let o = run_with_layer(&[
        "run",
        file.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--warmup-ms",
        "0",
        "--reps",
        "3",
    ]);
    assert_eq!(o.status.code(), Some(0));
    let rows = read_csv(&out.join("results.csv"));
    let perf = perf_rows(&out);
    assert_eq!(perf.len(), rows.len() * 2, "{perf:?}");
    assert!(perf
        .iter()
        .all(|m| m["name"] == "dispatches" || m["name"] == "constant"));
    for r in &rows {
        assert_eq!(num(metric(&perf, r, "dispatches"), "value"), 2.0);
    }
    let c = &run_json(&out)["counters"];
    assert_eq!(c["passes"], 1, "both counters share a pass: {c}");
    assert_eq!(c["unmatched"], serde_json::json!(["no-such-counter"]));
}

#[test]
fn without_the_extension_the_run_succeeds_and_says_so() {
    if native_counters() {
        eprintln!("this device has VK_KHR_performance_query natively; the no-counter path is not testable here");
        return;
    }
    let o = run_without_layer(&["counters"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("does not offer VK_KHR_performance_query"),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
    let (_t, out) = out_dir("no-counters");
    let o = run_without_layer(&[
        "run",
        "tests/data/scenarios/multipass.toml",
        "--out",
        out.to_str().unwrap(),
        "--counters",
        "*",
        "--warmup-ms",
        "0",
        "--reps",
        "3",
    ]);
    assert_eq!(o.status.code(), Some(0));
    let rows = read_csv(&out.join("results.csv"));
    assert!(rows.iter().all(|r| r["status"] == "ok"), "{rows:?}");
    assert!(perf_rows(&out).is_empty());
    let c = &run_json(&out)["counters"];
    assert_eq!(c["available"], false, "{c}");
    assert!(
        c["reason"]
            .as_str()
            .unwrap()
            .contains("VK_KHR_performance_query"),
        "{c}"
    );
}

#[test]
fn a_bad_counter_glob_is_bad_input() {
    let (_t, out) = out_dir("bad-glob");
    let o = run_without_layer(&[
        "run",
        "tests/data/scenarios/multipass.toml",
        "--out",
        out.to_str().unwrap(),
        "--counters",
        "[",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--counters"));
}
