//! scenarios/reduction.toml and scenarios/reduce_sum.toml through the real binary on the Vulkan
//! device (lavapipe in CI): every row must be checked and pass (against the CPU reference and
//! the baseline), or be `unsupported` because the device lacks the requested subgroup size.
mod common;
use common::*;

#[test]
fn reduction_ladder_and_sum_pass_their_checks() {
    let (_t, out) = out_dir("reduction");
    let o = run(&[
        "run",
        "scenarios/reduction.toml",
        "scenarios/reduce_sum.toml",
        "--out",
        out.to_str().unwrap(),
        "--warmup-ms",
        "0",
        "--reps",
        "3",
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "p3lab exits 0 when every row is ok or unsupported"
    );
    let rows = read_csv(&out.join("results.csv"));
    let (mut ok, mut unsupported) = (0, 0);
    for r in &rows {
        match r["status"].as_str() {
            "ok" => {
                ok += 1;
                assert!(r["check"] == "pass" || r["check"] == "baseline", "{r:?}");
                assert!(r["check_detail"].contains("vs reference:"), "{r:?}");
                // The baselines are checked against the reference only.
                if !["interleaved-16x16", "wg256-l1-b4"].contains(&r["variant"].as_str()) {
                    assert!(r["check_detail"].contains("vs baseline:"), "{r:?}");
                }
                assert!(num(r, "median_ns") > 0.0, "{r:?}");
            }
            "unsupported" => {
                unsupported += 1;
                assert_ne!(r["subgroup_size_requested"], "default", "{r:?}");
                assert!(r["reason"].contains("subgroup size"), "{r:?}");
            }
            s => panic!("status {s}: {r:?}"),
        }
    }
    // reduction: 2 modes x 3 tiles x (5 ladder + 8 subgroup); reduce_sum: 2 sizes x 15 variants.
    let count = |sc: &str| rows.iter().filter(|r| r["scenario"] == sc).count();
    assert_eq!(count("reduction"), 2 * 39);
    assert_eq!(count("reduce_sum"), 30);
    // Whatever the device, the ladder itself (default subgroup size) always runs.
    assert!(ok >= 2 * 3 * 5 + 30, "{ok} ok, {unsupported} unsupported");
    for r in rows.iter().filter(|r| r["scenario"] == "reduce_sum") {
        assert_eq!(r["status"], "ok", "{r:?}");
        assert_eq!(num(r, "bytes_read"), 4.0 * num_param(&r["params"], "n"));
    }
}

/// A value from the `params` column (`k=v;k=v`).
fn num_param(params: &str, key: &str) -> f64 {
    params
        .split(';')
        .find_map(|kv| kv.strip_prefix(key)?.strip_prefix('='))
        .unwrap_or_else(|| panic!("no {key} in {params}"))
        .parse()
        .unwrap()
}
