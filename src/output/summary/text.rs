//! The summary as it prints on stdout: one aligned table per params case and mode, one time
//! unit per table, the fastest marked, the verdict sentence and the variants not run.
use super::{CaseSummary, ModeSummary, Ratio, Summary};
use crate::output::ansi::{self, paint};
use crate::results::format::{fmt_ratio_ci, ratio_words};

pub use crate::results::format::{decimals, fmt_time, time_unit};

/// The unit, divisor and decimals of a mode's table.
pub fn table_format(m: &ModeSummary) -> (f64, &'static str, usize) {
    let smallest = m
        .variants
        .iter()
        .map(|t| t.median_ns)
        .fold(f64::INFINITY, f64::min);
    let (div, unit) = time_unit(if smallest.is_finite() { smallest } else { 0.0 });
    (div, unit, decimals(smallest / div))
}

/// `0.893 [0.81, 0.99]`: the time ratio to the baseline with its interval (a row without a
/// CI, or one reaching below zero, has none: `(no CI)`).
pub fn fmt_ratio(r: &Ratio) -> String {
    let ci = match (r.ci_low, r.ci_high) {
        (Some(lo), Some(hi)) => Some((lo, hi)),
        _ => None,
    };
    fmt_ratio_ci(r.ratio, ci)
}

/// `1.12× faster` where the interval clears 1, `no clear difference` where it holds 1 (or
/// there is none), `-` for the baseline.
fn ratio_cell_words(r: &Ratio) -> String {
    match (r.ci_low, r.ci_high) {
        (Some(lo), Some(hi)) if hi < 1.0 || lo > 1.0 => ratio_words(r.ratio),
        _ => "no clear difference".into(),
    }
}

/// The sentence under a table: hyperfine's "X ran 1.23× faster than Y" where the intervals
/// say so; otherwise why no variant is called fastest (issue 29: a variant whose interval
/// overlaps others, or that missed its CI target, is not marked fastest).
pub fn verdict_line(m: &ModeSummary) -> Option<String> {
    if let Some(u) = &m.unclear {
        let mut why = Vec::new();
        if !u.overlaps.is_empty() {
            let names = if u.overlaps.len() > 4 {
                format!(
                    "{} and {} more",
                    u.overlaps[..3].join(", "),
                    u.overlaps.len() - 3
                )
            } else {
                u.overlaps.join(", ")
            };
            why.push(format!("its interval overlaps {names}"));
        }
        if let Some((h, t, stop)) = &u.missed {
            why.push(format!(
                "its CI (±{h:.1} %) missed the {t} % target ({})",
                stop_words(stop)
            ));
        }
        return Some(format!(
            "{} has the lowest median, but {}: no clear fastest",
            u.lowest,
            why.join(" and ")
        ));
    }
    let f = m.variants.iter().find(|t| t.fastest)?;
    let base = m.variants.iter().find(|t| t.baseline)?;
    let (r, other, tail) = if !f.baseline {
        (f.vs_baseline?, &base.variant, "")
    } else {
        // The baseline is fastest: against the next fastest.
        let next = m
            .variants
            .iter()
            .filter(|t| !t.baseline)
            .min_by(|a, b| a.median_ns.total_cmp(&b.median_ns))?;
        let r = super::ratio_to(next, base)?;
        (r, &next.variant, " (the baseline is the fastest)")
    };
    Some(format!(
        "{} ran {} than {other}{tail} (time ratio {})",
        f.variant,
        ratio_words(r.ratio),
        fmt_ratio(&r)
    ))
}

/// A stop reason for people.
fn stop_words(stop: &str) -> &'static str {
    match stop {
        "budget" => "stopped at the time budget",
        "max_rounds" => "stopped at --max-rounds",
        _ => "stopped early",
    }
}

/// The run-wide line on rows that missed their CI target, and on a run without peaks: None
/// when every row met its target and had a limiter.
pub fn missed_line(s: &Summary) -> Option<String> {
    let n: usize = s.missed_target.values().sum();
    if n == 0 {
        return None;
    }
    let why = s
        .missed_target
        .iter()
        .map(|(k, v)| format!("{v} {}", stop_words(k)))
        .collect::<Vec<_>>()
        .join(", ");
    let target = s
        .ci_target_pct
        .map(|t| format!("the {t} % CI target"))
        .unwrap_or_else(|| "their CI target".into());
    Some(format!(
        "{n} of {} timed rows missed {target} ({why}): their intervals are wider than asked (results.csv ci_half_width_pct; --budget-ms or --max-rounds buys more rounds)",
        s.timed
    ))
}

/// The case's heading: `scenario · params · mode` (and the device in a merged folder).
pub fn heading(c: &CaseSummary, mode: &str) -> String {
    let mut parts = vec![c.scenario.clone()];
    if !c.params.is_empty() {
        parts.push(c.params.clone());
    }
    if !mode.is_empty() {
        parts.push(mode.to_string());
    }
    if let Some(d) = &c.device {
        parts.push(d.clone());
    }
    parts.join(" · ")
}

/// The first line of a reason, at most `max` characters.
fn short(reason: &str, max: usize) -> String {
    let line = reason.lines().next().unwrap_or("");
    if line.chars().count() > max {
        format!("{}…", line.chars().take(max - 1).collect::<String>())
    } else if reason.lines().count() > 1 {
        format!("{line} …")
    } else {
        line.to_string()
    }
}

/// Lines of `not_run` shown per case in the text; the rest are counted.
const NOT_RUN_SHOWN: usize = 6;

/// The summary as it prints on stdout; `color` only when stdout is a terminal.
pub fn render_text(s: &Summary, color: bool) -> String {
    let mut out = String::new();
    for (ci, c) in s.cases.iter().enumerate() {
        if ci > 0 {
            out.push('\n');
        }
        for m in &c.modes {
            out.push_str(&paint(color, ansi::BOLD, &heading(c, &m.mode)));
            out.push('\n');
            if let Some(n) = &m.note {
                out.push_str(&format!("  {}\n", paint(color, ansi::YELLOW, n)));
            }
            if m.variants.is_empty() {
                out.push_str("  no variant was timed\n");
                continue;
            }
            out.push_str(&mode_table(m, color));
            if let Some(v) = verdict_line(m) {
                out.push_str(&format!("  {v}\n"));
            }
        }
        for (i, n) in c.not_run.iter().enumerate() {
            if i == NOT_RUN_SHOWN {
                let more: usize = c.not_run[i..].iter().map(|n| n.variants.len()).sum();
                out.push_str(&format!("  … {more} more not run; see results.csv\n"));
                break;
            }
            let style = if n.status == "unsupported" {
                ansi::YELLOW
            } else {
                ansi::RED
            };
            let names = if n.variants.len() > 4 {
                format!(
                    "{} and {} more",
                    n.variants[..3].join(", "),
                    n.variants.len() - 3
                )
            } else {
                n.variants.join(", ")
            };
            let status = paint(color, style, &format!("{} {}", n.variants.len(), n.status));
            let reason = if n.reason.is_empty() {
                String::new()
            } else {
                format!(": {}", short(&n.reason, 120))
            };
            out.push_str(&format!("  {status} ({names}){reason}\n"));
        }
    }
    if let Some(l) = missed_line(s) {
        out.push_str(&format!("\n{}\n", paint(color, ansi::YELLOW, &l)));
    }
    out
}

/// The rows of one mode's table, aligned; colour after padding. The limiter and units
/// columns appear when a variant has them (a run with peaks or counters).
fn mode_table(m: &ModeSummary, color: bool) -> String {
    let (div, unit, d) = table_format(m);
    let base = m.baseline.as_deref().unwrap_or("-");
    let p3 = m
        .variants
        .iter()
        .any(|t| t.limiter.is_some() || !t.units.is_empty());
    let mut head = vec![
        "variant".to_string(),
        "median".to_string(),
        "95 % CI".to_string(),
        format!("time ratio vs {base}"),
        String::new(),
    ];
    if p3 {
        head.push("limiter".into());
        head.push("% of peak".into());
    }
    let rows: Vec<Vec<String>> = m
        .variants
        .iter()
        .map(|t| {
            let ci = match (t.median_ci_low_ns, t.median_ci_high_ns) {
                // A t-interval of two or three rounds can reach below zero: no time is
                // negative, so it bounds nothing (issue 29: `[-319.66, 451.62] ms`).
                (Some(lo), Some(_)) if lo <= 0.0 => "no CI (too few rounds)".into(),
                (Some(lo), Some(hi)) => format!("[{:.d$}, {:.d$}]", lo / div, hi / div),
                _ => "-".into(),
            };
            let (r, words) = match (&t.vs_baseline, t.baseline) {
                (_, true) => ("baseline".to_string(), String::new()),
                (Some(r), false) => (fmt_ratio(r), ratio_cell_words(r)),
                (None, false) => ("-".into(), String::new()),
            };
            let mut row = vec![
                t.variant.clone(),
                format!("{:.d$} {unit}", t.median_ns / div),
                ci,
                r,
                words,
            ];
            if p3 {
                row.push(t.limiter.clone().unwrap_or_else(|| "-".into()));
                // The busiest four: the report and the JSON have them all.
                row.push(crate::results::units::units_text_top(&t.units, 4));
            }
            row
        })
        .collect();
    // A column blank in every row (no ratio in words anywhere) is left out.
    let keep: Vec<usize> = (0..head.len())
        .filter(|&i| !head[i].is_empty() || rows.iter().any(|r| !r[i].is_empty()))
        .collect();
    let right_all = [false, true, true, true, false, false, false];
    let pick = |r: &[String]| keep.iter().map(|&i| r[i].clone()).collect::<Vec<_>>();
    let head = pick(&head);
    let rows: Vec<Vec<String>> = rows.iter().map(|r| pick(r)).collect();
    let right: Vec<bool> = keep.iter().map(|&i| right_all[i]).collect();
    let n = head.len();
    let width = |i: usize| {
        rows.iter()
            .map(|r| r[i].chars().count())
            .chain([head[i].chars().count()])
            .max()
            .unwrap_or(0)
    };
    let w: Vec<usize> = (0..n).map(width).collect();
    let line = |r: &[String]| {
        r.iter()
            .enumerate()
            .map(|(i, c)| {
                if right[i] {
                    format!("{c:>w$}", w = w[i])
                } else {
                    format!("{c:<w$}", w = w[i])
                }
            })
            .collect::<Vec<_>>()
            .join("  ")
            .trim_end()
            .to_string()
    };
    let mut out = format!("    {}\n", paint(color, ansi::DIM, &line(&head)));
    for (t, r) in m.variants.iter().zip(&rows) {
        let text = line(r);
        let moved = match t.placement_pct {
            Some(p) => format!("  {}", paint(color, ansi::YELLOW, &placement_tag(p))),
            None => String::new(),
        };
        if t.fastest {
            out.push_str(&format!(
                "  {} {}  {}{moved}\n",
                paint(color, ansi::GREEN_BOLD, "*"),
                paint(color, ansi::GREEN_BOLD, &text),
                paint(color, ansi::GREEN, "fastest")
            ));
        } else if moved.is_empty() {
            out.push_str(&format!("    {text}\n"));
        } else {
            out.push_str(&format!("    {text}{moved}\n"));
        }
    }
    if m.variants.iter().any(|t| t.placement_pct.is_some()) {
        out.push_str(&format!(
            "  {}\n",
            paint(color, ansi::YELLOW, PLACEMENT_NOTE)
        ));
    }
    out
}

/// The mark of a variant whose time moved with its data: `moves +15.3 % with its data`.
pub fn placement_tag(pct: f64) -> String {
    format!("moves {pct:+.1} % with its data")
}

/// Under a table with such a variant.
pub const PLACEMENT_NOTE: &str = "moves … with its data: its time changed when the case's buffers and images moved to new memory (results.csv placement); with `--placements auto` (the default) its case was measured over several placements and the interval covers them; with `--placements 1` the median holds for where the data sat";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn four_significant_digits_in_one_unit_per_table() {
        assert_eq!(time_unit(812.0), (1.0, "ns"));
        assert_eq!(time_unit(89_018.0), (1e3, "µs"));
        assert_eq!(time_unit(1.5e6), (1e6, "ms"));
        assert_eq!(decimals(236.1), 1);
        assert_eq!(decimals(12.31), 2);
        assert_eq!(decimals(1.234), 3);
        assert_eq!(decimals(0.5), 3);
        assert_eq!(decimals(1234.0), 0);
    }
}
