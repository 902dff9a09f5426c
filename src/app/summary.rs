//! After `p3lab run`: the summary of the run's rows on stdout (plain unless stdout is a
//! terminal) and the `--export-markdown` / `--export-json` files (their paths are checked
//! before the run, in app/plan.rs).
use super::*;
use crate::output::summary::{self, to_json, to_markdown, Layout};
use std::io::Write;

/// Summarize the run's rows: print it when `print`, write the exports `a` asks for.
pub(super) fn report(
    rows: &[crate::results::ResultRow],
    layout: &Layout,
    a: &super::plan::Outputs,
    print: bool,
) -> anyhow::Result<()> {
    let s = summary::summarize(rows, layout);
    if print && !s.cases.is_empty() {
        let text = summary::render_text(&s, term::stdout_color());
        let mut o = std::io::stdout().lock();
        // `p3lab run ... | head`: a closed pipe is not the run's failure.
        match o.write_all(text.as_bytes()).and_then(|()| o.flush()) {
            Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => return Err(e.into()),
            _ => {}
        }
    }
    type Render = fn(&summary::Summary) -> String;
    let exports: [(&Option<PathBuf>, Render); 2] =
        [(&a.export_markdown, to_markdown), (&a.export_json, to_json)];
    for (path, render) in exports {
        if let Some(p) = path {
            // Written beside and renamed into place; /dev/stdout or a pipe written directly.
            crate::results::write::write_output_file(p, render(&s).as_bytes())?;
        }
    }
    Ok(())
}
