//! Issue 15 on lavapipe: the binary alone is an install (built-in calibration scenarios and
//! p3lab.glsl), `--out` templates give every host and device a folder, and `compare` picks
//! hosts inside a merged folder, refusing sides it cannot tell apart.
mod common;
use common::read_csv;
use std::path::Path;
use std::process::{Command, Output};

/// The binary copied alone into `dir/bin/`, run from `dir` with an empty HOME and none of
/// p3lab's environment: no source tree, no cache.
fn alone(dir: &Path) -> impl Fn(&[&str], &[(&str, &str)]) -> Output + '_ {
    let bin = dir.join("bin/p3lab");
    std::fs::create_dir_all(dir.join("bin")).unwrap();
    std::fs::create_dir_all(dir.join("home")).unwrap();
    // A hard link has no file descriptor open for writing, so no sibling test's fork can hold
    // one while this copy is executed ("Text file busy", os error 26, issue 30). Across file
    // systems it is a copy, and running it retries while a forked sibling still holds the
    // copy's descriptor (it closes at that sibling's exec).
    if std::fs::hard_link(env!("CARGO_BIN_EXE_p3lab"), &bin).is_err() {
        std::fs::copy(env!("CARGO_BIN_EXE_p3lab"), &bin).unwrap();
    }
    move |args, env| {
        let mut c = Command::new(&bin);
        c.current_dir(dir)
            .env("HOME", dir.join("home"))
            .env("NO_COLOR", "1");
        for k in [
            "P3LAB_CACHE_DIR",
            "P3LAB_PEAKS_DIR",
            "P3LAB_GLSL_COMMON",
            "XDG_CACHE_HOME",
        ] {
            c.env_remove(k);
        }
        c.envs(env.iter().copied());
        c.args(args);
        let mut tries = 0;
        let out = loop {
            match c.output() {
                Err(e) if e.raw_os_error() == Some(26) && tries < 100 => {
                    tries += 1;
                    std::thread::sleep(std::time::Duration::from_millis(20));
                }
                r => break r.expect("p3lab runs"),
            }
        };
        eprintln!(
            "--- p3lab {}\n{}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr)
        );
        out
    }
}

const SHADER: &str = r#"#version 450
#include "p3lab.glsl"
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(set = 0, binding = 0) buffer Dst { uint dst[]; };
void main() { p3_probe_record(); dst[gl_GlobalInvocationID.x] = gl_GlobalInvocationID.x * 2u; }
"#;

const SCENARIO: &str = r#"[scenario]
name = "mine"
shader = "probe.comp"
workgroup = [64, 1, 1]

[params]
n = 4096

[[resources]]
name = "dst"
type = "buffer"
binding = 0
element = "u32"
count = "n"
init = "zero"

[[dispatch]]
cover = ["n", 1, 1]

[[variants]]
name = "a"

[[variants]]
name = "b"
"#;

#[test]
fn the_binary_alone_runs_peak_and_a_scenario_that_includes_p3lab_glsl() {
    let t = tempfile::tempdir().unwrap();
    let p3 = alone(t.path());
    let v = p3(&["--version"], &[]);
    let v = String::from_utf8_lossy(&v.stdout).to_string();
    assert!(v.contains("git ") && v.contains("built-in assets "), "{v}");

    // The built-in calibration scenarios (one quick unit on lavapipe).
    // An --out template: peaks.csv goes into the expanded folder, beside the run's files
    // (it was written under the unexpanded path).
    let out = p3(
        &["peak", "--out", "pk-{host}", "--filter", "empty-*", "-q"],
        &[("P3LAB_HOST", "h1")],
    );
    assert!(out.status.success(), "{out:?}");
    assert!(!t.path().join("pk-{host}").exists());
    let peaks = read_csv(&t.path().join("pk-h1/peaks.csv"));
    // Both variants ran and gave a value. Whether they agree within 1.5x (`ok`) or not
    // (`suspect`) is a timing on a shared 2-core CI machine (CI saw 1.57x once), so it is not
    // asserted here; the agreement rule is tested on fixed numbers in src/peaks/tests.rs.
    assert!(
        peaks.iter().any(|r| r["unit"] == "empty"
            && (r["status"] == "ok" || r["status"] == "suspect")
            && r["variants"] == "2"
            && r["value"].parse::<f64>().is_ok_and(|v| v > 0.0)),
        "{peaks:?}"
    );

    // A scenario of the user's whose shader includes p3lab.glsl: found in the built-in copy.
    std::fs::write(t.path().join("probe.comp"), SHADER).unwrap();
    std::fs::write(t.path().join("mine.toml"), SCENARIO).unwrap();
    let out = p3(&["run", "mine.toml", "--out", "mine", "-q"], &[]);
    assert!(out.status.success());
    let rows = read_csv(&t.path().join("mine/results.csv"));
    assert!(rows.iter().all(|r| r["status"] == "ok"), "{rows:?}");
    let j: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(t.path().join("mine/run.json")).unwrap())
            .unwrap();
    let hash = j["assets_hash"].as_str().unwrap();
    assert!(
        v.contains(hash),
        "run.json assets_hash {hash} vs --version {v}"
    );
    assert!(t
        .path()
        .join("home/.cache/p3lab/assets")
        .join(hash)
        .join("glsl/common/p3lab.glsl")
        .is_file());

    // A folder given in the environment wins over the built-in ones.
    let out = p3(
        &["peak", "--out", "pk2", "--filter", "empty-*"],
        &[("P3LAB_PEAKS_DIR", "/nonexistent")],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("/nonexistent"));
}

#[test]
fn out_templates_and_compare_by_host_inside_a_merged_folder() {
    let t = tempfile::tempdir().unwrap();
    let p3 = alone(t.path());
    std::fs::write(t.path().join("probe.comp"), SHADER).unwrap();
    std::fs::write(t.path().join("mine.toml"), SCENARIO).unwrap();
    for host in ["host-a", "host-b"] {
        let out = p3(
            &[
                "run",
                "mine.toml",
                "--out",
                "runs/{host}/{device}",
                "-q",
                "--rounds",
                "3",
            ],
            &[("P3LAB_HOST", host)],
        );
        assert!(out.status.success());
        let rows = read_csv(&t.path().join(format!("runs/{host}/device-0/results.csv")));
        assert!(rows.iter().all(|r| r["host"] == host), "{rows:?}");
    }
    // A host name cannot add or climb a folder level.
    let out = p3(
        &[
            "run",
            "mine.toml",
            "--out",
            "runs/{host}",
            "-q",
            "--rounds",
            "2",
        ],
        &[("P3LAB_HOST", "../up")],
    );
    assert!(out.status.success());
    assert!(t.path().join("runs/..-up/results.csv").is_file());
    let out = p3(&["run", "mine.toml", "--out", "runs/{hots}"], &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("{hots}"));

    let out = p3(
        &[
            "merge",
            "runs/host-a/device-0",
            "runs/host-b/device-0",
            "--out",
            "fleet",
        ],
        &[],
    );
    assert!(out.status.success());
    let out = p3(
        &[
            "compare",
            "fleet",
            "--base-host",
            "host-a",
            "--new-host",
            "host-b",
            "-o",
            "cmp",
        ],
        &[],
    );
    assert!(out.status.success());
    let pairs = read_csv(&t.path().join("cmp/compare.csv"));
    assert!(!pairs.is_empty());
    // A side holding the same rows from two runs, or a host that is not there: exit 2.
    for (args, says) in [
        (
            vec!["compare", "fleet", "--base-host", "host-a"],
            "--new-host",
        ),
        (vec!["compare", "fleet", "fleet"], "--base-host"),
        (
            vec![
                "compare",
                "fleet",
                "--base-host",
                "host-c",
                "--new-host",
                "host-b",
            ],
            "host `host-a`",
        ),
    ] {
        let out = p3(&args, &[]);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(says), "{args:?}: {err}");
    }
}

#[test]
fn processes_starting_together_share_the_built_in_files_safely() {
    // Eight p3lab processes with one fresh cache folder extract the built-in files at the same
    // moment; each must then compile a shader that includes p3lab.glsl. (One process deleting
    // a copy another had just put in place made a test fail once in five full runs with
    // "cannot find include file"; the window is milliseconds, so this test catches a
    // regression only sometimes: 40 rounds did not hit it with the old code.)
    for round in 0..6 {
        let cache = tempfile::tempdir().unwrap();
        let children: Vec<_> = (0..8)
            .map(|_| {
                std::process::Command::new(env!("CARGO_BIN_EXE_p3lab"))
                    .current_dir(env!("CARGO_MANIFEST_DIR"))
                    .env("P3LAB_CACHE_DIR", cache.path())
                    .env_remove("P3LAB_GLSL_COMMON")
                    .args(["list", "--details", "tests/data/scenarios/multipass.toml"])
                    .output_spawned()
            })
            .collect();
        for c in children {
            let o = c.wait_with_output().unwrap();
            let out = String::from_utf8_lossy(&o.stdout);
            assert!(
                o.status.success(),
                "round {round}: {}",
                String::from_utf8_lossy(&o.stderr)
            );
            assert!(!out.contains("does not compile"), "round {round}:\n{out}");
        }
    }
}

trait SpawnPiped {
    fn output_spawned(&mut self) -> std::process::Child;
}

impl SpawnPiped for std::process::Command {
    fn output_spawned(&mut self) -> std::process::Child {
        self.stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    }
}
