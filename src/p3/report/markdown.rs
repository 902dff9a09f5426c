//! `report.md`: the report as Markdown, linking the SVG files written beside it.
use super::*;
use crate::p3::compare::to_markdown;

pub(super) fn render(c: &Contents) -> String {
    let mut md = String::from("# p3lab report\n\n");
    md.push_str(&summary_line(c.run));
    md.push_str("\n\n");
    md.push_str(&meta_table(c.meta));
    md.push_str(
        "Times are results.csv's `median_ns` with its 95 % CI (`median_ci_low_ns` – \
         `median_ci_high_ns`, the whiskers in the charts; docs/csv.md says how they are \
         computed); CV is the coefficient of variation of the timed repetitions. Charts whose \
         values span more than a decade use a log scale.\n",
    );
    for s in &c.sections {
        let _ = writeln!(md, "\n## {}\n", md_cell(s.scenario));
        // The table (with the P3 view) first, then the charts, as in report.html.
        md.push_str(&variant_table(c.run, &s.rows));
        md.push('\n');
        for ch in &s.medians {
            image(&mut md, ch);
        }
        if !s.sweeps.is_empty() || !s.sweep_notes.is_empty() {
            md.push_str("\n### Sweeps\n\n");
        }
        for ch in &s.sweeps {
            image(&mut md, ch);
        }
        for n in &s.sweep_notes {
            let _ = writeln!(md, "- {}", md_cell(n));
        }
        if !s.sweep_notes.is_empty() {
            md.push('\n');
        }
        if let Some(ch) = &s.roofline {
            md.push_str("\n### Roofline\n\n");
            image(&mut md, ch);
        }
    }
    if let Some(cmp) = &c.comparison {
        md.push_str("\n## Comparison\n\n");
        let _ = writeln!(md, "Compared: {}.\n", md_cell(&cmp.base_line));
        for ch in &cmp.charts {
            image(&mut md, ch);
        }
        md.push_str(&to_markdown(cmp.comparison));
    }
    md
}

fn image(md: &mut String, ch: &Chart) {
    let _ = writeln!(md, "![{}]({})\n", md_cell(&ch.caption), ch.file);
    for n in &ch.notes {
        let _ = writeln!(md, "{}\n", md_cell(n));
    }
}

/// One line naming the run(s), device(s) and row counts.
pub(crate) fn summary_line(run: &RunData) -> String {
    let runs: Vec<String> = distinct(run, "run_id")
        .iter()
        .map(|r| format!("`{r}`"))
        .collect();
    let mut s = format!("Run {}", runs.join(", "));
    let devices: Vec<String> = devices(run).iter().map(|d| md_cell(d)).collect();
    if !devices.is_empty() {
        let _ = write!(s, " on {}", devices.join("; "));
    }
    let _ = write!(s, ": {} rows ({}).", run.results.len(), status_counts(run));
    s
}

/// The facts of run.json a reader wants next to the numbers, as a Markdown table.
fn meta_table(meta: &RunMeta) -> String {
    let mut t = String::new();
    if let Some(note) = &meta.note {
        let _ = writeln!(t, "({}.)\n", md_cell(note));
    }
    if meta.runs.is_empty() {
        return t;
    }
    t.push_str("| run | device | driver | p3lab | command |\n|---|---|---|---|---|\n");
    for r in &meta.runs {
        let _ = writeln!(
            t,
            "| {} | {} | {} | {} | `{}` |",
            md_cell(&r.run_cell()),
            md_cell(&r.device),
            md_cell(&r.driver),
            md_cell(&r.version()),
            md_cell(&r.command).replace('`', "'")
        );
    }
    t.push('\n');
    t
}
