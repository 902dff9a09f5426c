//! The one way p3lab writes numbers for people (terminal, Markdown, HTML): times in the unit
//! that keeps them readable with four significant digits, other quantities with four
//! significant digits (counts without decimals).
/// Divisor and unit for times of magnitude `ns`: one unit per table.
pub fn time_unit(ns: f64) -> (f64, &'static str) {
    if ns >= 1e9 {
        (1e9, "s")
    } else if ns >= 1e6 {
        (1e6, "ms")
    } else if ns >= 1e3 {
        (1e3, "µs")
    } else {
        (1.0, "ns")
    }
}

/// A time with four significant digits in the unit that keeps it readable: `812.0 ns`,
/// `89.02 µs`, `2.295 ms`.
pub fn fmt_time(ns: f64) -> String {
    let (div, unit) = time_unit(ns.abs());
    format!("{:.d$} {unit}", ns / div, d = decimals(ns.abs() / div))
}

/// Decimals that give the smallest value (in the unit) four significant digits, at most 3.
pub fn decimals(smallest: f64) -> usize {
    if !(smallest.is_finite() && smallest > 0.0) {
        return 1;
    }
    (3 - smallest.log10().floor() as i32).clamp(0, 3) as usize
}

/// About four significant digits, no exponent for everyday magnitudes.
pub fn sig(x: f64) -> String {
    if !x.is_finite() {
        return format!("{x}");
    }
    if x.fract() == 0.0 && x.abs() < 1e15 {
        // Counts (registers, invocations, bytes) read best without decimals.
        return format!("{x:.0}");
    }
    let mag = x.abs().log10().floor() as i32;
    if !(-4..15).contains(&mag) {
        return format!("{x:.3e}");
    }
    let decimals = (3 - mag).clamp(0, 6) as usize;
    format!("{x:.decimals$}")
}
