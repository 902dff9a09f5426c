//! Tests of [`super`] (stats.rs): synthetic samples with known answers.
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
            let mut explicit: Vec<f64> = (0..n).map(|_| sorted[rng_b.gen_range(0..n)]).collect();
            explicit.sort_by(f64::total_cmp);
            assert_eq!(fast, median(&explicit));
        }
    }
}

#[test]
fn bootstrap_gives_an_ordered_interval_around_the_median() {
    // How fast it is belongs in a benchmark, not in a test that a busy machine can fail.
    let v = normalish(1000, 1);
    let s = summarize(&v, 1, 2000).unwrap();
    assert!(s.median_ci_low < s.median_ci_high);
    assert!(s.median_ci_low <= s.median && s.median <= s.median_ci_high);
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

/// Issue 41: two processes on a CPU device differ by up to 16 %: the interval of a pair of
/// runs carries that in quadrature, and its p follows the wider interval.
#[test]
fn two_runs_on_a_cpu_carry_the_process_shift() {
    use super::inference::{widen_for_process, RatioInterval, CPU_PROCESS_SD};
    let narrow = RatioInterval {
        ratio: 1.15,
        low: 1.14,
        high: 1.16,
        p: 1e-6,
        n: 30,
    };
    let w = widen_for_process(narrow, CPU_PROCESS_SD);
    assert!(w.low < 1.0 && w.high > 1.15, "{w:?}");
    assert!(w.p > 0.05 && w.p >= narrow.p, "{w:?}");
    assert_eq!(w.ratio, 1.15);
    // A change well past the process shift is still found.
    let big = widen_for_process(
        RatioInterval {
            ratio: 1.5,
            low: 1.45,
            high: 1.55,
            p: 1e-9,
            n: 30,
        },
        CPU_PROCESS_SD,
    );
    assert!(big.low > 1.2, "{big:?}");
    // No SD: unchanged.
    assert_eq!(widen_for_process(narrow, 0.0), narrow);
}
