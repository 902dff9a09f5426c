//! The terminal output of `p3lab run` on lavapipe, under a pseudo-terminal (`script` from
//! util-linux) and redirected: colour only on a terminal (NO_COLOR, CLICOLOR_FORCE), the
//! progress bar redrawn in place with the log lines between its states, concise lines at the
//! default level, timestamps with -v, and the summary on stdout.
mod common;
use common::*;
use std::process::{Command, Stdio};

/// A quick run of smoke with two params cases, so log lines fall between bar states.
const RUN: &[&str] = &[
    "run",
    "scenarios/smoke.toml",
    "--warmup-ms",
    "0",
    "--budget-ms",
    "60",
    "--max-rounds",
    "6",
    "--set",
    "n=4096,65536",
];

/// `p3lab ARGS` as a command of its own with the test's cache and no colour variables from
/// the environment the tests run in.
fn p3lab(out: &std::path::Path, extra: &[&str]) -> Command {
    let mut c = bin();
    c.args(RUN)
        .arg("--out")
        .arg(out)
        .args(extra)
        .env_remove("NO_COLOR")
        .env_remove("CLICOLOR_FORCE")
        .env_remove("RUST_LOG");
    c
}

/// Everything the pseudo-terminal showed while `p3lab` ran in it (stdout and stderr both on
/// the terminal, 160 columns), with `env` set.
fn under_pty(out: &std::path::Path, env: &[(&str, &str)]) -> Vec<u8> {
    let cmd = p3lab(out, &[]);
    let mut line = format!(
        "stty cols 160 rows 40 2>/dev/null; exec {}",
        shell_quote(cmd.get_program().to_str().unwrap())
    );
    for a in cmd.get_args() {
        line.push(' ');
        line.push_str(&shell_quote(a.to_str().unwrap()));
    }
    let mut s = Command::new("script");
    s.args(["-qfec", &line, "/dev/null"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("TERM", "xterm-256color")
        .env_remove("NO_COLOR")
        .env_remove("CLICOLOR_FORCE")
        .env_remove("RUST_LOG")
        .stdin(Stdio::null())
        .stderr(Stdio::inherit());
    for (k, v) in cmd.get_envs() {
        match v {
            Some(v) => s.env(k, v),
            None => s.env_remove(k),
        };
    }
    for (k, v) in env {
        s.env(k, v);
    }
    let o = s.output().unwrap_or_else(|e| {
        panic!("cannot run `script` (util-linux; Debian's bsdutils package): {e}")
    });
    assert!(o.status.success(), "script/p3lab exited {:?}", o.status);
    o.stdout
}

fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

/// SGR sequences (`ESC [ ... m`): colour and weight.
fn has_sgr(b: &[u8]) -> bool {
    let s = String::from_utf8_lossy(b);
    let mut rest = s.as_ref();
    while let Some(i) = rest.find("\x1b[") {
        let tail = &rest[i + 2..];
        let end = tail
            .find(|c: char| !(c.is_ascii_digit() || c == ';'))
            .unwrap_or(tail.len());
        if tail[end..].starts_with('m') {
            return true;
        }
        rest = tail;
    }
    false
}

/// The text a terminal of `cols` columns shows after `bytes`, scrollback included: carriage
/// returns, line feeds, cursor up/down (`ESC[nA`, `ESC[nB`), column (`ESC[nG`), erase line
/// (`ESC[2K`, `ESC[K`) and erase below (`ESC[J`); other sequences are ignored.
fn screen(bytes: &[u8], cols: usize) -> Vec<String> {
    let text = String::from_utf8_lossy(bytes);
    let mut lines: Vec<Vec<char>> = vec![Vec::new()];
    let (mut row, mut col) = (0usize, 0usize);
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\r' => col = 0,
            '\n' => {
                row += 1;
                if row == lines.len() {
                    lines.push(Vec::new());
                }
            }
            '\x1b' => {
                if chars.peek() != Some(&'[') {
                    chars.next();
                    continue;
                }
                chars.next();
                let mut param = String::new();
                let mut cmd = ' ';
                for d in chars.by_ref() {
                    if d.is_ascii_alphabetic() || d == '@' || d == '~' {
                        cmd = d;
                        break;
                    }
                    param.push(d);
                }
                let n = param.parse::<usize>().unwrap_or(1).max(1);
                match cmd {
                    'A' => row = row.saturating_sub(n),
                    'B' => {
                        row += n;
                        while lines.len() <= row {
                            lines.push(Vec::new());
                        }
                    }
                    'G' => col = n - 1,
                    'K' => {
                        let l = &mut lines[row];
                        if param == "2" {
                            l.clear();
                        } else {
                            l.truncate(col);
                        }
                    }
                    'J' => {
                        lines[row].truncate(col);
                        lines.truncate(row + 1);
                    }
                    _ => {}
                }
            }
            c if c.is_control() => {}
            c => {
                if col >= cols {
                    col = 0;
                    row += 1;
                    if row == lines.len() {
                        lines.push(Vec::new());
                    }
                }
                let l = &mut lines[row];
                while l.len() < col {
                    l.push(' ');
                }
                if col < l.len() {
                    l[col] = c;
                } else {
                    l.push(c);
                }
                col += 1;
            }
        }
    }
    lines
        .into_iter()
        .map(|l| l.into_iter().collect::<String>().trim_end().to_string())
        .collect()
}

/// A state of the progress bar: `3/12 variants  1s elapsed, ETA 2s`.
fn is_bar(line: &str) -> bool {
    line.contains(" variants  ") && line.contains("ETA")
}

#[test]
fn on_a_terminal_the_bar_is_redrawn_in_place_between_coloured_log_lines() {
    let (_t, out) = out_dir("pty");
    // The bar, not progress lines, however often they would come off a terminal.
    let raw = under_pty(&out, &[("P3LAB_PROGRESS_SECS", "0.05")]);
    let shown = screen(&raw, 160);
    let text = shown.join("\n");
    eprintln!("{text}");
    let raw_text = String::from_utf8_lossy(&raw);
    assert!(
        raw_text.matches(" variants  ").count() >= 2,
        "the bar was drawn (more than once): {raw_text:?}"
    );
    assert!(has_sgr(&raw), "colour on a terminal");
    assert!(raw_text.contains("\x1b[1;33mwarning:"), "{raw_text:?}");
    // No bar state is left on the screen or in the scrollback: every one was cleared before
    // a log line was written, and the last when the run ended.
    assert!(!raw_text.contains("progress: "), "{raw_text:?}");
    let left: Vec<&String> = shown.iter().filter(|l| is_bar(l)).collect();
    assert!(left.is_empty(), "bar states left behind: {left:#?}");
    // Each log line on a line of its own, whole, in order.
    let results: Vec<&String> = shown.iter().filter(|l| l.starts_with("smoke / ")).collect();
    assert_eq!(results.len(), 10, "10 ok variant lines: {text}");
    for l in &results {
        assert!(l.contains(": median ") && !l.contains(" us "), "{l}");
    }
    let warnings = shown
        .iter()
        .filter(|l| l.starts_with("warning: smoke / wg64-sg32 "))
        .count();
    assert_eq!(warnings, 2, "{text}");
    assert!(shown[0].starts_with("device 0: "), "{text}");
    // The summary, then the closing line.
    assert!(
        text.contains("smoke · height=32;n=4096;width=64 · warm"),
        "{text}"
    );
    assert!(text.contains("fastest"), "{text}");
    assert!(shown
        .iter()
        .rev()
        .find(|l| !l.is_empty())
        .is_some_and(|l| l.starts_with("p3lab: 10 ok, 2 unsupported; results in ")));
}

#[test]
fn no_color_turns_colour_off_on_a_terminal_but_keeps_the_bar() {
    let (_t, out) = out_dir("pty-nocolor");
    let raw = under_pty(&out, &[("NO_COLOR", "1"), ("CLICOLOR_FORCE", "1")]);
    let raw_text = String::from_utf8_lossy(&raw);
    assert!(!has_sgr(&raw), "NO_COLOR: {raw_text:?}");
    assert!(raw_text.contains(" variants  "), "the bar is still drawn");
    assert!(screen(&raw, 160).iter().all(|l| !is_bar(l)));
}

/// `p3lab` with stdout and stderr captured (neither a terminal).
fn redirected(out: &std::path::Path, extra: &[&str], env: &[(&str, &str)]) -> (String, String) {
    let mut c = p3lab(out, extra);
    for (k, v) in env {
        c.env(k, v);
    }
    let o = c.output().expect("p3lab runs");
    assert_eq!(o.status.code(), Some(0));
    (
        String::from_utf8(o.stdout).expect("utf-8 stdout"),
        String::from_utf8(o.stderr).expect("utf-8 stderr"),
    )
}

fn has_timestamp(s: &str) -> bool {
    // `08:08:29.084` (-v) or `2026-11-23T08:08:29` (tracing's default).
    s.lines().any(|l| {
        let b = l.as_bytes();
        (0..b.len().saturating_sub(7)).any(|i| {
            let d = |k: usize| b[i + k].is_ascii_digit();
            d(0) && d(1) && b[i + 2] == b':' && d(3) && d(4) && b[i + 5] == b':' && d(6) && d(7)
        })
    })
}

#[test]
fn redirected_logs_are_plain_and_concise_and_the_summary_goes_to_stdout() {
    let (_t, out) = out_dir("plain");
    let (stdout, stderr) = redirected(&out, &[], &[]);
    assert!(
        !stderr.contains('\x1b'),
        "no ESC in a redirected log: {stderr:?}"
    );
    assert!(
        !stdout.contains('\x1b'),
        "no ESC in piped stdout: {stdout:?}"
    );
    assert!(!has_timestamp(&stderr), "{stderr}");
    assert!(!stderr.contains("INFO"), "{stderr}");
    assert!(!stderr.contains(" variants  "), "no bar off a terminal");
    assert!(stderr.contains("warning: smoke / wg64-sg32"), "{stderr}");
    assert!(
        stderr.contains(" µs (") && !stderr.contains(" us "),
        "{stderr}"
    );
    assert!(stderr.contains("p3lab: 10 ok, 2 unsupported; results in "));
    // Stdout is the summary alone.
    assert!(
        stdout.starts_with("smoke · height=32;n=4096;width=64 · warm\n"),
        "{stdout}"
    );
    assert!(stdout.contains("time ratio vs wg64"), "{stdout}");
    // Each case either marks one variant fastest or says why none is (lavapipe's intervals
    // overlap more often than not: issue 29), never both.
    let marked = stdout.lines().filter(|l| l.starts_with("  * ")).count();
    let unclear = stdout.matches("no clear fastest").count();
    assert_eq!(marked + unclear, 2, "{stdout}");
    assert!(stdout.contains("1 unsupported (wg64-sg32): subgroup size 32"));
}

/// `progress: smoke / wg64 (round 2): 3/12 variants, 1s elapsed, ETA 4s`: what a log off a
/// terminal gets every 30 s (here every 50 ms, `P3LAB_PROGRESS_SECS`).
fn progress_counts(l: &str) -> Option<(u64, u64)> {
    let rest = l.strip_prefix("progress: ")?;
    let (_, counts) = rest.rsplit_once(": ")?;
    let (n, tail) = counts.split_once(" variants, ")?;
    let (done, total) = n.split_once('/')?;
    let (_, eta) = tail.split_once(" elapsed, ETA ")?;
    (!eta.is_empty()).then_some(())?;
    Some((done.parse().ok()?, total.parse().ok()?))
}

#[test]
fn a_redirected_log_gets_a_progress_line_now_and_then() {
    let (_t, out) = out_dir("progress");
    let (_, stderr) = redirected(&out, &[], &[("P3LAB_PROGRESS_SECS", "0.05")]);
    let lines: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("progress: "))
        .collect();
    assert!(lines.len() >= 2, "progress lines: {stderr}");
    let mut last = 0;
    for l in &lines {
        let (done, total) = progress_counts(l).unwrap_or_else(|| panic!("format: {l:?}"));
        assert_eq!(total, 12, "{l}");
        assert!(done <= total && done >= last, "{l}");
        last = done;
    }
    assert!(
        lines.iter().any(|l| l.starts_with("progress: smoke / ")),
        "{lines:#?}"
    );
    // `-q` keeps the log to warnings: no progress lines.
    let (_t, out) = out_dir("progress-q");
    let (_, stderr) = redirected(&out, &["-q"], &[("P3LAB_PROGRESS_SECS", "0.05")]);
    assert!(!stderr.contains("progress: "), "{stderr}");
}

#[test]
fn clicolor_force_colours_a_file_and_verbose_adds_timestamps() {
    let (_t, out) = out_dir("forced");
    let (stdout, stderr) = redirected(&out, &["-v"], &[("CLICOLOR_FORCE", "1")]);
    assert!(stderr.contains("\x1b["), "CLICOLOR_FORCE colours the log");
    assert!(stdout.contains("\x1b[1m"), "and the summary: {stdout:?}");
    assert!(has_timestamp(&stderr), "-v: {stderr}");
    assert!(
        stderr.contains("DEBUG") && stderr.contains("INFO"),
        "{stderr}"
    );
    assert!(!stderr.contains(" variants  "), "no bar off a terminal");
    // `0` does not force it.
    let (_t, out) = out_dir("forced0");
    let (stdout, stderr) = redirected(&out, &["-q"], &[("CLICOLOR_FORCE", "0")]);
    assert!(!stderr.contains('\x1b') && !stdout.contains('\x1b'));
    assert!(stdout.contains("fastest"), "-q keeps the summary: {stdout}");
}

#[test]
fn a_device_worker_told_to_draw_no_bar_draws_none() {
    // `--device all` with several devices sets P3LAB_NO_BAR for its workers, so their bars do
    // not overwrite each other on one terminal.
    let (_t, out) = out_dir("pty-nobar");
    let raw = under_pty(&out, &[("P3LAB_NO_BAR", "1")]);
    let raw_text = String::from_utf8_lossy(&raw);
    assert!(!raw_text.contains(" variants  "), "no bar: {raw_text:?}");
    assert!(raw_text.contains("results in"), "{raw_text:?}");
}
