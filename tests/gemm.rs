//! scenarios/gemm.toml through the real binary on the Vulkan device (lavapipe in CI), at small
//! sizes: every SIMT variant passes its check against the CPU reference `gemm_f32`, or is
//! `unsupported` because the device lacks the requested subgroup size; every row carries its
//! variant's own grid and declared work ([[variants.dispatch]], [variants.measure]).
mod common;
use common::*;

/// Bytes each family reads and moves through shared memory (the formulas of gemm.toml,
/// written out again here, for whole and partial tiles alike).
fn declared(variant: &str, n: u64, wg: (u64, u64)) -> (u64, Option<u64>) {
    let div = |a: u64, b: u64| a.div_ceil(b);
    let align = |a: u64, b: u64| a.div_ceil(b) * b;
    let num = |key: &str| -> u64 {
        let at = variant
            .find(key)
            .unwrap_or_else(|| panic!("{key} in {variant}"))
            + key.len();
        variant[at..]
            .split(|c: char| !c.is_ascii_digit())
            .next()
            .unwrap()
            .parse()
            .unwrap()
    };
    if variant.starts_with("naive") {
        (4 * n * n * (div(n, wg.0) + div(n, wg.1)), None)
    } else if variant.starts_with("tiled") {
        let t = num("tiled");
        (
            8 * n * n * div(n, t),
            Some(8 * div(n, t).pow(2) * align(n, t) * t * (t + 1)),
        )
    } else {
        let (tm, g, bk) = (num("regblock"), num("-wg"), num("-bk"));
        let bm = g * tm;
        (
            8 * n * n * div(n, bm),
            Some(8 * div(n, bm).pow(2) * align(n, bk) * bm * (g + 1)),
        )
    }
}

#[test]
fn every_simt_variant_passes_its_check_with_its_own_grid_and_work() {
    let (_t, out) = out_dir("gemm");
    let o = run(&[
        "run",
        "scenarios/gemm.toml",
        "--out",
        out.to_str().unwrap(),
        "--set",
        "n=20,40",
        "--warmup-ms",
        "0",
        "--warmup",
        "0",
        "--reps",
        "1",
        "--rounds",
        "2",
        "--max-rounds",
        "2",
        "--no-placement-check",
        "--no-hw-counters",
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "p3lab exits 0 when every row is ok or unsupported"
    );
    let rows = read_csv(&out.join("results.csv"));
    // 6 naive + 3 tiled + 8 register-blocked + 2 x 4 subgroup sizes, for each of 2 sizes.
    assert_eq!(rows.len(), 2 * 25);
    let mut ok = 0;
    for r in &rows {
        let n: u64 = r["params"].strip_prefix("n=").unwrap().parse().unwrap();
        let v = r["variant"].as_str();
        // The declared work of every row, whether it ran or not.
        assert_eq!(num(r, "flops"), (2 * n * n * n) as f64, "{r:?}");
        assert_eq!(num(r, "bytes_written"), (4 * n * n) as f64, "{r:?}");
        let wg = (num(r, "workgroup_x") as u64, num(r, "workgroup_y") as u64);
        let (read, shared) = declared(v, n, wg);
        assert_eq!(num(r, "bytes_read"), read as f64, "{r:?}");
        match shared {
            Some(s) => assert_eq!(num(r, "shared_bytes"), s as f64, "{r:?}"),
            None => assert_eq!(r["shared_bytes"], "", "{r:?}"),
        }
        match r["status"].as_str() {
            "ok" => {
                ok += 1;
                assert_eq!(r["check"], "pass", "{r:?}");
                assert!(r["check_detail"].starts_with("vs reference: c:"), "{r:?}");
                assert!(num(r, "median_ns") > 0.0, "{r:?}");
                // regblock's own grid: one group per (WG*TM)^2 block of C; the others the
                // scenario's: one invocation per element.
                let grid = match v.strip_prefix("regblock") {
                    Some(rest) => {
                        let tm: u64 = rest[..1].parse().unwrap();
                        let side = n.div_ceil(wg.0 * tm);
                        format!("{side}x{side}x1")
                    }
                    None => format!("{}x{}x1", n.div_ceil(wg.0), n.div_ceil(wg.1)),
                };
                assert_eq!(r["grid"], grid, "{r:?}");
            }
            "unsupported" => {
                assert!(v.contains("-sg"), "{r:?}");
                assert!(r["reason"].contains("subgroup size"), "{r:?}");
            }
            s => panic!("status {s}: {r:?}"),
        }
    }
    // Whatever the device, every variant at the default subgroup size runs: 17 per size.
    assert!(ok >= 2 * 17, "{ok} ok");
}

#[test]
fn list_details_shows_each_variants_work_and_own_grid() {
    let o = run(&["list", "--details", "scenarios/gemm.toml", "--set", "n=64"]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let out = String::from_utf8_lossy(&o.stdout);
    for want in [
        "variant naive-wg16x16  subgroup default",
        "work: bytes_read*=131072 bytes_written=16384 flops=524288 l1_bytes*=2097152 \
         footprint_bytes=49152  (* the variant's own [variants.measure])",
        "work: bytes_read*=65536 bytes_written=16384 flops=524288 shared_bytes*=589824 \
         footprint_bytes=49152",
        "(the variant's own, variants[2].dispatch[0])",
        "workgroup 8x8x1 (declared), grid 2x2x1 = 256 invocations",
    ] {
        assert!(out.contains(want), "expected `{want}` in:\n{out}");
    }
    assert!(!out.contains("does not compile"), "{out}");
}

/// `list --details` prints a random init the way it is drawn (issue 29): floats from the
/// half-open [min, max), integers from the closed [ceil(min), floor(max)].
#[test]
fn list_details_prints_random_inits_as_they_are_drawn() {
    let o = run(&["list", "--details", "scenarios/gemm.toml", "--set", "n=64"]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("init random [0, 1) seed 1"), "{out}");
    let o = run(&["list", "--details", "scenarios/coalescing.toml"]);
    assert_eq!(o.status.code(), Some(0));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("init random integers [0, 1000000] seed 11"),
        "{out}"
    );
}
