//! A Markdown report of one run (optionally with a comparison): per scenario a table of
//! variants and SVG charts (medians with CI whiskers; sweeps as lines when a param or define
//! varies; speedups around 1.0 for comparisons).
use super::compare::{
    fmt_time, md_cell, sig, time_unit, to_markdown, Comparison, ResultRecord, RunData, Verdict,
};
use super::svg::{self, Bar, Point, Series};
use anyhow::Context;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::Path;

/// A rendered report: `report.md` and the SVG files it links to (relative names).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Report {
    pub markdown: String,
    /// (file name, SVG text), in the order the Markdown references them.
    pub svgs: Vec<(String, String)>,
}

/// Write `report.md` and the SVGs into `dir` (created if needed; files of the same names are
/// replaced).
pub fn write_report(report: &Report, dir: &Path) -> anyhow::Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let md = dir.join("report.md");
    std::fs::write(&md, &report.markdown)
        .with_context(|| format!("cannot write {}", md.display()))?;
    for (name, text) in &report.svgs {
        let path = dir.join(name);
        std::fs::write(&path, text).with_context(|| format!("cannot write {}", path.display()))?;
    }
    Ok(())
}

/// File-name-safe form of a scenario or key name.
fn slug(s: &str) -> String {
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

/// Builds the report of `run`; with `comparison`, a final section with its speedup chart and
/// tables. Deterministic: depends only on the inputs (no paths, no clock).
pub fn report(run: &RunData, comparison: Option<&Comparison>) -> Report {
    let mut rep = Report::default();
    let mut names = BTreeSet::new();
    let mut add_svg = |rep: &mut Report, wanted: String, text: String| -> String {
        let mut name = format!("{wanted}.svg");
        let mut i = 2;
        while !names.insert(name.clone()) {
            name = format!("{wanted}-{i}.svg");
            i += 1;
        }
        rep.svgs.push((name.clone(), text));
        name
    };

    let md = &mut String::new();
    md.push_str("# p3lab report\n\n");
    md.push_str(&run_summary(run));

    let mut scenarios: Vec<&str> = Vec::new();
    for r in &run.results {
        let s = r.get("scenario");
        if !scenarios.contains(&s) {
            scenarios.push(s);
        }
    }
    for scenario in scenarios {
        let rows: Vec<&ResultRecord> = run
            .results
            .iter()
            .filter(|r| r.get("scenario") == scenario)
            .collect();
        let _ = writeln!(md, "\n## {}\n", md_cell(scenario));

        let (chart, caption) = medians_chart(scenario, &rows);
        let name = add_svg(&mut rep, format!("{}-medians", slug(scenario)), chart);
        let _ = writeln!(md, "![{}]({name})\n", md_cell(&caption));
        md.push_str(&variant_table(run, &rows));

        let sweeps = find_sweeps(&rows);
        if !sweeps.is_empty() {
            md.push_str("\n### Sweeps\n\n");
        }
        for sw in &sweeps {
            let base = format!("{}-sweep-{}", slug(scenario), slug(&sw.key));
            let name = add_svg(
                &mut rep,
                base.clone(),
                sweep_chart(run, scenario, sw, false),
            );
            let _ = writeln!(
                md,
                "![{}: time against {}]({name})\n",
                md_cell(scenario),
                md_cell(&sw.key)
            );
            let has_regs = sw
                .series
                .iter()
                .any(|s| s.rows.iter().any(|(_, r)| registers(run, r).is_some()));
            if has_regs {
                let name = add_svg(
                    &mut rep,
                    format!("{base}-registers"),
                    sweep_chart(run, scenario, sw, true),
                );
                let _ = writeln!(
                    md,
                    "![{}: registers per thread against {}]({name})\n",
                    md_cell(scenario),
                    md_cell(&sw.key)
                );
            }
        }
    }

    if let Some(c) = comparison {
        md.push_str("\n## Comparison\n\n");
        if !c.rows.is_empty() {
            let name = add_svg(&mut rep, "comparison-speedup".into(), speedup_chart(c));
            let _ = writeln!(md, "![speedup base/new with 95 % CI]({name})\n");
        }
        md.push_str(&to_markdown(c));
    }
    rep.markdown = std::mem::take(md);
    rep
}

/// One line naming the run(s), device(s) and row counts.
fn run_summary(run: &RunData) -> String {
    let distinct = |col: &str| -> Vec<String> {
        let mut v: Vec<String> = Vec::new();
        for r in &run.results {
            let s = r.get(col).to_string();
            if !s.is_empty() && !v.contains(&s) {
                v.push(s);
            }
        }
        v
    };
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
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for r in &run.results {
        *counts.entry(r.status()).or_default() += 1;
    }
    let counts: Vec<String> = counts.iter().map(|(s, n)| format!("{n} {s}")).collect();
    let runs: Vec<String> = distinct("run_id")
        .iter()
        .map(|r| format!("`{r}`"))
        .collect();
    let mut s = format!("Run {}", runs.join(", "));
    if !devices.is_empty() {
        let devices: Vec<String> = devices.iter().map(|d| md_cell(d)).collect();
        let _ = write!(s, " on {}", devices.join("; "));
    }
    let _ = write!(
        s,
        ": {} rows ({}).\n\n",
        run.results.len(),
        counts.join(", ")
    );
    s.push_str(
        "Times are medians of the timed repetitions with their 95 % bootstrap CI (whiskers in \
         the charts); CV is the coefficient of variation.\n",
    );
    s
}

/// Label of a row within its scenario: the variant, plus params and mode when they vary.
fn row_label(r: &ResultRecord, multi_params: bool, multi_mode: bool) -> String {
    let mut s = r.get("variant").to_string();
    if multi_params && !r.get("params").is_empty() {
        let _ = write!(s, " [{}]", r.get("params"));
    }
    if multi_mode {
        let _ = write!(s, " ({})", r.mode());
    }
    s
}

fn varies<'a>(rows: &[&'a ResultRecord], f: impl Fn(&'a ResultRecord) -> &'a str) -> bool {
    rows.windows(2).any(|w| f(w[0]) != f(w[1]))
        && rows.iter().map(|r| f(r)).collect::<BTreeSet<_>>().len() > 1
}

fn medians_chart(scenario: &str, rows: &[&ResultRecord]) -> (String, String) {
    let multi_params = varies(rows, |r| r.get("params"));
    let multi_mode = varies(rows, |r| r.mode());
    let max = rows
        .iter()
        .filter_map(|r| r.num("median_ci_high_ns").or(r.num("median_ns")))
        .fold(0.0, f64::max);
    let (div, unit) = time_unit(max);
    let bars: Vec<Bar> = rows
        .iter()
        .map(|r| {
            let m = r.num("median_ns").filter(|_| r.status() == "ok");
            Bar {
                label: row_label(r, multi_params, multi_mode),
                value: m.map(|v| v / div),
                lo: m.and(r.num("median_ci_low_ns")).map(|v| v / div),
                hi: m.and(r.num("median_ci_high_ns")).map(|v| v / div),
                color: svg::BLUE,
                note: match m {
                    Some(v) => fmt_time(v),
                    None => r.status().replace('_', " "),
                },
            }
        })
        .collect();
    let mut subtitle = String::new();
    if !multi_params && !rows.is_empty() && !rows[0].get("params").is_empty() {
        subtitle = rows[0].get("params").replace(';', ", ");
    }
    if let Some(d) = rows
        .first()
        .map(|r| r.get("device_name"))
        .filter(|d| !d.is_empty())
    {
        if subtitle.is_empty() {
            subtitle = d.to_string();
        } else {
            subtitle = format!("{d} · {subtitle}");
        }
    }
    let title = format!("{scenario}: median time per variant (95 % CI)");
    let chart = svg::bar_chart(
        &title,
        &subtitle,
        &format!("median time ({unit}), shorter is faster"),
        false,
        &bars,
        &[],
    );
    (chart, title)
}

/// Registers per thread: the results.csv column, or for runs written before it existed the
/// driver's "Register Count" executable statistic from metrics.csv (single-pass variants).
fn registers(run: &RunData, r: &ResultRecord) -> Option<f64> {
    r.num("registers_per_thread").or_else(|| {
        let key = r.key();
        let found = run
            .metrics_of(&key)
            .find(|m| m.source == "executable_statistic" && m.name == "Register Count")
            .map(|m| m.value);
        found
    })
}

fn variant_table(run: &RunData, rows: &[&ResultRecord]) -> String {
    let mut t = String::from(
        "| variant | params | mode | median | 95 % CI | CV % | GB/s | registers | occupancy | status |\n\
         |---|---|---|--:|--:|--:|--:|--:|--:|---|\n",
    );
    let dash = || "-".to_string();
    for r in rows {
        let (ci, median) = match r.num("median_ns") {
            Some(m) => {
                let (div, unit) = time_unit(m);
                let ci = match (r.num("median_ci_low_ns"), r.num("median_ci_high_ns")) {
                    (Some(l), Some(h)) => format!("{} – {} {unit}", sig(l / div), sig(h / div)),
                    _ => dash(),
                };
                (ci, fmt_time(m))
            }
            None => (dash(), dash()),
        };
        let status = match (r.status(), r.get("reason")) {
            (s, "") => s.to_string(),
            (s, why) => format!("{s}: {why}"),
        };
        let num = |c: &str, f: fn(f64) -> String| r.num(c).map(f).unwrap_or_else(dash);
        let _ = writeln!(
            t,
            "| {} | {} | {} | {median} | {ci} | {} | {} | {} | {} | {} |",
            md_cell(r.get("variant")),
            md_cell(r.get("params")),
            md_cell(r.mode()),
            num("cv_pct", |v| format!("{v:.1}")),
            num("gbytes_per_s", sig),
            registers(run, r).map_or_else(dash, |v| format!("{v:.0}")),
            num("occupancy_pct", |v| format!("{v:.0} %")),
            md_cell(&status)
        );
    }
    t
}

/// A param or define that takes at least three numeric values within one series.
struct Sweep<'a> {
    key: String,
    /// Dimensions that hold one value for every swept row, for the subtitle.
    constant: String,
    series: Vec<SweepSeries<'a>>,
}

struct SweepSeries<'a> {
    name: String,
    /// (x, row), sorted by x, one row per x.
    rows: Vec<(f64, &'a ResultRecord)>,
}

/// Params (`k=v;…`) and defines (`K=V;…`) of a row; params win a name clash.
fn dims(r: &ResultRecord) -> BTreeMap<String, String> {
    let mut m = BTreeMap::new();
    for col in ["defines", "params"] {
        for kv in r.get(col).split(';').filter(|s| !s.is_empty()) {
            if let Some((k, v)) = kv.split_once('=') {
                m.insert(k.trim().to_string(), v.trim().to_string());
            }
        }
    }
    m
}

/// Sweeps over the ok rows of a scenario: every param or define with ≥ 3 numeric values in
/// some series (rows that agree on every other varying dimension). A key whose values equal
/// another's on every row (a define `WG = "{wg}"` that copies a param) is the same sweep and
/// is shown once, under the params name.
fn find_sweeps<'a>(rows: &[&'a ResultRecord]) -> Vec<Sweep<'a>> {
    let ok: Vec<(&ResultRecord, BTreeMap<String, String>)> = rows
        .iter()
        .filter(|r| r.status() == "ok" && r.num("median_ns").is_some())
        .map(|r| {
            let mut d = dims(r);
            // Not params or defines, but they tell variants apart (e.g. `-sg32` variants).
            d.insert("\u{0}mode".into(), r.mode().to_string());
            let sg = r.get("subgroup_size_requested");
            if !sg.is_empty() {
                d.insert("\u{0}subgroup".into(), sg.to_string());
            }
            (*r, d)
        })
        .collect();
    // Candidate keys, params first (their names are what users set on the command line).
    let mut keys: Vec<String> = Vec::new();
    for from_params in [true, false] {
        for (r, _) in &ok {
            let col = if from_params { "params" } else { "defines" };
            for kv in r.get(col).split(';') {
                if let Some((k, _)) = kv.split_once('=') {
                    let k = k.trim().to_string();
                    if !keys.contains(&k) {
                        keys.push(k);
                    }
                }
            }
        }
    }
    let num_values = |k: &str| -> Option<BTreeSet<u64>> {
        let mut set = BTreeSet::new();
        for (_, d) in &ok {
            if let Some(v) = d.get(k) {
                set.insert(v.parse::<f64>().ok().filter(|x| x.is_finite())?.to_bits());
            }
        }
        Some(set)
    };
    let is_alias = |a: &str, b: &str| {
        ok.iter().all(|(_, d)| d.get(a) == d.get(b)) && ok.iter().any(|(_, d)| d.contains_key(a))
    };

    let mut sweeps = Vec::new();
    let mut taken: Vec<String> = Vec::new();
    for k in &keys {
        if taken.iter().any(|t| is_alias(t, k)) {
            continue;
        }
        match num_values(k) {
            Some(v) if v.len() >= 3 => {}
            _ => continue,
        }
        let with_k: Vec<&(&ResultRecord, BTreeMap<String, String>)> =
            ok.iter().filter(|(_, d)| d.contains_key(k)).collect();
        // Other dimensions in `keys` order (params first); copies of the swept key are out.
        let mut others: Vec<String> = Vec::new();
        let extra = ["\u{0}subgroup".to_string(), "\u{0}mode".to_string()];
        for j in keys.iter().chain(&extra) {
            if j == k || is_alias(k, j) || others.contains(j) {
                continue;
            }
            others.push(j.clone());
        }
        // Group by every other dimension, keep series of ≥ 2 points, then name the series by
        // the dimensions that still differ between the kept ones.
        type Group<'r> = (Vec<Option<String>>, Vec<(f64, &'r ResultRecord)>);
        let mut groups: Vec<Group<'a>> = Vec::new();
        for (r, d) in &with_k {
            let id: Vec<Option<String>> = others.iter().map(|j| d.get(j).cloned()).collect();
            let x: f64 = d[k].parse().unwrap_or(f64::NAN);
            match groups.iter_mut().find(|(g, _)| *g == id) {
                Some((_, pts)) => {
                    if !pts.iter().any(|(px, _)| *px == x) {
                        pts.push((x, *r));
                    }
                }
                None => groups.push((id, vec![(x, *r)])),
            }
        }
        groups.retain(|(_, pts)| pts.len() >= 2);
        if !groups.iter().any(|(_, pts)| pts.len() >= 3) {
            continue;
        }
        let mut varying = Vec::new();
        let mut constant = Vec::new();
        for (i, j) in others.iter().enumerate() {
            let vals: BTreeSet<&Option<String>> = groups.iter().map(|(g, _)| &g[i]).collect();
            let name = j.trim_start_matches('\u{0}');
            if vals.len() > 1 {
                // A dimension that moves in lockstep with one already named adds nothing.
                if !varying.iter().any(|&v: &usize| is_alias(&others[v], j)) {
                    varying.push(i);
                }
            } else if let Some(Some(v)) = vals.into_iter().next() {
                constant.push(format!("{name}={v}"));
            }
        }
        taken.push(k.clone());
        sweeps.push(Sweep {
            key: k.clone(),
            constant: constant.join(", "),
            series: groups
                .into_iter()
                .map(|(id, mut rows)| {
                    rows.sort_by(|a, b| a.0.total_cmp(&b.0));
                    let name = varying
                        .iter()
                        .map(|&i| {
                            let v = id[i].as_deref().unwrap_or("-");
                            format!("{}={v}", others[i].trim_start_matches('\u{0}'))
                        })
                        .collect::<Vec<_>>()
                        .join(", ");
                    SweepSeries { name, rows }
                })
                .collect(),
        });
    }
    sweeps
}

fn sweep_chart(run: &RunData, scenario: &str, sw: &Sweep, want_registers: bool) -> String {
    let xs: Vec<f64> = sw
        .series
        .iter()
        .flat_map(|s| s.rows.iter().map(|p| p.0))
        .collect();
    let (xmin, xmax) = xs
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), x| {
            (a.min(*x), b.max(*x))
        });
    let log_x = xmin > 0.0 && xmax / xmin >= 8.0;
    let max_ns = sw
        .series
        .iter()
        .flat_map(|s| {
            s.rows
                .iter()
                .filter_map(|(_, r)| r.num("median_ci_high_ns").or(r.num("median_ns")))
        })
        .fold(0.0, f64::max);
    let (div, unit) = time_unit(max_ns);
    let series: Vec<Series> = sw
        .series
        .iter()
        .map(|s| Series {
            name: s.name.clone(),
            points: s
                .rows
                .iter()
                .filter_map(|(x, r)| {
                    if want_registers {
                        registers(run, r).map(|y| Point {
                            x: *x,
                            y,
                            lo: None,
                            hi: None,
                        })
                    } else {
                        r.num("median_ns").map(|m| Point {
                            x: *x,
                            y: m / div,
                            lo: r.num("median_ci_low_ns").map(|v| v / div),
                            hi: r.num("median_ci_high_ns").map(|v| v / div),
                        })
                    }
                })
                .collect(),
        })
        .filter(|s| !s.points.is_empty())
        .collect();
    let x_label = if log_x {
        format!("{} (log scale)", sw.key)
    } else {
        sw.key.clone()
    };
    if want_registers {
        svg::line_chart(
            &format!("{scenario}: registers per thread against {}", sw.key),
            &sw.constant,
            &x_label,
            "registers per thread",
            &series,
            log_x,
        )
    } else {
        svg::line_chart(
            &format!("{scenario}: median time against {} (95 % CI)", sw.key),
            &sw.constant,
            &x_label,
            &format!("median time ({unit})"),
            &series,
            log_x,
        )
    }
}

fn speedup_chart(c: &Comparison) -> String {
    let bars: Vec<Bar> = c
        .rows
        .iter()
        .map(|p| {
            let variants = if p.variant_base == p.variant_new {
                p.variant_base.clone()
            } else {
                format!("{} → {}", p.variant_base, p.variant_new)
            };
            let mut label = format!("{}/{variants}", p.scenario);
            if !p.params.is_empty() {
                let _ = write!(label, " [{}]", p.params);
            }
            let comparable = !matches!(p.verdict, Verdict::NotComparable(_));
            let speedup = p.speedup.filter(|_| comparable);
            // The CI of new/base inverts into a CI of base/new with its ends swapped.
            let ci = p.ratio_ci.filter(|_| comparable);
            Bar {
                label,
                value: speedup,
                lo: ci.map(|c| 1.0 / c.1),
                hi: ci.map(|c| 1.0 / c.0),
                color: match p.verdict {
                    Verdict::Improved => svg::GREEN,
                    Verdict::Regressed => svg::RED,
                    _ => svg::GREY,
                },
                note: match speedup {
                    Some(s) => format!("{s:.3}× {}", p.verdict.as_str()),
                    None => "not comparable".into(),
                },
            }
        })
        .collect();
    svg::bar_chart(
        "Speedup base/new (95 % CI)",
        &format!("right of 1.0 is faster; noise threshold ±{} %", c.noise_pct),
        "speedup (base time / new time, log scale)",
        true,
        &bars,
        &[
            (svg::GREEN, "improved".into()),
            (svg::RED, "regressed".into()),
            (svg::GREY, "no change / not comparable".into()),
        ],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A register-pressure sweep as an NVIDIA run would write it (registers column present).
    fn pressure_run() -> RunData {
        let mut run = RunData::default();
        let regs = [
            (8, 26, 0),
            (16, 36, 0),
            (32, 52, 0),
            (64, 59, 0),
            (128, 64, 320),
        ];
        for (line, (nreg, r, spill)) in regs.iter().enumerate() {
            let median = 100_000.0
                + if *spill > 0 {
                    80_000.0
                } else {
                    *nreg as f64 * 300.0
                };
            let fields: BTreeMap<String, String> = [
                ("schema_version", "1".to_string()),
                ("run_id", "x".into()),
                ("scenario", "pressure".into()),
                ("variant", format!("nreg{nreg}")),
                ("status", "ok".into()),
                ("params", "n=1024".into()),
                ("defines", format!("NREG={nreg};WG=1024")),
                ("median_ns", median.to_string()),
                ("median_ci_low_ns", (median * 0.98).to_string()),
                ("median_ci_high_ns", (median * 1.03).to_string()),
                ("registers_per_thread", r.to_string()),
                ("spill_bytes_per_thread", spill.to_string()),
                ("occupancy_pct", "50".into()),
                ("mode", "warm".into()),
            ]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect();
            run.results.push(ResultRecord {
                line: line as u64 + 2,
                fields,
            });
        }
        run
    }

    #[test]
    fn register_sweep_gets_a_registers_chart() {
        let rep = report(&pressure_run(), None);
        let names: Vec<&str> = rep.svgs.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(
            names,
            [
                "pressure-medians.svg",
                "pressure-sweep-NREG.svg",
                "pressure-sweep-NREG-registers.svg"
            ]
        );
        assert!(
            rep.markdown
                .contains("| nreg128 | n=1024 | warm | 180 µs |"),
            "{}",
            rep.markdown
        );
        assert!(
            rep.markdown.contains("| 64 | 50 % | ok |"),
            "{}",
            rep.markdown
        );
        if let Ok(dir) = std::env::var("P3LAB_P3_DUMP_DIR") {
            write_report(&rep, Path::new(&dir)).unwrap();
        }
    }

    #[test]
    fn slugs_are_file_name_safe() {
        assert_eq!(slug("a b/c"), "a_b_c");
        assert_eq!(slug(""), "_");
        assert_eq!(slug("NREG"), "NREG");
    }
}
