//! A/B over processes (issue 41): two sides run in alternating fresh processes, and a change
//! is judged at the level that varies between them, the process (asv; Kalibera & Jones).
//! Pairs of adjacent processes (one per side) give one log-ratio each; their mean and its
//! Student-t interval over the pairs say how much the new side changed and how sure that is.
//! Every process effect (clocks, placement, a drifting machine) is inside the spread, so no
//! constant is assumed.

/// One row's (or the overall) A/B judgement over `pairs` pairs of processes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AbRatio {
    /// Geometric mean of the pairs' time ratios new ÷ base.
    pub ratio: f64,
    /// Its 95 % interval (Student's t on pairs − 1 degrees of freedom).
    pub ci: (f64, f64),
    /// Pairs behind it.
    pub pairs: usize,
}

impl AbRatio {
    /// `improved` / `regressed` where the interval lies wholly beyond `noise` (a fraction:
    /// 0.01 is 1 %) on one side of 1, else `no change`.
    pub fn verdict(&self, noise: f64) -> &'static str {
        // The whole interval beyond the band, as compare's rule (criterion's): an interval
        // that clears 1 but not the band (a lavapipe A/A read 1.059 [1.0002, 1.121] over 10
        // pairs) is no change.
        if self.ci.1 < 1.0 - noise {
            "improved"
        } else if self.ci.0 > 1.0 + noise {
            "regressed"
        } else {
            "no change"
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

/// Mean of log-ratios and its t interval, as ratios.
fn mean_ci(d: &[f64]) -> AbRatio {
    let n = d.len() as f64;
    let mean = d.iter().sum::<f64>() / n;
    let var = d.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
    let half = super::inference::t_quantile(0.975, n - 1.0) * (var / n).sqrt();
    AbRatio {
        ratio: mean.exp(),
        ci: ((mean - half).exp(), (mean + half).exp()),
        pairs: d.len(),
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
        };
        assert_eq!(r(1.059, 1.0002, 1.1214).verdict(0.01), "no change");
        assert_eq!(r(1.0644, 1.0113, 1.1202).verdict(0.01), "regressed");
        assert_eq!(r(0.95, 0.90, 0.995).verdict(0.01), "no change");
        assert_eq!(r(0.95, 0.90, 0.985).verdict(0.01), "improved");
    }
}
