//! What a run says besides its CSV tables (src/results/ writes and reads those): run.json,
//! the summary on stdout, device listings, metric listings and `--out` templates.
pub mod ansi;
pub mod counters;
pub mod devices;
pub mod out_template;
pub mod run_json;
pub mod summary;
