//! Phase 2 of a case, per measurement mode: the warm-up, then rounds of one batch per variant
//! in a shuffled order until every variant has stopped.
use super::*;
use crate::measure::instance;

impl Runner<'_> {
    /// The clock gauge, made on first use; None where the device has none (run.json's
    /// `clock_gauge` says why).
    fn gauge(&mut self) -> Option<&mut crate::measure::clock::ClockGauge> {
        if matches!(self.gauge, Gauge::Unmade) {
            let rec = self.meta.clock_gauge.get_or_insert_with(Default::default);
            match crate::measure::clock::ClockGauge::make(&self.ctx, self.compiler) {
                Ok(g) => {
                    rec.gauged = true;
                    rec.reason.clear();
                    rec.ns_per_tick = g.ns_per_tick;
                    self.gauge = Gauge::Ready(Box::new(g));
                }
                Err(why) => {
                    tracing::info!("no clock gauge: {why}");
                    if !rec.gauged {
                        rec.reason = why;
                    }
                    self.gauge = Gauge::Unavailable;
                }
            }
        }
        match &mut self.gauge {
            Gauge::Ready(g) => Some(g),
            _ => None,
        }
    }

    /// One batch of `slot` in mode `mi`, on its built pipelines, its cost recorded. The batch
    /// ends with the clock gauge; a batch that ran clocked down is timed again after the clock
    /// keeper has kept the GPU busy for longer (measure/clock.rs), and the try kept carries
    /// the tries' wall time. After the batch the keeper covers the host's gap to the next.
    pub(super) fn time_batch(
        &mut self,
        s: &crate::measure::plan::Settings,
        slot: &mut Slot,
        mi: usize,
        gpu: &CaseGpu,
        evict: Option<&crate::vk::submit::EvictWith>,
    ) -> anyhow::Result<batch::Batch> {
        use crate::measure::clock::{self, Next};
        let pass = self.gauge().map(|g| *g.pass());
        // The keeper only on a GPU: a CPU device's clock does not move with its load here,
        // and its invocations are the host's threads.
        // (`P3LAB_TEST_KEEPER` runs it there too, for the tests.)
        let keep = pass.is_some()
            && (self.ctx.info.device_type != "cpu"
                || std::env::var_os("P3LAB_TEST_KEEPER").is_some());
        let cpu = self.ctx.info.device_type == "cpu";
        // On a CPU (tests only) one workgroup for at most 0.1 ms: the path, not the load.
        let keeper = |g: &crate::measure::clock::ClockGauge, ns: f64, reading: Option<f64>| {
            if cpu {
                crate::vk::submit::OwnedPass {
                    grid: [1, 1, 1],
                    ..g.keeper(ns.min(1e5), reading)
                }
            } else {
                g.keeper(ns, reading)
            }
        };
        let (mut heat, mut previous, mut redone, mut redone_ns) = (0.0, None, 0u32, 0.0);
        loop {
            if keep && heat > 0.0 {
                if let Gauge::Ready(g) = &self.gauge {
                    let last = self.meta.clock_gauge.as_ref().and_then(|c| c.reference);
                    self.ctx.submit_detached(&keeper(g, heat * 1e6, last))?;
                }
            }
            let result = {
                let b = slot.built.as_ref().expect("timed slots are built");
                batch::run_batch(
                    &self.ctx,
                    &b.dispatches(gpu),
                    (s.untimed, slot.tracks[mi].reps_per_batch, slot.first_rep_ns),
                    s.timeout_ms,
                    evict,
                    pass.as_ref(),
                )
            };
            self.last_batch = Some(Instant::now());
            let mut b = result?;
            slot.cost.timed_submit_ns += b.wall_ns as u64;
            let reading = match &mut self.gauge {
                Gauge::Ready(g) => g.take(),
                _ => None,
            };
            let reading = reading.map(|r| r * test_clock_scale(&slot.v.name, redone));
            b.clock = reading;
            b.redone = redone;
            let next = match reading {
                None => Next::Keep,
                Some(r) => {
                    let rec = self.meta.clock_gauge.get_or_insert_with(Default::default);
                    rec.batches += 1;
                    let top = rec.highest.unwrap_or(0.0).max(r);
                    rec.highest = Some(top);
                    rec.highest_mhz = rec.ns_per_tick.map(|ns| top / ns * 1e3);
                    rec.readings.push(r);
                    clock::refresh_reference(rec);
                    // No judgement before the reference is known.
                    let highest = rec.reference.unwrap_or(r);
                    let next = if slot.own_clock {
                        Next::Keep
                    } else {
                        clock::judge(r, highest, previous, heat, redone + 1)
                    };
                    match next {
                        Next::Redo { .. } => {
                            tracing::debug!(
                                "{}: clocked down ({:.1} % of the run's reference clock), timed again",
                                slot.v.name,
                                100.0 * r / highest
                            );
                            rec.redone += 1;
                            rec.redone_ms += b.wall_ns / 1e6;
                        }
                        keep => {
                            if clock::is_low(r, highest) {
                                rec.kept_low += 1;
                            }
                            if keep == Next::KeepOwnClock {
                                slot.own_clock = true;
                                rec.own_clock.push(format!(
                                    "{} ({:.1} %)",
                                    slot.v.name,
                                    100.0 * r / highest
                                ));
                            }
                        }
                    }
                    previous = Some(r);
                    next
                }
            };
            if let Next::Redo { heat_ms } = next {
                redone_ns += b.wall_ns;
                heat = heat_ms;
                redone += 1;
                continue;
            }
            // Keep the GPU busy while the host records the next batch.
            if keep {
                if let (Gauge::Ready(g), Some(gap)) = (&self.gauge, self.ctx.host_gap_ns()) {
                    let ns = (gap * clock::KEEP_FACTOR).min(clock::MAX_KEEP_MS * 1e6);
                    self.ctx.submit_detached(&keeper(g, ns, reading))?;
                }
            }
            b.wall_ns += redone_ns;
            slot.cost.gpu_timed_ns += b.rep_ns.iter().sum::<f64>();
            return Ok(b);
        }
    }

    /// The warm-up before a mode's rounds, of the variants `which` (indices into `slots`),
    /// its length from how long the GPU sat idle (batch::warm_up); the error of the k-th of
    /// them where its batch failed.
    #[allow(
        clippy::too_many_arguments,
        reason = "a runner phase: the case, its slots and the mode's eviction passed through"
    )]
    fn warm_up(
        &mut self,
        (sc, case): (&Scenario, &Case),
        slots: &[Slot],
        which: &[usize],
        gpu: &CaseGpu,
        evict: Option<&crate::vk::submit::EvictWith>,
        s: &crate::measure::plan::Settings,
    ) -> anyhow::Result<Result<batch::Warmup, (usize, anyhow::Error)>> {
        // Idle: since the GPU last finished anything (check runs, uploads and read-backs keep
        // it busy too), once this run has warmed it up at all; before that, it may have sat
        // idle for as long as the process ran (None).
        let idle = self.last_batch.and_then(|_| self.ctx.idle_for());
        let warm_start = events::now_ns();
        let list: Vec<_> = which
            .iter()
            .map(|&i| {
                let b = slots[i].built.as_ref().expect("timed slots are built");
                (b.dispatches(gpu), slots[i].first_rep_ns)
            })
            .collect();
        self.gauge();
        let rec = self.meta.clock_gauge.get_or_insert_with(Default::default);
        let gauge = match &mut self.gauge {
            Gauge::Ready(g) => Some((&mut **g, &mut rec.readings)),
            _ => None,
        };
        let w = batch::warm_up(
            &self.ctx,
            &list,
            evict,
            s.timeout_ms,
            idle,
            s.warmup_ms,
            gauge,
        );
        crate::measure::clock::refresh_reference(rec);
        if let Ok(w) = &w {
            if w.cycles > 0 {
                self.last_batch = Some(Instant::now());
                self.tell_phase("warm-up", (sc, case), warm_start)?;
            }
        }
        Ok(w)
    }

    /// Phase 2 for one mode: warm up, then rounds until every variant has stopped.
    #[allow(
        clippy::too_many_arguments,
        reason = "a runner phase: one call site, the case's slots, plan and state passed through"
    )]
    pub(super) fn rounds(
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
            fresh: s.fresh.as_str().into(),
            evict_bytes: (mode == Mode::Cold).then(|| self.evict.bytes_for(case.cold_bytes)),
            ..Default::default()
        };
        for sl in slots.iter_mut().filter(|sl| sl.timed()) {
            sl.tracks[mi].reps_per_batch = batch::reps_per_batch(s.reps, sl.first_rep_ns);
        }
        // Variants an earlier run timed are only counted here: no rounds (their counter
        // batch is sized from that run's time).
        let before: Vec<usize> = (0..slots.len())
            .filter(|&i| {
                slots[i].timed() && self.timed_before(sc, case, slots[i].v, mode).is_some()
            })
            .collect();
        for &i in &before {
            slots[i].tracks[mi].stop = Some(schedule::StopReason::TimedBefore);
        }
        let mut round = 0u32;
        let mut need_warmup = true;
        let mut keep_resources = false;
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
            // Every round after the first on a new instance (resources here, pipelines per
            // variant below); a failure (out of memory) keeps the current one for the case.
            if round > 0 && s.fresh.resources() && !keep_resources {
                let t = Instant::now();
                let recipe = instance::Recipe::of(s.seed, &case_key, round, case.resources.len());
                let moved = instance::relocate_case(&self.ctx, case, gpu, &recipe);
                record.relocate_ms += t.elapsed().as_secs_f64() * 1e3;
                if let Err(e) = moved {
                    tracing::warn!(
                        "{} [{}]: moving the resources for round {}: {e:#}; the rounds go on where they are",
                        sc.name,
                        case.params_label,
                        round + 1
                    );
                    keep_resources = true;
                } else {
                    record.relocations += 1;
                }
            }
            let evict = match mode {
                Mode::Warm => None,
                Mode::Cold => {
                    match self
                        .evict
                        .get(&self.ctx, self.compiler, case.cold_bytes, case.evict)
                    {
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
                    }
                }
            };
            if need_warmup {
                need_warmup = false;
                // Idle: since the GPU last finished anything (check runs, uploads and
                // read-backs keep it busy too), once this run has warmed it up at all; before
                // that, it may have sat idle for as long as the process ran (None).
                match self.warm_up((sc, case), slots, &active, gpu, evict.as_ref(), &s)? {
                    Ok(w) => record.warmups.push(w),
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
                if round > 0 && s.fresh.pipelines() {
                    let v = slots[i].v;
                    let b = slots[i].built.as_mut().expect("timed slots are built");
                    let t = Instant::now();
                    if let Err(e) = b.remake(&self.ctx, &v.name, gpu) {
                        tracing::warn!(
                            "{} / {}: making the pipelines anew: {e:#}",
                            sc.name,
                            v.name
                        );
                    }
                    slots[i].cost.remake_ns += build::elapsed_ns(t);
                }
                match self.time_batch(&s, &mut slots[i], mi, gpu, evict.as_ref()) {
                    Ok(b) => {
                        let kind = crate::results::record::BatchKind::Round;
                        self.tell_batch(kind, (sc, case), &mut slots[i], mode, round, &b)?;
                        let sl = &mut slots[i];
                        sl.tracks[mi].push(round, pos as u32, b);
                        ran.push(i);
                        // Earlier modes are done; this one by its budget or rounds.
                        let done =
                            (mi as f64 + sl.tracks[mi].progress(&s)) / case.modes.len() as f64;
                        self.credit(&mut slots[i], progress_units(true, done));
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
            if round == 1 {
                // The check run's single repetition sized the batches; a first repetition is
                // often several times slower than the kernel (4-6x for µs kernels on an H100),
                // which left their batches at a fifth of BATCH_MIN_NS and the GPU idle most of
                // the round, clocking down. The first round's median sizes them from now on.
                for &i in &ran {
                    let t = &mut slots[i].tracks[mi];
                    if let Some(r) = t.rounds.last() {
                        let want = batch::reps_per_batch(s.reps, r.median);
                        t.reps_per_batch = t.reps_per_batch.max(want);
                    }
                }
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
                        (
                            "rounds_discarded",
                            (t.discarded + t.transient.len()) as f64,
                            "rounds",
                        ),
                        ("batches_wall_ms", t.spent_ns / 1e6, "ms"),
                    ];
                    for (name, value, unit) in figures {
                        let m = id
                            .metric("runner", name, value, unit)
                            .with_mode(mode.label());
                        slots[i].metrics.push(m);
                    }
                    // With a placement check or counter batches the rows wait for them.
                    if last_mode && !s.placement_check && !self.opts.hw.enabled {
                        self.write(sc, case, plan, &mut slots[i])?;
                    }
                }
            }
        }
        // Where no round warmed the GPU up, the variants only counted here get the warm-up
        // their rounds would have had: their counter batch runs at the clock the rounds ran
        // at (the clock rule compares it with the earlier run's).
        if need_warmup && !before.is_empty() && !interrupted() {
            let evict = self.evict_for(mode, case);
            match self.warm_up((sc, case), slots, &before, gpu, evict.as_ref(), &s)? {
                Ok(w) => record.warmups.push(w),
                Err((k, e)) => self.fail_on_device(sc, case, plan, slots, gpu, before[k], e)?,
            }
        }
        // The counter batches, after every variant's rounds (so they never sit between the
        // rounds of the others), before the placement check moves the data.
        if self.opts.hw.enabled && !interrupted() {
            self.hw(&case.counters);
            let evict = self.evict_for(mode, case);
            let ids = (run_id, host);
            // The counters sample the whole device: no keeper may still spin beside them.
            self.ctx.settle(s.timeout_ms);
            // ...but the clock must not sink while the host sets the batch up (issue 39: a
            // batch counted at an idle clock describes another operating point). The keeper
            // runs first on the queue; the batch's first barrier waits for it, and its window
            // starts at the batch's first timestamp, after it.
            if self.ctx.info.device_type != "cpu" {
                if let Gauge::Ready(g) = &self.gauge {
                    let last = self.meta.clock_gauge.as_ref().and_then(|c| c.reference);
                    let heat = g.keeper(crate::measure::clock::MAX_KEEP_MS * 1e6, last);
                    if let Err(e) = self.ctx.submit_detached(&heat) {
                        tracing::debug!("the keeper before a counter batch: {e:#}");
                    }
                }
            }
            self.count_case(ids, sc, case, slots, mi, gpu, s.timeout_ms, evict.as_ref())?;
        }
        if !s.placement_check && self.opts.hw.enabled && last_mode {
            for sl in slots.iter_mut() {
                if sl.timed() && !sl.tracks[mi].active() {
                    self.write(sc, case, plan, sl)?;
                }
            }
        }
        if s.placement_check {
            if !interrupted() {
                let at = (sc, case, plan);
                self.placement_round(at, slots, gpu, (mi, mode), round, &mut record)?;
            }
            if last_mode {
                for sl in slots.iter_mut() {
                    if sl.timed() && !sl.tracks[mi].active() {
                        self.write(sc, case, plan, sl)?;
                    }
                }
            }
        }
        self.meta.rounds.push(record);
        Ok(())
    }
}

/// Tests only (`P3LAB_TEST_CLOCK_LOW`): a lavapipe run cannot clock down, so the clock rule's
/// path through the runner is tested by scaling readings. `NAME` halves the first try of each
/// batch of variant NAME (a clocked-down batch that one redo brings back); `own:NAME` halves
/// every try (a clock more work does not raise). 1 otherwise.
fn test_clock_scale(variant: &str, redone: u32) -> f64 {
    let Ok(v) = std::env::var("P3LAB_TEST_CLOCK_LOW") else {
        return 1.0;
    };
    match v.strip_prefix("own:") {
        Some(name) if name == variant => 0.5,
        None if v == variant && redone == 0 => 0.5,
        _ => 1.0,
    }
}

impl Runner<'_> {
    /// The L2 eviction a mode's batches run with: none in warm mode; in cold mode the case's,
    /// where it can be made (a failure leaves the batches without one, as before).
    fn evict_for(&mut self, mode: Mode, case: &Case) -> Option<crate::vk::submit::EvictWith> {
        match mode {
            Mode::Warm => None,
            Mode::Cold => self
                .evict
                .get(&self.ctx, self.compiler, case.cold_bytes, case.evict)
                .ok(),
        }
    }
}
