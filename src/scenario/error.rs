//! Scenario errors that name the file, the line and the key, and the locator that finds lines.
use std::fmt;
use std::path::Path;

/// A mistake in a scenario file or in a `--set` flag. Exit code 2.
#[derive(Debug, Clone, PartialEq)]
pub struct ScenarioError {
    /// The scenario file's path as shown, or `--set` for a bad `--set` flag.
    pub file: String,
    /// 1-based; 0 when the key has no place in the file (a CLI flag, a missing key).
    pub line: usize,
    /// The key path in the file (`resources[0].count`); empty when no key applies.
    pub key: String,
    /// What is wrong, as a sentence.
    pub message: String,
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.line, self.key.is_empty()) {
            (0, true) => write!(f, "{}: {}", self.file, self.message),
            (0, false) => write!(f, "{}: key `{}`: {}", self.file, self.key, self.message),
            (l, true) => write!(f, "{}:{}: {}", self.file, l, self.message),
            (l, false) => write!(
                f,
                "{}:{}: key `{}`: {}",
                self.file, l, self.key, self.message
            ),
        }
    }
}

impl std::error::Error for ScenarioError {}

/// One step of a key path: a table key or an array index.
#[derive(Debug, Clone, PartialEq)]
pub enum Seg {
    /// A table key (`resources`, `count`).
    Key(String),
    /// An array index (`[0]`).
    Index(usize),
}

/// Finds the line of a key path in the TOML text, so semantic errors can point at the source.
pub struct Locator {
    file: String,
    text: String,
    doc: Option<toml_edit::ImDocument<String>>,
}

impl Locator {
    /// A locator for the file at `path` whose contents are `text`; a text that is not valid TOML
    /// still gives errors, only without lines.
    pub fn new(path: &Path, text: &str) -> Self {
        Locator {
            file: path.display().to_string(),
            text: text.to_string(),
            doc: toml_edit::ImDocument::parse(text.to_string()).ok(),
        }
    }

    /// The file's path as messages show it.
    pub fn file(&self) -> &str {
        &self.file
    }

    /// The file's text.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The 1-based line of a byte offset.
    pub fn line_of_offset(&self, offset: usize) -> usize {
        let end = offset.min(self.text.len());
        self.text.as_bytes()[..end]
            .iter()
            .filter(|&&b| b == b'\n')
            .count()
            + 1
    }

    /// The line where the deepest existing prefix of `path` is written.
    pub fn line_of(&self, path: &[Seg]) -> usize {
        let Some(doc) = &self.doc else { return 0 };
        let mut node = Node::Table(doc.as_table());
        let mut best: Option<usize> = None;
        for seg in path {
            match step(node, seg, &mut best) {
                Some(n) => node = n,
                None => break,
            }
        }
        best.map_or(0, |o| self.line_of_offset(o))
    }

    /// The key path of the deepest key or value whose text contains all of `span`: where a
    /// serde error (wrong type, unknown or missing field) points. `None` when the text is not
    /// valid TOML; an empty path for the document itself.
    pub fn path_at(&self, span: std::ops::Range<usize>) -> Option<Vec<Seg>> {
        let doc = self.doc.as_ref()?;
        let mut path = Vec::new();
        if span.is_empty() {
            // serde's errors about the document itself (a missing top-level table) come at 0..0.
            return Some(path);
        }
        find_in_table(doc.as_table(), &span, &mut path);
        Some(path)
    }

    /// An error at `path`.
    pub fn err(&self, path: &[Seg], message: impl Into<String>) -> ScenarioError {
        ScenarioError {
            file: self.file.clone(),
            line: self.line_of(path),
            key: key_string(path),
            message: message.into(),
        }
    }
}

/// `resources[2].size`-style rendering of a key path.
pub fn key_string(path: &[Seg]) -> String {
    let mut s = String::new();
    for seg in path {
        match seg {
            Seg::Key(k) => {
                if !s.is_empty() {
                    s.push('.');
                }
                s.push_str(k);
            }
            Seg::Index(i) => s.push_str(&format!("[{i}]")),
        }
    }
    s
}

#[derive(Clone, Copy)]
enum Node<'a> {
    Table(&'a toml_edit::Table),
    Item(&'a toml_edit::Item),
    Value(&'a toml_edit::Value),
}

/// One step down the document, remembering the byte offset of the deepest thing found.
fn step<'a>(node: Node<'a>, seg: &Seg, best: &mut Option<usize>) -> Option<Node<'a>> {
    // Normalize items to the table or value they hold.
    let node = match node {
        Node::Item(toml_edit::Item::Table(t)) => Node::Table(t),
        Node::Item(toml_edit::Item::Value(v)) => Node::Value(v),
        other => other,
    };
    match (node, seg) {
        (Node::Table(t), Seg::Key(k)) => {
            if let Some(s) = t.key(k).and_then(|key| key.span()) {
                *best = Some(s.start);
            }
            t.get(k).map(Node::Item)
        }
        (Node::Value(toml_edit::Value::InlineTable(t)), Seg::Key(k)) => {
            if let Some(s) = t.key(k).and_then(|key| key.span()) {
                *best = Some(s.start);
            }
            t.get(k).map(Node::Value)
        }
        (Node::Item(toml_edit::Item::ArrayOfTables(a)), Seg::Index(i)) => a.get(*i).map(|t| {
            if let Some(s) = t.span() {
                *best = Some(s.start);
            }
            Node::Table(t)
        }),
        (Node::Value(toml_edit::Value::Array(a)), Seg::Index(i)) => a.get(*i).map(|v| {
            if let Some(s) = v.span() {
                *best = Some(s.start);
            }
            Node::Value(v)
        }),
        _ => None,
    }
}

fn covers(outer: Option<std::ops::Range<usize>>, inner: &std::ops::Range<usize>) -> bool {
    outer.is_some_and(|o| o.start <= inner.start && inner.end <= o.end)
}

/// Descend into `t` towards `span`, pushing the steps taken; true when something inside matched.
fn find_in_table(t: &toml_edit::Table, span: &std::ops::Range<usize>, path: &mut Vec<Seg>) -> bool {
    for (k, item) in t.iter() {
        path.push(Seg::Key(k.to_string()));
        if covers(t.key(k).and_then(|key| key.span()), span) {
            return true;
        }
        let hit = match item {
            toml_edit::Item::Value(v) => find_in_value(v, span, path),
            toml_edit::Item::Table(sub) => {
                find_in_table(sub, span, path) || covers(sub.span(), span)
            }
            toml_edit::Item::ArrayOfTables(a) => {
                let mut hit = false;
                for (i, sub) in a.iter().enumerate() {
                    path.push(Seg::Index(i));
                    if find_in_table(sub, span, path) || covers(sub.span(), span) {
                        hit = true;
                        break;
                    }
                    path.pop();
                }
                hit
            }
            toml_edit::Item::None => false,
        };
        if hit {
            return true;
        }
        path.pop();
    }
    false
}

fn find_in_value(v: &toml_edit::Value, span: &std::ops::Range<usize>, path: &mut Vec<Seg>) -> bool {
    match v {
        toml_edit::Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                path.push(Seg::Index(i));
                if find_in_value(x, span, path) {
                    return true;
                }
                path.pop();
            }
        }
        toml_edit::Value::InlineTable(t) => {
            for (k, x) in t.iter() {
                path.push(Seg::Key(k.to_string()));
                if covers(t.key(k).and_then(|key| key.span()), span) || find_in_value(x, span, path)
                {
                    return true;
                }
                path.pop();
            }
        }
        _ => {}
    }
    covers(v.span(), span)
}

/// Shorthand for building key paths: `path!["resources", 2, "size"]`.
#[macro_export]
macro_rules! path {
    // A Vec (not an array) so paths of different lengths share one type.
    ($($seg:expr),* $(,)?) => { <[$crate::scenario::error::Seg]>::into_vec(Box::new([$($crate::scenario::error::Seg::from($seg)),*])) };
}

impl From<&str> for Seg {
    fn from(s: &str) -> Self {
        Seg::Key(s.to_string())
    }
}
impl From<String> for Seg {
    fn from(s: String) -> Self {
        Seg::Key(s)
    }
}
impl From<&String> for Seg {
    fn from(s: &String) -> Self {
        Seg::Key(s.clone())
    }
}
impl From<usize> for Seg {
    fn from(i: usize) -> Self {
        Seg::Index(i)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_lines_of_nested_keys() {
        let text = "[scenario]\nname = \"x\"\n\n[[resources]]\nname = \"a\"\n\n[[resources]]\nname = \"b\"\nsize_bytes = \"n /\"\ninit = { kind = \"ramp\", step = 2 }\n";
        let loc = Locator::new(Path::new("t.toml"), text);
        assert_eq!(loc.line_of(&path!["scenario", "name"]), 2);
        assert_eq!(loc.line_of(&path!["resources", 1usize, "size_bytes"]), 9);
        assert_eq!(loc.line_of(&path!["resources", 1usize, "init", "step"]), 10);
        // A missing key falls back to the deepest part that exists.
        assert_eq!(loc.line_of(&path!["resources", 1usize, "nope"]), 7);
        let e = loc.err(&path!["resources", 1usize, "size_bytes"], "bad");
        assert_eq!(
            e.to_string(),
            "t.toml:9: key `resources[1].size_bytes`: bad"
        );
    }
}
