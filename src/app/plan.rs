//! `p3lab run`'s flags as a typed plan: what to run, how to measure it, where to write and
//! whether to print the summary. [`RunPlan::from_args`] checks every flag before anything
//! opens or is written; [`RunPlan::new`] is the plan with every flag left at its default, for
//! callers that build one directly (`p3lab peak`'s calibration run).
use crate::cli::RunArgs;
use crate::measure::hw::HwOptions;
use crate::output::run_json::MeasureFlags;
use std::path::PathBuf;

/// A mistake in the flags of a run, found before anything opens or is written; each variant
/// names its flag. It reaches the user as a [`super::UserError`] (exit 2).
#[derive(Debug, thiserror::Error)]
pub enum PlanError {
    /// `--trace` with `--device all`: one trace is one device's timeline.
    #[error("--trace with --device all: a trace is one device's timeline; run each device with its own --trace FILE")]
    TraceAllDevices,
    /// `--counters`: a glob that is not one.
    #[error("--counters: {0}")]
    Counters(String),
    /// `--reps 0`.
    #[error("--reps must be at least 1")]
    RepsZero,
    /// `--reps`, `--warmup`, `--rounds` or `--max-rounds` above what a scenario may ask for.
    #[error("{flag} {value}: more than {max}, the most p3lab takes")]
    AboveMax {
        /// The flag, as spelt on the command line.
        flag: &'static str,
        /// The value given.
        value: u32,
        /// The most a scenario may ask for (src/scenario/load).
        max: u32,
    },
    /// `--save-baseline`: a name the baseline store refuses (said why).
    #[error("--save-baseline: {0}")]
    SaveBaseline(String),
    /// `--max-rounds` below `--rounds`.
    #[error("--max-rounds ({max_rounds}) must be at least --rounds ({rounds})")]
    MaxRoundsBelowRounds {
        /// `--rounds`.
        rounds: u32,
        /// `--max-rounds`.
        max_rounds: u32,
    },
    /// `--ci-target`: not a positive, finite percentage.
    #[error("--ci-target {0}: must be a positive percentage")]
    CiTarget(f64),
    /// `--budget-ms`: not a positive, finite number.
    #[error("--budget-ms {0}: must be a positive number of milliseconds")]
    BudgetMs(f64),
    /// `--filter`: one glob that does not parse.
    #[error("--filter `{glob}`: {error}")]
    FilterGlob {
        /// The glob as given.
        glob: String,
        /// Why globset refused it.
        error: String,
    },
    /// `--filter`: the globs together do not make a set.
    #[error("--filter: {0}")]
    FilterSet(String),
    /// `--export-markdown` / `--export-json`: empty, or a folder.
    #[error("{flag} `{}`: give a file name", .path.display())]
    ExportNotAFile {
        /// `--export-markdown` or `--export-json`.
        flag: &'static str,
        /// The path given.
        path: PathBuf,
    },
    /// `--export-markdown` / `--export-json`: a symbolic link (said which).
    #[error("{flag} {error}")]
    ExportLinked {
        /// `--export-markdown` or `--export-json`.
        flag: &'static str,
        /// The refusal, naming the link.
        error: String,
    },
    /// `--export-markdown` / `--export-json`: in a folder that does not exist.
    #[error("{flag} {}: no folder {}", .path.display(), .folder.display())]
    ExportNoFolder {
        /// `--export-markdown` or `--export-json`.
        flag: &'static str,
        /// The path given.
        path: PathBuf,
        /// Its folder, which does not exist.
        folder: PathBuf,
    },
}

/// `--filter`: the globs as given (run.json records them) and the set they make.
#[derive(Debug, Clone, Default)]
pub struct Filter {
    globs: Vec<String>,
    set: Option<globset::GlobSet>,
}

impl Filter {
    /// The globs as one set (None without any); a glob that does not parse is refused.
    pub fn new(globs: &[String]) -> Result<Filter, PlanError> {
        if globs.is_empty() {
            return Ok(Filter::default());
        }
        let mut b = globset::GlobSetBuilder::new();
        for f in globs {
            b.add(globset::Glob::new(f).map_err(|e| PlanError::FilterGlob {
                glob: f.clone(),
                error: e.to_string(),
            })?);
        }
        let set = b.build().map_err(|e| PlanError::FilterSet(e.to_string()))?;
        Ok(Filter {
            globs: globs.to_vec(),
            set: Some(set),
        })
    }

    /// Globs not made into a set yet: `--resume` restores them, then [`Filter::new`] checks
    /// them with the rest of what it restored.
    pub(super) fn unchecked(globs: Vec<String>) -> Filter {
        Filter { globs, set: None }
    }

    /// The globs as given.
    pub fn globs(&self) -> &[String] {
        &self.globs
    }

    /// The set they make; None when no `--filter` was given (every variant runs).
    pub fn set(&self) -> Option<&globset::GlobSet> {
        self.set.as_ref()
    }
}

/// What to run: the scenarios, the params and sizes they run at, the variants and the device.
#[derive(Debug, Clone, Default)]
pub struct Selection {
    /// Scenario files, or folders whose *.toml files all run.
    pub scenarios: Vec<PathBuf>,
    /// `--set NAME=VALUE` overrides, as given.
    pub set: Vec<String>,
    /// `--filter`: which variants run.
    pub filter: Filter,
    /// `--profile`: a profile name, `auto` or `none` (None: the scenarios' own params).
    pub profile: Option<String>,
    /// `--device`: an index, a name substring or `all` (None: the first discrete GPU, ...).
    pub device: Option<String>,
}

/// How to measure: the run's design (the flags run.json records for `--resume`), the counters
/// and probes, the checks, the shader cache and the peaks the %-of-peak columns use.
#[derive(Debug, Clone, Default)]
pub struct Measuring {
    /// `--reps` … `--no-placement-check`, `--placements`: None where the scenario's or
    /// p3lab's default applies. The type run.json records, so `--resume` restores it as is.
    pub design: MeasureFlags,
    /// `--counters`: hardware counter globs replacing every case's `measure.counters`.
    pub counters: Vec<String>,
    /// `--no-hw-counters`, `--cupti`, `--hw-interval-us`.
    pub hw: HwOptions,
    /// `--probe`: per-subgroup probes in every shader.
    pub probe: bool,
    /// `--keep-going`: a variant that fails preflight becomes a row instead of stopping the run.
    pub keep_going: bool,
    /// `--strict`: a variant beyond the device's limits stops the run before it starts.
    pub strict: bool,
    /// `--validate`: the Vulkan validation layer is on, and any error it reports fails the run.
    pub validate: bool,
    /// `--dump-ir`: the drivers' internal representations of every pipeline, written out.
    pub dump_ir: bool,
    /// `--dump-outputs`: every output of every variant's check run, written as `.npy`.
    pub dump_outputs: bool,
    /// `--peaks FILE` (None: this device's cached `p3lab peak` results, if any).
    pub peaks: Option<PathBuf>,
    /// `--force-peaks`: use a peaks file from another device or driver.
    pub force_peaks: bool,
    /// `--cache-dir` (None: the default SPIR-V cache folder).
    pub cache_dir: Option<PathBuf>,
    /// `--no-cache`: compile every shader, neither reading nor writing the cache.
    pub no_cache: bool,
    /// `--include-dir`: folders searched for `#include`s before the built-in ones.
    pub include_dir: Vec<PathBuf>,
}

/// Where to write: the run folder, whether to continue the run in it, and the files made
/// from it after the run.
#[derive(Debug, Clone, Default)]
pub struct Outputs {
    /// `--out`, possibly a template (`{host}`, `{device}`, `{device_name}`), expanded by
    /// [`super::run`].
    pub out: PathBuf,
    /// `--resume`: continue the run in `out`; [`super::run`] restores from its run.json what
    /// the plan leaves unsaid.
    pub resume: bool,
    /// `--replace`: a run already in `out` is replaced (without it or `resume`, refused).
    pub replace: bool,
    /// `--export-markdown`: the summary as Markdown.
    pub export_markdown: Option<PathBuf>,
    /// `--export-json`: the summary as JSON.
    pub export_json: Option<PathBuf>,
    /// `--save-baseline NAME`: the finished run kept as a named baseline.
    pub save_baseline: Option<String>,
    /// `--trace FILE`: the run's timeline as Chrome trace-event JSON (src/sink/trace.rs).
    pub trace: Option<PathBuf>,
    /// `--baseline-variant`: the summary's baseline where a case has that variant.
    pub baseline_variant: Option<String>,
}

/// Everything [`super::run`] needs to make a run, its flags already checked.
#[derive(Debug, Clone, Default)]
pub struct RunPlan {
    /// What to run.
    pub what: Selection,
    /// How to measure it.
    pub how: Measuring,
    /// Where to write.
    pub output: Outputs,
    /// Print the summary on stdout after the run (`p3lab peak` prints its own table instead);
    /// also whether a device without peaks is said once in the log.
    pub print_summary: bool,
}

impl RunPlan {
    /// The plan that runs `scenarios` into `out` with every flag at its default (as `p3lab run
    /// SCENARIOS --out OUT` would) and prints the summary. A caller that changes a measuring
    /// field checks it with [`RunPlan::check`].
    pub fn new(scenarios: Vec<PathBuf>, out: PathBuf) -> RunPlan {
        RunPlan {
            what: Selection {
                scenarios,
                ..Default::default()
            },
            output: Outputs {
                out,
                ..Default::default()
            },
            print_summary: true,
            ..Default::default()
        }
    }

    /// `p3lab run`'s flags as a plan, every one checked before anything opens or is written:
    /// the export paths first, then the measuring flags, then the `--filter` globs. With
    /// `--device all` only the exports and the filter are checked: this process starts one
    /// `p3lab run` per device, each of which checks its flags itself (a bad `--reps` is told
    /// by each worker, as before typed plans).
    pub fn from_args(a: &RunArgs) -> Result<RunPlan, PlanError> {
        check_exports(&[
            ("--export-markdown", &a.export_markdown),
            ("--export-json", &a.export_json),
            ("--trace", &a.trace),
        ])?;
        let plan = RunPlan {
            what: Selection {
                scenarios: a.scenarios.clone(),
                set: a.set.clone(),
                filter: Filter::default(),
                profile: a.profile.clone(),
                device: a.device.clone(),
            },
            how: measuring(a),
            output: Outputs {
                out: a.out.clone(),
                resume: a.resume,
                replace: a.replace,
                export_markdown: a.export_markdown.clone(),
                export_json: a.export_json.clone(),
                save_baseline: a.save_baseline.clone(),
                trace: a.trace.clone(),
                baseline_variant: a.baseline_variant.clone(),
            },
            print_summary: true,
        };
        if !plan.on_every_device() {
            plan.check()?;
        } else if plan.output.trace.is_some() {
            return Err(PlanError::TraceAllDevices);
        }
        Ok(RunPlan {
            what: Selection {
                filter: Filter::new(&a.filter)?,
                ..plan.what
            },
            ..plan
        })
    }

    /// `--device all`: one worker process per device, the summary of their merged folder.
    pub fn on_every_device(&self) -> bool {
        self.what.device.as_deref() == Some("all")
    }

    /// The measuring flags' checks (the counter globs, the bounds of `--reps`, `--warmup`,
    /// `--rounds` and `--max-rounds`, the baseline's name, `--ci-target` and `--budget-ms`);
    /// [`RunPlan::from_args`] makes them, and a resumed run again on what it restored.
    pub fn check(&self) -> Result<(), PlanError> {
        let m = &self.how.design;
        // A bad --counters glob is bad input, reported before any device work.
        crate::vk::perf::select(&[], &self.how.counters).map_err(PlanError::Counters)?;
        if m.reps == Some(0) {
            return Err(PlanError::RepsZero);
        }
        use crate::scenario::load::{MAX_REPS, MAX_ROUNDS, MAX_WARMUP};
        let bounded = [
            ("--reps", m.reps, MAX_REPS),
            ("--warmup", m.warmup, MAX_WARMUP),
            ("--rounds", m.rounds, MAX_ROUNDS),
            ("--max-rounds", m.max_rounds, MAX_ROUNDS),
        ];
        for (flag, value, max) in bounded {
            if let Some(value) = value.filter(|v| *v > max) {
                return Err(PlanError::AboveMax { flag, value, max });
            }
        }
        // Refused before the run, not after it.
        if let Some(name) = &self.output.save_baseline {
            crate::lab::validate_name(name)
                .map_err(|e| PlanError::SaveBaseline(format!("{e:#}")))?;
        }
        if let (Some(rounds), Some(max_rounds)) = (m.rounds, m.max_rounds) {
            if max_rounds < rounds {
                return Err(PlanError::MaxRoundsBelowRounds { rounds, max_rounds });
            }
        }
        if let Some(t) = m.ci_target.filter(|t| !(t.is_finite() && *t > 0.0)) {
            return Err(PlanError::CiTarget(t));
        }
        if let Some(b) = m.budget_ms.filter(|b| !(b.is_finite() && *b > 0.0)) {
            return Err(PlanError::BudgetMs(b));
        }
        Ok(())
    }
}

/// The measuring part of `p3lab run`'s flags, unchecked.
fn measuring(a: &RunArgs) -> Measuring {
    Measuring {
        design: MeasureFlags {
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
        },
        counters: a.counters.clone(),
        hw: HwOptions {
            enabled: !a.no_hw_counters,
            cupti: a.cupti.clone(),
            interval_ns: a.hw_interval_us * 1000,
            nv_own: Vec::new(),
            nv_own_for: None,
            timed_before: Default::default(),
        },
        probe: a.probe,
        keep_going: a.keep_going,
        strict: a.strict,
        validate: a.validate,
        dump_ir: a.dump_ir,
        dump_outputs: a.dump_outputs,
        peaks: a.peaks.clone(),
        force_peaks: a.force_peaks,
        cache_dir: a.cache_dir.clone(),
        no_cache: a.no_cache,
        include_dir: a.include_dir.clone(),
    }
}

/// Before the run: an export file's folder must exist, so a typo does not cost a run.
fn check_exports(exports: &[(&'static str, &Option<PathBuf>)]) -> Result<(), PlanError> {
    for &(flag, path) in exports {
        let Some(p) = path else { continue };
        if p.as_os_str().is_empty() || p.is_dir() {
            return Err(PlanError::ExportNotAFile {
                flag,
                path: p.clone(),
            });
        }
        // A link to a file would be refused after the run: refused before it instead.
        if let Err(e) = crate::results::write::refuse_output_link(p) {
            return Err(PlanError::ExportLinked {
                flag,
                error: e.to_string(),
            });
        }
        if let Some(parent) = p.parent().filter(|d| !d.as_os_str().is_empty()) {
            if !parent.is_dir() {
                return Err(PlanError::ExportNoFolder {
                    flag,
                    path: p.clone(),
                    folder: parent.to_path_buf(),
                });
            }
        }
    }
    Ok(())
}
