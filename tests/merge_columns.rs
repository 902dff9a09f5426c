//! `merge` of files written before columns were appended (issue 13): a header that is a prefix
//! of another input's is merged with empty cells in the columns it lacks, and merge says which
//! (tests/data/lab: `a` has the short header, `wider` two more results.csv columns and one more
//! samples.csv column).
mod common;
use common::*;
use p3lab::lab::merge;
use std::path::{Path, PathBuf};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/lab")
        .join(name)
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

#[test]
fn a_prefix_header_is_filled_with_empty_cells() {
    let t = tempfile::tempdir().unwrap();
    let out = t.path().join("m");
    let s = merge(&[fixture("a"), fixture("wider")], &out).unwrap();
    assert_eq!(
        s.filled,
        vec![
            (
                fixture("a").join("results.csv"),
                vec!["mode".to_string(), "limiter".to_string()]
            ),
            (fixture("a").join("samples.csv"), vec!["mode".to_string()]),
        ]
    );
    assert_eq!((s.results_rows, s.samples_rows, s.metrics_rows), (4, 3, 1));

    // The wider header; `a`'s rows byte for byte with the empty cells before each line break
    // (after the quoted line break of v3's reason, not inside it); `wider`'s rows as they are.
    let expected = "schema_version,run_id,scenario,variant,params,status,reason,median_ns,cv_pct,host,mode,limiter\n\
        1,20260101T000000Z-aaaaaaaa,fix,v1,n=4096,ok,,85838.0,14.538881386147743,alpha,,\n\
        1,20260101T000000Z-aaaaaaaa,fix,v2,n=4096,ok,\"note, with a comma\",1e-7,0.10000000000000001,alpha,,\n\
        1,20260101T000000Z-aaaaaaaa,fix,v3,n=4096,error,\"two\nlines and \"\"quotes\"\"\",,,alpha,,\n\
        1,20260101T000001Z-bbbbbbbb,fix,v1,n=4096,ok,,90000.25,2.5,beta,warm,\"dram, 92 %\"\n";
    assert_eq!(read(&out.join("results.csv")), expected);
    let rows = read_csv(&out.join("results.csv"));
    assert_eq!(rows[2]["reason"], "two\nlines and \"quotes\"");
    assert_eq!(
        (rows[2]["mode"].as_str(), rows[2]["limiter"].as_str()),
        ("", "")
    );
    assert_eq!(rows[3]["limiter"], "dram, 92 %");
    let samples = read_csv(&out.join("samples.csv"));
    assert_eq!(samples.len(), 3);
    assert!(samples[..2].iter().all(|r| r["mode"].is_empty()));
    assert_eq!(samples[2]["mode"], "warm");
    // metrics.csv: the same header everywhere, nothing filled.
    assert!(read(&out.join("metrics.csv"))
        .starts_with("run_id,scenario,variant,params,source,name,value,unit\n"));

    // The wider input first: the same header, the same filled columns.
    let out2 = t.path().join("m2");
    let s = merge(&[fixture("wider"), fixture("a")], &out2).unwrap();
    assert_eq!(s.filled.len(), 2);
    let text = read(&out2.join("results.csv"));
    assert!(text.starts_with("schema_version,run_id,scenario,variant,params,status,reason,median_ns,cv_pct,host,mode,limiter\n1,20260101T000001Z-bbbbbbbb"));
    assert!(text.ends_with("alpha,,\n"), "{text}");
}

#[test]
fn the_command_line_says_which_columns_it_filled() {
    let t = tempfile::tempdir().unwrap();
    let out = t.path().join("m");
    let o = run(&[
        "merge",
        fixture("a").to_str().unwrap(),
        fixture("wider").to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(
        err.contains("a/results.csv has no columns mode, limiter")
            && err.contains("a/samples.csv has no column mode ")
            && err.contains("filled with empty cells"),
        "{err}"
    );
    // A header that differs otherwise is still refused.
    let o = run(&[
        "merge",
        fixture("wider").to_str().unwrap(),
        fixture("changed-header").to_str().unwrap(),
        "-o",
        t.path().join("x").to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("changed-header/results.csv: header differs"),
        "{err}"
    );
}
