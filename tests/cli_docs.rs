//! The command line documents itself (issue 13): every option of every command has help text,
//! every command that writes files takes `-o/--out`, and `p3lab completions SHELL` and
//! `p3lab man` are generated from the same definition (src/cli.rs).
mod common;
use clap::CommandFactory;
use common::*;
use p3lab::cli::Cli;

/// Every command, with its path (`p3lab compare`), depth first.
fn commands() -> Vec<(String, clap::Command)> {
    fn walk(prefix: &str, c: &clap::Command, out: &mut Vec<(String, clap::Command)>) {
        let name = format!("{prefix}{}", c.get_name());
        out.push((name.clone(), c.clone()));
        for sub in c.get_subcommands() {
            walk(&format!("{name} "), sub, out);
        }
    }
    let mut cmd = Cli::command();
    cmd.build();
    let mut out = Vec::new();
    walk("", &cmd, &mut out);
    out
}

#[test]
fn every_command_and_option_has_help_text() {
    let all = commands();
    assert!(
        all.len() >= 11,
        "{:?}",
        all.iter().map(|c| &c.0).collect::<Vec<_>>()
    );
    let mut missing = Vec::new();
    for (path, c) in &all {
        if path != "p3lab" && c.get_about().is_none() {
            missing.push(format!("{path}: no about"));
        }
        for a in c.get_arguments() {
            let id = a.get_id().as_str();
            if matches!(id, "help" | "version") {
                continue;
            }
            let help = a.get_help().map(|h| h.to_string()).unwrap_or_default();
            if help.trim().is_empty() {
                missing.push(format!("{path}: {id}"));
            }
        }
    }
    assert!(missing.is_empty(), "without help text: {missing:#?}");
}

#[test]
fn every_command_that_writes_files_takes_dash_o() {
    let cmd = Cli::command();
    for name in ["run", "peak", "merge", "compare", "report", "man"] {
        let sub = cmd.find_subcommand(name).unwrap();
        let out = sub
            .get_arguments()
            .find(|a| a.get_id() == "out")
            .unwrap_or_else(|| panic!("{name} has no --out"));
        assert_eq!(out.get_short(), Some('o'), "{name}");
        assert_eq!(out.get_long(), Some("out"), "{name}");
    }
}

#[test]
fn completions_for_every_shell() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let o = run(&["completions", shell]);
        assert_eq!(o.status.code(), Some(0), "{shell}");
        let text = String::from_utf8(o.stdout).unwrap();
        for word in ["compare", "allow-cross-device", "completions", "man"] {
            assert!(text.contains(word), "{shell}: no {word}");
        }
    }
    // The bash script is valid bash.
    let t = tempfile::tempdir().unwrap();
    let script = t.path().join("p3lab.bash");
    std::fs::write(&script, run(&["completions", "bash"]).stdout).unwrap();
    let o = std::process::Command::new("bash")
        .arg("-n")
        .arg(&script)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // An unknown shell is a usage error.
    assert_eq!(run(&["completions", "tcsh"]).status.code(), Some(2));
}

#[test]
fn man_pages_for_every_command() {
    let o = run(&["man"]);
    assert_eq!(o.status.code(), Some(0));
    let page = String::from_utf8(o.stdout).unwrap();
    assert!(page.contains(".TH p3lab 1"), "{page}");
    assert!(page.contains("compare") && page.contains("Profile compute"));

    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("man1");
    let o = run(&["man", "-o", dir.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0));
    let (_, cmd) = &commands()[0];
    for sub in cmd.get_subcommands().filter(|s| s.get_name() != "help") {
        let name = format!("p3lab-{}", sub.get_name());
        let text = std::fs::read_to_string(dir.join(format!("{name}.1")))
            .unwrap_or_else(|e| panic!("{name}.1: {e}"));
        assert!(text.contains(&format!(".TH {name} 1")), "{name}");
        // Every option is on its page, with its help.
        for a in sub.get_arguments().filter_map(|a| a.get_long()) {
            let roff = a.replace('-', "\\-");
            assert!(text.contains(&roff), "{name}: --{a}");
        }
    }
    assert!(dir.join("p3lab.1").is_file());
}

/// Issue 29: help is wrapped to the terminal (`$COLUMNS`, else 100 columns), at spaces, and
/// the global options no longer speak of one command in every command's help.
#[test]
fn help_is_wrapped_and_global_options_are_generic() {
    for args in [
        vec!["run", "--help"],
        vec!["compare", "--help"],
        vec!["report", "-h"],
        vec!["--help"],
    ] {
        let o = common::bin()
            .args(&args)
            .env("COLUMNS", "80")
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(0), "{args:?}");
        let text = String::from_utf8_lossy(&o.stdout);
        for line in text.lines() {
            // A single word longer than the room (a long path) may stay whole.
            assert!(
                line.chars().count() <= 80 || !line.trim().contains(' '),
                "{args:?}: {line:?}"
            );
        }
    }
    let o = common::bin().args(["report", "--help"]).output().unwrap();
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(!text.contains("compare -q"), "{text}");
}
