//! `run --filter`: a glob set that matches no variant is a typo, refused (exit 2) before
//! anything runs or is written, with the variant names closest to it; so is a
//! `--baseline-variant` no case has.
use super::UserError;
use crate::scenario::Scenario;

/// Refuse `filters` (globs over a variant's name or SCENARIO/NAME) when none of them matches
/// a variant of `scenarios`; nothing to check without filters.
pub(super) fn check(filters: &[String], scenarios: &[Scenario]) -> Result<(), UserError> {
    if filters.is_empty() {
        return Ok(());
    }
    let mut b = globset::GlobSetBuilder::new();
    for f in filters {
        b.add(globset::Glob::new(f).map_err(|e| UserError::Flag(format!("--filter `{f}`: {e}")))?);
    }
    let set = b
        .build()
        .map_err(|e| UserError::Flag(format!("--filter: {e}")))?;
    let mut names = Vec::new();
    for sc in scenarios {
        for v in sc.cases.iter().flat_map(|c| &c.variants) {
            let full = format!("{}/{}", sc.name, v.name);
            if set.is_match(&v.name) || set.is_match(&full) {
                return Ok(());
            }
            names.push((v.name.clone(), full));
        }
    }
    // A filter with a `/` is compared with SCENARIO/NAME, others with the variant name.
    let closest: Vec<String> = {
        let mut all = Vec::new();
        for f in filters {
            let pool = names
                .iter()
                .map(|(n, full)| if f.contains('/') { full } else { n });
            for c in crate::suggest::closest(f, pool.map(String::as_str)) {
                if !all.contains(&c) {
                    all.push(c);
                }
            }
        }
        all
    };
    let shown: Vec<String> = closest
        .iter()
        .take(crate::suggest::SHOWN)
        .map(|n| format!("`{n}`"))
        .collect();
    Err(UserError::Flag(format!(
        "--filter {}: matches no variant (name or SCENARIO/NAME) of {}{}; `p3lab list` shows them all",
        filters
            .iter()
            .map(|f| format!("`{f}`"))
            .collect::<Vec<_>>()
            .join(", "),
        scenarios
            .iter()
            .map(|s| s.path.display().to_string())
            .collect::<Vec<_>>()
            .join(", "),
        if shown.is_empty() {
            String::new()
        } else {
            format!("; closest: {}", shown.join(", "))
        }
    )))
}

/// `--baseline-variant` that no case of the run has: exit 2 naming the flag, before anything
/// runs.
pub fn check_baseline_variant(chosen: Option<&str>, scenarios: &[Scenario]) -> anyhow::Result<()> {
    let Some(b) = chosen else {
        return Ok(());
    };
    let known = scenarios
        .iter()
        .flat_map(|s| &s.cases)
        .flat_map(|c| &c.variants)
        .any(|v| v.name == b);
    if !known {
        return Err(UserError::Flag(format!(
            "--baseline-variant {b}: no scenario of the run has a variant `{b}` (`p3lab list` shows them)"
        ))
        .into());
    }
    Ok(())
}
