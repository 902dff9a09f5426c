//! The modules of src/ only look down: no two modules use each other, directly or through
//! others. Every path a file names (`crate::a::b`, `super::x`, `self::y`, and the groups
//! `crate::{a, b::c}`) is resolved to the module it names; an edge from module `m` to module
//! `t` counts between the two siblings under their nearest common parent (so
//! `scenario::load::files` using `npy` is `scenario` using `npy`, and `p3::html` using
//! `p3::report::sweep` is `p3::html` using `p3::report`). A module and its own submodules may
//! refer to each other. Test code (after `#[cfg(test)]`) does not count.
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

fn modules(dir: &Path, out: &mut BTreeMap<String, String>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            modules(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            let rel = p.strip_prefix("src").unwrap().with_extension("");
            let name = rel
                .to_string_lossy()
                .trim_end_matches("/mod")
                .replace('/', "::");
            if name != "lib" && name != "main" {
                let text = std::fs::read_to_string(&p).unwrap();
                let code = text.split("#[cfg(test)]").next().unwrap().to_string();
                out.insert(name, code);
            }
        }
    }
}

/// `a` is `b` or inside it.
fn within(a: &str, b: &str) -> bool {
    a == b || a.starts_with(&format!("{b}::"))
}

/// Comments out of the way: a path in a doc comment is not a use.
fn strip_comments(code: &str) -> String {
    code.lines()
        .map(|l| match l.find("//") {
            Some(i) => &l[..i],
            None => l,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The paths a piece of code names from `start` on (`crate::a::{b, c::d}` gives `a::b` and
/// `a::c::d`), relative to what precedes them.
fn expand(code: &str) -> Vec<String> {
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let mut out = Vec::new();
    let mut prefix = String::new();
    let mut chars = code.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if ident(c) || c == ':' {
            prefix.push(c);
        } else if c == '{' && prefix.ends_with("::") {
            // A group: find its end, split at top-level commas.
            let mut depth = 1;
            let start = i + 1;
            let mut end = start;
            for (j, d) in chars.by_ref() {
                match d {
                    '{' => depth += 1,
                    '}' => {
                        depth -= 1;
                        if depth == 0 {
                            end = j;
                            break;
                        }
                    }
                    _ => {}
                }
            }
            let inner = &code[start..end];
            let mut depth = 0;
            let mut piece = String::new();
            let mut pieces = Vec::new();
            for d in inner.chars() {
                match d {
                    '{' => depth += 1,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        pieces.push(std::mem::take(&mut piece));
                        continue;
                    }
                    _ => {}
                }
                piece.push(d);
            }
            pieces.push(piece);
            for p in pieces {
                for sub in expand(p.trim()) {
                    out.push(format!("{prefix}{sub}"));
                }
            }
            return out;
        } else {
            break;
        }
    }
    out.push(prefix.trim_end_matches(':').to_string());
    out
}

/// Every module path the code names, absolute (without `crate::`).
fn named(module: &str, is_dir_module: bool, code: &str) -> Vec<Vec<String>> {
    let code = strip_comments(code);
    let mut out = Vec::new();
    let bytes = code.as_bytes();
    for (i, _) in code.match_indices("::") {
        // Find the first segment's start: only paths that begin with crate/super/self.
        let mut s = i;
        while s > 0 && (bytes[s - 1].is_ascii_alphanumeric() || bytes[s - 1] == b'_') {
            s -= 1;
        }
        if s > 0 && bytes[s - 1] == b':' {
            continue; // Not the first segment.
        }
        let first = &code[s..i];
        if first != "crate" && first != "super" && first != "self" {
            continue;
        }
        if s > 0 && (bytes[s - 1].is_ascii_alphanumeric() || bytes[s - 1] == b'_') {
            continue;
        }
        for p in expand(&code[s..]) {
            let segs: Vec<&str> = p.split("::").filter(|x| !x.is_empty()).collect();
            // `self` inside a file module `a::b` is `a::b`; `super` is its parent.
            let mut base: Vec<String> = Vec::new();
            let mut rest = &segs[..];
            if rest.first() == Some(&"crate") {
                rest = &rest[1..];
            } else {
                base = module.split("::").map(String::from).collect();
                let _ = is_dir_module;
                while let Some(&seg) = rest.first() {
                    match seg {
                        "self" => {}
                        "super" => {
                            base.pop();
                        }
                        _ => break,
                    }
                    rest = &rest[1..];
                }
            }
            base.extend(rest.iter().map(|x| x.to_string()));
            out.push(base);
        }
    }
    out
}

fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let mut files = BTreeMap::new();
    modules(Path::new("src"), &mut files);
    let names: BTreeSet<String> = files.keys().cloned().collect();
    let mut g: BTreeMap<String, BTreeSet<String>> =
        names.iter().map(|n| (n.clone(), BTreeSet::new())).collect();
    for (m, code) in &files {
        for parts in named(m, false, code) {
            // The longest module that the path names.
            let target = (1..=parts.len())
                .rev()
                .map(|k| parts[..k].join("::"))
                .find(|c| names.contains(c));
            let Some(t) = target else { continue };
            if within(&t, m) || within(m, &t) {
                continue;
            }
            // The edge between the two siblings under the nearest common parent.
            let a: Vec<&str> = m.split("::").collect();
            let b: Vec<&str> = t.split("::").collect();
            let common = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
            let from = a[..=common].join("::");
            let to = b[..=common].join("::");
            g.entry(from).or_default().insert(to);
        }
    }
    g
}

/// A module reachable from `from` through `g`, ending at `to`: the path, if any.
fn path(
    g: &BTreeMap<String, BTreeSet<String>>,
    from: &str,
    to: &str,
    seen: &mut BTreeSet<String>,
) -> Option<Vec<String>> {
    for next in g.get(from).into_iter().flatten() {
        if next == to {
            return Some(vec![next.clone()]);
        }
        if seen.insert(next.clone()) {
            if let Some(mut p) = path(g, next, to, seen) {
                p.insert(0, next.clone());
                return Some(p);
            }
        }
    }
    None
}

#[test]
fn no_module_uses_one_that_uses_it() {
    let g = graph();
    assert!(g.contains_key("measure::runner") && g.contains_key("measure::check"));
    let mut cycles = Vec::new();
    for m in g.keys() {
        if let Some(p) = path(&g, m, m, &mut BTreeSet::new()) {
            cycles.push(format!("{m} -> {}", p.join(" -> ")));
        }
    }
    assert!(cycles.is_empty(), "import cycles:\n{}", cycles.join("\n"));
}

#[test]
fn the_checker_sees_a_cycle() {
    // The same walk over a planted cycle: the test above cannot pass by seeing nothing.
    let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    g.insert("a".into(), ["b".to_string()].into());
    g.insert("b".into(), ["c".to_string()].into());
    g.insert("c".into(), ["a".to_string()].into());
    assert_eq!(
        path(&g, "a", "a", &mut BTreeSet::new()),
        Some(vec!["b".into(), "c".into(), "a".into()])
    );
    // And the real graph has edges to walk.
    assert!(graph()["measure::runner"].contains("measure::schedule"));
}

#[test]
fn paths_through_super_groups_and_submodules_are_resolved() {
    let names = |m: &str, code: &str| -> Vec<String> {
        named(m, false, code)
            .into_iter()
            .map(|p| p.join("::"))
            .collect()
    };
    assert_eq!(
        names("p3::html", "use super::report::sweep;"),
        ["p3::report::sweep"]
    );
    assert_eq!(
        names("a::b", "use crate::{npy, scenario::{load, refs}};"),
        ["npy", "scenario::load", "scenario::refs"]
    );
    assert_eq!(names("a::b::c", "super::super::x::f()"), ["a::x::f"]);
    assert_eq!(
        names("a", "// crate::b in a comment\nlet x = 1;"),
        Vec::<String>::new()
    );
    // A submodule's use counts for its top-level module against the other's.
    let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    g.insert("x".into(), ["y".to_string()].into());
    g.insert("y".into(), ["x".to_string()].into());
    assert!(path(&g, "x", "x", &mut BTreeSet::new()).is_some());
}
