//! A run of a checked [`RunPlan`] (`p3lab run` and `p3lab peak` both make one): device,
//! scenarios, preflight, the run folder and run.json, the runner; `--device all` as one
//! process per device; one p3lab per folder.
use super::all_devices::run_all_devices;
use super::folder::{count_statuses, expand_out, lock_folder};
use super::plan::RunPlan;
use super::run_setup::{find_peaks, load_scenarios, run_options};
use super::*;
use crate::results::ResultRow;
use std::time::Instant;

/// `p3lab run`: its flags checked into a plan ([`RunPlan::from_args`], a mistake exit 2),
/// then [`run`].
pub(super) fn run_cmd(a: RunArgs) -> anyhow::Result<i32> {
    let plan = RunPlan::from_args(&a).map_err(UserError::from)?;
    run(plan).map(|o| o.code)
}

/// What a run ended with.
#[derive(Debug)]
pub struct RunOutcome {
    /// The exit code `p3lab run` ends with ([`exit`]: 0, 1 for validation errors, 3 when a
    /// row failed, 130 when interrupted).
    pub code: i32,
    /// Every row of the run folder, a resumed run's earlier ones first; empty for
    /// `--device all` (the rows are the workers', merged on disk).
    pub rows: Vec<ResultRow>,
    /// The run folder, its `--out` template expanded.
    pub out: PathBuf,
}

/// Make the run a plan asks for: the device opened, the scenarios loaded and checked, every
/// selected variant measured into the run folder, run.json written, the summary printed (if
/// the plan says so) and the exports, the baseline and the exit code. `--device all` starts
/// one `p3lab run` per device instead. Errors a user can fix are [`UserError`]s (exit 2).
pub fn run(mut plan: RunPlan) -> anyhow::Result<RunOutcome> {
    if plan.on_every_device() {
        let out = plan.output.out.clone();
        return run_all_devices(&plan).map(|code| RunOutcome {
            code,
            rows: Vec::new(),
            out,
        });
    }
    let started = Instant::now();
    let (previous, recorded) = settle(&mut plan)?;
    // An output file that is a symbolic link: refused before anything is written.
    crate::results::write::refuse_links(&plan.output.out).map_err(linked_is_bad_input)?;
    // A run already there is kept unless the user says what to do with it (issue 40).
    if !plan.output.resume && !plan.output.replace {
        refuse_earlier_run(&plan.output.out)?;
    }
    let (ctx, scenarios, profile) = open_device(&plan)?;
    let cache_dir = if plan.how.no_cache {
        None
    } else {
        Some(plan.how.cache_dir.clone().unwrap_or_else(default_cache_dir))
    };
    let mut compiler = Compiler::new(cache_dir.clone())?;
    let (peaks, peak_file) = find_peaks(&plan.how, &ctx, cache_dir.as_deref(), plan.print_summary)?;
    let mut opts = run_options(&plan, peaks, &scenarios);
    // A --filter that matches nothing is a typo, not an empty success.
    super::filter::check(plan.what.filter.globs(), &scenarios)?;
    super::filter::check_baseline_variant(plan.output.baseline_variant.as_deref(), &scenarios)?;
    // Every variant compiled and checked against its scenario before anything runs or is
    // written: a mistake stops here with exit 2, naming file, line and key.
    let mut phases = super::costs::Phases {
        open_ms: started.elapsed().as_secs_f64() * 1e3,
        ..Default::default()
    };
    let t = Instant::now();
    if !plan.how.keep_going {
        preflight(&ctx, &mut compiler, &opts, &scenarios, plan.how.strict)?;
    }
    phases.preflight_ms = t.elapsed().as_secs_f64() * 1e3;
    let out = &plan.output.out;
    std::fs::create_dir_all(out)
        .map_err(|e| anyhow::anyhow!("cannot create {}: {e}", out.display()))?;
    // One p3lab per folder: a second one aimed at it refuses instead of interleaving rows.
    let _lock = lock_folder(out)?;
    // A resumed run's earlier rows: skipped now, and in the summary at the end.
    let (writers, earlier) = open_writers(plan.output.resume, out, &scenarios)?;
    let setup = Setup {
        ctx: &ctx,
        compiler: &compiler,
        cache_dir: cache_dir.as_deref(),
        scenarios: &scenarios,
        profile,
        recorded,
    };
    let mut meta = new_meta(&plan, previous.as_ref(), &setup, &earlier);
    on_interrupt(out);
    // The run's outputs: the CSV tables, the dumped files (`--dump-*`, probe pictures),
    // run.json (written now and at the end), the summary (at the end), and the timeline
    // trace where asked for.
    let layout =
        crate::output::summary::Layout::of(&scenarios, plan.output.baseline_variant.as_deref());
    let mut sinks = crate::sink::Sinks::new();
    sinks.push(Box::new(writers));
    sinks.push(Box::new(crate::sink::dumps::DumpSink::new(out.clone())));
    sinks.push(Box::new(crate::sink::run_json::RunJsonSink::new(
        out.clone(),
    )));
    sinks.push(Box::new(super::summary::sink(
        layout,
        &plan.output,
        plan.print_summary,
    )));
    sinks.run_started(&meta)?;
    if let Some(f) = &peak_file {
        meta.peaks_file = Some(f.display().to_string());
        // The run keeps its own copy of the ceilings its %-of-peak columns used (the
        // report's roofline reads it), so the folder stands alone; `p3lab peak` writes its
        // own peaks.csv there instead.
        if plan.print_summary {
            let copy = out.join(crate::lab::PEAKS_CSV);
            match std::fs::read(f) {
                Ok(bytes) => crate::results::write::write_file_atomic(&copy, &bytes)?,
                Err(e) => tracing::warn!("cannot copy {} into the run: {e}", f.display()),
            }
        }
    }
    opts.skip = earlier.iter().map(crate::results::Record::key).collect();
    meta.seed = opts.seed;
    if let Some(path) = &plan.output.trace {
        let t0 = crate::vk::timestamps::monotonic_ns() as f64;
        let device = format!("{} ({})", ctx.info.name, ctx.info.driver_info);
        sinks.push_front(Box::new(crate::sink::trace::TraceSink::create(
            path, &device, t0,
        )?));
    }
    let t = Instant::now();
    let measured = measure(ctx, &mut compiler, &mut sinks, &mut meta, &opts, &scenarios)?;
    phases.cases_ms = t.elapsed().as_secs_f64() * 1e3;
    let rows: Vec<ResultRow> = earlier.into_iter().map(|r| r.row).chain(measured).collect();
    meta.compile_cache = compiler.stats();
    let code = finish(&plan, meta, (started, phases), &rows, &mut sinks)?;
    Ok(RunOutcome {
        code,
        rows,
        out: plan.output.out,
    })
}

/// The plan as it runs: `--out` expanded and, with `--resume`, what the folder's run.json
/// says was being run and how it was measured restored (and checked). Returns that run.json
/// (None without `--resume`) and what this run's run.json records of the plan.
fn settle(
    plan: &mut RunPlan,
) -> anyhow::Result<(
    Option<crate::runfolder::RunInfo>,
    crate::output::run_json::RecordedArgs,
)> {
    if crate::output::out_template::is_template(&plan.output.out) {
        plan.output.out = expand_out(&plan.output.out, plan.what.device.as_deref())?;
        tracing::info!("--out: {}", plan.output.out.display());
    }
    let previous = super::resume::restore(plan)?;
    Ok((previous, super::resume::recorded(plan)))
}

/// The device `--device` picks, opened, and the scenarios loaded at the profile its type
/// gets (`auto`: full on a GPU, small on a CPU device).
fn open_device(plan: &RunPlan) -> anyhow::Result<(Context, Vec<Scenario>, Option<String>)> {
    if plan.how.hw.enabled {
        crate::measure::hw::image_sizing().map_err(UserError::Flag)?;
    }
    let inst = Instance::new(plan.how.validate)?;
    let all = inst.devices()?;
    let infos: Vec<_> = all.iter().map(|(_, d)| d.clone()).collect();
    let idx = info::choose(&infos, plan.what.device.as_deref()).map_err(UserError::Flag)?;
    let (scenarios, profile) = load_scenarios(plan, &infos[idx].device_type)?;
    let (pd, dinfo) = all[idx].clone();
    tracing::info!(
        "device {idx}: {} ({}, {} {})",
        dinfo.name,
        dinfo.device_type,
        dinfo.driver_name,
        dinfo.driver_info
    );
    Ok((Context::new(inst, pd, dinfo)?, scenarios, profile))
}

/// `--out` holding a run (its run.json or results.csv) without `--resume` or `--replace`: exit 2
/// naming the folder, before anything is opened or written.
fn refuse_earlier_run(out: &std::path::Path) -> anyhow::Result<()> {
    let held = ["run.json", "results.csv"]
        .into_iter()
        .find(|f| out.join(f).exists());
    if let Some(f) = held {
        return Err(UserError::Flag(format!(
            "--out {}: the folder holds a run ({f}); continue it with --resume, replace it with --replace, or choose another folder",
            out.display()
        ))
        .into());
    }
    Ok(())
}

/// The run folder's CSV writers, new or (`--resume`) reopened with the rows already there;
/// results.csv gets a typed `param_NAME` column for every param of the run's scenarios.
fn open_writers(
    resume: bool,
    out: &std::path::Path,
    scenarios: &[Scenario],
) -> anyhow::Result<(Writers, Vec<crate::results::Record>)> {
    let params = crate::results::params::param_names(
        scenarios
            .iter()
            .flat_map(|s| s.cases.iter().map(|c| c.params.keys())),
    );
    if resume {
        Writers::append(out, &params)
    } else {
        Ok((Writers::create(out, &params)?, Vec::new()))
    }
}

/// Compile and check every variant before anything runs (exit 2 on a mistake).
fn preflight(
    ctx: &Context,
    compiler: &mut Compiler,
    opts: &RunOptions,
    scenarios: &[Scenario],
    strict: bool,
) -> anyhow::Result<()> {
    let t = Instant::now();
    let errors = crate::measure::prepare::preflight(ctx, compiler, opts, scenarios, strict);
    tracing::info!("preflight: {:.2} s", t.elapsed().as_secs_f64());
    if !errors.is_empty() {
        return Err(UserError::Preflight(errors).into());
    }
    Ok(())
}

/// Run every selected variant: the rows measured, in the order written.
fn measure(
    ctx: Context,
    compiler: &mut Compiler,
    sinks: &mut crate::sink::Sinks,
    meta: &mut RunJson,
    opts: &RunOptions,
    scenarios: &[Scenario],
) -> anyhow::Result<Vec<ResultRow>> {
    // The variants that get rows: --filter and --resume leave some out.
    let total = scenarios
        .iter()
        .flat_map(|sc| sc.cases.iter().map(move |c| (sc, c)))
        .flat_map(|(sc, c)| c.variants.iter().map(move |v| (sc, c, v)))
        .filter(|(sc, c, v)| crate::measure::plan::selected(opts, sc, c, v))
        .count() as u64;
    let progress = super::term::Progress::new(total);
    // The GPU's timestamps against the host's clock over the run (run.json `timestamp_rate`).
    let first = ctx.clock_map();
    let mut runner = Runner::new(ctx, compiler, sinks, meta, opts, progress.bar());
    let measured = runner.run_all(scenarios);
    RUNNER_DONE.store(true, std::sync::atomic::Ordering::SeqCst);
    if measured.is_err() {
        // What was measured until then stays readable: the CSV flushed, the trace closed.
        drop(runner);
        let _ = sinks.run_finished(&crate::sink::RunEnd::Failed);
        return measured.map(|()| Vec::new());
    }
    let last = runner.ctx().clock_map();
    let rows = std::mem::take(&mut runner.rows);
    drop(runner);
    if let (Some(a), Some(b)) = (first, last) {
        meta.timestamp_rate = timestamp_rate(&a, &b);
    }
    drop(progress);
    Ok(rows)
}

/// The GPU's timestamps against the host's clock between two correlations `a` and `b` (run.json
/// `timestamp_rate`), with a warning where they part by more than 100 ppm beyond the bound.
fn timestamp_rate(
    a: &crate::vk::timestamps::ClockMap,
    b: &crate::vk::timestamps::ClockMap,
) -> Option<crate::output::run_json::TimestampRate> {
    let (device_ns, host_ns) = b.span_since(a);
    let r = crate::output::run_json::TimestampRate::of(
        device_ns,
        host_ns,
        [a.deviation_ns, b.deviation_ns],
    )?;
    if r.ppm.abs() > 100.0 + r.ppm_bound {
        tracing::warn!(
            "the GPU's timestamps ran {:+.0} ppm against the host's clock over {:.1} s: every GPU time reads {:.2} % {}",
            r.ppm,
            r.host_ns / 1e9,
            r.ppm.abs() / 1e4,
            if r.ppm > 0.0 { "long" } else { "short" }
        );
    }
    Some(r)
}

/// What run.json says of the run's set-up.
struct Setup<'a> {
    ctx: &'a Context,
    compiler: &'a Compiler,
    cache_dir: Option<&'a std::path::Path>,
    scenarios: &'a [Scenario],
    profile: Option<String>,
    recorded: crate::output::run_json::RecordedArgs,
}

/// run.json as the run starts (a resumed run keeps its id, first start time and row counts).
fn new_meta(
    plan: &RunPlan,
    previous: Option<&crate::runfolder::RunInfo>,
    s: &Setup,
    earlier: &[crate::results::Record],
) -> RunJson {
    // Unique across machines and runs: UTC time to the millisecond, host and process id; a
    // resumed run keeps its id, so its rows stay one run.
    let run_id = match previous
        .map(|p| p.run_id.as_str())
        .filter(|id| !id.is_empty())
    {
        Some(id) => id.to_string(),
        None => format!(
            "{}-{}-{}",
            chrono::Utc::now().format("%Y%m%dT%H%M%S%.3fZ"),
            hostname(),
            std::process::id()
        ),
    };
    let mut meta = RunJson {
        schema_version: crate::results::SCHEMA_VERSION,
        p3lab_version: env!("CARGO_PKG_VERSION").into(),
        git_revision: Some(env!("P3LAB_GIT_REVISION"))
            .filter(|r| *r != "unknown")
            .map(String::from),
        assets_hash: crate::assets::hash()[..16].into(),
        run_id,
        command_line: std::env::args().collect(),
        started_utc: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
        host: hostname(),
        device: Some(s.ctx.info.clone()),
        occupancy_rules: crate::occupancy::rules(&crate::occupancy::Device::from_info(&s.ctx.info))
            .map(|r| crate::output::run_json::OccupancyRules {
                max_waves_per_unit: r.max_waves_per_unit(),
                arch: r.arch,
                unit: r.unit.into(),
                units: r.units,
            }),
        enabled: Some(s.ctx.enabled.clone()),
        validation: plan.how.validate,
        compiler: s.compiler.compiler_version(),
        cache_dir: s.cache_dir.map(|d| d.display().to_string()),
        scenarios: s
            .scenarios
            .iter()
            .map(|s| s.path.display().to_string())
            .collect(),
        profile: s.profile.clone(),
        args: s.recorded.clone(),
        resumed: previous.and_then(|p| p.resumed).map_or(0, |r| r as u32 + 1),
        ..Default::default()
    };
    if let Some(p) = previous {
        // The first start time stays, and so does the command line that started the run;
        // this one joins the resumes'.
        if !p.started_utc.is_empty() {
            meta.started_utc = p.started_utc.clone();
        }
        if !p.command_line.is_empty() {
            let this = std::mem::replace(&mut meta.command_line, p.command_line.clone());
            meta.resume_command_lines = p.resume_command_lines.clone();
            meta.resume_command_lines.push(this);
        }
        // The rows already on disk count, whatever run.json said when the run was killed.
        meta.rows = count_statuses(earlier.iter().map(|r| &r.row));
    }
    meta
}

/// Ctrl-C / SIGTERM: stop after the batch in progress, write run.json and exit; a batch that
/// would keep the process past a second (a long batch, recording, a slow fence) is cut: the
/// rows on disk stay whole and `--resume` redoes the cut variant.
fn on_interrupt(out: &std::path::Path) {
    let out_dir = out.to_path_buf();
    let _ = ctrlc::set_handler(move || {
        if crate::measure::INTERRUPTED.swap(true, std::sync::atomic::Ordering::SeqCst) {
            force_exit(&out_dir, "p3lab: interrupted again; stopping now");
        }
        super::term::eprint_line("p3lab: interrupted; stopping after the current batch");
        // A reference command still running ends now, with its children.
        crate::vk::process::kill_registered_groups();
        let dir = out_dir.clone();
        std::thread::spawn(move || {
            std::thread::sleep(INTERRUPT_GRACE);
            if !RUNNER_DONE.load(std::sync::atomic::Ordering::SeqCst) {
                force_exit(&dir, "p3lab: the current batch runs on; stopping now");
            }
        });
    });
}

/// After the runner: run.json's closing figures, the outputs told the run ended (the CSV
/// tables flushed, the trace closed, run.json rewritten, the summary printed),
/// `--save-baseline`, and the exit code.
fn finish(
    plan: &RunPlan,
    mut meta: RunJson,
    (started, phases): (Instant, super::costs::Phases),
    rows: &[ResultRow],
    sinks: &mut crate::sink::Sinks,
) -> anyhow::Result<i32> {
    let out = &plan.output.out;
    let was_interrupted = crate::measure::INTERRUPTED.load(std::sync::atomic::Ordering::SeqCst);
    meta.validation_errors = validation_errors();
    meta.finished_utc = Some(chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true));
    meta.complete = !was_interrupted;
    meta.interrupted = was_interrupted;
    meta.wall_ns = started.elapsed().as_nanos() as u64;
    meta.warmup_wall_ns = meta
        .rounds
        .iter()
        .flat_map(|r| &r.warmups)
        .map(|w| (w.wall_ms * 1e6) as u64)
        .sum();
    meta.warmup_share = Some(meta.warmup_wall_ns as f64 / meta.wall_ns.max(1) as f64);
    let gpu: u64 = meta.warmup_wall_ns + meta.costs.iter().map(|c| c.timed_submit_ns).sum::<u64>();
    meta.gpu_submit_share = Some(gpu as f64 / meta.wall_ns.max(1) as f64);
    let wall_ms = meta.wall_ns as f64 / 1e6;
    meta.cost_table = super::costs::table(&meta, phases, wall_ms);
    super::costs::log(&meta.cost_table, wall_ms);
    sinks.run_finished(&crate::sink::RunEnd::Ended { meta: &meta, rows })?;
    let counts = super::term::status_counts(&meta.rows, super::term::stderr_color());
    eprintln!("p3lab: {counts}; results in {}", out.display());
    let errors = validation_errors();
    if plan.how.validate && errors > 0 {
        eprintln!("p3lab: the validation layer reported {errors} error(s); see the log above");
        return Ok(exit::FAILURE);
    }
    if let (Some(name), false) = (&plan.output.save_baseline, was_interrupted) {
        let dir = crate::lab::save_baseline(out, name, &crate::lab::default_store())?;
        eprintln!("p3lab: saved as baseline `{name}` in {}", dir.display());
    }
    if was_interrupted {
        eprintln!(
            "p3lab: interrupted; continue with `p3lab run --resume --out {}`",
            out.display()
        );
        return Ok(exit::INTERRUPTED);
    }
    let failed: u64 = crate::results::RowStatus::ALL
        .iter()
        .filter(|s| s.fails_run())
        .map(|s| meta.rows.get(s.as_str()).copied().unwrap_or(0))
        .sum();
    let code = if failed > 0 {
        exit::ROWS_FAILED
    } else {
        exit::OK
    };
    Ok(code)
}

/// How long an interrupt waits for the batch in progress before the run is cut.
const INTERRUPT_GRACE: std::time::Duration = std::time::Duration::from_millis(700);

/// Set once the runner has returned: from then on the run ends by itself within moments.
static RUNNER_DONE: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Exit 130 now, between whole rows: wait for a row write in progress, keep the lock so none
/// starts, and mark run.json interrupted. The GPU work in flight ends with the process, which
/// leaves without running the driver's destructors (src/vk/process.rs says why).
fn force_exit(out: &std::path::Path, why: &str) -> ! {
    let _held = crate::results::write::ROW_WRITES
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    if let Err(e) = crate::runfolder::mark_interrupted(out) {
        super::term::eprint_line(&format!(
            "p3lab: cannot mark {} interrupted: {e:#}",
            out.join("run.json").display()
        ));
    }
    // Temporary files of whatever else was being written (crate::cleanup); after run.json,
    // whose write registers one too.
    crate::cleanup::undo_all();
    super::term::eprint_line(&format!(
        "{why}; continue with `p3lab run --resume --out {}`",
        out.display()
    ));
    crate::vk::process::exit_now(exit::INTERRUPTED)
}
