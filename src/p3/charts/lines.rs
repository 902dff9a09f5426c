//! Line charts for sweeps: one line per series with CI whiskers, a legend on the right.
use super::*;

/// One point of a line chart, with an optional vertical whisker.
#[derive(Debug, Clone, PartialEq)]
pub struct Point {
    /// Position on the x axis (the swept param's value); must be positive when `log_x`.
    pub x: f64,
    /// The value (e.g. a median), in the y axis's unit.
    pub y: f64,
    /// Lower whisker end (e.g. the CI's), same unit as `y`; a whisker needs both ends.
    pub lo: Option<f64>,
    /// Upper whisker end, same unit as `y`; `None` draws no whisker.
    pub hi: Option<f64>,
}

/// One line. Points are drawn in x order.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// Legend text, wrapped to 36 characters; with a single unnamed series no legend is drawn.
    pub name: String,
    /// The line's points, in any order (drawn sorted by x).
    pub points: Vec<Point>,
}

/// A line chart of `series`.
#[derive(Debug, Clone, PartialEq)]
pub struct LineChart<'a> {
    /// The chart's heading, above the subtitle.
    pub title: &'a str,
    /// Lines under the title (wrapped to the chart's width).
    pub subtitle: Vec<String>,
    /// Caption of the x axis, with its unit.
    pub x_label: String,
    /// Caption of the y axis, with its unit.
    pub y_label: String,
    /// The lines; colours follow [`PALETTE`] in this order, repeated dashed after 8.
    pub series: &'a [Series],
    /// A base-2 logarithmic x axis (power-of-two sweeps such as sizes).
    pub log_x: bool,
    /// A logarithmic y axis (values spanning decades); otherwise linear.
    pub log_y: bool,
    /// A linear y axis always starts at 0 (counts); otherwise it starts at the data when every
    /// value lies in the top half of the range (times that differ by a few %).
    pub from_zero: bool,
}

/// Longest legend line, in characters, before it wraps.
const LEGEND_CHARS: usize = 36;

/// Renders `c`. X ticks are the data's x values when they fit. After the palette's 8 colours,
/// lines repeat them dashed.
pub fn line_chart(c: &LineChart) -> String {
    let series = c.series;
    let named = series.len() > 1 || series.iter().any(|s| !s.name.is_empty());
    let legend: Vec<Vec<String>> = series.iter().map(|s| wrap(&s.name, LEGEND_CHARS)).collect();
    let legend_w = if named {
        legend
            .iter()
            .flatten()
            .map(|l| text_w(l, TICK_PX))
            .fold(0.0, f64::max)
            + 48.0
    } else {
        0.0
    };
    // The plot keeps at least ~640 px; a wide legend widens the image instead.
    let width = WIDTH + (legend_w - 220.0).max(0.0);
    let subtitle = wrap_subtitle(&c.subtitle, width);
    let top = title_h(subtitle.len()) + 4.0;
    let (left, right, bottom) = (78.0, 24.0 + legend_w, 58.0);
    let plot_h: f64 = 330.0;
    let legend_h: f64 = if named {
        legend
            .iter()
            .map(|l| (l.len() - 1) as f64 * LINE_PX + 20.0)
            .sum::<f64>()
            + 10.0
    } else {
        0.0
    };
    let height = top + plot_h.max(legend_h) + bottom;
    let plot_h = height - top - bottom;
    let (x0, x1, y0, y1) = (left, width - right, top + plot_h, top);

    let tx = |x: f64| if c.log_x { x.log2() } else { x };
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

    let all = || series.iter().flat_map(|s| s.points.iter());
    let ymax = all()
        .map(|p| p.hi.unwrap_or(p.y).max(p.y))
        .fold(0.0, f64::max);
    let (yt, ylo, yhi) = if c.log_y {
        let ymin = all()
            .map(|p| p.lo.filter(|l| *l > 0.0).unwrap_or(p.y).min(p.y))
            .filter(|v| *v > 0.0)
            .fold(f64::INFINITY, f64::min);
        let (lo, hi) = (ymin / 1.15, ymax * 1.15);
        (log_ticks(lo, hi, y0 - y1, 24.0, false), lo, hi)
    } else {
        // From 0, unless every value sits in the top half: then the lines would be flat at
        // the top, so the axis spans the data (its first tick says where it starts).
        let ymin = all()
            .map(|p| p.lo.unwrap_or(p.y).min(p.y))
            .fold(f64::INFINITY, f64::min);
        let from = if !c.from_zero && ymin.is_finite() && ymin > 0.5 * ymax && ymin < ymax {
            ymin
        } else {
            0.0
        };
        let t = nice_ticks(from, if ymax > from { ymax } else { from + 1.0 }, 6);
        let (bottom, top) = (t[0], *t.last().unwrap_or(&1.0));
        (t, bottom, top)
    };
    let ystep = if yt.len() > 1 { yt[1] - yt[0] } else { 1.0 };
    let ty = |y: f64| if c.log_y { y.max(1e-300).ln() } else { y };
    let sy = |y: f64| y0 - (ty(y) - ty(ylo)) / (ty(yhi) - ty(ylo)) * (y0 - y1);

    let mut d = Doc::new(width, height);
    d.title(c.title, &subtitle);
    for &t in &yt {
        let y = sy(t);
        d.line(x0, y, x1, y, "#e3e3e3", 1.0, "");
        d.line(x0 - 5.0, y, x0, y, "#333", 1.0, "");
        let label = if c.log_y {
            trim_num(t)
        } else {
            tick_label(t, ystep)
        };
        d.text(x0 - 8.0, y + 4.0, TICK_PX, "end", "", &label);
    }
    // X ticks: the data values when their labels do not collide, else round values.
    let labels_fit = xs.len() <= 16
        && xs.windows(2).all(|w| {
            let gap = sx(w[1]) - sx(w[0]);
            gap > (text_w(&sig_tick(w[0]), TICK_PX) + text_w(&sig_tick(w[1]), TICK_PX)) / 2.0 + 6.0
        });
    let xticks: Vec<f64> = if labels_fit {
        xs.clone()
    } else if c.log_x {
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
    d.text(
        (x0 + x1) / 2.0,
        y0 + 42.0,
        LABEL_PX,
        "middle",
        "",
        &c.x_label,
    );
    let yl_x = 18.0;
    let yl_y = (y0 + y1) / 2.0;
    d.text(
        yl_x,
        yl_y,
        LABEL_PX,
        "middle",
        &format!(r#" transform="rotate(-90 {yl_x:.1} {yl_y:.1})""#),
        &c.y_label,
    );

    let mut ly = y1 + 8.0;
    for (i, (s, name)) in series.iter().zip(&legend).enumerate() {
        let color = PALETTE[i % PALETTE.len()];
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
            let lx = x1 + 16.0;
            d.line(lx, ly, lx + 20.0, ly, color, 2.5, dash);
            d.text_lines(lx + 26.0, ly + 4.0, TICK_PX, "start", "", name);
            ly += (name.len() - 1) as f64 * LINE_PX + 20.0;
        }
    }
    d.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_y_for_values_spanning_decades() {
        let pt = |x: f64, y: f64| Point {
            x,
            y,
            lo: Some(y * 0.95),
            hi: Some(y * 1.05),
        };
        let series = [Series {
            name: "a very long series name that has to wrap, workgroup=16x16, mode=cold".into(),
            points: vec![pt(1.0, 100.0), pt(2.0, 1000.0), pt(4.0, 9000.0)],
        }];
        let svg = line_chart(&LineChart {
            title: "t",
            subtitle: vec![],
            x_label: "x".into(),
            y_label: "median time (µs)".into(),
            series: &series,
            log_x: true,
            log_y: true,
            from_zero: false,
        });
        assert!(
            svg.contains(">1000</text>") && svg.contains(">100</text>"),
            "{svg}"
        );
        assert!(svg.contains("mode=cold") && !svg.contains('…'), "{svg}");
    }
}
