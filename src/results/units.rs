//! Which results.csv columns are a unit's throughput as a percentage of its peak (the P3
//! view's columns), and which `_pct` columns are not (issue 29: `cv_pct`, `trend_pct` and
//! `occupancy_pct` end the same way but are no unit). One list, read by the summary, `compare
//! --p3` and the report; docs/csv.md ("Unit columns") prints it, and a test keeps it equal to
//! the header.

/// Who measured a unit's percentage.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// The scenario's declared work against p3lab's measured peak (`p3lab peak`).
    Declared,
    /// The hardware's counters (`hw_*`, issue 25).
    Counted,
}

/// A %-of-peak column and the unit it names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UnitColumn {
    /// The unit as the limiter names it (`dram`, `fp32`, `tensor`, `sm`, …).
    pub unit: &'static str,
    /// Its results.csv column.
    pub column: &'static str,
    /// Whether the percentage is declared work against p3lab's peaks or hardware counters.
    pub source: Source,
}

const fn declared(unit: &'static str, column: &'static str) -> UnitColumn {
    UnitColumn {
        unit,
        column,
        source: Source::Declared,
    }
}

const fn counted(unit: &'static str, column: &'static str) -> UnitColumn {
    UnitColumn {
        unit,
        column,
        source: Source::Counted,
    }
}

/// Every unit column, declared first, in the limiter's order.
pub const UNIT_COLUMNS: &[UnitColumn] = &[
    declared("dram", "dram_pct"),
    declared("l2", "l2_pct"),
    declared("fp32", "flop_pct"),
    declared("shared", "shared_pct"),
    declared("texture", "texture_pct"),
    declared("atomic", "atomic_pct"),
    declared("shared_atomic", "shared_atomic_pct"),
    declared("int32", "int_pct"),
    declared("sfu", "sfu_pct"),
    declared("l1", "l1_pct"),
    declared("launch", "launch_pct"),
    declared("fp64", "fp64_pct"),
    declared("int8_dot", "int8_dot_pct"),
    declared("int16", "int16_pct"),
    declared("int64", "int64_pct"),
    declared("tensor", "tensor_pct"),
    declared("fp16", "fp16_pct"),
    counted("sm", "hw_sm_pct"),
    counted("dram", "hw_dram_pct"),
    counted("l2", "hw_l2_pct"),
    counted("l1tex", "hw_l1tex_pct"),
    counted("tensor", "hw_tensor_pct"),
];

/// results.csv's `_pct` columns that are not a unit's throughput, with what they are.
pub const OTHER_PCT_COLUMNS: &[(&str, &str)] = &[
    ("cv_pct", "the repetitions' coefficient of variation"),
    ("occupancy_pct", "theoretical occupancy"),
    ("ci_half_width_pct", "the median CI's half-width"),
    ("ci_target_pct", "the CI target the rounds aimed at"),
    ("trend_pct", "drift over the rounds"),
    (
        "limiter_pct",
        "the limiter's percentage (a copy of its unit's)",
    ),
    ("placement_pct", "the placement check's change"),
    ("hw_limiter_pct", "the counted limiter's percentage"),
    ("declared_limiter_pct", "the declared limiter's percentage"),
    ("placement_sd_pct", "the spread over placements"),
    ("clock_pct", "the SM clock against the run's highest"),
];

/// The unit column named `column`, if it is one.
pub fn unit_column(column: &str) -> Option<&'static UnitColumn> {
    UNIT_COLUMNS.iter().find(|u| u.column == column)
}

/// A row's unit percentages, from a getter of its numeric cells: every unit with a value,
/// in [`UNIT_COLUMNS`]' order. Counted units are named `unit (hw)` where a declared unit of
/// the same name has a value too, so both read apart.
pub fn unit_pcts(num: impl Fn(&str) -> Option<f64>) -> Vec<(String, f64)> {
    // A unit under 0.05 % (it prints as 0.0) is one the variant does not touch: a counter of
    // an idle pipe, or a declared traffic served elsewhere.
    let values: Vec<(&UnitColumn, f64)> = UNIT_COLUMNS
        .iter()
        .filter_map(|u| {
            num(u.column)
                .filter(|v| v.is_finite() && *v >= 0.05)
                .map(|v| (u, v))
        })
        .collect();
    values
        .iter()
        .map(|(u, v)| {
            let twin = u.source == Source::Counted
                && values
                    .iter()
                    .any(|(o, _)| o.source == Source::Declared && o.unit == u.unit);
            let name = if twin {
                format!("{} (hw)", u.unit)
            } else {
                u.unit.to_string()
            };
            (name, *v)
        })
        .collect()
}

/// `dram 89 · l2 12 · launch 3`: units busiest first, percentages without decimals (one
/// under 10 keeps one).
pub fn units_text(units: &[(String, f64)]) -> String {
    units_text_top(units, usize::MAX)
}

/// [`units_text`] with at most `n` units, and `· …` where more were left out (the terminal
/// summary's width).
pub fn units_text_top(units: &[(String, f64)], n: usize) -> String {
    let mut u = units.to_vec();
    u.sort_by(|a, b| b.1.total_cmp(&a.1));
    let mut parts: Vec<String> = u
        .iter()
        .take(n)
        .map(|(name, v)| format!("{name} {}", pct_text(*v)))
        .collect();
    if u.len() > n {
        parts.push("…".into());
    }
    parts.join(" · ")
}

/// The limiter as the summary and the report show it: `dram 89 %`, `l1tex 82 % (hw)` where the
/// counters decided (`counted`), `latency`; None for `none` or no verdict.
pub fn limiter_text(limiter: &str, pct: Option<f64>, counted: bool) -> Option<String> {
    if limiter.is_empty() || limiter == "none" {
        return None;
    }
    let hw = if counted { " (hw)" } else { "" };
    Some(match pct {
        Some(p) if !matches!(limiter, "latency" | "occupancy") => {
            format!("{limiter} {} %{hw}", pct_text(p))
        }
        _ => format!("{limiter}{hw}"),
    })
}

/// `89`, `7.5`, `0.3`: a percentage for a table cell.
pub fn pct_text(v: f64) -> String {
    if v.abs() >= 9.95 {
        format!("{v:.0}")
    } else {
        format!("{v:.1}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_pct_column_is_a_unit_or_named_as_not_one() {
        let header = crate::results::header::<crate::results::ResultRow>();
        for col in header.iter().filter(|c| c.ends_with("_pct")) {
            let unit = unit_column(col).is_some();
            let other = OTHER_PCT_COLUMNS.iter().any(|(c, _)| c == col);
            assert!(
                unit ^ other,
                "{col}: list it in UNIT_COLUMNS or OTHER_PCT_COLUMNS (exactly one)"
            );
        }
        for u in UNIT_COLUMNS {
            assert!(
                header.iter().any(|c| c == u.column),
                "{} not in the header",
                u.column
            );
        }
    }

    #[test]
    fn counted_twins_are_marked_and_text_is_busiest_first() {
        let cells = |c: &str| match c {
            "dram_pct" => Some(88.6),
            "launch_pct" => Some(3.04),
            "hw_dram_pct" => Some(91.2),
            "hw_sm_pct" => Some(12.0),
            "hw_tensor_pct" => Some(0.01),
            "cv_pct" => Some(50.0),
            _ => None,
        };
        let u = unit_pcts(cells);
        let names: Vec<&str> = u.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["dram", "launch", "sm", "dram (hw)"]);
        assert_eq!(
            units_text(&u),
            "dram (hw) 91 · dram 89 · sm 12 · launch 3.0"
        );
    }
}
