//! What each subcommand does, between the parsed command line and the library.
use crate::cli::{Cli, Command, CountersArgs, DevicesArgs, Format, ListArgs, RunArgs};
use crate::measure::{RunOptions, Runner};
use crate::output::devices;
use crate::output::run_json::{hostname, RunJson};
use crate::results::Writers;
use crate::scenario::{self, Overrides, Scenario, ScenarioError};
use crate::shader::{default_cache_dir, Compiler};
use crate::vk::context::{validation_errors, Instance};
use crate::vk::{info, Context};
use std::path::PathBuf;

mod ab;
mod all_devices;
mod calibrate;
mod compare;
mod costs;
mod details;
mod filter;
mod folder;
pub mod help;
mod manual;
mod pairs;
mod peak;
pub mod plan;
mod resume;
mod run;
mod run_setup;
mod summary;
pub mod term;
use compare::{compare_cmd, report_cmd};
use peak::peak;
pub use plan::{PlanError, RunPlan};
pub use run::{run, RunOutcome};

/// Exit codes, as the README lists them.
pub mod exit {
    /// Every row `ok` or `unsupported`.
    pub const OK: i32 = 0;
    /// The run failed: no Vulkan loader or device, an I/O error, validation errors with
    /// `--validate`, a refused `merge`.
    pub const FAILURE: i32 = 1;
    /// Bad input (a scenario file or a flag), named by file, line and key or by flag; nothing
    /// ran.
    pub const BAD_INPUT: i32 = 2;
    /// The run finished, but some rows are `compile_error`, `check_failed` or `error`.
    pub const ROWS_FAILED: i32 = 3;
    /// `compare --fail-on-regression` found a regression.
    pub const REGRESSION: i32 = 4;
    /// Interrupted by Ctrl-C or SIGTERM (the rows measured so far are kept).
    pub const INTERRUPTED: i32 = 130;
}

/// A user mistake (exit 2) rather than a failure of the run (exit 1).
#[derive(Debug, thiserror::Error)]
pub enum UserError {
    /// A scenario file's mistake, naming file, line and key.
    #[error("{0}")]
    Scenario(#[from] ScenarioError),
    /// A flag's mistake; the text names the flag.
    #[error("{0}")]
    Flag(String),
    /// A flag of a run that its plan refused ([`RunPlan::from_args`]).
    #[error("{0}")]
    Plan(#[from] PlanError),
    /// Mistakes found by compiling and checking every variant before the run.
    #[error("{}", preflight_text(.0))]
    Preflight(Vec<ScenarioError>),
}

/// An output path that is a symbolic link is the user's to fix (exit 2, like any bad
/// `--out`); any other error stays as it is.
fn linked_is_bad_input(e: anyhow::Error) -> anyhow::Error {
    match e.downcast_ref::<crate::results::write::LinkedOutput>() {
        Some(l) => UserError::Flag(l.to_string()).into(),
        None => e,
    }
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

/// How much a command prints: the global `-v` (count) and `-q`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Verbosity {
    /// How many `-v` were given: 1 debug logs with timestamps, 2 and more trace.
    pub verbose: u8,
    /// `-q`: only warnings and errors in the log (a command's results still print).
    pub quiet: bool,
}

/// Run the command `cli` names, with its logs set up; returns the exit code ([`exit`]).
pub fn dispatch(cli: Cli) -> anyhow::Result<i32> {
    let v = Verbosity {
        verbose: cli.verbose,
        quiet: cli.quiet,
    };
    if !matches!(cli.command, Command::Run(_) | Command::Peak(_)) {
        // `run` and `peak` set their own (app/run.rs): they stop after the batch in progress.
        on_interrupt_clean_up();
    }
    match cli.command {
        Command::Run(a) => run::run_cmd(a),
        Command::Peak(a) => peak(a),
        Command::CalibrateProcess(a) => calibrate::calibrate_process(a),
        Command::Ab(a) => ab::ab(a),
        Command::Compare(a) => compare_cmd(a, v),
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
        Command::Completions(a) => manual::completions(a),
        Command::Man(a) => manual::man(a),
    }
}

/// Ctrl-C, SIGTERM or SIGHUP in a command other than `run` and `peak`: what it was writing
/// is undone at once (temporary files and folders removed, an output moved aside put back:
/// crate::cleanup), so every output is the old file or the new one, and it exits 130.
fn on_interrupt_clean_up() {
    let _ = ctrlc::set_handler(|| {
        crate::cleanup::undo_all();
        term::eprint_line("p3lab: interrupted; outputs not finished were not written");
        crate::vk::process::exit_now(exit::INTERRUPTED)
    });
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
            // A FIFO (or device, socket, folder) named *.toml would block or fail half-way
            // through loading: refuse it before anything is read.
            for f in &files {
                if let Some(kind) = not_regular(f) {
                    return Err(UserError::Flag(format!(
                        "{}: is {kind}, not a regular file; a scenario folder may hold only \
                         regular *.toml files (remove it or rename it)",
                        f.display()
                    )));
                }
            }
            if files.is_empty() {
                return Err(UserError::Flag(format!(
                    "{}: no *.toml scenario files in this folder",
                    p.display()
                )));
            }
            out.extend(files);
        } else if p.is_file() {
            out.push(p.clone());
        } else if let Some(kind) = p.exists().then(|| not_regular(p)).flatten() {
            return Err(UserError::Flag(format!(
                "{}: is {kind}, not a regular scenario file",
                p.display()
            )));
        } else {
            return Err(UserError::Flag(format!(
                "{}: no such scenario file or folder",
                p.display()
            )));
        }
    }
    Ok(out)
}

/// What `path` is when it is not a regular file (after symlinks): "a FIFO", "a folder", ...
fn not_regular(path: &std::path::Path) -> Option<&'static str> {
    let t = std::fs::metadata(path).ok()?.file_type();
    if t.is_file() {
        return None;
    }
    if t.is_dir() {
        return Some("a folder");
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return Some("a FIFO (named pipe)");
        }
        if t.is_socket() {
            return Some("a socket");
        }
        if t.is_block_device() || t.is_char_device() {
            return Some("a device");
        }
    }
    Some("a special file")
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
    let mut scs = load_all(&a.scenarios, &a.set, a.profile.as_deref())?;
    // `--filter`: the variants `run --filter` would run, and the scenarios that have any.
    let filter = plan::Filter::new(&a.filter).map_err(UserError::from)?;
    if let Some(f) = filter.set() {
        for sc in &mut scs {
            let name = sc.name.clone();
            for case in &mut sc.cases {
                case.variants
                    .retain(|v| f.is_match(&v.name) || f.is_match(format!("{name}/{}", v.name)));
            }
        }
        for sc in &mut scs {
            sc.cases.retain(|c| !c.variants.is_empty());
        }
        scs.retain(|sc| !sc.cases.is_empty());
        if scs.is_empty() {
            return Err(UserError::Flag(format!(
                "--filter {}: matches no variant of these scenarios",
                a.filter.join(" --filter ")
            ))
            .into());
        }
    }
    if a.details {
        print!("{}", details::text(&scs, &glsl_common(&scs, &[]))?);
        return Ok(exit::OK);
    }
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
    // NVIDIA (or an explicit --cupti): the chip's PM-sampling metrics through CUPTI.
    let cupti = (d.vendor_id == 0x10de || a.cupti.is_some())
        .then(|| crate::measure::hw::list_cupti(&d.uuid, a.cupti.as_deref()));
    let (reason, list) = match cupti {
        Some(Ok((chip, metrics))) => {
            let list: Vec<crate::vk::perf::CounterInfo> = metrics
                .into_iter()
                .enumerate()
                .map(|(i, m)| crate::vk::perf::CounterInfo {
                    index: i as u32,
                    name: m.name,
                    category: format!("{chip} {}", m.kind),
                    description: m.description,
                    unit: m.dim_unit,
                    scope: "device".into(),
                    storage: "float64".into(),
                })
                .collect();
            (None, list)
        }
        Some(Err(why)) => (
            Some(format!("device {} `{}`: {why}", d.index, d.name)),
            Vec::new(),
        ),
        None => perf_list(&inst, *pd, d)?,
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

/// A device's VK_KHR_performance_query counters, or why it has none.
fn perf_list(
    inst: &Instance,
    pd: ash::vk::PhysicalDevice,
    d: &crate::vk::DeviceInfo,
) -> anyhow::Result<(Option<String>, Vec<crate::vk::perf::CounterInfo>)> {
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
        (None, Some(family)) => crate::vk::perf::enumerate(inst, pd, family)?,
        _ => Vec::new(),
    };
    Ok((reason, list))
}

/// Where `#include`s are looked for, in order: `--include-dir`, `$P3LAB_GLSL_COMMON`,
/// glsl/common next to the scenarios' folder (a checkout), then the built-in copy
/// (src/assets.rs), so a binary copied alone still finds p3lab.glsl.
fn glsl_common(scenarios: &[Scenario], explicit: &[PathBuf]) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = explicit.to_vec();
    if let Some(d) = std::env::var_os("P3LAB_GLSL_COMMON").filter(|v| !v.is_empty()) {
        dirs.push(PathBuf::from(d));
    }
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
    match crate::assets::glsl_common() {
        Ok(d) => dirs.push(d),
        Err(e) => tracing::warn!("{e:#}"),
    }
    dirs
}
