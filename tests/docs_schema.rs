//! docs/csv.md stays in step with what the code writes (issue 13): every column of
//! results.csv, samples.csv, metrics.csv, peaks.csv, compare.csv and compare's `--format csv`,
//! in order and numbered, and every key of run.json (top level exactly; the keys of its nested
//! objects named in that key's row).
use p3lab::output::run_json::{
    CaseTimeline, CountersStatus, HwStatus, OccupancyRules, RoundsRecord, RunJson, VariantCost,
    Warmup,
};
use p3lab::results::{header, MetricRow, ResultRow, SampleRow};
use std::path::Path;

fn csv_md() -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/csv.md");
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// The text of the `## TITLE` section (up to the next `## `).
fn section(doc: &str, title: &str) -> String {
    let start = doc
        .find(&format!("\n## {title}\n"))
        .unwrap_or_else(|| panic!("docs/csv.md has no `## {title}` section"));
    let body = &doc[start + title.len() + 5..];
    let end = body.find("\n## ").unwrap_or(body.len());
    body[..end].to_string()
}

/// The cells of the section's first table's rows (header and `|---|` rule left out).
fn first_table(section: &str) -> Vec<Vec<String>> {
    let lines: Vec<&str> = section
        .lines()
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
        .collect();
    lines
        .iter()
        .skip(2)
        .map(|l| {
            // Split on `|` not escaped as `\|`.
            let mut cells = vec![String::new()];
            let mut prev = ' ';
            for c in l.trim().trim_matches('|').chars() {
                if c == '|' && prev != '\\' {
                    cells.push(String::new());
                } else {
                    cells.last_mut().unwrap().push(c);
                }
                prev = c;
            }
            cells.into_iter().map(|c| c.trim().to_string()).collect()
        })
        .collect()
}

/// The `name`s in backticks of a cell: "`a`, `b`" gives a, b.
fn names(cell: &str) -> Vec<String> {
    cell.split('`')
        .skip(1)
        .step_by(2)
        .map(String::from)
        .collect()
}

/// A numbered column table (`| # | Column | ...`): the numbers run 1, 2, ... and the names are
/// `expected`, in order.
fn check_numbered(title: &str, expected: &[String]) {
    let rows = first_table(&section(&csv_md(), title));
    let documented: Vec<String> = rows
        .iter()
        .enumerate()
        .map(|(i, r)| {
            assert_eq!(
                r[0],
                (i + 1).to_string(),
                "{title}: row {r:?} is numbered wrong"
            );
            let n = names(&r[1]);
            assert_eq!(n.len(), 1, "{title}: row {r:?}");
            n[0].clone()
        })
        .collect();
    assert_eq!(documented, expected, "{title}: docs/csv.md vs the code");
}

#[test]
fn csv_columns_match_the_code() {
    check_numbered("results.csv", &header::<ResultRow>());
    check_numbered("samples.csv", &header::<SampleRow>());
    check_numbered("metrics.csv", &header::<MetricRow>());
    let peak = p3lab::peaks::Peak {
        schema_version: 2,
        device_name: String::new(),
        device_uuid: String::new(),
        driver_version: 0,
        unit: String::new(),
        value: None,
        value_unit: String::new(),
        best_variant: String::new(),
        median_ns: None,
        median_ci_low_ns: None,
        median_ci_high_ns: None,
        cv_pct: None,
        n: None,
        status: Default::default(),
        reason: String::new(),
        variants: None,
        counted_metric: String::new(),
        counted_pct: None,
    };
    let peaks: Vec<String> = p3lab::results::csv_safe::header_of(&peak)
        .unwrap()
        .iter()
        .map(String::from)
        .collect();
    check_numbered("peaks.csv", &peaks);
}

/// A table whose first cell names one or more columns: all of them, in order.
fn check_named(title: &str, expected: &[&str]) {
    let rows = first_table(&section(&csv_md(), title));
    let documented: Vec<String> = rows.iter().flat_map(|r| names(&r[0])).collect();
    assert_eq!(documented, expected, "{title}: docs/csv.md vs the code");
}

#[test]
fn compare_columns_match_the_code() {
    check_named("compare.csv", p3lab::p3::compare::CSV_COLUMNS);
    check_named(
        "compare's stdout (`--format csv` / `json`)",
        p3lab::p3::compare::BRIEF_COLUMNS,
    );
}

/// A run.json with every optional part present and one element in every list, so that every
/// key the code can write is there.
fn full_run_json() -> serde_json::Value {
    let dev = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/device_h200.json");
    let mut device: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dev).unwrap()).unwrap();
    // The optional device parts (absent on the H200's JSON where the extension is missing).
    let with_amd = serde_json::json!({
        "nv_sm_count": 132,
        "nv_warps_per_sm": 64,
        "amd_core": serde_json::to_value(p3lab::vk::info::AmdCoreProperties::default()).unwrap(),
    });
    for (k, v) in with_amd.as_object().unwrap() {
        device[k] = v.clone();
    }
    let meta = RunJson {
        device: Some(serde_json::from_value(device).unwrap()),
        occupancy_rules: Some(OccupancyRules::default()),
        enabled: Some(Default::default()),
        costs: vec![VariantCost::default()],
        setup_ns: vec![(String::new(), String::new(), 0)],
        rounds: vec![RoundsRecord {
            warmups: vec![Warmup::default()],
            ..Default::default()
        }],
        cases: vec![CaseTimeline::default()],
        cold_evict_cap: Some(Default::default()),
        counters: Some(CountersStatus {
            reason: Some(String::new()),
            ..Default::default()
        }),
        hw_counters: Some(HwStatus {
            device_index: Some(0),
            max_sm_clock_mhz: Some(0.0),
            ..Default::default()
        }),
        clock_gauge: Some(Default::default()),
        timestamp_rate: Some(Default::default()),
        resume_command_lines: vec![vec!["p3lab".into()]],
        ..Default::default()
    };
    serde_json::to_value(&meta).unwrap()
}

/// Every key of the objects in `v` (objects in lists included), depth first.
fn nested_keys(v: &serde_json::Value, out: &mut Vec<String>) {
    match v {
        serde_json::Value::Object(m) => {
            for (k, x) in m {
                out.push(k.clone());
                nested_keys(x, out);
            }
        }
        serde_json::Value::Array(a) => a.iter().for_each(|x| nested_keys(x, out)),
        _ => {}
    }
}

#[test]
fn run_json_keys_match_the_code() {
    let doc = csv_md();
    let rows = first_table(&section(&doc, "run.json"));
    let v = full_run_json();
    let obj = v.as_object().unwrap();
    let mut documented: Vec<String> = rows.iter().flat_map(|r| names(&r[0])).collect();
    let mut written: Vec<String> = obj.keys().cloned().collect();
    let order = documented.clone();
    documented.sort();
    written.sort();
    assert_eq!(
        documented, written,
        "run.json: the keys of docs/csv.md's table (left) vs those the code writes (right)"
    );
    // Each nested key is named (in backticks) in its top-level key's row.
    let mut missing = Vec::new();
    for (key, value) in obj {
        let row = rows
            .iter()
            .find(|r| names(&r[0]).contains(key))
            .unwrap_or_else(|| panic!("no row for {key} ({order:?})"));
        let text = row.join(" ");
        let mut inner = Vec::new();
        nested_keys(value, &mut inner);
        inner.sort();
        inner.dedup();
        for k in inner {
            if !text.contains(&format!("`{k}`")) {
                missing.push(format!("{key}.{k}"));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "run.json keys written but not named in docs/csv.md: {missing:?}"
    );
}
