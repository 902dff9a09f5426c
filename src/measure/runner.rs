//! The runner drives steps 1-8 for every params case of a scenario, in two phases:
//!
//! - **Build and check** each variant (baseline first): pipelines, one untimed run, its
//!   outputs compared on a worker thread while the next variant is built and run.
//! - **Rounds**: the checked variants are warmed up together, then timed in rounds, one batch
//!   each per round in a shuffled order, until each one's median is known well enough.
//!
//! It owns the device so that a lost or hung one can be left behind and replaced mid-run; it
//! produces rows and the writer writes them as each variant finishes.
use crate::check::Contents;
use crate::measure::batch;
use crate::measure::build::{self, Built};
use crate::measure::failure::Failure;
use crate::measure::gpu_check::{self, Against, GpuCheck};
use crate::measure::options::{interrupted, RunOptions};
use crate::measure::plan::CasePlan;
use crate::measure::row::{self, Ident};
use crate::measure::schedule::{self, Track};
use crate::measure::setup::{self, CaseGpu, Evict};
use crate::measure::verify::{self, Expected, Judgement};
use crate::measure::{counters, prepare};
use crate::output::run_json::{RoundsRecord, RunJson, VariantCost};
use crate::output::{MetricRow, ResultRow, RowStatus, Writers};
use crate::scenario::{Case, Check, Mode, Scenario, Variant};
use crate::shader::Compiler;
use crate::vk::Context;
use std::sync::Arc;
use std::thread::{Scope, ScopedJoinHandle};
use std::time::Instant;

pub struct Runner<'a> {
    /// Owned so that a lost device can be replaced by a new one mid-run.
    ctx: Context,
    compiler: &'a mut Compiler,
    writers: &'a mut Writers,
    meta: &'a mut RunJson,
    opts: &'a RunOptions,
    progress: indicatif::ProgressBar,
    /// Read-back buffers of checked variants, recycled for the next variant's outputs.
    spare: Contents,
    evict: Evict,
    /// When the GPU last finished a batch: the gap since then decides the warm-up.
    last_batch: Option<Instant>,
}

/// One variant of the case being run, through both phases.
struct Slot<'c> {
    v: &'c Variant,
    /// Gets rows (a filtered-out baseline runs for its outputs only).
    selected: bool,
    /// The row before timing: identity, counts, driver statistics, check.
    row: ResultRow,
    metrics: Vec<MetricRow>,
    cost: VariantCost,
    failure: Option<Failure>,
    built: Option<Built>,
    first_rep_ns: f64,
    /// One per measurement mode.
    tracks: Vec<Track>,
    written: bool,
}

impl Slot<'_> {
    fn timed(&self) -> bool {
        self.selected && self.failure.is_none() && self.built.is_some()
    }
}

impl Drop for Runner<'_> {
    fn drop(&mut self) {
        self.evict.release(&self.ctx);
    }
}

impl<'a> Runner<'a> {
    pub fn new(
        ctx: Context,
        compiler: &'a mut Compiler,
        writers: &'a mut Writers,
        meta: &'a mut RunJson,
        opts: &'a RunOptions,
        progress: indicatif::ProgressBar,
    ) -> Self {
        Runner {
            ctx,
            compiler,
            writers,
            meta,
            opts,
            progress,
            spare: Contents::new(),
            evict: Evict::default(),
            last_batch: None,
        }
    }

    /// Run every case of a scenario. Rows are written as variants finish.
    pub fn run_scenario(&mut self, sc: &Scenario) -> anyhow::Result<()> {
        for case in &sc.cases {
            if interrupted() {
                break;
            }
            let plan = CasePlan::new(self.opts, sc, case);
            if plan.is_empty() {
                continue;
            }
            self.run_case(sc, case, &plan)?;
        }
        Ok(())
    }

    fn run_case(&mut self, sc: &Scenario, case: &Case, plan: &CasePlan) -> anyhow::Result<()> {
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
                    row: id.base_row(&self.ctx.info),
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
                }
            })
            .collect();
        let setup_t = Instant::now();
        let gpu = match self.unsupported_scenario(sc) {
            Some(f) => Err(f),
            None => self.setup(case),
        };
        self.meta.setup_ns.push((
            sc.name.clone(),
            case.params_label.clone(),
            build::elapsed_ns(setup_t),
        ));
        let mut gpu = match gpu {
            Ok(g) => g,
            Err(f) => {
                for s in &mut slots {
                    s.failure = Some(f.clone());
                    self.write(sc, case, plan, s)?;
                }
                return Ok(());
            }
        };
        let ids = (run_id.as_str(), host.as_str());
        let result = std::thread::scope(|scope| {
            self.check_phase(scope, ids, sc, case, plan, &mut slots, &mut gpu)?;
            for (mi, mode) in case.modes.iter().enumerate() {
                self.rounds(ids, sc, case, plan, &mut slots, &mut gpu, mi, *mode)?;
            }
            anyhow::Ok(())
        });
        let idle = self.ctx.wait_idle();
        for s in &mut slots {
            if let Some(b) = s.built.take() {
                b.destroy(&self.ctx, &idle);
            }
        }
        setup::teardown_case(&self.ctx, gpu);
        result
    }

    /// A scenario-wide `requires` this device lacks: every row is `unsupported`.
    fn unsupported_scenario(&self, sc: &Scenario) -> Option<Failure> {
        let missing: Vec<String> = sc
            .requires
            .iter()
            .filter(|r| {
                !self.ctx.feature(r) && !self.ctx.enabled.extensions.iter().any(|e| e == *r)
            })
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
    fn setup(&mut self, case: &Case) -> Result<CaseGpu, Failure> {
        let records = prepare::group_clock(&self.ctx, self.opts, case).is_some();
        match setup::setup_case(&self.ctx, case, records) {
            Err(f) if f.fault.is_some() => {
                tracing::warn!("setting up the case: {}; creating a new device", f.reason);
                self.recover()
                    .map_err(|e| Failure::error(format!("{e:#}")))?;
                let records = prepare::group_clock(&self.ctx, self.opts, case).is_some();
                setup::setup_case(&self.ctx, case, records)
            }
            r => r,
        }
    }

    /// Phase 1: build each variant, run it once, check its outputs.
    #[allow(clippy::too_many_arguments)]
    fn check_phase<'s, 'c: 's>(
        &mut self,
        scope: &'s Scope<'s, '_>,
        (run_id, host): (&str, &str),
        sc: &Scenario,
        case: &'c Case,
        plan: &CasePlan,
        slots: &mut [Slot<'c>],
        gpu: &mut CaseGpu,
    ) -> anyhow::Result<()> {
        // The CPU reference, on a worker thread while the variants are built.
        let mut reference = case
            .check
            .as_ref()
            .and_then(|c| c.reference.clone())
            .map(|name| {
                scope.spawn(move || {
                    let inputs: Contents = case
                        .resources
                        .iter()
                        .map(|r| (r.name.clone(), crate::data::init_bytes(r)))
                        .collect();
                    crate::refs::run_reference(&name, case, &inputs)
                        .map_err(|e| format!("reference `{name}`: {e}"))
                })
            });
        // Large outputs are compared on the GPU (src/measure/gpu_check.rs); if that cannot be
        // set up, on the host.
        let mut on_gpu = case
            .check
            .as_ref()
            .filter(|chk| gpu_check::wanted(case, chk))
            .and_then(|chk| {
                GpuCheck::new(&self.ctx, self.compiler, case, chk)
                    .map_err(|e| tracing::warn!("checking on the host: {e:#}"))
                    .ok()
            });
        let mut reference_on_gpu = false;
        let mut expected: Option<Arc<Result<Contents, String>>> = None;
        let mut baseline_out: Option<Arc<Contents>> = None;
        let mut baseline_failed: Option<String> = None;
        type Pending<'s> = (usize, ScopedJoinHandle<'s, (Judgement, Contents)>);
        let mut pending: Option<Pending<'s>> = None;
        for i in 0..slots.len() {
            if interrupted() {
                break;
            }
            let v = slots[i].v;
            self.progress
                .set_message(format!("{} / {} (check)", sc.name, v.name));
            let id = Ident {
                run_id,
                host,
                sc,
                case,
                v,
            };
            let outputs = self.build_and_check_run(&id, gpu, &mut slots[i], on_gpu.is_none());
            if slots[i].failure.is_none() && case.check.is_some() && expected.is_none() {
                if let Some(h) = reference.take() {
                    let r = h
                        .join()
                        .unwrap_or_else(|_| Err("the CPU reference panicked".into()));
                    expected = Some(Arc::new(r));
                }
            }
            if let (Some(gc), Some(chk), None) =
                (on_gpu.as_mut(), case.check.as_ref(), &slots[i].failure)
            {
                let is_baseline = plan.is_baseline(v);
                let judged = self.judge_on_gpu(
                    gc,
                    (case, chk, gpu),
                    is_baseline,
                    expected.as_deref(),
                    &mut reference_on_gpu,
                    baseline_failed.as_deref(),
                );
                match judged {
                    Ok(j) => {
                        self.apply_judgement(&mut slots[i], j);
                        if let Some(f) = &slots[i].failure {
                            if is_baseline {
                                baseline_failed = Some(format!("{}: {}", f.status, f.reason));
                            }
                        } else if is_baseline {
                            if let Err(e) = gc.set_baseline(&self.ctx, &gpu.resources) {
                                slots[i].failure = Some(Failure::from_device(
                                    e.context("keeping the baseline's outputs on the GPU"),
                                ));
                            }
                        }
                    }
                    Err(f) => slots[i].failure = Some(f),
                }
            }
            if slots[i].failure.as_ref().is_some_and(|f| f.fault.is_some()) {
                // The GPU check's copies went with the old device: later variants are checked
                // against the reference only (or skipped), as after a failed baseline.
                if let Some(gc) = on_gpu.take() {
                    gc.abandon();
                }
                self.replace_device(sc, case, gpu, slots, i)?;
            }
            if let (Some(outputs), Some(chk)) = (outputs, case.check.as_ref()) {
                if plan.is_baseline(v) {
                    let j = verify::judge(
                        chk,
                        &case.resources,
                        true,
                        &Expected {
                            reference: expected.as_deref(),
                            baseline: None,
                            baseline_failed: None,
                        },
                        &outputs,
                    );
                    self.apply_judgement(&mut slots[i], j);
                    match &slots[i].failure {
                        None => baseline_out = Some(Arc::new(outputs)),
                        Some(f) => {
                            baseline_failed = Some(format!("{}: {}", f.status, f.reason));
                            self.spare.extend(outputs);
                        }
                    }
                } else {
                    // One check in flight: the previous one finishes before the next starts,
                    // so at most two variants' outputs are in memory.
                    if let Some((j, h)) = pending.take() {
                        self.finish_check(sc, case, plan, &mut slots[j], h)?;
                    }
                    let chk = chk.clone();
                    let (exp, base, failed) = (
                        expected.clone(),
                        baseline_out.clone(),
                        baseline_failed.clone(),
                    );
                    let resources = &case.resources;
                    pending = Some((
                        i,
                        scope.spawn(move || {
                            let j = verify::judge(
                                &chk,
                                resources,
                                false,
                                &Expected {
                                    reference: exp.as_deref(),
                                    baseline: base.as_deref(),
                                    baseline_failed: failed.as_deref(),
                                },
                                &outputs,
                            );
                            (j, outputs)
                        }),
                    ));
                }
            } else if plan.is_baseline(v) {
                if let Some(f) = &slots[i].failure {
                    baseline_failed = Some(format!("{}: {}", f.status, f.reason));
                }
            }
            if slots[i].failure.is_some() {
                self.write(sc, case, plan, &mut slots[i])?;
            }
        }
        if let Some((j, h)) = pending.take() {
            self.finish_check(sc, case, plan, &mut slots[j], h)?;
        }
        if let Some(b) = baseline_out.and_then(|b| Arc::try_unwrap(b).ok()) {
            self.spare.extend(b);
        }
        if let Some(gc) = on_gpu.take() {
            let idle = self.ctx.wait_idle();
            gc.destroy(&self.ctx, &idle);
        }
        // A baseline that only ran for its outputs is done.
        let idle = self.ctx.wait_idle();
        for s in slots.iter_mut().filter(|s| !s.selected) {
            if let Some(b) = s.built.take() {
                b.destroy(&self.ctx, &idle);
            }
        }
        Ok(())
    }

    /// Build one variant and run it once; its read-back outputs when it has a check.
    fn build_and_check_run(
        &mut self,
        id: &Ident,
        gpu: &CaseGpu,
        slot: &mut Slot,
        read_outputs: bool,
    ) -> Option<Contents> {
        let t0 = Instant::now();
        let dir = self.writers.dir().to_path_buf();
        let ir_dir = (self.opts.dump_ir && slot.selected).then_some(dir.as_path());
        let built = build::build(
            &self.ctx,
            self.compiler,
            self.opts,
            id,
            gpu,
            &mut slot.row,
            &mut slot.metrics,
            &mut slot.cost,
            ir_dir,
        );
        let built = match built {
            Ok(b) => b,
            Err(f) => {
                slot.failure = Some(f);
                return None;
            }
        };
        let picture_dir = slot.selected.then_some(dir.as_path());
        let verified = verify::check_run(
            &self.ctx,
            self.opts,
            id,
            gpu,
            &built,
            &mut self.spare,
            &mut slot.row,
            &mut slot.metrics,
            &mut slot.cost,
            picture_dir,
            read_outputs,
        );
        let outputs = match verified {
            Ok(v) => {
                slot.first_rep_ns = v.first_rep_ns;
                let globs = if self.opts.counters.is_empty() {
                    &id.case.counters
                } else {
                    &self.opts.counters
                };
                counters::capture(
                    &self.ctx,
                    globs,
                    id,
                    &built.dispatches(gpu),
                    &mut self.meta.counters,
                    &mut slot.metrics,
                    &mut slot.cost,
                );
                slot.built = Some(built);
                v.outputs
            }
            Err(f) => {
                if f.fault.is_some() {
                    built.abandon();
                } else {
                    let idle = self.ctx.wait_idle();
                    built.destroy(&self.ctx, &idle);
                }
                slot.failure = Some(f);
                None
            }
        };
        slot.cost.total_ns += build::elapsed_ns(t0);
        outputs
    }

    /// The check on the GPU: the outputs the variant left in the case's resources against
    /// the reference (uploaded once) and the baseline's copy.
    fn judge_on_gpu(
        &mut self,
        gc: &mut GpuCheck,
        (case, chk, gpu): (&Case, &Check, &CaseGpu),
        is_baseline: bool,
        expected: Option<&Result<Contents, String>>,
        reference_on_gpu: &mut bool,
        baseline_failed: Option<&str>,
    ) -> Result<Judgement, Failure> {
        let t = Instant::now();
        let reference = match expected {
            None => None,
            Some(Err(e)) => Some(Err(e.clone())),
            Some(Ok(exp)) => {
                if !*reference_on_gpu {
                    gc.set_reference(&self.ctx, exp)?;
                    *reference_on_gpu = true;
                }
                Some(Ok(gc.compare(
                    &self.ctx,
                    chk,
                    &gpu.resources,
                    Against::Reference,
                    case.timeout_ms,
                )?))
            }
        };
        let baseline = if !is_baseline && gc.has(Against::Baseline) {
            Some(gc.compare(
                &self.ctx,
                chk,
                &gpu.resources,
                Against::Baseline,
                case.timeout_ms,
            )?)
        } else {
            None
        };
        let j = verify::judge_by(chk, is_baseline, reference, baseline, baseline_failed);
        tracing::debug!("GPU check: {:.2} ms", t.elapsed().as_secs_f64() * 1e3);
        Ok(j)
    }

    fn apply_judgement(&mut self, slot: &mut Slot, j: Judgement) {
        slot.row.check = j.check;
        slot.row.check_detail = j.detail;
        if let Some(f) = j.failure {
            if let Some(b) = slot.built.take() {
                let idle = self.ctx.wait_idle();
                b.destroy(&self.ctx, &idle);
            }
            slot.failure = Some(f);
        }
    }

    fn finish_check(
        &mut self,
        sc: &Scenario,
        case: &Case,
        plan: &CasePlan,
        slot: &mut Slot,
        h: ScopedJoinHandle<'_, (Judgement, Contents)>,
    ) -> anyhow::Result<()> {
        let t = Instant::now();
        let (j, outputs) = match h.join() {
            Ok(r) => r,
            Err(_) => (
                Judgement {
                    check: "none".into(),
                    detail: String::new(),
                    failure: Some(Failure::error("the output check panicked")),
                },
                Contents::new(),
            ),
        };
        slot.cost.check_ns += build::elapsed_ns(t);
        self.spare.extend(outputs);
        self.apply_judgement(slot, j);
        if slot.failure.is_some() {
            self.write(sc, case, plan, slot)?;
        }
        Ok(())
    }

    /// Phase 2 for one mode: warm up, then rounds until every variant has stopped.
    #[allow(clippy::too_many_arguments)]
    fn rounds(
        &mut self,
        (run_id, host): (&str, &str),
        sc: &Scenario,
        case: &Case,
        plan: &CasePlan,
        slots: &mut [Slot],
        gpu: &mut CaseGpu,
        mi: usize,
        mode: Mode,
    ) -> anyhow::Result<()> {
        let s = plan.settings;
        let last_mode = mi + 1 == case.modes.len();
        let case_key = format!("{}/{}", sc.name, case.params_label);
        let mut record = RoundsRecord {
            scenario: sc.name.clone(),
            params: case.params_label.clone(),
            mode: mode.label().into(),
            seed: s.seed,
            ..Default::default()
        };
        for sl in slots.iter_mut().filter(|sl| sl.timed()) {
            sl.tracks[mi].reps_per_batch = batch::reps_per_batch(s.reps, sl.first_rep_ns);
        }
        let mut round = 0u32;
        let mut need_warmup = true;
        loop {
            if interrupted() {
                break;
            }
            let active: Vec<usize> = (0..slots.len())
                .filter(|&i| slots[i].timed() && slots[i].tracks[mi].active())
                .collect();
            if active.is_empty() {
                break;
            }
            let evict = match mode {
                Mode::Warm => None,
                Mode::Cold => match self.evict.get(&self.ctx, case.cold_bytes) {
                    Ok(e) => Some(e),
                    Err(e) => {
                        // Without the eviction buffer no variant can be timed cold.
                        let f = Failure::from_device(e.context("the L2 eviction buffer"));
                        for &i in &active {
                            slots[i].failure = Some(f.clone());
                            self.write(sc, case, plan, &mut slots[i])?;
                        }
                        if f.fault.is_some() {
                            self.replace_device(sc, case, gpu, slots, usize::MAX)?;
                        }
                        break;
                    }
                },
            };
            if need_warmup {
                need_warmup = false;
                let idle = self.last_batch.map(|t| t.elapsed());
                let warm = {
                    let list: Vec<_> = active
                        .iter()
                        .map(|&i| {
                            let b = slots[i].built.as_ref().expect("timed slots are built");
                            (b.dispatches(gpu), slots[i].first_rep_ns)
                        })
                        .collect();
                    batch::warm_up(&self.ctx, &list, evict, s.timeout_ms, idle, s.warmup_ms)
                };
                match warm {
                    Ok(w) => {
                        if w.cycles > 0 {
                            self.last_batch = Some(Instant::now());
                        }
                        record.warmups.push(w);
                    }
                    Err((k, e)) => {
                        let i = active[k];
                        self.fail_on_device(sc, case, plan, slots, gpu, i, e)?;
                        need_warmup = true;
                        continue;
                    }
                }
            }
            let order = schedule::round_order(s.seed, &case_key, mode.label(), round, active.len());
            record.order.push(
                order
                    .iter()
                    .map(|&k| slots[active[k]].v.name.clone())
                    .collect(),
            );
            let mut ran = Vec::new();
            for (pos, &k) in order.iter().enumerate() {
                let i = active[k];
                self.progress.set_message(format!(
                    "{} / {} (round {})",
                    sc.name,
                    slots[i].v.name,
                    round + 1
                ));
                let result = {
                    let b = slots[i].built.as_ref().expect("timed slots are built");
                    let reps = slots[i].tracks[mi].reps_per_batch;
                    batch::run_batch(
                        &self.ctx,
                        &b.dispatches(gpu),
                        s.untimed,
                        reps,
                        s.timeout_ms,
                        evict,
                    )
                };
                self.last_batch = Some(Instant::now());
                match result {
                    Ok(b) => {
                        let sl = &mut slots[i];
                        sl.cost.timed_submit_ns += b.wall_ns as u64;
                        sl.cost.gpu_timed_ns += b.rep_ns.iter().sum::<f64>();
                        sl.tracks[mi].push(round, pos as u32, b.rep_ns, b.pass_ns, b.wall_ns);
                        ran.push(i);
                    }
                    Err(e) => {
                        self.fail_on_device(sc, case, plan, slots, gpu, i, e)?;
                        need_warmup = true;
                        break;
                    }
                }
                if interrupted() {
                    break;
                }
            }
            round += 1;
            if interrupted() {
                break;
            }
            for i in ran {
                if slots[i].failure.is_some() {
                    continue;
                }
                slots[i].tracks[mi].decide(&s);
                if !slots[i].tracks[mi].active() {
                    let id = Ident {
                        run_id,
                        host,
                        sc,
                        case,
                        v: slots[i].v,
                    };
                    let t = &slots[i].tracks[mi];
                    let figures = [
                        ("rounds_run", t.rounds.len() as f64, "rounds"),
                        ("rounds_discarded", t.discarded as f64, "rounds"),
                        ("batches_wall_ms", t.spent_ns / 1e6, "ms"),
                    ];
                    for (name, value, unit) in figures {
                        let m = id
                            .metric("runner", name, value, unit)
                            .with_mode(mode.label());
                        slots[i].metrics.push(m);
                    }
                    if last_mode {
                        self.write(sc, case, plan, &mut slots[i])?;
                    }
                }
            }
        }
        self.meta.rounds.push(record);
        Ok(())
    }

    /// A batch failed: the variant's row is an error now; a failed device is replaced and the
    /// other variants are built again on the new one.
    #[allow(clippy::too_many_arguments)]
    fn fail_on_device(
        &mut self,
        sc: &Scenario,
        case: &Case,
        plan: &CasePlan,
        slots: &mut [Slot],
        gpu: &mut CaseGpu,
        i: usize,
        e: anyhow::Error,
    ) -> anyhow::Result<()> {
        let f = Failure::from_device(e);
        let fault = f.fault.is_some();
        slots[i].failure = Some(f);
        if fault {
            if let Some(b) = slots[i].built.take() {
                b.abandon();
            }
            self.replace_device(sc, case, gpu, slots, i)?;
        } else if let Some(b) = slots[i].built.take() {
            let idle = self.ctx.wait_idle();
            b.destroy(&self.ctx, &idle);
        }
        self.write(sc, case, plan, &mut slots[i])
    }

    /// Leave a lost or hung device behind with everything on it, make a new one, set the case
    /// up again and rebuild the variants still to be timed. `failed`: the slot that hit the
    /// fault (its reason gets VK_EXT_device_fault's description).
    fn replace_device(
        &mut self,
        sc: &Scenario,
        case: &Case,
        gpu: &mut CaseGpu,
        slots: &mut [Slot],
        failed: usize,
    ) -> anyhow::Result<()> {
        if let Some(f) = slots.get_mut(failed).and_then(|s| s.failure.as_mut()) {
            if let Some(desc) = self.ctx.fault_description() {
                f.reason = format!("{}; VK_EXT_device_fault: {desc}", f.reason);
            }
            tracing::warn!(
                "the device failed ({}); creating a new device for the remaining variants",
                f.reason
            );
        }
        for s in slots.iter_mut() {
            if let Some(b) = s.built.take() {
                b.abandon();
            }
        }
        self.meta.device_recreated += 1;
        // Without a device nothing else can run: the rows so far stay, the run stops.
        self.recover()
            .map_err(|e| e.context("recreating the device after a failure"))?;
        let records = prepare::group_clock(&self.ctx, self.opts, case).is_some();
        let fresh = setup::setup_case(&self.ctx, case, records)
            .map_err(|f| anyhow::anyhow!("setting the case up on the new device: {}", f.reason))?;
        // The old case objects may still be in use by the hung submission: leaked on purpose.
        std::mem::forget(std::mem::replace(gpu, fresh));
        let (run_id, host) = (self.meta.run_id.clone(), self.meta.host.clone());
        for s in slots.iter_mut() {
            if s.failure.is_some() || s.written || !s.selected {
                continue;
            }
            // Built before (its check passed): pipelines again, statistics not recorded twice.
            if s.first_rep_ns > 0.0 {
                let id = Ident {
                    run_id: &run_id,
                    host: &host,
                    sc,
                    case,
                    v: s.v,
                };
                let mut row = s.row.clone();
                match build::build(
                    &self.ctx,
                    self.compiler,
                    self.opts,
                    &id,
                    gpu,
                    &mut row,
                    &mut Vec::new(),
                    &mut VariantCost::default(),
                    None,
                ) {
                    Ok(b) => s.built = Some(b),
                    Err(f) => s.failure = Some(f),
                }
            }
        }
        Ok(())
    }

    /// A new logical device on the same physical device (after a hang or device loss).
    fn recover(&mut self) -> anyhow::Result<()> {
        let index = self.ctx.info.index;
        let inst = crate::vk::context::Instance::new(self.opts.validate)?;
        let (pd, info) = inst
            .devices()?
            .into_iter()
            .nth(index)
            .ok_or_else(|| anyhow::anyhow!("device {index} is gone"))?;
        let fresh = Context::new(inst, pd, info)?;
        let old = std::mem::replace(&mut self.ctx, fresh);
        // Dropping the old context waits for its queue, which may never finish: leak it.
        std::mem::forget(old);
        self.evict.abandon();
        self.spare.clear();
        self.last_batch = None;
        Ok(())
    }

    /// Write a variant's rows (one per mode), samples and metrics, once.
    fn write(
        &mut self,
        sc: &Scenario,
        case: &Case,
        plan: &CasePlan,
        slot: &mut Slot,
    ) -> anyhow::Result<()> {
        if slot.written {
            return Ok(());
        }
        slot.written = true;
        if !slot.selected {
            return Ok(());
        }
        let mut samples = Vec::new();
        let rows: Vec<ResultRow> = match &slot.failure {
            Some(f) => case
                .modes
                .iter()
                .map(|m| {
                    let mut r = slot.row.clone();
                    r.mode = m.label().into();
                    r.status = f.status;
                    r.reason = f.reason.clone();
                    r
                })
                .collect(),
            None => {
                let id = Ident {
                    run_id: &self.meta.run_id,
                    host: &self.meta.host,
                    sc,
                    case,
                    v: slot.v,
                };
                case.modes
                    .iter()
                    .zip(&slot.tracks)
                    .map(|(m, t)| {
                        samples.extend(row::sample_rows(&id, m.label(), t));
                        let mut r = row::timed_row(
                            &slot.row,
                            m.label(),
                            t,
                            &plan.settings,
                            self.opts.peaks.as_ref(),
                        );
                        // A note from the check run (subgroup size) stays beside a trend note.
                        if !slot.row.reason.is_empty() && r.reason != slot.row.reason {
                            r.reason = format!("{}; {}", slot.row.reason, r.reason);
                        }
                        r
                    })
                    .collect()
            }
        };
        for r in &rows {
            *self.meta.rows.entry(r.status.as_str().into()).or_default() += 1;
        }
        self.writers.write_variant(&rows, &samples, &slot.metrics)?;
        let r = &rows[0];
        match r.status {
            RowStatus::Ok => tracing::info!(
                "{} / {} [{}]: median {:.1} us ({} rounds, {})",
                r.scenario,
                r.variant,
                r.params,
                r.median_ns.unwrap_or(0.0) / 1e3,
                r.rounds.unwrap_or(0),
                r.stop_reason
            ),
            s => tracing::warn!(
                "{} / {} [{}]: {s}: {}",
                r.scenario,
                r.variant,
                r.params,
                r.reason
            ),
        }
        if slot.cost.total_ns > 0 || slot.cost.timed_submit_ns > 0 {
            self.meta.costs.push(std::mem::take(&mut slot.cost));
        }
        self.progress.inc(1);
        Ok(())
    }
}
