//! `run --export-markdown FILE` and `--export-json FILE`: the run's summary as Markdown
//! tables and as JSON, after hyperfine's exporters.
use super::{
    fmt_ratio, heading, missed_line, placement_tag, table_format, verdict_line, Summary,
    PLACEMENT_NOTE, RATIO_METHOD,
};

/// A Markdown table cell: `|` escaped, line breaks as spaces.
fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace(['\n', '\r'], " ")
}

/// One `###` section per case and mode: a table of the timed variants (fastest in bold),
/// the verdict, then the variants that did not run with their full reason.
pub fn to_markdown(s: &Summary) -> String {
    let mut out = String::new();
    let counts = s
        .rows
        .iter()
        .map(|(k, v)| format!("{v} {k}"))
        .collect::<Vec<_>>()
        .join(", ");
    out.push_str(&format!("Rows: {counts}.\n"));
    for c in &s.cases {
        for m in &c.modes {
            out.push_str(&format!("\n### {}\n\n", cell(&heading(c, &m.mode))));
            if let Some(n) = &m.note {
                out.push_str(&format!("{}\n\n", cell(n)));
            }
            if m.variants.is_empty() {
                out.push_str("No variant was timed.\n");
                continue;
            }
            let (div, unit, d) = table_format(m);
            let base = m.baseline.as_deref().unwrap_or("-");
            let p3 = m
                .variants
                .iter()
                .any(|t| t.limiter.is_some() || !t.units.is_empty());
            let (p3_head, p3_rule) = if p3 {
                (" Limiter | % of peak |", ":---|:---|")
            } else {
                ("", "")
            };
            out.push_str(&format!(
                "| Variant | Median [{unit}] | 95 % CI [{unit}] | Time ratio vs `{}` [95 % CI] |{p3_head}\n",
                cell(base)
            ));
            out.push_str(&format!("|:---|---:|---:|---:|{p3_rule}\n"));
            for t in &m.variants {
                let name = format!("`{}`", cell(&t.variant));
                let name = match (t.fastest, t.baseline) {
                    (true, true) => format!("**{name}** (fastest, baseline)"),
                    (true, false) => format!("**{name}** (fastest)"),
                    (false, true) => format!("{name} (baseline)"),
                    (false, false) => name,
                };
                let name = match t.placement_pct {
                    Some(p) => format!("{name} ({})", placement_tag(p)),
                    None => name,
                };
                let ci = match (t.median_ci_low_ns, t.median_ci_high_ns) {
                    (Some(lo), Some(_)) if lo <= 0.0 => "no CI (too few rounds)".into(),
                    (Some(lo), Some(hi)) => format!("{:.d$} – {:.d$}", lo / div, hi / div),
                    _ => "-".into(),
                };
                let sp = match (&t.vs_baseline, t.baseline) {
                    (_, true) => "1.000".to_string(),
                    (Some(r), false) => format!(
                        "{} ({})",
                        fmt_ratio(r),
                        crate::results::format::ratio_words(r.ratio)
                    ),
                    (None, false) => "-".into(),
                };
                let p3_cells = if p3 {
                    format!(
                        " {} | {} |",
                        cell(t.limiter.as_deref().unwrap_or("-")),
                        crate::results::units_text(&t.units)
                    )
                } else {
                    String::new()
                };
                out.push_str(&format!(
                    "| {name} | {:.d$} | {ci} | {sp} |{p3_cells}\n",
                    t.median_ns / div
                ));
            }
            if let Some(v) = verdict_line(m) {
                out.push_str(&format!("\n{}.\n", cell(&v)));
            }
            if m.variants.iter().any(|t| t.placement_pct.is_some()) {
                out.push_str(&format!("\n{}.\n", cell(PLACEMENT_NOTE)));
            }
        }
        if !c.not_run.is_empty() {
            let case = heading(c, "");
            out.push_str(&format!("\nNot run in {}:\n\n", cell(&case)));
            for n in &c.not_run {
                let names = n
                    .variants
                    .iter()
                    .map(|v| format!("`{}`", cell(v)))
                    .collect::<Vec<_>>()
                    .join(", ");
                let reason = if n.reason.is_empty() {
                    String::new()
                } else {
                    format!(": {}", cell(&n.reason))
                };
                out.push_str(&format!("- {} {names}{reason}\n", n.status));
            }
        }
    }
    if let Some(l) = missed_line(s) {
        out.push_str(&format!("\n{}.\n", cell(&l)));
    }
    out.push_str(&format!("\nTime ratio: {RATIO_METHOD}\n"));
    out
}

/// The summary as pretty JSON: `ratio_method`, `rows` (per status), `missed_target` (per
/// stop reason), `ci_target_pct`, `timed`, `with_limiter` and `cases`, each with its `modes`
/// (`variants` with `median_ns`, CI, `vs_baseline` {ratio, ci_low, ci_high}, `baseline`,
/// `fastest`, `missed`, `limiter`, `units`; `unclear` where no variant is clearly fastest) and
/// `not_run` (status, reason, variants).
pub fn to_json(s: &Summary) -> String {
    #[derive(serde::Serialize)]
    struct Export<'a> {
        ratio_method: &'a str,
        #[serde(flatten)]
        summary: &'a Summary,
    }
    let mut text = serde_json::to_string_pretty(&Export {
        ratio_method: RATIO_METHOD,
        summary: s,
    })
    .expect("the summary serializes");
    text.push('\n');
    text
}
