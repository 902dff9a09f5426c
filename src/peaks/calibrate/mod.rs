//! From a calibration run's results.csv to peaks.csv rows: each unit's best checked variant
//! and the agreement check (here), the cross-unit rules that mark a peak suspect (rules.rs),
//! and the L2 capacity knee (l2.rs).
use super::verify::OwnCounts;
use super::{Peak, Unit, AGREE, PEAKS_SCHEMA_VERSION, UNITS};
use crate::results::{Mode, Record, ResultRow, RowStatus};
use std::path::Path;

mod l2;
mod rules;
#[cfg(test)]
mod tests;

pub use l2::knee;
use l2::l2_capacity;
use rules::cross_check;

/// The unit a calibration variant measures: its name's first `-`-separated word.
pub fn unit_of(variant: &str) -> Option<&'static Unit> {
    let prefix = variant.split('-').next().unwrap_or("");
    UNITS.iter().find(|u| u.name == prefix)
}

fn num(row: &Record, col: &str) -> Option<f64> {
    row.num(col)
}

/// The value a row gives its unit: work ÷ time (per ns = giga per s), or the median.
///
/// The time is the median less `fixed_ns`, the fixed cost of one dispatch (the calibration's
/// empty dispatch; calibration rows are one dispatch each), where that cost is under a
/// quarter of the median. A rate of work ÷ median counts the fixed cost as if it were work:
/// a variant with more work per dispatch then beats the "peak". On an H100 a 2.36 M-group
/// tiling pass launched at 100.06 % of the launch rate that 1 M empty groups gave (H200:
/// 100.28 %), with a 2.66 µs empty dispatch in each 633 µs calibration run.
fn row_value(u: &Unit, row: &Record, fixed_ns: Option<f64>) -> Option<f64> {
    let median = num(row, "median_ns").filter(|m| *m > 0.0 && m.is_finite())?;
    if u.work.is_empty() {
        return Some(median);
    }
    let work = num(row, u.work)?;
    let time = match fixed_ns {
        Some(f) if f > 0.0 && f < FIXED_COST_SHARE * median => median - f,
        _ => median,
    };
    (work > 0.0).then_some(work / time)
}

/// The largest share of a calibration row's median the empty dispatch's time may be and still
/// be taken out of it (beyond it the row measures the fixed cost, not the unit).
const FIXED_COST_SHARE: f64 = 0.25;

/// The time of an empty dispatch: the fastest `ok` warm row of the `empty` unit.
fn empty_dispatch_ns(rows: &[Record]) -> Option<f64> {
    rows.iter()
        .filter(|r| r.status() == RowStatus::Ok)
        .filter(|r| r.mode() != Mode::Cold)
        .filter(|r| unit_of(r.get("variant")).is_some_and(|u| u.name == "empty"))
        .filter_map(|r| num(r, "median_ns").filter(|m| *m > 0.0 && m.is_finite()))
        .min_by(f64::total_cmp)
}

fn peak_row(unit: &str, value_unit: &str, row: &Record) -> Peak {
    Peak {
        schema_version: PEAKS_SCHEMA_VERSION,
        device_name: row.get("device_name").to_string(),
        device_uuid: row.get("device_uuid").to_string(),
        driver_version: num(row, "driver_version").unwrap_or(0.0) as u32,
        unit: unit.into(),
        value: None,
        value_unit: value_unit.into(),
        best_variant: row.get("variant").to_string(),
        median_ns: num(row, "median_ns"),
        median_ci_low_ns: num(row, "median_ci_low_ns"),
        median_ci_high_ns: num(row, "median_ci_high_ns"),
        cv_pct: num(row, "cv_pct"),
        n: num(row, "n").map(|n| n as usize),
        status: super::PeakStatus::Ok,
        reason: String::new(),
        variants: None,
        counted_metric: String::new(),
        counted_pct: None,
    }
}

/// The counter behind `unit` on its best row, where the row's counters decided its verdict
/// (counted at its own clock): the busiest of the column behind the unit and the unit's own
/// counters ([`super::verify`]), its name and value.
fn counted_of(unit: &str, row: &Record, own: &OwnCounts) -> Option<(String, f64)> {
    if row.get("limiter_source") != "counted" {
        return None;
    }
    let declared = super::declared_unit_of(unit)?;
    let column = crate::results::units::counted_figure(declared, |c| row.num(c))
        .filter(|_| super::verify::column_counts_unit(unit))
        .map(|(c, v)| (c.to_string(), v));
    match (column, own.best(unit, row)) {
        (Some(c), Some(o)) => Some(if o.1 > c.1 { o } else { c }),
        (c, o) => c.or(o),
    }
}

/// Each unit's peak from a calibration run's results.csv: the best of its `ok` warm rows
/// (rows that failed their check are not `ok`), checked for agreement between variants and
/// between units, and the L2 capacity from the `l2_capacity-*` rows.
///
/// The unit's own counters ([`super::verify`]) come from the metrics.csv beside it and the
/// own-counter run's `own/metrics.csv`, where there are.
pub fn from_results(results_csv: &Path) -> anyhow::Result<Vec<Peak>> {
    let rows = crate::results::read_results(results_csv)?;
    let mut own = OwnCounts::read(&results_csv.with_file_name("metrics.csv"))?;
    own.extend(OwnCounts::read(
        &results_csv.with_file_name("own").join("metrics.csv"),
    )?);
    from_records(&rows, &own)
}

/// [`from_results`] over the rows a calibration run just measured, with its counted metrics.
pub fn from_rows(rows: &[ResultRow], own: &OwnCounts) -> anyhow::Result<Vec<Peak>> {
    let records: Vec<Record> = rows.iter().cloned().map(Record::from_row).collect();
    from_records(&records, own)
}

fn from_records(rows: &[Record], own: &OwnCounts) -> anyhow::Result<Vec<Peak>> {
    let usable = |row: &&Record| row.status() == RowStatus::Ok && row.mode() != Mode::Cold;
    let mut out = Vec::new();
    let fixed = empty_dispatch_ns(rows);
    for u in UNITS {
        let mut vals: Vec<(f64, &Record)> = rows
            .iter()
            .filter(usable)
            .filter(|r| unit_of(r.get("variant")).is_some_and(|x| x.name == u.name))
            .filter_map(|r| row_value(u, r, fixed).map(|v| (v, r)))
            .collect();
        if vals.is_empty() {
            // A unit whose every variant failed (or did not run) is said so, not left out.
            let failed: Vec<&Record> = rows
                .iter()
                .filter(|r| unit_of(r.get("variant")).is_some_and(|x| x.name == u.name))
                .collect();
            if let Some(r) = failed.first() {
                let mut p = peak_row(u.name, u.value_unit, r);
                p.median_ns = None;
                p.median_ci_low_ns = None;
                p.median_ci_high_ns = None;
                p.cv_pct = None;
                p.n = None;
                p.status = super::PeakStatus::Failed;
                p.reason = format!(
                    "no variant of {} ran and passed its check (first: {} {}: {})",
                    u.name,
                    r.get("variant"),
                    r.get("status"),
                    r.get("reason")
                );
                p.variants = Some(0);
                out.push(p);
            }
            continue;
        }
        let bigger = !u.work.is_empty();
        vals.sort_by(|a, b| {
            if bigger {
                b.0.total_cmp(&a.0)
            } else {
                a.0.total_cmp(&b.0)
            }
        });
        let (best, row) = vals[0];
        let mut p = peak_row(u.name, u.value_unit, row);
        p.value = Some(best);
        p.variants = Some(vals.len());
        match vals.get(1) {
            None => {
                p.status = super::PeakStatus::Suspect;
                p.reason = "only one variant ran: nothing confirms it".into();
            }
            Some(&(next, next_row)) => {
                let ratio = if bigger { best / next } else { next / best };
                if ratio > AGREE {
                    p.status = super::PeakStatus::Suspect;
                    p.reason = format!(
                        "the best variant, {}, reads {ratio:.2}x the next best, {} ({next:.4} {}): variants of one unit must agree within {AGREE}x",
                        row.get("variant"), next_row.get("variant"), u.value_unit
                    );
                }
            }
        }
        if let Some((col, v)) = counted_of(u.name, row, own) {
            p.counted_metric = col.clone();
            p.counted_pct = Some(v);
            if v < super::COUNTED_MIN_PCT {
                p.status = super::PeakStatus::Suspect;
                let why = format!(
                    "its own counter ({col}) read {v:.1} % of the unit's sustained peak while {} ran (under {}): the calibration has not found the hardware's limit",
                    row.get("variant"),
                    super::COUNTED_MIN_PCT
                );
                p.reason = if p.reason.is_empty() {
                    why
                } else {
                    format!("{}; {why}", p.reason)
                };
            }
        }
        out.push(p);
    }
    if let Some(p) = l2_capacity(rows)? {
        out.push(p);
    }
    cross_check(&mut out);
    Ok(out)
}
