//! After `p3lab run`: the summary of the folder's results.csv on stdout (plain unless stdout
//! is a terminal) and the `--export-markdown` / `--export-json` files.
use super::*;
use crate::output::summary::{self, to_json, to_markdown, Layout};
use std::io::Write;

/// Before the run: an export file's folder must exist, so a typo does not cost a run.
pub(super) fn check_exports(a: &RunArgs) -> Result<(), UserError> {
    let exports = [
        ("--export-markdown", &a.export_markdown),
        ("--export-json", &a.export_json),
    ];
    for (flag, path) in exports {
        let Some(p) = path else { continue };
        if p.as_os_str().is_empty() || p.is_dir() {
            return Err(UserError::Flag(format!(
                "{flag} `{}`: give a file name",
                p.display()
            )));
        }
        // A link to a file would be refused after the run: refused before it instead.
        if let Err(e) = crate::results::write::refuse_output_link(p) {
            return Err(UserError::Flag(format!("{flag} {e}")));
        }
        if let Some(parent) = p.parent().filter(|d| !d.as_os_str().is_empty()) {
            if !parent.is_dir() {
                return Err(UserError::Flag(format!(
                    "{flag} {}: no folder {}",
                    p.display(),
                    parent.display()
                )));
            }
        }
    }
    Ok(())
}

/// Summarize the run's rows: print it when `print`, write the exports `a` asks for.
pub(super) fn report(
    rows: &[crate::results::ResultRow],
    layout: &Layout,
    a: &RunArgs,
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
