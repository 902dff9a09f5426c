//! Every run folder committed under reports/ (and the test data's) still loads through the
//! one results reader and the one run.json reader (`runfolder::RunFolder`): in `compare`
//! (load_run), in `report`, and in `merge` (each folder merged alone). A new enum spelling, a renamed column or a reader that lost a schema
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
            // run.json gzipped too (reports/aa3 and others keep it so; merge failed on them).
            if has("results.csv") && has("run.json") {
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
    // Each folder on its own: two threads (CI has 2 cores) take every other folder.
    let check = |i: usize, dir: &PathBuf| -> (usize, Vec<String>) {
        let mut failures = Vec::new();
        let mut rows = 0;
        let shown = dir.strip_prefix(root).unwrap().display().to_string();
        // run.json (or runs.json), plain or gzipped, of every schema version through the one
        // reader: typed, with the run ids its rows carry.
        match p3lab::runfolder::RunFolder::open(dir) {
            Ok(f) if f.runs.iter().all(|r| !r.info.run_id.is_empty()) => {}
            Ok(f) => failures.push(format!(
                "{shown}: run.json: a run without run_id in {}",
                f.file.display()
            )),
            Err(e) => failures.push(format!("{shown}: run.json: {e:#}")),
        }
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
        (rows, failures)
    };
    let (mut rows, mut failures) = (0, Vec::new());
    std::thread::scope(|s| {
        let halves: Vec<_> = (0..2)
            .map(|k| {
                let check = &check;
                let folders = &folders;
                s.spawn(move || {
                    let mut out = (0, Vec::new());
                    for (i, dir) in folders.iter().enumerate().skip(k).step_by(2) {
                        let (r, f) = check(i, dir);
                        out.0 += r;
                        out.1.extend(f);
                    }
                    out
                })
            })
            .collect();
        for h in halves {
            let (r, f) = h.join().unwrap();
            rows += r;
            failures.extend(f);
        }
    });
    assert!(
        failures.is_empty(),
        "{} of {} folders failed:\n{}",
        failures.len(),
        folders.len(),
        failures.join("\n")
    );
    assert!(rows > 10_000, "only {rows} rows read");
}
