//! Hostile input and outputs through the real binary (issue 30): a CSV header with a column
//! twice is refused naming the file, line and column.
mod common;
use common::*;
use std::fs;
use std::path::{Path, PathBuf};

fn p3_data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/p3")
        .join(name)
}

/// A copy of the run folder `from` at `to`.
fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for e in fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        if e.file_type().unwrap().is_file() {
            fs::copy(e.path(), to.join(e.file_name())).unwrap();
        }
    }
}

/// `file` with a second `median_ns` column at the end: every row's value times ten.
fn duplicate_median(file: &Path) {
    let mut r = csv::Reader::from_path(file).unwrap();
    let mut header = r.headers().unwrap().clone();
    let col = header.iter().position(|h| h == "median_ns").unwrap();
    header.push_field("median_ns");
    let mut w = csv::Writer::from_writer(vec![]);
    w.write_record(&header).unwrap();
    for rec in r.records() {
        let mut rec = rec.unwrap();
        let tenfold = rec[col]
            .parse::<f64>()
            .map(|x| (x * 10.0).to_string())
            .unwrap_or_default();
        rec.push_field(&tenfold);
        w.write_record(&rec).unwrap();
    }
    fs::write(file, w.into_inner().unwrap()).unwrap();
}

fn stderr(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn a_duplicated_column_is_refused_by_compare_and_report() {
    let t = tempfile::tempdir().unwrap();
    let a = t.path().join("a");
    copy_dir(&p3_data("lavapipe-a"), &a);
    let new = p3_data("lavapipe-b");
    let cmp = t.path().join("cmp");
    let (a_s, new_s, cmp_s) = (
        a.to_str().unwrap(),
        new.to_str().unwrap(),
        cmp.to_str().unwrap(),
    );
    // The copy compares as it is.
    let o = run(&["compare", a_s, new_s, "--out", cmp_s, "-q"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    fs::remove_dir_all(&cmp).unwrap();

    duplicate_median(&a.join("results.csv"));
    let want = format!(
        "{}:1: column `median_ns` appears twice",
        a.join("results.csv").display()
    );
    let o = run(&["compare", a_s, new_s, "--out", cmp_s]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains(&want), "{}", stderr(&o));
    assert!(!cmp.exists(), "nothing is written");
    // The same with the copy as the new run, and in a report.
    let o = run(&["compare", new_s, a_s, "--out", cmp_s]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains(&want), "{}", stderr(&o));
    let report = t.path().join("report");
    let o = run(&["report", a_s, "--out", report.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains(&want), "{}", stderr(&o));
    assert!(!report.exists(), "nothing is written");

    // samples.csv too: a second `round` column.
    let b = t.path().join("b");
    copy_dir(&p3_data("lavapipe-a"), &b);
    let samples = b.join("samples.csv");
    let text = fs::read_to_string(&samples).unwrap();
    let (head, rest) = text.split_once('\n').unwrap();
    let first = head.split(',').next().unwrap().to_string();
    let mut edited = format!("{head},{first}\n");
    for line in rest.lines() {
        edited.push_str(&format!("{line},{}\n", line.split(',').next().unwrap()));
    }
    fs::write(&samples, edited).unwrap();
    let o = run(&["compare", b.to_str().unwrap(), new_s, "--out", cmp_s]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains(&format!(
            "{}:1: column `{first}` appears twice",
            samples.display()
        )),
        "{}",
        stderr(&o)
    );
}
