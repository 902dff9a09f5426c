//! The roofline of a scenario: each ok row a point at its arithmetic intensity (operations
//! per DRAM byte: counted DRAM bytes where the row has them, else its declared bytes, marked)
//! and its achieved throughput, under the measured ceilings of the run's peaks (DRAM and L2
//! bandwidth as slanted roofs; the compute unit of each point, FP32/FP16/FP64/tensor/int, as
//! a flat one). Log-log, each point hoverable (an SVG `<title>`).
//!
//! No point is drawn above a ceiling. Declared bytes that count cache hits make the intensity
//! read too low and a point sit over the DRAM roof: such a point is drawn where the roof
//! allows (the least intensity its throughput needs, a right-pointing triangle: "at least")
//! and the chart says so. A point over its compute ceiling (declared work that overcounts)
//! is left out and named.
use super::*;
use crate::p3::charts::esc;
use crate::peaks::Peaks;
use crate::results::RowStatus;

/// One row placed on the roofline.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RoofPoint {
    /// `variant [params, mode]`.
    pub label: String,
    /// Operations per DRAM byte, as drawn.
    pub intensity: f64,
    /// Achieved operations per second, G/s (operations ÷ median ns).
    pub gops: f64,
    /// The bytes were counted (DRAM read + written), not declared.
    pub counted: bool,
    /// Drawn at the least intensity its throughput needs: the declared bytes (cache hits
    /// among them) put it over the DRAM roof.
    pub at_least: bool,
    /// The peaks.csv unit of its compute ceiling (`fp32`, `tensor_f16_f32`, …).
    pub unit: String,
    /// That ceiling, G/s.
    pub compute_peak: f64,
}

/// A row's operations and the compute unit they run on: the declared kind with the most
/// work (tensor, FP16, FP32, FP64), else its int32 operations; None without declared work.
fn work_of(r: &crate::results::ResultRow) -> Option<(f64, String)> {
    let kinds = [
        (r.tensor_flops, r.tensor_unit.clone().unwrap_or_default()),
        (r.fp16_flops, "fp16".to_string()),
        (r.flops, "fp32".to_string()),
        (r.fp64_flops, "fp64".to_string()),
    ];
    let total: u64 = kinds.iter().filter_map(|(n, _)| *n).sum();
    let top = kinds
        .iter()
        .filter(|(n, u)| n.is_some_and(|n| n > 0) && !u.is_empty())
        .max_by_key(|(n, _)| n.unwrap_or(0));
    match top {
        Some((_, unit)) if total > 0 => Some((total as f64, unit.clone())),
        _ => r
            .int_ops
            .filter(|&n| n > 0)
            .map(|n| (n as f64, "int32".to_string())),
    }
}

/// The scenario's rows on the roofline, and a note for each ok row left off and why.
pub(crate) fn points(rows: &[&Record], peaks: &Peaks) -> (Vec<RoofPoint>, Vec<String>) {
    let mut out = Vec::new();
    let mut notes = Vec::new();
    let dram = peaks.dram();
    for rec in rows.iter().filter(|r| r.status() == RowStatus::Ok) {
        let r = &rec.row;
        let label = format!("{} [{}, {}]", r.variant, r.params, rec.mode().label());
        let Some(median) = r.median_ns.filter(|m| *m > 0.0) else {
            continue;
        };
        let Some((ops, unit)) = work_of(r) else {
            continue;
        };
        let counted = match (r.hw_dram_read_bytes, r.hw_dram_write_bytes) {
            (Some(a), Some(b)) if a + b > 0 => Some((a + b) as f64),
            _ => None,
        };
        let Some(bytes) = counted.or(r.bytes.filter(|&b| b > 0).map(|b| b as f64)) else {
            notes.push(format!("{label}: no DRAM bytes, counted or declared"));
            continue;
        };
        let Some(compute_peak) = peaks.get(&unit) else {
            notes.push(format!("{label}: no {unit} peak in the run's peaks"));
            continue;
        };
        let gops = ops / median;
        if gops > compute_peak * 1.0001 {
            notes.push(format!(
                "{label}: left off: {} G/s is over the {unit} ceiling ({} G/s); its declared work overcounts",
                sig(gops),
                sig(compute_peak)
            ));
            continue;
        }
        let mut intensity = ops / bytes;
        let mut at_least = false;
        if let Some(bw) = dram {
            if gops > bw * intensity * 1.0001 {
                // Over the DRAM roof: fewer bytes came from DRAM than were counted as its.
                intensity = gops / bw;
                at_least = true;
            }
        }
        out.push(RoofPoint {
            label,
            intensity,
            gops,
            counted: counted.is_some(),
            at_least,
            unit,
            compute_peak,
        });
    }
    if out.iter().any(|p| p.at_least) {
        notes.push(
            "▷ points: their declared bytes put them over the DRAM roof (cache hits counted as DRAM traffic); each is drawn at the least intensity its throughput needs"
                .into(),
        );
    }
    (out, notes)
}

const W: f64 = 860.0;
const H: f64 = 460.0;
const LEFT: f64 = 78.0;
const RIGHT: f64 = 210.0;
const TOP: f64 = 44.0;
const BOTTOM: f64 = 56.0;

/// Decades from `lo` to `hi` (powers of ten bracketing both).
fn decades(lo: f64, hi: f64) -> (f64, f64) {
    (
        lo.log10().floor(),
        hi.log10().ceil().max(lo.log10().floor() + 1.0),
    )
}

/// A power of ten as a short label: 0.01, 1, 100, 1e4.
fn pow_label(e: f64) -> String {
    match e as i32 {
        -2 => "0.01".into(),
        -1 => "0.1".into(),
        0 => "1".into(),
        1 => "10".into(),
        2 => "100".into(),
        3 => "1000".into(),
        k => format!("1e{k}"),
    }
}

/// The roofline chart of a scenario (None when no row can be placed), its notes with it.
pub(crate) fn chart(scenario: &str, rows: &[&Record], peaks: &Peaks) -> Option<Chart> {
    let (pts, notes) = points(rows, peaks);
    if pts.is_empty() {
        return None;
    }
    let dram = peaks.dram();
    let l2 = peaks.get("l2_read");
    let mut units: Vec<(String, f64)> = Vec::new();
    for p in &pts {
        if !units.iter().any(|(u, _)| *u == p.unit) {
            units.push((p.unit.clone(), p.compute_peak));
        }
    }
    let top = units.iter().map(|(_, v)| *v).fold(0.0, f64::max);
    let lo_y = pts.iter().map(|p| p.gops).fold(f64::INFINITY, f64::min);
    let ridge = dram.map(|bw| top / bw).unwrap_or(1.0);
    let lo_x = pts.iter().map(|p| p.intensity).fold(ridge, f64::min);
    let hi_x = pts.iter().map(|p| p.intensity).fold(ridge, f64::max);
    let (x0, x1) = decades(lo_x / 2.0, hi_x * 4.0);
    let (y0, y1) = decades(lo_y / 2.0, top * 1.5);
    let (pw, ph) = (W - LEFT - RIGHT, H - TOP - BOTTOM);
    let sx = |x: f64| LEFT + (x.log10() - x0) / (x1 - x0) * pw;
    let sy = |y: f64| TOP + ph - (y.log10() - y0) / (y1 - y0) * ph;
    let mut s = String::new();
    let _ = write!(
        s,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{W}\" height=\"{H}\" viewBox=\"0 0 {W} {H}\" role=\"img\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\" class=\"roofline\">\
         <rect width=\"{W}\" height=\"{H}\" fill=\"#fff\"/>\
         <text x=\"{LEFT}\" y=\"24\" font-size=\"16\" font-weight=\"bold\">{} — roofline</text>\
         <defs><clipPath id=\"plot-{}\"><rect x=\"{LEFT}\" y=\"{TOP}\" width=\"{pw}\" height=\"{ph}\"/></clipPath></defs>",
        esc(scenario),
        slug(scenario)
    );
    // Grid and ticks at each decade.
    for e in (x0 as i32)..=(x1 as i32) {
        let x = sx(10f64.powi(e));
        let _ = write!(
            s,
            "<line x1=\"{x:.1}\" y1=\"{TOP}\" x2=\"{x:.1}\" y2=\"{:.1}\" stroke=\"#e4e4e4\"/>\
             <text x=\"{x:.1}\" y=\"{:.1}\" font-size=\"12\" text-anchor=\"middle\">{}</text>",
            TOP + ph,
            TOP + ph + 16.0,
            pow_label(e as f64)
        );
    }
    for e in (y0 as i32)..=(y1 as i32) {
        let y = sy(10f64.powi(e));
        let _ = write!(
            s,
            "<line x1=\"{LEFT}\" y1=\"{y:.1}\" x2=\"{:.1}\" y2=\"{y:.1}\" stroke=\"#e4e4e4\"/>\
             <text x=\"{:.1}\" y=\"{:.1}\" font-size=\"12\" text-anchor=\"end\">{}</text>",
            LEFT + pw,
            LEFT - 6.0,
            y + 4.0,
            pow_label(e as f64)
        );
    }
    let _ = write!(
        s,
        "<rect x=\"{LEFT}\" y=\"{TOP}\" width=\"{pw}\" height=\"{ph}\" fill=\"none\" stroke=\"#888\"/>\
         <text x=\"{:.1}\" y=\"{:.1}\" font-size=\"13\" text-anchor=\"middle\">arithmetic intensity (operations per DRAM byte)</text>\
         <text transform=\"translate(18 {:.1}) rotate(-90)\" font-size=\"13\" text-anchor=\"middle\">achieved G operations/s</text>",
        LEFT + pw / 2.0,
        H - 14.0,
        TOP + ph / 2.0
    );
    // The ceilings: each roof from the left edge to where it meets the highest compute roof.
    let clip = format!("clip-path=\"url(#plot-{})\"", slug(scenario));
    let mut legend: Vec<(String, &str, bool)> = Vec::new();
    let xa = 10f64.powf(x0);
    let xb = 10f64.powf(x1);
    for (name, bw, colour) in [("DRAM", dram, "#0072B2"), ("L2", l2, "#56B4E9")] {
        let Some(bw) = bw else { continue };
        let xe = (top / bw).clamp(xa, xb);
        let _ = write!(
            s,
            "<line x1=\"{:.1}\" y1=\"{:.1}\" x2=\"{:.1}\" y2=\"{:.1}\" stroke=\"{colour}\" stroke-width=\"2\" {clip}><title>{name} {} GB/s (peaks.csv)</title></line>",
            sx(xa),
            sy(bw * xa),
            sx(xe),
            sy(bw * xe),
            sig(bw)
        );
        let unit = if name == "DRAM" {
            "dram_read"
        } else {
            "l2_read"
        };
        let doubt = if peaks.suspect.iter().any(|u| u == unit) {
            " (suspect)"
        } else {
            ""
        };
        legend.push((format!("{name} {} GB/s{doubt}", sig(bw)), colour, true));
    }
    for (i, (unit, peak)) in units.iter().enumerate() {
        let colour = ["#D55E00", "#009E73", "#CC79A7", "#E69F00"][i % 4];
        let from = dram.map(|bw| (peak / bw).clamp(xa, xb)).unwrap_or(xa);
        let _ = write!(
            s,
            "<line x1=\"{:.1}\" y1=\"{:.1}\" x2=\"{:.1}\" y2=\"{:.1}\" stroke=\"{colour}\" stroke-width=\"2\" stroke-dasharray=\"6 3\" {clip}><title>{} {} G/s (peaks.csv)</title></line>",
            sx(from),
            sy(*peak),
            sx(xb),
            sy(*peak),
            esc(unit),
            sig(*peak)
        );
        let doubt = if peaks.suspect.contains(unit) {
            " (suspect)"
        } else {
            ""
        };
        legend.push((format!("{unit} {} G/s{doubt}", sig(*peak)), colour, true));
    }
    for p in &pts {
        let (x, y) = (sx(p.intensity), sy(p.gops));
        let roof = dram
            .map(|bw| (bw * p.intensity).min(p.compute_peak))
            .unwrap_or(p.compute_peak);
        let title = format!(
            "{}: {} operations/byte{} ({} bytes), {} G/s = {:.0} % of its roof",
            p.label,
            sig(p.intensity),
            if p.at_least { " at least" } else { "" },
            if p.counted { "counted" } else { "declared" },
            sig(p.gops),
            100.0 * p.gops / roof
        );
        let fill = if p.counted { "#1b1b1b" } else { "#fff" };
        let shape = if p.at_least {
            format!(
                "<path d=\"M{:.1} {:.1} L{:.1} {:.1} L{:.1} {:.1} Z\" fill=\"{fill}\" stroke=\"#1b1b1b\" stroke-width=\"1.5\">",
                x - 5.0,
                y - 6.0,
                x + 6.0,
                y,
                x - 5.0,
                y + 6.0
            )
        } else {
            format!("<circle cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"5\" fill=\"{fill}\" stroke=\"#1b1b1b\" stroke-width=\"1.5\">")
        };
        let close = if p.at_least { "</path>" } else { "</circle>" };
        let _ = write!(
            s,
            "<g class=\"point\" data-intensity=\"{}\" data-gops=\"{}\" data-roof=\"{}\">{shape}<title>{}</title>{close}</g>",
            p.intensity,
            p.gops,
            roof,
            esc(&title)
        );
    }
    legend.push(("● counted DRAM bytes".into(), "#1b1b1b", false));
    legend.push(("○ declared bytes".into(), "#1b1b1b", false));
    for (i, (text, colour, line)) in legend.iter().enumerate() {
        let y = TOP + 10.0 + i as f64 * 18.0;
        let x = LEFT + pw + 14.0;
        if *line {
            let _ = write!(
                s,
                "<line x1=\"{x:.1}\" y1=\"{y:.1}\" x2=\"{:.1}\" y2=\"{y:.1}\" stroke=\"{colour}\" stroke-width=\"2\"/>",
                x + 18.0
            );
        }
        let _ = write!(
            s,
            "<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"12\">{}</text>",
            x + if *line { 24.0 } else { 0.0 },
            y + 4.0,
            esc(text)
        );
    }
    s.push_str("</svg>");
    Some(Chart {
        file: format!("{}-roofline", slug(scenario)),
        caption: format!(
            "{scenario}: roofline, each ok row a point (hover for its figures) under the run's measured ceilings"
        ),
        svg: s,
        notes,
    })
}
