//! The NVIDIA backend: CUPTI PM sampling (src/vk/cupti/) opened with the columns' metrics
//! and `--counters` ones packed into one-pass configs, and the counter batches measured under it.
use super::*;

/// One PM-sampling pass: metrics that fit one config.
pub(super) struct Pass {
    host: Host,
    names: Vec<String>,
    config: Vec<u8>,
    image: Vec<u8>,
    /// Samples `image` holds.
    capacity: u32,
}

pub(super) struct CuptiBackend {
    _cupti: Cupti,
    sampler: Sampler,
    passes: Vec<Pass>,
    current: Option<usize>,
    interval_ns: u64,
    /// CUPTI's clock minus CLOCK_REALTIME, ns.
    offset_ns: i128,
    /// Which metric fills which column.
    columns: Vec<(String, Col)>,
    /// The host's last decode-and-evaluate gap after a batch, ms: the keeper's length then.
    gap_ms: f64,
    /// `P3LAB_CUPTI_IMAGE=fit`: an image more than twice the batch's need is replaced by one
    /// of its size (one image at a time, as growing does), not emptied at the larger size.
    fit_images: bool,
}

/// `P3LAB_CUPTI_IMAGE`: `grow` (the default: one image per pass, made anew only when a batch
/// needs a larger one) or `fit` (also made anew, smaller, when one is more than twice what a
/// batch needs). Emptying an image cost 25 ms a batch on an H200 suite, 14.9 s of its 42 s of
/// counter batches, with the image at the long SGEMMs' size; 16 ms at 512 samples
/// (reports/nvidia-h200/s48). `fit` is off by default until a device run shows that CUPTI
/// takes it: another change of the images crashed in CUPTI there.
pub const IMAGE_ENV: &str = "P3LAB_CUPTI_IMAGE";

/// The keeper after a counter batch covers the last decode gap, within these bounds (ms).
const GAP_MIN_MS: f64 = 2.0;
const GAP_MAX_MS: f64 = 32.0;

/// Counter batches under one Start/Stop at most. 16 failed on an H100 (reports/nvidia-h100/
/// i25/grouped16/): decoding 16 batches' samples ran CUPTI out of memory
/// (CUPTI_ERROR_OUT_OF_MEMORY), every later Start failed (CUPTI_ERROR_UNKNOWN), and only 100
/// of 478 rows were counted. With one batch per Start/Stop the pair
/// cost 2.3 ms a batch (1.1 s over 478, reports/nvidia-h100/i25/final): little to win.
pub(super) const GROUP: usize = 1;

/// The image sizing `P3LAB_CUPTI_IMAGE` asks for (`grow` when unset); Err names the variable
/// and its values.
pub fn image_sizing() -> Result<&'static str, String> {
    match std::env::var(IMAGE_ENV).as_deref() {
        Err(_) | Ok("") | Ok("grow") => Ok("grow"),
        Ok("fit") => Ok("fit"),
        Ok(other) => Err(format!(
            "{IMAGE_ENV}={other}: expected `grow` (the default) or `fit`"
        )),
    }
}

/// Whether a pass's image of `capacity` samples is made anew for a batch that needs `want`:
/// when it is too small, and with `fit` also when it is more than twice the need.
pub(super) fn make_anew(capacity: u32, want: u32, fit: bool) -> bool {
    capacity < want || (fit && capacity > want.saturating_mul(2))
}

pub(super) fn open_cupti(
    ctx: &Context,
    opts: &HwOptions,
    extra: &[String],
) -> Result<(CuptiBackend, HwStatus), String> {
    let c = Cupti::load(opts.cupti.as_deref())?;
    let device = parse_uuid(&ctx.info.uuid)
        .and_then(|u| cupti::cuda_index_of(&u))
        .unwrap_or(0);
    let privilege = |e: cupti::CuptiError| {
        if e.is_privilege() {
            format!(
                "CUPTI refused profiling ({e}): this user lacks the GPU profiling privilege; {PRIVILEGE_FIX}"
            )
        } else {
            format!("CUPTI at {}: {e}", c.path.display())
        }
    };
    let chip = c.chip_name(device).map_err(privilege)?;
    let avail = c.counter_availability(device).map_err(privilege)?;
    let one_pass = |names: &[String]| -> Result<(Host, Vec<u8>), String> {
        let host = c.host(&chip, &avail).map_err(|e| e.to_string())?;
        let (image, passes) = host.config(names).map_err(|e| e.to_string())?;
        if passes != 1 {
            return Err(format!("needs {passes} passes; PM sampling takes one"));
        }
        Ok((host, image))
    };
    // The columns' metrics: per column the first candidate that still fits one pass.
    let mut names: Vec<String> = Vec::new();
    let mut columns = Vec::new();
    let mut first: Option<(Host, Vec<u8>)> = None;
    let mut unfit: Vec<String> = Vec::new();
    for (col, cands) in NV_METRICS {
        let mut taken = false;
        let mut why: Vec<String> = Vec::new();
        for cand in cands.iter() {
            let mut trial = names.clone();
            trial.push((*cand).into());
            match one_pass(&trial) {
                Ok(hc) => {
                    names = trial;
                    columns.push(((*cand).to_string(), *col));
                    first = Some(hc);
                    taken = true;
                    break;
                }
                Err(e) => why.push(format!("{cand}: {e}")),
            }
        }
        if !taken {
            unfit.push(format!("column {col:?} left empty: {}", why.join("; ")));
        }
    }
    let mut status = HwStatus {
        source: SOURCE_CUPTI.into(),
        library: c.path.display().to_string(),
        chip: chip.clone(),
        device_index: Some(device),
        interval_ns: opts.interval_ns,
        image_sizing: image_sizing()?.into(),
        ..Default::default()
    };
    // What the chip did not take (run.json `hw_counters.refused`): the columns that stay empty.
    for u in unfit {
        tracing::info!("hardware counters: {u}");
        status.refused.push(u);
    }
    let mut passes = Vec::new();
    if let Some((host, config)) = first {
        passes.push(Pass {
            host,
            names: names.clone(),
            config,
            image: Vec::new(),
            capacity: 0,
        });
    }
    // `--counters`: more metrics in more passes, packed greedily.
    let wanted = match nv_select(&c, &chip, &avail, extra) {
        Ok((w, unmatched)) => {
            for g in unmatched {
                tracing::warn!("counter glob `{g}` matches no PM-sampling metric of {chip} (see `p3lab counters`)");
                status.refused.push(format!("{g}: matches no metric"));
            }
            w
        }
        Err(e) => {
            status.refused.push(e);
            Vec::new()
        }
    };
    // `p3lab peak`'s own counter of each unit: those the chip has, after `--counters`' ones;
    // the others are left out without a word (they name sub-units of other chips).
    let mut wanted = wanted;
    if !opts.nv_own.is_empty() {
        match nv_select(&c, &chip, &avail, &opts.nv_own) {
            Ok((own, unmatched)) => {
                for g in unmatched {
                    tracing::debug!("hardware counters: {chip} has no {g}");
                }
                for m in own {
                    if !wanted.contains(&m) {
                        wanted.push(m);
                    }
                }
            }
            Err(e) => status.refused.push(e),
        }
    }
    let mut pending: Vec<String> = Vec::new();
    let mut last: Option<(Host, Vec<u8>)> = None;
    for w in wanted.into_iter().filter(|w| !names.contains(w)) {
        let mut trial = pending.clone();
        trial.push(w.clone());
        match one_pass(&trial) {
            Ok(hc) => {
                pending = trial;
                last = Some(hc);
            }
            Err(e) if pending.is_empty() => status.refused.push(format!("{w}: {e}")),
            Err(_) => {
                if let Some((host, config)) = last.take() {
                    passes.push(Pass {
                        host,
                        names: std::mem::take(&mut pending),
                        config,
                        image: Vec::new(),
                        capacity: 0,
                    });
                }
                match one_pass(std::slice::from_ref(&w)) {
                    Ok(hc) => {
                        pending = vec![w];
                        last = Some(hc);
                    }
                    Err(e) => status.refused.push(format!("{w}: {e}")),
                }
            }
        }
    }
    if let Some((host, config)) = last {
        passes.push(Pass {
            host,
            names: pending,
            config,
            image: Vec::new(),
            capacity: 0,
        });
    }
    for r in status.refused.iter().filter(|r| !r.starts_with("column ")) {
        tracing::warn!("hardware counters: {r}");
    }
    if passes.is_empty() {
        return Err(format!(
            "CUPTI at {}: none of p3lab's PM-sampling metrics is available on {chip}",
            c.path.display()
        ));
    }
    let sampler = c.sampler(device).map_err(privilege)?;
    // CUPTI's clock against CLOCK_REALTIME, read back to back (the lowest-latency pair of 5).
    let mut offset: Option<(i128, i128)> = None;
    for _ in 0..5 {
        let (r0, _) = cupti::host_clocks();
        let ts = c.timestamp();
        let (r1, _) = cupti::host_clocks();
        if let Some(ts) = ts {
            let o = ts as i128 - (r0 + r1) / 2;
            if offset.is_none_or(|(_, w)| r1 - r0 < w) {
                offset = Some((o, r1 - r0));
            }
        }
    }
    status.passes = passes.iter().map(|p| p.names.clone()).collect();
    tracing::info!(
        "hardware counters: CUPTI PM sampling on {chip} (CUDA device {device}, {}), {} pass(es), every {} µs",
        c.path.display(),
        passes.len(),
        opts.interval_ns / 1000
    );
    Ok((
        CuptiBackend {
            _cupti: c,
            sampler,
            passes,
            current: None,
            interval_ns: opts.interval_ns,
            offset_ns: offset.map(|(o, _)| o).unwrap_or(0),
            columns,
            gap_ms: 8.0,
            fit_images: status.image_sizing == "fit",
        },
        status,
    ))
}

/// One job's accumulating result over the passes.
#[derive(Default)]
struct Acc {
    values: HwValues,
    metrics: Vec<(String, f64, String)>,
    samples: u32,
    lost: u32,
    window_kind: &'static str,
    window_ns: f64,
    reps: u32,
    error: Option<String>,
    notes: Vec<String>,
    /// Cold mode: the eviction-only batch's window (ns) and its evictions.
    evict_window_ns: f64,
    /// Evictions in the eviction-only batch.
    evict_reps: u32,
    evict_removed: Option<String>,
    /// The first pass's samples inside the window, as measured.
    series: Option<Series>,
}

/// Where the phases of the counter batches spent their wall time (run.json).
#[derive(Default)]
pub(super) struct Phases {
    pub(super) start_stop_ns: f64,
    pub(super) batches_ns: f64,
    pub(super) decode_ns: f64,
    pub(super) evaluate_ns: f64,
    /// Counter data images made and emptied.
    pub(super) image_ns: f64,
    /// Batches counted again after the keeper (their own phases are in the others).
    pub(super) redone: u64,
    /// The keepers before them and after each batch, submitted (host time).
    pub(super) keeper_ns: f64,
}

impl CuptiBackend {
    /// The counter batches of several variants under one Start/Stop per pass: each batch's
    /// window picks its samples out of the one decoded stream, so CUPTI's fixed costs (start,
    /// stop, the decoder's set-up) are paid once per group, not per variant.
    pub(super) fn measure_group(
        &mut self,
        ctx: &Context,
        jobs: &[CounterJob],
        timeout_ms: u64,
        evict: Option<&EvictWith>,
        heat: Option<Heat>,
        ph: &mut Phases,
    ) -> Vec<HwOutcome> {
        let iv = self.interval_ns as f64;
        let target = WINDOW_MIN_NS.max(MIN_SAMPLES * iv);
        let mut acc: Vec<Acc> = jobs
            .iter()
            .map(|j| Acc {
                reps: ((target / j.rep_ns.max(100.0)).ceil() as u32).clamp(2, MAX_REPS),
                window_kind: "calibrated",
                ..Default::default()
            })
            .collect();
        for p in 0..self.passes.len() {
            // A pass after the columns' runs only for a job that wants one of its metrics.
            let wanted = |j: &CounterJob| {
                j.want.is_empty()
                    || self.passes[p]
                        .names
                        .iter()
                        .any(|n| j.want.contains(&n.as_str()))
            };
            if p > 0 && !jobs.iter().any(wanted) {
                continue;
            }
            if let Err(e) = self.pass(ctx, p, jobs, timeout_ms, evict, heat, &mut acc, ph) {
                for a in acc.iter_mut().filter(|a| a.error.is_none()) {
                    a.error = Some(e.clone());
                }
                break;
            }
        }
        acc.into_iter()
            .map(|a| match a.error {
                Some(e) => Err(e),
                None => Ok(HwMeasured {
                    source: SOURCE_CUPTI,
                    values: a.values,
                    metrics: a.metrics,
                    samples: a.samples,
                    lost: a.lost,
                    interval_ns: self.interval_ns,
                    window: a.window_kind,
                    window_ns: a.window_ns,
                    reps: a.reps,
                    notes: a.notes,
                    evict_removed: a.evict_removed,
                    own_clock: None,
                    series: a.series,
                }),
            })
            .collect()
    }

    /// One pass (config) over every job. Err: a CUPTI failure that spoils the whole pass.
    #[allow(
        clippy::too_many_arguments,
        reason = "one pass's inputs and its outputs"
    )]
    fn pass(
        &mut self,
        ctx: &Context,
        p: usize,
        jobs: &[CounterJob],
        timeout_ms: u64,
        evict: Option<&EvictWith>,
        heat: Option<Heat>,
        acc: &mut [Acc],
        ph: &mut Phases,
    ) -> Result<(), String> {
        let e = |e: cupti::CuptiError| e.to_string();
        let iv = self.interval_ns as f64;
        if self.current != Some(p) {
            if self.current.is_some() {
                // Another pass's config is loaded: on GH100 a second config set on the same
                // sampler gave no samples at all (reports/nvidia-h100/i25/final/extra), so the
                // sampler is disabled and enabled anew before it takes another config.
                self.current = None;
                self.sampler.renew().map_err(e)?;
                // Counter data images belong to the sampler object that initialized them
                // (GH100 refused the old ones: CUPTI_ERROR_INVALID_PARAMETER): made anew.
                for pass in &mut self.passes {
                    pass.image.clear();
                }
            }
            self.current = None;
            let pass = &self.passes[p];
            self.sampler
                .set_config(&pass.config, self.interval_ns, HW_BUFFER_BYTES)
                .map_err(e)?;
            self.current = Some(p);
        }
        let pass = &mut self.passes[p];
        // The image holds every sample of the longest batch (issue 39: a 73.7 ms SGEMM's
        // 147 ms batch got no sample inside it from a 256-sample image), within a bound.
        let longest = jobs
            .iter()
            .zip(acc.iter())
            .map(|(j, a)| j.rep_ns.max(100.0) * f64::from(a.reps + 1))
            .fold(0.0, f64::max);
        let want =
            ((longest * 1.25 / iv).ceil() as u32 + 64).clamp(IMAGE_SAMPLES, MAX_IMAGE_SAMPLES);
        // One image per pass, made anew only when a batch needs a larger one (or, with
        // `P3LAB_CUPTI_IMAGE=fit`, one less than half as large: `make_anew`). (Session 48
        // kept images of several sizes and appended batches to them: on an H200, with the
        // long SGEMMs' images beside the short ones, cuptiPmSamplingCounterDataImageInitialize
        // failed with CUPTI_ERROR_UNKNOWN and the process then crashed in CUPTI,
        // reports/gpu-s48/call3.sh.)
        let t = Instant::now();
        if pass.image.is_empty() || make_anew(pass.capacity, want, self.fit_images) {
            pass.image = self.sampler.counter_data(&pass.names, want).map_err(e)?;
            pass.capacity = want;
        } else {
            self.sampler.reset(&mut pass.image).map_err(e)?;
        }
        ph.image_ns += t.elapsed().as_nanos() as f64;
        let capacity = pass.capacity as usize;
        let t = Instant::now();
        self.sampler.start().map_err(e)?;
        ph.start_stop_ns += t.elapsed().as_nanos() as f64;
        // The batches, back to back, each with its own window; in cold mode each is followed
        // by an eviction-only batch of as many evictions, counted the same way, which is
        // subtracted from it below.
        let t = Instant::now();
        let mut windows: Vec<Option<Span>> = Vec::with_capacity(jobs.len());
        let mut evict_windows: Vec<Option<Span>> = Vec::with_capacity(jobs.len());
        for (j, job) in jobs.iter().enumerate() {
            let dispatches = job.dispatches;
            if crate::measure::options::interrupted() {
                acc[j].error.get_or_insert("interrupted".into());
                windows.push(None);
                evict_windows.push(None);
                continue;
            }
            let w = match batch_window(ctx, dispatches, acc[j].reps, timeout_ms, evict) {
                Ok((w, kind)) => {
                    if kind == "host" {
                        acc[j].window_kind = kind;
                    }
                    acc[j].window_ns = (w.end - w.start) as f64;
                    Some(w)
                }
                Err(e) => {
                    acc[j].error.get_or_insert(e);
                    None
                }
            };
            windows.push(w);
            let ew = match (w, evict) {
                (Some(_), Some(_)) => {
                    // As long as the cold batch (so that whole samples fall inside it): its
                    // evictions' time from the cold window less the kernels' timed time.
                    let reps = acc[j].reps;
                    let kernels = job.rep_ns * f64::from(reps);
                    let each =
                        ((acc[j].window_ns - kernels) / f64::from(reps.max(2) - 1)).max(1_000.0);
                    let target = acc[j].window_ns.max(WINDOW_MIN_NS.max(MIN_SAMPLES * iv));
                    acc[j].evict_reps = ((target / each).ceil() as u32).clamp(reps, MAX_REPS);
                    match batch_window(ctx, &[], acc[j].evict_reps, timeout_ms, evict) {
                        Ok((ew, _)) => Some(ew),
                        Err(e) => {
                            acc[j].notes.push(format!("the eviction-only batch: {e}"));
                            None
                        }
                    }
                }
                _ => None,
            };
            if let Some(ew) = ew {
                acc[j].evict_window_ns = (ew.end - ew.start) as f64;
            }
            evict_windows.push(ew);
        }
        ph.batches_ns += t.elapsed().as_nanos() as f64;
        let t = Instant::now();
        let stopped = self.sampler.stop();
        ph.start_stop_ns += t.elapsed().as_nanos() as f64;
        stopped.map_err(e)?;
        // The GPU would idle while the host decodes and evaluates the samples (about 13 ms a
        // batch on an H100) and clock itself down by the next batch: the keeper covers the
        // last such gap, and the next batch's first barrier waits for it.
        if let Some(h) = heat {
            let t = Instant::now();
            h.run(ctx, self.gap_ms);
            ph.keeper_ns += t.elapsed().as_nanos() as f64;
        }
        let decode_from = Instant::now();
        // Decode the stream; each whole sample inside a window goes to that job (or to its
        // eviction-only batch), every `stride`-th of them evaluated.
        let stride = |window_ns: f64| {
            ((window_ns / iv).floor().max(1.0) as usize)
                .div_ceil(MAX_EVALUATED)
                .max(1)
        };
        let strides: Vec<usize> = acc.iter().map(|a| stride(a.window_ns)).collect();
        let evict_strides: Vec<usize> = acc.iter().map(|a| stride(a.evict_window_ns)).collect();
        let mut in_window: Vec<Vec<Span>> = vec![Vec::new(); jobs.len()];
        let mut picked: Vec<(Vec<Span>, Vec<Vec<f64>>)> =
            vec![(Vec::new(), Vec::new()); jobs.len()];
        let mut in_evict: Vec<usize> = vec![0; jobs.len()];
        let mut picked_evict: Vec<(Vec<Span>, Vec<Vec<f64>>)> =
            vec![(Vec::new(), Vec::new()); jobs.len()];
        let mut decoded = 0usize;
        let mut overflow = false;
        let holds = |ws: &[Option<Span>], span: Span| {
            ws.iter()
                .position(|w| w.is_some_and(|w| !inside(&[span], w).is_empty()))
        };
        loop {
            let t = Instant::now();
            let d = self.sampler.decode(&mut pass.image).map_err(e)?;
            overflow |= d.overflow;
            let n = self.sampler.completed(&pass.image).map_err(e)?;
            ph.decode_ns += t.elapsed().as_nanos() as f64;
            let t = Instant::now();
            for i in 0..n {
                let (s0, s1) = self.sampler.sample_time(&pass.image, i).map_err(e)?;
                decoded += 1;
                let span = Span {
                    start: s0 as i128 - self.offset_ns,
                    end: s1 as i128 - self.offset_ns,
                };
                let slot = if let Some(j) = holds(&windows, span) {
                    in_window[j].push(span);
                    if !(in_window[j].len() - 1).is_multiple_of(strides[j]) {
                        continue;
                    }
                    &mut picked[j]
                } else if let Some(j) = holds(&evict_windows, span) {
                    in_evict[j] += 1;
                    if !(in_evict[j] - 1).is_multiple_of(evict_strides[j]) {
                        continue;
                    }
                    &mut picked_evict[j]
                } else {
                    continue;
                };
                let v = pass.host.evaluate(&pass.image, i, &pass.names).map_err(e)?;
                slot.0.push(span);
                slot.1.push(v);
            }
            ph.evaluate_ns += t.elapsed().as_nanos() as f64;
            // A full image is evaluated, emptied and decoded into again (CUPTI may report a
            // full image as the end of the records).
            if n > 0 && (d.full || n >= capacity) {
                let t = Instant::now();
                self.sampler.reset(&mut pass.image).map_err(e)?;
                ph.image_ns += t.elapsed().as_nanos() as f64;
                continue;
            }
            break;
        }
        self.gap_ms = (decode_from.elapsed().as_secs_f64() * 1e3).clamp(GAP_MIN_MS, GAP_MAX_MS);
        for (j, a) in acc.iter_mut().enumerate() {
            if a.error.is_some() {
                continue;
            }
            let (spans, vals) = &picked[j];
            if spans.is_empty() {
                let why = format!(
                    "no PM sample fell wholly inside the counter batch ({:.2} ms; {decoded} samples decoded, every {} µs)",
                    a.window_ns / 1e6,
                    self.interval_ns / 1000
                );
                if p == 0 {
                    a.error = Some(why);
                } else {
                    a.notes
                        .push(format!("pass {} (--counters metrics): {why}", p + 1));
                }
                continue;
            }
            let order: Vec<usize> = (0..in_window[j].len()).collect();
            let mut lost = lost_between(&in_window[j], &order, self.interval_ns);
            if overflow && lost == 0 {
                lost = 1;
            }
            a.lost += lost;
            a.samples += spans.len() as u32;
            if p == 0 {
                a.series = windows[j].map(|window| Series {
                    names: pass.names.clone(),
                    window,
                    spans: spans.clone(),
                    values: vals.clone(),
                });
            }
            let mut combined = combine(&pass.names, spans, vals, a.window_ns, a.reps);
            if evict.is_some() {
                let (es, ev) = &picked_evict[j];
                let evicted = if es.is_empty() {
                    Err(format!(
                        "no PM sample fell wholly inside the eviction-only batch ({:.2} ms), so the eviction could not be taken out",
                        a.evict_window_ns / 1e6
                    ))
                } else {
                    // Per eviction: `.sum` counters per repetition of that batch.
                    let e = combine(&pass.names, es, ev, a.evict_window_ns, a.evict_reps);
                    let each = a.evict_window_ns / f64::from(a.evict_reps.max(1));
                    subtract_evictions(&pass.names, &combined, &e, a.window_ns, each, a.reps)
                };
                match evicted {
                    Ok(kernel) => {
                        combined = kernel;
                        if p == 0 {
                            let n = f64::from(a.reps.max(1));
                            let each = a.evict_window_ns / f64::from(a.evict_reps.max(1));
                            let share = 1.0 - each * (n - 1.0) / a.window_ns.max(1.0);
                            a.evict_removed = Some(format!(
                                "the L2 eviction was counted apart (an eviction-only batch of {} evictions, {:.1} µs each) and taken out of the counted values in busy time and bytes; the kernel had {:.0} % of the cold batch's time",
                                a.evict_reps,
                                each / 1e3,
                                100.0 * share
                            ));
                        }
                    }
                    Err(why) => {
                        if p == 0 {
                            a.notes.push(format!("cold mode: {why}"));
                        }
                    }
                }
            }
            for (name, v) in pass.names.iter().zip(combined) {
                if !v.is_finite() {
                    continue;
                }
                a.metrics.push((name.clone(), v, nv_unit(name).to_string()));
                if let Some((_, col)) = self.columns.iter().find(|(n, _)| n == name) {
                    let v = if *col == Col::SmClock { v / 1e6 } else { v };
                    a.values.set(*col, v);
                }
            }
        }
        Ok(())
    }
}
