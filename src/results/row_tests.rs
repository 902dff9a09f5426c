//! Tests of the CSV schema's headers and cells.
use super::*;
use crate::results::Writers;

#[test]
fn headers_are_snake_case_ascii_and_stable() {
    let h = header::<ResultRow>();
    assert_eq!(
        &h[..5],
        &["schema_version", "run_id", "scenario", "variant", "status"]
    );
    assert!(h.iter().all(|c| c
        .chars()
        .all(|ch| ch.is_ascii_lowercase() || ch.is_ascii_digit() || ch == '_')));
    assert_eq!(
        header::<SampleRow>(),
        [
            "run_id",
            "scenario",
            "variant",
            "params",
            "repetition",
            "dispatch",
            "gpu_ns",
            "mode",
            "repetition_ns",
            "round",
            "round_position",
            "batch_repetition",
            "kept",
            "phase",
            "placement",
            "clock_mhz"
        ]
    );
    assert_eq!(
        header::<MetricRow>(),
        ["run_id", "scenario", "variant", "params", "source", "name", "value", "unit", "mode"]
    );
}

#[test]
fn missing_values_are_empty_cells_and_quoting_is_rfc4180() {
    let dir = tempfile::tempdir().unwrap();
    let mut w = Writers::create(dir.path(), &[]).unwrap();
    let row = ResultRow {
        variant: "a,\"b\"".into(),
        median_ns: None,
        min_ns: Some(1.5),
        ..Default::default()
    };
    w.write_variant(&[row], &[], &[]).unwrap();
    drop(w);
    let text = std::fs::read_to_string(dir.path().join("results.csv")).unwrap();
    let mut r = csv::Reader::from_reader(text.as_bytes());
    let hdr = r.headers().unwrap().clone();
    let rec = r.records().next().unwrap().unwrap();
    let col = |n: &str| {
        rec.get(hdr.iter().position(|h| h == n).unwrap())
            .unwrap()
            .to_string()
    };
    assert_eq!(col("variant"), "a,\"b\"");
    assert_eq!(col("median_ns"), "");
    assert_eq!(col("min_ns"), "1.5");
    assert!(text.contains("\"a,\"\"b\"\"\""));
}
