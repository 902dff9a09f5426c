//! Lab workflow: merging run folders and named baselines. Fixture tests pin the byte-level
//! behaviour (tests/data/lab/README.md); the real-run tests merge two lavapipe runs made by the
//! binary and read the result with the csv crate and with Python.
use p3lab::lab::{self, baseline_dir, list_baselines, merge, save_baseline};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/lab")
        .join(name)
}

fn tmp() -> tempfile::TempDir {
    tempfile::tempdir().expect("temp dir")
}

fn read(p: &Path) -> Vec<u8> {
    fs::read(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// The bytes of a CSV file after its header line (no quoted line breaks in fixture headers).
fn body(p: &Path) -> Vec<u8> {
    let b = read(p);
    let nl = b.iter().position(|&c| c == b'\n').expect("header line");
    b[nl + 1..].to_vec()
}

/// Hidden staging folders left next to `out` would mean a failed merge left something behind.
fn leftovers(parent: &Path) -> Vec<String> {
    fs::read_dir(parent)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.'))
        .collect()
}

fn err_of<T: std::fmt::Debug>(r: anyhow::Result<T>) -> String {
    format!("{:#}", r.expect_err("should fail"))
}

// ---------------------------------------------------------------- merge, fixtures

#[test]
fn merge_copies_rows_verbatim() {
    let t = tmp();
    let out = t.path().join("merged");
    let s = merge(&[fixture("a"), fixture("b")], &out).unwrap();
    assert_eq!(s.inputs, 2);
    assert_eq!(
        s.run_ids,
        ["20260101T000000Z-aaaaaaaa", "20260101T000001Z-bbbbbbbb"]
    );
    assert_eq!((s.results_rows, s.samples_rows, s.metrics_rows), (4, 3, 1));
    assert!(s.incomplete_runs.is_empty());
    assert_eq!(s.schema_version, 1);

    // Header once, then each input's rows byte for byte (floats as written: 85838.0, 1e-7).
    let a = read(&fixture("a/results.csv"));
    let mut want = a.clone();
    want.extend(body(&fixture("b/results.csv")));
    assert_eq!(read(&out.join("results.csv")), want);
    let merged = String::from_utf8(read(&out.join("results.csv"))).unwrap();
    assert!(merged.contains(",1e-7,0.10000000000000001,"));
    assert!(merged.contains("\"two\nlines and \"\"quotes\"\"\""));

    let mut want = read(&fixture("a/samples.csv"));
    want.extend(body(&fixture("b/samples.csv")));
    assert_eq!(read(&out.join("samples.csv")), want);
    // b/metrics.csv has a header only.
    assert_eq!(
        read(&out.join("metrics.csv")),
        read(&fixture("a/metrics.csv"))
    );

    // runs.json: each input's run.json, text unchanged (1e-7 stays 1e-7).
    let runs_text = fs::read_to_string(out.join("runs.json")).unwrap();
    let runs: serde_json::Value = serde_json::from_str(&runs_text).unwrap();
    let runs = runs.as_array().unwrap();
    assert_eq!(runs.len(), 2);
    for (r, dir) in runs.iter().zip(["a", "b"]) {
        let orig: serde_json::Value =
            serde_json::from_slice(&read(&fixture(dir).join("run.json"))).unwrap();
        assert_eq!(r, &orig);
        let text = fs::read_to_string(fixture(dir).join("run.json")).unwrap();
        assert!(runs_text.contains(text.trim()));
    }
    assert!(!out.join("run.json").exists());
    assert!(leftovers(t.path()).is_empty());
}

/// A copy of fixture `name` in `dir`.
fn copy_fixture(name: &str, dir: &Path) -> PathBuf {
    let to = dir.join(name);
    fs::create_dir_all(&to).unwrap();
    for e in fs::read_dir(fixture(name)).unwrap() {
        let e = e.unwrap();
        fs::copy(e.path(), to.join(e.file_name())).unwrap();
    }
    to
}

#[test]
fn formula_cells_of_a_hand_edited_input_are_neutralised_in_the_merge() {
    let t = tmp();
    let a = copy_fixture("a", t.path());
    // v1's reason and params edited by hand into cells a spreadsheet would run.
    let text = fs::read_to_string(a.join("results.csv")).unwrap();
    let text = text.replacen(
        "fix,v1,n=4096,ok,,",
        "fix,v1,@SUM(1),ok,\"=HYPERLINK(\"\"http://x\"\")\",",
        1,
    );
    assert!(text.contains("@SUM(1)"));
    fs::write(a.join("results.csv"), text).unwrap();
    let out = t.path().join("merged");
    merge(&[a, fixture("b")], &out).unwrap();
    let mut r = csv::Reader::from_path(out.join("results.csv")).unwrap();
    let header = r.headers().unwrap().clone();
    let col = |n: &str| header.iter().position(|h| h == n).unwrap();
    let rows: Vec<csv::StringRecord> = r.records().map(Result::unwrap).collect();
    assert_eq!(rows.len(), 4);
    let v1 = &rows[0];
    assert_eq!(&v1[col("reason")], "'=HYPERLINK(\"http://x\")");
    assert_eq!(&v1[col("params")], "'@SUM(1)");
    for row in &rows {
        for cell in row {
            assert!(
                !(cell.starts_with(['=', '+', '-', '@', '\t', '\r'])
                    && cell.parse::<f64>().is_err()),
                "a merged cell would run: {cell:?}"
            );
        }
    }
    // Every other cell keeps its text (floats as written, the quoted line break).
    assert_eq!(&rows[1][col("median_ns")], "1e-7");
    assert_eq!(&rows[2][col("reason")], "two\nlines and \"quotes\"");
    assert_eq!(&rows[3][col("median_ns")], "90000.25");
    // p3lab's own reader reads the values the input had.
    let read = p3lab::results::read_results(&out.join("results.csv")).unwrap();
    assert_eq!(read[0].row.params, "@SUM(1)");
    assert_eq!(read[0].get("reason"), "=HYPERLINK(\"http://x\")");
}

#[test]
fn a_duplicated_column_is_refused_naming_file_line_and_column() {
    let t = tmp();
    let a = copy_fixture("a", t.path());
    let text = fs::read_to_string(a.join("results.csv")).unwrap();
    let text = text.replacen(",cv_pct,host\n", ",cv_pct,median_ns\n", 1);
    fs::write(a.join("results.csv"), text).unwrap();
    let e = err_of(merge(&[a.clone(), fixture("b")], &t.path().join("merged")));
    assert!(
        e.contains(&format!(
            "{}:1: column `median_ns` appears twice",
            a.join("results.csv").display()
        )),
        "{e}"
    );
    assert!(!t.path().join("merged").exists());
    assert!(leftovers(t.path()).is_empty());
}

#[test]
fn an_input_cut_mid_row_is_refused_not_merged() {
    // issue 16: a samples.csv whose last row was cut mid-field (a killed run, a full disk)
    // parses as a row with a shortened number; p3lab always ends a row with a line break.
    let t = tmp();
    let cut = t.path().join("cut");
    fs::create_dir(&cut).unwrap();
    for f in ["results.csv", "metrics.csv", "run.json"] {
        fs::copy(fixture("b").join(f), cut.join(f)).unwrap();
    }
    let samples = read(&fixture("b/samples.csv"));
    fs::write(cut.join("samples.csv"), &samples[..samples.len() - 3]).unwrap();
    let out = t.path().join("m");
    let e = err_of(merge(&[fixture("a"), cut.clone()], &out));
    assert!(
        e.contains("cut/samples.csv") && e.contains("has no line break") && e.contains("--resume"),
        "{e}"
    );
    assert!(!out.exists(), "nothing written");
}

#[test]
fn merged_folder_is_an_input() {
    let t = tmp();
    let (ma, both, direct) = (
        t.path().join("ma"),
        t.path().join("both"),
        t.path().join("d"),
    );
    merge(&[fixture("a")], &ma).unwrap();
    let s = merge(&[ma.clone(), fixture("b")], &both).unwrap();
    assert_eq!(s.run_ids.len(), 2);
    merge(&[fixture("a"), fixture("b")], &direct).unwrap();
    for f in ["results.csv", "samples.csv", "metrics.csv", "runs.json"] {
        assert_eq!(read(&both.join(f)), read(&direct.join(f)), "{f}");
    }
    // A run already in a merged folder is refused a second time.
    let e = err_of(merge(&[both.clone(), fixture("a")], &t.path().join("x")));
    assert!(e.contains("20260101T000000Z-aaaaaaaa"), "{e}");
}

#[test]
fn duplicate_run_refused_naming_both_folders() {
    let t = tmp();
    let out = t.path().join("m");
    let copy = t.path().join("a-copy");
    fs::create_dir(&copy).unwrap();
    for f in ["run.json", "results.csv", "samples.csv", "metrics.csv"] {
        fs::copy(fixture("a").join(f), copy.join(f)).unwrap();
    }
    let e = err_of(merge(&[fixture("a"), fixture("b"), copy.clone()], &out));
    assert!(e.contains("20260101T000000Z-aaaaaaaa"), "{e}");
    assert!(e.contains(&fixture("a").display().to_string()), "{e}");
    assert!(e.contains(&copy.display().to_string()), "{e}");
    assert!(!out.exists());
    assert!(leftovers(t.path()).is_empty());
}

#[test]
fn changed_header_refused_naming_the_file() {
    let t = tmp();
    let out = t.path().join("m");
    let e = err_of(merge(&[fixture("a"), fixture("changed-header")], &out));
    assert!(e.contains("changed-header/results.csv"), "{e}");
    assert!(e.contains("median_us") && e.contains("median_ns"), "{e}");
    assert!(!out.exists());
    assert!(leftovers(t.path()).is_empty());
}

#[test]
fn schema_version_mismatch_refused() {
    let t = tmp();
    let e = err_of(merge(
        &[fixture("a"), fixture("schema2")],
        &t.path().join("m"),
    ));
    assert!(
        e.contains("schema2/run.json") && e.contains("schema_version"),
        "{e}"
    );
}

#[test]
fn missing_file_refused_naming_it() {
    let t = tmp();
    // A folder without samples.csv (reports drop the large files) merges, and the summary
    // names what was absent; its runs have no samples in the merge.
    let s = merge(&[fixture("a"), fixture("no-samples")], &t.path().join("m0")).unwrap();
    assert_eq!(s.absent.len(), 1);
    assert!(
        s.absent[0].ends_with("no-samples/samples.csv"),
        "{:?}",
        s.absent
    );
    // Without results.csv there is nothing to merge: refused, naming the file.
    let d = t.path().join("no-results");
    fs::create_dir(&d).unwrap();
    fs::copy(fixture("a").join("run.json"), d.join("run.json")).unwrap();
    let e = err_of(merge(std::slice::from_ref(&d), &t.path().join("m1")));
    assert!(e.contains("no-results/results.csv"), "{e}");
    let e = err_of(merge(&[t.path().to_path_buf()], &t.path().join("m")));
    assert!(e.contains("run.json"), "{e}");
    assert!(!t.path().join("m").exists());
}

#[test]
fn row_of_an_undeclared_run_refused() {
    let t = tmp();
    let d = t.path().join("in");
    fs::create_dir(&d).unwrap();
    for f in ["run.json", "results.csv", "samples.csv", "metrics.csv"] {
        fs::copy(fixture("a").join(f), d.join(f)).unwrap();
    }
    let s = fs::read_to_string(d.join("samples.csv")).unwrap();
    fs::write(d.join("samples.csv"), s + "OTHER,fix,v1,n=4096,1,0,5.0\n").unwrap();
    let e = err_of(merge(std::slice::from_ref(&d), &t.path().join("m")));
    assert!(e.contains("samples.csv") && e.contains("OTHER"), "{e}");
    // A ragged row (a run killed mid-write would leave one) is refused with its file.
    fs::copy(fixture("a/samples.csv"), d.join("samples.csv")).unwrap();
    let s = fs::read_to_string(d.join("metrics.csv")).unwrap();
    fs::write(d.join("metrics.csv"), s + "20260101T000000Z-aaaaaaaa,fix\n").unwrap();
    let e = err_of(merge(&[d], &t.path().join("m")));
    assert!(e.contains("metrics.csv"), "{e}");
}

#[test]
fn folder_being_written_refused() {
    let t = tmp();
    let d = t.path().join("running");
    fs::create_dir(&d).unwrap();
    for f in ["run.json", "results.csv", "samples.csv", "metrics.csv"] {
        fs::copy(fixture("a").join(f), d.join(f)).unwrap();
    }
    // What `p3lab run` holds while it writes into its --out folder.
    let lock = fs::File::create(d.join(".p3lab.lock")).unwrap();
    lock.lock().unwrap();
    let e = err_of(merge(std::slice::from_ref(&d), &t.path().join("m")));
    assert!(e.contains("still writing"), "{e}");
    // `p3lab run --save-baseline` saves from inside the run, holding the lock: allowed.
    save_baseline(&d, "x", &t.path().join("store")).unwrap();
    lock.unlock().unwrap();
    merge(std::slice::from_ref(&d), &t.path().join("m")).unwrap();
}

#[test]
fn incomplete_run_is_merged_and_reported() {
    let t = tmp();
    let s = merge(&[fixture("a"), fixture("incomplete")], &t.path().join("m")).unwrap();
    assert_eq!(s.incomplete_runs, ["20260101T000000Z-ffffffff"]);
}

#[test]
fn output_folder_rules() {
    let t = tmp();
    // The output may not be an input.
    let m = t.path().join("m");
    merge(&[fixture("a")], &m).unwrap();
    let e = err_of(merge(&[m.clone(), fixture("b")], &m));
    assert!(e.contains("also an input"), "{e}");
    // An earlier merge is replaced as a whole.
    merge(&[fixture("b")], &m).unwrap();
    assert_eq!(
        read(&m.join("results.csv")),
        read(&fixture("b/results.csv"))
    );
    // An empty folder is used.
    let empty = t.path().join("empty");
    fs::create_dir(&empty).unwrap();
    merge(&[fixture("a")], &empty).unwrap();
    assert!(empty.join("runs.json").is_file());
    // A run folder (or anything else) is never overwritten.
    let run = t.path().join("run");
    fs::create_dir(&run).unwrap();
    for f in ["run.json", "results.csv", "samples.csv", "metrics.csv"] {
        fs::copy(fixture("a").join(f), run.join(f)).unwrap();
    }
    let e = err_of(merge(&[fixture("b")], &run));
    assert!(e.contains("not an earlier merge"), "{e}");
    assert_eq!(
        read(&run.join("results.csv")),
        read(&fixture("a/results.csv"))
    );
    assert!(leftovers(t.path()).is_empty());
}

// ---------------------------------------------------------------- baselines

#[test]
fn baseline_round_trip() {
    let t = tmp();
    let store = t.path().join("store");
    assert!(list_baselines(&store).unwrap().is_empty());
    let e = err_of(baseline_dir("main", &store));
    assert!(
        e.contains("no baseline named \"main\"") && e.contains("none"),
        "{e}"
    );

    let dir = save_baseline(&fixture("a"), "main", &store).unwrap();
    assert_eq!(dir, store.join("main"));
    assert_eq!(baseline_dir("main", &store).unwrap(), dir);
    for f in ["run.json", "results.csv", "samples.csv", "metrics.csv"] {
        assert_eq!(read(&dir.join(f)), read(&fixture("a").join(f)), "{f}");
    }
    let info: serde_json::Value =
        serde_json::from_slice(&read(&dir.join("baseline.json"))).unwrap();
    assert!(info["source"]
        .as_str()
        .unwrap()
        .ends_with("tests/data/lab/a"));

    // Saving again under the name replaces the whole baseline.
    save_baseline(&fixture("b"), "main", &store).unwrap();
    assert_eq!(
        read(&dir.join("results.csv")),
        read(&fixture("b/results.csv"))
    );
    assert_eq!(read(&dir.join("run.json")), read(&fixture("b/run.json")));

    // A merged folder can be a baseline too (its runs.json is kept).
    let m = t.path().join("m");
    merge(&[fixture("a"), fixture("b")], &m).unwrap();
    let v2 = save_baseline(&m, "fleet-v2.1", &store).unwrap();
    assert!(v2.join("runs.json").is_file() && !v2.join("run.json").exists());
    // ... and merged again from the store.
    let e = err_of(merge(&[v2.clone(), fixture("a")], &t.path().join("x")));
    assert!(e.contains("in both"), "{e}");

    assert_eq!(list_baselines(&store).unwrap(), ["fleet-v2.1", "main"]);
    let e = err_of(baseline_dir("nightly", &store));
    assert!(
        e.contains("2 baseline(s)") && e.contains("closest: `main`, `fleet-v2.1`"),
        "{e}"
    );
    assert!(leftovers(&store).is_empty(), "{:?}", leftovers(&store));
}

#[test]
fn baseline_refusals() {
    let t = tmp();
    let store = t.path().join("store");
    for bad in ["", "../up", "a/b", ".hidden", "with space"] {
        assert!(
            save_baseline(&fixture("a"), bad, &store).is_err(),
            "{bad:?}"
        );
    }
    let e = err_of(save_baseline(&fixture("incomplete"), "x", &store));
    assert!(e.contains("complete: false"), "{e}");
    let e = err_of(save_baseline(&fixture("no-samples"), "x", &store));
    assert!(e.contains("samples.csv"), "{e}");
    // A failed save leaves the older baseline as it was.
    save_baseline(&fixture("a"), "x", &store).unwrap();
    assert!(save_baseline(&fixture("incomplete"), "x", &store).is_err());
    assert_eq!(
        read(&store.join("x/results.csv")),
        read(&fixture("a/results.csv"))
    );
    assert_eq!(lab::default_store(), Path::new(".p3lab/baselines"));
}

// ---------------------------------------------------------------- real runs on the device

/// Two runs of scenarios/smoke.toml by the binary, made once for all tests here. The second
/// starts more than a second after the first began, so their run_ids differ even where run_id
/// has one-second resolution (as it had in schema 1 files).
fn real_runs() -> &'static (PathBuf, PathBuf) {
    static RUNS: OnceLock<(PathBuf, PathBuf)> = OnceLock::new();
    RUNS.get_or_init(|| {
        let root =
            Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("lab-{}", std::process::id()));
        let _ = fs::remove_dir_all(&root);
        let run = |name: &str| {
            let out = root.join(name);
            let o = Command::new(env!("CARGO_BIN_EXE_p3lab"))
                .current_dir(env!("CARGO_MANIFEST_DIR"))
                .env("P3LAB_CACHE_DIR", root.join("cache"))
                .args([
                    "run",
                    "scenarios/smoke.toml",
                    "--warmup-ms",
                    "0",
                    "--reps",
                    "3",
                    "--out",
                ])
                .arg(&out)
                .output()
                .expect("p3lab runs");
            assert!(
                o.status.success(),
                "p3lab run failed: {}",
                String::from_utf8_lossy(&o.stderr)
            );
            out
        };
        let first = run("m1");
        std::thread::sleep(std::time::Duration::from_millis(1100));
        (first, run("m2"))
    })
}

fn csv_reader(p: &Path) -> csv::Reader<fs::File> {
    csv::Reader::from_path(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// Columns that hold numbers (empty allowed), per file.
const NUMERIC: [(&str, &[&str]); 3] = [
    (
        "results.csv",
        &[
            "schema_version",
            "vendor_id",
            "n",
            "min_ns",
            "median_ns",
            "mean_ns",
            "stddev_ns",
            "cv_pct",
            "p5_ns",
            "p95_ns",
            "median_ci_low_ns",
            "median_ci_high_ns",
            "bytes",
            "gbytes_per_s",
            "mad_ns",
            "max_ns",
            "driver_version",
            "dispatches",
            // smoke's params as typed columns (issue 29).
            "param_height",
            "param_n",
            "param_width",
        ],
    ),
    ("samples.csv", &["repetition", "dispatch", "gpu_ns"]),
    ("metrics.csv", &["value"]),
];

#[test]
fn merge_two_real_runs() {
    let (m1, m2) = real_runs();
    let t = tmp();
    let out = t.path().join("merged");
    let s = merge(&[m1.clone(), m2.clone()], &out).unwrap();
    assert_eq!(s.run_ids.len(), 2);
    assert_ne!(s.run_ids[0], s.run_ids[1]);

    for (file, numeric) in NUMERIC {
        let merged = out.join(file);
        let text = fs::read_to_string(&merged).unwrap();
        let first_line = text.lines().next().unwrap();
        assert!(first_line.is_ascii(), "{file}: non-ASCII header");
        assert!(
            first_line.starts_with("schema_version,") || first_line.starts_with("run_id,"),
            "{file}: preamble before the header: {first_line}"
        );
        let mut r = csv_reader(&merged);
        let header = r.headers().unwrap().clone();
        let rows: Vec<csv::StringRecord> = r.records().map(|x| x.unwrap()).collect();
        let mut want_rows = 0;
        for input in [m1, m2] {
            let mut ri = csv_reader(&input.join(file));
            assert_eq!(ri.headers().unwrap(), &header, "{file}: header differs");
            want_rows += ri.records().count();
        }
        assert_eq!(rows.len(), want_rows, "{file}: row counts do not add up");
        assert!(!rows.is_empty(), "{file}: no rows");
        for col in numeric {
            let Some(i) = header.iter().position(|h| h == *col) else {
                panic!("{file}: no column {col}");
            };
            for row in &rows {
                let v = &row[i];
                assert!(
                    v.is_empty() || v.parse::<f64>().is_ok_and(f64::is_finite),
                    "{file}: {col} = {v:?} is not a number"
                );
            }
        }
        // Every row of each run, in input order.
        let runs: Vec<&str> = rows
            .iter()
            .map(|r| &r[header.iter().position(|h| h == "run_id").unwrap()])
            .collect();
        let split = runs
            .iter()
            .position(|r| *r == s.run_ids[1])
            .unwrap_or(runs.len());
        assert!(runs[..split].iter().all(|r| *r == s.run_ids[0]), "{file}");
        assert!(runs[split..].iter().all(|r| *r == s.run_ids[1]), "{file}");
    }
    let runs: serde_json::Value = serde_json::from_slice(&read(&out.join("runs.json"))).unwrap();
    let ids: Vec<&str> = runs
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["run_id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, s.run_ids);
    assert!(
        runs[0]["device"]["name"].is_string(),
        "device metadata kept"
    );
}

#[test]
fn real_run_duplicate_and_changed_header_refused() {
    let (m1, m2) = real_runs();
    let t = tmp();
    let e = err_of(merge(
        &[m1.clone(), m2.clone(), m1.clone()],
        &t.path().join("d"),
    ));
    assert!(
        e.contains("in both") && e.contains(&m1.display().to_string()),
        "{e}"
    );

    let changed = t.path().join("changed");
    fs::create_dir(&changed).unwrap();
    for f in ["run.json", "results.csv", "samples.csv", "metrics.csv"] {
        fs::copy(m1.join(f), changed.join(f)).unwrap();
    }
    let text = fs::read_to_string(changed.join("results.csv")).unwrap();
    fs::write(
        changed.join("results.csv"),
        text.replacen(",median_ns,", ",median_us,", 1),
    )
    .unwrap();
    let e = err_of(merge(&[m2.clone(), changed.clone()], &t.path().join("x")));
    assert!(
        e.contains(&changed.join("results.csv").display().to_string()),
        "{e}"
    );
    assert!(!t.path().join("x").exists());
}

/// results.csv's typed `param_*` columns hold each row's params as numbers, and runs of
/// scenarios with different params merge into the union of their columns, blank where a run's
/// scenario has no such param (issue 29).
#[test]
fn typed_params_columns_and_their_union_in_a_merge() {
    let (m1, m2) = real_runs();
    let mut r = csv_reader(&m1.join("results.csv"));
    let h = r.headers().unwrap().clone();
    let tail: Vec<&str> = h.iter().skip_while(|c| !c.starts_with("param_")).collect();
    assert_eq!(tail, ["param_height", "param_n", "param_width"]);
    let col = |name: &str| h.iter().position(|c| c == name).unwrap();
    for row in r.records().map(Result::unwrap) {
        let packed = format!(
            "height={};n={};width={}",
            &row[col("param_height")],
            &row[col("param_n")],
            &row[col("param_width")]
        );
        assert_eq!(row[col("params")], packed);
    }

    // Another run whose scenario has `radius` where smoke has `width`.
    let t = tmp();
    let other = t.path().join("other");
    fs::create_dir(&other).unwrap();
    for f in ["run.json", "results.csv", "samples.csv", "metrics.csv"] {
        fs::copy(m2.join(f), other.join(f)).unwrap();
    }
    let text = fs::read_to_string(other.join("results.csv")).unwrap();
    fs::write(
        other.join("results.csv"),
        text.replacen(",param_width\n", ",param_radius\n", 1),
    )
    .unwrap();
    let out = t.path().join("merged");
    merge(&[m1.clone(), other], &out).unwrap();
    let mut r = csv_reader(&out.join("results.csv"));
    let h = r.headers().unwrap().clone();
    let tail: Vec<&str> = h.iter().skip_while(|c| !c.starts_with("param_")).collect();
    assert_eq!(
        tail,
        ["param_height", "param_n", "param_radius", "param_width"]
    );
    let col = |name: &str| h.iter().position(|c| c == name).unwrap();
    let rows: Vec<csv::StringRecord> = r.records().map(Result::unwrap).collect();
    let first = csv_reader(&m1.join("results.csv")).records().count();
    for (i, row) in rows.iter().enumerate() {
        let (radius, width) = (&row[col("param_radius")], &row[col("param_width")]);
        if i < first {
            assert!(radius.is_empty() && width == "64", "{row:?}");
        } else {
            assert!(width.is_empty() && radius == "64", "{row:?}");
        }
        assert_eq!(row.len(), h.len());
    }
}

#[test]
fn real_run_baseline_round_trip() {
    let (m1, _) = real_runs();
    let t = tmp();
    let dir = save_baseline(m1, "lavapipe", &t.path().join("store")).unwrap();
    for f in ["run.json", "results.csv", "samples.csv", "metrics.csv"] {
        assert_eq!(read(&dir.join(f)), read(&m1.join(f)), "{f}");
    }
}

/// A real CSV consumer reads the merged results.csv: scripts/pivot.py (Python's standard
/// library only). Skips (with a note) when there is no python3. It sorts rows naturally
/// (stride2 before stride16) and pivots text columns too (issue 29: it sorted as text and
/// crashed on `--value limiter`).
#[test]
fn python_reads_merged_results() {
    let (m1, m2) = real_runs();
    let t = tmp();
    let out = t.path().join("merged");
    merge(&[m1.clone(), m2.clone()], &out).unwrap();
    let python = |args: &[&str]| Command::new("python3").args(args).output();
    if python(&["-c", "pass"]).is_err() {
        eprintln!("note: python3 not found; skipping the Python CSV check");
        return;
    }
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/pivot.py");
    let script = script.to_str().unwrap();
    for (target, by_device) in [(out.clone(), true), (out.join("results.csv"), false)] {
        for value in ["median_ns", "limiter", "status"] {
            let o = python(&[script, target.to_str().unwrap(), "--value", value]).unwrap();
            let stdout = String::from_utf8_lossy(&o.stdout);
            assert!(
                o.status.success(),
                "pivot.py --value {value} failed: {}{}",
                stdout,
                String::from_utf8_lossy(&o.stderr)
            );
            assert!(
                stdout.contains("smoke") && stdout.contains("wg64"),
                "{stdout}"
            );
            if by_device {
                assert!(
                    stdout.contains("llvmpipe"),
                    "merged folder pivots by device: {stdout}"
                );
            }
        }
    }
    // Natural order: wg64 before wg128 before wg256 (text order puts wg128 first).
    let o = python(&[script, out.to_str().unwrap()]).unwrap();
    let stdout = String::from_utf8_lossy(&o.stdout);
    let at = |v: &str| stdout.find(&format!("\n{v} ")).unwrap_or(usize::MAX);
    assert!(
        at("wg64") < at("wg128") && at("wg128") < at("wg256"),
        "{stdout}"
    );
}
