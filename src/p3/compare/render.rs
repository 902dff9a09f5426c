//! Rendering a comparison: the terminal table, compare.csv and compare.md, and the number
//! formatting report.rs shares.
use super::*;
use crate::results::csv_safe;

// ---------------------------------------------------------------------------------------
// Number formatting shared with report.rs.

/// Full precision for CSV: Rust's shortest round-trip form, `.` decimals, "" for None.
fn or_dash(s: &str) -> &str {
    if s.is_empty() {
        "-"
    } else {
        s
    }
}

pub(crate) fn csv_num(x: Option<f64>) -> String {
    match x {
        Some(v) if v.is_finite() => format!("{v}"),
        _ => String::new(),
    }
}

pub(crate) use crate::results::format::{fmt_time, sig, time_unit};

pub(super) fn fmt_opt(x: Option<f64>, f: impl Fn(f64) -> String) -> String {
    x.map(f).unwrap_or_else(|| "-".into())
}

pub(super) fn fmt_metric(m: &MetricPair, x: Option<f64>) -> String {
    fmt_opt(x, |v| if m.unit == "ns" { fmt_time(v) } else { sig(v) })
}

pub(super) fn fmt_ratio(x: Option<f64>) -> String {
    // Three decimals; four significant digits for ratios under 0.1 (a 30× change).
    fmt_opt(x, |v| if v < 0.1 { sig(v) } else { format!("{v:.3}") })
}

pub(super) fn fmt_p(x: Option<f64>) -> String {
    fmt_opt(x, |p| {
        if p < 1e-4 {
            "<0.0001".into()
        } else {
            format!("{p:.4}")
        }
    })
}

pub(super) fn fmt_ci(ci: Option<(f64, f64)>) -> String {
    ci.map(|(l, h)| {
        if l < 0.1 {
            format!("[{}, {}]", sig(l), sig(h))
        } else {
            format!("[{l:.3}, {h:.3}]")
        }
    })
    .unwrap_or_else(|| "-".into())
}

/// Text table with the given alignment (true = right), widths by character count.
pub(super) fn aligned(rows: &[Vec<String>], right: &[bool], indent: &str) -> String {
    let cols = rows.iter().map(Vec::len).max().unwrap_or(0);
    let mut w = vec![0; cols];
    for r in rows {
        for (i, c) in r.iter().enumerate() {
            w[i] = w[i].max(c.chars().count());
        }
    }
    let mut out = String::new();
    for (ri, r) in rows.iter().enumerate() {
        let mut line = String::from(indent);
        for (i, c) in r.iter().enumerate() {
            let pad = w[i] - c.chars().count();
            if i > 0 {
                line.push_str("  ");
            }
            if right.get(i).copied().unwrap_or(false) {
                line.push_str(&" ".repeat(pad));
                line.push_str(c);
            } else {
                line.push_str(c);
                if i + 1 < r.len() {
                    line.push_str(&" ".repeat(pad));
                }
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
        if ri == 0 {
            let total: usize = w.iter().sum::<usize>() + 2 * cols.saturating_sub(1);
            out.push_str(indent);
            out.push_str(&"-".repeat(total));
            out.push('\n');
        }
    }
    out
}

/// The pair's marks: ` [cross-device]` (the sides ran on different devices or drivers),
/// ` [placement]` (the placement check moved a side's time or the ratio: `placement` says
/// how), ` [design]` (the sides were measured with different `fresh`); "" for none.
pub fn markers(p: &PairRow) -> String {
    let mut s = String::new();
    if p.cross_device {
        s.push_str(" [cross-device]");
    }
    if !p.placement.is_empty() {
        s.push_str(" [placement]");
    }
    if p.design_differs() {
        s.push_str(" [design]");
    }
    if !p.unsteady.is_empty() && !matches!(p.verdict, Verdict::Unstable(_)) {
        s.push_str(" [unsteady]");
    }
    s
}

/// What the CI rests on: `12 paired rounds`, `12/11 rounds`, `10/10 repetitions`.
pub(super) fn sample_size(p: &PairRow) -> String {
    match p.method {
        Some(Method::PairedRounds) => format!("{} paired rounds", p.n.unwrap_or(0)),
        Some(Method::UnpairedRounds) => format!("{}/{} rounds", p.n_base, p.n_new),
        Some(Method::Placements) => format!("{} placements", p.n.unwrap_or(0)),
        Some(Method::Repetitions) | None => format!("{}/{} repetitions", p.n_base, p.n_new),
    }
}

/// Terminal rendering: one block per pair (headline, then `metric | before | after | ratio`),
/// then the warnings.
pub fn to_table(c: &Comparison) -> String {
    let mut out = String::new();
    for line in &c.process {
        let _ = writeln!(out, "process level: {line}");
    }
    for p in &c.rows {
        let _ = writeln!(out, "{}{}", pair_label(p), markers(p));
        match &p.verdict {
            Verdict::NotComparable(why) => {
                let _ = writeln!(out, "  not comparable: {why}");
            }
            v => {
                let _ = writeln!(
                    out,
                    "  time {} -> {}  (new ÷ base {}, {})  95% CI {}  p = {}  n = {}  => {}",
                    fmt_opt(p.median_base_ns, fmt_time),
                    fmt_opt(p.median_new_ns, fmt_time),
                    fmt_ratio(p.ratio()),
                    p.ratio()
                        .map(crate::results::format::ratio_words)
                        .unwrap_or_else(|| "-".into()),
                    fmt_ci(p.ratio_ci),
                    fmt_p(p.p_value),
                    sample_size(p),
                    v.as_str().to_uppercase()
                );
            }
        }
        if !p.placement.is_empty() {
            let _ = writeln!(out, "  placement: {}", p.placement);
        }
        if p.design_differs() {
            let _ = writeln!(out, "  fresh {} -> {}", p.fresh_base, p.fresh_new);
        }
        if !p.limiter_base.is_empty() || !p.limiter_new.is_empty() {
            let _ = writeln!(
                out,
                "  limiter {} -> {}",
                or_dash(&p.limiter_base),
                or_dash(&p.limiter_new)
            );
        }
        let mut rows = vec![vec![
            "metric".to_string(),
            "before".into(),
            "after".into(),
            "ratio".into(),
        ]];
        for m in &p.metrics {
            rows.push(vec![
                m.name.clone(),
                fmt_metric(m, m.before),
                fmt_metric(m, m.after),
                fmt_ratio(metric_ratio(p, m)),
            ]);
        }
        out.push_str(&aligned(&rows, &[false, true, true, true], "  "));
        out.push('\n');
    }
    let _ = writeln!(out, "{}", summary_line(c));
    for w in &c.warnings {
        let _ = writeln!(out, "warning: {w}");
    }
    out
}

/// Columns of `to_csv`, in order.
pub const CSV_COLUMNS: &[&str] = &[
    "scenario",
    "variant_base",
    "variant_new",
    "params",
    "mode",
    "metric",
    "before",
    "after",
    "ratio",
    "ci_low",
    "ci_high",
    "p_value",
    "verdict",
    "reason",
    "method",
    "n",
    "cross_device",
    "limiter_before",
    "limiter_after",
    "ratio_moved",
    "placement",
    "fresh_base",
    "fresh_new",
];

/// A metric's ratio after/before; for `time_ns` the pair's ratio new ÷ base, the estimate the
/// verdict judges (issue 29: compare.csv said 0.988 where the terminal said 1.006).
pub(super) fn metric_ratio(p: &PairRow, m: &MetricPair) -> Option<f64> {
    if m.name == "time_ns" {
        p.ratio().or_else(|| m.ratio())
    } else {
        m.ratio()
    }
}

/// Long CSV: one line per pair and metric. `ratio` is after/before, on the `time_ns` line the
/// pair's time ratio new ÷ base that the verdict and its CI judge (for rounds the estimate
/// the CI is centred on, which can differ from after/before). `ci_low`, `ci_high`,
/// `p_value`, `verdict`, `reason`, `method` (`paired_rounds`, `unpaired_rounds`,
/// `repetitions`) and `n` (rounds paired, the smaller side's rounds, or the smaller side's
/// repetitions) are filled on the `time_ns` line only (they judge time); `cross_device` (1 when
/// base and new ran on different devices or drivers, else 0) on every line; `limiter_before`
/// and `limiter_after` (`dram 92 %`, `latency`) on the `time_ns` line; so are `ratio_moved`
/// (two variants of one run: the ratio in the placement check's round) and `placement` (why
/// the verdict depends on where the data sits); `fresh_base` and `fresh_new` on every line.
/// Every missing value is an empty cell.
pub fn to_csv(c: &Comparison) -> String {
    csv_of(c.rows.iter())
}

/// compare.csv's lines for these pairs (`--format csv` prints the same for what it shows).
pub(super) fn csv_of<'a>(rows: impl Iterator<Item = &'a PairRow>) -> String {
    let mut w = csv::WriterBuilder::new().from_writer(Vec::new());
    w.write_record(CSV_COLUMNS).expect("in-memory CSV");
    for p in rows {
        for m in &p.metrics {
            let time = m.name == "time_ns";
            let (lo, hi) = match (time, p.ratio_ci) {
                (true, Some((l, h))) => (Some(l), Some(h)),
                _ => (None, None),
            };
            csv_safe::write_record(
                &mut w,
                [
                    p.scenario.as_str(),
                    &p.variant_base,
                    &p.variant_new,
                    &p.params,
                    &p.mode,
                    &m.name,
                    &csv_num(m.before),
                    &csv_num(m.after),
                    &csv_num(metric_ratio(p, m)),
                    &csv_num(lo),
                    &csv_num(hi),
                    &csv_num(if time { p.p_value } else { None }),
                    if time { p.verdict_word() } else { "" },
                    if time { p.verdict.reason() } else { "" },
                    match p.method {
                        Some(m) if time => m.as_str(),
                        _ => "",
                    },
                    &csv_num(p.n.filter(|_| time).map(|n| n as f64)),
                    if p.cross_device { "1" } else { "0" },
                    if time { p.limiter_base.as_str() } else { "" },
                    if time { p.limiter_new.as_str() } else { "" },
                    &csv_num(if time { p.ratio_moved } else { None }),
                    if time { p.placement.as_str() } else { "" },
                    &p.fresh_base,
                    &p.fresh_new,
                ],
            )
            .expect("in-memory CSV");
        }
    }
    String::from_utf8(w.into_inner().expect("in-memory CSV")).expect("CSV of UTF-8 strings")
}

/// The words of a pair's ratio where the verdict found a change (`1.04× faster`); blank for
/// no change, where the interval says the sides agree.
pub(super) fn change_words(p: &PairRow) -> String {
    match (&p.verdict, p.ratio()) {
        (Verdict::Improved | Verdict::Regressed | Verdict::PlacementDependent(_), Some(r)) => {
            crate::results::format::ratio_words(r)
        }
        _ => String::new(),
    }
}

/// Escape a table cell for Markdown.
pub(crate) fn md_cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

/// Markdown: a summary table of all pairs, then per pair its metrics table, then warnings.
pub fn to_markdown(c: &Comparison) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Verdicts judge the time ratio new/base: **improved** or **regressed** only when the whole \
         95 % CI lies beyond 1 ± {} %; otherwise **no change**. Runs timed in rounds: time is the \
         mean of the kept round medians; two variants of one run are paired round by round \
         (t-interval of the log ratios), two runs compared with Welch's interval. Older runs: \
         time is the median repetition (sum of its passes' `gpu_ns` in samples.csv), with a \
         bootstrap CI and Mann-Whitney p; for multi-pass variants results.csv's `median_ns` \
         (barriers included) is listed as its own metric. Ratios are new ÷ base (after/before): \
         below 1 is faster. A cross-device pair reads **faster** or **slower** instead.\n",
        c.noise_pct
    );
    // Which process SD two runs' pairs carry, and where it came from (issue 41).
    for line in &c.process {
        let _ = writeln!(out, "Process level: {}\n", md_cell(line));
    }
    out.push_str(
        "| scenario | base | new | params | mode | before | after | new ÷ base | in words | 95 % CI | p | n | verdict |\n",
    );
    out.push_str("|---|---|---|---|---|--:|--:|--:|--:|--:|--:|--:|---|\n");
    for p in &c.rows {
        // The one wording (PairRow::verdict_text), the word in bold where it found a change.
        let verdict = if matches!(p.verdict, Verdict::Improved | Verdict::Regressed) {
            let word = p.verdict_word();
            p.verdict_text().replacen(word, &format!("**{word}**"), 1)
        } else {
            p.verdict_text()
        };
        let n = if p.method.is_some() {
            sample_size(p)
        } else {
            "-".into()
        };
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            md_cell(&p.scenario),
            md_cell(&p.variant_base),
            md_cell(&p.variant_new),
            md_cell(&p.params),
            md_cell(&p.mode),
            fmt_opt(p.median_base_ns, fmt_time),
            fmt_opt(p.median_new_ns, fmt_time),
            fmt_ratio(p.ratio()),
            change_words(p),
            fmt_ci(p.ratio_ci),
            fmt_p(p.p_value),
            n,
            md_cell(&verdict)
        );
    }
    for p in &c.rows {
        let _ = writeln!(out, "\n#### {}{}\n", md_cell(&pair_label(p)), markers(p));
        if !p.placement.is_empty() {
            let _ = writeln!(out, "Placement: {}\n", md_cell(&p.placement));
        }
        if !p.unsteady.is_empty() {
            let _ = writeln!(
                out,
                "Unsteady: {} (the interval carries the drift; no change is claimed on such a pair)\n",
                md_cell(&p.unsteady)
            );
        }
        if p.design_differs() {
            let _ = writeln!(
                out,
                "Measured with `fresh = {}` → `fresh = {}`\n",
                md_cell(&p.fresh_base),
                md_cell(&p.fresh_new)
            );
        }
        if !p.limiter_base.is_empty() || !p.limiter_new.is_empty() {
            let _ = writeln!(
                out,
                "Limiter: {} → {}\n",
                md_cell(or_dash(&p.limiter_base)),
                md_cell(or_dash(&p.limiter_new))
            );
        }
        out.push_str("| metric | unit | before | after | ratio |\n|---|---|--:|--:|--:|\n");
        for m in &p.metrics {
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {} |",
                md_cell(&m.name),
                md_cell(&m.unit),
                fmt_metric(m, m.before),
                fmt_metric(m, m.after),
                fmt_ratio(metric_ratio(p, m))
            );
        }
    }
    if !c.warnings.is_empty() {
        out.push_str("\n**Warnings**\n\n");
        for w in &c.warnings {
            let _ = writeln!(out, "- {}", md_cell(w));
        }
    }
    out
}
