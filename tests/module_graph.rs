//! The modules of src/ only look down: no two modules use each other, directly or through
//! others (`crate::a::...` in b and `crate::b::...` in a). A module and its own submodules may
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

fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let mut files = BTreeMap::new();
    modules(Path::new("src"), &mut files);
    let names: Vec<String> = files.keys().cloned().collect();
    let mut g = BTreeMap::new();
    for (m, code) in &files {
        let mut deps = BTreeSet::new();
        for (i, _) in code.match_indices("crate::") {
            let path: String = code[i + 7..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == ':')
                .collect();
            // The longest module that the path names.
            let parts: Vec<&str> = path.trim_end_matches(':').split("::").collect();
            let target = (1..=parts.len())
                .rev()
                .map(|k| parts[..k].join("::"))
                .find(|c| names.contains(c));
            if let Some(t) = target {
                if !within(&t, m) && !within(m, &t) {
                    deps.insert(t);
                }
            }
        }
        g.insert(m.clone(), deps);
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
    for next in &g[from] {
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
    assert!(g.contains_key("measure::runner") && g.contains_key("check"));
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
