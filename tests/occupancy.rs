//! scenarios/occupancy.toml and scenarios/neighborhood.toml (seeds/004) on the real device
//! (lavapipe in CI): every row is checked `ok`, or `unsupported` with a reason.
mod common;
use common::*;

/// Run one scenario with a short, fixed measurement and return its result rows.
fn run_scenario(file: &str, name: &str) -> Vec<Row> {
    let (_t, out) = out_dir(name);
    let o = run(&[
        "run",
        file,
        "--out",
        out.to_str().unwrap(),
        "--warmup-ms",
        "0",
        "--reps",
        "3",
    ]);
    assert_eq!(o.status.code(), Some(0), "p3lab run {file} failed");
    let rows = read_csv(&out.join("results.csv"));
    for r in &rows {
        assert_eq!(r["scenario"], name);
        if r["status"] == "unsupported" {
            assert!(
                !r["reason"].is_empty(),
                "unsupported without a reason: {r:?}"
            );
            continue;
        }
        assert_eq!(r["status"], "ok", "{r:?}");
        assert!(r["check"] == "pass" || r["check"] == "baseline", "{r:?}");
        assert!(r["check_detail"].contains("vs reference:"), "{r:?}");
        assert!(num(r, "median_ns") > 0.0, "{r:?}");
    }
    rows
}

#[test]
fn occupancy_island_solver_checks_every_group_size_and_pressure() {
    let rows = run_scenario("scenarios/occupancy.toml", "occupancy");
    // 4 group sizes (params cases) x (8 register + 2 shared-memory variants).
    assert_eq!(rows.len(), 40);
    for wg in ["1024", "512", "256", "64"] {
        let case: Vec<&Row> = rows
            .iter()
            .filter(|r| r["params"].ends_with(&format!("wg={wg}")))
            .collect();
        assert_eq!(case.len(), 10, "wg={wg}");
        // 1024-invocation groups with the default subgroup size are allowed on lavapipe.
        assert!(case.iter().all(|r| r["status"] == "ok"), "wg={wg}");
        assert!(case.iter().all(|r| r["workgroup_x"] == wg), "wg={wg}");
        // Every variant solves the same islands, so all match the baseline (and the CPU).
        for r in case.iter().filter(|r| r["variant"] != "nreg8-smem0") {
            assert!(r["check_detail"].contains("vs baseline:"), "{r:?}");
        }
    }
}

#[test]
fn neighborhood_filter_matches_with_and_without_shared_memory() {
    let rows = run_scenario("scenarios/neighborhood.toml", "neighborhood");
    assert_eq!(rows.len(), 6);
    for t in [8, 16, 32] {
        for mode in ["global", "lds"] {
            let r = row(&rows, &format!("{mode}-{t}x{t}"));
            assert_eq!(r["status"], "ok", "{r:?}");
            // Power-of-two weights, fixed order: exact against the CPU and the baseline.
            assert!(
                r["check_detail"].contains("vs reference: dst: exact"),
                "{r:?}"
            );
        }
    }
}
