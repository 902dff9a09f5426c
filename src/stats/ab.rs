//! A/B over processes (issue 41): two sides run in alternating fresh processes, and a change
//! is judged at the level that varies between them, the process (asv; Kalibera & Jones).
//! Pairs of adjacent processes (one per side) give one log-ratio each; their mean and its
//! Student-t interval over the pairs say how much the new side changed and how sure that is.
//! Every process effect (clocks, placement, a drifting machine) is inside the spread, so no
//! constant is assumed.
//!
//! Over a handful of pairs the t interval alone is not enough: its spread is estimated from
//! those few pairs, and processes on a shared machine are far from normal (a CI machine's A/A
//! over 3 pairs read 0.777 [0.684, 0.882], three pairs that happened to fall alike). A change
//! is therefore also confirmed by the pairs themselves: the exact sign-flip (randomization)
//! test of the mean log-ratio, which assumes only that without a change each pair's ratio is
//! as likely above 1 as below. With n pairs its smallest p is 2 / 2^n, so 6 pairs are the
//! fewest that can confirm a change at 5 %; fewer read `inconclusive` where the interval alone
//! would have claimed one.

/// One row's (or the overall) A/B judgement over `pairs` pairs of processes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AbRatio {
    /// Geometric mean of the pairs' time ratios new ÷ base.
    pub ratio: f64,
    /// Its 95 % interval (Student's t on pairs − 1 degrees of freedom).
    pub ci: (f64, f64),
    /// Pairs behind it.
    pub pairs: usize,
    /// Two-sided p of the exact sign-flip test: how often flipping the pairs' signs at random
    /// gives a mean log-ratio at least as far from 0 as the one measured.
    pub p: f64,
}

/// The level a change must reach in the sign-flip test.
pub const ALPHA: f64 = 0.05;

/// The fewest pairs whose sign-flip test can reach `ALPHA` (2 / 2^n ≤ 0.05).
pub const MIN_PAIRS_FOR_A_CHANGE: usize = 6;

impl AbRatio {
    /// `improved` / `regressed` where the interval lies wholly beyond `noise` (a fraction:
    /// 0.01 is 1 %) on one side of 1 and the sign-flip test confirms it (p ≤ `ALPHA`);
    /// `inconclusive` where the interval clears the band but the pairs' signs could be chance
    /// (always so under 6 pairs); else `no change`.
    pub fn verdict(&self, noise: f64) -> &'static str {
        // The whole interval beyond the band, as compare's rule (criterion's): an interval
        // that clears 1 but not the band (a lavapipe A/A read 1.059 [1.0002, 1.121] over 10
        // pairs) is no change.
        let beyond = if self.ci.1 < 1.0 - noise {
            "improved"
        } else if self.ci.0 > 1.0 + noise {
            "regressed"
        } else {
            return "no change";
        };
        if self.p <= ALPHA {
            beyond
        } else {
            "inconclusive"
        }
    }

    /// Why an `inconclusive` verdict is one, in words.
    pub fn why_inconclusive(&self) -> String {
        if self.pairs < MIN_PAIRS_FOR_A_CHANGE {
            format!(
                "the interval clears the band, but {} pairs cannot confirm a change (their signs alone reach p = {:.3} at best; {MIN_PAIRS_FOR_A_CHANGE} or more pairs can)",
                self.pairs,
                2.0 / 2f64.powi(self.pairs as i32)
            )
        } else {
            format!(
                "the interval clears the band, but the pairs' signs could be chance (sign-flip p = {:.3} > {ALPHA})",
                self.p
            )
        }
    }
}

/// The ratio of paired process medians: `base[k]` and `new[k]` ran next to each other. None
/// with fewer than two pairs (no spread to judge by) or a non-positive time.
pub fn paired_ratio(base: &[f64], new: &[f64]) -> Option<AbRatio> {
    let d: Vec<f64> = base.iter().zip(new).map(|(b, n)| (n / b).ln()).collect();
    if d.len() < 2 || d.iter().any(|x| !x.is_finite()) {
        return None;
    }
    Some(mean_ci(&d))
}

/// The overall ratio: per pair of processes, the geometric mean of its rows' ratios (rows of
/// one process share its effect), then their mean over the pairs. `rows[r][k]` is row r's
/// log-ratio in pair k (None where the row is missing in that pair).
pub fn overall_ratio(rows: &[Vec<Option<f64>>]) -> Option<AbRatio> {
    let pairs = rows.iter().map(Vec::len).max().unwrap_or(0);
    let per_pair: Vec<f64> = (0..pairs)
        .filter_map(|k| {
            let v: Vec<f64> = rows
                .iter()
                .filter_map(|r| r.get(k).copied().flatten())
                .collect();
            (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
        })
        .collect();
    (per_pair.len() >= 2).then(|| mean_ci(&per_pair))
}

/// Mean of log-ratios and its t interval, as ratios, with the sign-flip p.
fn mean_ci(d: &[f64]) -> AbRatio {
    let n = d.len() as f64;
    let mean = d.iter().sum::<f64>() / n;
    let var = d.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
    let half = super::inference::t_quantile(0.975, n - 1.0) * (var / n).sqrt();
    AbRatio {
        ratio: mean.exp(),
        ci: ((mean - half).exp(), (mean + half).exp()),
        pairs: d.len(),
        p: sign_flip_p(d),
    }
}

/// Two-sided p of the sign-flip test of mean(d) = 0: the share of the 2^n sign patterns
/// (all of them up to 20 pairs; beyond, 2^20 drawn by a fixed-seed generator, so a re-run
/// reads the same p) whose |sum| reaches the measured |sum|.
pub fn sign_flip_p(d: &[f64]) -> f64 {
    let a: Vec<f64> = d.iter().map(|x| x.abs()).collect();
    let observed = d.iter().sum::<f64>().abs();
    // A hair of slack so that the measured pattern itself always counts despite rounding.
    let reach = observed * (1.0 - 1e-12) - 1e-300;
    let total: f64 = a.iter().sum();
    let count_reaching = |signs: &mut dyn FnMut(usize) -> bool| {
        // Sum with the chosen signs: total minus twice the flipped ones.
        let flipped: f64 = (0..a.len()).filter(|&i| signs(i)).map(|i| a[i]).sum();
        (total - 2.0 * flipped).abs() >= reach
    };
    if a.len() <= 20 {
        let patterns = 1u64 << a.len();
        let hits = (0..patterns)
            .filter(|&m| count_reaching(&mut |i| m >> i & 1 == 1))
            .count();
        hits as f64 / patterns as f64
    } else {
        let draws = 1u64 << 20;
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move || {
            // xorshift64*: a fixed sequence, so the p is the same on every run.
            state ^= state >> 12;
            state ^= state << 25;
            state ^= state >> 27;
            state.wrapping_mul(0x2545_F491_4F6C_DD1D)
        };
        let mut hits = 0u64;
        for _ in 0..draws {
            let mut bits = 0u64;
            let mut left = 0;
            if count_reaching(&mut |_| {
                if left == 0 {
                    bits = next();
                    left = 64;
                }
                left -= 1;
                let b = bits & 1 == 1;
                bits >>= 1;
                b
            }) {
                hits += 1;
            }
        }
        // The measured pattern counts as one of the draws (a p is never 0).
        (hits + 1) as f64 / (draws + 1) as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_real_change_is_found_and_a_process_effect_is_not() {
        // Six pairs; the processes wander by ±4 % together, the new side is 10 % slower.
        let wander = [1.00, 1.04, 0.97, 1.02, 0.96, 1.03];
        let base: Vec<f64> = wander.iter().map(|w| 100.0 * w).collect();
        let new: Vec<f64> = wander
            .iter()
            .zip([1.0, 0.99, 1.01, 1.0, 1.005, 0.995])
            .map(|(w, e)| 110.0 * w * e)
            .collect();
        let r = paired_ratio(&base, &new).unwrap();
        assert!((r.ratio - 1.1).abs() < 0.01, "{r:?}");
        assert_eq!(r.verdict(0.01), "regressed");
        // A/A: the same wandering on both sides, a little noise of its own.
        let same: Vec<f64> = wander
            .iter()
            .zip([1.0, 0.99, 1.01, 1.0, 1.005, 0.995])
            .map(|(w, e)| 100.0 * w * e)
            .collect();
        let aa = paired_ratio(&base, &same).unwrap();
        assert_eq!(aa.verdict(0.01), "no change", "{aa:?}");
        assert!(aa.ci.0 < 1.0 && aa.ci.1 > 1.0);
        assert!(
            paired_ratio(&[1.0], &[1.0]).is_none(),
            "one pair has no spread"
        );
        assert!(paired_ratio(&[1.0, 0.0], &[1.0, 1.0]).is_none());
    }

    #[test]
    fn three_pairs_that_fall_alike_are_inconclusive_not_a_change() {
        // The CI machine's A/A (lavapipe, 2 cores, 3 pairs): three ratios near 0.78 gave a t
        // interval of [0.684, 0.882]. The signs of 3 pairs cannot confirm that (p = 0.25).
        let base = [100.0, 100.0, 100.0];
        let new = [74.0, 78.0, 81.0];
        let r = paired_ratio(&base, &new).unwrap();
        assert!(r.ci.1 < 0.99, "{r:?}");
        assert!((r.p - 0.25).abs() < 1e-12, "{r:?}");
        assert_eq!(r.verdict(0.01), "inconclusive");
        assert!(r.why_inconclusive().contains("3 pairs cannot confirm"));
        // Six pairs that all fall alike: p = 2/64, a change.
        let r = paired_ratio(&[100.0; 6], &[74.0, 78.0, 81.0, 77.0, 79.0, 80.0]).unwrap();
        assert!((r.p - 2.0 / 64.0).abs() < 1e-12, "{r:?}");
        assert_eq!(r.verdict(0.01), "improved");
        // Six pairs, one of them the other way: the interval may still clear the band, the
        // signs do not confirm it.
        let r = paired_ratio(&[100.0; 6], &[70.0, 72.0, 75.0, 73.0, 71.0, 101.0]).unwrap();
        assert!(r.p > ALPHA, "{r:?}");
        assert_ne!(r.verdict(0.01), "improved", "{r:?}");
    }

    #[test]
    fn the_sign_flip_p_is_exact_and_the_drawn_one_close() {
        // Two pairs of equal size, one each way: every pattern reaches |0|.
        assert_eq!(sign_flip_p(&[0.1, -0.1]), 1.0);
        // Three equal pairs, two one way: every pattern's |sum| is 0.1 or 0.3, p = 1.
        assert_eq!(sign_flip_p(&[0.1, 0.1, -0.1]), 1.0);
        assert!((sign_flip_p(&[0.1; 8]) - 2.0 / 256.0).abs() < 1e-12);
        // 24 pairs all alike: the drawn p is the floor 1/(2^20+1), not 0.
        let p = sign_flip_p(&[0.05; 24]);
        assert!(p > 0.0 && p < 1e-5, "{p}");
        // 24 pairs, symmetric: p near 1, and the same on every call.
        let d: Vec<f64> = (0..24)
            .map(|i| if i % 2 == 0 { 0.1 } else { -0.1 })
            .collect();
        assert_eq!(sign_flip_p(&d), sign_flip_p(&d));
        assert!(sign_flip_p(&d) > 0.9);
    }

    #[test]
    fn the_overall_ratio_is_taken_over_pairs_not_rows() {
        // Two rows that move together in each pair: the overall interval is as wide as the
        // pairs' spread, not narrowed by counting each row as independent.
        let rows = vec![
            vec![Some(0.05), Some(-0.05), Some(0.0)],
            vec![Some(0.05), Some(-0.05), None],
        ];
        let o = overall_ratio(&rows).unwrap();
        assert_eq!(o.pairs, 3);
        assert!(o.ci.0 < 1.0 && o.ci.1 > 1.0, "{o:?}");
        assert_eq!(o.verdict(0.01), "no change");
        assert!(overall_ratio(&[vec![Some(0.1)]]).is_none());
    }

    #[test]
    fn a_change_needs_its_whole_interval_beyond_the_noise_band() {
        let r = |ratio, lo, hi| AbRatio {
            ratio,
            ci: (lo, hi),
            pairs: 10,
            p: 0.002,
        };
        assert_eq!(r(1.059, 1.0002, 1.1214).verdict(0.01), "no change");
        assert_eq!(r(1.0644, 1.0113, 1.1202).verdict(0.01), "regressed");
        assert_eq!(r(0.95, 0.90, 0.995).verdict(0.01), "no change");
        assert_eq!(r(0.95, 0.90, 0.985).verdict(0.01), "improved");
        let weak = AbRatio {
            p: 0.1,
            ..r(0.95, 0.90, 0.985)
        };
        assert_eq!(weak.verdict(0.01), "inconclusive");
        assert!(weak.why_inconclusive().contains("p = 0.100"));
    }
}
