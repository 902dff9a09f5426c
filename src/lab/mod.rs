//! Lab workflow: combine run folders from many machines (`merge`) and keep named baselines to
//! compare later runs with (`baseline`). Both work on run folders as files, never on a device.
//!
//! A run folder holds results.csv, samples.csv, metrics.csv and run.json (docs/csv.md); a
//! merged folder holds the same CSVs and runs.json, a JSON array of the merged runs' run.json.
pub mod baseline;
pub mod merge;

pub use baseline::{baseline_dir, default_store, list_baselines, save_baseline, validate_name};
pub use merge::{merge, read_runs, MergeSummary, RunMeta};

/// The CSV files every run folder and merged folder holds, in the order they are merged.
pub const CSV_FILES: [&str; 3] = ["results.csv", "samples.csv", "metrics.csv"];
/// Metadata of a single run.
pub const RUN_JSON: &str = "run.json";
/// Metadata of a merged folder: a JSON array of run.json objects.
pub const RUNS_JSON: &str = "runs.json";
/// A run's copy of the peaks its %-of-peak columns used (the report's roofline ceilings).
pub const PEAKS_CSV: &str = "peaks.csv";
