//! The NVIDIA backend: CUPTI PM sampling (src/vk/cupti/) opened with the columns' metrics
//! and `--counters` ones packed into one-pass configs, and the counter batches measured under it.
//!
//! The data flows through the files in order: open.rs opens CUPTI and packs the metrics into
//! passes; a pass (here) loads its config and its counter data image; batches.rs runs the
//! counter batches and places their windows on the host's clock; decode.rs decodes the samples
//! and picks each window's; fold.rs turns each job's samples into its counted values.
use super::*;

mod batches;
mod decode;
mod fold;
mod open;

use decode::Picked;
pub(super) use open::open_cupti;
pub use open::{image_sizing, IMAGE_ENV};

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

/// The keeper after a counter batch covers the last decode gap, within these bounds (ms).
const GAP_MIN_MS: f64 = 2.0;
const GAP_MAX_MS: f64 = 32.0;

/// Counter batches under one Start/Stop at most. 16 failed on an H100 (reports/nvidia-h100/
/// i25/grouped16/): decoding 16 batches' samples ran CUPTI out of memory
/// (CUPTI_ERROR_OUT_OF_MEMORY), every later Start failed (CUPTI_ERROR_UNKNOWN), and only 100
/// of 478 rows were counted. With one batch per Start/Stop the pair
/// cost 2.3 ms a batch (1.1 s over 478, reports/nvidia-h100/i25/final): little to win.
pub(super) const GROUP: usize = 1;

/// Whether a pass's image of `capacity` samples is made anew for a batch that needs `want`:
/// when it is too small, and with `fit` also when it is more than twice the need.
pub(super) fn make_anew(capacity: u32, want: u32, fit: bool) -> bool {
    capacity < want || (fit && capacity > want.saturating_mul(2))
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
        let t = Instant::now();
        let (windows, evict_windows) = batches::run(ctx, jobs, acc, timeout_ms, evict, iv);
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
        let picked = self.decode(p, capacity, (&windows, &evict_windows), acc, ph)?;
        self.gap_ms = (decode_from.elapsed().as_secs_f64() * 1e3).clamp(GAP_MIN_MS, GAP_MAX_MS);
        self.fold(p, &picked, &windows, evict.is_some(), acc);
        Ok(())
    }
}
