//! Horizontal bar (or dot) charts with CI whiskers: medians per variant and speedups.
use super::*;

/// The value axis of a bar chart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Axis {
    /// Linear from 0; bars (times on a range within one decade).
    Linear,
    /// Logarithmic; a dot per row on a faint stem (times spanning decades, where bar lengths
    /// would mislead).
    Log,
    /// Logarithmic around 1 with a dashed reference line there; bars grow from 1 (speedups:
    /// 2× and 0.5× are equally far from 1).
    Ratio,
}

/// One row. `value: None` draws the label and note only (a row with no result).
#[derive(Debug, Clone, PartialEq)]
pub struct Bar {
    /// Text left of the bar, wrapped at 44 characters per line, never cut.
    pub label: String,
    /// Where the bar ends (or the dot sits), in the axis's unit; `None` draws no bar.
    pub value: Option<f64>,
    /// CI whisker ends, in the same unit as `value`.
    pub lo: Option<f64>,
    /// Upper CI whisker end, same unit; the whisker is drawn only when both ends are set (and
    /// positive on a log axis).
    pub hi: Option<f64>,
    /// Fill of the bar, dot and whisker: an SVG colour such as [`GREEN`] or a [`PALETTE`] entry.
    pub color: &'static str,
    /// Text right of the bar (the formatted value, or why there is none).
    pub note: String,
}

/// A horizontal bar chart: labels on the left (wrapped, never cut), notes on the right.
#[derive(Debug, Clone, PartialEq)]
pub struct BarChart<'a> {
    /// The chart's heading, above the subtitle.
    pub title: &'a str,
    /// Lines under the title (wrapped to the chart's width).
    pub subtitle: Vec<String>,
    /// Caption of the value axis, with its unit (e.g. `time (µs)`).
    pub x_label: String,
    /// How values map to the axis: linear from 0, log with dots, or log ratio around 1.
    pub axis: Axis,
    /// The rows, drawn top to bottom in this order.
    pub bars: &'a [Bar],
    /// Colour keys drawn under the axis; empty draws none.
    pub legend: &'a [LegendItem],
}

/// Longest label line, in characters, before it wraps.
const LABEL_CHARS: usize = 44;

/// Renders `c`. Whiskers that reach far beyond the bars (a CI from a handful of noisy samples)
/// are clipped at the plot's edge and end in an arrowhead instead of squashing every bar.
pub fn bar_chart(c: &BarChart) -> String {
    let labels: Vec<Vec<String>> = c.bars.iter().map(|b| wrap(&b.label, LABEL_CHARS)).collect();
    let label_w = labels
        .iter()
        .flatten()
        .map(|l| text_w(l, LABEL_PX))
        .fold(40.0, f64::max);
    let note_w = c
        .bars
        .iter()
        .map(|b| text_w(&b.note, TICK_PX))
        .fold(0.0, f64::max);
    let left = label_w + 24.0;
    let right = note_w + 24.0;
    let width = WIDTH.max(left + right + 320.0);
    let subtitle = wrap_subtitle(&c.subtitle, width);
    let row_h: Vec<f64> = labels
        .iter()
        .map(|l| (l.len() as f64 * LINE_PX + 11.0).max(26.0))
        .collect();
    let top = title_h(subtitle.len());
    let legend_rows = legend_rows(c.legend, width - 40.0);
    let plot_h = row_h.iter().sum::<f64>().max(26.0);
    let bottom = 56.0 + legend_rows as f64 * 20.0 + if legend_rows > 0 { 6.0 } else { 0.0 };
    let height = top + plot_h + bottom;
    let (x0, x1) = (left, width - right);

    let ratio = c.axis == Axis::Ratio;
    let log = c.axis != Axis::Linear;
    let origin: f64 = if ratio { 1.0 } else { 0.0 };
    let valid = |v: &f64| v.is_finite() && (!log || *v > 0.0);
    // The values set the core range; whiskers may widen it, but only so far.
    let values: Vec<f64> = c
        .bars
        .iter()
        .filter_map(|b| b.value)
        .filter(valid)
        .collect();
    let (vmin, vmax) = match c.axis {
        Axis::Log => values
            .iter()
            .fold((f64::INFINITY, 0.0f64), |(a, b), v| (a.min(*v), b.max(*v))),
        _ => values
            .iter()
            .fold((origin, origin), |(a, b), v| (a.min(*v), b.max(*v))),
    };
    let (vmin, vmax) = if vmin.is_finite() && vmax > 0.0 {
        (vmin, vmax)
    } else {
        (1.0, 10.0)
    };
    let (wmin, wmax) = c
        .bars
        .iter()
        .flat_map(|b| [b.lo, b.hi])
        .flatten()
        .filter(valid)
        .fold((vmin, vmax), |(a, b), v| (a.min(v), b.max(v)));
    let span_px = x1 - x0;
    let (ticks, lo, hi): (Vec<f64>, f64, f64) = match c.axis {
        Axis::Ratio => {
            let lo = (wmin.max(vmin / 4.0) / 1.08).min(1.0 / 1.05);
            let hi = (wmax.min(vmax * 4.0) * 1.08).max(1.05);
            (log_ticks(lo, hi, span_px, 48.0, true), lo, hi)
        }
        Axis::Log => {
            let lo = wmin.max(vmin / 4.0) / 1.15;
            let hi = wmax.min(vmax * 4.0) * 1.15;
            (log_ticks(lo, hi, span_px, 44.0, false), lo, hi)
        }
        Axis::Linear => {
            let hi = wmax.min(vmax.max(f64::MIN_POSITIVE) * 2.0).max(vmax * 1.02);
            let t = nice_ticks(0.0, if hi > 0.0 { hi } else { 1.0 }, 6);
            let top_tick = *t.last().unwrap_or(&1.0);
            (t, 0.0, top_tick)
        }
    };
    let tx = |v: f64| if log { v.max(1e-300).ln() } else { v };
    let (dmin, dmax) = (tx(lo), tx(hi));
    let sx = |v: f64| x0 + (tx(v) - dmin) / (dmax - dmin) * (x1 - x0);
    let clamp_x = |x: f64| x.clamp(x0, x1);
    let step = if ticks.len() > 1 {
        ticks[1] - ticks[0]
    } else {
        1.0
    };

    let mut d = Doc::new(width, height);
    d.title(c.title, &subtitle);
    let plot_bottom = top + plot_h;
    for &t in &ticks {
        let x = sx(t);
        d.line(x, top, x, plot_bottom, "#e3e3e3", 1.0, "");
        d.line(x, plot_bottom, x, plot_bottom + 5.0, "#333", 1.0, "");
        let label = if log {
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
        &c.x_label,
    );

    let base_x = if ratio { sx(1.0) } else { x0 };
    let mut y = top;
    for ((b, label), h) in c.bars.iter().zip(&labels).zip(&row_h) {
        let yc = y + h / 2.0;
        y += h;
        let first_baseline = yc + 4.5 - (label.len() as f64 - 1.0) * LINE_PX / 2.0;
        d.text_lines(x0 - 8.0, first_baseline, LABEL_PX, "end", "", label);
        let mut end_x = base_x;
        if let Some(v) = b.value.filter(valid) {
            let vx = clamp_x(sx(v));
            if c.axis == Axis::Log {
                d.line(x0, yc, vx, yc, b.color, 2.0, r#" stroke-opacity="0.35""#);
                let _ = writeln!(
                    d.body,
                    r#"<circle cx="{vx:.1}" cy="{yc:.1}" r="5" fill="{}"/>"#,
                    b.color
                );
                end_x = vx + 5.0;
            } else {
                let (a, z) = (vx.min(base_x), vx.max(base_x));
                d.rect(a, yc - 8.0, (z - a).max(1.5), 16.0, b.color);
                end_x = z;
            }
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
    if !c.legend.is_empty() {
        let ly = plot_bottom + 66.0;
        draw_legend_row(&mut d, c.legend, width / 2.0, ly, width - 40.0);
    }
    d.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bar(label: &str, v: f64) -> Bar {
        Bar {
            label: label.into(),
            value: Some(v),
            lo: Some(v * 0.9),
            hi: Some(v * 1.1),
            color: BLUE,
            note: format!("{v} µs"),
        }
    }

    #[test]
    fn text_is_escaped_and_documents_are_well_formed() {
        let svg = bar_chart(&BarChart {
            title: "a < b & c",
            subtitle: vec![],
            x_label: "time (µs)".into(),
            axis: Axis::Linear,
            bars: &[bar("x\"y", 1.0)],
            legend: &[],
        });
        assert!(svg.contains("a &lt; b &amp; c") && svg.contains("x&quot;y"));
        assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
    }

    #[test]
    fn long_labels_wrap_instead_of_being_cut() {
        let long = "rowmajor-wg8x8 → tilex16-wg8x8 [radius=16;width=16384;height=16384] (warm)";
        let svg = bar_chart(&BarChart {
            title: "t",
            subtitle: vec!["s".into()],
            x_label: "x".into(),
            axis: Axis::Log,
            bars: &[bar(long, 100.0), bar("b", 5000.0)],
            legend: &[],
        });
        assert!(!svg.contains('…'), "{svg}");
        for part in ["[radius=16;", "width=16384;", "(warm)"] {
            assert!(svg.contains(part), "{part} missing: {svg}");
        }
        // Log axis: dots, decade ticks.
        assert!(
            svg.contains("<circle") && svg.contains(">1000</text>"),
            "{svg}"
        );
    }
}
