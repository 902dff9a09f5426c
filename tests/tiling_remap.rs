//! The launch-order remaps of glsl/tiling/remap.glsl: each must be a bijection of the group
//! grid for every grid size (non-multiples of N included), checked here on a Rust port with
//! proptest; and the GLSL itself, through `p3lab run` of scenarios/tiling.toml and
//! scenarios/tiling_l2.toml on the Vulkan device (lavapipe in CI), where every variant must
//! reproduce the baseline output exactly.
use proptest::prelude::*;

mod common;

// ---- Line-for-line ports of glsl/tiling/remap.glsl (u32 arithmetic, as in GLSL). ----
// Keep these equivalent to the GLSL: same statements, same order, same names.

fn remap_rowmajor(idx: u32, grid: [u32; 2]) -> [u32; 2] {
    [idx % grid[0], idx / grid[0]]
}

fn remap_tile_x(idx: u32, grid: [u32; 2], n: u32) -> [u32; 2] {
    let tile_groups = n * grid[1]; // groups in one full tile
    let tile = idx / tile_groups; // every tile before this one is full
    let in_tile = idx % tile_groups;
    let x0 = tile * n; // first column of the tile
    let w = n.min(grid[0] - x0); // the last tile is grid.x % n wide (if not 0)
    [x0 + in_tile % w, in_tile / w]
}

fn remap_tile_y(idx: u32, grid: [u32; 2], n: u32) -> [u32; 2] {
    let [a, b] = remap_tile_x(idx, [grid[1], grid[0]], n);
    [b, a]
}

fn morton_count(o: [u32; 2], s: u32, grid: [u32; 2]) -> u32 {
    let cx = if o[0] < grid[0] {
        s.min(grid[0] - o[0])
    } else {
        0
    };
    let cy = if o[1] < grid[1] {
        s.min(grid[1] - o[1])
    } else {
        0
    };
    cx * cy
}

fn remap_morton(idx: u32, grid: [u32; 2]) -> [u32; 2] {
    let mut s = 1u32;
    while s < grid[0].max(grid[1]) {
        s <<= 1; // side of the padded power-of-two square
    }
    let mut origin = [0u32, 0u32];
    let mut rem = idx;
    while s > 1 {
        s >>= 1; // side of a quadrant
        for q in 0..4u32 {
            let o = [origin[0] + (q & 1) * s, origin[1] + (q >> 1) * s];
            let c = morton_count(o, s, grid);
            if rem < c {
                origin = o;
                break;
            }
            rem -= c;
        }
    }
    origin
}

// ---- Properties ----

/// Every launch index maps inside the grid, and no two map to the same group.
fn bijection(grid: [u32; 2], f: impl Fn(u32) -> [u32; 2]) -> Result<(), String> {
    let mut hit = vec![false; (grid[0] * grid[1]) as usize];
    for idx in 0..grid[0] * grid[1] {
        let g = f(idx);
        if g[0] >= grid[0] || g[1] >= grid[1] {
            return Err(format!("{idx} -> {g:?} outside {grid:?}"));
        }
        let k = (g[1] * grid[0] + g[0]) as usize;
        if std::mem::replace(&mut hit[k], true) {
            return Err(format!("{idx} -> {g:?} a second time in {grid:?}"));
        }
    }
    Ok(())
}

fn assert_bijection(grid: [u32; 2], f: impl Fn(u32) -> [u32; 2]) -> Result<(), TestCaseError> {
    bijection(grid, f).map_err(TestCaseError::fail)
}

fn morton_code(g: [u32; 2]) -> u64 {
    (0..32).fold(0u64, |m, b| {
        m | (((g[0] >> b) & 1) as u64) << (2 * b) | (((g[1] >> b) & 1) as u64) << (2 * b + 1)
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn rowmajor_is_a_bijection(gx in 1u32..80, gy in 1u32..80) {
        assert_bijection([gx, gy], |i| remap_rowmajor(i, [gx, gy]))?;
    }

    #[test]
    fn tile_x_is_a_bijection(gx in 1u32..150, gy in 1u32..60, n in prop::sample::select(vec![1u32, 2, 3, 4, 5, 7, 8, 16, 32, 64])) {
        assert_bijection([gx, gy], |i| remap_tile_x(i, [gx, gy], n))?;
    }

    #[test]
    fn tile_y_is_a_bijection(gx in 1u32..60, gy in 1u32..150, n in prop::sample::select(vec![1u32, 2, 3, 4, 5, 7, 8, 16, 32, 64])) {
        assert_bijection([gx, gy], |i| remap_tile_y(i, [gx, gy], n))?;
    }

    #[test]
    fn morton_is_a_bijection_in_morton_order(gx in 1u32..120, gy in 1u32..120) {
        let grid = [gx, gy];
        assert_bijection(grid, |i| remap_morton(i, grid))?;
        // And the order is the Morton order of the grid's groups (what "Morton" promises).
        let codes: Vec<u64> = (0..gx * gy).map(|i| morton_code(remap_morton(i, grid))).collect();
        prop_assert!(codes.windows(2).all(|w| w[0] < w[1]), "not in Morton order for {grid:?}");
    }
}

/// The bug of the article's first (GDC 2019) snippet, as the article describes it: every tile
/// taken as N groups wide. It is right only when grid.x is a multiple of N; the properties
/// above must catch it otherwise, or they prove nothing.
fn remap_tile_x_gdc_bug(idx: u32, grid: [u32; 2], n: u32) -> [u32; 2] {
    let tile_groups = n * grid[1];
    let (tile, in_tile) = (idx / tile_groups, idx % tile_groups);
    [tile * n + in_tile % n, in_tile / n]
}

#[test]
fn the_uncorrected_tiling_is_caught_on_non_multiples() {
    assert!(bijection([32, 9], |i| remap_tile_x_gdc_bug(i, [32, 9], 16)).is_ok());
    assert!(bijection([30, 9], |i| remap_tile_x_gdc_bug(i, [30, 9], 16)).is_err());
    assert!(bijection([30, 9], |i| remap_tile_x(i, [30, 9], 16)).is_ok());
}

#[test]
fn tile_x_launch_order_matches_the_article() {
    // Figure 2 of the article: direction X, N = 3, here on a 10 x 3 grid (10 is not a multiple
    // of 3, the case the first GDC snippet got wrong): tiles of 3 columns, row by row inside a
    // tile, and a last tile of 10 % 3 = 1 column.
    let grid = [10, 3];
    let order: Vec<[u32; 2]> = (0..30).map(|i| remap_tile_x(i, grid, 3)).collect();
    assert_eq!(&order[..4], &[[0, 0], [1, 0], [2, 0], [0, 1]]);
    assert_eq!(order[9], [3, 0]);
    assert_eq!(&order[27..], &[[9, 0], [9, 1], [9, 2]]);
    // Direction Y is the transpose.
    assert_eq!(remap_tile_y(1, [3, 10], 3), [0, 1]);
    assert_eq!(remap_tile_y(3, [3, 10], 3), [1, 0]);
}

#[test]
fn bijections_on_the_full_profile_grids() {
    // The exact grids of `--profile full` (16:9 sizes; workgroups 8x8, 16x8, 16x16).
    for width in [2560u32, 3840, 8192] {
        let height = width * 9 / 16;
        for wg in [[8u32, 8], [16, 8], [16, 16]] {
            let grid = [width.div_ceil(wg[0]), height.div_ceil(wg[1])];
            bijection(grid, |i| remap_morton(i, grid)).unwrap();
            for n in [4, 8, 16, 32] {
                bijection(grid, |i| remap_tile_x(i, grid, n)).unwrap();
                bijection(grid, |i| remap_tile_y(i, grid, n)).unwrap();
            }
        }
    }
}

/// The GLSL remaps themselves, on the Vulkan device: every variant of scenarios/tiling.toml
/// (all remaps, N, workgroup sizes, warm and cold) must produce the baseline's image exactly
/// and match the CPU reference.
#[test]
fn tiling_scenario_runs_and_every_remap_matches_the_baseline() {
    let (_t, out) = common::out_dir("tiling");
    let o = common::run(&[
        "run",
        "scenarios/tiling.toml",
        "--out",
        out.to_str().unwrap(),
        "--warmup-ms",
        "0",
        "--reps",
        "3",
    ]);
    assert_eq!(o.status.code(), Some(0));
    let rows = common::read_csv(&out.join("results.csv"));
    // 30 variants (rowmajor, tilex x4, tiley x4, morton; x3 workgroups), warm and cold.
    assert_eq!(rows.len(), 60, "{rows:?}");
    for r in &rows {
        assert_eq!(r["status"], "ok", "{r:?}");
        assert!(r["check"] == "pass" || r["check"] == "baseline", "{r:?}");
        assert!(
            r["check_detail"].contains("vs reference: dst: exact"),
            "{r:?}"
        );
        if r["variant"] != "rowmajor-wg8x8" {
            assert!(
                r["check_detail"].contains("vs baseline: dst: exact"),
                "{r:?}"
            );
        }
    }
    for mode in ["warm", "cold"] {
        assert_eq!(rows.iter().filter(|r| r["mode"] == mode).count(), 30);
    }
}

/// The same remaps on the DRAM-bound pass of scenarios/tiling_l2.toml (5 vertical taps from a
/// storage buffer): at the default sizes (176 x 99, R = 3 and 40, clamped at both edges) every
/// variant must match the baseline and the CPU reference `tiling_taps_l2` exactly.
#[test]
fn tiling_l2_scenario_runs_and_every_remap_matches_the_baseline() {
    let (_t, out) = common::out_dir("tiling_l2");
    let o = common::run(&[
        "run",
        "scenarios/tiling_l2.toml",
        "--out",
        out.to_str().unwrap(),
        "--warmup-ms",
        "0",
        "--reps",
        "3",
    ]);
    assert_eq!(o.status.code(), Some(0));
    let rows = common::read_csv(&out.join("results.csv"));
    // 11 variants (rowmajor x2, tilex x6, tiley x2, morton) x 2 radii, warm only.
    assert_eq!(rows.len(), 22, "{rows:?}");
    for r in &rows {
        assert_eq!(r["status"], "ok", "{r:?}");
        assert!(r["check"] == "pass" || r["check"] == "baseline", "{r:?}");
        assert!(
            r["check_detail"].contains("vs reference: dst: exact"),
            "{r:?}"
        );
        if r["variant"] != "rowmajor-wg16x16" {
            assert!(
                r["check_detail"].contains("vs baseline: dst: exact"),
                "{r:?}"
            );
        }
    }
    for radius in ["3", "40"] {
        let n = rows
            .iter()
            .filter(|r| r["params"].contains(&format!("radius={radius}")))
            .count();
        assert_eq!(n, 11, "radius {radius}");
    }
}
