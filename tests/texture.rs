//! Texture peaks per format and fetch path (issue 26) through the real binary: peaks/texture.toml
//! gives each format and path its unit, `[measure] texture_unit` names the one a scenario's
//! `texels` count against (a bad name is refused naming file, line and key), `list --details`
//! shows it, and a row's `texture_pct` divides by that unit's peak and says which
//! (`texture_unit`). The calibration's self-checks on lavapipe are in
//! tests/run_lavapipe.rs (`peak_measures_every_unit_...`).
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
    for (unit, value) in [
        ("texture_point", 1.0),
        ("texture_fetch_rgba16f", 0.25),
        ("launch", 1.0),
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
        let want = num(r, "texels") / num(r, "median_ns") / 0.25 * 100.0;
        assert!(
            (num(r, "texture_pct") - want).abs() <= 1e-9 * want,
            "texture_pct {} against the rgba16f texelFetch peak: {want}; {r:?}",
            r["texture_pct"]
        );
    }
}
