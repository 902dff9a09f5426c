//! `p3lab compare` and `p3lab report`.
use super::*;

/// Split each `--pair BASE=NEW` at the `=` that leaves a variant of `base` on the left and one
/// of `new` on the right, so names with `=` in them (`=2+2`) can be paired too. A pair that no
/// split fits is split at its first usable `=`, and the caller reports the unknown name; one
/// that several splits fit is refused as ambiguous.
pub(super) fn parse_pairs(
    list: &[String],
    base: &crate::p3::compare::RunData,
    new: &crate::p3::compare::RunData,
) -> Result<Vec<(String, String)>, UserError> {
    let has = |run: &crate::p3::compare::RunData, name: &str| {
        run.results.iter().any(|r| r.key().variant == name)
    };
    list.iter()
        .map(|p| {
            let splits: Vec<(&str, &str)> = p
                .match_indices('=')
                .map(|(i, _)| (&p[..i], &p[i + 1..]))
                .filter(|(a, b)| !a.is_empty() && !b.is_empty())
                .collect();
            let fitting: Vec<&(&str, &str)> = splits
                .iter()
                .filter(|(a, b)| has(base, a) && has(new, b))
                .collect();
            let (a, b) = match (fitting.as_slice(), splits.first()) {
                ([one], _) => **one,
                ([], Some(first)) => *first,
                ([], None) => {
                    return Err(UserError::Flag(format!(
                        "--pair `{p}`: expected BASE_VARIANT=NEW_VARIANT"
                    )))
                }
                (many, _) => {
                    let ways: Vec<String> = many
                        .iter()
                        .map(|(a, b)| format!("`{a}` and `{b}`"))
                        .collect();
                    return Err(UserError::Flag(format!(
                        "--pair `{p}`: ambiguous, it splits into variants in {} ways ({})",
                        many.len(),
                        ways.join("; ")
                    )));
                }
            };
            Ok((a.to_string(), b.to_string()))
        })
        .collect()
}

/// `--pair` values are well formed before any run is loaded: each has an `=` with text on both
/// sides somewhere.
fn check_pair_syntax(list: &[String]) -> Result<(), UserError> {
    for p in list {
        let ok = p.match_indices('=').any(|(i, _)| i > 0 && i + 1 < p.len());
        if !ok {
            return Err(UserError::Flag(format!(
                "--pair `{p}`: expected BASE_VARIANT=NEW_VARIANT"
            )));
        }
    }
    Ok(())
}

pub(super) fn compare_cmd(a: crate::cli::CompareArgs) -> anyhow::Result<i32> {
    use crate::p3::compare::{self as cmp, CompareOptions};
    check_pair_syntax(&a.pair)?;
    let base_sel = cmp::Selector {
        host: a.base_host.clone(),
        device: a.base_device.clone(),
    };
    let new_sel = cmp::Selector {
        host: a.new_host.clone(),
        device: a.new_device.clone(),
    };
    if !(a.noise >= 0.0 && a.noise.is_finite()) {
        return Err(UserError::Flag(format!(
            "--noise {}: must be a non-negative percentage",
            a.noise
        ))
        .into());
    }
    let (base_path, new_path) = match (&a.baseline, a.runs.as_slice()) {
        (Some(name), [new]) => (
            crate::lab::baseline_dir(name, &crate::lab::default_store())
                .map_err(|e| UserError::Flag(format!("--baseline: {e:#}")))?,
            new.clone(),
        ),
        (Some(_), _) => {
            return Err(
                UserError::Flag("--baseline NAME takes one run to compare with it".into()).into(),
            )
        }
        (None, [base, new]) => (base.clone(), new.clone()),
        (None, [one]) if !a.pair.is_empty() || !base_sel.is_empty() || !new_sel.is_empty() => {
            (one.clone(), one.clone())
        }
        (None, _) => {
            return Err(UserError::Flag(
                "compare needs BASE and NEW runs (or one run with --pair, one merged folder with --base-host/--new-host or --base-device/--new-device, or --baseline NAME RUN)"
                    .into(),
            )
            .into())
        }
    };
    let load = |p: &PathBuf| cmp::load_run(p).map_err(|e| UserError::Flag(format!("{e:#}")));
    let side = |sel: &cmp::Selector, data: cmp::RunData, flag: &str| {
        sel.apply(&data)
            .map_err(|e| UserError::Flag(format!("--{flag}-host/--{flag}-device: {e}")))
    };
    let base = side(&base_sel, load(&base_path)?, "base")?;
    let new = side(&new_sel, load(&new_path)?, "new")?;
    // The same row from two runs on one side (a merged folder of several hosts or devices):
    // their samples would be mixed. Refused, with the flags that tell the runs apart.
    for (name, run) in [("base", &base), ("new", &new)] {
        if let Some(why) = cmp::ambiguity(name, run) {
            return Err(UserError::Flag(why).into());
        }
    }
    let pairs = parse_pairs(&a.pair, &base, &new)?;
    // A --pair naming a variant the run does not have is a typo: it must not pass a CI gate
    // as "nothing regressed".
    for (b, n) in &pairs {
        for (side, run, name) in [("BASE", &base, b), ("NEW", &new, n)] {
            if !run.results.iter().any(|r| &r.key().variant == name) {
                let mut known: Vec<String> = run.results.iter().map(|r| r.key().variant).collect();
                known.sort();
                known.dedup();
                let shown = known
                    .iter()
                    .take(12)
                    .cloned()
                    .collect::<Vec<_>>()
                    .join(", ");
                return Err(UserError::Flag(format!(
                    "--pair {b}={n}: no variant `{name}` ({side}) in {}; its variants: {shown}{}",
                    if side == "BASE" {
                        base_path.display()
                    } else {
                        new_path.display()
                    },
                    if known.len() > 12 { ", ..." } else { "" }
                ))
                .into());
            }
        }
    }
    let opts = CompareOptions {
        noise_pct: a.noise,
        pairs,
        ..Default::default()
    };
    let c = cmp::compare(&base, &new, &opts);
    if c.rows.is_empty() {
        return Err(UserError::Flag(format!(
            "{} and {} have no row in common (same scenario, variant, params and mode): nothing to compare",
            base_path.display(),
            new_path.display()
        ))
        .into());
    }
    if !a.allow_cross_device {
        if let Some(why) = cmp::cross_device_refusal(&c) {
            return Err(UserError::Flag(why).into());
        }
    }
    print!("{}", cmp::to_table(&c));
    let out = a.out.clone().unwrap_or_else(|| {
        if new_path.is_dir() {
            new_path.clone()
        } else {
            new_path.parent().map(PathBuf::from).unwrap_or_default()
        }
    });
    std::fs::create_dir_all(&out)?;
    std::fs::write(out.join("compare.csv"), cmp::to_csv(&c))?;
    std::fs::write(out.join("compare.md"), cmp::to_markdown(&c))?;
    eprintln!("p3lab: compare.csv and compare.md in {}", out.display());
    Ok(if a.fail_on_regression && cmp::has_regression(&c) {
        exit::REGRESSION
    } else {
        exit::OK
    })
}

pub(super) fn report_cmd(a: crate::cli::ReportArgs) -> anyhow::Result<i32> {
    use crate::p3::compare::{self as cmp, CompareOptions};
    let run = cmp::load_run(&a.run).map_err(|e| UserError::Flag(format!("{e:#}")))?;
    check_pair_syntax(&a.pair)?;
    let base = match &a.compare {
        Some(base) => Some(cmp::load_run(base).map_err(|e| UserError::Flag(format!("{e:#}")))?),
        None => None,
    };
    let comparison = match (&base, a.pair.is_empty()) {
        (Some(b), _) => {
            let pairs = parse_pairs(&a.pair, b, &run)?;
            Some(cmp::compare(
                b,
                &run,
                &CompareOptions {
                    pairs,
                    ..Default::default()
                },
            ))
        }
        (None, false) => Some(cmp::compare(
            &run,
            &run,
            &CompareOptions {
                pairs: parse_pairs(&a.pair, &run, &run)?,
                ..Default::default()
            },
        )),
        (None, true) => None,
    };
    let meta = crate::p3::RunMeta::load(&run.dir);
    let compared = comparison.as_ref().map(|c| crate::p3::Compared {
        base: base.as_ref().unwrap_or(&run),
        comparison: c,
    });
    let r = crate::p3::report(&run, &meta, compared);
    let out = a.out.clone().unwrap_or_else(|| {
        if a.run.is_dir() {
            a.run.join("report")
        } else {
            PathBuf::from("report")
        }
    });
    crate::p3::write_report(&r, &out)?;
    eprintln!(
        "p3lab: report in {} and {}",
        out.join("report.md").display(),
        out.join("report.html").display()
    );
    Ok(exit::OK)
}
