//! The access-pattern scenarios (coalescing, bank conflicts, divergence, write patterns,
//! descriptor indexing) run end to end on the default device (lavapipe in CI): every row is
//! checked against the baseline variant and the CPU reference, or is `unsupported` with a reason.
mod common;
use common::*;

/// Run one scenario with small settings; return its rows after checking each one.
fn run_scenario(name: &str, variants: usize) -> Vec<Row> {
    let (_t, out) = out_dir(name);
    let file = format!("scenarios/{name}.toml");
    let o = run(&[
        "run",
        &file,
        "--out",
        out.to_str().unwrap(),
        "--warmup-ms",
        "0",
        "--reps",
        "3",
    ]);
    assert_eq!(o.status.code(), Some(0), "{name}: p3lab failed");
    let rows = read_csv(&out.join("results.csv"));
    assert_eq!(rows.len(), variants, "{name}: one row per variant");
    for r in &rows {
        assert_eq!(r["scenario"], name);
        match r["status"].as_str() {
            "ok" => {
                assert!(r["check"] == "pass" || r["check"] == "baseline", "{r:?}");
                assert!(r["check_detail"].contains("vs reference"), "{r:?}");
                assert!(!r["check_detail"].contains("differ"), "{r:?}");
                assert!(num(r, "median_ns") > 0.0, "{r:?}");
                assert!(num(r, "gbytes_per_s") > 0.0, "{r:?}");
            }
            "unsupported" => assert!(!r["reason"].is_empty(), "{r:?}"),
            _ => panic!("{name}: unexpected row {r:?}"),
        }
    }
    rows
}

fn all_ok(rows: &[Row]) {
    for r in rows {
        assert_eq!(r["status"], "ok", "{r:?}");
    }
}

#[test]
fn coalescing_strides_agree() {
    all_ok(&run_scenario("coalescing", 7));
}

#[test]
fn bank_conflict_layouts_agree() {
    all_ok(&run_scenario("bank_conflicts", 4));
}

#[test]
fn divergence_mappings_agree() {
    let rows = run_scenario("divergence", 3);
    all_ok(&rows);
    // flops is declared: 2 per step per element.
    assert!(rows.iter().all(|r| num(r, "flops") == 2.0 * 64.0 * 16384.0));
}

#[test]
fn write_patterns_agree() {
    all_ok(&run_scenario("write_pattern", 8));
}

#[test]
fn waterfall_runs_or_says_why_not() {
    // Lavapipe (Mesa 22.3) has no descriptor indexing: every row is unsupported there.
    for r in run_scenario("waterfall", 6) {
        if r["status"] == "unsupported" {
            assert!(r["reason"].contains("non_uniform_indexing"), "{r:?}");
        }
    }
}
