//! Lab workflow: combine run folders from many machines (`merge`) and keep named baselines to
//! compare later runs with (`baseline`). Both work on run folders as files, never on a device.
//!
//! A run folder holds results.csv, samples.csv, metrics.csv and run.json (docs/csv.md); a
//! merged folder holds the same CSVs and runs.json, a JSON array of the merged runs' run.json.
pub mod baseline;
pub mod merge;

pub use baseline::{baseline_dir, default_store, list_baselines, save_baseline, validate_name};
pub use merge::{merge, read_runs, FolderRun, MergeSummary};

/// The CSV files every run folder and merged folder holds, in the order they are merged.
pub const CSV_FILES: [&str; 3] = ["results.csv", "samples.csv", "metrics.csv"];
pub use crate::runfolder::{PEAKS_CSV, RUNS_JSON, RUN_JSON};
