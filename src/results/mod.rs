//! The results model: what a run measured, as typed rows, and the CSV files that hold them
//! (docs/csv.md).
//!
//! - A row is **made** from a variant's typed record (record/: the parts each measure step
//!   returns, the verdict src/peaks/limiter derives) by [`record::VariantRecord::rows`], the
//!   one place a measurement becomes [`ResultRow`]s (one per variant, params case and mode);
//! - it is **written** by [`Writers`] (write.rs: results.csv, samples.csv, metrics.csv, row by
//!   row, resumable; results.csv's typed `param_*` columns after the fixed ones: params.rs);
//! - it is **read** by [`read`] (read.rs: every schema version p3lab ever wrote, plain or
//!   gzipped), which `compare`, `report`, `merge`, `peak`, the summary and `--resume` share.
//!
//! Statuses, checks, modes, stop reasons, memory levels, placements, what was made fresh and
//! limiters are enums (kinds.rs) whose serde spellings are the CSV's.
pub mod csv_safe;
pub mod format;
pub mod kinds;
pub mod params;
pub mod read;
pub mod record;
pub mod row;
pub mod units;
pub mod write;

pub use kinds::{
    cell, Check, Fresh, Limiter, LimiterSource, MemoryLevel, Mode, Placement, RowStatus, StopReason,
};
pub use read::{csv_file, read_folder, read_results, read_table, Record, RowKey};
pub use row::header;
pub use row::{MetricRow, ResultRow, SampleRow, SCHEMA_VERSION};
pub use units::{unit_pcts, units_text, UNIT_COLUMNS};
pub use write::{finished, Writers};

/// A failure's `reason` split into what variants failing alike share and the variant's own
/// defines: a compile error ends `… (defines: WG=64)` (src/measure/prepare), and the error is
/// said once for every variant it affects (issue 41). Other reasons come back whole, with no
/// defines.
pub fn split_defines(reason: &str) -> (&str, &str) {
    match reason.rsplit_once(" (defines: ") {
        Some((what, defs)) if defs.ends_with(')') && !defs[..defs.len() - 1].contains(')') => {
            (what, &defs[..defs.len() - 1])
        }
        _ => (reason, ""),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_compile_errors_defines_come_apart() {
        let r = "a.comp:5: error: 'x' : undeclared identifier (defines: WG=64 TILE=8)";
        assert_eq!(
            super::split_defines(r),
            (
                "a.comp:5: error: 'x' : undeclared identifier",
                "WG=64 TILE=8"
            )
        );
        assert_eq!(
            super::split_defines("check failed (max error 3)"),
            ("check failed (max error 3)", "")
        );
    }
}
