//! Phase 1 of a case: build each variant, run it once, and check its outputs (on a worker
//! thread, or on the GPU for large outputs) while the next one is built.
use super::*;

impl Runner<'_> {
    /// Phase 1: build each variant, run it once, check its outputs.
    #[allow(
        clippy::too_many_arguments,
        reason = "a runner phase: one call site, the case's slots, plan and state passed through"
    )]
    pub(super) fn check_phase<'s, 'c: 's>(
        &mut self,
        scope: &'s Scope<'s, '_>,
        (run_id, host): (&str, &str),
        sc: &Scenario,
        case: &'c Case,
        plan: &CasePlan,
        slots: &mut [Slot<'c>],
        gpu: &mut CaseGpu,
        reference: Option<Result<Contents, String>>,
    ) -> anyhow::Result<()> {
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
        // The CPU reference's answer, made while the previous case ran.
        let expected: Option<Arc<Result<Contents, String>>> = reference.map(Arc::new);
        let mut baseline_out: Option<Arc<Contents>> = None;
        let mut baseline_failed: Option<String> = None;
        type Pending<'s> = (usize, ScopedJoinHandle<'s, (Judgement, Contents)>);
        let mut pending: Option<Pending<'s>> = None;
        // Every variant's build begins here (compiled from the cache, reflected), in order;
        // worker threads make their pipelines while the variants before them are checked
        // (issue 42: on an H200 making pipelines one variant after another took 11 s of the
        // check phase's 22 s).
        let mut begun: Vec<Option<(BuildFacts, Result<(), Failure>)>> = Vec::new();
        let mut jobs = Vec::new();
        for (i, slot) in slots.iter_mut().enumerate() {
            if interrupted() {
                break;
            }
            let id = Ident {
                run_id,
                host,
                sc,
                case,
                v: slot.v,
            };
            let (facts, job) = build::begin(
                &self.ctx,
                self.compiler,
                self.opts,
                &id,
                gpu,
                &mut slot.cost,
            );
            begun.push(Some((facts, job.map(|j| jobs.push((i, j))))));
        }
        let mut made = Pipelines::start(scope, self.ctx.pipeline_maker(), jobs);
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
            let pre = begun
                .get_mut(i)
                .and_then(Option::take)
                .map(|(facts, job)| (facts, job.map(|()| made.take(i))));
            let outputs = self.build_and_check_run(&id, gpu, &mut slots[i], on_gpu.is_none(), pre);
            // Its check's share of the bar: the ETA counts the check phase.
            self.credit(&mut slots[i], progress_units(true, 0.0));
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
            // Hardware counters replay the dispatches: only after the outputs were read back or
            // checked on the GPU, so an in-place kernel's replays cannot spoil its check.
            let Slot {
                failure,
                built,
                metrics,
                cost,
                ..
            } = &mut slots[i];
            // On NVIDIA (or with --cupti) the globs name CUPTI metrics: the counter batch
            // after the rounds captures them (src/measure/hw/).
            let cupti = self.ctx.info.vendor_id == 0x10de || self.opts.hw.cupti.is_some();
            if let (None, Some(b), false) = (&*failure, &*built, cupti) {
                let globs = if self.opts.counters.is_empty() {
                    &case.counters
                } else {
                    &self.opts.counters
                };
                counters::capture(
                    &self.ctx,
                    globs,
                    &id,
                    &b.dispatches(gpu),
                    &mut self.meta.counters,
                    metrics,
                    cost,
                );
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
        // Pipelines made for variants the phase did not reach (an interrupt).
        made.stop(&self.ctx);
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

    /// Build one variant and run it once; its read-back outputs when it has a check. `pre`:
    /// its build's first step as the check phase began it, with its pipelines where a worker
    /// made them (None: built here).
    pub(super) fn build_and_check_run(
        &mut self,
        id: &Ident,
        gpu: &CaseGpu,
        slot: &mut Slot,
        read_outputs: bool,
        pre: Option<(BuildFacts, Result<Option<build::Made>, Failure>)>,
    ) -> Option<Contents> {
        let t0 = Instant::now();
        // The files the build and the check run make for the run folder, told to the sinks
        // as soon as each step ends (a crash in the check run keeps the build's).
        let mut dumps = Vec::new();
        let ir = (self.opts.dump_ir && slot.selected).then_some(&mut dumps);
        let device = self.ctx.device.handle();
        let (facts, built) = match pre {
            Some((facts, Err(f))) => (facts, Err(f)),
            Some((mut facts, Ok(Some(made)))) if made.device == device => {
                let built = build::finish(
                    &self.ctx,
                    self.opts,
                    id,
                    gpu,
                    made,
                    &mut facts,
                    &mut slot.metrics,
                    &mut slot.cost,
                    ir,
                );
                (facts, built)
            }
            // Made on a device that has been replaced since (or not made at all): built here.
            other => {
                if let Some((_, Ok(Some(made)))) = other {
                    made.abandon();
                }
                build::build(
                    &self.ctx,
                    self.compiler,
                    self.opts,
                    id,
                    gpu,
                    &mut slot.metrics,
                    &mut slot.cost,
                    ir,
                )
            }
        };
        self.tell_dumps(&mut dumps);
        slot.build = facts;
        let built = match built {
            Ok(b) => b,
            Err(f) => {
                slot.failure = Some(f);
                return None;
            }
        };
        let pictures = slot.selected.then_some(&mut dumps);
        let (facts, verified) = verify::check_run(
            &self.ctx,
            self.opts,
            id,
            gpu,
            &built,
            &mut self.spare,
            &mut slot.metrics,
            &mut slot.cost,
            pictures,
            read_outputs,
        );
        self.tell_dumps(&mut dumps);
        slot.check_run = facts;
        let outputs = match verified {
            Ok(v) => {
                slot.first_rep_ns = v.first_rep_ns;
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
    pub(super) fn judge_on_gpu(
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

    pub(super) fn apply_judgement(&mut self, slot: &mut Slot, j: Judgement) {
        slot.check = CheckOutcome {
            check: j.check,
            detail: j.detail,
        };
        if let Some(f) = j.failure {
            if let Some(b) = slot.built.take() {
                let idle = self.ctx.wait_idle();
                b.destroy(&self.ctx, &idle);
            }
            slot.failure = Some(f);
        }
    }

    pub(super) fn finish_check(
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
                    check: crate::results::Check::None,
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
}

/// The case's variants' pipelines, made on worker threads in the case's order
/// ([`build::PipelineJob::make`]) while the runner checks the variants before them. Making
/// pipelines needs no host synchronization (vk/pipeline: `PipelineMaker`), and the check
/// phase times nothing: its check runs' times only size the first batches.
pub(super) struct Pipelines {
    rx: std::sync::mpsc::Receiver<(usize, build::Made)>,
    queue: Arc<std::sync::Mutex<std::collections::VecDeque<(usize, build::PipelineJob)>>>,
    ready: std::collections::BTreeMap<usize, build::Made>,
    /// Slots queued whose pipelines have not been taken.
    pending: std::collections::BTreeSet<usize>,
}

/// Worker threads that make pipelines: the host's cores but one (for the runner), at most 8.
fn pipeline_workers() -> usize {
    std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .saturating_sub(1)
        .clamp(1, 8)
}

impl Pipelines {
    /// Start making `jobs` (slot index, job) on worker threads of `scope`.
    pub(super) fn start<'s>(
        scope: &'s Scope<'s, '_>,
        maker: crate::vk::pipeline::PipelineMaker,
        jobs: Vec<(usize, build::PipelineJob)>,
    ) -> Pipelines {
        let (tx, rx) = std::sync::mpsc::channel();
        let pending = jobs.iter().map(|(i, _)| *i).collect();
        let n = pipeline_workers().min(jobs.len());
        let queue: Arc<std::sync::Mutex<std::collections::VecDeque<_>>> =
            Arc::new(std::sync::Mutex::new(jobs.into_iter().collect()));
        for _ in 0..n {
            let (tx, queue, maker) = (tx.clone(), Arc::clone(&queue), maker.clone());
            scope.spawn(move || loop {
                let next = queue.lock().ok().and_then(|mut q| q.pop_front());
                let Some((i, job)) = next else { break };
                if tx.send((i, job.make(&maker))).is_err() {
                    break;
                }
            });
        }
        Pipelines {
            rx,
            queue,
            ready: Default::default(),
            pending,
        }
    }

    /// Slot `i`'s pipelines, once made (waiting for them); None where it was not queued, or
    /// its worker is gone.
    pub(super) fn take(&mut self, i: usize) -> Option<build::Made> {
        if !self.pending.remove(&i) {
            return None;
        }
        loop {
            if let Some(m) = self.ready.remove(&i) {
                return Some(m);
            }
            let (j, m) = self.rx.recv().ok()?;
            self.ready.insert(j, m);
        }
    }

    /// Make no more, wait for the workers, and destroy what was made and not taken (left with
    /// its device where that device has been replaced).
    pub(super) fn stop(mut self, ctx: &Context) {
        if let Ok(mut q) = self.queue.lock() {
            q.clear();
        }
        let ready = std::mem::take(&mut self.ready);
        let device = ctx.device.handle();
        for m in ready.into_values().chain(self.rx.iter().map(|(_, m)| m)) {
            if m.device == device {
                m.destroy(ctx);
            } else {
                m.abandon();
            }
        }
    }
}

impl Drop for Pipelines {
    /// On an early return the workers stop after the pipeline they are making (those are
    /// left undestroyed: the run is ending).
    fn drop(&mut self) {
        if let Ok(mut q) = self.queue.lock() {
            q.clear();
        }
    }
}
