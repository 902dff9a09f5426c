//! `report.html`: the report as one self-contained page (inline SVG, CSS and a few lines of
//! script, nothing fetched: a Content-Security-Policy forbids it). Per scenario the charts and
//! a sortable results table; the comparison's verdicts coloured; the run's device, driver,
//! command and p3lab version from run.json. Every string from the CSVs and run.json is
//! escaped.
use super::{
    devices, distinct, run_name, slug, status_counts, table_row, Chart, Contents, TABLE_HEAD,
};
use crate::p3::charts::esc;
use crate::p3::compare::{fmt_time, sig, Method, PairRow, Verdict};
use crate::results::RowStatus;
use std::fmt::Write as _;

const STYLE: &str = r#"
:root { color-scheme: light; }
.note-mark { color: #0072b2; cursor: help; }
body { font-family: "DejaVu Sans", Helvetica, Arial, sans-serif; margin: 0 auto; max-width: 1280px;
  padding: 0 24px 48px; color: #1b1b1b; line-height: 1.4; }
h1 { margin: 24px 0 4px; font-size: 26px; }
h2 { margin-top: 40px; padding-bottom: 4px; border-bottom: 2px solid #0072B2; font-size: 21px; }
h3 { font-size: 17px; margin-top: 28px; }
nav ul { list-style: none; padding: 0; display: flex; flex-wrap: wrap; gap: 6px 14px; }
nav a, a { color: #0057a3; }
table { border-collapse: collapse; margin: 12px 0; font-size: 13px; }
th, td { border: 1px solid #d6d6d6; padding: 3px 8px; vertical-align: top; }
th { background: #f0f3f6; text-align: left; white-space: nowrap; }
td.num { text-align: right; white-space: nowrap; font-variant-numeric: tabular-nums; }
table.sortable th { cursor: pointer; user-select: none; }
table.sortable th::after { content: " \2195"; color: #9a9a9a; font-size: 11px; }
table.sortable th[aria-sort="ascending"]::after { content: " \2191"; color: #1b1b1b; }
table.sortable th[aria-sort="descending"]::after { content: " \2193"; color: #1b1b1b; }
table.meta th { width: 110px; }
code { font-family: "DejaVu Sans Mono", Menlo, Consolas, monospace; font-size: 12px; word-break: break-all; }
figure { margin: 16px 0; }
.multiples { display: grid; grid-template-columns: repeat(auto-fill, minmax(560px, 1fr));
  gap: 0 16px; align-items: start; }
.multiples figure { min-width: 0; }
figure svg { max-width: 100%; height: auto; border: 1px solid #e4e4e4; }
figcaption { font-size: 12px; color: #555; }
.note { color: #6b4e00; background: #fff8e1; padding: 4px 8px; font-size: 13px; }
tr.st-bad td { color: #777; }
td.v-improved { background: #d9f2e6; color: #00603f; font-weight: bold; }
td.v-regressed { background: #fbe0d4; color: #9a3100; font-weight: bold; }
td.v-nochange { color: #555; }
td.v-nc { color: #777; font-style: italic; min-width: 18em; }
table.verdicts td:nth-child(2), table.verdicts td:nth-child(3) { white-space: nowrap; }
details { margin: 4px 0; font-size: 13px; }
footer { margin-top: 48px; color: #777; font-size: 12px; }
"#;

/// Sorts a table when its heading is clicked (numbers by the cell's `data-v`), and marks each
/// table it prepared with `data-sortable="ready"` (the Chromium test looks for it) and the page
/// with its height (`data-page-height`, for scripts/report_png.sh).
const SCRIPT: &str = r#"
(function () {
  function key(row, i) {
    var c = row.cells[i];
    if (!c) return "";
    var v = c.getAttribute("data-v");
    return v === null ? c.textContent.trim().toLowerCase() : parseFloat(v);
  }
  function sortBy(table, i, th) {
    var dir = th.getAttribute("aria-sort") === "ascending" ? -1 : 1;
    var heads = table.tHead.rows[0].cells;
    for (var h = 0; h < heads.length; h++) heads[h].removeAttribute("aria-sort");
    th.setAttribute("aria-sort", dir > 0 ? "ascending" : "descending");
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = key(a, i), y = key(b, i);
      var nx = typeof x === "number" && !isNaN(x), ny = typeof y === "number" && !isNaN(y);
      if (nx !== ny) return nx ? -1 : 1;
      return (x < y ? -1 : x > y ? 1 : 0) * dir;
    });
    rows.forEach(function (r) { body.appendChild(r); });
  }
  document.querySelectorAll("table.sortable").forEach(function (table) {
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, i) {
      th.tabIndex = 0;
      th.title = "sort by " + th.textContent;
      th.addEventListener("click", function () { sortBy(table, i, th); });
      th.addEventListener("keydown", function (e) {
        if (e.key === "Enter" || e.key === " ") { e.preventDefault(); sortBy(table, i, th); }
      });
    });
    table.setAttribute("data-sortable", "ready");
  });
  // The laid-out height, for scripts/report_png.sh's full-page screenshot.
  document.documentElement.setAttribute("data-page-height",
    String(document.documentElement.scrollHeight));
})();
"#;

pub(crate) fn render(c: &Contents) -> String {
    let mut h = String::new();
    let title = format!("p3lab report: {}", run_name(c.run));
    let _ = write!(
        h,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; \
         style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n",
        esc(&title)
    );
    let _ = writeln!(h, "<header>\n<h1>p3lab report</h1>\n<p>{}</p>", summary(c));
    h.push_str(&meta(c));
    h.push_str("</header>\n");

    let ids: Vec<String> = c
        .sections
        .iter()
        .enumerate()
        .map(|(i, s)| format!("s{}-{}", i + 1, slug(s.scenario)))
        .collect();
    h.push_str("<nav><ul>\n");
    for (s, id) in c.sections.iter().zip(&ids) {
        let _ = writeln!(
            h,
            "<li><a href=\"#{id}\">{}</a> ({} rows)</li>",
            esc(s.scenario),
            s.rows.len()
        );
    }
    if c.comparison.is_some() {
        h.push_str("<li><a href=\"#comparison\">Comparison</a></li>\n");
    }
    h.push_str("</ul></nav>\n");

    for (s, id) in c.sections.iter().zip(&ids) {
        let _ = writeln!(h, "<section id=\"{id}\">\n<h2>{}</h2>", esc(s.scenario));
        // The table first: each variant's time with its limiter and units' %-of-peak (the
        // P3 view) is what a reader looks for; the charts follow.
        results_table(&mut h, c, &s.rows);
        multiples(&mut h, &s.medians);
        if !s.sweeps.is_empty() || !s.sweep_notes.is_empty() {
            h.push_str("<h3>Sweeps</h3>\n");
        }
        multiples(&mut h, &s.sweeps);
        for n in &s.sweep_notes {
            let _ = writeln!(h, "<p class=\"note\">{}</p>", esc(n));
        }
        if let Some(ch) = &s.roofline {
            h.push_str("<h3>Roofline</h3>\n");
            figure(&mut h, ch);
        }
        h.push_str("</section>\n");
    }
    if let Some(cmp) = &c.comparison {
        h.push_str("<section id=\"comparison\">\n<h2>Comparison</h2>\n");
        let _ = writeln!(h, "<p>Compared: {}.</p>", esc(&cmp.base_line));
        let cm = cmp.comparison;
        let _ = writeln!(
            h,
            "<p>Verdicts judge the time ratio new/base: <b>improved</b> or <b>regressed</b> \
             only when the whole 95 % CI lies beyond 1 ± {} %; otherwise <b>no change</b>.</p>",
            esc(&cm.noise_pct.to_string())
        );
        for ch in &cmp.charts {
            figure(&mut h, ch);
        }
        verdict_table(&mut h, &cm.rows);
        if !cm.warnings.is_empty() {
            h.push_str("<h3>Warnings</h3>\n<ul>\n");
            for w in &cm.warnings {
                let _ = writeln!(h, "<li>{}</li>", esc(w));
            }
            h.push_str("</ul>\n");
        }
        h.push_str("<h3>Metrics per pair</h3>\n");
        for p in &cm.rows {
            metrics(&mut h, p);
        }
        h.push_str("</section>\n");
    }
    let _ = write!(
        h,
        "<footer>Written by <code>p3lab report</code>. Times are results.csv's \
         <code>median_ns</code> with its 95 % CI; docs/csv.md describes every column.</footer>\n\
         <script>{SCRIPT}</script>\n</body>\n</html>\n"
    );
    h
}

fn summary(c: &Contents) -> String {
    let ids = distinct(c.run, "run_id");
    let mut s = match ids.len() {
        0 => String::from("Run"),
        1 => format!("Run <code>{}</code>", esc(&ids[0])),
        n => format!("{n} merged runs"),
    };
    let devices = devices(c.run);
    if !devices.is_empty() {
        let _ = write!(s, " on {}", esc(&devices.join("; ")));
    }
    let _ = write!(
        s,
        ": {} rows ({}).",
        c.run.results.len(),
        esc(&status_counts(c.run))
    );
    s
}

/// run.json's facts: one table per run (several for a merged folder).
fn meta(c: &Contents) -> String {
    let mut h = String::new();
    if let Some(n) = &c.meta.note {
        let _ = writeln!(h, "<p class=\"note\">{}.</p>", esc(n));
    }
    for r in &c.meta.runs {
        h.push_str("<table class=\"meta\">\n");
        let row = |h: &mut String, k: &str, v: String| {
            let _ = writeln!(h, "<tr><th>{k}</th><td>{v}</td></tr>");
        };
        row(&mut h, "run", esc(&r.run_cell()));
        row(&mut h, "device", esc(&r.device));
        row(&mut h, "driver", esc(&r.driver));
        if !r.api_version.is_empty() {
            row(&mut h, "Vulkan", esc(&r.api_version));
        }
        row(&mut h, "p3lab", esc(&r.version()));
        row(
            &mut h,
            "command",
            format!("<code>{}</code>", esc(&r.command)),
        );
        h.push_str("</table>\n");
    }
    h
}

/// Several charts side by side as small multiples (two to a row on a wide page, one on a
/// narrow one): issue 29's tiling_l2 section stacked seven medians charts 13,800 px tall.
fn multiples(h: &mut String, charts: &[Chart]) {
    if charts.len() < 2 {
        charts.iter().for_each(|ch| figure(h, ch));
        return;
    }
    h.push_str("<div class=\"multiples\">\n");
    charts.iter().for_each(|ch| figure(h, ch));
    h.push_str("</div>\n");
}

fn figure(h: &mut String, ch: &Chart) {
    let _ = writeln!(
        h,
        "<figure id=\"{}\">\n{}<figcaption>{} ({})</figcaption>\n</figure>",
        esc(&ch.file),
        ch.svg,
        esc(&ch.caption),
        esc(&ch.file)
    );
    for n in &ch.notes {
        let _ = writeln!(h, "<p class=\"note\">{}</p>", esc(n));
    }
}

fn th_row(h: &mut String, heads: &[(&str, bool)]) {
    h.push_str("<thead><tr>");
    for (name, _) in heads {
        let _ = write!(h, "<th>{}</th>", esc(name));
    }
    h.push_str("</tr></thead>\n<tbody>\n");
}

fn td(h: &mut String, text: &str, sort: Option<f64>, class: &str) {
    h.push_str("<td");
    if !class.is_empty() {
        let _ = write!(h, " class=\"{class}\"");
    }
    if let Some(v) = sort.filter(|v| v.is_finite()) {
        let _ = write!(h, " data-v=\"{v}\"");
    }
    let _ = write!(h, ">{}</td>", esc(text));
}

fn results_table(h: &mut String, c: &Contents, rows: &[&crate::p3::compare::Record]) {
    h.push_str("<table class=\"sortable results\">\n");
    th_row(h, TABLE_HEAD);
    for r in rows {
        let class = if r.status() == RowStatus::Ok {
            ""
        } else {
            " class=\"st-bad\""
        };
        let _ = write!(h, "<tr{class}>");
        for ((cell, (_, numeric)), (head, _)) in
            table_row(c.run, r).iter().zip(TABLE_HEAD).zip(TABLE_HEAD)
        {
            match cell.text.split_once(": ") {
                // An ok row's note (placements, ...): a mark, the words on hover (issue 29:
                // three-line notes in the status cell).
                Some(("ok", note)) if *head == "status" => {
                    let _ = write!(
                        h,
                        "<td title=\"{}\">ok <span class=\"note-mark\">†</span></td>",
                        esc(note)
                    );
                }
                _ => td(h, &cell.text, cell.sort, if *numeric { "num" } else { "" }),
            }
        }
        h.push_str("</tr>\n");
    }
    h.push_str("</tbody></table>\n");
}

const VERDICT_HEAD: &[(&str, bool)] = &[
    ("scenario", false),
    ("base", false),
    ("new", false),
    ("params", false),
    ("mode", false),
    ("before", true),
    ("after", true),
    ("new ÷ base", true),
    ("in words", false),
    ("95 % CI", true),
    ("p", true),
    ("n", true),
    ("limiter base → new", false),
    ("verdict", false),
];

fn verdict_table(h: &mut String, rows: &[PairRow]) {
    h.push_str("<table class=\"sortable verdicts\">\n");
    th_row(h, VERDICT_HEAD);
    for p in rows {
        h.push_str("<tr>");
        for s in [
            &p.scenario,
            &p.variant_base,
            &p.variant_new,
            &p.params,
            &p.mode,
        ] {
            td(h, s, None, "");
        }
        let opt = |v: Option<f64>, f: &dyn Fn(f64) -> String| v.map_or("-".into(), f);
        td(
            h,
            &opt(p.median_base_ns, &fmt_time),
            p.median_base_ns,
            "num",
        );
        td(h, &opt(p.median_new_ns, &fmt_time), p.median_new_ns, "num");
        td(h, &opt(p.ratio(), &|v| format!("{v:.3}")), p.ratio(), "num");
        td(
            h,
            &opt(p.ratio(), &crate::results::format::ratio_words),
            p.ratio(),
            "",
        );
        let ci = p
            .ratio_ci
            .map_or("-".into(), |(l, h)| format!("[{l:.3}, {h:.3}]"));
        td(h, &ci, p.ratio_ci.map(|c| c.0), "num");
        let pv = opt(p.p_value, &|v| {
            if v < 1e-4 {
                "<0.0001".into()
            } else {
                format!("{v:.4}")
            }
        });
        td(h, &pv, p.p_value, "num");
        let n = match p.method {
            Some(Method::PairedRounds) => format!("{} paired rounds", p.n.unwrap_or(0)),
            Some(Method::UnpairedRounds) => format!("{}/{} rounds", p.n_base, p.n_new),
            Some(Method::Placements) => format!("{} placements", p.n.unwrap_or(0)),
            Some(Method::Repetitions) => format!("{}/{} repetitions", p.n_base, p.n_new),
            None => "-".into(),
        };
        td(h, &n, p.n.map(|n| n as f64), "num");
        let class = match &p.verdict {
            Verdict::Improved => "v-improved",
            Verdict::Regressed => "v-regressed",
            Verdict::NotComparable(_) => "v-nc",
            Verdict::NoChange | Verdict::PlacementDependent(_) | Verdict::Unstable(_) => {
                "v-nochange"
            }
        };
        let text = p.verdict_text();
        let dash = |s: &str| {
            if s.is_empty() {
                "-".to_string()
            } else {
                s.to_string()
            }
        };
        td(
            h,
            &format!("{} → {}", dash(&p.limiter_base), dash(&p.limiter_new)),
            None,
            "",
        );
        td(h, &text, None, class);
        h.push_str("</tr>\n");
    }
    h.push_str("</tbody></table>\n");
}

fn metrics(h: &mut String, p: &PairRow) {
    let variants = if p.variant_base == p.variant_new {
        p.variant_base.clone()
    } else {
        format!("{} → {}", p.variant_base, p.variant_new)
    };
    let mut label = format!("{}/{variants}", p.scenario);
    if !p.params.is_empty() {
        let _ = write!(label, " [{}]", p.params);
    }
    let _ = write!(label, " ({}): {}", p.mode, p.verdict_text());
    let _ = writeln!(h, "<details><summary>{}</summary>", esc(&label));
    if !p.placement.is_empty() {
        let _ = writeln!(h, "<p>Placement: {}</p>", esc(&p.placement));
    }
    if !p.limiter_base.is_empty() || !p.limiter_new.is_empty() {
        let _ = writeln!(
            h,
            "<p>Limiter: {} → {}</p>",
            esc(&p.limiter_base),
            esc(&p.limiter_new)
        );
    }
    h.push_str("<table class=\"sortable\">\n");
    th_row(
        h,
        &[
            ("metric", false),
            ("unit", false),
            ("before", true),
            ("after", true),
            ("ratio", true),
        ],
    );
    for m in &p.metrics {
        let f = |v: Option<f64>| match v {
            Some(v) if m.unit == "ns" => fmt_time(v),
            Some(v) => sig(v),
            None => "-".into(),
        };
        h.push_str("<tr>");
        td(h, &m.name, None, "");
        td(h, &m.unit, None, "");
        td(h, &f(m.before), m.before, "num");
        td(h, &f(m.after), m.after, "num");
        let ratio = m.ratio();
        td(
            h,
            &ratio.map_or("-".into(), |r| format!("{r:.3}")),
            ratio,
            "num",
        );
        h.push_str("</tr>\n");
    }
    h.push_str("</tbody></table>\n</details>\n");
}
