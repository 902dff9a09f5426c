//! Help text wrapped to the terminal (issue 29: lines up to ~400 characters broke mid-word).
//! clap wraps only with its `wrap_help` feature, whose `terminal_size` dependency this build
//! cannot fetch, so p3lab wraps clap's rendered help itself: at `$COLUMNS` when set, else 100
//! columns, each continuation line indented like its paragraph (the description column of a
//! `-f, --flag <X>  text` row).
/// The width help wraps to: `$COLUMNS` (at least 40), else 100.
pub fn width() -> usize {
    std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.trim().parse::<usize>().ok())
        .filter(|w| *w >= 40)
        .unwrap_or(100)
}

/// Where a line's text continues after a wrap: its leading spaces, or for a two-column row
/// (`  -q, --quiet  Only warnings...`) the column its description starts at.
fn hanging_indent(line: &str) -> usize {
    let lead = line.len() - line.trim_start().len();
    let rest = &line[lead..];
    if rest.starts_with('-') || (lead > 0 && rest.starts_with('<')) {
        if let Some(gap) = rest.find("  ") {
            let after = &rest[gap..];
            let text = after.len() - after.trim_start().len();
            if gap + text < rest.len() {
                return lead + gap + text;
            }
        }
    }
    lead
}

/// `text` with every line longer than `width` broken at spaces, continuation lines indented by
/// [`hanging_indent`]. A word longer than the room is left whole (never cut mid-word).
pub fn wrap(text: &str, width: usize) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 16);
    for line in text.split('\n') {
        if line.chars().count() <= width {
            out.push_str(line);
            out.push('\n');
            continue;
        }
        let indent = hanging_indent(line).min(width / 2);
        let mut cur = String::new();
        let lead = line.len() - line.trim_start().len();
        cur.push_str(&line[..lead]);
        let mut first_word = true;
        for word in line[lead..].split(' ') {
            let len = cur.chars().count();
            let extra = if first_word { 0 } else { 1 };
            if !first_word && len + extra + word.chars().count() > width {
                out.push_str(cur.trim_end());
                out.push('\n');
                cur = " ".repeat(indent);
                cur.push_str(word);
            } else {
                if !first_word {
                    cur.push(' ');
                }
                cur.push_str(word);
            }
            first_word = false;
        }
        out.push_str(cur.trim_end());
        out.push('\n');
    }
    // split('\n') gives one more piece than there are newlines.
    out.pop();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_lines_break_at_spaces_under_their_description_column() {
        let row = format!("  -q, --quiet  {}", "word ".repeat(40).trim_end());
        let w = wrap(&row, 60);
        let lines: Vec<&str> = w.lines().collect();
        assert!(lines.len() > 1);
        assert!(lines.iter().all(|l| l.chars().count() <= 60), "{w}");
        assert!(
            lines[1..]
                .iter()
                .all(|l| l.starts_with("               word")),
            "{w}"
        );
        // A paragraph keeps its own indent; short lines and blank lines are untouched.
        let para = format!("          {}\n\nshort", "text ".repeat(30).trim_end());
        let w = wrap(&para, 50);
        assert!(w.lines().next().unwrap().starts_with("          text"));
        assert!(w.lines().nth(1).unwrap().starts_with("          text"));
        assert!(w.ends_with("\n\nshort"), "{w:?}");
        // A word longer than the width stays whole.
        let long = format!("  {}", "x".repeat(80));
        assert_eq!(wrap(&long, 40), long);
    }
}
