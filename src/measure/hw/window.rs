//! Where a counter batch sat in time, and what its samples add up to: pure functions over
//! sample spans on CLOCK_REALTIME (tested here without a GPU).
/// A sample's span, on CLOCK_REALTIME (ns).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Span {
    /// Start of the span, ns since the epoch.
    pub start: i128,
    /// End of the span, ns since the epoch; a span with `end <= start` is empty and never inside a
    /// window.
    pub end: i128,
}

/// The samples wholly inside `window` (indices, in time order).
pub fn inside(samples: &[Span], window: Span) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..samples.len())
        .filter(|&i| {
            let s = samples[i];
            s.end > s.start && s.start >= window.start && s.end <= window.end
        })
        .collect();
    idx.sort_by_key(|&i| samples[i].start);
    idx
}

/// Samples missing between neighbours inside the window: a gap of more than half an interval
/// counts as the intervals it spans.
pub fn lost_between(samples: &[Span], idx: &[usize], interval_ns: u64) -> u32 {
    let iv = interval_ns.max(1) as f64;
    idx.windows(2)
        .map(|w| {
            let gap = (samples[w[1]].start - samples[w[0]].end) as f64;
            if gap > iv / 2.0 {
                (gap / iv).round().max(1.0) as u32
            } else {
                0
            }
        })
        .sum()
}

/// Combine the samples inside a window into one value per metric: `.sum` metrics are totalled,
/// scaled from the sampled time to the whole window and divided by the repetitions (a value
/// per repetition); every other metric is the duration-weighted mean.
pub fn combine(
    names: &[String],
    spans: &[Span],
    values: &[Vec<f64>],
    window_ns: f64,
    reps: u32,
) -> Vec<f64> {
    let durations: Vec<f64> = spans.iter().map(|s| (s.end - s.start) as f64).collect();
    let covered: f64 = durations.iter().sum();
    names
        .iter()
        .enumerate()
        .map(|(m, name)| {
            if covered <= 0.0 {
                return f64::NAN;
            }
            if name.ends_with(".sum") {
                let total: f64 = values.iter().map(|v| v[m]).sum();
                total * (window_ns / covered) / reps.max(1) as f64
            } else {
                values
                    .iter()
                    .zip(&durations)
                    .map(|(v, d)| v[m] * d)
                    .sum::<f64>()
                    / covered
            }
        })
        .collect()
}
