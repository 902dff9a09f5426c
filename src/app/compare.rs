//! `p3lab compare` and `p3lab report`.
use super::pairs::{check_pairs, parse_pairs};
use super::*;
use crate::results::write::{refuse_link, write_file_atomic};

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

/// The two run folders `compare` reads: BASE and NEW, a saved baseline and NEW, or one run
/// compared with itself (`--pair`, `--base-host`/`--new-host`, ...).
fn compare_paths(
    a: &crate::cli::CompareArgs,
    base_sel: &crate::p3::compare::Selector,
    new_sel: &crate::p3::compare::Selector,
) -> anyhow::Result<(PathBuf, PathBuf)> {
    let paths = match (&a.baseline, a.runs.as_slice()) {
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
    Ok(paths)
}

/// The comparison on stdout in the format asked for, its warnings on stderr.
fn print_comparison(
    c: &crate::p3::compare::Comparison,
    a: &crate::cli::CompareArgs,
    v: super::Verbosity,
    base_path: &std::path::Path,
    new_path: &std::path::Path,
) {
    use crate::p3::compare as cmp;
    let shown = if v.quiet {
        cmp::Shown::Changed
    } else {
        cmp::Shown::All
    };
    match a.format {
        Format::Table if a.p3 => print!("{}", cmp::to_p3(c, shown)),
        // -v: every metric of every pair, and the warnings, as before.
        Format::Table if v.verbose > 0 && !v.quiet => print!("{}", cmp::to_table(c)),
        Format::Table => print!("{}", cmp::to_brief(c, shown, super::term::stdout_color())),
        Format::Csv => print!("{}", cmp::to_brief_csv(c, shown)),
        Format::Json => print!("{}", cmp::to_json(c, shown, base_path, new_path)),
    }
    // The detailed table has them; otherwise stderr, so stdout stays one line per pair.
    if !(a.format == Format::Table && v.verbose > 0 && !v.quiet) {
        for w in &c.warnings {
            eprintln!("warning: {w}");
        }
    }
}

pub(super) fn compare_cmd(a: crate::cli::CompareArgs, v: super::Verbosity) -> anyhow::Result<i32> {
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
    let (base_path, new_path) = compare_paths(&a, &base_sel, &new_sel)?;
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
    // A --pair that matches nothing is a typo: it must not pass a CI gate as "nothing
    // regressed".
    check_pairs(&pairs, (&base, &base_path), (&new, &new_path))?;
    // The process SD the pairs of two runs carry: measured for the runs' device (the cache,
    // or --process-sd), else a conservative one for its type (issue 41).
    let process_sds = super::calibrate::measured_for(&[&base, &new], a.process_sd.as_deref())?;
    let opts = CompareOptions {
        noise_pct: a.noise,
        pairs,
        process_sds,
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
    print_comparison(&c, &a, v, &base_path, &new_path);
    let out = compare_out(&a, &base_path, &new_path);
    std::fs::create_dir_all(&out)
        .map_err(|e| anyhow::anyhow!("cannot create {}: {e}", out.display()))?;
    // Neither file is written when either path is a link.
    let (csv_path, md_path) = (out.join("compare.csv"), out.join("compare.md"));
    refuse_link(&csv_path)
        .and_then(|()| refuse_link(&md_path))
        .map_err(linked_is_bad_input)?;
    write_file_atomic(&csv_path, cmp::to_csv(&c).as_bytes())?;
    // compare.md names what it compares (issue 40: it had no heading).
    let title = if base_path == new_path {
        format!("# compare: pairs of {}\n\n", base_path.display())
    } else {
        format!(
            "# compare: {} (base) → {} (new)\n\n",
            base_path.display(),
            new_path.display()
        )
    };
    let md = format!("{title}{}", cmp::to_markdown(&c));
    write_file_atomic(&md_path, md.as_bytes())?;
    if !v.quiet {
        eprintln!("p3lab: compare.csv and compare.md in {}", out.display());
    }
    Ok(
        if a.fail_on_regression && cmp::has_regression(&c, a.fail_on_placement_dependent) {
            exit::REGRESSION
        } else {
            exit::OK
        },
    )
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
            let base_path = a.compare.as_ref().expect("base given");
            let pairs = parse_pairs(&a.pair, b, &run)?;
            check_pairs(&pairs, (b, base_path), (&run, &a.run))?;
            Some(cmp::compare(
                b,
                &run,
                &CompareOptions {
                    pairs,
                    process_sds: super::calibrate::measured_for(&[b, &run], None)?,
                    ..Default::default()
                },
            ))
        }
        (None, false) => {
            let pairs = parse_pairs(&a.pair, &run, &run)?;
            check_pairs(&pairs, (&run, &a.run), (&run, &a.run))?;
            Some(cmp::compare(
                &run,
                &run,
                &CompareOptions {
                    pairs,
                    ..Default::default()
                },
            ))
        }
        (None, true) => None,
    };
    if let (Some(c), false) = (&comparison, a.allow_cross_device) {
        if let Some(why) = cmp::cross_device_refusal(c) {
            return Err(UserError::Flag(format!("report --compare: {why}")).into());
        }
    }
    let meta = crate::p3::RunMeta::load(&run.dir);
    let compared = comparison.as_ref().map(|c| crate::p3::Compared {
        base: base.as_ref().unwrap_or(&run),
        comparison: c,
    });
    let r = crate::p3::report(&run, &meta, compared);
    let out = match (&a.out, &a.compare) {
        (Some(o), _) => o.clone(),
        (None, Some(base)) => beside(
            &a.run,
            &format!(
                "report-{}-vs-{}",
                run_folder_name(&a.run),
                run_folder_name(base)
            ),
        ),
        (None, None) => beside(&a.run, &format!("report-{}", run_folder_name(&a.run))),
    };
    crate::p3::write_report(&r, &out).map_err(linked_is_bad_input)?;
    // A log line, so `-q` silences it.
    tracing::info!(
        "p3lab: report in {} and {}",
        out.join("report.md").display(),
        out.join("report.html").display()
    );
    Ok(exit::OK)
}

/// The run folder a path names (the folder, or the folder of a results.csv).
fn run_folder(path: &std::path::Path) -> PathBuf {
    if path.is_dir() {
        path.to_path_buf()
    } else {
        path.parent().map(PathBuf::from).unwrap_or_default()
    }
}

/// The run folder's name, for an output folder named after it (`.` for the current one).
fn run_folder_name(path: &std::path::Path) -> String {
    let dir = run_folder(path);
    let dir = dir.canonicalize().unwrap_or(dir);
    dir.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "run".into())
}

/// `name` next to the run folder `path` names: compare and report write a new folder beside
/// their inputs by default, never into one (issue 29).
fn beside(path: &std::path::Path, name: &str) -> PathBuf {
    let dir = run_folder(path);
    let dir = dir.canonicalize().unwrap_or(dir);
    dir.parent()
        .map(|p| p.join(name))
        .unwrap_or_else(|| PathBuf::from(name))
}

/// `-o`, else a new folder beside NEW named after both runs (`compare-BASE-vs-NEW`; a saved
/// baseline by its name; `compare-RUN` for pairs within one run).
fn compare_out(
    a: &crate::cli::CompareArgs,
    base_path: &std::path::Path,
    new_path: &std::path::Path,
) -> PathBuf {
    if let Some(o) = &a.out {
        return o.clone();
    }
    let name = if base_path == new_path {
        format!("compare-{}", run_folder_name(new_path))
    } else {
        format!(
            "compare-{}-vs-{}",
            a.baseline
                .clone()
                .unwrap_or_else(|| run_folder_name(base_path)),
            run_folder_name(new_path)
        )
    };
    beside(new_path, &name)
}
