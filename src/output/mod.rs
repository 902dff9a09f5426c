//! Results as files: CSV tables written row by row, run.json, and device listings.
pub mod counters;
pub mod csv_out;
pub mod csv_safe;
pub mod devices;
pub mod run_json;

pub use csv_out::{
    finished, MetricRow, ResultRow, RowKey, RowStatus, SampleRow, Writers, SCHEMA_VERSION,
};
