//! The strict compare (issue 13): a `--pair`, `--baseline` or side selector that matches
//! nothing, or a `run --filter` that matches no variant, is bad input (exit 2) naming the
//! closest candidates; runs from different devices are refused unless
//! `--allow-cross-device`. Compare runs on the committed lavapipe run folders of
//! tests/data/p3; the `run --filter` cases run the real binary on lavapipe.
mod common;
use common::*;
use std::path::{Path, PathBuf};
use std::process::Output;

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/p3")
        .join(name)
}

fn text(o: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// `p3lab compare` with its output folder in a temp dir (never the fixture folders).
fn compare(args: &[&str]) -> (Output, tempfile::TempDir) {
    let out = tempfile::tempdir().unwrap();
    let mut all: Vec<String> = vec!["compare".into()];
    all.extend(args.iter().map(|s| s.to_string()));
    all.extend(["-o".into(), out.path().display().to_string()]);
    let refs: Vec<&str> = all.iter().map(String::as_str).collect();
    (run(&refs), out)
}

fn p(name: &str) -> String {
    data(name).display().to_string()
}

#[test]
fn a_pair_that_matches_nothing_names_the_closest_variants() {
    let a = p("lavapipe-a");
    let (o, out) = compare(&[&a, "--pair", "wg46=wg128", "--fail-on-regression"]);
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("--pair wg46=wg128: no variant `wg46` (BASE)")
            && err.contains("closest: `wg64`, "),
        "{err}"
    );
    assert!(!out.path().join("compare.csv").exists(), "nothing written");

    // NEW side, against another run.
    let (o, _) = compare(&[&a, &p("lavapipe-b"), "--pair", "wg64=wg64-sg23"]);
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("no variant `wg64-sg23` (NEW)") && err.contains("closest: `wg64-sg32`"),
        "{err}"
    );

    // Both variants exist, but in different scenarios: nothing to pair.
    let (o, _) = compare(&[&a, "--pair", "wg32=wg128"]);
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("no scenario, params case and mode has both variants")
            && err.contains("`wg32` in multipass")
            && err.contains("`wg128` in smoke"),
        "{err}"
    );

    // report --pair follows the same rule.
    let t = tempfile::tempdir().unwrap();
    let o = run(&[
        "report",
        &a,
        "--pair",
        "wg46=wg128",
        "--out",
        t.path().join("r").to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).1.contains("closest: `wg64`"));
    assert!(!t.path().join("r").exists());
}

#[test]
fn a_missing_baseline_names_the_closest_ones() {
    // The store is `.p3lab/baselines` under the working directory.
    let cwd = tempfile::tempdir().unwrap();
    for name in ["main", "nightly", "release-1"] {
        let dir = cwd.path().join(".p3lab/baselines").join(name);
        std::fs::create_dir_all(&dir).unwrap();
        for f in ["results.csv", "samples.csv", "metrics.csv"] {
            std::fs::copy(data("lavapipe-a").join(f), dir.join(f)).unwrap();
        }
        std::fs::write(dir.join("run.json"), "{}\n").unwrap();
    }
    let o = bin()
        .current_dir(cwd.path())
        .args(["compare", "--baseline", "mian", &p("lavapipe-b")])
        .args(["-o", cwd.path().join("out").to_str().unwrap()])
        .output()
        .unwrap();
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("no baseline named \"mian\"")
            && err.contains("3 baseline(s)")
            && err.contains("closest: `main`, "),
        "{err}"
    );
    // The right name compares.
    let o = bin()
        .current_dir(cwd.path())
        .args(["compare", "--baseline", "main", &p("lavapipe-b")])
        .args(["-o", cwd.path().join("out").to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", text(&o).1);
}

#[test]
fn a_side_selector_that_matches_nothing_names_the_closest_device() {
    let (o, _) = compare(&[
        &p("lavapipe-a"),
        "--base-device",
        "llvmpip3",
        "--pair",
        "wg64=wg128",
    ]);
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("no row of") && err.contains("closest: `llvmpipe (LLVM 15.0.6, 256 bits)`"),
        "{err}"
    );
}

/// A copy of a fixture run whose rows say they ran on another device and driver.
fn on_other_device(name: &str) -> tempfile::TempDir {
    let t = tempfile::tempdir().unwrap();
    for f in ["samples.csv", "metrics.csv"] {
        std::fs::copy(data(name).join(f), t.path().join(f)).unwrap();
    }
    let mut r = csv::Reader::from_path(data(name).join("results.csv")).unwrap();
    let header = r.headers().unwrap().clone();
    let mut w = csv::Writer::from_path(t.path().join("results.csv")).unwrap();
    w.write_record(&header).unwrap();
    for rec in r.records() {
        let rec = rec.unwrap();
        let cells: Vec<&str> = header
            .iter()
            .zip(rec.iter())
            .map(|(h, v)| match h {
                "device_name" => "NVIDIA H200",
                "device_uuid" => "0123456789abcdef0123456789abcdef",
                "driver_version" => "2474639360",
                _ => v,
            })
            .collect();
        w.write_record(cells).unwrap();
    }
    w.flush().unwrap();
    t
}

#[test]
fn runs_from_different_devices_are_refused_unless_allowed() {
    let other = on_other_device("lavapipe-b");
    let b = other.path().display().to_string();
    let (o, out) = compare(&[&p("lavapipe-a"), &b]);
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("base ran on `llvmpipe (LLVM 15.0.6, 256 bits)`")
            && err.contains("new on `NVIDIA H200`")
            && err.contains("--allow-cross-device"),
        "{err}"
    );
    assert!(!out.path().join("compare.csv").exists());

    let (o, out) = compare(&[&p("lavapipe-a"), &b, "--allow-cross-device"]);
    let (stdout, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(stdout.contains("[cross-device]"), "{stdout}");
    assert!(err.contains("marked [cross-device]"), "{err}");
    assert!(out.path().join("compare.csv").is_file());

    // `report --compare` follows the same rule.
    let rep = tempfile::tempdir().unwrap();
    let o = run(&[
        "report",
        &b,
        "--compare",
        &p("lavapipe-a"),
        "-o",
        rep.path().to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("report --compare: base ran on") && err.contains("--allow-cross-device"),
        "{err}"
    );
    assert!(!rep.path().join("report.html").exists());
    let o = run(&[
        "report",
        &b,
        "--compare",
        &p("lavapipe-a"),
        "-o",
        rep.path().to_str().unwrap(),
        "--allow-cross-device",
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(rep.path().join("report.html").is_file());
}

#[test]
fn a_run_filter_that_matches_nothing_names_the_closest_variants_and_writes_nothing() {
    let (_t, out) = out_dir("nofilter");
    for extra in [&[][..], &["--device", "all"][..]] {
        let mut args = vec![
            "run",
            "scenarios/smoke.toml",
            "--filter",
            "wg46*",
            "--out",
            out.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        let o = run(&args);
        let (_, err) = text(&o);
        assert_eq!(o.status.code(), Some(2), "{extra:?}: {err}");
        assert!(
            err.contains("--filter `wg46*`: matches no variant") && err.contains("closest: `wg64"),
            "{err}"
        );
        assert!(!out.exists(), "{extra:?}: nothing is written");
    }
}

#[test]
fn the_devices_of_run_json_count_where_results_csv_has_none() {
    // tests/data/lab: results.csv without device columns, run.json naming two devices.
    let lab = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/lab");
    let (a, b) = (lab.join("a"), lab.join("b"));
    let (o, out) = compare(&[a.to_str().unwrap(), b.to_str().unwrap()]);
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("base ran on `Fixture GPU A` (uuid aaaaaaaa")
            && err.contains("new on `Fixture GPU B` (uuid bbbbbbbb"),
        "{err}"
    );
    assert!(!out.path().join("compare.csv").exists());
    let (o, _) = compare(&[
        a.to_str().unwrap(),
        b.to_str().unwrap(),
        "--allow-cross-device",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o).1);
}

/// Issue 29: `--pair` takes `scenario/variant` (as `run --filter` does) and wildcards; what a
/// `*` matched on the left fills the `*` on the right; a pattern that matches nothing, or a
/// pair across two scenarios, is refused naming the flag.
#[test]
fn pair_takes_scenario_prefixes_and_wildcards() {
    let data = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/p3/lavapipe-a");
    let t = tempfile::tempdir().unwrap();
    let run = |pair: &str| {
        let o = common::bin()
            .args(["compare", "--format", "json", "--pair", pair, "-o"])
            .arg(t.path())
            .arg(&data)
            .output()
            .unwrap();
        (
            o.status.code(),
            String::from_utf8_lossy(&o.stdout).into_owned(),
            String::from_utf8_lossy(&o.stderr).into_owned(),
        )
    };
    let pairs_of = |out: &str| -> Vec<(String, String, String)> {
        let v: serde_json::Value = serde_json::from_str(out).unwrap();
        v["pairs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| {
                let s = |k: &str| p[k].as_str().unwrap().to_string();
                (s("scenario"), s("variant_base"), s("variant_new"))
            })
            .collect()
    };
    // Every smoke variant starting `wg` against wg64, not wg64 against itself; not multipass's
    // wg32 (the scenario prefix).
    let (code, out, err) = run("smoke/wg*=wg64");
    assert_eq!(code, Some(0), "{err}");
    let p = pairs_of(&out);
    let bases: Vec<&str> = p.iter().map(|x| x.1.as_str()).collect();
    assert_eq!(
        bases,
        ["wg128", "wg256", "wg64-sgfull", "wg64-sg8", "wg64-sg32"],
        "{out}"
    );
    assert!(p.iter().all(|x| x.0 == "smoke" && x.2 == "wg64"));
    // A capture fills the other side: wg64-sg* against wg64-sg* of the same name is the
    // variant against itself in one run, so nothing; wg64-sg8 against wg*-sg8 captures `64`.
    let (code, out, err) = run("smoke/wg64-sg*=smoke/wg64-sg*");
    assert_eq!(code, Some(2), "{out}");
    assert!(
        err.contains("matches no variant of BASE in `smoke`"),
        "{err}"
    );
    let (code, out, err) = run("wg*-sg8=wg*");
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(
        pairs_of(&out),
        [(
            "smoke".to_string(),
            "wg64-sg8".to_string(),
            "wg64".to_string()
        )]
    );
    // Two scenarios in one pair: refused, naming both.
    let (code, _, err) = run("smoke/wg64=multipass/wg64");
    assert_eq!(code, Some(2));
    assert!(
        err.contains("a pair compares variants of one scenario (`smoke` and `multipass`)"),
        "{err}"
    );
}

/// Issue 29: without `-o`, compare and report write a new folder beside their inputs, named
/// after the runs, and nothing into an input folder.
#[test]
fn default_outputs_are_new_folders_beside_the_inputs() {
    let t = tempfile::tempdir().unwrap();
    let (a, b) = (t.path().join("a"), t.path().join("b"));
    common::run_folder("lavapipe-a", &a);
    common::run_folder("lavapipe-b", &b);
    let before = |d: &Path| -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    };
    let (la, lb) = (before(&a), before(&b));
    let run = |args: &[&str]| {
        let o = common::bin().args(args).output().unwrap();
        assert_eq!(
            o.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
    };
    let (sa, sb) = (a.to_str().unwrap(), b.to_str().unwrap());
    run(&["-q", "compare", sa, sb]);
    assert!(t.path().join("compare-a-vs-b/compare.csv").is_file());
    run(&["-q", "compare", sb, "--pair", "wg64=wg128"]);
    assert!(t.path().join("compare-b/compare.md").is_file());
    run(&["-q", "report", sa]);
    assert!(t.path().join("report-a/report.html").is_file());
    run(&["-q", "report", sb, "--compare", sa]);
    assert!(t.path().join("report-b-vs-a/report.md").is_file());
    assert_eq!(
        (before(&a), before(&b)),
        (la, lb),
        "an input folder changed"
    );
}
