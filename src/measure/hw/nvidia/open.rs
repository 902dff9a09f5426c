//! Opening the NVIDIA backend: CUPTI loaded for the run's device, the columns' metrics and
//! `--counters` ones packed into one-pass configs, CUPTI's clock put against the host's.
use super::*;

/// `P3LAB_CUPTI_IMAGE`: `grow` (the default: one image per pass, made anew only when a batch
/// needs a larger one) or `fit` (also made anew, smaller, when one is more than twice what a
/// batch needs). Emptying an image cost 25 ms a batch on an H200 suite, 14.9 s of its 42 s of
/// counter batches, with the image at the long SGEMMs' size; 16 ms at 512 samples
/// (reports/nvidia-h200/s48). `fit` is off by default until a device run shows that CUPTI
/// takes it: another change of the images crashed in CUPTI there.
pub const IMAGE_ENV: &str = "P3LAB_CUPTI_IMAGE";

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

pub(in crate::measure::hw) fn open_cupti(
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
