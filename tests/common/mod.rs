//! Helpers for tests that run the real p3lab binary on the real Vulkan device (lavapipe in CI).
#![allow(dead_code)]
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub type Row = HashMap<String, String>;

pub fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_p3lab"));
    c.current_dir(env!("CARGO_MANIFEST_DIR"));
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
