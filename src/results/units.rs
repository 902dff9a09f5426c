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

/// Every unit column, declared first, in the limiter's order: the unit registry's
/// ([`crate::units::DECLARED`], then [`crate::units::COUNTED`]).
pub static UNIT_COLUMNS: std::sync::LazyLock<Vec<UnitColumn>> = std::sync::LazyLock::new(|| {
    let declared = crate::units::DECLARED.iter().map(|u| UnitColumn {
        unit: u.name,
        column: u.column,
        source: Source::Declared,
    });
    let counted = crate::units::COUNTED.iter().map(|u| UnitColumn {
        unit: u.name,
        column: u.column,
        source: Source::Counted,
    });
    declared.chain(counted).collect()
});

/// The counted columns that stand behind each declared unit (issue 39), in groups: the
/// figure is the largest of the first group with a value (a later group is the coarser unit
/// the work also runs through); the registry's [`crate::units::Declared::counters`]. `launch`
/// has none.
pub fn counted_for(declared: &str) -> &'static [&'static [&'static str]] {
    crate::units::declared(declared).map_or(&[], |u| u.counters)
}

/// The counted figure behind a declared unit ([`counted_for`]): its column and value.
pub fn counted_figure(
    declared: &str,
    num: impl Fn(&str) -> Option<f64>,
) -> Option<(&'static str, f64)> {
    for group in counted_for(declared) {
        let best = group
            .iter()
            .filter_map(|c| num(c).filter(|v| v.is_finite()).map(|v| (*c, v)))
            .max_by(|a, b| a.1.total_cmp(&b.1));
        if best.is_some() {
            return best;
        }
    }
    None
}

/// The counted unit a `hw_*_pct` column names (`hw_tex_pct` → `tex`).
pub fn counted_unit(column: &str) -> &'static str {
    UNIT_COLUMNS
        .iter()
        .find(|u| u.column == column)
        .map(|u| u.unit)
        .unwrap_or("")
}

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

/// The value a view gives a declared unit whose figure came out over 100 % and that has no
/// counted figure to stand in: [`pct_text`] prints it as `>100 (declared)`.
pub const OVER_PEAK: f64 = f64::INFINITY;

/// A row's unit percentages, from a getter of its numeric cells and its
/// `declared_over_units`: counted units first, busiest first, each named `unit (hw)`; then the
/// declared units, busiest first. A declared unit over 100 % is never shown as a number: its
/// counted figure is among the counted units where the row has one, else it reads
/// `>100 (declared)` ([`OVER_PEAK`]) — not a verdict (issue 39).
pub fn unit_pcts(num: impl Fn(&str) -> Option<f64>, over_units: &str) -> Vec<(String, f64)> {
    // A unit under 0.05 % (it prints as 0.0) is one the variant does not touch: a counter of
    // an idle pipe, or a declared traffic served elsewhere.
    // A row from a p3lab before issue 39 has no `declared_over_units` and keeps its declared
    // figures over 100 in their cells: those count as over too, never as a number.
    let mut over: Vec<&str> = over_units.split('+').filter(|u| !u.is_empty()).collect();
    for u in UNIT_COLUMNS.iter() {
        let past = num(u.column).is_some_and(|v| v.is_finite() && v > 100.0);
        if u.source == Source::Declared && past && !over.contains(&u.unit) {
            over.push(u.unit);
        }
    }
    let mut counted: Vec<(String, f64)> = Vec::new();
    let mut declared: Vec<(String, f64)> = Vec::new();
    for u in UNIT_COLUMNS.iter() {
        if u.source == Source::Declared && over.contains(&u.unit) {
            continue;
        }
        let Some(v) = num(u.column).filter(|v| v.is_finite() && *v >= 0.05) else {
            continue;
        };
        match u.source {
            Source::Counted => counted.push((format!("{} (hw)", u.unit), v.min(100.0))),
            Source::Declared => declared.push((u.unit.to_string(), v.min(100.0))),
        }
    }
    counted.sort_by(|a, b| b.1.total_cmp(&a.1));
    declared.sort_by(|a, b| b.1.total_cmp(&a.1));
    // Last: the impossible figures that no counter stands in for; not a measurement.
    for o in &over {
        if counted_figure(o, &num).is_none() {
            declared.push((o.to_string(), OVER_PEAK));
        }
    }
    counted.extend(declared);
    counted
}

/// `dram (hw) 91 · dram 89 · launch 3.0`: units in the order given ([`unit_pcts`]: counted
/// first, busiest first), percentages without decimals (one under 10 keeps one).
pub fn units_text(units: &[(String, f64)]) -> String {
    units_text_top(units, usize::MAX)
}

/// [`units_text`] with at most `n` units, and `· …` where more were left out (the terminal
/// summary's width).
pub fn units_text_top(units: &[(String, f64)], n: usize) -> String {
    let u = units;
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
        // A declared limiter over its peak (a row from a p3lab before issue 39) is no
        // measurement: it reads as such, not as the impossible figure.
        Some(p) if !counted && p > 100.0 && !matches!(limiter, "latency" | "occupancy") => {
            format!("{limiter} {}", pct_text(OVER_PEAK))
        }
        // A counter's sampled figure a hair past its sustained peak is the peak.
        Some(p) if !matches!(limiter, "latency" | "occupancy") => {
            format!("{limiter} {} %{hw}", pct_text(p.min(100.0)))
        }
        _ => format!("{limiter}{hw}"),
    })
}

/// `89 %`, `7.5 %`, `>100 (declared)`: a percentage with its sign, for a table cell.
pub fn pct_cell_text(v: f64) -> String {
    if v == OVER_PEAK {
        pct_text(v)
    } else {
        format!("{} %", pct_text(v))
    }
}

/// `89`, `7.5`, `0.3`: a percentage for a table cell; `>100 (declared)` for [`OVER_PEAK`].
pub fn pct_text(v: f64) -> String {
    if v == OVER_PEAK {
        ">100 (declared)".into()
    } else if v.abs() >= 9.95 {
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
        for u in UNIT_COLUMNS.iter() {
            assert!(
                header.iter().any(|c| c == u.column),
                "{} not in the header",
                u.column
            );
        }
    }

    #[test]
    fn counted_units_come_first_marked_and_busiest_first() {
        let cells = |c: &str| match c {
            "dram_pct" => Some(88.6),
            "launch_pct" => Some(3.04),
            "hw_dram_pct" => Some(91.2),
            "hw_sm_pct" => Some(12.0),
            "hw_tensor_pct" => Some(0.01),
            "cv_pct" => Some(50.0),
            _ => None,
        };
        let u = unit_pcts(cells, "");
        let names: Vec<&str> = u.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["dram (hw)", "sm (hw)", "dram", "launch"]);
        assert_eq!(
            units_text(&u),
            "dram (hw) 91 · sm (hw) 12 · dram 89 · launch 3.0"
        );
    }

    /// A declared unit over 100 % is never a number: with a counted figure behind it, the
    /// counted unit shows; without, `>100 (declared)`, after every figure that is possible.
    #[test]
    fn a_declared_unit_over_100_reads_as_such_or_gives_way_to_its_counter() {
        let no_counters = |c: &str| match c {
            "texture_pct" => None, // emptied by the limiter
            "l2_pct" => Some(40.0),
            _ => None,
        };
        let u = unit_pcts(no_counters, "texture");
        assert_eq!(units_text(&u), "l2 40 · texture >100 (declared)");
        let counted = |c: &str| match c {
            "texture_pct" => Some(81.0), // the counted figure, put there by apply_counted
            "hw_tex_pct" => Some(81.0),
            "hw_l1tex_pct" => Some(85.0),
            _ => None,
        };
        let u = unit_pcts(counted, "texture");
        assert_eq!(units_text(&u), "l1tex (hw) 85 · tex (hw) 81");
        assert!(u.iter().all(|(_, v)| *v <= 100.0));
    }

    /// A row written before issue 39 keeps a declared figure over 100 in its cell and has no
    /// `declared_over_units`: the views still never print it as a number.
    #[test]
    fn an_old_rows_declared_figure_over_100_never_prints_as_a_number() {
        let old_row = |c: &str| match c {
            "flop_pct" => Some(186.0),
            "dram_pct" => Some(40.0),
            _ => None,
        };
        let u = unit_pcts(old_row, "");
        assert_eq!(units_text(&u), "dram 40 · fp32 >100 (declared)");
        assert_eq!(
            limiter_text("fp32", Some(186.0), false).unwrap(),
            "fp32 >100 (declared)"
        );
        assert_eq!(
            limiter_text("dram", Some(100.4), true).unwrap(),
            "dram 100 % (hw)"
        );
        assert_eq!(
            limiter_text("dram", Some(89.0), false).unwrap(),
            "dram 89 %"
        );
    }

    #[test]
    fn every_declared_unit_but_launch_has_a_counter_behind_it() {
        for u in UNIT_COLUMNS.iter().filter(|u| u.source == Source::Declared) {
            let groups = counted_for(u.unit);
            assert_eq!(groups.is_empty(), u.unit == "launch", "{}", u.unit);
            for c in groups.iter().flat_map(|g| g.iter()) {
                assert!(
                    UNIT_COLUMNS
                        .iter()
                        .any(|x| x.column == *c && x.source == Source::Counted),
                    "{c}"
                );
            }
        }
        let num = |c: &str| match c {
            "hw_alu_pct" => Some(30.0),
            "hw_fmaheavy_pct" => Some(97.0),
            "hw_sm_pct" => Some(99.0),
            _ => None,
        };
        assert_eq!(
            counted_figure("int32", num),
            Some(("hw_fmaheavy_pct", 97.0))
        );
        assert_eq!(counted_figure("sfu", num), Some(("hw_sm_pct", 99.0)));
        assert_eq!(counted_figure("launch", num), None);
    }
}
