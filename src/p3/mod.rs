//! P3 analysis over finished runs: load run folders, compare before/after (criterion's rule:
//! a change counts only when its whole confidence interval clears the noise threshold), and
//! render reports (Markdown and a self-contained HTML page) with hand-written SVG charts.
//!
//! Everything here reads the CSV files of `p3lab run` (docs/csv.md) and is pure: output
//! depends only on the input files and the options (the bootstrap is seeded), so it can be
//! snapshot-tested.
pub mod charts;
pub mod compare;
pub mod report;

pub use compare::{
    compare, has_regression, load_run, to_csv, to_markdown, to_table, verdict_for_ci,
    CompareOptions, Comparison, MetricPair, PairRow, RowKey, RunData, Verdict,
};
pub use report::{report, write_report, Compared, Report, RunInfo, RunMeta};
