//! A pass's counter batches, back to back, each placed on the host's clock; in cold mode each
//! is followed by an eviction-only batch of as many evictions, counted the same way, which
//! fold.rs subtracts from it.
use super::*;

/// Run each job's batch (and its eviction-only one, with `evict`): their windows on
/// CLOCK_REALTIME, None where a batch failed (the job's `error` says why) or did not run.
pub(super) fn run(
    ctx: &Context,
    jobs: &[CounterJob],
    acc: &mut [Acc],
    timeout_ms: u64,
    evict: Option<&EvictWith>,
    iv: f64,
) -> (Vec<Option<Span>>, Vec<Option<Span>>) {
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
                let each = ((acc[j].window_ns - kernels) / f64::from(reps.max(2) - 1)).max(1_000.0);
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
    (windows, evict_windows)
}
