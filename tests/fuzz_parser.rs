//! The scenario parser never panics: arbitrary text and mutated copies of the bundled scenarios
//! go through `p3lab::scenario::parse` (TOML, the model, expressions, expansion, shader lookup);
//! an `Err` is fine, a panic is a bug. Budget: a few seconds in a debug build.
use proptest::prelude::*;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// (path, text) of every scenarios/*.toml, read once.
fn scenarios() -> &'static [(PathBuf, String)] {
    static S: OnceLock<Vec<(PathBuf, String)>> = OnceLock::new();
    S.get_or_init(|| {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
        let mut v: Vec<(PathBuf, String)> = std::fs::read_dir(&dir)
            .expect("scenarios/")
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "toml"))
            .map(|p| {
                let t = std::fs::read_to_string(&p).unwrap();
                (p, t)
            })
            .collect();
        v.sort();
        assert!(
            v.len() >= 5,
            "expected the bundled scenarios in {}",
            dir.display()
        );
        v
    })
}

/// Values that reach the edges of the loader: zeros, huge and negative numbers, bad
/// expressions, wrong types, unterminated strings.
const NASTY: &[&str] = &[
    "0",
    "-1",
    "4294967296",
    "9223372036854775807",
    "-9223372036854775808",
    "1e308",
    "nan",
    "inf",
    "\"\"",
    "\"n / 0\"",
    "\"n % 0\"",
    "\"2 ** 80\"",
    "\"2 ** -1\"",
    "\"-2 ** 0.5\"",
    "\"((((((((((((((((((((n))))))))))))))))))))\"",
    "\"n +\"",
    "\"wg_x * wg_y * wg_z * 4294967295\"",
    "\"undefined_param\"",
    "[]",
    "[0, 0, 0]",
    "[1, 1]",
    "[1, 1, 1, 1]",
    "[\"n\", \"n\", \"n\"]",
    "[4294967295, 4294967295, 4294967295]",
    "{}",
    "{ kind = \"random\", seed = -1, min = 1, max = 0 }",
    "{ kind = \"nope\" }",
    "true",
    "\"full\"",
    "3",
    "1024",
    "1025",
    "\"{n}\"",
    "\"{",
    "\"unterminated",
    "[[",
];

#[derive(Debug, Clone)]
enum Mutation {
    DeleteLine(usize),
    DuplicateLine(usize),
    SwapLines(usize, usize),
    ReplaceLine(usize, String),
    /// Keep the key, put a nasty value after the `=`.
    ReplaceValue(usize, usize),
    DeleteChar(usize),
    InsertChar(usize, char),
    ReplaceChar(usize, char),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let idx = any::<usize>();
    // Mostly edits that keep the TOML valid, so the loader's later stages see the input.
    prop_oneof![
        2 => idx.prop_map(Mutation::DeleteLine),
        1 => idx.prop_map(Mutation::DuplicateLine),
        1 => (idx, idx).prop_map(|(a, b)| Mutation::SwapLines(a, b)),
        1 => (idx, "[ -~]{0,40}").prop_map(|(i, s)| Mutation::ReplaceLine(i, s)),
        8 => (idx, 0..NASTY.len()).prop_map(|(i, n)| Mutation::ReplaceValue(i, n)),
        1 => idx.prop_map(Mutation::DeleteChar),
        1 => (idx, any::<char>()).prop_map(|(i, c)| Mutation::InsertChar(i, c)),
        1 => (idx, prop::sample::select(&['[', ']', '"', '=', '{', '}', ',', '\n', '#', '0', '\''][..]))
            .prop_map(|(i, c)| Mutation::ReplaceChar(i, c)),
    ]
}

fn apply(text: &str, muts: &[Mutation]) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let mut chars: Option<Vec<char>> = None;
    for m in muts {
        // Line edits work on lines, character edits on characters; switch views as needed.
        let line_edit = matches!(
            m,
            Mutation::DeleteLine(_)
                | Mutation::DuplicateLine(_)
                | Mutation::SwapLines(..)
                | Mutation::ReplaceLine(..)
                | Mutation::ReplaceValue(..)
        );
        if line_edit {
            if let Some(c) = chars.take() {
                lines = c
                    .into_iter()
                    .collect::<String>()
                    .lines()
                    .map(str::to_string)
                    .collect();
            }
            if lines.is_empty() {
                lines.push(String::new());
            }
            let n = lines.len();
            match m {
                Mutation::DeleteLine(i) => {
                    lines.remove(i % n);
                }
                Mutation::DuplicateLine(i) => {
                    let l = lines[i % n].clone();
                    lines.insert(i % n, l);
                }
                Mutation::SwapLines(a, b) => lines.swap(a % n, b % n),
                Mutation::ReplaceLine(i, s) => lines[i % n] = s.clone(),
                Mutation::ReplaceValue(i, v) => {
                    // The i-th line that has a `key = value`.
                    let with_eq: Vec<usize> = (0..n).filter(|&k| lines[k].contains('=')).collect();
                    if let Some(&k) = with_eq.get(i % with_eq.len().max(1)) {
                        let key = lines[k].split('=').next().unwrap_or("").to_string();
                        lines[k] = format!("{key}= {}", NASTY[*v]);
                    }
                }
                _ => unreachable!(),
            }
        } else {
            let c = chars.get_or_insert_with(|| {
                let mut s = lines.join("\n");
                s.push('\n');
                s.chars().collect()
            });
            let n = c.len().max(1);
            match m {
                Mutation::DeleteChar(i) if !c.is_empty() => {
                    c.remove(i % n);
                }
                Mutation::InsertChar(i, ch) => c.insert(i % (c.len() + 1), *ch),
                Mutation::ReplaceChar(i, ch) if !c.is_empty() => c[i % n] = *ch,
                _ => {}
            }
        }
    }
    match chars {
        Some(c) => c.into_iter().collect(),
        None => lines.join("\n") + "\n",
    }
}

fn parse(path: &Path, text: &str) {
    // Either answer is fine; reaching here without a panic is the test. Exercise Display too.
    let r = p3lab::scenario::parse(path, text, &Vec::new());
    if let Err(e) = r {
        let _ = e.to_string();
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_text_never_panics(text in any::<String>()) {
        parse(&scenarios()[0].0, &text);
    }

    #[test]
    fn toml_shaped_text_never_panics(
        text in "([\\[\\]a-z_.0-9]{1,12} ?= ?(\"[a-z0-9 +*/%()_{}-]{0,16}\"|[0-9-]{1,6}|\\[[0-9, \"n]{0,12}\\]|true)?\n){0,12}"
    ) {
        parse(&scenarios()[0].0, &text);
    }

}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn mutated_scenarios_never_panic(
        which in any::<prop::sample::Index>(),
        muts in prop::collection::vec(mutation(), 1..6),
    ) {
        let (path, text) = &scenarios()[which.index(scenarios().len())];
        parse(path, &apply(text, &muts));
    }
}

/// Every bundled scenario still parses untouched (the mutations start from valid input).
#[test]
fn bundled_scenarios_parse() {
    for (path, text) in scenarios() {
        p3lab::scenario::parse(path, text, &Vec::new())
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    }
}
