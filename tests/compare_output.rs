//! What `p3lab compare` prints on stdout (issues 13 and 29): a headline (verdicts counted, the
//! geometric mean of the ratios), one line per comparable pair with the changes first and the
//! pairs that are not comparable folded by reason; every metric with `-v`; the headline and the
//! changed pairs with `-q`; `--format csv` with compare.csv's columns and `--format json` that
//! a JSON parser takes, with stable keys. Runs on the committed lavapipe
//! run folders of tests/data/p3 (10 pairs: 6 improved, 1 regressed, 2 no change, 1 not
//! comparable).
mod common;
use common::*;
use std::path::Path;

/// stdout and stderr of `p3lab [global] compare lavapipe-a lavapipe-b [extra]`.
fn compare(global: &[&str], extra: &[&str]) -> (String, String) {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/p3");
    let out = tempfile::tempdir().unwrap();
    let o = bin()
        .args(global)
        .arg("compare")
        .arg(data.join("lavapipe-a"))
        .arg(data.join("lavapipe-b"))
        .arg("-o")
        .arg(out.path())
        .args(extra)
        .output()
        .unwrap();
    let (stdout, stderr) = (
        String::from_utf8(o.stdout).unwrap(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    );
    assert_eq!(o.status.code(), Some(0), "{stderr}");
    // compare.csv and compare.md whatever stdout gets.
    assert!(out.path().join("compare.csv").is_file() && out.path().join("compare.md").is_file());
    (stdout, stderr)
}

#[test]
fn default_output_is_a_headline_then_one_line_per_pair_changes_first() {
    let (out, err) = compare(&[], &[]);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines[0],
        "10 pairs: 6 improved, 1 regressed, 2 no change, 1 not comparable (noise threshold 1 %)"
    );
    assert!(
        lines[1].starts_with("geometric mean of 9 time ratios new ÷ base: 0.8"),
        "{out}"
    );
    let head = lines.iter().position(|l| l.starts_with("pair")).unwrap();
    assert!(lines[head].ends_with("verdict"), "{out}");
    for v in ["new ÷ base", "95% CI", "p "] {
        assert!(lines[head].contains(v), "{}", lines[head]);
    }
    // The 9 comparable pairs after the rule: the regression first, then the improvements,
    // then no change.
    let pairs = &lines[head + 2..head + 11];
    assert!(pairs[0].ends_with("regressed"), "{out}");
    assert!(pairs[1..7].iter().all(|l| l.ends_with("improved")), "{out}");
    assert!(pairs[7..].iter().all(|l| l.ends_with("no change")), "{out}");
    let wg128 = pairs
        .iter()
        .find(|l| l.starts_with("smoke/wg128 "))
        .unwrap();
    assert!(
        wg128.contains("104.1 µs")
            && wg128.contains("84.90 µs")
            && wg128.contains("0.815")
            && wg128.contains("1.23× faster")
            && wg128.contains("[0.802, 0.857]")
            && wg128.contains("0.0028")
            && wg128.ends_with("improved"),
        "{wg128}"
    );
    // The pair that is not comparable: folded under its reason, after the table.
    assert!(
        out.contains("not comparable: 1 pair (1 reason; compare.csv has each)"),
        "{out}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.trim_start().starts_with("1 × ") && l.ends_with("smoke/wg64-sg32")),
        "{out}"
    );
    // Warnings go to stderr, not between the pairs.
    assert!(!out.contains("warning:"));
    assert!(err.contains("warning: multipass/wg32 [n=100] (warm): 4 vs 4 repetitions"));
}

#[test]
fn verbose_shows_every_metric_and_quiet_the_headline_and_the_changes() {
    let (out, _) = compare(&["-v"], &[]);
    assert!(
        out.contains("  metric ") && out.contains("gbytes_per_s") && out.contains("=> IMPROVED"),
        "{out}"
    );
    assert!(out.lines().count() > 100, "{out}");

    let (out, err) = compare(&["-q"], &[]);
    let lines: Vec<&str> = out.lines().collect();
    // Headline (2), blank, header, rule, 7 changed pairs.
    assert_eq!(lines.len(), 12, "{out}");
    assert!(lines[0].starts_with("10 pairs: 6 improved"), "{out}");
    assert!(
        lines[5..]
            .iter()
            .all(|l| l.ends_with("improved") || l.ends_with("regressed")),
        "{out}"
    );
    assert!(!err.contains("compare.csv and compare.md in"), "{err}");

    // Nothing changed: -q prints the headline alone.
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/p3/lavapipe-a");
    let t = tempfile::tempdir().unwrap();
    let o = bin()
        .args(["-q", "compare"])
        .args([&data, &data])
        .arg("-o")
        .arg(t.path())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0));
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(out.lines().count(), 2, "{out}");
    assert!(out.contains("0 improved, 0 regressed"), "{out}");
}

#[test]
fn p3_view_prints_units_and_limiters_of_both_sides() {
    let (out, _) = compare(&[], &["--p3"]);
    // lavapipe runs without peaks: each pair says where the view's numbers come from.
    assert!(
        out.contains("smoke/wg128 [height=32;n=4096;width=64] (warm)"),
        "{out}"
    );
    assert!(out.contains("new ÷ base 0.815"), "{out}");
    assert!(out.contains("p3lab peak"), "{out}");
}

#[test]
fn csv_format_has_one_row_per_pair_with_stable_columns() {
    let (out, _) = compare(&[], &["--format", "csv"]);
    let mut r = csv::Reader::from_reader(out.as_bytes());
    let header: Vec<String> = r.headers().unwrap().iter().map(String::from).collect();
    // compare.csv's columns (issue 29: one schema), one line per pair and metric.
    assert_eq!(header, p3lab::p3::compare::CSV_COLUMNS);
    let rows: Vec<Row> = r
        .records()
        .map(|rec| {
            header
                .iter()
                .cloned()
                .zip(rec.unwrap().iter().map(String::from))
                .collect::<Row>()
        })
        .filter(|r| r["metric"] == "time_ns")
        .collect();
    assert_eq!(rows.len(), 10);
    let wg128 = rows
        .iter()
        .find(|r| r["variant_base"] == "wg128" && r["scenario"] == "smoke")
        .unwrap();
    assert_eq!(wg128["verdict"], "improved");
    assert_eq!(wg128["cross_device"], "0");
    let ratio = num(wg128, "ratio");
    assert!(
        (ratio - 0.815).abs() < 0.001 && num(wg128, "ci_low") < ratio,
        "{wg128:?}"
    );
    assert!(num(wg128, "p_value") < 0.01);
    let nc = rows
        .iter()
        .find(|r| r["variant_base"] == "wg64-sg32")
        .unwrap();
    assert_eq!(nc["verdict"], "not comparable");
    assert!(nc["reason"].contains("unsupported") && nc["ratio"].is_empty());

    // -q keeps the header and the changed pairs.
    let (out, _) = compare(&["-q"], &["--format", "csv"]);
    let mut r = csv::Reader::from_reader(out.as_bytes());
    let pairs: std::collections::BTreeSet<String> = r
        .records()
        .map(|rec| {
            let rec = rec.unwrap();
            (0..5).map(|i| &rec[i]).collect::<Vec<_>>().join("|")
        })
        .collect();
    assert_eq!(pairs.len(), 7, "{out}");
}

#[test]
fn json_format_parses_with_counts_pairs_and_metrics() {
    let (out, _) = compare(&[], &["--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&out).expect("stdout is one JSON value");
    assert_eq!(v["counts"]["pairs"], 10);
    assert_eq!(v["counts"]["improved"], 6);
    assert_eq!(v["counts"]["regressed"], 1);
    assert_eq!(v["counts"]["no_change"], 2);
    assert_eq!(v["counts"]["not_comparable"], 1);
    assert_eq!(v["noise_pct"], 1.0);
    assert!(v["base"].as_str().unwrap().ends_with("lavapipe-a"));
    assert!(v["warnings"].as_array().unwrap().len() >= 4);
    let pairs = v["pairs"].as_array().unwrap();
    assert_eq!(pairs.len(), 10);
    for p in pairs {
        let keys: Vec<&str> = p.as_object().unwrap().keys().map(String::as_str).collect();
        for k in p3lab::p3::compare::BRIEF_COLUMNS {
            assert!(keys.contains(k), "{k} missing from {p}");
        }
        assert!(p["metrics"].is_array());
    }
    let sg32 = pairs
        .iter()
        .find(|p| p["variant_base"] == "wg64-sg32")
        .unwrap();
    assert!(sg32["ratio"].is_null() && sg32["verdict"] == "not comparable");
    let wg128 = pairs
        .iter()
        .find(|p| p["variant_base"] == "wg128" && p["scenario"] == "smoke")
        .unwrap();
    assert_eq!(wg128["metrics"][0]["name"], "time_ns");
    assert_eq!(wg128["cross_device"], false);

    let (out, _) = compare(&["-q"], &["--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["pairs"].as_array().unwrap().len(), 7);
    assert_eq!(v["counts"]["pairs"], 10);
}

/// Issue 40: compare.md names the runs it compares in a heading.
#[test]
fn compare_md_names_the_runs_it_compares() {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/p3");
    let out = tempfile::tempdir().unwrap();
    let o = bin()
        .arg("compare")
        .arg(data.join("lavapipe-a"))
        .arg(data.join("lavapipe-b"))
        .arg("-o")
        .arg(out.path())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0));
    let md = std::fs::read_to_string(out.path().join("compare.md")).unwrap();
    let first = md.lines().next().unwrap();
    assert!(
        first.starts_with("# compare: ")
            && first.contains("lavapipe-a (base) → ")
            && first.contains("lavapipe-b (new)"),
        "{first}"
    );
}
