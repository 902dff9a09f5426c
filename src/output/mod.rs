//! Results as files: CSV tables written row by row, run.json, and device listings.
pub mod ansi;
pub mod counters;
pub mod csv_out;
pub mod csv_safe;
pub mod devices;
pub mod out_template;
pub mod run_json;
pub mod summary;
pub mod writers;

pub use csv_out::{MetricRow, ResultRow, RowStatus, SampleRow, SCHEMA_VERSION};
pub use writers::{finished, RowKey, Writers};
