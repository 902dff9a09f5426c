//! Snapshot tests of the run's summary (src/output/summary/) and its Markdown and JSON
//! exports, pure functions over committed rows: tests/data/summary/results.csv (unsupported
//! and failed rows, two modes, a baseline that did not run, a CI reaching below zero) and a
//! real lavapipe run (tests/data/p3/lavapipe-a).
//!
//! `P3LAB_UPDATE_SNAPSHOTS=1 cargo test --test summary` rewrites tests/data/summary/expected/.
mod common;
use p3lab::output::summary::{render_text, summarize, to_json, to_markdown, Layout, Summary};
use p3lab::results::{Mode, ResultRow, RowStatus};

/// A results.csv's rows through the one reader.
fn read_rows(path: &Path) -> anyhow::Result<Vec<ResultRow>> {
    Ok(p3lab::results::read_results(path)?
        .into_iter()
        .map(|r| r.row)
        .collect())
}
use std::path::{Path, PathBuf};

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

/// Compare `actual` with the snapshot `name` (common::snapshot).
fn snapshot(name: &str, actual: &str) {
    common::snapshot(&data("summary/expected").join(name), actual);
}

/// The fixture with what its scenarios would say: smoke lists its variants (baseline wg64);
/// tiling is unknown (the `check = baseline` row decides); reduce's baseline `naive` is
/// unsupported.
fn fixture() -> Summary {
    let rows = read_rows(&data("summary/results.csv")).expect("fixture reads");
    let mut layout = Layout::default();
    let names = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    layout.insert(
        "smoke",
        "n=4096",
        names(&["wg64", "wg128", "wg256", "wg32", "wg64-sg16", "wg64-sg32"]),
        Some("wg64".into()),
    );
    layout.insert(
        "reduce",
        "",
        names(&["naive", "shared", "subgroup"]),
        Some("naive".into()),
    );
    summarize(&rows, &layout)
}

#[test]
fn summary_text_snapshot() {
    let s = fixture();
    let text = render_text(&s, false);
    assert!(!text.contains('\x1b'));
    snapshot("fixture.txt", &text);
    // Colour marks the fastest, the statuses and the headings, and nothing else changes.
    let coloured = render_text(&s, true);
    assert!(coloured.contains("\x1b[1;32m"));
    assert_eq!(p3lab::output::ansi::strip(&coloured), text);
}

#[test]
fn summary_markdown_snapshot() {
    snapshot("fixture.md", &to_markdown(&fixture()));
}

#[test]
fn summary_json_snapshot() {
    let json = to_json(&fixture());
    let v: serde_json::Value = serde_json::from_str(&json).expect("valid JSON");
    assert_eq!(v["rows"]["ok"], 11);
    assert_eq!(v["cases"].as_array().unwrap().len(), 3);
    snapshot("fixture.json", &json);
}

#[test]
fn summary_of_a_real_lavapipe_run() {
    let rows = read_rows(&data("p3/lavapipe-a/results.csv")).expect("run reads");
    let s = summarize(&rows, &Layout::default());
    snapshot("lavapipe-a.txt", &render_text(&s, false));
}

#[test]
fn baselines_ratios_and_the_fastest() {
    let s = fixture();
    let smoke = &s.cases[0].modes[0];
    assert_eq!(smoke.baseline.as_deref(), Some("wg64"));
    assert_eq!(smoke.fastest.as_deref(), Some("wg128"));
    // Variants in the scenario's order, not the file's.
    let order: Vec<&str> = smoke.variants.iter().map(|t| t.variant.as_str()).collect();
    assert_eq!(order, ["wg64", "wg128", "wg256"]);
    let wg128 = smoke.variants[1].vs_baseline.unwrap();
    // The time ratio variant / baseline: below 1 is faster.
    assert!((wg128.ratio - 103940.83 / 131420.5).abs() < 1e-12);
    assert!(wg128.ci_low.unwrap() < wg128.ratio && wg128.ratio < wg128.ci_high.unwrap());
    // Failed rows: grouped by status and reason, one line each.
    let not_run = &s.cases[0].not_run;
    assert_eq!(not_run.len(), 3);
    assert_eq!(not_run[0].status, "check_failed");
    // tiling: the `check = baseline` row; cold's lowest median is the baseline itself, but
    // its interval overlaps tile32's, so nothing is called fastest (issue 29).
    let tiling = &s.cases[1];
    assert_eq!(tiling.modes.len(), 2);
    assert_eq!(tiling.modes[1].baseline.as_deref(), Some("rowmajor"));
    assert_eq!(tiling.modes[1].fastest, None);
    let unclear = tiling.modes[1].unclear.as_ref().unwrap();
    assert_eq!(unclear.lowest, "rowmajor");
    assert_eq!(unclear.overlaps, ["tile32"]);
    // A CI reaching below zero gives no interval for the ratio.
    let tile32 = tiling.modes[0]
        .variants
        .iter()
        .find(|t| t.variant == "tile32")
        .unwrap();
    assert_eq!(tile32.vs_baseline.unwrap().ci_low, None);
    // reduce: the baseline is unsupported; ratios against the first timed, said so.
    let reduce = &s.cases[2].modes[0];
    assert_eq!(reduce.baseline.as_deref(), Some("shared"));
    assert!(reduce
        .note
        .as_deref()
        .unwrap()
        .contains("`naive` is unsupported"));
}

#[test]
fn rows_of_several_devices_are_told_apart() {
    let row = |device: &str, variant: &str, median: f64| ResultRow {
        scenario: "s".into(),
        variant: variant.into(),
        mode: Some(Mode::Warm),
        status: RowStatus::Ok,
        device_name: device.into(),
        host: "h".into(),
        median_ns: Some(median),
        ..Default::default()
    };
    let rows = [
        row("H200", "a", 10.0),
        row("H200", "b", 5.0),
        row("llvmpipe", "a", 100.0),
        row("llvmpipe", "b", 200.0),
    ];
    let s = summarize(&rows, &Layout::default());
    assert_eq!(s.cases.len(), 2);
    assert_eq!(s.cases[0].device.as_deref(), Some("H200"));
    // Without CIs nothing bounds the medians: the lowest is not called fastest.
    assert_eq!(s.cases[0].modes[0].fastest, None);
    assert_eq!(
        s.cases[1].modes[0]
            .unclear
            .as_ref()
            .map(|u| u.lowest.as_str()),
        Some("a")
    );
    let text = render_text(&s, false);
    assert!(text.contains("s · warm · llvmpipe\n"), "{text}");
    // Without CIs the ratio has no interval, and says so.
    assert!(text.contains("2.000 (no CI)"), "{text}");
}
