//! Medians charts: one per params case and mode of a scenario, a bar (or, when the times span
//! decades, a dot on a log axis) per variant with its 95 % CI, fastest first, each noted with
//! how much slower than the fastest it is ("fastest" only where its interval clears the
//! others'; otherwise "lowest").
use super::*;
use crate::p3::charts::{self, Axis, Bar, BarChart};
use crate::results::RowStatus;

/// The medians charts of one scenario's rows, in order of first appearance of each
/// (params, mode).
pub(super) fn charts(scenario: &str, rows: &[&Record]) -> Vec<Chart> {
    let mut groups: Vec<((&str, &str), Vec<&Record>)> = Vec::new();
    for r in rows {
        let key = (r.get("params"), r.mode().label());
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, g)) => g.push(r),
            None => groups.push((key, vec![*r])),
        }
    }
    let cases: Vec<&str> = groups.iter().map(|((p, _), _)| *p).collect();
    let (case_labels, shared) = split_params(&cases);
    let modes: BTreeSet<&str> = groups.iter().map(|((_, m), _)| *m).collect();
    let device = rows
        .iter()
        .map(|r| r.get("device_name"))
        .find(|d| !d.is_empty())
        .unwrap_or("");
    groups
        .iter()
        .zip(&case_labels)
        .map(|(((_, mode), rows), case)| {
            let mut file = format!("{}-medians", slug(scenario));
            if !case.is_empty() {
                let _ = write!(file, "-{}", label_slug(case));
            }
            if modes.len() > 1 {
                let _ = write!(file, "-{}", slug(mode));
            }
            chart(scenario, rows, mode, case, &shared, device, file)
        })
        .collect()
}

fn chart(
    scenario: &str,
    rows: &[&Record],
    mode: &str,
    case: &str,
    shared: &[String],
    device: &str,
    file: String,
) -> Chart {
    let ok = |r: &Record| r.num("median_ns").filter(|_| r.status() == RowStatus::Ok);
    let medians: Vec<f64> = rows.iter().filter_map(|r| ok(r)).collect();
    let fastest = if medians.len() > 1 {
        medians.iter().copied().fold(f64::INFINITY, f64::min)
    } else {
        f64::NAN
    };
    // "fastest" only where the lowest median's interval clears every other's (issue 29: the
    // chart said fastest where the intervals overlapped); otherwise it is the lowest median.
    let clear = medians.len() > 1 && {
        let ci = |r: &Record| match (ok(r), r.num("median_ci_low_ns"), r.num("median_ci_high_ns")) {
            (Some(_), Some(lo), Some(hi)) if lo > 0.0 && hi >= lo => Some((lo, hi)),
            _ => None,
        };
        let best = rows.iter().find(|r| ok(r) == Some(fastest));
        match best.and_then(|b| ci(b)) {
            Some((_, hi)) => rows
                .iter()
                .filter(|r| ok(r).is_some() && ok(r) != Some(fastest))
                .all(|r| ci(r).is_some_and(|(lo, _)| lo > hi)),
            None => false,
        }
    };
    let word = if clear { "the fastest" } else { "the lowest" };
    let log = charts::spans_decades(medians.iter().copied());
    let max = rows
        .iter()
        .filter_map(|r| ok(r).and(r.num("median_ci_high_ns")).or(ok(r)))
        .fold(0.0, f64::max);
    let (div, unit) = time_unit(max.min(medians.iter().copied().fold(0.0, f64::max) * 4.0));
    // Fastest first, rows without a time last (each part in file order).
    let mut rows = rows.to_vec();
    rows.sort_by(|a, b| match (ok(a), ok(b)) {
        (Some(x), Some(y)) => x.total_cmp(&y),
        (x, y) => y.is_some().cmp(&x.is_some()),
    });
    let bars: Vec<Bar> = rows
        .iter()
        .map(|r| {
            let m = ok(r);
            let mut note = match m {
                Some(v) => fmt_time(v),
                None => r.status().as_str().replace('_', " "),
            };
            match m {
                Some(v) if v == fastest && clear => note.push_str(" · fastest"),
                Some(v) if v == fastest => note.push_str(" · lowest (intervals overlap)"),
                Some(v) if fastest.is_finite() && v >= 2.0 * fastest => {
                    let _ = write!(note, " · {:.2}× {word}", v / fastest);
                }
                Some(v) if fastest.is_finite() => {
                    let _ = write!(note, " · +{:.1} %", (v / fastest - 1.0) * 100.0);
                }
                _ => {}
            }
            Bar {
                label: r.get("variant").to_string(),
                value: m.map(|v| v / div),
                lo: m.and(r.num("median_ci_low_ns")).map(|v| v / div),
                hi: m.and(r.num("median_ci_high_ns")).map(|v| v / div),
                color: charts::BLUE,
                note,
            }
        })
        .collect();
    let mut what = vec![format!("mode={mode}")];
    if !case.is_empty() {
        what.push(case.to_string());
    }
    let mut subtitle = vec![what.join(" · ")];
    let mut context: Vec<String> = Vec::new();
    if !device.is_empty() {
        context.push(device.to_string());
    }
    if !shared.is_empty() {
        context.push(shared.join(", "));
    }
    if !context.is_empty() {
        subtitle.push(context.join(" · "));
    }
    let title = format!("{scenario}: median time per variant (95 % CI)");
    let x_label = if log {
        format!("median time ({unit}, log scale), left is faster")
    } else {
        format!("median time ({unit}), shorter is faster")
    };
    let svg = charts::bar_chart(&BarChart {
        title: &title,
        subtitle: subtitle.clone(),
        x_label,
        axis: if log { Axis::Log } else { Axis::Linear },
        bars: &bars,
        legend: &[],
    });
    Chart {
        file,
        caption: format!("{scenario}: median time per variant, {}", subtitle[0]),
        svg,
        notes: Vec::new(),
    }
}
