//! Every run folder committed under reports/ and tests/data/runs still loads through the one
//! results reader and the one run.json reader (`runfolder::RunFolder`): in `compare`
//! (load_run), in `report`, and in `merge` (each folder merged alone). A new enum spelling, a renamed column or a reader that lost a schema
//! version fails here, naming the folder. tests/data/runs holds one real folder per schema
//! version (its README says where each came from), so that every version stays read however
//! reports/ is slimmed.
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
    run_folders(&root.join("tests/data/runs"), &mut folders);
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

/// The folders of tests/data/runs by the schema version their name starts with.
fn versioned_folders(root: &Path) -> Vec<(u32, PathBuf)> {
    let mut folders = Vec::new();
    run_folders(&root.join("tests/data/runs"), &mut folders);
    folders
        .into_iter()
        .map(|dir| {
            let name = dir.file_name().unwrap().to_string_lossy().to_string();
            let version = name
                .split('-')
                .next()
                .and_then(|v| v.parse().ok())
                .unwrap_or_else(|| {
                    panic!("{name}: the folder's name starts with its schema version")
                });
            (version, dir)
        })
        .collect()
}

#[test]
fn tests_data_holds_a_run_folder_of_every_schema_version() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let folders = versioned_folders(root);
    for (version, dir) in &folders {
        let shown = dir.strip_prefix(root).unwrap().display();
        // run.json (or a merged folder's runs.json): each run says the folder's version.
        let f = p3lab::runfolder::RunFolder::open(dir).unwrap();
        assert!(!f.runs.is_empty(), "{shown}: no run");
        for r in &f.runs {
            assert_eq!(
                r.info.schema_version,
                Some(u64::from(*version)),
                "{shown}: run.json schema_version"
            );
        }
        // results.csv: every row of that version (an interrupted run may have none).
        let run = p3lab::p3::load_run(dir).unwrap();
        for rec in &run.results {
            assert_eq!(
                rec.row.schema_version, *version,
                "{shown}: results.csv line {}",
                rec.line
            );
        }
    }
    // One folder for every version this p3lab reads: a new schema version needs a real run
    // folder of it here, and an old one must stay.
    for v in 1..=p3lab::results::SCHEMA_VERSION {
        let rows: usize = folders
            .iter()
            .filter(|(fv, _)| *fv == v)
            .map(|(_, d)| p3lab::p3::load_run(d).unwrap().results.len())
            .sum();
        assert!(
            rows > 0,
            "tests/data/runs: no folder with rows of schema version {v}"
        );
    }
    // The current version's folder has what compare reads beside results.csv: samples with
    // rounds and metrics, gzipped as reports keep them.
    let current = folders
        .iter()
        .find(|(v, d)| *v == p3lab::results::SCHEMA_VERSION && d.join("samples.csv.gz").is_file())
        .expect("a folder of the current schema version with samples.csv.gz");
    let run = p3lab::p3::load_run(&current.1).unwrap();
    assert!(!run.samples.is_empty() && !run.metrics.is_empty());
}

/// Every results.csv committed under reports/ and tests/data (plain or gzipped).
fn results_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for p in entries.flatten().map(|e| e.path()) {
        if p.is_dir() {
            results_files(&p, out);
        } else if matches!(
            p.file_name().and_then(|n| n.to_str()),
            Some("results.csv" | "results.csv.gz")
        ) {
            out.push(p);
        }
    }
}

/// A figure p3lab prints must be possible (issue 39): no ok row in any committed results file
/// holds a unit's %-of-peak over 100, declared or counted, nor a limiter over 100. Files
/// written before issue 39 went through scripts/upgrade_declared_over.py, which applies the
/// rule p3lab applies since (the figure moves to `declared_over_units` / `declared_over_peak`).
#[test]
fn no_committed_results_file_holds_a_figure_over_100_percent_of_a_peak() {
    use std::io::Read;
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for d in ["reports", "tests/data"] {
        results_files(&root.join(d), &mut files);
    }
    files.sort();
    assert!(
        files.len() >= 50,
        "found only {} results files",
        files.len()
    );
    let columns: Vec<&str> = p3lab::units::DECLARED
        .iter()
        .map(|u| u.column)
        .chain(p3lab::units::COUNTED.iter().map(|u| u.column))
        .chain(["limiter_pct", "declared_limiter_pct", "hw_limiter_pct"])
        .collect();
    let mut over = Vec::new();
    for f in &files {
        let mut text = String::new();
        let file = std::fs::File::open(f).unwrap();
        if f.extension().is_some_and(|e| e == "gz") {
            flate2::read::GzDecoder::new(file)
                .read_to_string(&mut text)
                .unwrap();
        } else {
            std::io::BufReader::new(file)
                .read_to_string(&mut text)
                .unwrap();
        }
        let mut r = csv::Reader::from_reader(text.as_bytes());
        let head = r.headers().unwrap().clone();
        let at = |name: &str| head.iter().position(|h| h == name);
        let status = at("status");
        let cols: Vec<(usize, &str)> = columns
            .iter()
            .filter_map(|c| at(c).map(|i| (i, *c)))
            .collect();
        for (line, rec) in r.records().enumerate() {
            let rec = rec.unwrap();
            if status.and_then(|i| rec.get(i)) != Some("ok") {
                continue;
            }
            for (i, c) in &cols {
                if let Some(v) = rec.get(*i).and_then(|v| v.parse::<f64>().ok()) {
                    if v > 100.0 {
                        over.push(format!(
                            "{}:{} {c} {v}",
                            f.strip_prefix(root).unwrap().display(),
                            line + 2
                        ));
                    }
                }
            }
        }
    }
    assert!(
        over.is_empty(),
        "{} cells over 100:\n{}",
        over.len(),
        over.join("\n")
    );
}
