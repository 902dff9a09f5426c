//! Comparison charts: per scenario (split by mode, then params case, past [`MAX_BARS`] pairs)
//! the time ratio new/base of every pair (below 1 faster: the one direction p3lab's outputs
//! use) with its 95 % CI on a log axis around 1, coloured by
//! verdict, naming the runs compared. Labels keep only what tells the pairs apart; what they
//! share goes into the subtitle.
use super::*;
use crate::p3::charts::{self, Axis, Bar, BarChart};
use crate::p3::compare::{PairRow, Verdict};

/// Most pairs in one chart.
const MAX_BARS: usize = 40;

pub(super) fn charts(c: &Comparison, base_line: &str) -> Vec<Chart> {
    let mut scenarios: Vec<(&str, Vec<&PairRow>)> = Vec::new();
    for p in &c.rows {
        match scenarios.iter_mut().find(|(s, _)| *s == p.scenario) {
            Some((_, v)) => v.push(p),
            None => scenarios.push((&p.scenario, vec![p])),
        }
    }
    let mut out = Vec::new();
    for (scenario, rows) in scenarios {
        let mut chunks: Vec<(String, Vec<&PairRow>)> = vec![(String::new(), rows)];
        for by in [
            (|p: &PairRow| p.mode.clone()) as fn(&PairRow) -> String,
            |p: &PairRow| p.params.clone(),
        ] {
            if chunks.iter().all(|(_, r)| r.len() <= MAX_BARS) {
                break;
            }
            chunks = chunks
                .into_iter()
                .flat_map(|(name, rows)| split(name, rows, by))
                .collect();
        }
        let file = format!("comparison-{}-ratio", slug(scenario));
        for (suffix, rows) in chunks {
            let file = if suffix.is_empty() {
                file.clone()
            } else {
                format!("{file}-{}", slug(&suffix))
            };
            out.push(chart(c, base_line, scenario, &rows, file));
        }
    }
    out
}

/// Splits `rows` by `by` when that leaves more than one part; parts are named `name-value`.
fn split(
    name: String,
    rows: Vec<&PairRow>,
    by: fn(&PairRow) -> String,
) -> Vec<(String, Vec<&PairRow>)> {
    if rows.len() <= MAX_BARS {
        return vec![(name, rows)];
    }
    let mut parts: Vec<(String, Vec<&PairRow>)> = Vec::new();
    for r in rows {
        let v = by(r);
        match parts.iter_mut().find(|(k, _)| *k == v) {
            Some((_, p)) => p.push(r),
            None => parts.push((v, vec![r])),
        }
    }
    if parts.len() == 1 {
        let (_, rows) = parts.pop().expect("one part");
        return vec![(name, rows)];
    }
    let (labels, _) = split_params(&parts.iter().map(|(k, _)| k.as_str()).collect::<Vec<_>>());
    parts
        .into_iter()
        .zip(labels)
        .map(|((v, rows), label)| {
            let part = if label.is_empty() { v } else { label };
            let part = label_slug(&part);
            let name = if name.is_empty() {
                part
            } else {
                format!("{name}-{part}")
            };
            (name, rows)
        })
        .collect()
}

fn variants(p: &PairRow) -> String {
    if p.variant_base == p.variant_new {
        p.variant_base.clone()
    } else {
        format!("{} → {}", p.variant_base, p.variant_new)
    }
}

fn chart(
    c: &Comparison,
    base_line: &str,
    scenario: &str,
    rows: &[&PairRow],
    file: String,
) -> Chart {
    let names: Vec<String> = rows.iter().map(|p| variants(p)).collect();
    let same_variants = names.windows(2).all(|w| w[0] == w[1]);
    let (params, shared) =
        split_params(&rows.iter().map(|p| p.params.as_str()).collect::<Vec<_>>());
    let same_mode = rows.windows(2).all(|w| w[0].mode == w[1].mode);
    let bars: Vec<Bar> = rows
        .iter()
        .zip(&names)
        .zip(&params)
        .map(|((p, name), params)| {
            let mut parts: Vec<String> = Vec::new();
            if !same_variants {
                parts.push(name.clone());
            }
            if !params.is_empty() {
                parts.push(format!("[{params}]"));
            }
            if !same_mode {
                parts.push(format!("({})", p.mode));
            }
            if parts.is_empty() {
                parts.push(name.clone());
            }
            let comparable = !matches!(p.verdict, Verdict::NotComparable(_));
            let ratio = p.ratio().filter(|_| comparable);
            let ci = p.ratio_ci.filter(|_| comparable);
            Bar {
                label: parts.join(" "),
                value: ratio,
                lo: ci.map(|c| c.0),
                hi: ci.map(|c| c.1),
                color: match p.verdict {
                    Verdict::Improved => charts::GREEN,
                    Verdict::Regressed => charts::RED,
                    _ => charts::GREY,
                },
                note: match ratio {
                    Some(r) => format!(
                        "{r:.3} ({}) {}",
                        crate::results::format::ratio_words(r),
                        p.verdict_word()
                    ),
                    None => "not comparable".into(),
                },
            }
        })
        .collect();
    let mut shared_line: Vec<String> = Vec::new();
    if same_variants && rows.len() > 1 {
        shared_line.push(names[0].clone());
    }
    if same_mode {
        if let Some(p) = rows.first() {
            shared_line.push(format!("mode={}", p.mode));
        }
    }
    if !shared.is_empty() {
        shared_line.push(shared.join(", "));
    }
    let mut subtitle = vec![base_line.to_string()];
    if !shared_line.is_empty() {
        subtitle.push(shared_line.join(" · "));
    }
    subtitle.push(format!(
        "left of 1.0 is faster; noise threshold ±{} %",
        c.noise_pct
    ));
    let title = format!("{scenario}: time ratio new/base (95 % CI)");
    let svg = charts::bar_chart(&BarChart {
        title: &title,
        subtitle,
        x_label: "time ratio (new time / base time, log scale; below 1 faster)".into(),
        axis: Axis::Ratio,
        bars: &bars,
        legend: &[
            (charts::GREEN, "improved".into()),
            (charts::RED, "regressed".into()),
            (charts::GREY, "no change / not comparable".into()),
        ],
    });
    let mut caption = format!("{scenario}: time ratio new/base with 95 % CI");
    if !shared_line.is_empty() {
        let _ = write!(caption, ", {}", shared_line.join(" · "));
    }
    Chart {
        file,
        caption,
        svg,
        notes: Vec::new(),
    }
}
