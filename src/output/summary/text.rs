//! The summary as it prints on stdout: one aligned table per params case and mode, one time
//! unit per table, the fastest marked, the verdict sentence and the variants not run.
use super::{CaseSummary, ModeSummary, Speedup, Summary};
use crate::output::ansi::{self, paint};

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

/// `1.06 [1.04, 1.08]`: two decimals, three when the interval is narrower than 0.02.
pub fn fmt_speedup(s: &Speedup) -> String {
    match (s.ci_low, s.ci_high) {
        (Some(lo), Some(hi)) => {
            let d = if hi - lo < 0.02 { 3 } else { 2 };
            format!("{:.d$} [{lo:.d$}, {hi:.d$}]", s.ratio)
        }
        // A row without a CI, or one reaching below zero (two rounds): no bounded interval.
        _ => format!("{:.2} (no CI)", s.ratio),
    }
}

/// The sentence under a table, hyperfine's "X ran 1.23 ± 0.04 times faster than Y".
pub fn verdict_line(m: &ModeSummary) -> Option<String> {
    let f = m.variants.iter().find(|t| t.fastest)?;
    let base = m.variants.iter().find(|t| t.baseline)?;
    let (s, other, tail) = if !f.baseline {
        (f.speedup?, &base.variant, "")
    } else {
        // The baseline is fastest: against the next fastest.
        let next = m
            .variants
            .iter()
            .filter(|t| !t.baseline)
            .min_by(|a, b| a.median_ns.total_cmp(&b.median_ns))?;
        let s = super::speedup(next, base)?;
        (s, &next.variant, " (the baseline is the fastest)")
    };
    let noise = match (s.ci_low, s.ci_high) {
        (Some(lo), Some(hi)) if lo <= 1.0 && hi >= 1.0 => {
            "; the interval includes 1: no clear difference"
        }
        _ => "",
    };
    Some(format!(
        "{} ran {} times faster than {other}{tail}{noise}",
        f.variant,
        fmt_speedup(&s)
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
    out
}

/// The rows of one mode's table, aligned; colour after padding.
fn mode_table(m: &ModeSummary, color: bool) -> String {
    let (div, unit, d) = table_format(m);
    let base = m.baseline.as_deref().unwrap_or("-");
    let head = [
        "variant".to_string(),
        "median".to_string(),
        "95 % CI".to_string(),
        format!("speedup vs {base}"),
    ];
    let rows: Vec<[String; 4]> = m
        .variants
        .iter()
        .map(|t| {
            let ci = match (t.median_ci_low_ns, t.median_ci_high_ns) {
                (Some(lo), Some(hi)) => format!("[{:.d$}, {:.d$}]", lo / div, hi / div),
                _ => "-".into(),
            };
            let sp = match (&t.speedup, t.baseline) {
                (_, true) => "baseline".to_string(),
                (Some(s), false) => fmt_speedup(s),
                (None, false) => "-".into(),
            };
            [
                t.variant.clone(),
                format!("{:.d$} {unit}", t.median_ns / div),
                ci,
                sp,
            ]
        })
        .collect();
    let width = |i: usize| {
        rows.iter()
            .map(|r| r[i].chars().count())
            .chain([head[i].chars().count()])
            .max()
            .unwrap_or(0)
    };
    let w: Vec<usize> = (0..4).map(width).collect();
    let line = |r: &[String; 4]| {
        format!(
            "{:<w0$}  {:>w1$}  {:>w2$}  {:>w3$}",
            r[0],
            r[1],
            r[2],
            r[3],
            w0 = w[0],
            w1 = w[1],
            w2 = w[2],
            w3 = w[3]
        )
    };
    let mut out = format!("    {}\n", paint(color, ansi::DIM, line(&head).trim_end()));
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
