//! Issue 40's smaller items, each as a real user meets it on lavapipe: aliased buffers in
//! `list --details`, an 8K PNG, `cold_bytes` past the device, peaks of another card of the same
//! model.
mod common;
use common::*;
use std::path::{Path, PathBuf};

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let file = dir.join(name);
    std::fs::write(&file, text).unwrap();
    file
}

/// tests/data/glsl/aliased.comp with `extra` appended to the scenario.
fn aliased(dir: &Path, extra: &str) -> PathBuf {
    write(
        dir,
        "aliased.toml",
        &format!(
            r#"[scenario]
name = "aliased"
shader = "tests/data/glsl/aliased.comp"
push_constants = ["n"]

[params]
n = 64

[[resources]]
name = "a"
type = "buffer"
binding = 0
element = "f32"
count = "n"
init = "ramp"

[[resources]]
name = "b"
type = "buffer"
binding = 1
element = "f32"
count = "n"
output = true

[[dispatch]]
cover = ["n"]

[[variants]]
name = "one"
{extra}"#
        ),
    )
}

/// Two blocks at one binding are one descriptor: `list --details` names it once (it listed
/// `0.0 storage buffer` twice), and the variant runs.
#[test]
fn aliased_buffers_are_listed_once() {
    let dir = tempfile::tempdir().unwrap();
    let file = aliased(dir.path(), "");
    let o = run(&["list", "--details", file.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0));
    let text = String::from_utf8_lossy(&o.stdout);
    let line = text
        .lines()
        .find(|l| l.contains("shader bindings:"))
        .unwrap_or_else(|| panic!("{text}"));
    assert_eq!(line.matches("0.0 storage buffer").count(), 1, "{line}");
    assert!(line.contains("0.1 storage buffer"), "{line}");
    let out = dir.path().join("out");
    let o = quick_run(&file, &out, &[]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(read_csv(&out.join("results.csv"))[0]["status"], "ok");
}

/// `cold_bytes` past what the device can allocate (4 PiB) ran, silently capped, exit 0: it is
/// refused naming the key, before anything is written.
#[test]
fn cold_bytes_past_the_device_are_refused_naming_the_key() {
    let dir = tempfile::tempdir().unwrap();
    let file = aliased(
        dir.path(),
        "\n[measure]\nmodes = [\"cold\"]\ncold_bytes = \"2 ** 52\"\n",
    );
    let out = dir.path().join("out");
    let o = quick_run(&file, &out, &[]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("aliased.toml:33: key `measure.cold_bytes`"),
        "{err}"
    );
    assert!(
        err.contains("cold_bytes is 4503599627370496 bytes, more than this device can allocate"),
        "{err}"
    );
    assert!(!out.join("results.csv").exists());
    // Within the device, on a CPU device the eviction is its last-level cache: said in the
    // log, not silently less.
    let file = aliased(
        dir.path(),
        "\n[measure]\nmodes = [\"cold\"]\ncold_bytes = \"2 ** 30\"\n",
    );
    let o = run(&[
        "run",
        file.to_str().unwrap(),
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
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(
        err.contains("cold mode evicts") && err.contains("not the 1073741824 cold_bytes asks for"),
        "{err}"
    );
}

/// The summary's baseline was the first variant or `[check] baseline` (which also decides the
/// check): `[scenario] baseline` and `--baseline-variant` choose it; names no case has are
/// refused naming the key or the flag.
#[test]
fn the_summary_baseline_is_chosen_by_key_or_flag() {
    let dir = tempfile::tempdir().unwrap();
    let two = "\n[[variants]]\nname = \"two\"\n";
    let file = aliased(dir.path(), two);
    let text = std::fs::read_to_string(&file).unwrap();
    let baseline_of = |extra: &[&str], name: &str| {
        let out = dir.path().join(name);
        let json = dir.path().join(format!("{name}.json"));
        let mut args = vec!["--export-json", json.to_str().unwrap()];
        args.extend_from_slice(extra);
        let o = quick_run(&file, &out, &args);
        assert_eq!(
            o.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        v["cases"][0]["modes"][0]["baseline"].clone()
    };
    assert_eq!(baseline_of(&[], "plain"), "one");
    std::fs::write(
        &file,
        text.replace("push_constants", "baseline = \"two\"\npush_constants"),
    )
    .unwrap();
    assert_eq!(baseline_of(&[], "key"), "two");
    assert_eq!(baseline_of(&["--baseline-variant", "one"], "flag"), "one");

    let o = quick_run(
        &file,
        &dir.path().join("nope"),
        &["--baseline-variant", "nope"],
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("--baseline-variant nope: no scenario of the run has a variant `nope`"),
        "{err}"
    );

    std::fs::write(
        &file,
        text.replace("push_constants", "baseline = \"three\"\npush_constants"),
    )
    .unwrap();
    let o = run(&["list", file.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("aliased.toml:4: key `scenario.baseline`: `three` is not a variant of this scenario; its variants: one, two"), "{err}");
}
