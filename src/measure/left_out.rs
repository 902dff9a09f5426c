//! Which rounds a variant's statistics leave out, and what the placement check's rounds say:
//! leading rounds still warming up, later transient rounds, and the placement SD pooled over
//! a case's variants. Pure functions of round medians; the Track in schedule.rs applies them.
use crate::stats;

/// The SD a placement adds, as a fraction of the time, pooled over a case's variants: each
/// variant's check rounds moved by `d` from its first placement, with variance 2σ² (two
/// placements) plus the rounds' own noise; σ² = max(0, mean over variants of (d² − noise) / 2).
/// None when no variant has check rounds.
pub fn pooled_placement_sd(excess: &[f64]) -> Option<f64> {
    if excess.is_empty() {
        return None;
    }
    let mean = excess.iter().sum::<f64>() / excess.len() as f64;
    Some((mean / 2.0).max(0.0).sqrt())
}

/// Rounds (indices into `medians`) slower than the median of all of them by more than
/// TRANSIENT_PCT and more than 4 robust standard deviations (1.4826 × MAD): the device slowed
/// down for a moment (a clock dip, another process), which says nothing about the variant.
/// At most a quarter of the rounds, the slowest first (more than that is the variant's own
/// spread), and none of fewer than 4. Faster rounds are never left out. On an H200, three
/// rounds of 30 of a 98 µs tiling pass ran 118-218 µs, which moved the mean of the round
/// medians 6 % and kept the case running to its 30-round cap. The threshold is well above a
/// variant's own modes: with 2 % (the warm-up rule's), the H200's cold-mode reduction rounds
/// 2-4 % apart and smoke's two timer states 4.5 % apart were cut, biasing their medians.
pub const TRANSIENT_PCT: f64 = 10.0;

/// The transient rounds among `medians` (one per round, ns), as indices in ascending order: those
/// slower than TRANSIENT_PCT and 4 robust SDs past the median, at most a quarter of the rounds,
/// none of fewer than 4 (see TRANSIENT_PCT).
pub fn transients(medians: &[f64]) -> Vec<usize> {
    if medians.len() < 4 {
        return Vec::new();
    }
    let mut sorted = medians.to_vec();
    sorted.sort_by(f64::total_cmp);
    let med = stats::median(&sorted);
    let mut dev: Vec<f64> = medians.iter().map(|x| (x - med).abs()).collect();
    dev.sort_by(f64::total_cmp);
    let sigma = 1.4826 * stats::median(&dev);
    let limit = med + (TRANSIENT_PCT / 100.0 * med).max(4.0 * sigma);
    let mut slow: Vec<usize> = (0..medians.len()).filter(|&i| medians[i] > limit).collect();
    slow.sort_by(|&a, &b| medians[b].total_cmp(&medians[a]));
    slow.truncate(medians.len() / 4);
    slow.sort_unstable();
    slow
}

/// How far round `i` is above the median of `medians`, in % of that median: what
/// [`transients`] compares with TRANSIENT_PCT.
pub fn above_median_pct(medians: &[f64], i: usize) -> f64 {
    let mut sorted = medians.to_vec();
    sorted.sort_by(f64::total_cmp);
    let med = stats::median(&sorted);
    (medians[i] / med - 1.0) * 100.0
}

/// How many leading rounds are warm-up: each is slower than the median of the rounds after
/// it by more than 2 % and more than 4 robust standard deviations of those rounds (clocks
/// still ramping up). At most half the rounds; faster leading rounds are never dropped.
pub fn leading_warmup(medians: &[f64]) -> usize {
    let mut k = 0;
    while k < medians.len() / 2 {
        let mut rest = medians[k + 1..].to_vec();
        rest.sort_by(f64::total_cmp);
        let med = stats::median(&rest);
        let mut dev: Vec<f64> = rest.iter().map(|x| (x - med).abs()).collect();
        dev.sort_by(f64::total_cmp);
        let sigma = 1.4826 * stats::median(&dev);
        if medians[k] > med + (0.02 * med).max(4.0 * sigma) {
            k += 1;
        } else {
            break;
        }
    }
    k
}
