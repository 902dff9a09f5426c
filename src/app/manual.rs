//! `p3lab completions SHELL` and `p3lab man`: shell completions (clap_complete) and man pages
//! (clap_mangen), both generated from the one command-line definition in src/cli.rs.
use super::exit;
use crate::cli::{Cli, CompletionsArgs, ManArgs};
use clap::CommandFactory;
use std::io::Write;

pub(super) fn completions(a: CompletionsArgs) -> anyhow::Result<i32> {
    let mut cmd = Cli::command();
    let mut out = Vec::new();
    clap_complete::generate(a.shell, &mut cmd, "p3lab", &mut out);
    std::io::stdout().write_all(&out)?;
    Ok(exit::OK)
}

/// The man page of `cmd` (roff).
fn page(cmd: clap::Command) -> anyhow::Result<Vec<u8>> {
    let mut buf = Vec::new();
    clap_mangen::Man::new(cmd).render(&mut buf)?;
    Ok(buf)
}

/// Without -o: p3lab.1 on stdout. With -o DIR: p3lab.1 and p3lab-COMMAND.1 for every command
/// into DIR (the pages `man -l` or a MANPATH entry reads).
pub(super) fn man(a: ManArgs) -> anyhow::Result<i32> {
    let mut cmd = Cli::command();
    cmd.build();
    let Some(dir) = a.out else {
        std::io::stdout().write_all(&page(cmd)?)?;
        return Ok(exit::OK);
    };
    std::fs::create_dir_all(&dir)
        .map_err(|e| anyhow::anyhow!("cannot create {}: {e}", dir.display()))?;
    let mut written = 0;
    let mut write = |name: &str, c: clap::Command| -> anyhow::Result<()> {
        let path = dir.join(format!("{name}.1"));
        // Beside and renamed into place, never through a link.
        crate::results::write::write_file_atomic(&path, &page(c)?)?;
        written += 1;
        Ok(())
    };
    for sub in cmd.get_subcommands().filter(|s| s.get_name() != "help") {
        let name = format!("p3lab-{}", sub.get_name());
        write(&name, sub.clone().name(name.clone()))?;
    }
    write("p3lab", cmd)?;
    eprintln!("p3lab: {written} man pages in {}", dir.display());
    Ok(exit::OK)
}
