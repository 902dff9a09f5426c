//! The command line: `run`, `list`, `devices`, `counters`, ...
use clap::{Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

/// `p3lab --version`: the crate version, the git revision it was built from and the hash of
/// the files built into it (src/assets.rs).
pub const VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (git ",
    env!("P3LAB_GIT_REVISION"),
    ", built-in assets ",
    env!("P3LAB_ASSETS_HASH"),
    ")"
);

/// The command line: global options and one command.
#[derive(Debug, Parser)]
#[command(name = "p3lab", version = VERSION, about = "Profile compute-shader variants on any Vulkan 1.3 device", long_about = None)]
pub struct Cli {
    /// More logs: -v debug with timestamps, -vv trace (RUST_LOG overrides). A command may show
    /// more with it too; its own help says what.
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    pub verbose: u8,
    /// Only warnings and errors in the log (a command's results still print; its own help says
    /// what else it leaves out).
    #[arg(short, long, global = true)]
    pub quiet: bool,
    /// Colour: `auto` (on a terminal, unless NO_COLOR is set; CLICOLOR_FORCE forces it),
    /// `always` or `never`.
    #[arg(
        long,
        global = true,
        value_enum,
        default_value = "auto",
        value_name = "WHEN"
    )]
    pub color: ColorChoice,
    /// The command to run.
    #[command(subcommand)]
    pub command: Command,
}

// Parsed once per process: RunArgs's size does not matter.
#[allow(
    clippy::large_enum_variant,
    reason = "parsed once per process; boxing the run flags would only add noise at every use"
)]
/// p3lab's commands, each with its own flags.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run scenarios and write results.csv, samples.csv, metrics.csv and run.json.
    Run(RunArgs),
    /// Print the variants each scenario expands to (nothing runs on a device).
    List(ListArgs),
    /// List the Vulkan devices and what p3lab can use on each.
    Devices(DevicesArgs),
    /// List a device's hardware counters (VK_KHR_performance_query) for `run --counters`.
    Counters(CountersArgs),
    /// Measure this device's peaks (DRAM, L2, FP32/FP16, shared memory, empty dispatch) with the
    /// calibration scenarios in peaks/; writes peaks.csv and caches it for `run`'s %-of-peak columns.
    Peak(PeakArgs),
    /// Measure this device's process-level SD: a reference set (a memory-bound and a
    /// compute-bound calibration) in several fresh p3lab processes, the spread of their times
    /// between processes; writes process_sd.json and caches it per device and driver for
    /// `compare` of two runs.
    CalibrateProcess(CalibrateProcessArgs),
    /// Before/after over processes: the same `run` arguments as base and new sides (two
    /// binaries, `--set` values or environments) in alternating fresh processes, each row's
    /// change judged over the pairs of processes; writes ab.csv.
    Ab(AbArgs),
    /// Before/after comparison of two runs (or two variants of one run): a headline, then one
    /// line per pair with the medians, the time ratio new ÷ base, its 95 % CI, p and the verdict
    /// (every metric side by side with -v; the headline and the changed pairs with -q; the P3
    /// view with --p3); writes compare.csv and compare.md.
    Compare(CompareArgs),
    /// Markdown report with SVG charts of a run folder.
    Report(ReportArgs),
    /// Combine run folders from many machines into one set of CSVs.
    Merge(MergeArgs),
    /// Print a shell completion script: `p3lab completions bash > /etc/bash_completion.d/p3lab`.
    Completions(CompletionsArgs),
    /// Print the man page (roff), or write one page per command into a folder with -o.
    Man(ManArgs),
}

/// `p3lab completions`'s flags.
#[derive(Debug, clap::Args)]
pub struct CompletionsArgs {
    /// The shell to complete for.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

/// `p3lab man`'s flags.
#[derive(Debug, clap::Args)]
pub struct ManArgs {
    /// Write p3lab.1 and p3lab-COMMAND.1 for every command into this folder (created) instead
    /// of printing p3lab.1.
    #[arg(short, long, value_name = "DIR")]
    pub out: Option<PathBuf>,
}

/// `p3lab compare`'s flags.
#[derive(Debug, clap::Args)]
pub struct CompareArgs {
    /// BASE and NEW run folders (or results.csv files); with --baseline, just the NEW run; with
    /// --pair, or a merged folder and --base-host/--new-host (or -device), one is enough.
    #[arg(required = true, num_args = 1..=2)]
    pub runs: Vec<PathBuf>,
    /// BASE is the rows of this host (the `host` column) in a merged folder.
    #[arg(long, value_name = "HOST")]
    pub base_host: Option<String>,
    /// NEW is the rows of this host.
    #[arg(long, value_name = "HOST")]
    pub new_host: Option<String>,
    /// BASE is the rows of this device: a device_name substring (any case), a device_uuid
    /// prefix, or a run_id.
    #[arg(long, value_name = "DEVICE")]
    pub base_device: Option<String>,
    /// NEW is the rows of this device (as --base-device).
    #[arg(long, value_name = "DEVICE")]
    pub new_device: Option<String>,
    /// Compare the run with a baseline saved by `run --save-baseline NAME`.
    #[arg(long)]
    pub baseline: Option<String>,
    /// Compare variant BASE with variant NEW within the runs (repeatable): --pair
    /// row-major=tile-x-16. A side may name its scenario (`tiling/rowmajor=tiling/tilex4`, as
    /// `run --filter`) and use `*` and `?`: what they match on the left fills them on the right
    /// (`'rowmajor-*=tilex4-*'` pairs each rowmajor-X with tilex4-X; `'stride*=stride1'` each
    /// stride variant with stride1).
    #[arg(long, value_name = "BASE=NEW")]
    pub pair: Vec<String>,
    /// A change counts only when the whole 95 % CI of the time ratio clears 1 ± this many percent.
    #[arg(long, default_value_t = 1.0)]
    pub noise: f64,
    /// Where compare.csv and compare.md go (default: a new folder beside NEW named after both
    /// runs, `compare-BASE-vs-NEW`, or `compare-RUN` for pairs within one run; never an input).
    #[arg(short, long)]
    pub out: Option<PathBuf>,
    /// Exit with code 4 when any pair regressed. A `placement-dependent` pair (regressed in
    /// one placement of the data, not across placements) does not count unless
    /// --fail-on-placement-dependent is given too.
    #[arg(long)]
    pub fail_on_regression: bool,
    /// With --fail-on-regression: a pair that regressed in one placement only fails too.
    #[arg(long, requires = "fail_on_regression")]
    pub fail_on_placement_dependent: bool,
    /// The P3 view of each pair on stdout: per unit the %-of-peak of base and new, the
    /// limiter of each side, the time ratio and the verdict (with -q: the changed pairs only).
    #[arg(long)]
    pub p3: bool,
    /// What stdout gets: `table` (a headline with the verdicts counted and the geometric mean
    /// of the ratios, then one line per pair, changes first, pairs that are not comparable
    /// folded by reason; every metric with -v; the headline and the changed pairs with -q),
    /// `csv` (compare.csv's columns) or `json` (one object per pair with stable keys).
    /// compare.csv and compare.md are written either way.
    #[arg(long, value_enum, default_value = "table")]
    pub format: Format,
    /// A process_sd.json (`p3lab calibrate-process`) for the pairs of two runs, instead of the
    /// runs' device's cached one (default: the cache; without one, a conservative SD for the
    /// device type, and the output says which).
    #[arg(long, value_name = "FILE")]
    pub process_sd: Option<PathBuf>,
    /// Compare runs from different devices or drivers (refused otherwise); each such pair is
    /// marked `[cross-device]` (compare.csv: `cross_device` = 1).
    #[arg(long)]
    pub allow_cross_device: bool,
}

/// `p3lab report`'s flags.
#[derive(Debug, clap::Args)]
pub struct ReportArgs {
    /// The run folder.
    pub run: PathBuf,
    /// Add a comparison with this BASE run folder.
    #[arg(long)]
    pub compare: Option<PathBuf>,
    /// Compare variant pairs within the run (repeatable): --pair row-major=tile-x-16; with
    /// `scenario/` prefixes and `*` / `?` wildcards as `compare --pair` takes them.
    #[arg(long, value_name = "BASE=NEW")]
    pub pair: Vec<String>,
    /// Output folder (default: a new folder beside RUN, `report-RUN`, or `report-RUN-vs-BASE`
    /// with --compare; never inside an input).
    #[arg(short, long)]
    pub out: Option<PathBuf>,
    /// With --compare: keep pairs whose two sides ran on different devices or drivers
    /// (refused otherwise, as by `compare`), marked cross-device.
    #[arg(long)]
    pub allow_cross_device: bool,
}

/// `p3lab merge`'s flags.
#[derive(Debug, clap::Args)]
pub struct MergeArgs {
    /// Run folders (or merged folders) to combine.
    #[arg(required = true)]
    pub inputs: Vec<PathBuf>,
    /// The merged folder (created; an earlier merge there is replaced).
    #[arg(short, long)]
    pub out: PathBuf,
}

/// `p3lab peak`'s flags.
#[derive(Debug, clap::Args)]
pub struct PeakArgs {
    /// Output folder for the calibration runs and peaks.csv.
    #[arg(short, long, required_unless_present = "list")]
    pub out: Option<PathBuf>,
    /// List the calibration scenarios and their variants (the names `--filter` takes) with
    /// the unit each measures, from the built-in calibrations (or --peaks-dir); measure nothing.
    #[arg(long)]
    pub list: bool,
    /// Device index or name substring (default: first discrete GPU, else integrated, else CPU).
    #[arg(long)]
    pub device: Option<String>,
    /// Calibration sizes: `auto` (full on a GPU, small on a CPU device), `full`, or `none`.
    #[arg(long, default_value = "auto")]
    pub profile: String,
    /// Only calibration variants whose name (or scenario/name) matches this glob; repeatable.
    #[arg(long)]
    pub filter: Vec<String>,
    /// Override a calibration param: NAME=VALUE, or NAME=V1,V2,... to sweep; repeatable.
    #[arg(long = "set", value_name = "NAME=VALUE")]
    pub set: Vec<String>,
    /// Timed repetitions per batch, at least (as `run --reps`).
    #[arg(long)]
    pub reps: Option<u32>,
    /// GPU time in ms of the warm-up before a case's first round (as `run --warmup-ms`).
    #[arg(long)]
    pub warmup_ms: Option<u64>,
    /// SPIR-V cache folder; the peaks are cached next to it (as `run --cache-dir`).
    #[arg(long)]
    pub cache_dir: Option<PathBuf>,
    /// Calibration scenarios to run instead of the built-in ones (also $P3LAB_PEAKS_DIR).
    #[arg(long, value_name = "DIR")]
    pub peaks_dir: Option<PathBuf>,
    /// Measure only if this device and driver have no usable cached peaks (none, from an older
    /// p3lab, or without a row for some unit, as after a filtered `peak`); otherwise say where
    /// they are and exit 0 (scripts/run.sh uses it).
    #[arg(long)]
    pub if_missing: bool,
    /// No counter batches: the peaks are timed only, and peaks.csv's `counted_pct` stays
    /// empty (no check of a peak by the unit's own hardware counter).
    #[arg(long)]
    pub no_hw_counters: bool,
    /// CUPTI's library (libcupti.so) or its folder (as `run --cupti`).
    #[arg(long, value_name = "PATH", env = "P3LAB_CUPTI")]
    pub cupti: Option<std::path::PathBuf>,
}

/// `p3lab ab`'s flags.
#[derive(Debug, clap::Args)]
pub struct AbArgs {
    /// Output folder: each process's run (base-1, new-1, new-2, base-2, ...) and ab.csv.
    #[arg(short, long)]
    pub out: PathBuf,
    /// Pairs of processes (one base and one new each, in the order ABBA...; at least 2; 6 or
    /// more to confirm a change: fewer read `inconclusive` where the interval clears the band).
    #[arg(short = 'n', long, default_value_t = 6, value_parser = clap::value_parser!(u32).range(2..=100))]
    pub pairs: u32,
    /// The base side's p3lab binary (default: this one).
    #[arg(long, value_name = "PATH")]
    pub base_bin: Option<PathBuf>,
    /// The new side's p3lab binary (default: this one).
    #[arg(long, value_name = "PATH")]
    pub new_bin: Option<PathBuf>,
    /// A `--set NAME=VALUE` for the base side only; repeatable.
    #[arg(long, value_name = "NAME=VALUE")]
    pub base_set: Vec<String>,
    /// A `--set NAME=VALUE` for the new side only; repeatable.
    #[arg(long, value_name = "NAME=VALUE")]
    pub new_set: Vec<String>,
    /// An environment variable for the new side only (a driver's VK_ICD_FILENAMES, ...);
    /// repeatable.
    #[arg(long, value_name = "NAME=VALUE")]
    pub new_env: Vec<String>,
    /// Changes within this % of 1 read as no change.
    #[arg(long, default_value_t = 1.0)]
    pub noise: f64,
    /// Exit 4 when a row regressed (for CI).
    #[arg(long)]
    pub fail_on_regression: bool,
    /// `p3lab run`'s arguments for both sides (scenarios and flags; not --out), after `--`.
    #[arg(last = true, required = true)]
    pub run: Vec<String>,
}

/// `p3lab calibrate-process`'s flags.
#[derive(Debug, clap::Args)]
pub struct CalibrateProcessArgs {
    /// Output folder: each process's run (p1, p2, ...) and process_sd.json.
    #[arg(short, long)]
    pub out: PathBuf,
    /// How many fresh processes run the reference set (at least 2; more give a steadier SD).
    #[arg(short = 'n', long, default_value_t = 6, value_parser = clap::value_parser!(u32).range(2..=100))]
    pub processes: u32,
    /// Device index or name substring (as `run --device`; not `all`).
    #[arg(long)]
    pub device: Option<String>,
    /// Reference scenario files instead of the built-in set (peaks/dram_read.toml and
    /// peaks/fma.toml, one variant each); each scenario is a kind of work of its own, named
    /// after it. Repeatable.
    #[arg(long, value_name = "FILE")]
    pub scenario: Vec<PathBuf>,
    /// With --scenario: only variants matching this glob (as `run --filter`); repeatable.
    #[arg(long, requires = "scenario")]
    pub filter: Vec<String>,
    /// Override a param of the reference scenarios (as `run --set`); repeatable.
    #[arg(long = "set", value_name = "NAME=VALUE")]
    pub set: Vec<String>,
    /// Each process's time budget per variant (as `run --budget-ms`).
    #[arg(long, value_name = "MS")]
    pub budget_ms: Option<f64>,
    /// Each process's warm-up before a case's first round (as `run --warmup-ms`).
    #[arg(long, value_name = "MS")]
    pub warmup_ms: Option<u64>,
}

/// `p3lab run`'s flags, as clap parsed them; `RunPlan::from_args` (src/app/plan.rs) checks them into a typed plan.
#[derive(Debug, clap::Args)]
pub struct RunArgs {
    /// Scenario files, or folders whose *.toml files are all run (with --resume: default the
    /// interrupted run's).
    #[arg(required_unless_present = "resume")]
    pub scenarios: Vec<PathBuf>,
    /// Continue the run in --out: skip variants that have rows, append the rest.
    #[arg(long)]
    pub resume: bool,
    /// Replace the run already in --out (without it, or --resume, a folder holding a run is
    /// refused).
    #[arg(long, conflicts_with = "resume")]
    pub replace: bool,
    /// Output folder (created; a run already in it is refused unless --resume or --replace). `{host}` ($P3LAB_HOST or the
    /// host name), `{device}` (device-N) and `{device_name}` are expanded: `runs/{host}/{device}`
    /// gives every host and GPU of a fleet its own folder on a shared file system.
    #[arg(short, long)]
    pub out: PathBuf,
    /// Only variants whose name (or scenario/name) matches this glob; repeatable.
    #[arg(long)]
    pub filter: Vec<String>,
    /// Override a param: NAME=VALUE, or NAME=V1,V2,... to sweep; repeatable.
    #[arg(long = "set", value_name = "NAME=VALUE")]
    pub set: Vec<String>,
    /// Apply the scenarios' [profiles.NAME] params; `auto` applies `full` on a GPU and nothing on a CPU device.
    #[arg(long)]
    pub profile: Option<String>,
    /// Device index or name substring (default: first discrete GPU, else integrated, else CPU);
    /// `all` runs every device in parallel into OUT/device-N/ and merges them into OUT/all/.
    #[arg(long)]
    pub device: Option<String>,
    /// Timed repetitions per batch, at least (overrides measure.reps; short dispatches get
    /// enough for 1 ms of GPU time).
    #[arg(long)]
    pub reps: Option<u32>,
    /// Untimed repetitions at the start of every batch (overrides measure.warmup).
    #[arg(long)]
    pub warmup: Option<u32>,
    /// GPU time in ms of the warm-up before a case's first round, 1500 after the GPU sat idle
    /// for over 0.5 s; 0 turns warm-up off (overrides measure.warmup_ms).
    #[arg(long)]
    pub warmup_ms: Option<u64>,
    /// Rounds every variant is timed in, at least (overrides measure.rounds; default 5).
    #[arg(long, value_parser = clap::value_parser!(u32).range(2..))]
    pub rounds: Option<u32>,
    /// Rounds at most (overrides measure.max_rounds; default 30).
    #[arg(long, value_parser = clap::value_parser!(u32).range(2..))]
    pub max_rounds: Option<u32>,
    /// Stop a variant once its median's 95 % CI half-width is below PCT % (overrides
    /// measure.ci_target_pct; default 0.5).
    #[arg(long, value_name = "PCT")]
    pub ci_target: Option<f64>,
    /// ...or once its batches took MS of wall time (overrides measure.budget_ms; default 400).
    #[arg(long, value_name = "MS")]
    pub budget_ms: Option<f64>,
    /// Seed of the rounds' shuffled orders (recorded in run.json).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Enable VK_LAYER_KHRONOS_validation (with synchronization validation); any error fails the run.
    #[arg(long)]
    pub validate: bool,
    /// SPIR-V cache folder (default: $P3LAB_CACHE_DIR, $XDG_CACHE_HOME/p3lab/spirv or ~/.cache/p3lab/spirv).
    #[arg(long)]
    pub cache_dir: Option<PathBuf>,
    /// Compile every shader, ignoring and not writing the cache.
    #[arg(long)]
    pub no_cache: bool,
    /// A folder searched for `#include` files before the built-in ones (glsl/common:
    /// p3lab.glsl); repeatable. $P3LAB_GLSL_COMMON adds one more.
    #[arg(long, value_name = "DIR")]
    pub include_dir: Vec<PathBuf>,
    /// The variant the summary's time ratios are against, in every case that has it (else
    /// `[scenario] baseline`, `[check] baseline`, the first variant).
    #[arg(long, value_name = "VARIANT")]
    pub baseline_variant: Option<String>,
    /// After the run, keep its results as the named baseline (for `compare --baseline NAME`).
    #[arg(long, value_name = "NAME")]
    pub save_baseline: Option<String>,
    /// peaks.csv for the %-of-peak columns (default: this device's cached `p3lab peak` result).
    #[arg(long)]
    pub peaks: Option<PathBuf>,
    /// Use a --peaks file measured on another model or driver (refused otherwise; another card
    /// of this model and driver is accepted with a note); every row then carries a flag.
    #[arg(long)]
    pub force_peaks: bool,
    /// How cold mode evicts the L2 before each repetition: `read` (a read-only sweep, the
    /// default) or `write` (a fill, which leaves dirty lines to be written back inside the
    /// timed window); replaces the scenarios' measure.evict.
    #[arg(long, value_name = "read|write", value_parser = parse_evict)]
    pub evict: Option<crate::scenario::Evict>,
    /// What every round after the first makes anew: `resources` moves the case's buffers and
    /// images to new memory (contents kept), so the interval carries the variation of where
    /// they sit; `pipelines`, `all`, or `none` (the default); replaces measure.fresh.
    #[arg(long, value_name = "WHAT", value_parser = parse_fresh)]
    pub fresh: Option<crate::scenario::Fresh>,
    /// Skip the placement check: one more round per case after the rounds, with the case's
    /// buffers and images moved to new memory, that tells whether a variant's time depends on
    /// where its data sits (results.csv `placement_pct`); replaces measure.placement_check.
    #[arg(long)]
    pub no_placement_check: bool,
    /// Over how many placements of each case's resources to measure: `auto` (the default:
    /// one, and four where the placement check finds a variant whose time moves with its
    /// data), or a number (1: one placement and no check; N: N placements for every case).
    /// The check's placement is the second; each further one moves the resources to new
    /// memory and runs one round of every variant there. The estimate and its intervals are
    /// then over the placements' means (results.csv `placements`, `placement_sd_pct`);
    /// replaces measure.placements.
    #[arg(long, value_name = "auto|N", value_parser = crate::scenario::Placements::parse)]
    pub placements: Option<crate::scenario::Placements>,
    /// Capture the hardware counters whose name matches this glob (see `p3lab counters`: CUPTI
    /// PM-sampling metrics on NVIDIA, VK_KHR_performance_query counters elsewhere) into
    /// metrics.csv; repeatable; replaces the scenarios' measure.counters.
    #[arg(long, value_name = "GLOB")]
    pub counters: Vec<String>,
    /// No counter batches: leave the hw_* columns empty (the limiter then comes from the
    /// declared work alone).
    #[arg(long)]
    pub no_hw_counters: bool,
    /// CUPTI's library (libcupti.so) or its folder, for the hardware counters on NVIDIA; given,
    /// it is tried on any device. Default: the CUDA toolkit's folders, a Python environment's
    /// nvidia/cuda_cupti/lib, then the loader's path.
    #[arg(long, value_name = "PATH", env = "P3LAB_CUPTI")]
    pub cupti: Option<std::path::PathBuf>,
    /// The PM-sampling interval of the counter batches, in µs (CUPTI decodes a sample in
    /// about 100 µs; much shorter intervals overflow its buffer). A batch runs for at least
    /// 40 intervals.
    #[arg(long, value_name = "US", default_value_t = 200, value_parser = clap::value_parser!(u64).range(10..=100_000))]
    pub hw_interval_us: u64,
    /// Record per-subgroup start/end times (and SM ids where the device has them) in every
    /// shader, as if every scenario set measure.probe: p3lab wraps each shader's main() in
    /// p3_wrap_begin()/p3_wrap_end() unless the shader calls p3_group_begin*() itself.
    #[arg(long)]
    pub probe: bool,
    /// Before anything runs, every variant is compiled and checked against its scenario
    /// (bindings, workgroup size, push and spec constants); a mistake stops the run with exit 2.
    /// With --keep-going such variants become `compile_error` / `error` rows instead.
    #[arg(long)]
    pub keep_going: bool,
    /// Write the driver's internal representations of every pipeline (whatever
    /// VK_KHR_pipeline_executable_properties exposes, e.g. RADV's NIR, ACO IR and assembly, and
    /// VK_AMD_shader_info's disassembly) to OUT/ir/SCENARIO/VARIANT-PARAMSHASH/.
    #[arg(long)]
    pub dump_ir: bool,
    /// Write every output resource of every variant, as its check run left it, to
    /// OUT/outputs/SCENARIO/VARIANT[-CASE]/NAME.npy (buffers 1-D, images height x width x
    /// channels), for numpy: `np.load(path)`.
    #[arg(long)]
    pub dump_outputs: bool,
    /// Also stop with exit 2 before the run when a variant is beyond this device's limits
    /// (workgroup size, shared memory, subgroup size, features), instead of `unsupported` rows.
    #[arg(long, conflicts_with = "keep_going")]
    pub strict: bool,
    /// Also write the summary printed after the run (medians, CIs, speedups) as Markdown.
    #[arg(long, value_name = "FILE")]
    pub export_markdown: Option<PathBuf>,
    /// Also write that summary as JSON.
    #[arg(long, value_name = "FILE")]
    pub export_json: Option<PathBuf>,
    /// Also write the run's timeline as Chrome trace-event JSON (open it in ui.perfetto.dev
    /// or chrome://tracing): every timed repetition at its GPU time on the host clock, the
    /// batches, the run's phases, the counter batches and their samples as counter tracks.
    #[arg(long, value_name = "FILE")]
    pub trace: Option<PathBuf>,
}

/// When to colour (`--color`): `auto` (on a terminal, unless NO_COLOR is set; CLICOLOR_FORCE
/// forces it), `always` or `never`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, ValueEnum)]
#[allow(
    missing_docs,
    reason = "clap prints a value's doc comment in --help, which would turn the one-line \
              `--color` help into a list; the enum's doc and the flag's help describe each value"
)]
pub enum ColorChoice {
    #[default]
    Auto,
    Always,
    Never,
}

/// `p3lab list`'s flags.
#[derive(Debug, clap::Args)]
pub struct ListArgs {
    /// Scenario files, or folders whose *.toml files are all listed.
    #[arg(required = true)]
    pub scenarios: Vec<PathBuf>,
    /// Apply the scenarios' [profiles.NAME] params.
    #[arg(long)]
    pub profile: Option<String>,
    /// Override a param: NAME=VALUE, or NAME=V1,V2,... to sweep; repeatable.
    #[arg(long = "set", value_name = "NAME=VALUE")]
    pub set: Vec<String>,
    /// Per variant: shader, language, entry point, defines, spec constants, declared work,
    /// workgroup size, grid and invocations of every pass (marked where the variant has its
    /// own), push-constant words and the shader's bindings; per case: resources and the check.
    /// Compiles the shaders (no device needed).
    #[arg(long)]
    pub details: bool,
    /// Only variants whose name (or scenario/name) matches this glob, as `run --filter`;
    /// repeatable. Scenarios with none left are not listed.
    #[arg(long)]
    pub filter: Vec<String>,
}

/// How a command prints on stdout.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Aligned columns for people.
    Table,
    /// CSV with a header line.
    Csv,
    /// JSON.
    Json,
}

/// `p3lab devices`'s flags.
#[derive(Debug, clap::Args)]
pub struct DevicesArgs {
    /// Output format on stdout.
    #[arg(long, value_enum, default_value = "table")]
    pub format: Format,
}

/// `p3lab counters`'s flags.
#[derive(Debug, clap::Args)]
pub struct CountersArgs {
    /// Device index or name substring (default: first discrete GPU, else integrated, else CPU).
    #[arg(long)]
    pub device: Option<String>,
    /// CUPTI's library or its folder (NVIDIA: lists the chip's PM-sampling metrics).
    #[arg(long, value_name = "PATH", env = "P3LAB_CUPTI")]
    pub cupti: Option<std::path::PathBuf>,
    /// Output format on stdout.
    #[arg(long, value_enum, default_value = "table")]
    pub format: Format,
}

/// `--evict`, parsed once, into the type the run uses.
fn parse_evict(s: &str) -> Result<crate::scenario::Evict, String> {
    crate::scenario::Evict::parse(s).ok_or_else(|| format!("`{s}`: one of read, write"))
}

/// `--fresh`, parsed once, into the type the run uses.
fn parse_fresh(s: &str) -> Result<crate::scenario::Fresh, String> {
    crate::scenario::Fresh::parse(s)
        .ok_or_else(|| format!("`{s}`: one of {}", crate::scenario::Fresh::NAMES.join(", ")))
}
