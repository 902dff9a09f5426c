//! Per-subgroup probes (glsl/common/p3lab.glsl, `P3_PROBE_GROUPS`) end to end on the Vulkan
//! device (lavapipe here: VK_KHR_shader_clock, no SM ids, subgroups of 8): `p3lab run --probe`
//! on the tiling scenario must leave every row ok and checked, add the `probe` metrics and the
//! achieved-occupancy columns, and draw the launch order of every variant; the same run
//! without `--probe` has none of that. The subgroup size and active lanes are sampled in every
//! workgroup either way.
mod common;
use std::path::Path;

fn run_tiling(out: &Path, extra: &[&str]) {
    let mut args = vec![
        "run",
        "scenarios/tiling.toml",
        "--out",
        out.to_str().unwrap(),
        "--warmup-ms",
        "0",
        "--reps",
        "3",
        "--filter",
        "rowmajor-wg8x8",
        "--filter",
        "tilex4-wg8x8",
        "--filter",
        "tilex8-wg8x8",
        "--filter",
        "morton-wg8x8",
    ];
    args.extend_from_slice(extra);
    // One lavapipe worker thread: groups then start one at a time in dispatch order, so the
    // launch order is deterministic (with N threads lavapipe hands each a contiguous chunk).
    let o = common::bin()
        .env("LP_NUM_THREADS", "1")
        .args(&args)
        .output()
        .expect("p3lab runs");
    eprintln!("{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(o.status.code(), Some(0));
}

fn probe_metric(metrics: &[common::Row], variant: &str, name: &str) -> Option<(f64, String)> {
    metrics
        .iter()
        .find(|m| m["variant"] == variant && m["source"] == "probe" && m["name"] == name)
        .map(|m| (common::num(m, "value"), m["unit"].clone()))
}

fn svgs(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut v: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "svg"))
        .collect();
    v.sort();
    v
}

const VARIANTS: [&str; 4] = [
    "rowmajor-wg8x8",
    "tilex4-wg8x8",
    "tilex8-wg8x8",
    "morton-wg8x8",
];

#[test]
fn probe_records_groups_and_draws_the_launch_order() {
    let (_t, out) = common::out_dir("probe");
    run_tiling(&out, &["--probe"]);
    let rows = common::read_csv(&out.join("results.csv"));
    assert_eq!(rows.len(), 8, "{rows:?}");
    for r in &rows {
        assert_eq!(r["status"], "ok", "{r:?}");
        assert!(r["check"] == "pass" || r["check"] == "baseline", "{r:?}");
        assert!(
            r["check_detail"].contains("vs reference: dst: exact"),
            "{r:?}"
        );
        // Every subgroup ran 8 lanes, all active (8 x 8 groups); no theoretical occupancy on
        // lavapipe, so the counts are not judged, and the status says so.
        for c in [
            "subgroup_size",
            "subgroup_size_min",
            "subgroup_size_max",
            "active_lanes_min",
        ] {
            assert_eq!(r[c], "8", "{c}: {r:?}");
        }
        assert_eq!(
            r["probe_status"],
            "unchecked: no theoretical occupancy for this device and shader"
        );
        assert_eq!(r["flags"], "", "{r:?}");
        // One lavapipe thread: one group, and one subgroup of it, at a time.
        assert_eq!(r["achieved_groups_per_unit"], "1", "{r:?}");
        assert_eq!(r["achieved_waves_per_unit"], "1", "{r:?}");
        let mean = common::num(r, "achieved_waves_per_unit_mean");
        assert!(mean > 0.0 && mean <= 1.0, "{r:?}");
    }
    let metrics = common::read_csv(&out.join("metrics.csv"));
    // The default case: 176 x 99 pixels in 8 x 8 groups = a 22 x 13 grid, 8 subgroups each.
    let groups = 22.0 * 13.0;
    for v in VARIANTS {
        let (recorded, _) = probe_metric(&metrics, v, "groups_recorded").expect("groups_recorded");
        assert_eq!(recorded, groups, "{v}");
        let (subs, unit) = probe_metric(&metrics, v, "subgroups_recorded").expect("subgroups");
        assert_eq!((subs, unit.as_str()), (groups * 8.0, "subgroups"), "{v}");
        assert_eq!(
            probe_metric(&metrics, v, "subgroups_unfinished").unwrap().0,
            0.0
        );
        // A group is resident only while one of its subgroups is.
        let peak = |n: &str| probe_metric(&metrics, v, n).unwrap().0;
        assert!(
            peak("achieved_waves_per_sm_peak") >= peak("achieved_groups_per_sm_peak"),
            "{v}"
        );
        let (max, unit) = probe_metric(&metrics, v, "achieved_groups_per_sm_max").expect("max");
        assert_eq!(unit, "groups");
        let (mean, _) = probe_metric(&metrics, v, "achieved_groups_per_sm_mean").expect("mean");
        assert!(
            max >= 1.0 && mean > 0.0 && mean <= max,
            "{v}: max {max} mean {mean}"
        );
        let (tail, unit) = probe_metric(&metrics, v, "tail_pct").expect("tail_pct");
        assert_eq!(unit, "%");
        assert!((0.0..=100.0).contains(&tail), "{v}: {tail}");
        // Lavapipe's clock has no documented rate: the span stays in ticks.
        let (span, unit) = probe_metric(&metrics, v, "span_ns").expect("span_ns");
        assert_eq!(unit, "ticks");
        assert!(span > 0.0, "{v}");
        // No VK_NV_shader_sm_builtins here.
        assert_eq!(probe_metric(&metrics, v, "sm_ids_seen").unwrap().0, 0.0);
    }
    // Launch order. filter.comp files each record under the group it works on (after the
    // remap), so the start rank over that grid is the order in which image tiles were
    // processed. Row-major must be monotone-ish in the flat index; tiles of 4 groups along X
    // sweep columns of tiles, which correlates less with row-major order, and tiles of 8 differ.
    let corr = |v: &str| {
        probe_metric(&metrics, v, "launch_order_rank_corr")
            .unwrap()
            .0
    };
    assert!(
        corr("rowmajor-wg8x8") > 0.95,
        "row-major rank correlation {}",
        corr("rowmajor-wg8x8")
    );
    assert!(
        corr("tilex4-wg8x8") < 0.8,
        "tilex4 {} vs rowmajor {}",
        corr("tilex4-wg8x8"),
        corr("rowmajor-wg8x8")
    );
    assert_ne!(corr("tilex4-wg8x8"), corr("tilex8-wg8x8"));

    // One picture per variant, each an SVG with one cell per group.
    let pics = svgs(&out);
    assert_eq!(pics.len(), 4, "{pics:?}");
    let mut texts = Vec::new();
    for v in VARIANTS {
        let p = pics
            .iter()
            .find(|p| {
                p.file_name()
                    .unwrap()
                    .to_string_lossy()
                    .starts_with(&format!("probe-tiling-{v}-"))
            })
            .unwrap_or_else(|| panic!("no picture for {v}: {pics:?}"));
        let text = std::fs::read_to_string(p).unwrap();
        assert!(text.starts_with("<svg"), "{}", p.display());
        assert!(text.trim_end().ends_with("</svg>"));
        assert_eq!(
            text.matches("<title>group").count(),
            22 * 13,
            "{}",
            p.display()
        );
        texts.push(text);
    }
    assert_ne!(
        texts[0], texts[1],
        "rowmajor and tilex4 pictures are identical"
    );
    assert_ne!(
        texts[1], texts[2],
        "tilex4 and tilex8 pictures are identical"
    );
}

#[test]
fn without_probe_nothing_is_recorded() {
    let (_t, out) = common::out_dir("noprobe");
    run_tiling(&out, &[]);
    let rows = common::read_csv(&out.join("results.csv"));
    assert_eq!(rows.len(), 8);
    assert!(rows.iter().all(|r| r["status"] == "ok"), "{rows:?}");
    let metrics = common::read_csv(&out.join("metrics.csv"));
    assert!(probe_metric(&metrics, "rowmajor-wg8x8", "tail_pct").is_none());
    // The subgroup-size probe is unaffected.
    assert!(probe_metric(&metrics, "rowmajor-wg8x8", "subgroup_size_max").is_some());
    assert!(svgs(&out).is_empty());
}

/// `[measure] probe = true` in the scenario turns the probes on without `--probe`.
#[test]
fn measure_probe_key_opts_in() {
    let (t, out) = common::out_dir("key");
    let text = std::fs::read_to_string("scenarios/tiling.toml")
        .unwrap()
        .replace("[measure]\n", "[measure]\nprobe = true\n");
    assert!(text.contains("probe = true"));
    let toml = t.path().join("tiling-probe.toml");
    std::fs::write(&toml, text).unwrap();
    let o = common::run(&[
        "run",
        toml.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--warmup-ms",
        "0",
        "--reps",
        "2",
        "--filter",
        "tilex16-wg16x8",
    ]);
    assert_eq!(o.status.code(), Some(0));
    let rows = common::read_csv(&out.join("results.csv"));
    assert!(rows.iter().all(|r| r["status"] == "ok"), "{rows:?}");
    let metrics = common::read_csv(&out.join("metrics.csv"));
    // 176 x 99 pixels in 16 x 8 groups: 11 x 13.
    let (n, _) = probe_metric(&metrics, "tilex16-wg16x8", "groups_recorded").expect("probe rows");
    assert_eq!(n, 11.0 * 13.0);
    assert_eq!(svgs(&out).len(), 1);
}

/// Shaders that do not call the probe themselves are wrapped by p3lab (their `main` runs
/// inside `p3_group_begin()` / `p3_group_end()`), and every pass of a multi-pass variant keeps
/// its own records: here both passes of tests/data/scenarios/multipass.toml, whose grids differ.
#[test]
fn every_shader_and_every_pass_is_probed() {
    let (_t, out) = common::out_dir("wrap");
    let o = common::run(&[
        "run",
        "tests/data/scenarios/multipass.toml",
        "--out",
        out.to_str().unwrap(),
        "--warmup-ms",
        "0",
        "--reps",
        "2",
        "--probe",
    ]);
    assert_eq!(o.status.code(), Some(0));
    let rows = common::read_csv(&out.join("results.csv"));
    assert_eq!(rows.len(), 4);
    for r in &rows {
        assert_eq!(r["status"], "ok", "{r:?}");
        assert!(r["check"] == "pass" || r["check"] == "baseline", "{r:?}");
        let achieved = common::num(r, "achieved_groups_per_unit");
        assert!(achieved >= 1.0, "{r:?}");
        assert!(common::num(r, "achieved_groups_per_unit_mean") > 0.0);
        let waves = common::num(r, "achieved_waves_per_unit");
        assert!(waves >= 1.0, "{r:?}");
        let mean = common::num(r, "achieved_waves_per_unit_mean");
        assert!(mean > 0.0 && mean <= waves, "{r:?}");
        assert!(r["probe_status"].starts_with("unchecked: "), "{r:?}");
    }
    let metrics = common::read_csv(&out.join("metrics.csv"));
    for (r, wg) in [("wg32", 32usize), ("wg64", 64)] {
        for n in [100usize, 1000] {
            let groups = n.div_ceil(wg) as f64;
            for pass in ["scale", "add"] {
                let m = metrics
                    .iter()
                    .find(|m| {
                        m["variant"] == r
                            && m["params"] == format!("n={n}")
                            && m["name"] == format!("{pass}/groups_recorded")
                    })
                    .unwrap_or_else(|| panic!("no {pass}/groups_recorded for {r} n={n}"));
                // Every group of the pass, and only those: the passes do not overwrite each other.
                assert_eq!(common::num(m, "value"), groups, "{m:?}");
                // wg / 8 subgroups per group, every one finished.
                let subs = metrics
                    .iter()
                    .find(|m| {
                        m["variant"] == r
                            && m["params"] == format!("n={n}")
                            && m["name"] == format!("{pass}/subgroups_recorded")
                    })
                    .expect("subgroups_recorded");
                assert_eq!(common::num(subs, "value"), groups * (wg / 8) as f64);
            }
        }
    }
    // One picture per pass.
    let pictures = svgs(&out);
    assert_eq!(pictures.len(), 8, "{pictures:?}");
    assert!(pictures
        .iter()
        .any(|p| p.to_string_lossy().contains("-wg32-add-")));

    // Without --probe the columns are empty.
    let (_t2, plain) = common::out_dir("wrap-plain");
    let o = common::run(&[
        "run",
        "tests/data/scenarios/multipass.toml",
        "--out",
        plain.to_str().unwrap(),
        "--warmup-ms",
        "0",
        "--reps",
        "2",
    ]);
    assert_eq!(o.status.code(), Some(0));
    for r in common::read_csv(&plain.join("results.csv")) {
        assert_eq!(r["achieved_groups_per_unit"], "", "{r:?}");
        assert_eq!(r["achieved_waves_per_unit"], "", "{r:?}");
        assert_eq!(r["probe_status"], "", "{r:?}");
        // The subgroup-size probe runs without --probe.
        assert_eq!(r["subgroup_size_max"], "8", "{r:?}");
    }
}

/// `run --resume` keeps `--probe` from run.json: the variants it adds are probed too.
#[test]
fn resume_keeps_the_probe() {
    let (_t, out) = common::out_dir("resume-probe");
    let dir = out.to_str().unwrap();
    let o = common::run(&[
        "run",
        "tests/data/scenarios/multipass.toml",
        "--out",
        dir,
        "--warmup-ms",
        "0",
        "--reps",
        "2",
        "--probe",
        "--filter",
        "wg32",
    ]);
    assert_eq!(o.status.code(), Some(0));
    let o = common::run(&[
        "run", "--resume", "--out", dir, "--filter", "wg64", "--reps", "2",
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let rows = common::read_csv(&out.join("results.csv"));
    assert_eq!(rows.len(), 4, "{rows:?}");
    for r in &rows {
        assert_eq!(r["status"], "ok", "{r:?}");
        assert_ne!(r["achieved_groups_per_unit"], "", "{r:?}");
    }
    assert_eq!(common::run_json(&out)["args"]["probe"], true);
}

/// Workgroups of 12 invocations run as a full subgroup of 8 and one of 4 active lanes: the
/// probe finds the partial one (`active_lanes_min` 4), every group leaves two subgroup
/// records, and the subgroup size is the same everywhere.
#[test]
fn partial_subgroups_are_seen_in_every_workgroup() {
    let (t, out) = common::out_dir("partial");
    let text = std::fs::read_to_string("tests/data/scenarios/multipass.toml")
        .unwrap()
        .replace("matrix = { WG = [32, 64] }", "matrix = { WG = [12] }")
        .replace(
            "shader = \"glsl/scale.comp\"",
            "shader = \"tests/data/glsl/scale.comp\"",
        );
    assert!(text.contains("WG = [12]"));
    let toml = t.path().join("partial.toml");
    std::fs::write(&toml, text).unwrap();
    let o = common::run(&[
        "run",
        toml.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--warmup-ms",
        "0",
        "--reps",
        "2",
        "--probe",
    ]);
    assert_eq!(o.status.code(), Some(0));
    let rows = common::read_csv(&out.join("results.csv"));
    assert_eq!(rows.len(), 2, "{rows:?}");
    for r in &rows {
        assert_eq!(r["status"], "ok", "{r:?}");
        assert_eq!(r["subgroup_size"], "8", "{r:?}");
        assert_eq!(r["subgroup_size_min"], "8", "{r:?}");
        assert_eq!(r["subgroup_size_max"], "8", "{r:?}");
        assert_eq!(r["active_lanes_min"], "4", "{r:?}");
        assert!(common::num(r, "achieved_waves_per_unit") >= 1.0, "{r:?}");
    }
    let metrics = common::read_csv(&out.join("metrics.csv"));
    for n in [100usize, 1000] {
        let groups = n.div_ceil(12) as f64;
        let m = metrics
            .iter()
            .find(|m| m["params"] == format!("n={n}") && m["name"] == "add/subgroups_recorded")
            .expect("add/subgroups_recorded");
        assert_eq!(common::num(m, "value"), groups * 2.0, "{m:?}");
        let lanes = metrics
            .iter()
            .find(|m| m["params"] == format!("n={n}") && m["name"] == "active_lanes_min")
            .expect("active_lanes_min");
        assert_eq!(common::num(lanes, "value"), 4.0);
    }
}
