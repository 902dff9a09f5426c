//! `p3lab run`: flags, device, scenarios, preflight, the run folder and run.json, the runner;
//! `--device all` as one process per device; one p3lab per folder.
use super::folder::{count_statuses, expand_out, lock_folder};
use super::*;
use crate::results::ResultRow;
use std::time::Instant;

pub(super) fn run(a: RunArgs) -> anyhow::Result<i32> {
    run_with(a, true).map(|(code, _)| code)
}

/// A run that prints no summary (`p3lab peak`).
pub(super) fn run_quiet(a: RunArgs) -> anyhow::Result<(i32, Vec<crate::results::ResultRow>)> {
    run_with(a, false)
}

/// The run's exit code and every row of its folder (a resumed run's earlier ones first).
fn run_with(mut a: RunArgs, print_summary: bool) -> anyhow::Result<(i32, Vec<ResultRow>)> {
    super::summary::check_exports(&a)?;
    if a.device.as_deref() == Some("all") {
        return run_all_devices(&a).map(|code| (code, Vec::new()));
    }
    let started = Instant::now();
    if crate::output::out_template::is_template(&a.out) {
        a.out = expand_out(&a.out, a.device.as_deref())?;
        tracing::info!("--out: {}", a.out.display());
    }
    // --resume: the folder's run.json says what was being run, and how it was measured.
    let previous = super::resume::restore(&mut a)?;
    let recorded = super::resume::recorded(&a);
    check_flags(&a)?;
    let inst = Instance::new(a.validate)?;
    let all = inst.devices()?;
    let infos: Vec<_> = all.iter().map(|(_, d)| d.clone()).collect();
    let idx = info::choose(&infos, a.device.as_deref()).map_err(UserError::Flag)?;
    let (scenarios, profile) = load_scenarios(&a, &infos[idx].device_type)?;
    let filter = build_filter(&a.filter)?;
    let (pd, dinfo) = all[idx].clone();
    tracing::info!(
        "device {idx}: {} ({}, {} {})",
        dinfo.name,
        dinfo.device_type,
        dinfo.driver_name,
        dinfo.driver_info
    );
    let ctx = Context::new(inst, pd, dinfo)?;
    let cache_dir = if a.no_cache {
        None
    } else {
        Some(a.cache_dir.clone().unwrap_or_else(default_cache_dir))
    };
    let mut compiler = Compiler::new(cache_dir.clone())?;
    let (peaks, peak_file) = find_peaks(&a, &ctx, cache_dir.as_deref())?;
    let mut opts = run_options(&a, filter, peaks, &scenarios);
    // A --filter that matches nothing is a typo, not an empty success.
    super::filter::check(&a.filter, &scenarios)?;
    // Every variant compiled and checked against its scenario before anything runs or is
    // written: a mistake stops here with exit 2, naming file, line and key.
    if !a.keep_going {
        preflight(&ctx, &mut compiler, &opts, &scenarios, a.strict)?;
    }
    let out = &a.out;
    std::fs::create_dir_all(out)
        .map_err(|e| anyhow::anyhow!("cannot create {}: {e}", out.display()))?;
    // One p3lab per folder: a second one aimed at it refuses instead of interleaving rows.
    let _lock = lock_folder(out)?;
    // A resumed run's earlier rows: skipped now, and in the summary at the end.
    let (mut writers, earlier) = if a.resume {
        Writers::append(out)?
    } else {
        (Writers::create(out)?, Vec::new())
    };
    let setup = Setup {
        ctx: &ctx,
        compiler: &compiler,
        cache_dir: cache_dir.as_deref(),
        scenarios: &scenarios,
        profile,
        recorded,
    };
    let mut meta = new_meta(&a, previous.as_ref(), &setup, &earlier);
    on_interrupt(out);
    meta.write(out)?;
    if let Some(f) = &peak_file {
        meta.peaks_file = Some(f.display().to_string());
    }
    opts.skip = earlier.iter().map(crate::results::Record::key).collect();
    meta.seed = opts.seed;
    let measured = measure(
        ctx,
        &mut compiler,
        &mut writers,
        &mut meta,
        &opts,
        &scenarios,
    )?;
    let rows: Vec<ResultRow> = earlier.into_iter().map(|r| r.row).chain(measured).collect();
    meta.compile_cache = compiler.stats();
    let layout = crate::output::summary::Layout::of(&scenarios);
    let code = finish(&a, meta, started, &rows, &layout, print_summary)?;
    Ok((code, rows))
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
    writers: &mut Writers,
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
    let mut runner = Runner::new(ctx, compiler, writers, meta, opts, progress.bar());
    let measured = runner.run_all(scenarios);
    RUNNER_DONE.store(true, std::sync::atomic::Ordering::SeqCst);
    measured?;
    let rows = std::mem::take(&mut runner.rows);
    drop(runner);
    drop(progress);
    writers.flush()?;
    Ok(rows)
}

/// Flags that are wrong whatever the device: refused before anything opens or is written.
fn check_flags(a: &RunArgs) -> anyhow::Result<()> {
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
fn build_filter(filters: &[String]) -> anyhow::Result<Option<globset::GlobSet>> {
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
fn load_scenarios(
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
    if let Some(e) = a.evict {
        for c in scenarios.iter_mut().flat_map(|sc| sc.cases.iter_mut()) {
            c.evict = e;
        }
    }
    Ok((scenarios, profile))
}

/// Peaks: `--peaks FILE`, else this device's cached `p3lab peak` results, if any; the file
/// they came from (None when it held none).
fn find_peaks(
    a: &RunArgs,
    ctx: &Context,
    cache_dir: Option<&std::path::Path>,
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
    Ok((peaks, peak_file))
}

/// The measuring options from the flags.
fn run_options(
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
    a: &RunArgs,
    previous: Option<&serde_json::Value>,
    s: &Setup,
    earlier: &[crate::results::Record],
) -> RunJson {
    // Unique across machines and runs: UTC time to the millisecond, host and process id; a
    // resumed run keeps its id, so its rows stay one run.
    let run_id = match previous.and_then(|p| p["run_id"].as_str()) {
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
        validation: a.validate,
        compiler: s.compiler.compiler_version(),
        cache_dir: s.cache_dir.map(|d| d.display().to_string()),
        scenarios: s
            .scenarios
            .iter()
            .map(|s| s.path.display().to_string())
            .collect(),
        profile: s.profile.clone(),
        args: s.recorded.clone(),
        resumed: previous
            .and_then(|p| p["resumed"].as_u64())
            .map_or(0, |r| r as u32 + 1),
        ..Default::default()
    };
    if let Some(p) = &previous {
        // The first start time stays.
        if let Some(t) = p["started_utc"].as_str() {
            meta.started_utc = t.to_string();
        }
        // The rows already on disk count, whatever run.json said when the run was killed.
        meta.rows = count_statuses(earlier.iter().map(|r| &r.row));
    }
    if let Some(p) = previous {
        // The first start time stays.
        if let Some(t) = p["started_utc"].as_str() {
            meta.started_utc = t.to_string();
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

/// After the runner: run.json's closing figures, the summary, `--save-baseline`, and the exit
/// code.
fn finish(
    a: &RunArgs,
    mut meta: RunJson,
    started: Instant,
    rows: &[ResultRow],
    layout: &crate::output::summary::Layout,
    print_summary: bool,
) -> anyhow::Result<i32> {
    let out = &a.out;
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
    meta.write(out)?;

    super::summary::report(rows, layout, a, print_summary)?;
    let counts = super::term::status_counts(&meta.rows, super::term::stderr_color());
    eprintln!("p3lab: {counts}; results in {}", out.display());
    let errors = validation_errors();
    if a.validate && errors > 0 {
        eprintln!("p3lab: the validation layer reported {errors} error(s); see the log above");
        return Ok(exit::FAILURE);
    }
    if let (Some(name), false) = (&a.save_baseline, was_interrupted) {
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

/// This process's command line for a `--device all` worker: --device, --out and the exports
/// left out (each worker gets its own --device and --out; the summary and its exports are of
/// the merged folder, made by this process).
fn worker_args() -> Vec<String> {
    let mut base: Vec<String> = Vec::new();
    let mut args = std::env::args().skip(1).peekable();
    let own = [
        "--device",
        "--out",
        "-o",
        "--export-markdown",
        "--export-json",
    ];
    while let Some(x) = args.next() {
        match x.as_str() {
            x if own.contains(&x) => {
                args.next();
            }
            _ if own.iter().any(|o| x.starts_with(&format!("{o}="))) => {}
            _ => base.push(x),
        }
    }
    base
}

/// Wait for every worker: the worst exit code (a failed worker, 1, 2 or 130, over failed
/// rows, 3, over success) and the folders that have rows (a worker's rows count even when
/// some failed).
fn wait_workers(
    children: Vec<(PathBuf, std::process::Child)>,
) -> anyhow::Result<(i32, Vec<PathBuf>)> {
    let rank = |c: i32| match c {
        exit::OK => 0,
        exit::ROWS_FAILED => 1,
        exit::REGRESSION => 2,
        _ => 3,
    };
    let mut code = exit::OK;
    let mut dirs = Vec::new();
    for (dir, mut child) in children {
        let c = child.wait()?.code().unwrap_or(exit::FAILURE);
        if dir.join("results.csv").is_file() {
            dirs.push(dir);
        }
        if rank(c) > rank(code) {
            code = c;
        }
    }
    Ok((code, dirs))
}

/// `--device all`: one p3lab process per Vulkan device, all at once (each drives its own
/// device and queue), into OUT/device-<index>/, then merged into OUT/all/.
pub(super) fn run_all_devices(a: &RunArgs) -> anyhow::Result<i32> {
    let inst = Instance::new(false)?;
    let devices: Vec<_> = inst
        .devices()?
        .into_iter()
        .map(|(_, d)| d)
        .filter(|d| d.api_at_least_1_3())
        .collect();
    drop(inst);
    if devices.is_empty() {
        return Err(UserError::Flag("--device all: no Vulkan 1.3 device".into()).into());
    }
    // Bad input is reported once, before any device starts or a folder is made.
    let scenarios = load_all(&a.scenarios, &a.set, None)?;
    super::filter::check(&a.filter, &scenarios)?;
    let layout = crate::output::summary::Layout::of(&scenarios);
    // `--out runs/{host}/{device}`: each device's folder from the template, the merge where
    // {device} says `all`; a plain --out: OUT/device-N/ and OUT/all/.
    let template = crate::output::out_template::is_template(&a.out);
    let host = crate::output::out_template::host();
    let folder = |index: Option<usize>, name: Option<&str>| -> anyhow::Result<PathBuf> {
        use crate::output::out_template::{expand, Values};
        if !template {
            return Ok(match index {
                Some(i) => a.out.join(format!("device-{i}")),
                None => a.out.join("all"),
            });
        }
        let t = match index {
            Some(_) => a.out.clone(),
            None => PathBuf::from(
                a.out
                    .to_string_lossy()
                    .replace("{device_name}", "all")
                    .replace("{device}", "all"),
            ),
        };
        let v = Values {
            host: &host,
            device_index: index,
            device_name: name,
        };
        Ok(expand(&t, &v).map_err(|e| UserError::Flag(format!("--out {e}")))?)
    };
    let merged = folder(None, None)?;
    if !template {
        std::fs::create_dir_all(&a.out)?;
    }
    let exe = std::env::current_exe()?;
    let base = worker_args();
    let mut children = Vec::new();
    for d in &devices {
        let dir = folder(Some(d.index), Some(&d.name))?;
        tracing::info!("device {}: {} -> {}", d.index, d.name, dir.display());
        let child = std::process::Command::new(&exe)
            .args(&base)
            .arg("--device")
            .arg(d.index.to_string())
            .arg("--out")
            .arg(&dir)
            .env_remove("P3LAB_NO_BAR")
            .envs((devices.len() > 1).then_some(("P3LAB_NO_BAR", "1")))
            .stdout(std::process::Stdio::null())
            .spawn()
            .map_err(|e| anyhow::anyhow!("starting the worker for device {}: {e}", d.index))?;
        children.push((dir, child));
    }
    let (code, dirs) = wait_workers(children)?;
    if dirs.is_empty() {
        // Every worker stopped before writing (bad input: exit 2, said by the workers).
        eprintln!("p3lab: no device produced results; nothing to merge");
        return Ok(code);
    }
    if merged.exists() {
        std::fs::remove_dir_all(&merged)?;
    }
    let s = crate::lab::merge(&dirs, &merged)?;
    // Rows other processes measured: read back through the one reader.
    let rows: Vec<_> = crate::results::read_folder(&merged)?
        .into_iter()
        .map(|r| r.row)
        .collect();
    super::summary::report(&rows, &layout, a, true)?;
    eprintln!(
        "p3lab: {} device(s) run in parallel; merged into {}",
        s.inputs,
        merged.display()
    );
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
    if let Err(e) = crate::output::run_json::mark_interrupted(out) {
        super::term::eprint_line(&format!(
            "p3lab: cannot mark {} interrupted: {e:#}",
            out.join("run.json").display()
        ));
    }
    super::term::eprint_line(&format!(
        "{why}; continue with `p3lab run --resume --out {}`",
        out.display()
    ));
    crate::vk::process::exit_now(exit::INTERRUPTED)
}
