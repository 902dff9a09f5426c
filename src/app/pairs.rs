//! `--pair BASE=NEW` of `compare` and `report`: split at the right `=`, an optional
//! `scenario/` prefix, and `*` / `?` wildcards, expanded into concrete variant pairs
//! ([`PairSpec`]) before anything is compared. `--pair 'rowmajor-*=tilex4-*'` pairs each
//! `rowmajor-X` with `tilex4-X` (what a `*` matched on the left fills the right's `*`);
//! `--pair 'wg*=wg64'` compares every `wg…` variant with `wg64`; `--pair
//! 'tiling/rowmajor=tiling/tilex4'` only in scenario `tiling`, as `run --filter` takes them.
use super::UserError;
use crate::p3::compare::{PairSpec, RunData};
use std::collections::BTreeSet;

/// One side of a `--pair`: its scenario (when it names one) and its variant pattern.
#[derive(Debug, Clone, PartialEq)]
struct Side {
    scenario: Option<String>,
    pattern: String,
}

fn wild(p: &str) -> bool {
    p.contains(['*', '?'])
}

/// `scenario/pattern` when the text before the first `/` is a scenario of `run` (a variant
/// name with a `/` in it stays whole), else the whole text as the pattern.
fn side(text: &str, run: &RunData) -> Side {
    if let Some((sc, rest)) = text.split_once('/') {
        if !rest.is_empty() && run.results.iter().any(|r| r.get("scenario") == sc) {
            return Side {
                scenario: Some(sc.to_string()),
                pattern: rest.to_string(),
            };
        }
    }
    Side {
        scenario: None,
        pattern: text.to_string(),
    }
}

/// What each `*` (and `?`) of `pattern` matched in `name`, or None when it does not match.
pub(super) fn captures(pattern: &str, name: &str) -> Option<Vec<String>> {
    fn go(p: &[char], n: &[char], caps: &mut Vec<String>) -> bool {
        match p.first() {
            None => n.is_empty(),
            Some('*') => {
                for k in (0..=n.len()).rev() {
                    caps.push(n[..k].iter().collect());
                    if go(&p[1..], &n[k..], caps) {
                        return true;
                    }
                    caps.pop();
                }
                false
            }
            Some('?') => {
                if n.is_empty() {
                    return false;
                }
                caps.push(n[0].to_string());
                if go(&p[1..], &n[1..], caps) {
                    return true;
                }
                caps.pop();
                false
            }
            Some(c) => n.first() == Some(c) && go(&p[1..], &n[1..], caps),
        }
    }
    let (p, n): (Vec<char>, Vec<char>) = (pattern.chars().collect(), name.chars().collect());
    let mut caps = Vec::new();
    go(&p, &n, &mut caps).then_some(caps)
}

/// `pattern` with its wildcards filled by `caps`, in order.
fn fill(pattern: &str, caps: &[String]) -> String {
    let mut out = String::new();
    let mut it = caps.iter();
    for c in pattern.chars() {
        if c == '*' || c == '?' {
            out.push_str(it.next().map(String::as_str).unwrap_or(""));
        } else {
            out.push(c);
        }
    }
    out
}

fn variants(run: &RunData, scenario: Option<&str>) -> BTreeSet<String> {
    in_order(run, scenario).into_iter().collect()
}

/// The variants of `run` (in `scenario`) in results.csv's order, each once.
fn in_order(run: &RunData, scenario: Option<&str>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for r in run
        .results
        .iter()
        .filter(|r| scenario.is_none_or(|s| r.get("scenario") == s))
    {
        if !out.iter().any(|v| v == r.get("variant")) {
            out.push(r.get("variant").to_string());
        }
    }
    out
}

/// The concrete pairs one split of a `--pair` gives, or why it gives none.
fn expand(
    text: &str,
    (a, b): (&str, &str),
    base: &RunData,
    new: &RunData,
) -> Result<Vec<PairSpec>, String> {
    let (sa, sb) = (side(a, base), side(b, new));
    let scenario = match (&sa.scenario, &sb.scenario) {
        (Some(x), Some(y)) if x != y => {
            return Err(format!(
                "--pair `{text}`: a pair compares variants of one scenario (`{x}` and `{y}`)"
            ))
        }
        (x, y) => x.clone().or_else(|| y.clone()),
    };
    let (pa, pb) = (&sa.pattern, &sb.pattern);
    let count = |p: &str| p.chars().filter(|c| matches!(c, '*' | '?')).count();
    if wild(pb) && count(pb) != count(pa) {
        return Err(format!(
            "--pair `{text}`: NEW's wildcards are filled by what BASE's matched, so both need as many (`{pa}` has {}, `{pb}` has {})",
            count(pa),
            count(pb)
        ));
    }
    if !wild(pa) {
        return Ok(vec![PairSpec {
            scenario,
            base: pa.clone(),
            new: pb.clone(),
        }]);
    }
    let new_names = variants(new, scenario.as_deref());
    // Within one run a variant against itself says nothing: `stride*=stride1` skips stride1.
    let one_run = base.dir == new.dir;
    let pairs: Vec<PairSpec> = in_order(base, scenario.as_deref())
        .iter()
        .filter_map(|v| captures(pa, v).map(|c| (v, fill(pb, &c))))
        .filter(|(v, n)| new_names.contains(n) && !(one_run && *v == n))
        .map(|(v, n)| PairSpec {
            scenario: scenario.clone(),
            base: v.clone(),
            new: n,
        })
        .collect();
    if pairs.is_empty() {
        return Err(format!(
            "--pair `{text}`: `{pa}` matches no variant of BASE{} that has a `{pb}` counterpart in NEW",
            scenario
                .as_deref()
                .map(|s| format!(" in `{s}`"))
                .unwrap_or_default()
        ));
    }
    Ok(pairs)
}

/// Each `--pair BASE=NEW`, split at the `=` that leaves a variant (or a pattern that matches
/// some) of `base` on the left and of `new` on the right, so names with `=` in them (`=2+2`)
/// can be paired too, then expanded. A pair that no split fits is split at its first usable
/// `=`, and [`check_pairs`] reports the unknown name; one that several splits fit is refused
/// as ambiguous.
pub(super) fn parse_pairs(
    list: &[String],
    base: &RunData,
    new: &RunData,
) -> Result<Vec<PairSpec>, UserError> {
    let mut out = Vec::new();
    for p in list {
        let splits: Vec<(&str, &str)> = p
            .match_indices('=')
            .map(|(i, _)| (&p[..i], &p[i + 1..]))
            .filter(|(a, b)| !a.is_empty() && !b.is_empty())
            .collect();
        let fits = |(a, b): (&str, &str)| -> Option<Vec<PairSpec>> {
            let e = expand(p, (a, b), base, new).ok()?;
            e.iter()
                .all(|s| {
                    variants(base, s.scenario.as_deref()).contains(&s.base)
                        && variants(new, s.scenario.as_deref()).contains(&s.new)
                })
                .then_some(e)
        };
        let fitting: Vec<((&str, &str), Vec<PairSpec>)> = splits
            .iter()
            .filter_map(|s| fits(*s).map(|e| (*s, e)))
            .collect();
        let expanded = match (fitting.as_slice(), splits.first()) {
            ([(_, one)], _) => one.clone(),
            ([], Some(first)) => expand(p, *first, base, new).map_err(UserError::Flag)?,
            ([], None) => {
                return Err(UserError::Flag(format!(
                    "--pair `{p}`: expected BASE_VARIANT=NEW_VARIANT"
                )))
            }
            (many, _) => {
                let ways: Vec<String> = many
                    .iter()
                    .map(|((a, b), _)| format!("`{a}` and `{b}`"))
                    .collect();
                return Err(UserError::Flag(format!(
                    "--pair `{p}`: ambiguous, it splits into variants in {} ways ({})",
                    many.len(),
                    ways.join("; ")
                )));
            }
        };
        out.extend(expanded);
    }
    Ok(out)
}

/// Every `--pair BASE=NEW` must match something: BASE a variant of the base run, NEW one of
/// the new run, and at least one scenario, params case and mode that has both. A name that
/// matches nothing is refused with the closest variant names there are.
pub(super) fn check_pairs(
    pairs: &[PairSpec],
    base: (&RunData, &std::path::Path),
    new: (&RunData, &std::path::Path),
) -> Result<(), UserError> {
    for spec in pairs {
        let (b, n, scope) = (&spec.base, &spec.new, spec.scenario.as_deref());
        let in_scope = |r: &&crate::results::Record| scope.is_none_or(|s| r.get("scenario") == s);
        for (side, (run, path), name) in [("BASE", base, b), ("NEW", new, n)] {
            let known = variants(run, scope);
            if !known.contains(name) {
                let where_ = scope.map(|s| format!(" `{s}` of")).unwrap_or_default();
                return Err(UserError::Flag(format!(
                    "--pair {b}={n}: no variant `{name}` ({side}) in{where_} {} ({} variants){}",
                    path.display(),
                    known.len(),
                    crate::suggest::hint(name, known.iter().map(String::as_str))
                )));
            }
        }
        // Both names exist; they must also share a scenario, params case and mode.
        let new_keys: std::collections::HashSet<_> = new
            .0
            .results
            .iter()
            .filter(in_scope)
            .filter(|r| r.get("variant") == n)
            .map(|r| {
                let k = r.key();
                (k.scenario, k.params, k.mode)
            })
            .collect();
        let common = base.0.results.iter().filter(in_scope).any(|r| {
            let k = r.key();
            k.variant == *b && new_keys.contains(&(k.scenario, k.params, k.mode))
        });
        if !common {
            let cases = |run: &RunData, v: &str| -> String {
                let set: BTreeSet<String> = run
                    .results
                    .iter()
                    .filter(in_scope)
                    .filter(|r| r.get("variant") == v)
                    .map(|r| {
                        let k = r.key();
                        match k.params.as_str() {
                            "" => format!("{} ({})", k.scenario, k.mode),
                            p => format!("{} [{p}] ({})", k.scenario, k.mode),
                        }
                    })
                    .collect();
                set.into_iter().take(3).collect::<Vec<_>>().join(", ")
            };
            return Err(UserError::Flag(format!(
                "--pair {b}={n}: no scenario, params case and mode has both variants \
                 (`{b}` in {}; `{n}` in {})",
                cases(base.0, b),
                cases(new.0, n)
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wildcards_capture_what_they_match() {
        assert_eq!(
            captures("rowmajor-*", "rowmajor-wg16x16"),
            Some(vec!["wg16x16".to_string()])
        );
        assert_eq!(
            captures("a*b*", "axxbyy"),
            Some(vec!["xx".into(), "yy".into()])
        );
        assert_eq!(captures("wg?4", "wg64"), Some(vec!["6".to_string()]));
        assert_eq!(captures("tile*", "rowmajor"), None);
        assert_eq!(fill("tilex4-*", &["wg8x8".to_string()]), "tilex4-wg8x8");
    }
}
