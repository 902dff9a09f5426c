//! `p3lab run --resume`: what the interrupted run's run.json says it was running and how it
//! measured, restored onto the plan; and what a run records for a later resume.
//!
//! The restore works on the [`RunPlan`], after [`RunPlan::from_args`] has checked the flags as
//! given and after `--out` is expanded (run.json is in the expanded folder); what it restores
//! is checked again ([`RunPlan::check`], the `--filter` set rebuilt), so a recorded value
//! that does not go with a flag given now (`--max-rounds` below the recorded `--rounds`) is
//! refused as it was when the restore worked on the command line before the checks.
use super::plan::{Filter, RunPlan};
use super::*;
use crate::output::run_json::{MeasureFlags, RecordedArgs};

/// With `--resume`, read the folder's run.json and fill in what the plan does not give: the
/// scenarios and their selection (when no scenario files are given) and the measurement
/// flags; then check what it became. Returns run.json's contents; None without `--resume`.
pub(super) fn restore(plan: &mut RunPlan) -> Result<Option<serde_json::Value>, UserError> {
    if !plan.output.resume {
        return Ok(None);
    }
    let path = plan.output.out.join("run.json");
    let text = std::fs::read_to_string(&path)
        .map_err(|e| UserError::Flag(format!("--resume: cannot read {}: {e}", path.display())))?;
    let v: serde_json::Value = serde_json::from_str(&text)
        .map_err(|e| UserError::Flag(format!("--resume: {}: {e}", path.display())))?;
    let args: RecordedArgs = serde_json::from_value(v["args"].clone()).unwrap_or_default();
    if plan.what.scenarios.is_empty() {
        restore_selection(plan, &args);
    }
    if let Some(m) = &args.measure {
        resume_measure_flags(&mut plan.how.design, m);
    }
    plan.check()?;
    let filter = Filter::new(plan.what.filter.globs())?;
    plan.what.filter = filter;
    Ok(Some(v))
}

/// No scenario files given: the recorded ones, with the recorded selection and switches
/// where none is given.
fn restore_selection(plan: &mut RunPlan, args: &RecordedArgs) {
    let (what, how) = (&mut plan.what, &mut plan.how);
    what.scenarios = args.scenarios.iter().map(PathBuf::from).collect();
    if what.set.is_empty() {
        what.set = args.set.clone();
    }
    if what.filter.globs().is_empty() {
        // Checked with the rest once restored.
        what.filter = Filter::unchecked(args.filter.clone());
    }
    if what.profile.is_none() {
        what.profile = args.profile.clone();
    }
    if what.device.is_none() {
        what.device = args.device.clone();
    }
    if how.counters.is_empty() {
        how.counters = args.counters.clone();
    }
    how.probe |= args.probe;
    how.dump_ir |= args.dump_ir;
    how.dump_outputs |= args.dump_outputs;
    how.keep_going |= args.keep_going && !how.strict;
    how.strict |= args.strict && !how.keep_going;
}

/// What run.json `args` records of the plan.
pub(super) fn recorded(plan: &RunPlan) -> RecordedArgs {
    RecordedArgs {
        scenarios: plan
            .what
            .scenarios
            .iter()
            .map(|p| p.display().to_string())
            .collect(),
        set: plan.what.set.clone(),
        filter: plan.what.filter.globs().to_vec(),
        profile: plan.what.profile.clone(),
        device: plan.what.device.clone(),
        counters: plan.how.counters.clone(),
        probe: plan.how.probe,
        dump_ir: plan.how.dump_ir,
        dump_outputs: plan.how.dump_outputs,
        keep_going: plan.how.keep_going,
        strict: plan.how.strict,
        measure: Some(plan.how.design.clone()),
    }
}

/// `--resume`: the rest of the run is measured as its first part was. A flag not given again
/// takes the recorded value; one given with another value is used, with a warning that
/// names both (rows then differ in design; results.csv's `reps_per_batch`, `ci_target_pct`,
/// `budget_ms` and `fresh` say how each was measured).
fn resume_measure_flags(a: &mut MeasureFlags, m: &MeasureFlags) {
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
