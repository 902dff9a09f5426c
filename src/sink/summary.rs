//! The terminal summary as a sink: when the run ends (completed or interrupted), the summary
//! of every row of the run folder on stdout (plain unless stdout is a terminal) and the
//! `--export-markdown` / `--export-json` files (their paths are checked before the run, in
//! app/plan.rs). `--device all` prints the merged rows' summary through [`report`].
use super::{RunEnd, Sink};
use crate::output::summary::{self, to_json, to_markdown, Layout};
use crate::results::ResultRow;
use std::io::Write;
use std::path::PathBuf;

/// The summary of the run's rows and its export files.
pub struct SummarySink {
    /// How the rows are grouped (scenarios' order, the baseline variant).
    pub layout: Layout,
    /// Print it on stdout (with colour when `color`).
    pub print: bool,
    /// Colour on stdout.
    pub color: bool,
    /// `--export-markdown FILE`.
    pub export_markdown: Option<PathBuf>,
    /// `--export-json FILE`.
    pub export_json: Option<PathBuf>,
}

impl Sink for SummarySink {
    fn run_finished(&mut self, end: &RunEnd) -> anyhow::Result<()> {
        match end {
            RunEnd::Ended { rows, .. } => report(rows, self),
            RunEnd::Failed => Ok(()),
        }
    }
}

/// Summarize `rows`: print it when `s.print`, write the exports `s` asks for.
pub fn report(rows: &[ResultRow], s: &SummarySink) -> anyhow::Result<()> {
    let sum = summary::summarize(rows, &s.layout);
    if s.print && !sum.cases.is_empty() {
        let text = summary::render_text(&sum, s.color);
        let mut o = std::io::stdout().lock();
        // `p3lab run ... | head`: a closed pipe is not the run's failure.
        match o.write_all(text.as_bytes()).and_then(|()| o.flush()) {
            Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => return Err(e.into()),
            _ => {}
        }
    }
    type Render = fn(&summary::Summary) -> String;
    let exports: [(&Option<PathBuf>, Render); 2] =
        [(&s.export_markdown, to_markdown), (&s.export_json, to_json)];
    for (path, render) in exports {
        if let Some(p) = path {
            // Written beside and renamed into place; /dev/stdout or a pipe written directly.
            crate::results::write::write_output_file(p, render(&sum).as_bytes())?;
        }
    }
    Ok(())
}
