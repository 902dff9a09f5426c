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
pub(super) fn restore(plan: &mut RunPlan) -> Result<Option<crate::runfolder::RunInfo>, UserError> {
    if !plan.output.resume {
        return Ok(None);
    }
    let path = plan.output.out.join("run.json");
    let folder = crate::runfolder::RunFolder::open(&plan.output.out)
        .map_err(|e| UserError::Flag(format!("--resume: {e:#}")))?;
    let mut runs = folder.runs;
    if runs.len() != 1 {
        return Err(UserError::Flag(format!(
            "--resume: {} is a merged folder ({}), not one run",
            plan.output.out.display(),
            folder.file.display()
        )));
    }
    let v = runs.remove(0).info;
    let args: RecordedArgs = v.args.clone();
    // What came back from run.json, as the flags that would give it (issue 41: the resume
    // says so).
    let mut restored = Vec::new();
    if plan.what.scenarios.is_empty() {
        restore_selection(plan, &args, &mut restored);
    }
    if let Some(m) = &args.measure {
        resume_measure_flags(&mut plan.how.design, m, &mut restored);
    }
    if restored.is_empty() {
        tracing::info!(
            "--resume: nothing restored from {} (every option as given now)",
            path.display()
        );
    } else {
        tracing::info!(
            "--resume: restored from {}: {}",
            path.display(),
            restored.join(" ")
        );
    }
    plan.check()?;
    let filter = Filter::new(plan.what.filter.globs())?;
    plan.what.filter = filter;
    Ok(Some(v))
}

/// No scenario files given: the recorded ones, with the recorded selection and switches
/// where none is given.
/// Each restored option is added to `restored` as the flags that give it.
fn restore_selection(plan: &mut RunPlan, args: &RecordedArgs, restored: &mut Vec<String>) {
    let (what, how) = (&mut plan.what, &mut plan.how);
    what.scenarios = args.scenarios.iter().map(PathBuf::from).collect();
    restored.extend(args.scenarios.iter().cloned());
    let many = |flag: &str, values: &[String]| -> Vec<String> {
        values.iter().map(|v| format!("{flag} {v}")).collect()
    };
    if what.set.is_empty() {
        what.set = args.set.clone();
        restored.extend(many("--set", &args.set));
    }
    if what.filter.globs().is_empty() {
        // Checked with the rest once restored.
        what.filter = Filter::unchecked(args.filter.clone());
        restored.extend(many("--filter", &args.filter));
    }
    if what.profile.is_none() {
        what.profile = args.profile.clone();
        restored.extend(many("--profile", args.profile.as_slice()));
    }
    if what.device.is_none() {
        what.device = args.device.clone();
        restored.extend(many("--device", args.device.as_slice()));
    }
    if how.counters.is_empty() {
        how.counters = args.counters.clone();
        restored.extend(many("--counters", &args.counters));
    }
    let mut switch = |flag: &str, given: &mut bool, was: bool| {
        if was && !*given {
            *given = true;
            restored.push(flag.to_string());
        }
    };
    switch("--probe", &mut how.probe, args.probe);
    switch("--dump-ir", &mut how.dump_ir, args.dump_ir);
    switch("--dump-outputs", &mut how.dump_outputs, args.dump_outputs);
    let strict = how.strict;
    switch(
        "--keep-going",
        &mut how.keep_going,
        args.keep_going && !strict,
    );
    let keep_going = how.keep_going;
    switch("--strict", &mut how.strict, args.strict && !keep_going);
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
/// Each flag restored is added to `restored` with its value.
fn resume_measure_flags(a: &mut MeasureFlags, m: &MeasureFlags, restored: &mut Vec<String>) {
    let mut keep = |flag: &str, given: &mut Option<String>, was: Option<String>| {
        match (given.as_ref(), &was) {
            (None, Some(w)) => {
                restored.push(format!("{flag} {w}"));
                *given = was;
            }
            (None, None) => {}
            (Some(g), w) if Some(g) != w.as_ref() => tracing::warn!(
                "--resume: {flag} {g} differs from the run's first part ({}); its rows are measured differently",
                w.as_deref().unwrap_or("not given")
            ),
            _ => {}
        }
    };
    // Every flag compared and named by its spelling on the command line, and parsed back.
    fn text<T: ToString>(x: &Option<T>) -> Option<String> {
        x.as_ref().map(T::to_string)
    }
    macro_rules! plain {
        ($flag:literal, $field:ident) => {{
            let mut v = text(&a.$field);
            keep($flag, &mut v, text(&m.$field));
            a.$field = v.and_then(|v| v.parse().ok());
        }};
    }
    plain!("--reps", reps);
    plain!("--warmup", warmup);
    plain!("--warmup-ms", warmup_ms);
    plain!("--rounds", rounds);
    plain!("--max-rounds", max_rounds);
    plain!("--ci-target", ci_target);
    plain!("--budget-ms", budget_ms);
    plain!("--seed", seed);
    let mut evict = a.evict.map(|e| e.label().to_string());
    keep(
        "--evict",
        &mut evict,
        m.evict.map(|e| e.label().to_string()),
    );
    a.evict = evict.as_deref().and_then(crate::scenario::Evict::parse);
    let mut fresh = a.fresh.map(|f| f.as_str().to_string());
    keep(
        "--fresh",
        &mut fresh,
        m.fresh.map(|f| f.as_str().to_string()),
    );
    a.fresh = fresh.as_deref().and_then(crate::scenario::Fresh::parse);
    let mut placements = a.placements.map(|p| p.label());
    keep(
        "--placements",
        &mut placements,
        m.placements.map(|p| p.label()),
    );
    a.placements = placements.and_then(|p| crate::scenario::Placements::parse(&p).ok());
    if a.no_placement_check != m.no_placement_check {
        if a.no_placement_check {
            tracing::warn!("--resume: --no-placement-check was not given in the run's first part; its rows are measured differently");
        } else {
            restored.push("--no-placement-check".into());
        }
        a.no_placement_check = true;
    }
}
