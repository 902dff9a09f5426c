//! What each subcommand does, between the parsed command line and the library.
use crate::cli::{Command, CountersArgs, DevicesArgs, Format, ListArgs, RunArgs};
use crate::measure::{RunOptions, Runner};
use crate::output::run_json::{hostname, RunJson};
use crate::output::{devices, Writers};
use crate::scenario::{self, Overrides, Scenario, ScenarioError};
use crate::shader::{default_cache_dir, Compiler};
use crate::vk::context::{validation_errors, Instance};
use crate::vk::{info, Context};
use std::path::PathBuf;
use std::time::Instant;

/// Exit codes, as the README lists them.
pub mod exit {
    pub const OK: i32 = 0;
    pub const FAILURE: i32 = 1;
    pub const BAD_INPUT: i32 = 2;
    pub const ROWS_FAILED: i32 = 3;
    pub const REGRESSION: i32 = 4;
    pub const INTERRUPTED: i32 = 130;
}

/// A user mistake (exit 2) rather than a failure of the run (exit 1).
#[derive(Debug, thiserror::Error)]
pub enum UserError {
    #[error("{0}")]
    Scenario(#[from] ScenarioError),
    #[error("{0}")]
    Flag(String),
    /// Mistakes found by compiling and checking every variant before the run.
    #[error("{}", preflight_text(.0))]
    Preflight(Vec<ScenarioError>),
}

fn preflight_text(errors: &[ScenarioError]) -> String {
    const SHOWN: usize = 20;
    let mut s = String::new();
    for e in errors.iter().take(SHOWN) {
        s.push_str(&format!("{e}\n"));
    }
    if errors.len() > SHOWN {
        s.push_str(&format!("... and {} more\n", errors.len() - SHOWN));
    }
    s.push_str(&format!(
        "{} variant problem(s) found before the run; nothing was run or written \
         (--keep-going runs the rest and records these as rows)",
        errors.len()
    ));
    s
}

pub fn dispatch(cmd: Command) -> anyhow::Result<i32> {
    match cmd {
        Command::Run(a) => run(a),
        Command::Peak(a) => peak(a),
        Command::Compare(a) => compare_cmd(a),
        Command::Report(a) => report_cmd(a),
        Command::Merge(a) => {
            let s = crate::lab::merge(&a.inputs, &a.out)?;
            eprintln!(
                "p3lab: merged {} run folder(s) into {}",
                s.inputs,
                s.out.display()
            );
            Ok(exit::OK)
        }
        Command::List(a) => list(a),
        Command::Devices(a) => devices_cmd(a),
        Command::Counters(a) => counters_cmd(a),
    }
}

/// Scenario files named on the command line; a folder stands for its *.toml files, sorted.
pub fn expand_paths(paths: &[PathBuf]) -> Result<Vec<PathBuf>, UserError> {
    let mut out = Vec::new();
    for p in paths {
        if p.is_dir() {
            let mut files: Vec<PathBuf> = std::fs::read_dir(p)
                .map_err(|e| UserError::Flag(format!("{}: {e}", p.display())))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|f| f.extension().is_some_and(|x| x == "toml"))
                .collect();
            files.sort();
            if files.is_empty() {
                return Err(UserError::Flag(format!(
                    "{}: no *.toml scenario files in this folder",
                    p.display()
                )));
            }
            out.extend(files);
        } else if p.is_file() {
            out.push(p.clone());
        } else {
            return Err(UserError::Flag(format!(
                "{}: no such scenario file or folder",
                p.display()
            )));
        }
    }
    Ok(out)
}

/// Load every scenario, checking that each `--set` names a param of at least one of them.
pub fn load_all(
    paths: &[PathBuf],
    sets: &[String],
    profile: Option<&str>,
) -> Result<Vec<Scenario>, UserError> {
    let overrides: Overrides = sets
        .iter()
        .map(|s| scenario::parse_set(s).map_err(UserError::Flag))
        .collect::<Result<_, _>>()?;
    let files = expand_paths(paths)?;
    let mut out = Vec::new();
    let mut known = std::collections::BTreeSet::new();
    for f in &files {
        let sc = scenario::load_with(f, &overrides, profile)?;
        for c in &sc.cases {
            known.extend(c.params.keys().cloned());
        }
        out.push(sc);
    }
    if let Some(p) = profile {
        if !out.iter().any(|s| s.profile.as_deref() == Some(p)) {
            return Err(UserError::Flag(format!(
                "--profile {p}: no scenario has a [profiles.{p}] table"
            )));
        }
    }
    for (k, _) in &overrides {
        if !known.contains(k) {
            return Err(UserError::Flag(format!(
                "--set {k}: no scenario has a param named `{k}` (params: {})",
                known.iter().cloned().collect::<Vec<_>>().join(", ")
            )));
        }
    }
    Ok(out)
}

/// Load with a profile applied where a scenario has it, without requiring that any does.
fn load_all_lenient(
    paths: &[PathBuf],
    sets: &[String],
    profile: &str,
) -> Result<Vec<Scenario>, UserError> {
    match load_all(paths, sets, Some(profile)) {
        Err(UserError::Flag(m)) if m.starts_with("--profile") => load_all(paths, sets, None),
        other => other,
    }
}

fn list(a: ListArgs) -> anyhow::Result<i32> {
    let scs = load_all(&a.scenarios, &a.set, a.profile.as_deref())?;
    for sc in &scs {
        println!("{} ({})", sc.name, sc.path.display());
        for case in &sc.cases {
            println!(
                "  params: {}",
                if case.params_label.is_empty() {
                    "-"
                } else {
                    &case.params_label
                }
            );
            for v in &case.variants {
                let wg = v
                    .workgroup
                    .map(|w| format!("{}x{}x{}", w[0], w[1], w[2]))
                    .unwrap_or_else(|| "shader".into());
                let defs = v
                    .defines
                    .iter()
                    .map(|(k, v)| format!("{k}={v}"))
                    .collect::<Vec<_>>()
                    .join(" ");
                println!(
                    "    {:<28} workgroup={wg:<10} subgroup={:<8} {defs}",
                    v.name,
                    v.subgroup.label()
                );
            }
        }
    }
    Ok(exit::OK)
}

fn devices_cmd(a: DevicesArgs) -> anyhow::Result<i32> {
    let inst = Instance::new(false)?;
    let list: Vec<_> = inst.devices()?.into_iter().map(|(_, d)| d).collect();
    match a.format {
        Format::Table => print!("{}", devices::table(&list)),
        Format::Csv => print!("{}", devices::csv(&list)?),
        Format::Json => println!("{}", devices::json(&list)?),
    }
    Ok(exit::OK)
}

/// `p3lab counters`: the chosen device's hardware counters; a device without
/// VK_KHR_performance_query has none, which is said and is not an error.
fn counters_cmd(a: CountersArgs) -> anyhow::Result<i32> {
    use crate::output::counters as out;
    let inst = Instance::new(false)?;
    let all = inst.devices()?;
    let infos: Vec<_> = all.iter().map(|(_, d)| d.clone()).collect();
    let idx = info::choose(&infos, a.device.as_deref()).map_err(UserError::Flag)?;
    let (pd, d) = &all[idx];
    let reason = if !d.has_extension(ash::khr::performance_query::NAME) {
        Some(format!(
            "device {} `{}` does not offer VK_KHR_performance_query: no hardware counters",
            d.index, d.name
        ))
    } else if d.compute_queue_family.is_none() {
        Some(format!(
            "device {} `{}` has no compute queue",
            d.index, d.name
        ))
    } else {
        None
    };
    let list = match (&reason, d.compute_queue_family) {
        (None, Some(family)) => crate::vk::perf::enumerate(&inst, *pd, family)?,
        _ => Vec::new(),
    };
    match a.format {
        Format::Json => println!(
            "{}",
            serde_json::to_string_pretty(&out::Listing {
                device: &d.name,
                device_index: d.index,
                available: reason.is_none(),
                reason: reason.as_deref(),
                counters: &list,
            })?
        ),
        Format::Csv => {
            if let Some(r) = &reason {
                eprintln!("p3lab: {r}");
            }
            print!("{}", out::csv(&list)?);
        }
        Format::Table => match &reason {
            Some(r) => println!("{r}"),
            None => {
                println!("device {} `{}`: {} counters", d.index, d.name, list.len());
                print!("{}", out::table(&list));
            }
        },
    }
    Ok(exit::OK)
}

fn glsl_common(scenarios: &[Scenario]) -> Vec<PathBuf> {
    // glsl/common next to the scenarios' folder, then next to the working directory.
    let mut dirs = Vec::new();
    for sc in scenarios {
        if let Some(parent) = sc.path.parent() {
            for cand in [
                parent.join("../glsl/common"),
                parent.join("glsl/common"),
                parent.join("common"),
            ] {
                if cand.is_dir() && !dirs.contains(&cand) {
                    dirs.push(cand);
                }
            }
        }
    }
    // Then $P3LAB_GLSL_COMMON, the working directory's glsl/common, and the source tree's.
    let mut fallbacks: Vec<PathBuf> = std::env::var_os("P3LAB_GLSL_COMMON")
        .map(PathBuf::from)
        .into_iter()
        .collect();
    fallbacks.push(PathBuf::from("glsl/common"));
    fallbacks.push(PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/glsl/common"
    )));
    for cand in fallbacks {
        if cand.is_dir() && !dirs.contains(&cand) {
            dirs.push(cand);
        }
    }
    dirs
}

fn run(mut a: RunArgs) -> anyhow::Result<i32> {
    if a.device.as_deref() == Some("all") {
        return run_all_devices(&a);
    }
    let started = Instant::now();
    // --resume: the folder's run.json says what was being run.
    let previous: Option<serde_json::Value> = if a.resume {
        let path = a.out.join("run.json");
        let text = std::fs::read_to_string(&path).map_err(|e| {
            UserError::Flag(format!("--resume: cannot read {}: {e}", path.display()))
        })?;
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
            a.keep_going |= args.keep_going && !a.strict;
            a.strict |= args.strict && !a.keep_going;
        }
        Some(v)
    } else {
        None
    };
    let recorded = crate::output::run_json::RecordedArgs {
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
        keep_going: a.keep_going,
        strict: a.strict,
    };
    // A bad --counters glob is bad input, reported before any device work.
    crate::vk::perf::select(&[], &a.counters)
        .map_err(|e| UserError::Flag(format!("--counters: {e}")))?;
    let inst = Instance::new(a.validate)?;
    let all = inst.devices()?;
    let infos: Vec<_> = all.iter().map(|(_, d)| d.clone()).collect();
    let idx = info::choose(&infos, a.device.as_deref()).map_err(UserError::Flag)?;
    // `auto`: the full sizes on a GPU, the small defaults on a CPU device such as lavapipe.
    let (profile, strict) = match a.profile.as_deref() {
        Some("auto") => ((infos[idx].device_type != "cpu").then_some("full"), false),
        Some("none") => (None, true),
        p => (p, true),
    };
    let scenarios = match (profile, strict) {
        (Some(p), false) => load_all_lenient(&a.scenarios, &a.set, p)?,
        (p, _) => load_all(&a.scenarios, &a.set, p)?,
    };
    let filter = if a.filter.is_empty() {
        None
    } else {
        let mut b = globset::GlobSetBuilder::new();
        for f in &a.filter {
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
    if a.reps == Some(0) {
        return Err(UserError::Flag("--reps must be at least 1".into()).into());
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
    let (pd, dinfo) = all[idx].clone();
    tracing::info!(
        "device {}: {} ({}, {} {})",
        idx,
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
    // Peaks: --peaks FILE, else this device's cached `p3lab peak` results, if any.
    let peak_file = match &a.peaks {
        Some(f) => Some(f.clone()),
        None => {
            let spirv = cache_dir.clone().unwrap_or_else(default_cache_dir);
            let c = crate::peaks::cache_path(&spirv, &ctx.info.uuid, ctx.info.driver_version);
            c.is_file().then_some(c)
        }
    };
    let peaks = match &peak_file {
        Some(f) => {
            let list = crate::peaks::read_csv(f)
                .map_err(|e| UserError::Flag(format!("--peaks: {e:#}")))?;
            tracing::info!("peaks from {}", f.display());
            Some(crate::peaks::Peaks::from_list(&list))
        }
        None => None,
    };
    let mut opts = RunOptions {
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
        glsl_common: glsl_common(&scenarios),
        progress: true,
        counters: a.counters.clone(),
        probe: a.probe,
        dump_ir: a.dump_ir,
    };
    // A --filter that matches nothing is a typo, not an empty success.
    if opts.filter.is_some()
        && !scenarios.iter().any(|sc| {
            sc.cases
                .iter()
                .any(|c| c.variants.iter().any(|v| opts.filter_matches(sc, v)))
        })
    {
        return Err(UserError::Flag(format!(
            "--filter {}: matches no variant (name or SCENARIO/NAME) of {}; `p3lab list` shows them",
            a.filter
                .iter()
                .map(|f| format!("`{f}`"))
                .collect::<Vec<_>>()
                .join(", "),
            scenarios
                .iter()
                .map(|s| s.path.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ))
        .into());
    }
    // Every variant compiled and checked against its scenario before anything runs or is
    // written: a mistake stops here with exit 2, naming file, line and key.
    if !a.keep_going {
        let t = Instant::now();
        let errors =
            crate::measure::prepare::preflight(&ctx, &mut compiler, &opts, &scenarios, a.strict);
        tracing::info!("preflight: {:.2} s", t.elapsed().as_secs_f64());
        if !errors.is_empty() {
            return Err(UserError::Preflight(errors).into());
        }
    }
    let out = &a.out;
    std::fs::create_dir_all(out)
        .map_err(|e| anyhow::anyhow!("cannot create {}: {e}", out.display()))?;
    // One p3lab per folder: a second one aimed at it refuses instead of interleaving rows.
    let _lock = lock_folder(out)?;
    let (mut writers, skip) = if a.resume {
        Writers::append(out)?
    } else {
        (Writers::create(out)?, Default::default())
    };
    // Unique across machines and runs: UTC time to the millisecond, host and process id; a
    // resumed run keeps its id, so its rows stay one run.
    let run_id = match previous.as_ref().and_then(|p| p["run_id"].as_str()) {
        Some(id) => id.to_string(),
        None => format!(
            "{}-{}-{}",
            chrono::Utc::now().format("%Y%m%dT%H%M%S%.3fZ"),
            hostname(),
            std::process::id()
        ),
    };
    let mut meta = RunJson {
        schema_version: crate::output::SCHEMA_VERSION,
        p3lab_version: env!("CARGO_PKG_VERSION").into(),
        git_revision: option_env!("P3LAB_GIT_REVISION").map(String::from),
        run_id,
        command_line: std::env::args().collect(),
        started_utc: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
        host: hostname(),
        device: Some(ctx.info.clone()),
        enabled: Some(ctx.enabled.clone()),
        validation: a.validate,
        compiler: compiler.compiler_version(),
        cache_dir: cache_dir.as_ref().map(|d| d.display().to_string()),
        scenarios: scenarios
            .iter()
            .map(|s| s.path.display().to_string())
            .collect(),
        profile: profile.map(String::from),
        args: recorded,
        resumed: previous
            .as_ref()
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
        meta.rows = count_statuses(&out.join("results.csv"));
    }
    // Ctrl-C / SIGTERM: finish the batch in progress, then write run.json and stop.
    let _ = ctrlc::set_handler(|| {
        if crate::measure::INTERRUPTED.swap(true, std::sync::atomic::Ordering::SeqCst) {
            // A second Ctrl-C means now; every finished row is already on disk.
            std::process::exit(130);
        }
        eprintln!(
            "p3lab: interrupted; stopping after the current batch (Ctrl-C again to quit now)"
        );
    });
    meta.write(out)?;
    if let Some(f) = &peak_file {
        meta.peaks_file = Some(f.display().to_string());
    }
    opts.skip = skip;
    let total: u64 = scenarios
        .iter()
        .map(|s| s.cases.iter().map(|c| c.variants.len() as u64).sum::<u64>())
        .sum();
    let progress = progress_bar(total);
    meta.seed = opts.seed;
    let mut runner = Runner::new(
        ctx,
        &mut compiler,
        &mut writers,
        &mut meta,
        &opts,
        progress.clone(),
    );
    runner.run_all(&scenarios)?;
    drop(runner);
    progress.finish_and_clear();
    writers.flush()?;
    let was_interrupted = crate::measure::INTERRUPTED.load(std::sync::atomic::Ordering::SeqCst);
    meta.compile_cache = compiler.stats();
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
    let gpu: u64 = meta.warmup_wall_ns
        + meta
            .costs
            .iter()
            .map(|c| c.timed_submit_ns + c.warmup_ns)
            .sum::<u64>();
    meta.gpu_submit_share = Some(gpu as f64 / meta.wall_ns.max(1) as f64);
    meta.write(out)?;

    let counts = meta
        .rows
        .iter()
        .map(|(k, v)| format!("{v} {k}"))
        .collect::<Vec<_>>()
        .join(", ");
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
    let failed: u64 = crate::output::RowStatus::ALL
        .iter()
        .filter(|s| s.fails_run())
        .map(|s| meta.rows.get(s.as_str()).copied().unwrap_or(0))
        .sum();
    Ok(if failed > 0 {
        exit::ROWS_FAILED
    } else {
        exit::OK
    })
}

fn parse_pairs(list: &[String]) -> Result<Vec<(String, String)>, UserError> {
    list.iter()
        .map(|p| {
            p.split_once('=')
                .filter(|(a, b)| !a.is_empty() && !b.is_empty())
                .map(|(a, b)| (a.to_string(), b.to_string()))
                .ok_or_else(|| {
                    UserError::Flag(format!("--pair `{p}`: expected BASE_VARIANT=NEW_VARIANT"))
                })
        })
        .collect()
}

fn compare_cmd(a: crate::cli::CompareArgs) -> anyhow::Result<i32> {
    use crate::p3::compare::{self as cmp, CompareOptions};
    let pairs = parse_pairs(&a.pair)?;
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
        (None, [one]) if !pairs.is_empty() => (one.clone(), one.clone()),
        (None, _) => {
            return Err(UserError::Flag(
                "compare needs BASE and NEW runs (or one run with --pair, or --baseline NAME RUN)"
                    .into(),
            )
            .into())
        }
    };
    let load = |p: &PathBuf| cmp::load_run(p).map_err(|e| UserError::Flag(format!("{e:#}")));
    let base = load(&base_path)?;
    let new = load(&new_path)?;
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

fn report_cmd(a: crate::cli::ReportArgs) -> anyhow::Result<i32> {
    use crate::p3::compare::{self as cmp, CompareOptions};
    let run = cmp::load_run(&a.run).map_err(|e| UserError::Flag(format!("{e:#}")))?;
    let pairs = parse_pairs(&a.pair)?;
    let comparison = match (&a.compare, pairs.is_empty()) {
        (Some(base), _) => {
            let b = cmp::load_run(base).map_err(|e| UserError::Flag(format!("{e:#}")))?;
            Some(cmp::compare(
                &b,
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
                pairs,
                ..Default::default()
            },
        )),
        (None, true) => None,
    };
    let r = crate::p3::report(&run, comparison.as_ref());
    let out = a.out.clone().unwrap_or_else(|| {
        if a.run.is_dir() {
            a.run.join("report")
        } else {
            PathBuf::from("report")
        }
    });
    crate::p3::write_report(&r, &out)?;
    eprintln!("p3lab: report in {}", out.join("report.md").display());
    Ok(exit::OK)
}

/// Rows per status in a results.csv.
fn count_statuses(path: &std::path::Path) -> std::collections::BTreeMap<String, u64> {
    let mut counts = std::collections::BTreeMap::new();
    if let Ok(mut r) = csv::Reader::from_path(path) {
        let col = r
            .headers()
            .ok()
            .and_then(|h| h.iter().position(|c| c == "status"));
        if let Some(col) = col {
            for rec in r.records().flatten() {
                *counts
                    .entry(rec.get(col).unwrap_or("").to_string())
                    .or_insert(0) += 1;
            }
        }
    }
    counts
}

/// `--device all`: one p3lab process per Vulkan device, all at once (each drives its own
/// device and queue), into OUT/device-<index>/, then merged into OUT/all/.
fn run_all_devices(a: &RunArgs) -> anyhow::Result<i32> {
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
    // Bad input is reported once, before any device starts.
    load_all(&a.scenarios, &a.set, None)?;
    std::fs::create_dir_all(&a.out)?;
    let exe = std::env::current_exe()?;
    // The same command line with --device and --out replaced.
    let mut base: Vec<String> = Vec::new();
    let mut args = std::env::args().skip(1).peekable();
    while let Some(x) = args.next() {
        match x.as_str() {
            "--device" | "--out" | "-o" => {
                args.next();
            }
            _ if x.starts_with("--device=") || x.starts_with("--out=") => {}
            _ => base.push(x),
        }
    }
    let mut children = Vec::new();
    for d in &devices {
        let dir = a.out.join(format!("device-{}", d.index));
        tracing::info!("device {}: {} -> {}", d.index, d.name, dir.display());
        let child = std::process::Command::new(&exe)
            .args(&base)
            .arg("--device")
            .arg(d.index.to_string())
            .arg("--out")
            .arg(&dir)
            .spawn()
            .map_err(|e| anyhow::anyhow!("starting the worker for device {}: {e}", d.index))?;
        children.push((dir, child));
    }
    let mut code = exit::OK;
    let mut dirs = Vec::new();
    for (dir, mut child) in children {
        let c = child.wait()?.code().unwrap_or(exit::FAILURE);
        // A worker's rows count even when some failed (exit 3); keep the worst code.
        if dir.join("results.csv").is_file() {
            dirs.push(dir);
        }
        // The worst outcome wins: a failed worker (1, 2, 130) over failed rows (3) over success.
        let rank = |c: i32| match c {
            exit::OK => 0,
            exit::ROWS_FAILED => 1,
            exit::REGRESSION => 2,
            _ => 3,
        };
        if rank(c) > rank(code) {
            code = c;
        }
    }
    if dirs.is_empty() {
        // Every worker stopped before writing (bad input: exit 2, said by the workers).
        eprintln!("p3lab: no device produced results; nothing to merge");
        return Ok(code);
    }
    let merged = a.out.join("all");
    if merged.exists() {
        std::fs::remove_dir_all(&merged)?;
    }
    let s = crate::lab::merge(&dirs, &merged)?;
    eprintln!(
        "p3lab: {} device(s) run in parallel; merged into {}",
        s.inputs,
        merged.display()
    );
    Ok(code)
}

/// Hold an exclusive lock on `<dir>/.p3lab.lock` for as long as the returned file lives.
fn lock_folder(dir: &std::path::Path) -> anyhow::Result<std::fs::File> {
    let path = dir.join(".p3lab.lock");
    let f = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .read(true)
        .write(true)
        .open(&path)
        .map_err(|e| anyhow::anyhow!("cannot open {}: {e}", path.display()))?;
    match f.try_lock() {
        Ok(()) => Ok(f),
        Err(std::fs::TryLockError::WouldBlock) => Err(UserError::Flag(format!(
            "--out {}: another p3lab is writing into this folder",
            dir.display()
        ))
        .into()),
        Err(std::fs::TryLockError::Error(e)) => {
            Err(anyhow::anyhow!("locking {}: {e}", path.display()))
        }
    }
}

/// `p3lab peak`: run the calibration scenarios, keep each unit's best, write peaks.csv into
/// the output folder and the per-device cache that `p3lab run` reads.
fn peak(a: crate::cli::PeakArgs) -> anyhow::Result<i32> {
    if a.device.as_deref() == Some("all") {
        return Err(UserError::Flag("--device all: `p3lab peak` measures one device at a time; run it once per device index".into()).into());
    }
    let dir = peaks_dir().ok_or_else(|| {
        UserError::Flag(
            "cannot find the peaks/ folder of calibration scenarios (set P3LAB_PEAKS_DIR)".into(),
        )
    })?;
    let run_args = RunArgs {
        scenarios: vec![dir],
        out: a.out.clone(),
        filter: a.filter.clone(),
        set: a.set.clone(),
        profile: Some(a.profile.clone()),
        device: a.device.clone(),
        reps: a.reps,
        warmup: None,
        warmup_ms: a.warmup_ms,
        rounds: None,
        max_rounds: None,
        ci_target: None,
        budget_ms: None,
        seed: None,
        validate: false,
        cache_dir: a.cache_dir.clone(),
        no_cache: false,
        peaks: None,
        resume: false,
        save_baseline: None,
        counters: vec![],
        probe: false,
        keep_going: false,
        strict: false,
        dump_ir: false,
    };
    let code = run(run_args)?;
    let peaks = crate::peaks::from_results(&a.out.join("results.csv"))?;
    if peaks.is_empty() {
        anyhow::bail!(
            "no calibration variant ran successfully; see {}",
            a.out.join("results.csv").display()
        );
    }
    crate::peaks::write_csv(&peaks, &a.out.join("peaks.csv"))?;
    let spirv = a.cache_dir.clone().unwrap_or_else(default_cache_dir);
    let cache = crate::peaks::cache_path(&spirv, &peaks[0].device_uuid, peaks[0].driver_version);
    if let Some(parent) = cache.parent() {
        std::fs::create_dir_all(parent)?;
    }
    crate::peaks::write_csv(&peaks, &cache)?;
    println!("{:<16} {:>14}  {:<14} best variant", "unit", "peak", "");
    for p in &peaks {
        println!(
            "{:<16} {:>14.1}  {:<14} {}",
            p.unit, p.value, p.value_unit, p.best_variant
        );
    }
    eprintln!(
        "p3lab: peaks in {} and cached at {}",
        a.out.join("peaks.csv").display(),
        cache.display()
    );
    Ok(code)
}

/// The calibration scenarios: $P3LAB_PEAKS_DIR, ./peaks, or the source tree's.
fn peaks_dir() -> Option<PathBuf> {
    let mut c: Vec<PathBuf> = std::env::var_os("P3LAB_PEAKS_DIR")
        .map(PathBuf::from)
        .into_iter()
        .collect();
    c.push(PathBuf::from("peaks"));
    c.push(PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/peaks")));
    c.into_iter().find(|p| p.is_dir())
}

fn progress_bar(total: u64) -> indicatif::ProgressBar {
    use std::io::IsTerminal;
    if !std::io::stderr().is_terminal() {
        return indicatif::ProgressBar::hidden();
    }
    let pb = indicatif::ProgressBar::new(total);
    pb.set_style(
        indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} {elapsed} {msg}")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    pb
}
