//! Helpers for tests that run the real p3lab binary on the real Vulkan device (lavapipe in CI).
#![allow(
    dead_code,
    reason = "each test binary uses its own subset of the shared helpers"
)]
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub type Row = HashMap<String, String>;

pub fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_p3lab"));
    c.current_dir(env!("CARGO_MANIFEST_DIR"));
    // Tests read stderr as text: colour forced by the environment they run in would get in
    // the way (tests/terminal.rs tests it).
    c.env_remove("CLICOLOR_FORCE");
    // Each test gets a private SPIR-V cache unless it passes --cache-dir itself.
    c.env(
        "P3LAB_CACHE_DIR",
        std::env::temp_dir().join(format!("p3lab-test-cache-{}", std::process::id())),
    );
    c
}

pub fn run(args: &[&str]) -> Output {
    let out = bin().args(args).output().expect("p3lab runs");
    eprintln!(
        "--- p3lab {}\n{}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// Parse a CSV file with a real CSV reader into rows keyed by header.
pub fn read_csv(path: &Path) -> Vec<Row> {
    let mut r = csv::Reader::from_path(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let headers = r.headers().expect("header").clone();
    r.records()
        .map(|rec| {
            let rec = rec.expect("record parses");
            assert_eq!(rec.len(), headers.len(), "ragged row in {}", path.display());
            headers
                .iter()
                .zip(rec.iter())
                .map(|(h, v)| (h.to_string(), v.to_string()))
                .collect()
        })
        .collect()
}

pub fn row<'a>(rows: &'a [Row], variant: &str) -> &'a Row {
    rows.iter()
        .find(|r| r["variant"] == variant)
        .unwrap_or_else(|| panic!("no row for {variant}"))
}

pub fn num(r: &Row, col: &str) -> f64 {
    r[col]
        .parse()
        .unwrap_or_else(|_| panic!("{col} = `{}` is not a number", r[col]))
}

pub fn out_dir(name: &str) -> (tempfile::TempDir, PathBuf) {
    let t = tempfile::tempdir().expect("tempdir");
    let p = t.path().join(name);
    (t, p)
}

/// A run folder's run.json.
pub fn run_json(dir: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(dir.join("run.json"))
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    serde_json::from_str(&text).expect("run.json parses")
}

/// Build a test-only Vulkan layer from `tests/<folder>/layer.c` (and its manifest.json.in) into
/// `target/tmp/<tag>-layer-<pid>/` as `libVkLayer_p3lab_<lib>.so` + `VkLayer_p3lab_<lib>.json`,
/// and return that folder (for VK_ADD_LAYER_PATH). Folders of test processes that are gone are
/// removed first. A machine that cannot build the layer fails the tests: they never skip.
pub fn build_layer(folder: &str, tag: &str, lib: &str) -> PathBuf {
    let root = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let prefix = format!("{tag}-layer-");
    if let Ok(entries) = std::fs::read_dir(root) {
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if let Some(pid) = name.strip_prefix(&prefix) {
                if !Path::new("/proc").join(pid).exists() {
                    let _ = std::fs::remove_dir_all(e.path());
                }
            }
        }
    }
    let dir = root.join(format!("{prefix}{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("create the layer folder");
    let src = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join(folder);
    let so = dir.join(format!("libVkLayer_p3lab_{lib}.so"));
    let out = Command::new("cc")
        .args([
            "-shared",
            "-fPIC",
            "-O1",
            "-Wall",
            "-Wextra",
            "-Werror",
            "-fvisibility=hidden",
            "-Wl,-Bsymbolic",
            "-o",
        ])
        .arg(&so)
        .arg(src.join("layer.c"))
        .output()
        .unwrap_or_else(|e| {
            panic!(
                "cannot run `cc` to build the test layer: {e} (apt-get install gcc libvulkan-dev)"
            )
        });
    assert!(
        out.status.success(),
        "building tests/{folder}/layer.c failed (needs gcc and the Vulkan headers of libvulkan-dev):\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let template = std::fs::read_to_string(src.join("manifest.json.in")).expect("manifest");
    let lib_json = serde_json::to_string(so.to_str().expect("utf-8 path")).unwrap();
    let manifest = template.replace("\"@LIBRARY_PATH@\"", &lib_json);
    std::fs::write(dir.join(format!("VkLayer_p3lab_{lib}.json")), manifest)
        .expect("write manifest");
    dir
}

/// `p3lab run FILE --out OUT` at the least measuring a run can do (no warm-up, 2 rounds, a
/// 1 ms budget), quiet, with `extra` flags: for tests about what a run writes, not its times.
pub fn quick_run(file: &Path, out: &Path, extra: &[&str]) -> Output {
    let mut args = vec![
        "run",
        file.to_str().expect("UTF-8 path"),
        "--out",
        out.to_str().expect("UTF-8 path"),
        "--warmup-ms",
        "0",
        "--rounds",
        "2",
        "--max-rounds",
        "2",
        "--budget-ms",
        "1",
        "-q",
    ];
    args.extend_from_slice(extra);
    run(&args)
}

/// Compare `actual` with the snapshot file `path`, or rewrite it when P3LAB_UPDATE_SNAPSHOTS=1;
/// a difference names the first line that differs.
pub fn snapshot(path: &Path, actual: &str) {
    if std::env::var("P3LAB_UPDATE_SNAPSHOTS").as_deref() == Ok("1") {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(path).unwrap_or_else(|e| {
        panic!(
            "{}: {e}; run with P3LAB_UPDATE_SNAPSHOTS=1 to create it",
            path.display()
        )
    });
    if expected != actual {
        let line = expected
            .lines()
            .zip(actual.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(expected.lines().count().min(actual.lines().count()));
        panic!(
            "{} differs from the output at line {}:\nexpected: {:?}\nactual:   {:?}\n\
             (P3LAB_UPDATE_SNAPSHOTS=1 rewrites it)",
            path.display(),
            line + 1,
            expected.lines().nth(line),
            actual.lines().nth(line)
        );
    }
}

/// A run folder at `to`: the CSV files of `tests/data/p3/FROM` and a run.json naming its run
/// (what `merge` needs of a folder).
pub fn run_folder(from: &str, to: &Path) {
    let data = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/p3")
        .join(from);
    std::fs::create_dir_all(to).unwrap();
    for f in ["results.csv", "samples.csv", "metrics.csv"] {
        std::fs::copy(data.join(f), to.join(f)).unwrap();
    }
    let results = std::fs::read_to_string(to.join("results.csv")).unwrap();
    let run_id = results.lines().nth(1).unwrap().split(',').nth(1).unwrap();
    std::fs::write(
        to.join("run.json"),
        format!("{{\"schema_version\": 1, \"run_id\": \"{run_id}\", \"complete\": true}}\n"),
    )
    .unwrap();
}
