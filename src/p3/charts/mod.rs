//! Hand-written SVG charts: horizontal bars or dots with CI whiskers (medians, speedups) and
//! line charts for sweeps. No dependencies; text widths are estimated from character counts,
//! so margins are sized to the longest label rather than guessed. Labels are never cut: a
//! label too long for its margin wraps onto more lines.
use std::fmt::Write as _;

mod bars;
mod lines;
pub use bars::{bar_chart, Axis, Bar, BarChart};
pub use lines::{line_chart, LineChart, Point, Series};

const FONT: &str = "DejaVu Sans, Helvetica, Arial, sans-serif";
/// Okabe-Ito (its yellow swapped for olive, which stays visible on white): distinguishable with
/// the common colour-vision deficiencies.
pub const PALETTE: &[&str] = &[
    "#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#000000", "#999933",
];
/// Okabe-Ito bluish green: improved pairs in the speedup chart.
pub const GREEN: &str = "#009E73";
/// Okabe-Ito vermillion: regressed pairs in the speedup chart.
pub const RED: &str = "#D55E00";
/// Neutral grey: pairs with no change or not comparable in the speedup chart.
pub const GREY: &str = "#8c8c8c";
/// Okabe-Ito blue (the palette's first colour): the bars of the medians chart.
pub const BLUE: &str = "#0072B2";

const LABEL_PX: f64 = 13.0;
const TICK_PX: f64 = 12.0;
const TITLE_PX: f64 = 16.0;
const WIDTH: f64 = 860.0;
/// Vertical distance between the lines of a wrapped label or of the subtitle.
const LINE_PX: f64 = 15.0;

/// A legend entry: colour and text.
pub type LegendItem = (&'static str, String);

/// Estimated rendered width of `s` at `px` (DejaVu Sans averages ~0.6 em per character).
fn text_w(s: &str, px: f64) -> f64 {
    s.chars().count() as f64 * px * 0.61
}

/// Escape text for XML and HTML (element content and quoted attribute values).
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// Split `s` into lines of at most `max` characters, breaking after spaces, `-`, `_`, `/`,
/// `;` and `,`, and before `[`, `(` and `→`. Nothing is dropped: a run of more than `max`
/// characters without a break is split where it must be. Joining the lines gives `s` back
/// (less the spaces at the breaks).
pub fn wrap(s: &str, max: usize) -> Vec<String> {
    let max = max.max(4);
    if s.chars().count() <= max {
        return vec![s.to_string()];
    }
    // Tokens end at a break opportunity.
    let mut tokens: Vec<String> = Vec::new();
    let mut cur = String::new();
    for c in s.chars() {
        if matches!(c, '[' | '(' | '→') && !cur.trim().is_empty() {
            tokens.push(std::mem::take(&mut cur));
        }
        cur.push(c);
        if matches!(c, ' ' | '-' | '_' | '/' | ';' | ',') {
            tokens.push(std::mem::take(&mut cur));
        }
    }
    if !cur.is_empty() {
        tokens.push(cur);
    }
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for t in tokens {
        let fits = line.chars().count() + t.trim_end().chars().count() <= max;
        if !line.is_empty() && !fits {
            lines.push(line.trim_end().to_string());
            line = String::new();
        }
        let t = if line.is_empty() { t.trim_start() } else { &t };
        line.push_str(t);
        while line.trim_end().chars().count() > max {
            let head: String = line.chars().take(max).collect();
            let rest: String = line.chars().skip(max).collect();
            lines.push(head);
            line = rest;
        }
    }
    if !line.trim().is_empty() {
        lines.push(line.trim_end().to_string());
    }
    lines
}

struct Doc {
    w: f64,
    h: f64,
    body: String,
}

impl Doc {
    fn new(w: f64, h: f64) -> Doc {
        Doc {
            w,
            h,
            body: String::new(),
        }
    }

    fn text(&mut self, x: f64, y: f64, px: f64, anchor: &str, extra: &str, s: &str) {
        let _ = writeln!(
            self.body,
            r#"<text x="{x:.1}" y="{y:.1}" font-size="{px}" text-anchor="{anchor}"{extra}>{}</text>"#,
            esc(s)
        );
    }

    /// Lines of text, the first baseline at `y`.
    #[allow(
        clippy::too_many_arguments,
        reason = "an SVG element's attributes, named as SVG names them"
    )]
    fn text_lines(&mut self, x: f64, y: f64, px: f64, anchor: &str, extra: &str, lines: &[String]) {
        for (i, l) in lines.iter().enumerate() {
            self.text(x, y + i as f64 * LINE_PX, px, anchor, extra, l);
        }
    }

    // One argument per SVG attribute reads better at the call sites than a style struct.
    #[allow(
        clippy::too_many_arguments,
        reason = "an SVG element's attributes, named as SVG names them"
    )]
    fn line(&mut self, x1: f64, y1: f64, x2: f64, y2: f64, stroke: &str, width: f64, extra: &str) {
        let _ = writeln!(
            self.body,
            r#"<line x1="{x1:.1}" y1="{y1:.1}" x2="{x2:.1}" y2="{y2:.1}" stroke="{stroke}" stroke-width="{width}"{extra}/>"#
        );
    }

    fn rect(&mut self, x: f64, y: f64, w: f64, h: f64, fill: &str) {
        let _ = writeln!(
            self.body,
            r#"<rect x="{x:.1}" y="{y:.1}" width="{:.1}" height="{h:.1}" fill="{fill}"/>"#,
            w.max(0.0)
        );
    }

    /// The title and the subtitle lines under it, centred.
    fn title(&mut self, title: &str, subtitle: &[String]) {
        let w = self.w;
        let bold = r#" font-weight="bold""#;
        self.text(w / 2.0, 24.0, TITLE_PX, "middle", bold, title);
        let grey = r##" fill="#444""##;
        self.text_lines(w / 2.0, 42.0, TICK_PX, "middle", grey, subtitle);
    }

    fn finish(self) -> String {
        format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w:.0}\" height=\"{h:.0}\" viewBox=\"0 0 {w:.0} {h:.0}\" font-family=\"{FONT}\">\n\
             <rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n{}</svg>\n",
            self.body,
            w = self.w,
            h = self.h
        )
    }
}

/// Height of the title block: the title and `subtitle_lines` lines under it.
fn title_h(subtitle_lines: usize) -> f64 {
    44.0 + subtitle_lines as f64 * LINE_PX
}

/// The subtitle lines, each wrapped to the chart's width.
fn wrap_subtitle(lines: &[String], width: f64) -> Vec<String> {
    let max = ((width - 40.0) / (TICK_PX * 0.61)) as usize;
    lines.iter().flat_map(|l| wrap(l, max)).collect()
}

/// True when positive values span more than a decade: they read better on a log axis.
pub fn spans_decades(values: impl IntoIterator<Item = f64>) -> bool {
    let (lo, hi) = values
        .into_iter()
        .filter(|v| v.is_finite() && *v > 0.0)
        .fold((f64::INFINITY, 0.0f64), |(a, b), v| (a.min(v), b.max(v)));
    lo.is_finite() && hi / lo > 10.0
}

/// Round tick positions covering `[lo, hi]`: steps of 1, 2, 2.5 or 5 × 10^k, about `target`
/// of them. The returned ticks span the data (first ≤ lo, last ≥ hi).
pub fn nice_ticks(lo: f64, hi: f64, target: usize) -> Vec<f64> {
    let (lo, hi) = if hi > lo {
        (lo, hi)
    } else if hi == 0.0 {
        (lo, lo + 1.0)
    } else {
        (lo - hi.abs() * 0.1, hi + hi.abs() * 0.1)
    };
    let raw = (hi - lo) / target.max(1) as f64;
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 2.5, 5.0, 10.0]
        .iter()
        .map(|m| m * mag)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * mag);
    let first = (lo / step).floor();
    let last = (hi / step).ceil();
    (first as i64..=last as i64)
        .map(|i| {
            let v = i as f64 * step;
            // Avoid "-0" and 0.30000000000000004-style artifacts.
            if v.abs() < step * 1e-9 {
                0.0
            } else {
                (v / step).round() * step
            }
        })
        .collect()
}

/// Tick label with just enough decimals for the step.
fn tick_label(v: f64, step: f64) -> String {
    let decimals = if step >= 1.0 && (step.fract() == 0.0) {
        0
    } else {
        let d = (-step.log10().floor()) as i32;
        let d = if ((step / 10f64.powi(-d)) - 2.5).abs() < 1e-9 {
            d + 1
        } else {
            d
        };
        d.clamp(0, 8) as usize
    };
    format!("{v:.decimals$}")
}

/// Ticks for a logarithmic axis over `[lo, hi]` that is `span_px` long: round values
/// (1, 2, 5 × 10^k first, then 1.25, 1.5, 3, 4, … where they fit), none closer than `gap_px`
/// to another. `around_one` (ratio axes) places 1 first and works outward from it, so the
/// values nearest the reference line win.
fn log_ticks(lo: f64, hi: f64, span_px: f64, gap_px: f64, around_one: bool) -> Vec<f64> {
    let px = |v: f64| (v.ln() - lo.ln()) / (hi.ln() - lo.ln()) * span_px;
    let mut cands: Vec<(u8, f64)> = Vec::new();
    let (e0, e1) = (lo.log10().floor() as i32 - 1, hi.log10().ceil() as i32 + 1);
    for e in e0..=e1 {
        for (rank, m) in [
            (0, 1.0),
            (1, 2.0),
            (1, 5.0),
            (2, 1.5),
            (2, 3.0),
            (3, 1.25),
            (3, 2.5),
            (3, 4.0),
            (3, 6.0),
            (3, 8.0),
            (4, 1.1),
            (4, 1.2),
            (4, 9.0),
        ] {
            let v = m * 10f64.powi(e);
            if v >= lo && v <= hi {
                cands.push((rank, v));
            }
        }
    }
    if around_one {
        cands.sort_by(|a, b| a.1.ln().abs().total_cmp(&b.1.ln().abs()));
    } else {
        cands.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.total_cmp(&b.1)));
    }
    let mut chosen: Vec<f64> = Vec::new();
    for (_, c) in cands {
        if chosen.iter().all(|t| (px(*t) - px(c)).abs() >= gap_px) {
            chosen.push(c);
        }
    }
    if chosen.len() < 3 {
        // A range too narrow for round log values (speedups within ±5 %): linear steps,
        // which on so short a stretch of a log axis are nearly even.
        for t in nice_ticks(lo, hi, 4) {
            if t >= lo && t <= hi && chosen.iter().all(|c| (px(*c) - px(t)).abs() >= gap_px) {
                chosen.push(t);
            }
        }
    }
    chosen.sort_by(f64::total_cmp);
    chosen
}

/// A tick value with at most 4 significant digits and no trailing zeros: `0.975`, `1.5`,
/// `2000`.
fn trim_num(v: f64) -> String {
    if v == 0.0 || !v.is_finite() {
        return format!("{v}");
    }
    let decimals = (3 - v.abs().log10().floor() as i32).clamp(0, 12) as usize;
    let s = format!("{v:.decimals$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// A horizontal legend centred on `cx`, wrapping onto more rows when wider than `max_w`;
/// returns the rows used.
fn draw_legend_row(d: &mut Doc, items: &[LegendItem], cx: f64, y: f64, max_w: f64) -> usize {
    let widths: Vec<f64> = items
        .iter()
        .map(|(_, t)| 22.0 + text_w(t, TICK_PX) + 18.0)
        .collect();
    let mut rows: Vec<Vec<usize>> = vec![Vec::new()];
    let mut w = 0.0;
    for (i, iw) in widths.iter().enumerate() {
        if w + iw > max_w && !rows.last().is_some_and(Vec::is_empty) {
            rows.push(Vec::new());
            w = 0.0;
        }
        rows.last_mut().expect("a row").push(i);
        w += iw;
    }
    for (r, row) in rows.iter().enumerate() {
        let total: f64 = row.iter().map(|&i| widths[i]).sum();
        let mut x = cx - total / 2.0;
        let y = y + r as f64 * 20.0;
        for &i in row {
            let (color, text) = &items[i];
            d.rect(x, y - 10.0, 14.0, 12.0, color);
            d.text(x + 20.0, y, TICK_PX, "start", "", text);
            x += widths[i];
        }
    }
    rows.len()
}

/// Rows a legend of `items` takes at `max_w`.
fn legend_rows(items: &[LegendItem], max_w: f64) -> usize {
    let mut d = Doc::new(0.0, 0.0);
    if items.is_empty() {
        0
    } else {
        draw_legend_row(&mut d, items, 0.0, 0.0, max_w)
    }
}

/// Compact x tick label: integers as integers, others with few digits.
fn sig_tick(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{v:.0}")
    } else {
        super::compare::sig(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_are_round_and_cover_the_range() {
        assert_eq!(
            nice_ticks(0.0, 104.1, 6),
            vec![0.0, 20.0, 40.0, 60.0, 80.0, 100.0, 120.0]
        );
        let t = nice_ticks(0.93, 1.27, 6);
        assert!(t[0] <= 0.93 && *t.last().unwrap() >= 1.27, "{t:?}");
        assert_eq!(nice_ticks(0.0, 0.0, 5).first(), Some(&0.0));
        assert_eq!(tick_label(0.25, 0.05), "0.25");
        assert_eq!(tick_label(2.5, 2.5), "2.5");
        assert_eq!(tick_label(40.0, 20.0), "40");
    }

    #[test]
    fn log_ticks_prefer_decades_and_keep_their_distance() {
        // 150 µs .. 7 ms on 600 px: the decades and 2, 5 between them.
        let t = log_ticks(150.0, 7000.0, 600.0, 40.0, false);
        for want in [200.0, 500.0, 1000.0, 2000.0, 5000.0] {
            assert!(t.contains(&want), "{t:?}");
        }
        let px = |v: f64| (v / 150.0).ln() / (7000.0f64 / 150.0).ln() * 600.0;
        assert!(t.windows(2).all(|w| px(w[1]) - px(w[0]) >= 40.0), "{t:?}");
        // A ratio axis starts at 1.
        assert!(log_ticks(0.6, 1.1, 500.0, 48.0, true).contains(&1.0));
        assert_eq!(trim_num(1.25), "1.25");
        assert_eq!(trim_num(2000.0), "2000");
        assert_eq!(trim_num(0.125), "0.125");
        assert_eq!(trim_num(1.025), "1.025");
        assert_eq!(trim_num(0.15000000000000002), "0.15");
        // A narrow ratio range still gets several ticks.
        let t = log_ticks(0.95, 1.05, 500.0, 48.0, true);
        assert!(t.len() >= 3 && t.contains(&1.0), "{t:?}");
        assert!(spans_decades([150.0, 7000.0]) && !spans_decades([150.0, 1400.0]));
    }

    #[test]
    fn wrapping_keeps_every_character() {
        let s = "tiling/rowmajor-wg8x8 → tilex16-wg8x8 [radius=16;width=16384] (warm)";
        let lines = wrap(s, 24);
        assert!(lines.iter().all(|l| l.chars().count() <= 24), "{lines:?}");
        let joined: String = lines.concat();
        assert_eq!(joined.replace(' ', ""), s.replace(' ', ""), "{lines:?}");
        assert_eq!(wrap("short", 24), ["short"]);
        // No break opportunity: split hard, nothing lost.
        let long = "x".repeat(30);
        assert_eq!(wrap(&long, 12).concat(), long);
    }

    #[test]
    fn escaping_covers_markup_and_quotes() {
        assert_eq!(
            esc(r#"a<b & "c" 'd'"#),
            "a&lt;b &amp; &quot;c&quot; &#39;d&#39;"
        );
    }
}
