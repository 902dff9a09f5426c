//! ANSI SGR styles for people's eyes, applied only when the caller has decided colour is on
//! (src/app/term.rs: a terminal, `NO_COLOR`, `CLICOLOR_FORCE`, `--color`).
/// SGR 1, bold: summary and compare headings.
pub const BOLD: &str = "1";
/// SGR 2, faint: table headers, `trace:` and not-comparable pairs.
pub const DIM: &str = "2";
/// SGR 31: failing statuses (`error`, `check_failed`, …) in the log's counts and the
/// summary's not-run lines.
pub const RED: &str = "31";
/// SGR 32: `ok` statuses and the summary's `fastest`.
pub const GREEN: &str = "32";
/// SGR 33: `unsupported` statuses and the summary's notes.
pub const YELLOW: &str = "33";
/// SGR 34: the log's `debug:` prefix.
pub const BLUE: &str = "34";
/// SGR 1;31: `error:` and regressed pairs.
pub const RED_BOLD: &str = "1;31";
/// SGR 1;32: the fastest variant's mark and improved pairs.
pub const GREEN_BOLD: &str = "1;32";
/// SGR 1;33: the log's `warning:` prefix.
pub const YELLOW_BOLD: &str = "1;33";

/// `text` in `style` when `on`, else `text` unchanged.
pub fn paint(on: bool, style: &str, text: &str) -> String {
    if on && !text.is_empty() {
        format!("\x1b[{style}m{text}\x1b[0m")
    } else {
        text.to_string()
    }
}

/// `text` without any SGR sequence (for widths and for tests).
pub fn strip(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\x1b' && chars.peek() == Some(&'[') {
            chars.next();
            for d in chars.by_ref() {
                if d.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn paint_only_when_on() {
        assert_eq!(super::paint(false, super::BOLD, "x"), "x");
        let p = super::paint(true, super::GREEN, "ok");
        assert_eq!(p, "\x1b[32mok\x1b[0m");
        assert_eq!(super::strip(&p), "ok");
    }
}
