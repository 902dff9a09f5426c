//! After `p3lab run`: the terminal summary and its export files, a sink
//! ([`crate::sink::summary`]) made from the plan's outputs.
use super::*;
use crate::output::summary::Layout;
use crate::sink::summary::SummarySink;

/// The summary of the run's rows: printed when `print`, written to the exports `a` asks for.
pub(super) fn sink(layout: Layout, a: &super::plan::Outputs, print: bool) -> SummarySink {
    SummarySink {
        layout,
        print,
        color: term::stdout_color(),
        export_markdown: a.export_markdown.clone(),
        export_json: a.export_json.clone(),
    }
}
