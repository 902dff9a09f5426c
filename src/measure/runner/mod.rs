//! The runner drives steps 1-8 for every params case of a scenario, in two phases:
//!
//! - **Build and check** each variant (baseline first): pipelines, one untimed run, its
//!   outputs compared on a worker thread while the next variant is built and run.
//! - **Rounds**: the checked variants are warmed up together, then timed in rounds, one batch
//!   each per round in a shuffled order, until each one's median is known well enough.
//!
//! It owns the device so that a lost or hung one can be left behind and replaced mid-run; it
//! produces rows and the writer writes them as each variant finishes.
mod checks;
mod events;
mod progress;
pub use progress::{progress_units, CHECK_UNITS, PROGRESS_UNITS};
mod placement;
mod recovery;
mod timing;
mod write;

use crate::measure::batch;
use crate::measure::build::{self, Built};
use crate::measure::check::Contents;
use crate::measure::evict::Evict;
use crate::measure::failure::Failure;
use crate::measure::gpu_check::{self, Against, GpuCheck};
use crate::measure::inputs::{self, CaseInputs};
use crate::measure::options::{interrupted, RunOptions};
use crate::measure::plan::CasePlan;
use crate::measure::row::{self, Ident};
use crate::measure::schedule::{self, Track};
use crate::measure::setup::{self, CaseGpu};
use crate::measure::verify::{self, Expected, Judgement};
use crate::measure::{counters, prepare};
use crate::output::run_json::{CaseTimeline, RoundsRecord, RunJson, VariantCost};
use crate::results::record::{
    BuildFacts, CheckOutcome, CheckRunFacts, CounterBatch, Identity, TimedBatch,
};
use crate::results::{MetricRow, ResultRow, RowStatus};
use crate::scenario::{Case, Check, Mode, Scenario, Variant};
use crate::shader::Compiler;
use crate::sink::{Sinks, VariantEvent};
use crate::vk::Context;
use std::sync::Arc;
use std::thread::{Scope, ScopedJoinHandle};
use std::time::Instant;

/// Runs a scenario's cases on one device: builds, checks and times their variants, and tells
/// the run's outputs (its [`Sinks`]) what it measured, as it happens.
pub struct Runner<'a> {
    /// Owned so that a lost device can be replaced by a new one mid-run.
    ctx: Context,
    compiler: &'a mut Compiler,
    sinks: &'a mut Sinks,
    /// Every row written, in order: what the run measured, for the summary and `p3lab peak`
    /// (nothing reads results.csv back to learn it).
    pub rows: Vec<ResultRow>,
    meta: &'a mut RunJson,
    opts: &'a RunOptions,
    progress: indicatif::ProgressBar,
    /// Read-back buffers of checked variants, recycled for the next variant's outputs.
    spare: Contents,
    evict: Evict,
    /// When the GPU last finished a timed batch or warm-up; None until the run's first (the
    /// long warm-up). The warm-up after that follows the GPU's idle time (`Context::idle_for`).
    last_batch: Option<Instant>,
    /// The hardware counters, opened before the first counter batch.
    hw: Option<crate::measure::hw::HwCounters>,
    /// The clock gauge every timed batch ends with (made before the first).
    gauge: Gauge,
    /// The GPU-to-host correlation each timed batch's repetitions are placed on the host's
    /// clock with (the record's `batches`), and when it was taken (renewed after a second).
    clock_map: Option<(Instant, Option<crate::vk::timestamps::ClockMap>)>,
}

/// The runner's clock gauge (measure/clock.rs).
enum Gauge {
    /// Not made yet (or its device was replaced).
    Unmade,
    /// Made: every timed batch ends with it.
    Ready(Box<crate::measure::clock::ClockGauge>),
    /// Not on this device (run.json says why).
    Unavailable,
}

/// One variant of the case being run, through both phases.
struct Slot<'c> {
    v: &'c Variant,
    /// Gets rows (a filtered-out baseline runs for its outputs only).
    selected: bool,
    /// Who and what it is (the columns that do not depend on running it).
    identity: Identity,
    /// What its build settled (step 4).
    build: BuildFacts,
    /// What its check run proved (step 5).
    check_run: CheckRunFacts,
    /// Its output check's verdict.
    check: CheckOutcome,
    /// Its timed batches so far, on the host's clock (the record's `batches`).
    batches: Vec<TimedBatch>,
    /// Its counter batches' samples so far (the record's `counter_batches`).
    counter_batches: Vec<CounterBatch>,
    metrics: Vec<MetricRow>,
    cost: VariantCost,
    failure: Option<Failure>,
    built: Option<Built>,
    first_rep_ns: f64,
    /// One per measurement mode.
    tracks: Vec<Track>,
    written: bool,
    /// Progress-bar units counted for it so far (at most PROGRESS_UNITS, once written).
    credited: u64,
    /// More work did not raise its clock: its lower clock is its own, no batch is redone.
    own_clock: bool,
}

impl Slot<'_> {
    fn timed(&self) -> bool {
        self.selected && self.failure.is_none() && self.built.is_some()
    }
}

impl Drop for Runner<'_> {
    fn drop(&mut self) {
        self.evict.release(&self.ctx);
        if let Gauge::Ready(g) = std::mem::replace(&mut self.gauge, Gauge::Unmade) {
            (*g).release(&self.ctx);
        }
    }
}

impl<'a> Runner<'a> {
    /// The device the runner measures on.
    pub fn ctx(&self) -> &Context {
        &self.ctx
    }

    /// A runner on `ctx`, telling `sinks` what it measures and writing run.json's fields to
    /// `meta`; on a CPU device it sizes the cold-cache eviction to the
    /// host's last-level cache.
    #[allow(
        clippy::too_many_arguments,
        reason = "the run's parts, each owned elsewhere"
    )]
    pub fn new(
        ctx: Context,
        compiler: &'a mut Compiler,
        sinks: &'a mut Sinks,
        meta: &'a mut RunJson,
        opts: &'a RunOptions,
        progress: indicatif::ProgressBar,
    ) -> Self {
        // A CPU device's cache is its last-level cache, not a GPU's L2: evict that much.
        let cap = (ctx.info.device_type == "cpu").then(crate::measure::evict::cpu_cap);
        let evict = Evict::with_cap(cap.as_ref().map(|c| c.bytes));
        meta.cold_evict_cap = cap;
        Runner {
            ctx,
            compiler,
            sinks,
            rows: Vec::new(),
            meta,
            opts,
            progress,
            spare: Contents::new(),
            evict,
            last_batch: None,
            hw: None,
            gauge: Gauge::Unmade,
            clock_map: None,
        }
    }

    /// The run's hardware counters (opened on first use; `measure.counters` of the first
    /// case and `--counters` name the extra metrics).
    fn hw(&mut self, extra: &[String]) -> &mut crate::measure::hw::HwCounters {
        if self.hw.is_none() {
            let globs = if self.opts.counters.is_empty() {
                extra
            } else {
                &self.opts.counters
            };
            let h = crate::measure::hw::HwCounters::open(&self.ctx, &self.opts.hw, globs);
            self.meta.hw_counters = Some(h.status.clone());
            self.hw = Some(h);
        }
        self.hw.as_mut().expect("opened above")
    }

    /// What an earlier run measured of `v` in `mode`, where this run only counts it
    /// (`HwOptions::timed_before`: `p3lab peak`'s own-counter run); None where it times it.
    fn timed_before(
        &self,
        sc: &Scenario,
        case: &Case,
        v: &Variant,
        mode: Mode,
    ) -> Option<crate::measure::options::TimedBefore> {
        let before = &self.opts.hw.timed_before;
        if !self.opts.hw.enabled || before.is_empty() {
            return None;
        }
        let key = crate::results::RowKey {
            scenario: sc.name.clone(),
            variant: v.name.clone(),
            params: case.params_label.clone(),
            mode: mode.label().into(),
        };
        before.get(&key).copied()
    }

    /// The counter batches of the variants whose rounds in mode `mi` are done and that have
    /// none yet (issue 25), together: one Start/Stop per group of them.
    #[allow(
        clippy::too_many_arguments,
        reason = "the case's identity, its slots and the mode"
    )]
    fn count_case(
        &mut self,
        (run_id, host): (&str, &str),
        sc: &Scenario,
        case: &Case,
        slots: &mut [Slot],
        mi: usize,
        gpu: &CaseGpu,
        timeout_ms: u64,
        evict: Option<&crate::vk::submit::EvictWith>,
    ) -> anyhow::Result<()> {
        let todo: Vec<usize> = (0..slots.len())
            .filter(|&i| {
                let sl = &slots[i];
                sl.timed() && !sl.tracks[mi].active() && sl.tracks[mi].hw.is_none()
            })
            .collect();
        if todo.is_empty() {
            return Ok(());
        }
        let t = Instant::now();
        let started = events::now_ns();
        let dispatches: Vec<Vec<crate::vk::submit::Dispatch>> = todo
            .iter()
            .map(|&i| {
                slots[i]
                    .built
                    .as_ref()
                    .expect("timed slots are built")
                    .dispatches(gpu)
            })
            .collect();
        let ns_per_tick = self.meta.clock_gauge.as_ref().and_then(|g| g.ns_per_tick);
        let jobs: Vec<crate::measure::hw::CounterJob> = todo
            .iter()
            .zip(&dispatches)
            .map(|(&i, d)| {
                let mut medians = slots[i].tracks[mi].kept_medians();
                medians.sort_by(f64::total_cmp);
                // The clock of its timed batches, as results.csv's `clock_mhz` has it.
                let mut clocks: Vec<f64> = slots[i].tracks[mi]
                    .kept()
                    .iter()
                    .filter_map(|k| k.clock)
                    .collect();
                clocks.sort_by(f64::total_cmp);
                let clock_mhz = match (clocks.is_empty(), ns_per_tick) {
                    (false, Some(ns)) => Some(crate::stats::median(&clocks) / ns * 1e3),
                    _ => None,
                };
                // A variant an earlier run timed (no rounds here): that run's time and clock.
                let before = self.timed_before(sc, case, slots[i].v, case.modes[mi]);
                let (rep_ns, clock_mhz) = match (before, medians.is_empty()) {
                    (Some(t), true) => (t.median_ns, t.clock_mhz),
                    (_, true) => (slots[i].first_rep_ns, clock_mhz),
                    (_, false) => (crate::stats::median(&medians), clock_mhz),
                };
                crate::measure::hw::CounterJob {
                    dispatches: d.as_slice(),
                    rep_ns,
                    clock_mhz,
                    want: self.opts.hw.nv_own_for.map_or(&[], |f| f(&slots[i].v.name)),
                }
            })
            .collect();
        let ctx = &self.ctx;
        let heat = match (&self.gauge, ctx.info.device_type.as_str()) {
            (_, "cpu") => None,
            (Gauge::Ready(g), _) => Some(crate::measure::hw::Heat {
                gauge: g,
                reading: self.meta.clock_gauge.as_ref().and_then(|c| c.reference),
            }),
            _ => None,
        };
        let hw = self.hw.as_mut().expect("opened by the caller");
        let outcomes = hw.measure_many(ctx, &jobs, timeout_ms, evict, heat);
        let active = hw.active();
        self.meta.hw_counters = Some(hw.status.clone());
        self.last_batch = Some(Instant::now());
        // The group's wall time, shared evenly among its variants (run.json costs).
        let each = build::elapsed_ns(t) / todo.len() as u64;
        let mode = case.modes[mi].label();
        let mut told = Vec::new();
        for (&i, mut outcome) in todo.iter().zip(outcomes) {
            let slot = &mut slots[i];
            let id = Ident {
                run_id,
                host,
                sc,
                case,
                v: slot.v,
            };
            match &mut outcome {
                Ok(m) => {
                    slot.metrics.extend(hw_metric_rows(&id, mode, m));
                    // The samples as measured move to the record (nothing else reads them).
                    if let Some(series) = m.series.take() {
                        told.push((i, events::counter_batch(case.modes[mi], m.source, series)));
                    }
                }
                Err(why) if active => tracing::warn!(
                    "{} / {} [{}]: hardware counters: {why}",
                    sc.name,
                    slot.v.name,
                    case.params_label
                ),
                Err(_) => {}
            }
            slot.tracks[mi].hw = Some(outcome);
            slot.cost.counters_ns += each;
        }
        for (i, batch) in told {
            self.tell_counters((sc, case), &mut slots[i], batch)?;
        }
        self.tell_phase("counter batches", (sc, case), started)
    }

    /// Run every case of every scenario. Rows are written as variants finish. While one case
    /// runs on the GPU, a worker thread makes the next ones' inputs and CPU references.
    pub fn run_all(&mut self, scenarios: &[Scenario]) -> anyhow::Result<()> {
        let jobs: Vec<(&Scenario, &Case, CasePlan)> = scenarios
            .iter()
            .flat_map(|sc| sc.cases.iter().map(move |case| (sc, case)))
            .map(|(sc, case)| (sc, case, CasePlan::new(self.opts, sc, case)))
            .filter(|(_, _, plan)| !plan.is_empty())
            .collect();
        // Two cases ahead at most: the one waiting in the channel and the one being made.
        let (tx, rx) = std::sync::mpsc::sync_channel::<CaseInputs>(1);
        let cases: Vec<&Case> = jobs.iter().map(|j| j.1).collect();
        let limits = inputs::Limits::of(&self.ctx.info);
        std::thread::scope(|scope| {
            scope.spawn(move || {
                for case in cases {
                    if interrupted() || tx.send(inputs::make(case, limits)).is_err() {
                        break;
                    }
                }
            });
            for (sc, case, plan) in &jobs {
                if interrupted() {
                    break;
                }
                let wait = Instant::now();
                let made = rx
                    .recv()
                    .map_err(|_| anyhow::anyhow!("making the inputs of {} failed", sc.name))?;
                let wait_ns = build::elapsed_ns(wait);
                self.run_case(sc, case, plan, made, wait_ns)?;
            }
            drop(rx);
            anyhow::Ok(())
        })
    }

    fn run_case(
        &mut self,
        sc: &Scenario,
        case: &Case,
        plan: &CasePlan,
        inputs: CaseInputs,
        inputs_wait_ns: u64,
    ) -> anyhow::Result<()> {
        let case_t = Instant::now();
        let run_id = self.meta.run_id.clone();
        let host = self.meta.host.clone();
        let mut slots: Vec<Slot> = plan
            .order
            .iter()
            .zip(&plan.selected)
            .map(|(v, sel)| {
                let id = Ident {
                    run_id: &run_id,
                    host: &host,
                    sc,
                    case,
                    v,
                };
                Slot {
                    v,
                    selected: *sel,
                    identity: id.identity(&self.ctx.info),
                    build: BuildFacts::default(),
                    check_run: CheckRunFacts::default(),
                    check: CheckOutcome::default(),
                    batches: Vec::new(),
                    counter_batches: Vec::new(),
                    metrics: Vec::new(),
                    cost: VariantCost {
                        scenario: sc.name.clone(),
                        variant: v.name.clone(),
                        params: case.params_label.clone(),
                        ..Default::default()
                    },
                    failure: None,
                    built: None,
                    first_rep_ns: 0.0,
                    tracks: vec![Track::default(); case.modes.len()],
                    written: false,
                    credited: 0,
                    own_clock: false,
                }
            })
            .collect();
        let setup_t = Instant::now();
        let gpu = match (self.unsupported_scenario(sc), &inputs.error) {
            (Some(f), _) => Err(f),
            (None, Some(e)) => Err(Failure::error(e.clone())),
            (None, None) => self.setup(case, &inputs.bytes),
        };
        let setup_ns = build::elapsed_ns(setup_t);
        let case_start = events::now_ns();
        self.meta
            .setup_ns
            .push((sc.name.clone(), case.params_label.clone(), setup_ns));
        let mut timeline = CaseTimeline {
            scenario: sc.name.clone(),
            params: case.params_label.clone(),
            inputs_ms: inputs.made_ns as f64 / 1e6,
            inputs_wait_ms: inputs_wait_ns as f64 / 1e6,
            setup_ms: setup_ns as f64 / 1e6,
            ..Default::default()
        };
        let reference = inputs.reference;
        drop(inputs.bytes);
        let mut gpu = match gpu {
            Ok(g) => g,
            Err(f) => {
                for s in &mut slots {
                    s.failure = Some(f.clone());
                    self.write(sc, case, plan, s)?;
                }
                self.meta.cases.push(timeline);
                return Ok(());
            }
        };
        let ids = (run_id.as_str(), host.as_str());
        self.tell_phase("set-up", (sc, case), case_start - setup_ns as f64)?;
        let result = std::thread::scope(|scope| {
            let t = Instant::now();
            let start = events::now_ns();
            self.check_phase(scope, ids, sc, case, plan, &mut slots, &mut gpu, reference)?;
            timeline.check_phase_ms = t.elapsed().as_secs_f64() * 1e3;
            self.tell_phase("check phase", (sc, case), start)?;
            let t = Instant::now();
            for (mi, mode) in case.modes.iter().enumerate() {
                let start = events::now_ns();
                self.rounds(ids, sc, case, plan, &mut slots, &mut gpu, mi, *mode)?;
                let name = format!("rounds ({})", mode.label());
                self.tell_phase(&name, (sc, case), start)?;
            }
            timeline.rounds_ms = t.elapsed().as_secs_f64() * 1e3;
            anyhow::Ok(())
        });
        let idle = self.ctx.wait_idle();
        for s in &mut slots {
            if let Some(b) = s.built.take() {
                b.destroy(&self.ctx, &idle);
            }
        }
        setup::teardown_case(&self.ctx, gpu);
        timeline.total_ms = case_t.elapsed().as_secs_f64() * 1e3;
        self.meta.cases.push(timeline);
        result
    }

    /// A scenario-wide `requires` this device lacks: every row is `unsupported`.
    fn unsupported_scenario(&self, sc: &Scenario) -> Option<Failure> {
        let missing: Vec<String> = sc
            .requires
            .iter()
            .filter(|r| !self.ctx.meets(r))
            .map(|m| format!("`{m}`"))
            .collect();
        (!missing.is_empty()).then(|| {
            Failure::unsupported(format!(
                "the scenario requires {}, which this device lacks",
                missing.join(", ")
            ))
        })
    }

    /// The case's resources; a device that fails while they are uploaded is replaced once.
    fn setup(&mut self, case: &Case, inputs: &Contents) -> Result<CaseGpu, Failure> {
        // A CPU device evicts its last-level cache, not `cold_bytes`: said, never silent.
        let evicted = self.evict.bytes_for(case.cold_bytes);
        if case.modes.contains(&Mode::Cold) && evicted < case.cold_bytes / 16 * 16 {
            tracing::info!(
                "cold mode evicts {evicted} bytes (this CPU device's last-level cache; run.json cold_evict_cap), not the {} cold_bytes asks for",
                case.cold_bytes
            );
        }
        let records = prepare::group_clock(&self.ctx, self.opts, case).is_some();
        match setup::setup_case(&self.ctx, case, records, inputs) {
            Err(f) if f.fault.is_some() => {
                tracing::warn!("setting up the case: {}; creating a new device", f.reason);
                self.recover()
                    .map_err(|e| Failure::error(format!("{e:#}")))?;
                let records = prepare::group_clock(&self.ctx, self.opts, case).is_some();
                setup::setup_case(&self.ctx, case, records, inputs)
            }
            r => r,
        }
    }

    /// Move the progress bar to `units` of this variant's PROGRESS_UNITS (never back).
    fn credit(&self, slot: &mut Slot, units: u64) {
        let units = units.min(PROGRESS_UNITS);
        if slot.selected && units > slot.credited {
            self.progress.inc(units - slot.credited);
            slot.credited = units;
        }
    }
}

/// metrics.csv rows for a measured counter batch.
fn hw_metric_rows(id: &Ident, mode: &str, m: &crate::measure::hw::HwMeasured) -> Vec<MetricRow> {
    let mut out: Vec<MetricRow> = m
        .metrics
        .iter()
        .map(|(n, v, u)| id.metric(m.source, n, *v, u).with_mode(mode))
        .collect();
    for (n, v, u) in [
        ("samples", m.samples as f64, "samples"),
        ("lost_samples", m.lost as f64, "samples"),
        ("interval_ns", m.interval_ns as f64, "ns"),
        ("window_ns", m.window_ns, "ns"),
        ("repetitions", m.reps as f64, "repetitions"),
    ] {
        out.push(id.metric("hw_counters", n, v, u).with_mode(mode));
    }
    out.push(
        id.metric("hw_counters", &format!("window_{}", m.window), 1.0, "flag")
            .with_mode(mode),
    );
    out
}
