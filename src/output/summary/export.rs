//! `run --export-markdown FILE` and `--export-json FILE`: the run's summary as Markdown
//! tables and as JSON, after hyperfine's exporters.
use super::{
    fmt_speedup, heading, placement_tag, table_format, verdict_line, Summary, PLACEMENT_NOTE,
    SPEEDUP_METHOD,
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
            out.push_str(&format!(
                "| Variant | Median [{unit}] | 95 % CI [{unit}] | Speedup vs `{}` [95 % CI] |\n",
                cell(base)
            ));
            out.push_str("|:---|---:|---:|---:|\n");
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
                    (Some(lo), Some(hi)) => format!("{:.d$} – {:.d$}", lo / div, hi / div),
                    _ => "-".into(),
                };
                let sp = match (&t.speedup, t.baseline) {
                    (_, true) => "1.00".to_string(),
                    (Some(s), false) => fmt_speedup(s),
                    (None, false) => "-".into(),
                };
                out.push_str(&format!(
                    "| {name} | {:.d$} | {ci} | {sp} |\n",
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
    out.push_str(&format!("\nSpeedup: {SPEEDUP_METHOD}\n"));
    out
}

/// The summary as pretty JSON: `speedup_method`, `rows` (per status) and `cases`, each with
/// its `modes` (`variants` with `median_ns`, CI, `speedup` {ratio, ci_low, ci_high},
/// `baseline`, `fastest`) and `not_run` (status, reason, variants).
pub fn to_json(s: &Summary) -> String {
    #[derive(serde::Serialize)]
    struct Export<'a> {
        speedup_method: &'a str,
        #[serde(flatten)]
        summary: &'a Summary,
    }
    let mut text = serde_json::to_string_pretty(&Export {
        speedup_method: SPEEDUP_METHOD,
        summary: s,
    })
    .expect("the summary serializes");
    text.push('\n');
    text
}
