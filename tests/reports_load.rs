//! Every run folder committed under reports/ (and the test data's) still loads through the
//! one results reader: in `compare` (load_run), in `report`, and in `merge` (each folder
//! merged alone). A new enum spelling, a renamed column or a reader that lost a schema
//! version fails here, naming the folder.
use std::path::{Path, PathBuf};

fn run_folders(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            let has = |n: &str| p.join(n).is_file() || p.join(format!("{n}.gz")).is_file();
            if has("results.csv") && p.join("run.json").is_file() {
                out.push(p.clone());
            }
            run_folders(&p, out);
        }
    }
}

#[test]
fn every_committed_run_folder_loads_in_compare_report_and_merge() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut folders = Vec::new();
    run_folders(&root.join("reports"), &mut folders);
    assert!(
        folders.len() >= 20,
        "found only {} run folders",
        folders.len()
    );
    let tmp = tempfile::tempdir().unwrap();
    let mut failures = Vec::new();
    let mut rows = 0;
    for (i, dir) in folders.iter().enumerate() {
        let shown = dir.strip_prefix(root).unwrap().display().to_string();
        match p3lab::p3::load_run(dir) {
            Ok(run) => {
                rows += run.results.len();
                let meta = p3lab::p3::RunMeta::load(dir);
                let r = p3lab::p3::report(&run, &meta, None);
                if r.html.is_empty() {
                    failures.push(format!("{shown}: report: empty page"));
                }
            }
            Err(e) => failures.push(format!("{shown}: compare: {e:#}")),
        }
        // merge refuses a folder a live p3lab holds, and needs run.json's run ids; a merged
        // folder (runs.json) merges too.
        let out = tmp.path().join(format!("m{i}"));
        if let Err(e) = p3lab::lab::merge(std::slice::from_ref(dir), &out) {
            failures.push(format!("{shown}: merge: {e:#}"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} folders failed:\n{}",
        failures.len(),
        folders.len(),
        failures.join("\n")
    );
    assert!(rows > 10_000, "only {rows} rows read");
}
