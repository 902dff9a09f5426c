//! One counter batch placed on the host's clock, and cold mode's subtraction of the L2
//! eviction counted apart (issue 39).
use super::*;

/// Run one counter batch (`reps` repetitions after one untimed; with no dispatches and an
/// `evict`, the evictions alone) and place it on CLOCK_REALTIME: the GPU timestamps through
/// the calibrated clock where they fall inside the host's own window, else the host's window:
/// the window and how it was placed (`calibrated` or `host`).
pub(super) fn batch_window(
    ctx: &Context,
    dispatches: &[Dispatch],
    reps: u32,
    timeout_ms: u64,
    evict: Option<&EvictWith>,
) -> Result<(Span, &'static str), String> {
    let (h0, _) = cupti::host_clocks();
    let timed = ctx.run_timed_evict(dispatches, 1, reps, timeout_ms, evict);
    let (h1, _) = cupti::host_clocks();
    let timed = timed.map_err(|err| format!("the counter batch: {err:#}"))?;
    let host_window = Span { start: h0, end: h1 };
    let w = match (ctx.clock_map(), timed.span_ticks) {
        (Some(m), Some((a, b))) => {
            let w = Span {
                start: m.realtime_of(a),
                end: m.realtime_of(b),
            };
            // A correlation that puts the batch outside the host's own window is not
            // believed.
            if w.end > w.start
                && w.start >= host_window.start - 1_000_000
                && w.end <= host_window.end + 1_000_000
            {
                (w, "calibrated")
            } else {
                (host_window, "host")
            }
        }
        _ => (host_window, "host"),
    };
    Ok(w)
}

/// Cold mode (issue 39): the kernel's own counted values from a cold counter batch and an
/// eviction-only batch counted the same way (`evict`: its values per eviction, `each_ns` one
/// eviction's time). The cold batch's window runs from the first repetition's start to the
/// last one's end, so it holds `reps` kernels and `reps - 1` evictions. `.sum` counters
/// (per repetition) lose `(reps - 1) / reps` of an eviction's amount; busy percentages lose
/// the evictions' busy time and their share of the window. Rates per second (the clock) and
/// ratios stay as counted. Err where the evictions leave the kernel less than 5 % of the
/// window: the difference would be mostly noise.
pub fn subtract_evictions(
    names: &[String],
    cold: &[f64],
    evict: &[f64],
    window_ns: f64,
    each_ns: f64,
    reps: u32,
) -> Result<Vec<f64>, String> {
    let n = f64::from(reps.max(1));
    let inside = (n - 1.0) / n;
    let evict_ns = each_ns * (n - 1.0);
    let kernel_ns = window_ns - evict_ns;
    if kernel_ns.is_nan() || kernel_ns <= 0.05 * window_ns {
        return Err(format!(
            "the L2 evictions took {:.0} % of the counter batch, too much of it to take out",
            100.0 * evict_ns / window_ns.max(1.0)
        ));
    }
    Ok(names
        .iter()
        .zip(cold.iter().zip(evict))
        .map(|(name, (&c, &e))| {
            if !e.is_finite() {
                c
            } else if name.ends_with(".sum") {
                (c - e * inside).max(0.0)
            } else if name.contains("pct_of_peak") || name.ends_with(".pct") {
                ((c * window_ns - e * evict_ns) / kernel_ns).max(0.0)
            } else {
                c
            }
        })
        .collect())
}
