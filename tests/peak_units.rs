//! Issue 26's calibration units through the real binary. Texture peaks per format and fetch
//! path: peaks/texture.toml gives each format and path its unit, `[measure] texture_unit` names
//! the one a scenario's `texels` count against (a bad name is refused naming file, line and
//! key), `list --details` shows it, and a row's `texture_pct` divides by that unit's peak and
//! says which (`texture_unit`). int64: peaks/int64.toml's 64 x 32-bit (`mul32`), full
//! 64 x 64-bit and vkpeak-kernel (`vk`) variants. Every texture and int64 calibration variant compiles and passes its
//! own check on the test device (untimed here: the timed peak run is tests/run_lavapipe.rs's
//! `peak_measures_every_unit_...`, on a subset).
mod common;
use common::*;

/// Every texture unit `texels` may name, and bilinear, as peaks/texture.toml measures them.
const UNITS: [&str; 7] = [
    "texture_point",
    "texture_bilinear",
    "texture_point_rgba16f",
    "texture_point_rgba32f",
    "texture_fetch_rgba8",
    "texture_fetch_rgba16f",
    "texture_fetch_rgba32f",
];

#[test]
fn the_calibration_and_the_suite_name_their_texture_units() {
    let o = run(&["list", "--details", "peaks/texture.toml"]);
    assert_eq!(o.status.code(), Some(0));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(!out.contains("does not compile"), "{out}");
    for u in UNITS.iter().filter(|u| **u != "texture_bilinear") {
        assert!(out.contains(&format!("texture_unit*={u}")), "{u} in\n{out}");
    }
    assert!(out.contains("texels_linear*="), "{out}");
    // The suite's scenarios that fetch texels name the format and path they fetch.
    for (file, unit) in [
        ("scenarios/tiling.toml", "texture_fetch_rgba16f"),
        ("scenarios/tiling_hlsl.toml", "texture_fetch_rgba16f"),
        ("scenarios/waterfall.toml", "texture_fetch_rgba32f"),
    ] {
        let o = run(&["list", "--details", file]);
        assert_eq!(o.status.code(), Some(0), "{file}");
        let out = String::from_utf8_lossy(&o.stdout);
        assert!(
            out.contains(&format!("texture_unit={unit}")),
            "{file}: {unit} in\n{out}"
        );
    }
    // `texels` without a unit count against rgba8 point sampling, and `list` says so.
    let (_d, f) = scenario("texels = 64", "");
    let o = run(&["list", "--details", f.to_str().unwrap()]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("texture_unit=texture_point (default)"),
        "{out}"
    );
    // `peak --list` names every unit with what it measures.
    let o = run(&["peak", "--list", "--filter", "texture_*"]);
    assert_eq!(o.status.code(), Some(0));
    let out = String::from_utf8_lossy(&o.stdout);
    for u in UNITS {
        for acc in [1, 4] {
            assert!(out.contains(&format!("{u}-acc{acc} ")), "{u} in\n{out}");
        }
    }
    assert!(
        out.contains("texture_fetch_rgba16f texture fetches, rgba16f, texelFetch()"),
        "{out}"
    );
}

/// A scenario file with `[measure]` holding `measure` and its one variant `variant_extra`
/// (TOML lines after `name = "v"`), in a temporary folder.
fn scenario(measure: &str, variant_extra: &str) -> (tempfile::TempDir, std::path::PathBuf) {
    let d = tempfile::tempdir().unwrap();
    let f = d.path().join("t.toml");
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
{variant_extra}
"#,
            shader = std::fs::canonicalize("glsl/smoke/smoke.comp")
                .unwrap()
                .display()
        ),
    )
    .unwrap();
    (d, f)
}

/// `p3lab list` of such a file: exit 2 and its stderr.
fn load_error(measure: &str, variant_extra: &str) -> String {
    let (_d, f) = scenario(measure, variant_extra);
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
fn a_texture_unit_that_is_not_one_is_refused_with_file_line_and_key() {
    let e = load_error("texels = 64\ntexture_unit = \"texture_fetch_rgba16\"", "");
    assert!(
        e.contains("t.toml:17: key `measure.texture_unit`")
            && e.contains("`texture_fetch_rgba16` is not a texture unit")
            && e.contains("texture_fetch_rgba16f"),
        "{e}"
    );
    // Bilinear has its own key, and the message says which.
    let e = load_error("texels = 64\ntexture_unit = \"texture_bilinear\"", "");
    assert!(
        e.contains("key `measure.texture_unit`") && e.contains("`texels_linear`"),
        "{e}"
    );
    // A unit with nothing to count against it.
    let e = load_error("texels_linear = 64\ntexture_unit = \"texture_point\"", "");
    assert!(
        e.contains("key `measure.texture_unit`") && e.contains("without `texels`"),
        "{e}"
    );
    // A variant's own unit is checked where it is written.
    let e = load_error(
        "texels = 64",
        "measure = { texture_unit = \"texture_fetch_rgba64f\" }",
    );
    assert!(
        e.contains("t.toml:20: key `variants[0].measure.texture_unit`")
            && e.contains("not a texture unit"),
        "{e}"
    );
}

/// The device the tests run on: its UUID and driver version, as peaks.csv records them.
fn device_id() -> (String, u64) {
    let o = run(&["devices", "--format", "json"]);
    assert_eq!(o.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    (
        v[0]["uuid"].as_str().expect("uuid").to_string(),
        v[0]["driver_version"].as_u64().expect("driver_version"),
    )
}

#[test]
fn texture_pct_divides_by_the_peak_the_scenario_names() {
    // Peaks for this device in which rgba16f texelFetch is a quarter of rgba8 point sampling:
    // the tiling filter's texels (texelFetch on rgba16f) must count against the former.
    let (uuid, driver) = device_id();
    let d = tempfile::tempdir().unwrap();
    let peaks = d.path().join("peaks.csv");
    let mut text = String::from("schema_version,device_name,device_uuid,driver_version,unit,value,value_unit,best_variant,median_ns,median_ci_low_ns,median_ci_high_ns,cv_pct,n,status,reason,variants\n");
    // Rates that lavapipe stays well under (a declared figure over 100 % would leave its
    // cell: issue 39).
    for (unit, value) in [
        ("texture_point", 100.0),
        ("texture_fetch_rgba16f", 25.0),
        ("launch", 100.0),
    ] {
        text.push_str(&format!(
            "3,test,{uuid},{driver},{unit},{value},gtexels_per_s,{unit}-acc1,1,1,1,0,1,ok,,2\n"
        ));
    }
    std::fs::write(&peaks, text).unwrap();
    let (_t, out) = out_dir("tiling");
    let o = quick_run(
        std::path::Path::new("scenarios/tiling.toml"),
        &out,
        &[
            "--filter",
            "rowmajor-wg8x8",
            "--peaks",
            peaks.to_str().unwrap(),
        ],
    );
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let rows = read_csv(&out.join("results.csv"));
    assert_eq!(rows.len(), 2, "warm and cold: {rows:?}");
    for r in &rows {
        assert_eq!(r["texture_unit"], "texture_fetch_rgba16f", "{r:?}");
        let want = num(r, "texels") / num(r, "median_ns") / 25.0 * 100.0;
        assert!(
            (num(r, "texture_pct") - want).abs() <= 1e-9 * want,
            "texture_pct {} against the rgba16f texelFetch peak: {want}; {r:?}",
            r["texture_pct"]
        );
    }
}

#[test]
fn every_texture_and_int64_calibration_variant_passes_its_own_check() {
    // Timing is not the point here (2 rounds of a 1 ms budget, one placement): each variant's
    // kernel runs and checks its result, the sum of its fetches or every 64-bit chain value.
    let (_t, out) = out_dir("calibrations");
    let o = run(&[
        "run",
        "peaks/texture.toml",
        "peaks/int64.toml",
        "peaks/int64_vk.toml",
        "peaks/int32_vk.toml",
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
        "--placements",
        "1",
        "-q",
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let rows = read_csv(&out.join("results.csv"));
    for r in &rows {
        assert_eq!(
            (r["status"].as_str(), r["check"].as_str()),
            ("ok", "pass"),
            "{r:?}"
        );
        // A texels variant declares its own unit; bilinear's fetches are `texels_linear`.
        let unit = r["variant"].split('-').next().unwrap();
        if unit.starts_with("texture_") && unit != "texture_bilinear" {
            assert_eq!(r["texture_unit"], unit, "{r:?}");
        } else {
            assert_eq!(r["texture_unit"], "", "{r:?}");
        }
    }
    let count = |prefix: &str| {
        rows.iter()
            .filter(|r| r["variant"].starts_with(prefix))
            .count()
    };
    for u in UNITS {
        assert_eq!(count(&format!("{u}-acc")), 2, "{u}");
    }
    assert_eq!(
        count("int64-mul32-wg"),
        2,
        "the 64 x 32-bit form at 128 and 256 threads"
    );
    assert_eq!(count("int64-wg"), 2, "the full 64 x 64-bit variants");
    assert_eq!(
        count("int64-vk-"),
        2,
        "vkpeak's dual kernel, checked in the shader"
    );
    // vkpeak's count: 16 multiply-adds x 2 ops per loop iteration, per thread.
    for (v, ops) in [
        (
            "int64-vk-wg128-c2",
            2.0 * 16.0 * (2.0 * 32.0) * 16.0 * 256.0,
        ),
        (
            "int64-vk-long-wg256-c2",
            2.0 * 16.0 * (8.0 * 32.0) * 16.0 * 256.0,
        ),
        // 2 ops x 8 chains x 32 iterations over groups * 256 threads.
        ("int64-mul32-wg128-c8", 2.0 * 8.0 * 32.0 * 16.0 * 256.0),
        // The scenario's own count, over the workgroup's 256 threads.
        ("int64-wg256-c16", 2.0 * 16.0 * 32.0 * 16.0 * 256.0),
    ] {
        let r = row(&rows, v);
        assert_eq!(num(r, "int64_ops"), ops, "{v}: {r:?}");
    }
    let r = row(&rows, "int64-mul32-wg128-c8");
    assert_eq!(
        num(r, "workgroups") * 128.0,
        16.0 * 256.0,
        "groups * 256 threads whatever the workgroup: {r:?}"
    );
    // vkpeak's kernel verbatim: its stores checked on the CPU (`check` = pass above), vkpeak's
    // count of 2 * 16 ops per loop iteration over `threads` invocations.
    let r = row(&rows, "int64-vkx");
    assert_eq!(r["params"], "loop=4;threads=4096;wg=32", "{r:?}");
    assert_eq!(num(r, "int64_ops"), 2.0 * 16.0 * 4.0 * 4096.0, "{r:?}");
    assert_eq!(num(r, "workgroups"), 4096.0 / 32.0, "{r:?}");
    assert!(
        r["check_detail"].contains("out"),
        "checked against the CPU: {r:?}"
    );
}

#[test]
fn the_verbatim_int_kernels_fail_their_check_when_they_run_other_work_than_declared() {
    // peaks/int64_vk.toml's and int32_vk.toml's kernel checks nothing itself: the CPU reference
    // does. Run each with one loop iteration more than the reference is told (the spec constant
    // `loop + 1`): every stored value is then wrong, and the row must say so.
    let d = tempfile::tempdir().unwrap();
    let shader = std::fs::canonicalize("glsl/peak/vkpeak_int.comp").unwrap();
    for (file, variant) in [
        ("int64_vk.toml", "int64-vkx"),
        ("int32_vk.toml", "int32-vkx"),
    ] {
        let text = std::fs::read_to_string(format!("peaks/{file}"))
            .unwrap()
            .replace(
                r#"spec = { "1" = "loop" }"#,
                r#"spec = { "1" = "loop + 1" }"#,
            )
            .replace(
                r#"shader = "glsl/peak/vkpeak_int.comp""#,
                &format!("shader = {:?}", shader.display().to_string()),
            );
        assert!(text.contains("loop + 1"), "the spec line moved: {text}");
        let f = d.path().join(file);
        std::fs::write(&f, text).unwrap();
        let out = d.path().join(variant);
        let o = quick_run(&f, &out, &["--placements", "1"]);
        assert_ne!(
            o.status.code(),
            Some(0),
            "{file}: a failed check fails the run"
        );
        let rows = read_csv(&out.join("results.csv"));
        let r = row(&rows, variant);
        assert_eq!(r["check"], "fail", "{file}: {r:?}");
        assert!(r["check_detail"].contains("out"), "{file}: {r:?}");
    }
}

/// Issue 41: a filtered `p3lab peak` replaces only the units it measured in the cache (the
/// others stay), and a run whose peaks lack units says which, instead of using them silently.
#[test]
fn a_filtered_peak_keeps_the_cached_units_and_a_partial_file_is_named() {
    let cache = tempfile::tempdir().unwrap();
    let spirv = cache.path().join("spirv");
    let peak = |filter: &str, out: &std::path::Path| {
        let o = bin()
            .args(["peak", "--out"])
            .arg(out)
            .arg("--cache-dir")
            .arg(&spirv)
            .args(["--filter", filter, "--warmup-ms", "0", "--reps", "3"])
            .args(["--no-hw-counters"])
            .output()
            .unwrap();
        assert_eq!(
            o.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
        String::from_utf8_lossy(&o.stderr).to_string()
    };
    let (_t1, out1) = out_dir("peak-empty");
    peak("empty-wg32", &out1);
    let (_t2, out2) = out_dir("peak-launch");
    let err = peak("launch-wg32", &out2);
    assert!(err.contains("the cache keeps its 1 other unit(s)"), "{err}");
    let file = std::fs::read_dir(cache.path().join("peaks"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let units: Vec<String> = read_csv(&file).iter().map(|p| p["unit"].clone()).collect();
    assert!(
        units.contains(&"empty".to_string()) && units.contains(&"launch".to_string()),
        "{units:?}"
    );
    // A run on that cache names what its peaks lack.
    let (_t3, out3) = out_dir("partial-peaks");
    let o = bin()
        .args(["run", "scenarios/smoke.toml", "--out"])
        .arg(&out3)
        .arg("--cache-dir")
        .arg(&spirv)
        .args([
            "--warmup-ms",
            "0",
            "--rounds",
            "2",
            "--max-rounds",
            "2",
            "--filter",
            "wg64",
        ])
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("have no row for") && err.contains("dram_read"),
        "{err}"
    );
}
