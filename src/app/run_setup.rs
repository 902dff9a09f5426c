//! From a checked [`RunPlan`] to what the run needs: the scenarios at their profile, the
//! peaks and the measuring options.
use super::plan::RunPlan;
use super::*;

/// The scenarios at the profile `--profile` picks for this device (`auto`: the full sizes on a
/// GPU, the small defaults on a CPU device such as lavapipe), with `--fresh`, `--evict` and
/// `--no-placement-check` applied to every case.
pub(super) fn load_scenarios(
    plan: &RunPlan,
    device_type: &str,
) -> anyhow::Result<(Vec<Scenario>, Option<String>)> {
    let (what, a) = (&plan.what, &plan.how.design);
    let (profile, strict): (Option<String>, bool) = match what.profile.as_deref() {
        Some("auto") => ((device_type != "cpu").then(|| "full".to_string()), false),
        Some("none") => (None, true),
        p => (p.map(String::from), true),
    };
    let mut scenarios = match (profile.as_deref(), strict) {
        (Some(p), false) => load_all_lenient(&what.scenarios, &what.set, p)?,
        (p, _) => load_all(&what.scenarios, &what.set, p)?,
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
    a: &super::plan::Measuring,
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
            // None of its own: another card's of this model and driver, if cached.
            c.is_file().then_some(c).or_else(|| {
                crate::peaks::sibling_cache(&spirv, &ctx.info.name, ctx.info.driver_version)
            })
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
                // A file that lacks units (a filtered `p3lab peak`, an older p3lab) is never
                // used silently (issue 41): their %-of-peak columns stay empty.
                let missing: Vec<&str> = crate::peaks::UNITS
                    .iter()
                    .map(|u| u.name)
                    .filter(|n| !list.iter().any(|p| p.unit == *n))
                    .collect();
                if !missing.is_empty() {
                    tracing::warn!(
                        "the peaks at {} have no row for {} of {} units ({}): their %-of-peak stays empty; `p3lab peak --if-missing` measures what is missing",
                        f.display(),
                        missing.len(),
                        crate::peaks::UNITS.len(),
                        missing.join(", ")
                    );
                }
            }
            let mut p = crate::peaks::Peaks::from_list(&list);
            let same_model =
                crate::peaks::same_model(&list, &ctx.info.name, ctx.info.driver_version);
            if let Some(why) =
                crate::peaks::mismatch(&list, &ctx.info.uuid, ctx.info.driver_version)
                    .filter(|_| !same_model)
            {
                if !a.force_peaks {
                    return Err(UserError::Flag(format!(
                        "--peaks {}: {why}; %-of-peak against another model's or driver's peaks is not this GPU's (peaks of another card of this model and driver are accepted; pass --force-peaks to use them anyway)",
                        f.display()
                    ))
                    .into());
                }
                tracing::warn!("--force-peaks: peaks {why}");
                p.foreign = Some(why);
            } else if list.first().is_some_and(|p| p.device_uuid != ctx.info.uuid) {
                tracing::warn!(
                    "note: the peaks in {} were measured on another {} (device {}) with this driver: used for this card, whose own may differ by the spread between cards of one model (`p3lab peak` measures this one)",
                    f.display(),
                    ctx.info.name,
                    list[0].device_uuid
                );
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

/// The measuring options of the plan.
pub(super) fn run_options(
    plan: &RunPlan,
    peaks: Option<crate::peaks::Peaks>,
    scenarios: &[Scenario],
) -> RunOptions {
    let (how, a) = (&plan.how, &plan.how.design);
    RunOptions {
        validate: how.validate,
        skip: Default::default(),
        filter: plan.what.filter.set().cloned(),
        reps: a.reps,
        warmup: a.warmup,
        warmup_ms: a.warmup_ms,
        rounds: a.rounds,
        max_rounds: a.max_rounds,
        ci_target_pct: a.ci_target,
        budget_ms: a.budget_ms,
        seed: a.seed.unwrap_or(crate::measure::options::DEFAULT_SEED),
        peaks,
        glsl_common: glsl_common(scenarios, &how.include_dir),
        counters: how.counters.clone(),
        hw: how.hw.clone(),
        probe: how.probe,
        dump_ir: how.dump_ir,
        dump_outputs: how.dump_outputs,
    }
}
