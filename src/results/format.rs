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

/// A time ratio new ÷ base in words, below 1 faster: `1.35× faster` (ratio 0.741), `1.02×
/// slower`, `same` (exactly 1). Two decimals, three when within 2 % of 1. The one direction
/// every p3lab output uses (issue 29): the number is new ÷ base, the words say which way.
pub fn ratio_words(ratio: f64) -> String {
    if !(ratio.is_finite() && ratio > 0.0) {
        return "-".into();
    }
    let (x, way) = if ratio < 1.0 {
        (1.0 / ratio, "faster")
    } else if ratio > 1.0 {
        (ratio, "slower")
    } else {
        return "same".into();
    };
    let d = if x < 1.02 { 3 } else { 2 };
    format!("{x:.d$}× {way}")
}

/// A ratio with its 95 % interval: `0.893 [0.81, 0.99]`, three decimals for the ratio, the
/// interval with two (three when narrower than 0.02).
pub fn fmt_ratio_ci(ratio: f64, ci: Option<(f64, f64)>) -> String {
    match ci {
        Some((lo, hi)) if lo > 0.0 && hi >= lo => {
            let d = if hi - lo < 0.02 { 3 } else { 2 };
            format!("{ratio:.3} [{lo:.d$}, {hi:.d$}]")
        }
        _ => format!("{ratio:.3} (no CI)"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ratios_read_one_way_in_words() {
        assert_eq!(ratio_words(0.5), "2.00× faster");
        assert_eq!(ratio_words(1.25), "1.25× slower");
        assert_eq!(ratio_words(0.99), "1.010× faster");
        assert_eq!(ratio_words(1.0), "same");
        assert_eq!(ratio_words(0.0), "-");
        assert_eq!(
            fmt_ratio_ci(0.893, Some((0.81, 0.99))),
            "0.893 [0.81, 0.99]"
        );
        assert_eq!(
            fmt_ratio_ci(1.0, Some((0.995, 1.005))),
            "1.000 [0.995, 1.005]"
        );
        assert_eq!(fmt_ratio_ci(1.0, Some((-0.2, 1.5))), "1.000 (no CI)");
    }
}
