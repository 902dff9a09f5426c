//! Snapshot tests of the P3 comparison and report on committed run folders (tests/data/p3/:
//! two lavapipe runs of smoke + multipass, a lavapipe occupancy sweep, an H200 saxpy run in the
//! older schema without a `mode` column), plus the verdict rule, pair mode, non-ok rows and
//! load errors.
//!
//! `P3LAB_UPDATE_SNAPSHOTS=1 cargo test --test p3_snapshots` rewrites tests/data/p3/expected/.
use p3lab::p3::compare::{verdict_for_ci, CompareOptions, Verdict};
use p3lab::p3::{
    compare, has_regression, load_run, report, to_csv, to_markdown, to_table, RunData,
};
use std::path::{Path, PathBuf};

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/p3")
        .join(name)
}

fn load(name: &str) -> RunData {
    load_run(&data(name)).unwrap_or_else(|e| panic!("{name}: {e:#}"))
}

/// Compare `actual` with tests/data/p3/expected/`name`, or rewrite it when
/// P3LAB_UPDATE_SNAPSHOTS=1.
fn snapshot(name: &str, actual: &str) {
    let path = data("expected").join(name);
    if std::env::var("P3LAB_UPDATE_SNAPSHOTS").as_deref() == Ok("1") {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|e| {
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

fn opts() -> CompareOptions {
    CompareOptions {
        seed: 42,
        ..CompareOptions::default()
    }
}

#[test]
fn compare_two_lavapipe_runs_snapshot() {
    let (a, b) = (load("lavapipe-a"), load("lavapipe-b"));
    let c = compare(&a, &b, &opts());
    // Same seed, same bytes.
    assert_eq!(to_csv(&c), to_csv(&compare(&a, &b, &opts())));
    snapshot("lavapipe-a-vs-b.csv", &to_csv(&c));
    snapshot("lavapipe-a-vs-b.md", &to_markdown(&c));
    snapshot("lavapipe-a-vs-b.txt", &to_table(&c));
    // 9 ok rows + the unsupported wg64-sg32.
    assert_eq!(c.rows.len(), 10);
    let nc = c
        .rows
        .iter()
        .find(|r| r.variant_base == "wg64-sg32")
        .unwrap();
    match &nc.verdict {
        Verdict::NotComparable(why) => assert!(why.contains("unsupported"), "{why}"),
        v => panic!("{v:?}"),
    }
    // multipass has 4 repetitions per variant: warned.
    assert!(c
        .warnings
        .iter()
        .any(|w| w.contains("multipass") && w.contains("fewer than 10")));
    let csv = to_csv(&c);
    assert!(csv.starts_with(
        "scenario,variant_base,variant_new,params,mode,metric,before,after,ratio,ci_low,ci_high,p_value,verdict,reason\n"
    ));
}

#[test]
fn repetition_time_is_the_sum_of_passes() {
    let a = load("lavapipe-a");
    for r in &a.results {
        if r.status() != "ok" {
            continue;
        }
        let mut t = a.repetition_times(&r.key());
        t.sort_by(f64::total_cmp);
        assert_eq!(t.len() as f64, r.num("n").unwrap());
        let m = p3lab::measure::stats::median(&t);
        if r.num("dispatches") == Some(1.0) {
            // Single pass: exactly results.csv's median.
            assert_eq!(Some(m), r.num("median_ns"), "{}", r.key());
        } else {
            // Multi-pass: results.csv spans first begin to last end, barriers included, so
            // it is at least the sum of the passes.
            assert!(m <= r.num("median_ns").unwrap(), "{}", r.key());
        }
    }
}

#[test]
fn pair_mode_within_one_run() {
    let run = load("h200-saxpy");
    let o = CompareOptions {
        pairs: vec![
            ("wg64-x1".into(), "wg64-x4".into()),
            ("wg64-x1".into(), "wg64-x1-sg32".into()),
            ("wg64-x1".into(), "nope".into()),
        ],
        ..opts()
    };
    let c = compare(&run, &run, &o);
    snapshot("h200-saxpy-pairs.csv", &to_csv(&c));
    assert_eq!(c.rows.len(), 2, "{:?}", c.warnings);
    let x4 = &c.rows[0];
    assert_eq!(
        (x4.variant_base.as_str(), x4.variant_new.as_str()),
        ("wg64-x1", "wg64-x4")
    );
    // 633 µs -> 220 µs on the H200, with 10 tight samples each.
    assert_eq!(x4.verdict, Verdict::Improved);
    assert!(x4.speedup.unwrap() > 2.8);
    let (lo, hi) = x4.ratio_ci.unwrap();
    assert!(lo <= hi && hi < 0.99);
    // The old schema has no `mode` column: rows read as warm.
    assert_eq!(x4.mode, "warm");
    // A Figure-4 metric from metrics.csv present on both sides.
    let regs = x4
        .metrics
        .iter()
        .find(|m| m.name == "executable_statistic/Register Count")
        .unwrap();
    assert!(regs.before.is_some() && regs.after.is_some());
    // The same kernel under another name: within noise.
    assert_eq!(c.rows[1].verdict, Verdict::NoChange);
    assert!(c.warnings.iter().any(|w| w.contains("nope")));
    assert!(!has_regression(&c));
    // Reversed, the same pair regresses.
    let rev = CompareOptions {
        pairs: vec![("wg64-x4".into(), "wg64-x1".into())],
        ..opts()
    };
    let c = compare(&run, &run, &rev);
    assert_eq!(c.rows[0].verdict, Verdict::Regressed);
    assert!(has_regression(&c));
}

#[test]
fn verdict_rule() {
    // Entirely below 1 - 1 %: improved.
    assert_eq!(verdict_for_ci((0.80, 0.985), 1.0), Verdict::Improved);
    // Straddling 1: no change, however far the point estimate moved.
    assert_eq!(verdict_for_ci((0.70, 1.02), 1.0), Verdict::NoChange);
    // Below 1 but reaching into the noise band: no change.
    assert_eq!(verdict_for_ci((0.95, 0.995), 1.0), Verdict::NoChange);
    assert_eq!(verdict_for_ci((1.02, 1.3), 1.0), Verdict::Regressed);
    assert_eq!(verdict_for_ci((1.02, 1.3), 5.0), Verdict::NoChange);
}

#[test]
fn a_run_against_itself_has_no_change() {
    let a = load("lavapipe-a");
    let c = compare(&a, &a, &opts());
    for r in &c.rows {
        if let Verdict::NotComparable(_) = r.verdict {
            continue;
        }
        assert_eq!(r.verdict, Verdict::NoChange, "{r:?}");
        assert_eq!(r.change_pct, Some(0.0));
        assert!(r.p_value.unwrap() > 0.9);
    }
}

#[test]
fn not_ok_rows_are_not_comparable() {
    let a = load("lavapipe-a");
    let mut b = a.clone();
    let row = b
        .results
        .iter_mut()
        .find(|r| r.get("variant") == "wg128")
        .unwrap();
    row.fields.insert("status".into(), "check_failed".into());
    row.fields
        .insert("reason".into(), "vs baseline: dst: 3 of 4096 differ".into());
    let c = compare(&a, &b, &opts());
    let r = c.rows.iter().find(|r| r.variant_base == "wg128").unwrap();
    assert_eq!(r.verdict.as_str(), "not comparable");
    assert!(
        r.verdict
            .reason()
            .contains("new `wg128` is check_failed: vs baseline"),
        "{:?}",
        r.verdict
    );
    assert_eq!(r.ratio_ci, None);
    let csv = to_csv(&c);
    assert!(
        csv.contains(",not comparable,new `wg128` is check_failed"),
        "{csv}"
    );
}

#[test]
fn report_snapshot_with_sweeps_and_comparison() {
    let (a, b) = (load("lavapipe-a"), load("lavapipe-b"));
    let c = compare(&a, &b, &opts());
    let rep = report(&b, Some(&c));
    snapshot("report-lavapipe/report.md", &rep.markdown);
    let names: Vec<&str> = rep.svgs.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        [
            "smoke-medians.svg",
            "smoke-sweep-WG.svg",
            "multipass-medians.svg",
            "comparison-speedup.svg"
        ]
    );
    for (name, svg) in &rep.svgs {
        assert!(
            rep.markdown.contains(&format!("]({name})")),
            "{name} not linked"
        );
        snapshot(&format!("report-lavapipe/{name}"), svg);
    }

    let occ = report(&load("lavapipe-occupancy"), None);
    snapshot("report-occupancy/report.md", &occ.markdown);
    for (name, svg) in &occ.svgs {
        snapshot(&format!("report-occupancy/{name}"), svg);
    }
    let names: Vec<&str> = occ.svgs.iter().map(|(n, _)| n.as_str()).collect();
    assert!(names.contains(&"occupancy-sweep-NREG.svg"), "{names:?}");
    assert!(names.contains(&"occupancy-sweep-wg.svg"), "{names:?}");
    // WG copies the param wg: one sweep, not two.
    assert!(!names.contains(&"occupancy-sweep-WG.svg"), "{names:?}");

    let gpu = report(&load("h200-saxpy"), None);
    snapshot("report-h200-saxpy/report.md", &gpu.markdown);
    for (name, svg) in &gpu.svgs {
        snapshot(&format!("report-h200-saxpy/{name}"), svg);
    }
}

#[test]
fn write_report_writes_linked_files() {
    let a = load("lavapipe-a");
    let rep = report(&a, None);
    let dir = tempfile::tempdir().unwrap();
    p3lab::p3::write_report(&rep, dir.path()).unwrap();
    assert!(dir.path().join("report.md").is_file());
    for (name, _) in &rep.svgs {
        assert!(dir.path().join(name).is_file(), "{name}");
    }
}

#[test]
fn load_accepts_results_csv_path_and_tolerates_extra_columns() {
    let dir = tempfile::tempdir().unwrap();
    for f in ["results.csv", "samples.csv", "metrics.csv"] {
        let text = std::fs::read_to_string(data("lavapipe-a").join(f)).unwrap();
        // A future column appended to every line.
        let text: String = text
            .lines()
            .enumerate()
            .map(|(i, l)| format!("{l},{}\n", if i == 0 { "future_col" } else { "x" }))
            .collect();
        std::fs::write(dir.path().join(f), text).unwrap();
    }
    let run = load_run(&dir.path().join("results.csv")).unwrap();
    assert_eq!(run.results.len(), 10);
    assert_eq!(run.results[0].get("future_col"), "x");
    let c = compare(&run, &load("lavapipe-a"), &opts());
    assert!(c.rows.iter().all(|r| r.verdict != Verdict::Regressed));
}

fn write_run(results: &str, samples: Option<&str>) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("results.csv"), results).unwrap();
    if let Some(s) = samples {
        std::fs::write(dir.path().join("samples.csv"), s).unwrap();
    }
    dir
}

fn err(dir: &tempfile::TempDir) -> String {
    format!("{:#}", load_run(dir.path()).unwrap_err())
}

#[test]
fn malformed_csv_errors_name_file_and_line() {
    let head = "schema_version,scenario,variant,status,params,median_ns\n";
    // Line 3 has a field too many.
    let d = write_run(&format!("{head}1,s,a,ok,,10\n1,s,b,ok,,20,oops\n"), None);
    let e = err(&d);
    assert!(
        e.contains("results.csv:3:") && e.contains("7 fields"),
        "{e}"
    );

    let d = write_run(&format!("{head}1,s,a,ok,,10\n1,s,b,ok,,fast\n"), None);
    let e = err(&d);
    assert!(
        e.contains("results.csv:3:") && e.contains("`median_ns`") && e.contains("fast"),
        "{e}"
    );

    let d = write_run(
        &format!("{head}1,s,a,ok,,10\n"),
        Some("scenario,variant,params,repetition,dispatch,gpu_ns\ns,a,,0,0,1\ns,a,,x,0,2\n"),
    );
    let e = err(&d);
    assert!(
        e.contains("samples.csv:3:") && e.contains("`repetition`"),
        "{e}"
    );

    let d = write_run(&format!("{head}2,s,a,ok,,10\n"), None);
    let e = err(&d);
    assert!(
        e.contains("results.csv:2:") && e.contains("schema_version 2"),
        "{e}"
    );

    let d = write_run("scenario,variant,status\ns,a,ok\n", None);
    let e = err(&d);
    assert!(
        e.contains("results.csv:1:") && e.contains("`schema_version`"),
        "{e}"
    );

    // No samples.csv: loads, with a note that becomes a comparison warning; no CI.
    let d = write_run(&format!("{head}1,s,a,ok,,10\n"), None);
    let run = load_run(d.path()).unwrap();
    assert!(run.notes.iter().any(|n| n.contains("samples.csv")));
    let c = compare(&run, &run, &opts());
    assert!(c.warnings.iter().any(|w| w.contains("samples.csv")));
    assert_eq!(c.rows[0].verdict.as_str(), "not comparable");
    assert_eq!(c.rows[0].median_base_ns, Some(10.0));
}
