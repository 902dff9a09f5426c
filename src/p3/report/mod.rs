//! A report of one run (optionally with a comparison): `report.md` and a self-contained
//! `report.html`, both with per scenario a table of variants and SVG charts (medians per params
//! case and mode with CI whiskers; sweeps as lines when a param, define or workgroup size
//! varies; time ratios new/base around 1.0 for comparisons, naming the base run). Each
//! variant's limiter and its units' %-of-peak stand next to its time (the P3 view).
use super::compare::{fmt_time, md_cell, sig, time_unit, Comparison, Record, RunData};
use crate::results::write::{refuse_link, write_file_atomic};
use anyhow::Context;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::Path;

mod html;
mod markdown;
mod medians;
mod meta;
mod roofline;
mod speedup;
mod sweep;
pub use meta::{RunInfo, RunMeta};

/// A rendered report: `report.md`, `report.html` and the SVG files the Markdown links to
/// (the HTML holds the same SVGs inline).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Report {
    /// The text of `report.md`, which links the SVGs as files beside it.
    pub markdown: String,
    /// The text of `report.html`: self-contained, the same SVGs inline.
    pub html: String,
    /// (file name, SVG text), in the order the Markdown references them.
    pub svgs: Vec<(String, String)>,
}

/// The comparison a report ends with, and the run it compared against.
#[derive(Debug, Clone, Copy)]
pub struct Compared<'a> {
    /// The base run; the very same `RunData` as the report's run when the pairs are variants
    /// of one run (`--pair`), which the charts then say.
    pub base: &'a RunData,
    /// The pairs of `base` against the report's run; every ratio in it is new ÷ base.
    pub comparison: &'a Comparison,
}

/// Write `report.md`, `report.html` and the SVGs into `dir` (created if needed; files of the
/// same names are replaced, each written beside and renamed into place). When any of them is
/// a symbolic link, none is written (`results::write::LinkedOutput`).
pub fn write_report(report: &Report, dir: &Path) -> anyhow::Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let files = [
        ("report.md", &report.markdown),
        ("report.html", &report.html),
    ];
    let files: Vec<(std::path::PathBuf, &String)> = files
        .into_iter()
        .chain(report.svgs.iter().map(|(n, t)| (n.as_str(), t)))
        .map(|(name, text)| (dir.join(name), text))
        .collect();
    for (path, _) in &files {
        refuse_link(path)?;
    }
    for (path, text) in files {
        write_file_atomic(&path, text.as_bytes())?;
    }
    Ok(())
}

/// One chart: its file, a caption (the Markdown's alt text and the HTML's figure caption),
/// the SVG, and notes shown under it (rows a sweep could not draw, …).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Chart {
    pub file: String,
    pub caption: String,
    pub svg: String,
    pub notes: Vec<String>,
}

/// One scenario's part of the report.
pub(crate) struct Section<'a> {
    pub scenario: &'a str,
    pub rows: Vec<&'a Record>,
    pub medians: Vec<Chart>,
    pub sweeps: Vec<Chart>,
    /// Rows the sweeps could not draw, and why.
    pub sweep_notes: Vec<String>,
    /// The scenario's roofline (none without peaks or without a row to place).
    pub roofline: Option<Chart>,
}

/// The comparison part of the report.
pub(crate) struct ComparisonSection<'a> {
    /// Names the base and the new run (or the run whose variants were paired).
    pub base_line: String,
    pub charts: Vec<Chart>,
    pub comparison: &'a Comparison,
}

/// Everything both renderings (Markdown, HTML) show.
pub(crate) struct Contents<'a> {
    pub run: &'a RunData,
    pub meta: &'a RunMeta,
    pub sections: Vec<Section<'a>>,
    pub comparison: Option<ComparisonSection<'a>>,
}

/// Builds the report of `run`; with `compared`, a final section with its speedup charts and
/// tables. `meta` is the run's run.json ([`RunMeta::load`]). Deterministic: depends only on
/// the inputs (no paths beyond folder names, no clock).
pub fn report(run: &RunData, meta: &RunMeta, compared: Option<Compared>) -> Report {
    let mut names = BTreeSet::new();
    let mut unique = |chart: &mut Chart| {
        let wanted = chart.file.clone();
        let mut i = 2;
        while !names.insert(chart.file.clone()) {
            chart.file = format!("{wanted}-{i}");
            i += 1;
        }
        chart.file.push_str(".svg");
    };

    let mut scenarios: Vec<&str> = Vec::new();
    for r in &run.results {
        let s = r.get("scenario");
        if !scenarios.contains(&s) {
            scenarios.push(s);
        }
    }
    let mut sections = Vec::new();
    for scenario in scenarios {
        let mut rows: Vec<&Record> = run
            .results
            .iter()
            .filter(|r| r.get("scenario") == scenario)
            .collect();
        // The table in a reader's order, not the order variants finished (issue 29: stride32,
        // stride16, stride4, ...): params case, then mode as the file first has it, then
        // variant, numbers inside names compared as numbers.
        let modes: Vec<&str> = {
            let mut m: Vec<&str> = Vec::new();
            for r in &rows {
                if !m.contains(&r.get("mode")) {
                    m.push(r.get("mode"));
                }
            }
            m
        };
        rows.sort_by(|a, b| {
            natural_cmp(a.get("params"), b.get("params"))
                .then_with(|| {
                    let at = |r: &Record| modes.iter().position(|m| *m == r.get("mode"));
                    at(a).cmp(&at(b))
                })
                .then_with(|| natural_cmp(a.get("variant"), b.get("variant")))
        });
        let mut medians = medians::charts(scenario, &rows);
        let (mut sweeps, sweep_notes) = sweep::charts(run, scenario, &rows);
        let mut roofline = meta
            .peaks
            .as_ref()
            .and_then(|p| roofline::chart(scenario, &rows, p));
        medians
            .iter_mut()
            .chain(sweeps.iter_mut())
            .chain(roofline.iter_mut())
            .for_each(&mut unique);
        sections.push(Section {
            scenario,
            rows,
            medians,
            sweeps,
            sweep_notes,
            roofline,
        });
    }
    let comparison = compared.map(|cmp| {
        let base_line = base_line(run, cmp.base);
        let mut charts = speedup::charts(cmp.comparison, &base_line);
        charts.iter_mut().for_each(&mut unique);
        ComparisonSection {
            base_line,
            charts,
            comparison: cmp.comparison,
        }
    });
    let contents = Contents {
        run,
        meta,
        sections,
        comparison,
    };
    let mut svgs = Vec::new();
    for s in &contents.sections {
        for c in s.medians.iter().chain(&s.sweeps).chain(&s.roofline) {
            svgs.push((c.file.clone(), c.svg.clone()));
        }
    }
    if let Some(c) = &contents.comparison {
        svgs.extend(c.charts.iter().map(|c| (c.file.clone(), c.svg.clone())));
    }
    Report {
        markdown: markdown::render(&contents),
        html: html::render(&contents),
        svgs,
    }
}

/// Compares two names with runs of digits as numbers: `stride2` < `stride16`, `n=1024` <
/// `n=8192`, `wg8x8` < `wg16x16`.
pub(crate) fn natural_cmp(a: &str, b: &str) -> std::cmp::Ordering {
    fn parts(s: &str) -> Vec<(bool, &str)> {
        let mut out = Vec::new();
        let mut start = 0;
        let bytes = s.as_bytes();
        for i in 1..=bytes.len() {
            if i == bytes.len() || bytes[i].is_ascii_digit() != bytes[start].is_ascii_digit() {
                out.push((bytes[start].is_ascii_digit(), &s[start..i]));
                start = i;
            }
        }
        out
    }
    let (pa, pb) = (parts(a), parts(b));
    for (x, y) in pa.iter().zip(&pb) {
        let o = match (x.0, y.0) {
            (true, true) => {
                let (tx, ty) = (x.1.trim_start_matches('0'), y.1.trim_start_matches('0'));
                tx.len().cmp(&ty.len()).then_with(|| tx.cmp(ty))
            }
            _ => x.1.cmp(y.1),
        };
        if o != std::cmp::Ordering::Equal {
            return o;
        }
    }
    pa.len().cmp(&pb.len())
}

/// File-name-safe form of a scenario or key name.
pub(crate) fn slug(s: &str) -> String {
    let t: String = s
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if t.is_empty() {
        "_".into()
    } else {
        t
    }
}

/// File-name part for a `k=v, k=v` label: `width2560-warm` for `width=2560, mode=warm`.
pub(crate) fn label_slug(label: &str) -> String {
    let parts: Vec<String> = label
        .split(", ")
        .map(|kv| match kv.split_once('=') {
            Some(("mode", v)) => v.to_string(),
            Some((k, v)) => format!("{k}{v}"),
            None => kv.to_string(),
        })
        .collect();
    slug(&parts.join("-"))
}

/// Distinct non-empty values of `column`, in order of appearance.
pub(crate) fn distinct(run: &RunData, column: &str) -> Vec<String> {
    let mut v: Vec<String> = Vec::new();
    for r in &run.results {
        let s = r.get(column);
        if !s.is_empty() && !v.iter().any(|x| x == s) {
            v.push(s.to_string());
        }
    }
    v
}

/// A run as a reader can find it again: its id(s) and folder name.
pub(crate) fn run_name(run: &RunData) -> String {
    let ids = distinct(run, "run_id");
    let mut s = match ids.len() {
        0 => "run".to_string(),
        1 => format!("run {}", ids[0]),
        n => format!("{n} merged runs ({} … {})", ids[0], ids[n - 1]),
    };
    if let Some(name) = run.dir.file_name().and_then(|n| n.to_str()) {
        let _ = write!(s, " (folder {name})");
    }
    s
}

/// Which runs a comparison compared.
fn base_line(run: &RunData, base: &RunData) -> String {
    if std::ptr::eq(run, base) {
        format!("variant pairs within {}", run_name(run))
    } else {
        format!("base: {} · new: {}", run_name(base), run_name(run))
    }
}

/// Devices of the run as `name (driver)`, in order of appearance.
pub(crate) fn devices(run: &RunData) -> Vec<String> {
    let mut devices = Vec::new();
    for r in &run.results {
        let driver = format!("{} {}", r.get("driver_name"), r.get("driver_info"));
        let d = match (r.get("device_name"), driver.trim()) {
            ("", _) => continue,
            (name, "") => name.to_string(),
            (name, driver) => format!("{name} ({driver})"),
        };
        if !devices.contains(&d) {
            devices.push(d);
        }
    }
    devices
}

/// Row counts by status: `9 ok, 1 unsupported`.
pub(crate) fn status_counts(run: &RunData) -> String {
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for r in &run.results {
        *counts.entry(r.status().as_str()).or_default() += 1;
    }
    let counts: Vec<String> = counts.iter().map(|(s, n)| format!("{n} {s}")).collect();
    counts.join(", ")
}

/// `k=v` entries of a params (or defines) cell, in order.
pub(crate) fn entries(cell: &str) -> Vec<(String, String)> {
    cell.split(';')
        .filter(|s| !s.is_empty())
        .map(|kv| match kv.split_once('=') {
            Some((k, v)) => (k.trim().to_string(), v.trim().to_string()),
            None => (kv.trim().to_string(), String::new()),
        })
        .collect()
}

/// Splits the params cells of a chart's rows into the part that tells them apart and the part
/// they share: per cell the `k=v` entries whose value differs somewhere (joined with `, `),
/// and the entries every cell has alike.
pub(crate) fn split_params(cells: &[&str]) -> (Vec<String>, Vec<String>) {
    let parsed: Vec<Vec<(String, String)>> = cells.iter().map(|c| entries(c)).collect();
    let mut keys: Vec<&str> = Vec::new();
    for p in &parsed {
        for (k, _) in p {
            if !keys.contains(&k.as_str()) {
                keys.push(k);
            }
        }
    }
    let value =
        |p: &[(String, String)], k: &str| p.iter().find(|(pk, _)| pk == k).map(|(_, v)| v.clone());
    let constant: Vec<&str> = keys
        .iter()
        .copied()
        .filter(|k| parsed.iter().all(|p| value(p, k) == value(&parsed[0], k)))
        .collect();
    let varying = parsed
        .iter()
        .map(|p| {
            p.iter()
                .filter(|(k, _)| !constant.contains(&k.as_str()))
                .map(|(k, v)| format!("{k}={v}"))
                .collect::<Vec<_>>()
                .join(", ")
        })
        .collect();
    let shared = parsed
        .first()
        .map(|p| {
            p.iter()
                .filter(|(k, _)| constant.contains(&k.as_str()))
                .map(|(k, v)| format!("{k}={v}"))
                .collect()
        })
        .unwrap_or_default();
    (varying, shared)
}

/// Registers per thread: the results.csv column, or for runs written before it existed the
/// driver's "Register Count" executable statistic from metrics.csv (single-pass variants).
pub(crate) fn registers(run: &RunData, r: &Record) -> Option<f64> {
    r.num("registers_per_thread").or_else(|| {
        let key = r.key();
        let found = run
            .metrics_of(&key)
            .find(|m| m.source == "executable_statistic" && m.name == "Register Count")
            .map(|m| m.value);
        found
    })
}

/// A table cell: its text, and the number it sorts by (None: sorts as text).
pub(crate) struct Cell {
    pub text: String,
    pub sort: Option<f64>,
}

/// Headings of the variant table, with whether the column is numeric (right-aligned).
pub(crate) const TABLE_HEAD: &[(&str, bool)] = &[
    ("variant", false),
    ("params", false),
    ("mode", false),
    ("median", true),
    ("95 % CI", true),
    ("CV %", true),
    ("GB/s", true),
    ("registers", true),
    ("occupancy", true),
    ("limiter", false),
    ("% of peak", false),
    ("status", false),
];

/// The cells of one row of the variant table.
pub(crate) fn table_row(run: &RunData, r: &Record) -> Vec<Cell> {
    let text = |s: &str| Cell {
        text: s.to_string(),
        sort: None,
    };
    let dash = || Cell {
        text: "-".into(),
        sort: None,
    };
    let num = |v: Option<f64>, f: &dyn Fn(f64) -> String| match v {
        Some(v) => Cell {
            text: f(v),
            sort: Some(v),
        },
        None => dash(),
    };
    let median = r.num("median_ns");
    let ci = match (
        median,
        r.num("median_ci_low_ns"),
        r.num("median_ci_high_ns"),
    ) {
        (Some(m), Some(l), Some(h)) => {
            let (div, unit) = time_unit(m);
            Cell {
                text: format!("{} – {} {unit}", sig(l / div), sig(h / div)),
                sort: Some(h - l),
            }
        }
        _ => dash(),
    };
    let status = match (r.status(), r.get("reason")) {
        (s, "") => s.to_string(),
        (s, why) => format!("{s}: {why}"),
    };
    vec![
        text(r.get("variant")),
        text(r.get("params")),
        text(r.mode().label()),
        num(median, &fmt_time),
        ci,
        num(r.num("cv_pct"), &|v| format!("{v:.1}")),
        num(r.num("gbytes_per_s"), &sig),
        num(registers(run, r), &|v| format!("{v:.0}")),
        num(r.num("occupancy_pct"), &|v| format!("{v:.0} %")),
        match r.num("limiter_pct") {
            Some(p) => Cell {
                text: limiter_text(r),
                sort: Some(p),
            },
            None => text(&limiter_text(r)),
        },
        match crate::results::units_text(&crate::results::unit_pcts(
            |c| r.num(c),
            r.get("declared_over_units"),
        )) {
            u if u.is_empty() => dash(),
            u => text(&u),
        },
        text(&status),
    ]
}

/// `dram 89 %`, `l1tex 82 % (hw)` where the counters decided, `latency`; `-` for none.
pub(crate) fn limiter_text(r: &Record) -> String {
    crate::results::units::limiter_text(
        r.get("limiter"),
        r.num("limiter_pct"),
        r.get("limiter_source") == "counted",
    )
    .unwrap_or_else(|| "-".into())
}

/// The Markdown form of the variant table.
pub(crate) fn variant_table(run: &RunData, rows: &[&Record]) -> String {
    let mut t = String::from("|");
    for (h, _) in TABLE_HEAD {
        let _ = write!(t, " {h} |");
    }
    t.push_str("\n|");
    for (_, numeric) in TABLE_HEAD {
        t.push_str(if *numeric { "--:|" } else { "---|" });
    }
    t.push('\n');
    for r in rows {
        t.push('|');
        for c in table_row(run, r) {
            let _ = write!(t, " {} |", md_cell(&c.text));
        }
        t.push('\n');
    }
    t
}

#[cfg(test)]
mod tests;
