//! Statistics over timing samples (nanoseconds as `f64`): summaries, bootstrap CIs, and a
//! Mann-Whitney U test for before/after comparisons.
//!
//! GPU timings are skewed and have outliers (clock ramps, preemption), so the headline
//! numbers are rank-based: median, percentiles, MAD and a bootstrap CI of the median. Mean
//! and standard deviation are reported as well because people expect them.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Summary of a set of timing samples.
///
/// Invariants, for any finite non-empty input:
/// - `min <= p5 <= median <= p95 <= max`, exactly (no rounding can break it).
/// - `min <= median_ci_low <= median_ci_high <= max`: every bootstrap median is a median of
///   original samples.
/// - `median_ci_low <= median <= median_ci_high` is *not* guaranteed: a percentile bootstrap
///   interval need not contain the point estimate. For the median of samples that are not
///   heavily tied it holds in practice, but consumers must not rely on it.
/// - `min <= mean <= max` (the mean is clamped against rounding).
/// - `stddev >= 0`, `mad >= 0`; `stddev == 0` and `cv_pct == 0` when `n == 1`.
/// - `cv_pct` is `stddev / |mean| * 100`; when the mean is exactly zero it is `0` if
///   `stddev` is `0` and `+inf` otherwise.
/// - With `n == 1` or `resamples == 0` the CI collapses to `[median, median]`.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Summary {
    pub n: usize,
    pub min: f64,
    pub max: f64,
    pub median: f64,
    pub mean: f64,
    /// Sample standard deviation (divides by `n - 1`); 0 for `n == 1`.
    pub stddev: f64,
    /// Coefficient of variation in percent: `stddev / mean * 100`.
    pub cv_pct: f64,
    /// 5th percentile, linear interpolation between closest ranks (numpy's default).
    pub p5: f64,
    /// 95th percentile, linear interpolation between closest ranks (numpy's default).
    pub p95: f64,
    /// Median absolute deviation from the median, unscaled (not multiplied by 1.4826).
    pub mad: f64,
    /// Lower end of the 95% percentile-bootstrap confidence interval of the median.
    pub median_ci_low: f64,
    /// Upper end of the 95% percentile-bootstrap confidence interval of the median.
    pub median_ci_high: f64,
}

/// None for an empty slice or any non-finite sample. Bootstrap: `resamples` resamples with a
/// ChaCha8Rng seeded with `seed` (reproducible: same input+seed → same CI). n==1 → CI = [x, x].
pub fn summarize(samples: &[f64], seed: u64, resamples: usize) -> Option<Summary> {
    if samples.is_empty() || samples.iter().any(|x| !x.is_finite()) {
        return None;
    }
    let mut sorted = samples.to_vec();
    sorted.sort_by(f64::total_cmp);

    // Sums of squares overflow (or underflow to zero) for extreme magnitudes. Scaling by a
    // power of two is exact, so compute on scaled values and scale back; ordinary timing
    // data never takes this path.
    let extent = sorted[0].abs().max(sorted[sorted.len() - 1].abs());
    let scale = if extent > 2f64.powi(500) {
        2f64.powi(-600)
    } else if extent != 0.0 && extent < 2f64.powi(-500) {
        2f64.powi(600)
    } else {
        1.0
    };
    if scale != 1.0 {
        for x in &mut sorted {
            *x *= scale;
        }
    }

    let mut s = summarize_sorted(&sorted, seed, resamples);
    if scale != 1.0 {
        let back = 1.0 / scale;
        for v in [
            &mut s.min,
            &mut s.max,
            &mut s.median,
            &mut s.mean,
            &mut s.stddev,
            &mut s.p5,
            &mut s.p95,
            &mut s.mad,
            &mut s.median_ci_low,
            &mut s.median_ci_high,
        ] {
            *v *= back;
        }
    }
    Some(s)
}

fn summarize_sorted(sorted: &[f64], seed: u64, resamples: usize) -> Summary {
    let n = sorted.len();
    let nf = n as f64;
    let median = median(sorted);
    let mean = {
        let m = sorted.iter().sum::<f64>() / nf;
        // Rounding can push the mean a hair outside the data for near-constant samples.
        m.clamp(sorted[0], sorted[n - 1])
    };
    let stddev = if n > 1 {
        let ss: f64 = sorted.iter().map(|x| (x - mean) * (x - mean)).sum();
        (ss / (nf - 1.0)).sqrt()
    } else {
        0.0
    };
    let cv_pct = if mean != 0.0 {
        stddev / mean.abs() * 100.0
    } else if stddev == 0.0 {
        0.0
    } else {
        f64::INFINITY
    };
    let mut dev: Vec<f64> = sorted.iter().map(|x| (x - median).abs()).collect();
    dev.sort_by(f64::total_cmp);
    let mad = self::median(&dev);
    let (median_ci_low, median_ci_high) = if n == 1 || resamples == 0 {
        (median, median)
    } else {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut counts = vec![0u32; n];
        let mut medians: Vec<f64> = (0..resamples)
            .map(|_| resampled_median(sorted, &mut counts, &mut rng))
            .collect();
        medians.sort_by(f64::total_cmp);
        (percentile(&medians, 2.5), percentile(&medians, 97.5))
    };
    Summary {
        n,
        min: sorted[0],
        max: sorted[n - 1],
        median,
        mean,
        stddev,
        cv_pct,
        p5: percentile(sorted, 5.0),
        p95: percentile(sorted, 95.0),
        mad,
        median_ci_low,
        median_ci_high,
    }
}

/// Median of a with-replacement resample of `sorted`, without materialising the resample.
///
/// Because the input is sorted, the resample's order statistics are found by counting how
/// often each index was drawn and walking the counts: O(n) per resample with no sorting or
/// selection, which keeps 2000 resamples of 1000 samples in the low milliseconds.
/// `counts` is scratch space of length `sorted.len()`.
fn resampled_median(sorted: &[f64], counts: &mut [u32], rng: &mut ChaCha8Rng) -> f64 {
    let n = sorted.len();
    counts.fill(0);
    for _ in 0..n {
        counts[rng.gen_range(0..n)] += 1;
    }
    // numpy-linear median: mean of the order statistics at ranks (n-1)/2 and n/2 (0-based).
    let (lo_rank, hi_rank) = ((n - 1) / 2, n / 2);
    let mut seen = 0usize;
    let mut lo = None;
    for (i, &c) in counts.iter().enumerate() {
        seen += c as usize;
        if lo.is_none() && seen > lo_rank {
            lo = Some(sorted[i]);
        }
        if seen > hi_rank {
            let lo = lo.unwrap_or(sorted[i]);
            return interpolate(lo, sorted[i], if lo_rank == hi_rank { 0.0 } else { 0.5 });
        }
    }
    // Unreachable: the counts sum to n > hi_rank.
    sorted[n - 1]
}

/// Median of a sorted slice (mean of the two middle elements for even lengths).
/// NaN for an empty slice.
pub fn median(sorted: &[f64]) -> f64 {
    percentile(sorted, 50.0)
}

/// Percentile `p` (in [0, 100], clamped) of a sorted slice, interpolating linearly between
/// the closest ranks like numpy's default `method='linear'`. NaN for an empty slice.
pub fn percentile(sorted: &[f64], p: f64) -> f64 {
    let n = sorted.len();
    if n == 0 {
        return f64::NAN;
    }
    let p = if p.is_nan() {
        50.0
    } else {
        p.clamp(0.0, 100.0)
    };
    let rank = p / 100.0 * (n - 1) as f64;
    let lo = (rank.floor() as usize).min(n - 1);
    let hi = (lo + 1).min(n - 1);
    interpolate(sorted[lo], sorted[hi], rank - lo as f64)
}

/// `lo + (hi - lo) * frac` for `lo <= hi` and `frac` in [0, 1], guaranteed to stay within
/// [lo, hi] and to be monotone in `frac` (the invariants of [`Summary`] rely on both).
fn interpolate(lo: f64, hi: f64, frac: f64) -> f64 {
    if frac <= 0.0 || lo == hi {
        return lo;
    }
    let d = hi - lo;
    let v = if d.is_finite() {
        lo + d * frac
    } else {
        // The difference overflows only for extreme opposite-signed values.
        lo * (1.0 - frac) + hi * frac
    };
    v.clamp(lo, hi)
}

/// Bootstrap 95% CI of the ratio median(new)/median(base) (for before/after comparison later).
///
/// Each resample draws `base` and `new` independently from a ChaCha8Rng seeded with `seed`.
/// None when either side is empty or has a non-finite sample, or when some resampled ratio
/// is not finite (a resampled base median of zero). With `resamples == 0` both ends are the
/// point ratio.
pub fn bootstrap_ratio_ci(
    base: &[f64],
    new: &[f64],
    seed: u64,
    resamples: usize,
) -> Option<(f64, f64)> {
    let prepare = |xs: &[f64]| {
        if xs.is_empty() || xs.iter().any(|x| !x.is_finite()) {
            return None;
        }
        let mut v = xs.to_vec();
        v.sort_by(f64::total_cmp);
        Some(v)
    };
    let (base, new) = (prepare(base)?, prepare(new)?);
    if resamples == 0 {
        let r = median(&new) / median(&base);
        return r.is_finite().then_some((r, r));
    }
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut base_counts = vec![0u32; base.len()];
    let mut new_counts = vec![0u32; new.len()];
    let mut ratios = Vec::with_capacity(resamples);
    for _ in 0..resamples {
        let b = resampled_median(&base, &mut base_counts, &mut rng);
        let n = resampled_median(&new, &mut new_counts, &mut rng);
        let r = n / b;
        if !r.is_finite() {
            return None;
        }
        ratios.push(r);
    }
    ratios.sort_by(f64::total_cmp);
    Some((percentile(&ratios, 2.5), percentile(&ratios, 97.5)))
}

/// Two-sided Mann-Whitney U test p-value (normal approximation with tie correction and
/// continuity correction). None when either side is empty.
///
/// Matches `scipy.stats.mannwhitneyu(a, b, alternative='two-sided', method='asymptotic',
/// use_continuity=True)`. Also None if any value is NaN, since ranks are then undefined.
/// When every value is tied the statistic has no variance and the p-value is 1.
pub fn mann_whitney_p(a: &[f64], b: &[f64]) -> Option<f64> {
    if a.is_empty() || b.is_empty() || a.iter().chain(b).any(|x| x.is_nan()) {
        return None;
    }
    let (n1, n2) = (a.len() as f64, b.len() as f64);
    let mut all: Vec<(f64, bool)> = a
        .iter()
        .map(|&x| (x, true))
        .chain(b.iter().map(|&x| (x, false)))
        .collect();
    all.sort_by(|x, y| x.0.total_cmp(&y.0));
    let n = all.len() as f64;

    // Average ranks over tie groups; accumulate the tie term sum(t^3 - t) as we go.
    let mut rank_sum_a = 0.0;
    let mut tie_term = 0.0;
    let mut i = 0;
    while i < all.len() {
        let mut j = i + 1;
        // `==` rather than total_cmp so that -0.0 and 0.0 tie, as they do in scipy.
        while j < all.len() && all[j].0 == all[i].0 {
            j += 1;
        }
        let t = (j - i) as f64;
        let avg_rank = (i + j + 1) as f64 / 2.0; // mean of 1-based ranks i+1 ..= j
        let from_a = all[i..j].iter().filter(|e| e.1).count() as f64;
        rank_sum_a += avg_rank * from_a;
        tie_term += t * t * t - t;
        i = j;
    }
    let u1 = rank_sum_a - n1 * (n1 + 1.0) / 2.0;
    let u = u1.max(n1 * n2 - u1);
    let mu = n1 * n2 / 2.0;
    let var = n1 * n2 / 12.0 * ((n + 1.0) - tie_term / (n * (n - 1.0)));
    if var.is_nan() || var <= 0.0 {
        return Some(1.0);
    }
    let z = (u - mu - 0.5) / var.sqrt();
    Some((2.0 * normal_sf(z)).clamp(0.0, 1.0))
}

/// Upper tail of the standard normal distribution, `P(Z > z)`.
fn normal_sf(z: f64) -> f64 {
    0.5 * erfc(z / std::f64::consts::SQRT_2)
}

/// Complementary error function, relative error below 1.2e-7 everywhere (Numerical
/// Recipes' Chebyshev fit). Ample for p-values, and avoids a special-functions dependency.
fn erfc(x: f64) -> f64 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let poly = -z * z - 1.265_512_23
        + t * (1.000_023_68
            + t * (0.374_091_96
                + t * (0.096_784_18
                    + t * (-0.186_288_06
                        + t * (0.278_868_07
                            + t * (-1.135_203_98
                                + t * (1.488_515_87 + t * (-0.822_152_23 + t * 0.170_872_77))))))));
    let r = t * poly.exp();
    if x >= 0.0 {
        r
    } else {
        2.0 - r
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use rand::Rng;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol * b.abs().max(1e-300)
    }

    #[test]
    fn median_and_percentiles_match_numpy_linear() {
        let v: Vec<f64> = (1..=10).map(f64::from).collect();
        assert_eq!(median(&v), 5.5);
        // numpy.percentile(range(1, 11), [5, 25, 95]) == [1.45, 3.25, 9.55]
        assert!(close(percentile(&v, 5.0), 1.45, 1e-12));
        assert!(close(percentile(&v, 25.0), 3.25, 1e-12));
        assert!(close(percentile(&v, 95.0), 9.55, 1e-12));
        assert_eq!(percentile(&v, 0.0), 1.0);
        assert_eq!(percentile(&v, 100.0), 10.0);
        assert_eq!(median(&[1.0, 2.0, 7.0]), 2.0);
        assert_eq!(median(&[4.0]), 4.0);
        assert!(median(&[]).is_nan());
        assert_eq!(percentile(&[3.0], 5.0), 3.0);
        // numpy.percentile([10, 20, 40], 60) == 24.0
        assert!(close(percentile(&[10.0, 20.0, 40.0], 60.0), 24.0, 1e-12));
    }

    #[test]
    fn summary_known_values() {
        let v: Vec<f64> = (1..=10).rev().map(f64::from).collect();
        let s = summarize(&v, 1, 1000).unwrap();
        assert_eq!(s.n, 10);
        assert_eq!((s.min, s.max, s.median, s.mean), (1.0, 10.0, 5.5, 5.5));
        // Sample variance of 1..=10 is 55/6.
        assert!(close(s.stddev, (55.0f64 / 6.0).sqrt(), 1e-12));
        assert!(close(s.cv_pct, (55.0f64 / 6.0).sqrt() / 5.5 * 100.0, 1e-12));
        assert!(close(s.p5, 1.45, 1e-12));
        assert!(close(s.p95, 9.55, 1e-12));
        // |x - 5.5| = 0.5,0.5,1.5,1.5,...,4.5,4.5 → median 2.5
        assert_eq!(s.mad, 2.5);
        assert!(s.median_ci_low <= s.median && s.median <= s.median_ci_high);
        assert!(s.median_ci_low >= 1.0 && s.median_ci_high <= 10.0);

        let m = summarize(&[1.0, 1.0, 2.0, 2.0, 4.0, 6.0, 9.0], 1, 0).unwrap();
        assert_eq!(m.median, 2.0);
        // |x - 2| = 1,1,0,0,2,4,7 → sorted 0,0,1,1,2,4,7 → 1
        assert_eq!(m.mad, 1.0);
        assert_eq!((m.median_ci_low, m.median_ci_high), (2.0, 2.0));
    }

    #[test]
    fn degenerate_inputs() {
        assert_eq!(summarize(&[], 0, 100), None);
        assert_eq!(summarize(&[1.0, f64::NAN], 0, 100), None);
        assert_eq!(summarize(&[1.0, f64::INFINITY], 0, 100), None);
        let s = summarize(&[42.0], 0, 100).unwrap();
        assert_eq!(
            (s.min, s.max, s.median, s.mean, s.stddev, s.cv_pct, s.mad),
            (42.0, 42.0, 42.0, 42.0, 0.0, 0.0, 0.0)
        );
        assert_eq!((s.median_ci_low, s.median_ci_high), (42.0, 42.0));
        let z = summarize(&[0.0, 0.0], 0, 10).unwrap();
        assert_eq!(z.cv_pct, 0.0);
        let z = summarize(&[-1.0, 1.0], 0, 10).unwrap();
        assert_eq!(z.cv_pct, f64::INFINITY);
    }

    #[test]
    fn extreme_magnitudes_stay_finite() {
        let s = summarize(&[-f64::MAX, f64::MAX, 0.0], 3, 50).unwrap();
        assert_eq!(s.median, 0.0);
        assert_eq!(s.mean, 0.0);
        assert!(s.stddev.is_finite() && s.stddev > 1e308);
        let tiny = [1e-300, 3e-300];
        let s = summarize(&tiny, 3, 50).unwrap();
        assert!(close(s.stddev, 2f64.sqrt() * 1e-300, 1e-12), "{}", s.stddev);
        assert!(close(s.mean, 2e-300, 1e-12));
    }

    /// Deterministic, roughly normal sample (sum of uniforms) around 1000 ns.
    fn normalish(n: usize, seed: u64) -> Vec<f64> {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        (0..n)
            .map(|_| 1000.0 + (0..12).map(|_| rng.gen::<f64>()).sum::<f64>() * 10.0 - 60.0)
            .collect()
    }

    #[test]
    fn bootstrap_is_deterministic_and_contains_median() {
        let v = normalish(500, 7);
        let a = summarize(&v, 99, 2000).unwrap();
        let b = summarize(&v, 99, 2000).unwrap();
        assert_eq!(a, b);
        let c = summarize(&v, 100, 2000).unwrap();
        assert_ne!(
            (a.median_ci_low, a.median_ci_high),
            (c.median_ci_low, c.median_ci_high)
        );
        assert!(a.median_ci_low < a.median && a.median < a.median_ci_high);
        // The CI width of a median of 500 samples with sd ~10 is a couple of ns, not tens.
        assert!(a.median_ci_high - a.median_ci_low < 5.0, "{a:?}");
        assert!(a.median_ci_high - a.median_ci_low > 0.1, "{a:?}");
    }

    #[test]
    fn resampled_median_matches_explicit_resample() {
        for n in [1usize, 2, 3, 10, 11] {
            let mut sorted: Vec<f64> = normalish(n, n as u64);
            sorted.sort_by(f64::total_cmp);
            let mut rng_a = ChaCha8Rng::seed_from_u64(5);
            let mut rng_b = ChaCha8Rng::seed_from_u64(5);
            let mut counts = vec![0; n];
            for _ in 0..50 {
                let fast = resampled_median(&sorted, &mut counts, &mut rng_a);
                let mut explicit: Vec<f64> =
                    (0..n).map(|_| sorted[rng_b.gen_range(0..n)]).collect();
                explicit.sort_by(f64::total_cmp);
                assert_eq!(fast, median(&explicit));
            }
        }
    }

    #[test]
    fn bootstrap_is_fast() {
        let v = normalish(1000, 1);
        let t = std::time::Instant::now();
        let s = summarize(&v, 1, 2000).unwrap();
        let elapsed = t.elapsed();
        assert!(s.median_ci_low < s.median_ci_high);
        // Debug builds are ~10-30x slower than release; the release target is < 50 ms.
        let limit = if cfg!(debug_assertions) { 2000 } else { 50 };
        assert!(elapsed.as_millis() < limit, "{elapsed:?}");
    }

    #[test]
    fn ratio_ci() {
        let base = normalish(300, 1);
        let slower: Vec<f64> = normalish(300, 2).iter().map(|x| x * 1.5).collect();
        let (lo, hi) = bootstrap_ratio_ci(&base, &slower, 4, 2000).unwrap();
        assert!(lo < 1.5 && 1.5 < hi && hi - lo < 0.05, "{lo} {hi}");
        assert_eq!(
            bootstrap_ratio_ci(&base, &slower, 4, 2000),
            Some((lo, hi)),
            "same seed, same CI"
        );
        let (lo, hi) = bootstrap_ratio_ci(&base, &base, 4, 2000).unwrap();
        assert!(lo <= 1.0 && 1.0 <= hi);
        assert_eq!(bootstrap_ratio_ci(&[2.0], &[3.0], 0, 0), Some((1.5, 1.5)));
        assert_eq!(bootstrap_ratio_ci(&[], &[1.0], 0, 10), None);
        assert_eq!(bootstrap_ratio_ci(&[1.0], &[f64::NAN], 0, 10), None);
        assert_eq!(bootstrap_ratio_ci(&[0.0], &[1.0], 0, 10), None);
    }

    #[test]
    fn erfc_accuracy() {
        // Reference values from Python's math.erfc.
        for (x, want) in [
            (0.0, 1.0),
            (0.1, 0.8875370839817152),
            (0.5, 0.4795001221869535),
            (1.0, 0.15729920705028513),
            (2.0, 0.004677734981047265),
            (3.0, 2.2090496998585438e-05),
            (5.0, 1.5374597944280351e-12),
            (-1.0, 2.0 - 0.15729920705028513),
        ] {
            assert!(close(erfc(x), want, 2e-7), "erfc({x}) = {}", erfc(x));
        }
    }

    #[test]
    fn mann_whitney_known_values() {
        // scipy.stats.mannwhitneyu([1,2,3,4,5], [6,7,8,9,10], alternative='two-sided',
        // method='asymptotic', use_continuity=True): U = 25, mu = 12.5,
        // sigma = sqrt(25 * 11 / 12), z = 12 / sigma = 2.50672, p = erfc(z / sqrt 2).
        let p = mann_whitney_p(&[1.0, 2.0, 3.0, 4.0, 5.0], &[6.0, 7.0, 8.0, 9.0, 10.0]).unwrap();
        assert!(close(p, 0.012185780355344818, 1e-6), "{p}");
        // Symmetric in its arguments.
        let q = mann_whitney_p(&[6.0, 7.0, 8.0, 9.0, 10.0], &[1.0, 2.0, 3.0, 4.0, 5.0]).unwrap();
        assert_eq!(p, q);
        // With ties: [1,2,2,3] vs [2,3,4,5]: U1 = 2.5, tie term 30, sigma = 3.35942,
        // z = (13.5 - 8 - 0.5) / sigma = 1.48835, p = 0.136658 (hand-computed).
        let p = mann_whitney_p(&[1.0, 2.0, 2.0, 3.0], &[2.0, 3.0, 4.0, 5.0]).unwrap();
        assert!(close(p, 0.13665824773814753, 1e-6), "{p}");
    }

    #[test]
    fn mann_whitney_extremes() {
        let a = normalish(200, 1);
        let b: Vec<f64> = normalish(200, 2).iter().map(|x| x + 20.0).collect();
        assert!(mann_whitney_p(&a, &b).unwrap() < 1e-10);
        assert_eq!(mann_whitney_p(&a, &a), Some(1.0));
        let same = mann_whitney_p(&a, &normalish(200, 3)).unwrap();
        assert!(same > 0.01, "{same}");
        assert_eq!(mann_whitney_p(&[3.0; 5], &[3.0; 4]), Some(1.0));
        assert_eq!(mann_whitney_p(&[], &[1.0]), None);
        assert_eq!(mann_whitney_p(&[1.0], &[]), None);
        assert_eq!(mann_whitney_p(&[f64::NAN], &[1.0]), None);
        let p = mann_whitney_p(&[1.0], &[2.0]).unwrap();
        assert!((0.0..=1.0).contains(&p));
    }

    fn finite() -> impl Strategy<Value = f64> {
        prop_oneof![
            prop::num::f64::NORMAL | prop::num::f64::SUBNORMAL | prop::num::f64::ZERO,
            0.0f64..1e6,
            prop::sample::select(vec![0.0, 1.0, 1000.0, -f64::MAX, f64::MAX]),
        ]
    }

    proptest! {
        #[test]
        fn summarize_respects_order_invariants(
            v in prop::collection::vec(finite(), 1..60),
            seed in any::<u64>(),
        ) {
            let s = summarize(&v, seed, 50).expect("finite input");
            prop_assert_eq!(s.n, v.len());
            prop_assert!(s.min <= s.p5 && s.p5 <= s.median, "{:?}", s);
            prop_assert!(s.median <= s.p95 && s.p95 <= s.max, "{:?}", s);
            prop_assert!(s.min <= s.median_ci_low && s.median_ci_low <= s.median_ci_high, "{:?}", s);
            prop_assert!(s.median_ci_high <= s.max, "{:?}", s);
            prop_assert!(s.min <= s.mean && s.mean <= s.max, "{:?}", s);
            prop_assert!(s.stddev >= 0.0 && s.mad >= 0.0, "{:?}", s);
            prop_assert!(!s.cv_pct.is_nan(), "{:?}", s);
            prop_assert_eq!(summarize(&v, seed, 50), Some(s));
        }

        #[test]
        fn summarize_never_panics(v in prop::collection::vec(any::<f64>(), 0..40), r in 0usize..20) {
            let _ = summarize(&v, 0, r);
            let _ = bootstrap_ratio_ci(&v, &v, 0, r);
            let _ = mann_whitney_p(&v, &v);
        }

        #[test]
        fn mann_whitney_p_is_a_probability(
            a in prop::collection::vec(finite(), 1..30),
            b in prop::collection::vec(finite(), 1..30),
        ) {
            let p = mann_whitney_p(&a, &b).unwrap();
            prop_assert!((0.0..=1.0).contains(&p), "{}", p);
        }
    }
}
