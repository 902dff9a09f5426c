//! From `p3lab run`'s flags to what the run needs: the flags checked before anything opens,
//! the `--filter` set, the scenarios at their profile, the peaks and the measuring options.
use super::*;

/// Flags that are wrong whatever the device: refused before anything opens or is written.
pub(super) fn check_flags(a: &RunArgs) -> anyhow::Result<()> {
    // A bad --counters glob is bad input, reported before any device work.
    crate::vk::perf::select(&[], &a.counters)
        .map_err(|e| UserError::Flag(format!("--counters: {e}")))?;
    if a.reps == Some(0) {
        return Err(UserError::Flag("--reps must be at least 1".into()).into());
    }
    {
        use crate::scenario::load::{MAX_REPS, MAX_ROUNDS, MAX_WARMUP};
        let bounded = [
            ("--reps", a.reps, MAX_REPS),
            ("--warmup", a.warmup, MAX_WARMUP),
            ("--rounds", a.rounds, MAX_ROUNDS),
            ("--max-rounds", a.max_rounds, MAX_ROUNDS),
        ];
        for (flag, value, max) in bounded {
            if let Some(v) = value.filter(|v| *v > max) {
                return Err(UserError::Flag(format!(
                    "{flag} {v}: more than {max}, the most p3lab takes"
                ))
                .into());
            }
        }
    }
    // Refused before the run, not after it.
    if let Some(name) = &a.save_baseline {
        crate::lab::validate_name(name)
            .map_err(|e| UserError::Flag(format!("--save-baseline: {e:#}")))?;
    }
    if let (Some(lo), Some(hi)) = (a.rounds, a.max_rounds) {
        if hi < lo {
            return Err(UserError::Flag(format!(
                "--max-rounds ({hi}) must be at least --rounds ({lo})"
            ))
            .into());
        }
    }
    if let Some(t) = a.ci_target {
        if !(t.is_finite() && t > 0.0) {
            return Err(
                UserError::Flag(format!("--ci-target {t}: must be a positive percentage")).into(),
            );
        }
    }
    if let Some(b) = a.budget_ms {
        if !(b.is_finite() && b > 0.0) {
            return Err(UserError::Flag(format!(
                "--budget-ms {b}: must be a positive number of milliseconds"
            ))
            .into());
        }
    }
    Ok(())
}

/// `--filter` globs as one set; None without any.
pub(super) fn build_filter(filters: &[String]) -> anyhow::Result<Option<globset::GlobSet>> {
    let a_filter = filters;
    let filter = if a_filter.is_empty() {
        None
    } else {
        let mut b = globset::GlobSetBuilder::new();
        for f in a_filter {
            b.add(
                globset::Glob::new(f)
                    .map_err(|e| UserError::Flag(format!("--filter `{f}`: {e}")))?,
            );
        }
        Some(
            b.build()
                .map_err(|e| UserError::Flag(format!("--filter: {e}")))?,
        )
    };
    Ok(filter)
}

/// The scenarios at the profile `--profile` picks for this device (`auto`: the full sizes on a
/// GPU, the small defaults on a CPU device such as lavapipe), with `--fresh`, `--evict` and
/// `--no-placement-check` applied to every case.
pub(super) fn load_scenarios(
    a: &RunArgs,
    device_type: &str,
) -> anyhow::Result<(Vec<Scenario>, Option<String>)> {
    let (profile, strict): (Option<String>, bool) = match a.profile.as_deref() {
        Some("auto") => ((device_type != "cpu").then(|| "full".to_string()), false),
        Some("none") => (None, true),
        p => (p.map(String::from), true),
    };
    let mut scenarios = match (profile.as_deref(), strict) {
        (Some(p), false) => load_all_lenient(&a.scenarios, &a.set, p)?,
        (p, _) => load_all(&a.scenarios, &a.set, p)?,
    };
    if let Some(f) = a.fresh {
        for c in scenarios.iter_mut().flat_map(|sc| sc.cases.iter_mut()) {
            c.fresh = f;
        }
    }
    if a.no_placement_check {
        for c in scenarios.iter_mut().flat_map(|sc| sc.cases.iter_mut()) {
            c.placement_check = false;
        }
    }
    if let Some(p) = a.placements {
        for c in scenarios.iter_mut().flat_map(|sc| sc.cases.iter_mut()) {
            c.placements = p;
        }
    }
    if let Some(e) = a.evict {
        for c in scenarios.iter_mut().flat_map(|sc| sc.cases.iter_mut()) {
            c.evict = e;
        }
    }
    Ok((scenarios, profile))
}

/// Peaks: `--peaks FILE`, else this device's cached `p3lab peak` results, if any; the file
/// they came from (None when it held none). `tell_missing`: say once in the log that there are
/// none, with the command that measures them (issue 29: the columns were silently empty).
pub(super) fn find_peaks(
    a: &RunArgs,
    ctx: &Context,
    cache_dir: Option<&std::path::Path>,
    tell_missing: bool,
) -> anyhow::Result<(Option<crate::peaks::Peaks>, Option<PathBuf>)> {
    let peak_file = match &a.peaks {
        Some(f) => Some(f.clone()),
        None => {
            let spirv = cache_dir
                .map(PathBuf::from)
                .unwrap_or_else(default_cache_dir);
            let c = crate::peaks::cache_path(&spirv, &ctx.info.uuid, ctx.info.driver_version);
            c.is_file().then_some(c)
        }
    };
    let mut peak_file = peak_file;
    let peaks = match peak_file.clone() {
        Some(f) => {
            let list = match crate::peaks::read_csv(&f) {
                Ok(l) => l,
                // A cached file from an older p3lab is not an error of this run: it is left
                // unused (no %-of-peak) until `p3lab peak` measures again.
                Err(e) if a.peaks.is_none() => {
                    tracing::warn!("cached peaks not used: {e:#}");
                    Vec::new()
                }
                Err(e) => return Err(UserError::Flag(format!("--peaks: {e:#}")).into()),
            };
            if list.is_empty() {
                peak_file = None;
            } else {
                tracing::info!("peaks from {}", f.display());
            }
            let mut p = crate::peaks::Peaks::from_list(&list);
            if let Some(why) =
                crate::peaks::mismatch(&list, &ctx.info.uuid, ctx.info.driver_version)
            {
                if !a.force_peaks {
                    return Err(UserError::Flag(format!(
                        "--peaks {}: {why}; %-of-peak against another GPU's peaks is not this GPU's (pass --force-peaks to use them anyway)",
                        f.display()
                    ))
                    .into());
                }
                tracing::warn!("--force-peaks: peaks {why}");
                p.foreign = Some(why);
            }
            (!list.is_empty()).then_some(p)
        }
        None => None,
    };
    if peaks.is_none() && tell_missing {
        tracing::warn!(
            "no peaks for {}: %-of-peak, the limiter and the P3 view stay empty; `p3lab peak` measures them once and caches them for this device and driver (or pass --peaks FILE)",
            ctx.info.name
        );
    }
    Ok((peaks, peak_file))
}

/// The measuring options from the flags.
pub(super) fn run_options(
    a: &RunArgs,
    filter: Option<globset::GlobSet>,
    peaks: Option<crate::peaks::Peaks>,
    scenarios: &[Scenario],
) -> RunOptions {
    RunOptions {
        validate: a.validate,
        skip: Default::default(),
        filter,
        reps: a.reps,
        warmup: a.warmup,
        warmup_ms: a.warmup_ms,
        rounds: a.rounds,
        max_rounds: a.max_rounds,
        ci_target_pct: a.ci_target,
        budget_ms: a.budget_ms,
        seed: a.seed.unwrap_or(crate::measure::options::DEFAULT_SEED),
        peaks,
        glsl_common: glsl_common(scenarios, &a.include_dir),
        counters: a.counters.clone(),
        hw: crate::measure::hw::HwOptions {
            enabled: !a.no_hw_counters,
            cupti: a.cupti.clone(),
            interval_ns: a.hw_interval_us * 1000,
        },
        probe: a.probe,
        dump_ir: a.dump_ir,
        dump_outputs: a.dump_outputs,
    }
}
