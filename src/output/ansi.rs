//! ANSI SGR styles for people's eyes, applied only when the caller has decided colour is on
//! (src/app/term.rs: a terminal, `NO_COLOR`, `CLICOLOR_FORCE`, `--color`).
pub const BOLD: &str = "1";
pub const DIM: &str = "2";
pub const RED: &str = "31";
pub const GREEN: &str = "32";
pub const YELLOW: &str = "33";
pub const BLUE: &str = "34";
pub const RED_BOLD: &str = "1;31";
pub const GREEN_BOLD: &str = "1;32";
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
