//! `p3lab run --resume`: what the interrupted run's run.json says it was running and how it
//! measured, restored onto the command line; and what a run records for a later resume.
use super::*;

/// With `--resume`, read the folder's run.json and fill in what `a` does not give: the
/// scenarios and their selection (when no scenario files are given) and the measurement flags.
/// Returns run.json's contents; None without `--resume`.
pub(super) fn restore(a: &mut RunArgs) -> Result<Option<serde_json::Value>, UserError> {
    if !a.resume {
        return Ok(None);
    }
    let path = a.out.join("run.json");
    let text = std::fs::read_to_string(&path)
        .map_err(|e| UserError::Flag(format!("--resume: cannot read {}: {e}", path.display())))?;
    let v: serde_json::Value = serde_json::from_str(&text)
        .map_err(|e| UserError::Flag(format!("--resume: {}: {e}", path.display())))?;
    let args: crate::output::run_json::RecordedArgs =
        serde_json::from_value(v["args"].clone()).unwrap_or_default();
    if a.scenarios.is_empty() {
        a.scenarios = args.scenarios.iter().map(PathBuf::from).collect();
        if a.set.is_empty() {
            a.set = args.set.clone();
        }
        if a.filter.is_empty() {
            a.filter = args.filter.clone();
        }
        if a.profile.is_none() {
            a.profile = args.profile.clone();
        }
        if a.device.is_none() {
            a.device = args.device.clone();
        }
        if a.counters.is_empty() {
            a.counters = args.counters.clone();
        }
        a.probe |= args.probe;
        a.dump_ir |= args.dump_ir;
        a.dump_outputs |= args.dump_outputs;
        a.keep_going |= args.keep_going && !a.strict;
        a.strict |= args.strict && !a.keep_going;
    }
    if let Some(m) = &args.measure {
        resume_measure_flags(a, m);
    }
    Ok(Some(v))
}

/// What run.json `args` records of `a`.
pub(super) fn recorded(a: &RunArgs) -> crate::output::run_json::RecordedArgs {
    crate::output::run_json::RecordedArgs {
        scenarios: a
            .scenarios
            .iter()
            .map(|p| p.display().to_string())
            .collect(),
        set: a.set.clone(),
        filter: a.filter.clone(),
        profile: a.profile.clone(),
        device: a.device.clone(),
        counters: a.counters.clone(),
        probe: a.probe,
        dump_ir: a.dump_ir,
        dump_outputs: a.dump_outputs,
        keep_going: a.keep_going,
        strict: a.strict,
        measure: Some(measure_flags(a)),
    }
}

/// The measurement flags of `a`, as run.json records them.
fn measure_flags(a: &RunArgs) -> crate::output::run_json::MeasureFlags {
    crate::output::run_json::MeasureFlags {
        reps: a.reps,
        warmup: a.warmup,
        warmup_ms: a.warmup_ms,
        rounds: a.rounds,
        max_rounds: a.max_rounds,
        ci_target: a.ci_target,
        budget_ms: a.budget_ms,
        seed: a.seed,
        evict: a.evict,
        fresh: a.fresh,
        no_placement_check: a.no_placement_check,
        placements: a.placements,
    }
}

/// `--resume`: the rest of the run is measured as its first part was. A flag not given again
/// takes the recorded value; one given with another value is used, with a warning that
/// names both (rows then differ in design; results.csv's `reps_per_batch`, `ci_target_pct`,
/// `budget_ms` and `fresh` say how each was measured).
fn resume_measure_flags(a: &mut RunArgs, m: &crate::output::run_json::MeasureFlags) {
    fn keep<T: Clone + PartialEq + std::fmt::Debug>(
        flag: &str,
        given: &mut Option<T>,
        was: &Option<T>,
    ) {
        match (given.as_ref(), was) {
            (None, _) => *given = was.clone(),
            (Some(g), w) if Some(g) != w.as_ref() => tracing::warn!(
                "--resume: {flag} {g:?} differs from the run's first part ({}); its rows are measured differently",
                w.as_ref().map_or("not given".to_string(), |w| format!("{w:?}"))
            ),
            _ => {}
        }
    }
    keep("--reps", &mut a.reps, &m.reps);
    keep("--warmup", &mut a.warmup, &m.warmup);
    keep("--warmup-ms", &mut a.warmup_ms, &m.warmup_ms);
    keep("--rounds", &mut a.rounds, &m.rounds);
    keep("--max-rounds", &mut a.max_rounds, &m.max_rounds);
    keep("--ci-target", &mut a.ci_target, &m.ci_target);
    keep("--budget-ms", &mut a.budget_ms, &m.budget_ms);
    keep("--seed", &mut a.seed, &m.seed);
    // The typed flags compared and named by their spelling on the command line.
    let mut evict = a.evict.map(|e| e.label().to_string());
    keep(
        "--evict",
        &mut evict,
        &m.evict.map(|e| e.label().to_string()),
    );
    a.evict = evict.as_deref().and_then(crate::scenario::Evict::parse);
    let mut fresh = a.fresh.map(|f| f.as_str().to_string());
    keep(
        "--fresh",
        &mut fresh,
        &m.fresh.map(|f| f.as_str().to_string()),
    );
    a.fresh = fresh.as_deref().and_then(crate::scenario::Fresh::parse);
    keep("--placements", &mut a.placements, &m.placements);
    if a.no_placement_check != m.no_placement_check {
        if a.no_placement_check {
            tracing::warn!("--resume: --no-placement-check was not given in the run's first part; its rows are measured differently");
        }
        a.no_placement_check = true;
    }
}
