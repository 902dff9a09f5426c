//! Hand-written SVG charts: horizontal bars with CI whiskers (medians, speedups) and line
//! charts for sweeps. No dependencies; text widths are estimated from character counts, so
//! margins are sized to the longest label rather than guessed.
use std::fmt::Write as _;

const FONT: &str = "DejaVu Sans, Helvetica, Arial, sans-serif";
/// Okabe-Ito (its yellow swapped for olive, which stays visible on white): distinguishable with the common colour-vision deficiencies.
pub const PALETTE: &[&str] = &[
    "#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#000000", "#999933",
];
pub const GREEN: &str = "#009E73";
pub const RED: &str = "#D55E00";
pub const GREY: &str = "#8c8c8c";
pub const BLUE: &str = "#0072B2";

const LABEL_PX: f64 = 13.0;
const TICK_PX: f64 = 12.0;
const TITLE_PX: f64 = 16.0;
const WIDTH: f64 = 860.0;

/// Estimated rendered width of `s` at `px` (DejaVu Sans averages ~0.6 em per character).
fn text_w(s: &str, px: f64) -> f64 {
    s.chars().count() as f64 * px * 0.61
}

pub(crate) fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// Shorten a label to `max` characters with an ellipsis.
fn clip(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(max.saturating_sub(1)).collect();
        t.push('…');
        t
    }
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

    // One argument per SVG attribute reads better at the call sites than a style struct.
    #[allow(clippy::too_many_arguments)]
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

    fn title(&mut self, title: &str, subtitle: &str) {
        let w = self.w;
        self.text(
            w / 2.0,
            24.0,
            TITLE_PX,
            "middle",
            r#" font-weight="bold""#,
            title,
        );
        if !subtitle.is_empty() {
            self.text(
                w / 2.0,
                42.0,
                TICK_PX,
                "middle",
                r##" fill="#444""##,
                subtitle,
            );
        }
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

/// One horizontal bar. `value: None` draws the label and note only (a row with no result).
#[derive(Debug, Clone, PartialEq)]
pub struct Bar {
    pub label: String,
    pub value: Option<f64>,
    /// CI whisker ends, in the same unit as `value`.
    pub lo: Option<f64>,
    pub hi: Option<f64>,
    pub color: &'static str,
    /// Text right of the bar (the formatted value, or why there is none).
    pub note: String,
}

/// A legend entry: colour and text.
pub type LegendItem = (&'static str, String);

/// Horizontal bar chart with labels on the left and notes on the right.
///
/// `ratio == false`: a linear axis from 0 (times). `ratio == true`: a logarithmic axis with bars
/// growing from 1.0 and a dashed reference line there (speedups: 2× and 0.5× are equally far
/// from 1). Whiskers that reach far beyond the bars (a CI from a handful of noisy samples) are
/// clipped at the plot's edge and end in an arrowhead instead of squashing every bar.
pub fn bar_chart(
    title: &str,
    subtitle: &str,
    x_label: &str,
    ratio: bool,
    bars: &[Bar],
    legend: &[LegendItem],
) -> String {
    let labels: Vec<String> = bars.iter().map(|b| clip(&b.label, 56)).collect();
    let label_w = labels
        .iter()
        .map(|l| text_w(l, LABEL_PX))
        .fold(40.0, f64::max);
    let note_w = bars
        .iter()
        .map(|b| text_w(&b.note, TICK_PX))
        .fold(0.0, f64::max);
    let left = label_w + 24.0;
    let right = note_w + 24.0;
    let width = WIDTH.max(left + right + 320.0);
    let row_h = 26.0;
    let top = if subtitle.is_empty() { 44.0 } else { 58.0 };
    let legend_h = if legend.is_empty() { 0.0 } else { 26.0 };
    let plot_h = row_h * bars.len().max(1) as f64;
    let bottom = 56.0 + legend_h;
    let height = top + plot_h + bottom;
    let (x0, x1) = (left, width - right);

    let origin: f64 = if ratio { 1.0 } else { 0.0 };
    let valid = |v: &f64| v.is_finite() && (!ratio || *v > 0.0);
    // The bars set the core range; whiskers may widen it, but only so far.
    let values: Vec<f64> = bars.iter().filter_map(|b| b.value).filter(valid).collect();
    let (vmin, vmax) = values
        .iter()
        .fold((origin, origin), |(a, b), v| (a.min(*v), b.max(*v)));
    let (wmin, wmax) = bars
        .iter()
        .flat_map(|b| [b.lo, b.hi])
        .flatten()
        .filter(valid)
        .fold((vmin, vmax), |(a, b), v| (a.min(v), b.max(v)));
    type Axis = (Vec<f64>, f64, f64, fn(f64) -> f64);
    let (ticks, lo, hi, tx): Axis = if ratio {
        let lo = (wmin.max(vmin / 4.0) / 1.08).min(1.0 / 1.05);
        let hi = (wmax.min(vmax * 4.0) * 1.08).max(1.05);
        let span_px = x1 - x0;
        (log_ticks(lo, hi, span_px), lo, hi, f64::ln)
    } else {
        let hi = wmax.min(vmax.max(f64::MIN_POSITIVE) * 2.0).max(vmax * 1.02);
        let t = nice_ticks(0.0, if hi > 0.0 { hi } else { 1.0 }, 6);
        let top_tick = *t.last().unwrap_or(&1.0);
        (t, 0.0, top_tick, |v| v)
    };
    let (dmin, dmax) = (tx(lo), tx(hi));
    let sx = |v: f64| {
        let v = if ratio { v.max(1e-300) } else { v };
        x0 + (tx(v) - dmin) / (dmax - dmin) * (x1 - x0)
    };
    let clamp_x = |x: f64| x.clamp(x0, x1);
    let step = if ticks.len() > 1 {
        ticks[1] - ticks[0]
    } else {
        1.0
    };

    let mut d = Doc::new(width, height);
    d.title(title, subtitle);
    let plot_bottom = top + plot_h;
    for &t in &ticks {
        let x = sx(t);
        d.line(x, top, x, plot_bottom, "#e3e3e3", 1.0, "");
        d.line(x, plot_bottom, x, plot_bottom + 5.0, "#333", 1.0, "");
        let label = if ratio {
            trim_num(t)
        } else {
            tick_label(t, step)
        };
        d.text(x, plot_bottom + 19.0, TICK_PX, "middle", "", &label);
    }
    d.line(x0, plot_bottom, x1, plot_bottom, "#333", 1.0, "");
    d.line(x0, top, x0, plot_bottom, "#333", 1.0, "");
    d.text(
        (x0 + x1) / 2.0,
        plot_bottom + 40.0,
        LABEL_PX,
        "middle",
        "",
        x_label,
    );

    let base_x = sx(origin);
    for (i, (b, label)) in bars.iter().zip(&labels).enumerate() {
        let yc = top + row_h * (i as f64 + 0.5);
        d.text(x0 - 8.0, yc + 4.5, LABEL_PX, "end", "", label);
        let mut end_x = base_x;
        if let Some(v) = b.value.filter(valid) {
            let vx = clamp_x(sx(v));
            let (a, z) = (vx.min(base_x), vx.max(base_x));
            d.rect(a, yc - 8.0, (z - a).max(1.5), 16.0, b.color);
            end_x = z;
        }
        if let (Some(l), Some(h)) = (b.lo.filter(valid), b.hi.filter(valid)) {
            let (xl, xh) = (sx(l), sx(h));
            let (cl, ch) = (clamp_x(xl), clamp_x(xh));
            d.line(cl, yc, ch, yc, "#222", 1.5, "");
            for (x, clipped, dir) in [(cl, xl < x0, -1.0), (ch, xh > x1, 1.0)] {
                if clipped {
                    let _ = writeln!(
                        d.body,
                        r##"<path d="M{:.1},{:.1} L{:.1},{yc:.1} L{:.1},{:.1} Z" fill="#222"/>"##,
                        x - dir * 7.0,
                        yc - 4.5,
                        x,
                        x - dir * 7.0,
                        yc + 4.5
                    );
                } else {
                    d.line(x, yc - 5.0, x, yc + 5.0, "#222", 1.5, "");
                }
            }
            end_x = end_x.max(ch);
        }
        if !b.note.is_empty() {
            let fill = if b.value.is_none() {
                r##" fill="#666" font-style="italic""##
            } else {
                ""
            };
            d.text(end_x + 6.0, yc + 4.0, TICK_PX, "start", fill, &b.note);
        }
    }
    if ratio {
        d.line(
            base_x,
            top - 4.0,
            base_x,
            plot_bottom,
            "#111",
            1.2,
            r#" stroke-dasharray="5,3""#,
        );
    }
    if !legend.is_empty() {
        draw_legend_row(&mut d, legend, width / 2.0, height - 14.0);
    }
    d.finish()
}

/// Ticks for a logarithmic ratio axis over `[lo, hi]` (lo < 1 < hi): 1 first, then round
/// values (1.25, 1.5, 2, 3, 5, … and their reciprocals' neighbours) outward, dropping any that
/// would sit closer than 48 px to one already placed.
fn log_ticks(lo: f64, hi: f64, span_px: f64) -> Vec<f64> {
    let px = |v: f64| (v.ln() - lo.ln()) / (hi.ln() - lo.ln()) * span_px;
    let mut cands = Vec::new();
    for e in -6..=6 {
        for m in [
            1.0, 1.1, 1.2, 1.25, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 9.0,
        ] {
            let v = m * 10f64.powi(e);
            if v >= lo && v <= hi {
                cands.push(v);
            }
        }
    }
    // Outward from 1 so the values nearest the reference line win.
    cands.sort_by(|a, b| a.ln().abs().total_cmp(&b.ln().abs()));
    let mut chosen: Vec<f64> = Vec::new();
    for c in cands {
        if chosen.iter().all(|t| (px(*t) - px(c)).abs() >= 48.0) {
            chosen.push(c);
        }
    }
    chosen.sort_by(f64::total_cmp);
    chosen
}

/// A number with at most 3 decimals and no trailing zeros.
fn trim_num(v: f64) -> String {
    let s = format!("{v:.3}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    s.to_string()
}

/// A horizontal legend centred on `cx`.
fn draw_legend_row(d: &mut Doc, items: &[LegendItem], cx: f64, y: f64) {
    let widths: Vec<f64> = items
        .iter()
        .map(|(_, t)| 22.0 + text_w(t, TICK_PX) + 18.0)
        .collect();
    let mut x = cx - widths.iter().sum::<f64>() / 2.0;
    for ((color, text), w) in items.iter().zip(widths) {
        d.rect(x, y - 10.0, 14.0, 12.0, color);
        d.text(x + 20.0, y, TICK_PX, "start", "", text);
        x += w;
    }
}

/// One point of a line chart, with an optional vertical whisker.
#[derive(Debug, Clone, PartialEq)]
pub struct Point {
    pub x: f64,
    pub y: f64,
    pub lo: Option<f64>,
    pub hi: Option<f64>,
}

/// One line. Points are drawn in x order.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    pub name: String,
    pub points: Vec<Point>,
}

/// Line chart of `series` (y from 0). `log_x` uses a base-2 logarithmic x axis (for
/// power-of-two sweeps such as sizes). X ticks are the data's x values when they fit.
pub fn line_chart(
    title: &str,
    subtitle: &str,
    x_label: &str,
    y_label: &str,
    series: &[Series],
    log_x: bool,
) -> String {
    let named = series.len() > 1 || series.iter().any(|s| !s.name.is_empty());
    let legend_w = if named {
        series
            .iter()
            .map(|s| text_w(&clip(&s.name, 40), TICK_PX))
            .fold(0.0, f64::max)
            + 48.0
    } else {
        0.0
    };
    // The plot keeps at least ~640 px; a wide legend widens the image instead.
    let width = WIDTH + (legend_w - 220.0).max(0.0);
    let top = if subtitle.is_empty() { 48.0 } else { 62.0 };
    let (left, right, bottom) = (78.0, 24.0 + legend_w, 58.0);
    let plot_h: f64 = 330.0;
    let legend_rows = if named {
        series.len() as f64 * 20.0 + 10.0
    } else {
        0.0
    };
    let height = top + plot_h.max(legend_rows) + bottom;
    let plot_h = height - top - bottom;
    let (x0, x1, y0, y1) = (left, width - right, top + plot_h, top);

    let tx = |x: f64| if log_x { x.log2() } else { x };
    let mut xs: Vec<f64> = series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.x))
        .collect();
    xs.sort_by(f64::total_cmp);
    xs.dedup();
    let (xmin, xmax) = match (xs.first(), xs.last()) {
        (Some(a), Some(b)) if b > a => (tx(*a), tx(*b)),
        (Some(a), _) => (tx(*a) - 1.0, tx(*a) + 1.0),
        _ => (0.0, 1.0),
    };
    let xpad = (xmax - xmin) * 0.04;
    let (xmin, xmax) = (xmin - xpad, xmax + xpad);
    let sx = |x: f64| x0 + (tx(x) - xmin) / (xmax - xmin) * (x1 - x0);

    let ymax = series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.hi.unwrap_or(p.y).max(p.y)))
        .fold(0.0, f64::max);
    let yt = nice_ticks(0.0, if ymax > 0.0 { ymax } else { 1.0 }, 6);
    let ystep = if yt.len() > 1 { yt[1] - yt[0] } else { 1.0 };
    let ytop = *yt.last().unwrap_or(&1.0);
    let sy = |y: f64| y0 - y / ytop * (y0 - y1);

    let mut d = Doc::new(width, height);
    d.title(title, subtitle);
    for &t in &yt {
        let y = sy(t);
        d.line(x0, y, x1, y, "#e3e3e3", 1.0, "");
        d.line(x0 - 5.0, y, x0, y, "#333", 1.0, "");
        d.text(x0 - 8.0, y + 4.0, TICK_PX, "end", "", &tick_label(t, ystep));
    }
    // X ticks: the data values when their labels do not collide, else round values.
    let labels_fit = xs.len() <= 16
        && xs.windows(2).all(|w| {
            let gap = sx(w[1]) - sx(w[0]);
            gap > (text_w(&sig_tick(w[0]), TICK_PX) + text_w(&sig_tick(w[1]), TICK_PX)) / 2.0 + 6.0
        });
    let xticks: Vec<f64> = if labels_fit {
        xs.clone()
    } else if log_x {
        let (a, b) = (xmin.ceil() as i32, xmax.floor() as i32);
        let stride = (((b - a) as f64 / 8.0).ceil() as i32).max(1);
        (a..=b)
            .step_by(stride as usize)
            .map(|e| 2f64.powi(e))
            .collect()
    } else {
        nice_ticks(xmin, xmax, 7)
            .into_iter()
            .filter(|t| *t >= xmin && *t <= xmax)
            .collect()
    };
    for &t in &xticks {
        let x = sx(t);
        d.line(x, y0, x, y0 + 5.0, "#333", 1.0, "");
        d.text(x, y0 + 19.0, TICK_PX, "middle", "", &sig_tick(t));
    }
    d.line(x0, y0, x1, y0, "#333", 1.0, "");
    d.line(x0, y0, x0, y1, "#333", 1.0, "");
    d.text((x0 + x1) / 2.0, y0 + 42.0, LABEL_PX, "middle", "", x_label);
    let yl_x = 18.0;
    let yl_y = (y0 + y1) / 2.0;
    d.text(
        yl_x,
        yl_y,
        LABEL_PX,
        "middle",
        &format!(r#" transform="rotate(-90 {yl_x:.1} {yl_y:.1})""#),
        y_label,
    );

    for (i, s) in series.iter().enumerate() {
        let color = PALETTE[i % PALETTE.len()];
        // After the palette runs out, lines repeat colours dashed.
        let dash = if i >= PALETTE.len() {
            r#" stroke-dasharray="7,4""#
        } else {
            ""
        };
        let mut pts = s.points.clone();
        pts.sort_by(|a, b| a.x.total_cmp(&b.x));
        let path: Vec<String> = pts
            .iter()
            .map(|p| format!("{:.1},{:.1}", sx(p.x), sy(p.y)))
            .collect();
        let _ = writeln!(
            d.body,
            r#"<polyline points="{}" fill="none" stroke="{color}" stroke-width="2"{dash}/>"#,
            path.join(" ")
        );
        for p in &pts {
            let (x, y) = (sx(p.x), sy(p.y));
            if let (Some(lo), Some(hi)) = (p.lo, p.hi) {
                let (a, b) = (sy(lo), sy(hi));
                d.line(x, a, x, b, color, 1.3, "");
                d.line(x - 4.0, a, x + 4.0, a, color, 1.3, "");
                d.line(x - 4.0, b, x + 4.0, b, color, 1.3, "");
            }
            let _ = writeln!(
                d.body,
                r#"<circle cx="{x:.1}" cy="{y:.1}" r="3.5" fill="{color}" stroke="white" stroke-width="1"/>"#
            );
        }
        if named {
            let ly = y1 + 8.0 + i as f64 * 20.0;
            let lx = x1 + 16.0;
            d.line(lx, ly, lx + 20.0, ly, color, 2.5, dash);
            d.text(
                lx + 26.0,
                ly + 4.0,
                TICK_PX,
                "start",
                "",
                &clip(&s.name, 40),
            );
        }
    }
    d.finish()
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
    fn text_is_escaped_and_documents_are_well_formed() {
        let svg = bar_chart(
            "a < b & c",
            "",
            "time (µs)",
            false,
            &[Bar {
                label: "x\"y".into(),
                value: Some(1.0),
                lo: Some(0.9),
                hi: Some(1.1),
                color: BLUE,
                note: "1 µs".into(),
            }],
            &[],
        );
        assert!(svg.contains("a &lt; b &amp; c") && svg.contains("x&quot;y"));
        assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
    }
}
