//! "Did you mean": the names closest to one that matched nothing (a `--pair` variant, a
//! `--filter` glob, a baseline, a host), for error messages that help fix the typo.

/// How many candidates an error message names.
pub const SHOWN: usize = 3;

/// Up to `SHOWN` of `candidates` closest to `query`, closest first: by the edit distance to the
/// part of the candidate that fits `query` best (so `llvmpip` finds `llvmpipe (LLVM 15)`), then
/// by the edit distance to the whole candidate, then the longer shared prefix, then by name.
/// Case is ignored, and so are glob characters `*?[]{}` in `query`; an adjacent transposition
/// counts as one edit. Duplicates and empty names are skipped.
pub fn closest<'a, I>(query: &str, candidates: I) -> Vec<String>
where
    I: IntoIterator<Item = &'a str>,
{
    let q: String = query
        .chars()
        .filter(|c| !matches!(c, '*' | '?' | '[' | ']' | '{' | '}'))
        .flat_map(char::to_lowercase)
        .collect();
    let mut seen = std::collections::BTreeSet::new();
    let mut scored: Vec<(usize, usize, usize, String)> = candidates
        .into_iter()
        .filter(|c| !c.is_empty() && seen.insert(*c))
        .map(|c| {
            let low = c.to_lowercase();
            let prefix = q
                .chars()
                .zip(low.chars())
                .take_while(|(a, b)| a == b)
                .count();
            (
                edits(&q, &low, true),
                distance(&q, &low),
                usize::MAX - prefix,
                c.to_string(),
            )
        })
        .collect();
    scored.sort();
    scored.into_iter().take(SHOWN).map(|(.., c)| c).collect()
}

/// "; closest: `a`, `b`, `c`", or "" when there is no candidate.
pub fn hint<'a, I>(query: &str, candidates: I) -> String
where
    I: IntoIterator<Item = &'a str>,
{
    let c = closest(query, candidates);
    if c.is_empty() {
        return String::new();
    }
    let names: Vec<String> = c.iter().map(|n| format!("`{n}`")).collect();
    format!("; closest: {}", names.join(", "))
}

/// Edit distance over characters (insert, delete, substitute, swap two adjacent ones).
pub fn distance(a: &str, b: &str) -> usize {
    edits(a, b, false)
}

/// Optimal-string-alignment distance from `a` to `b`, or with `within` to the substring of
/// `b` closest to `a` (the rest of `b` free).
fn edits(a: &str, b: &str, within: bool) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    // rows[i][j]: a[..i] against b[..j]; only three rows are live.
    let first: Vec<usize> = (0..=b.len()).map(|j| if within { 0 } else { j }).collect();
    let (mut before, mut prev) = (first.clone(), first);
    let mut cur = vec![0; b.len() + 1];
    for i in 1..=a.len() {
        cur[0] = i;
        for j in 1..=b.len() {
            let mut d = (prev[j - 1] + usize::from(a[i - 1] != b[j - 1]))
                .min(prev[j] + 1)
                .min(cur[j - 1] + 1);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                d = d.min(before[j - 2] + 1);
            }
            cur[j] = d;
        }
        std::mem::swap(&mut before, &mut prev);
        std::mem::swap(&mut prev, &mut cur);
    }
    if within {
        prev.into_iter().min().unwrap_or(a.len())
    } else {
        prev[b.len()]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances() {
        assert_eq!(distance("", "abc"), 3);
        assert_eq!(distance("kitten", "sitting"), 3);
        assert_eq!(distance("tilex16", "tile-x-16"), 2);
        assert_eq!(distance("µs", "us"), 1);
        assert_eq!(distance("wg46", "wg64"), 1);
        assert_eq!(distance("mian", "main"), 1);
        assert_eq!(edits("llvmpip3", "llvmpipe (llvm 15)", true), 1);
        assert_eq!(edits("", "abc", true), 0);
    }

    #[test]
    fn closest_first_then_prefix_then_name() {
        let names = [
            "row-major",
            "tile-x-16",
            "tile-x-32",
            "col-major",
            "row-major",
            "",
        ];
        assert_eq!(
            closest("rowmajor", names),
            vec!["row-major", "col-major", "tile-x-16"]
        );
        assert_eq!(closest("TILE-X-3*", names)[0], "tile-x-32");
        assert_eq!(
            hint("tilex16", ["tile-x-16"]),
            "; closest: `tile-x-16`".to_string()
        );
        assert_eq!(hint("x", std::iter::empty()), "");
    }
}
