//! The results model: what a run measured, as typed rows, and the CSV files that hold them
//! (docs/csv.md).
//!
//! - A row is **made** in src/measure/row.rs (one [`ResultRow`] per variant, params case and
//!   mode) and its verdict derived in src/peaks/limiter.rs;
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
