//! Inference over rounds: the level where a run's variance lives.
//!
//! Repetitions inside one batch (one submission) are correlated: they share a clock state, a
//! cache state and a neighbour. A confidence interval built on them alone is too narrow, and a
//! re-run falls outside it (issue 11 measured 67 % on one GPU). p3lab therefore times every
//! variant in R rounds, one batch per round, and treats each round's median as one
//! observation (Kalibera & Jones, "Rigorous benchmarking in reasonable time", ISMM 2013: the
//! top level of a hierarchical design carries the variance of the levels below it).
//!
//! - [`rounds_interval`]: the estimate (mean of the round medians) with a Student-t interval;
//!   also the 95 % *re-run* interval, where another run with as many rounds should put its
//!   estimate (a prediction interval: the re-run's own noise is added, `sqrt(2)` wider).
//! - [`paired_ratio`]: two variants of one run, round by round (the same clocks and
//!   neighbours hit both): a t-interval of the mean log ratio.
//! - [`unpaired_ratio`]: two runs: Welch's t-interval on log round medians.
//! - [`trend`]: a least-squares slope over the rounds in the order they ran, with its p-value.

/// Student's t distribution: two-sided 97.5 % quantile for `df` degrees of freedom.
pub fn t975(df: f64) -> f64 {
    t_quantile(0.975, df)
}

/// The `p` quantile of Student's t with `df` degrees of freedom (`df > 0`), by bisection on
/// [`t_cdf`]: exact to ~1e-10, which is plenty for interval ends.
pub fn t_quantile(p: f64, df: f64) -> f64 {
    if !(0.0..=1.0).contains(&p) || df.is_nan() || df <= 0.0 {
        return f64::NAN;
    }
    if p == 0.5 {
        return 0.0;
    }
    if p < 0.5 {
        return -t_quantile(1.0 - p, df);
    }
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    while t_cdf(hi, df) < p {
        hi *= 2.0;
        if hi > 1e12 {
            return f64::INFINITY;
        }
    }
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if t_cdf(mid, df) < p {
            lo = mid;
        } else {
            hi = mid;
        }
        if hi - lo < 1e-12 * hi.max(1.0) {
            break;
        }
    }
    0.5 * (lo + hi)
}

/// Cumulative distribution function of Student's t with `df` degrees of freedom.
pub fn t_cdf(t: f64, df: f64) -> f64 {
    if t.is_nan() || df.is_nan() || df <= 0.0 {
        return f64::NAN;
    }
    if t.is_infinite() {
        return if t > 0.0 { 1.0 } else { 0.0 };
    }
    let x = df / (df + t * t);
    let tail = 0.5 * reg_inc_beta(0.5 * df, 0.5, x);
    if t > 0.0 {
        1.0 - tail
    } else {
        tail
    }
}

/// Two-sided p-value of a t statistic.
pub fn t_two_sided_p(t: f64, df: f64) -> f64 {
    if t.is_nan() {
        return f64::NAN;
    }
    (2.0 * (1.0 - t_cdf(t.abs(), df))).clamp(0.0, 1.0)
}

/// Regularized incomplete beta function I_x(a, b) (Numerical Recipes' continued fraction).
fn reg_inc_beta(a: f64, b: f64, x: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    if x >= 1.0 {
        return 1.0;
    }
    let ln_front = ln_gamma(a + b) - ln_gamma(a) - ln_gamma(b) + a * x.ln() + b * (1.0 - x).ln();
    let front = ln_front.exp();
    if x < (a + 1.0) / (a + b + 2.0) {
        front * beta_cf(a, b, x) / a
    } else {
        1.0 - front * beta_cf(b, a, 1.0 - x) / b
    }
}

fn beta_cf(a: f64, b: f64, x: f64) -> f64 {
    const TINY: f64 = 1e-300;
    let (qab, qap, qam) = (a + b, a + 1.0, a - 1.0);
    let mut c = 1.0;
    let mut d = 1.0 - qab * x / qap;
    if d.abs() < TINY {
        d = TINY;
    }
    d = 1.0 / d;
    let mut h = d;
    for m in 1..=300 {
        let m = m as f64;
        let m2 = 2.0 * m;
        let aa = m * (b - m) * x / ((qam + m2) * (a + m2));
        d = 1.0 + aa * d;
        if d.abs() < TINY {
            d = TINY;
        }
        c = 1.0 + aa / c;
        if c.abs() < TINY {
            c = TINY;
        }
        d = 1.0 / d;
        h *= d * c;
        let aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
        d = 1.0 + aa * d;
        if d.abs() < TINY {
            d = TINY;
        }
        c = 1.0 + aa / c;
        if c.abs() < TINY {
            c = TINY;
        }
        d = 1.0 / d;
        let del = d * c;
        h *= del;
        if (del - 1.0).abs() < 1e-15 {
            break;
        }
    }
    h
}

/// ln Γ(x) for x > 0 (Lanczos, g = 7, n = 9): relative error below 1e-13.
fn ln_gamma(x: f64) -> f64 {
    const G: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        // Reflection: Γ(x)Γ(1-x) = π / sin(πx).
        return (std::f64::consts::PI / (std::f64::consts::PI * x).sin()).ln() - ln_gamma(1.0 - x);
    }
    let x = x - 1.0;
    let mut a = G[0];
    let t = x + 7.5;
    for (i, g) in G.iter().enumerate().skip(1) {
        a += g / (x + i as f64);
    }
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + a.ln()
}

fn mean(x: &[f64]) -> f64 {
    x.iter().sum::<f64>() / x.len() as f64
}

/// Sample standard deviation (n - 1); 0 for fewer than two values.
pub fn sd(x: &[f64]) -> f64 {
    if x.len() < 2 {
        return 0.0;
    }
    let m = mean(x);
    (x.iter().map(|v| (v - m) * (v - m)).sum::<f64>() / (x.len() - 1) as f64).sqrt()
}

/// The estimate over rounds and its intervals.
///
/// Invariants for finite input with at least two rounds: `low <= estimate <= high`,
/// `rerun_low <= low`, `high <= rerun_high`, `half_width >= 0`.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct RoundsInterval {
    /// Round medians behind it.
    pub rounds: usize,
    /// Mean of the round medians.
    pub estimate: f64,
    /// Standard deviation of the round medians.
    pub sd: f64,
    /// 95 % Student-t confidence interval of the estimate, at least the timer's step wide.
    pub low: f64,
    /// Upper end of the 95 % CI.
    pub high: f64,
    /// Half the interval's width in % of the estimate (the adaptive stop's target).
    pub half_width_pct: f64,
    /// 95 % interval for the estimate of a re-run with as many rounds (prediction interval).
    pub rerun_low: f64,
    /// Upper end of the re-run interval.
    pub rerun_high: f64,
    /// The timer's step, not the rounds' spread, sets the width: more rounds cannot narrow it.
    pub resolution_limited: bool,
}

/// None for an empty slice or any non-finite value. One round gives a zero-width interval
/// with `half_width_pct = inf` (nothing is known about the spread yet).
///
/// `step_ns` is the timer's step ([`crate::vk::timestamps::Timings::step_ns`]; 0 when unknown). A
/// duration read off a timer that advances in steps of `q` is a multiple of `q`, and so is
/// every batch's median: when the rounds agree to within a step, their spread says nothing
/// about where inside the step the true median lies. The CI is therefore at least `±q/2` wide
/// (the true value is within half a step of the median the timer shows) and the re-run
/// interval at least `±q` (a re-run's median can land one step either way). On an H200,
/// whose timestamps advance in steps of 32 ns, a 3 µs dispatch whose five round medians were
/// equal got a CI of zero width, and every re-run fell outside it.
pub fn rounds_interval(round_medians: &[f64], step_ns: f64) -> Option<RoundsInterval> {
    let r = round_medians.len();
    if r == 0 || round_medians.iter().any(|x| !x.is_finite()) || !step_ns.is_finite() {
        return None;
    }
    let m = mean(round_medians);
    if r == 1 {
        return Some(RoundsInterval {
            rounds: 1,
            estimate: m,
            sd: 0.0,
            low: m,
            high: m,
            half_width_pct: f64::INFINITY,
            rerun_low: m,
            rerun_high: m,
            resolution_limited: false,
        });
    }
    let s = sd(round_medians);
    let t = t975((r - 1) as f64);
    let spread_hw = t * s / (r as f64).sqrt();
    let step = step_ns.max(0.0);
    let hw = spread_hw.max(step / 2.0);
    let rerun_hw = (spread_hw * std::f64::consts::SQRT_2).max(step);
    Some(RoundsInterval {
        rounds: r,
        estimate: m,
        sd: s,
        low: m - hw,
        high: m + hw,
        half_width_pct: if m != 0.0 {
            hw / m.abs() * 100.0
        } else {
            f64::INFINITY
        },
        rerun_low: m - rerun_hw,
        rerun_high: m + rerun_hw,
        resolution_limited: step / 2.0 > spread_hw,
    })
}

/// Where one more round's median should fall, with probability `p`, if nothing changed: the
/// prediction interval `mean ± t(p) s sqrt(1 + 1/n)` over the round medians (n - 1 degrees of
/// freedom), at least one timer step either way. None with fewer than two rounds or
/// non-finite values.
pub fn round_prediction(round_medians: &[f64], step_ns: f64, p: f64) -> Option<(f64, f64)> {
    let n = round_medians.len();
    if n < 2 || round_medians.iter().any(|x| !x.is_finite()) || !(0.0..1.0).contains(&p) {
        return None;
    }
    let m = mean(round_medians);
    let t = t_quantile(0.5 + p / 2.0, (n - 1) as f64);
    let hw = (t * sd(round_medians) * (1.0 + 1.0 / n as f64).sqrt()).max(step_ns.max(0.0));
    Some((m - hw, m + hw))
}

/// A ratio new/base with its 95 % interval and a p-value for "no difference".
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RatioInterval {
    /// new/base, from the mean difference of the logarithms of the times.
    pub ratio: f64,
    /// Lower end of the 95 % interval of the ratio.
    pub low: f64,
    /// Upper end of the 95 % interval of the ratio.
    pub high: f64,
    /// Two-sided p-value of "no difference" (a t-test on the logarithms of the times).
    pub p: f64,
    /// Rounds (paired) or rounds per side, smaller of the two (unpaired).
    pub n: usize,
}

/// Two variants of one run, round by round: the geometric mean of the per-round ratios
/// new/base with a t-interval, and the paired t-test's p. Rounds are matched by index; only
/// rounds both sides have count. None with fewer than two common rounds or a non-positive time.
pub fn paired_ratio(base: &[f64], new: &[f64]) -> Option<RatioInterval> {
    let n = base.len().min(new.len());
    if n < 2 {
        return None;
    }
    let mut logs = Vec::with_capacity(n);
    for (b, x) in base[..n].iter().zip(&new[..n]) {
        if !(b.is_finite() && x.is_finite() && *b > 0.0 && *x > 0.0) {
            return None;
        }
        logs.push((x / b).ln());
    }
    let se = sd(&logs) / (n as f64).sqrt();
    Some(log_ratio_interval(mean(&logs), se, (n - 1) as f64, n))
}

/// A mean log ratio `d` with standard error `se` and `df` degrees of freedom, as a ratio with
/// its 95 % t-interval and the two-sided p of "no difference".
fn log_ratio_interval(d: f64, se: f64, df: f64, n: usize) -> RatioInterval {
    let hw = t975(df) * se;
    let p = if se > 0.0 {
        t_two_sided_p(d / se, df)
    } else if d == 0.0 {
        1.0
    } else {
        0.0
    };
    RatioInterval {
        ratio: d.exp(),
        low: (d - hw).exp(),
        high: (d + hw).exp(),
        p,
        n,
    }
}

/// Two runs: Welch's t-interval of the difference of mean log round medians, as a ratio
/// new/base, with Welch's p. None with fewer than two rounds on a side or a non-positive time.
pub fn unpaired_ratio(base: &[f64], new: &[f64]) -> Option<RatioInterval> {
    if base.len() < 2 || new.len() < 2 {
        return None;
    }
    let logs = |x: &[f64]| -> Option<Vec<f64>> {
        x.iter()
            .map(|v| (v.is_finite() && *v > 0.0).then(|| v.ln()))
            .collect()
    };
    let (lb, ln) = (logs(base)?, logs(new)?);
    let (nb, nn) = (lb.len() as f64, ln.len() as f64);
    let (vb, vn) = (sd(&lb).powi(2) / nb, sd(&ln).powi(2) / nn);
    let d = mean(&ln) - mean(&lb);
    let se = (vb + vn).sqrt();
    // Welch–Satterthwaite degrees of freedom; with both variances zero any df will do.
    let df = if se > 0.0 {
        (vb + vn).powi(2) / (vb * vb / (nb - 1.0) + vn * vn / (nn - 1.0))
    } else {
        nb + nn - 2.0
    };
    Some(log_ratio_interval(d, se, df, base.len().min(new.len())))
}

/// A ratio interval at least as wide as the timer's step allows: each estimate is known only
/// to within half a step (`step_ns / 2`, see [`rounds_interval`]), so the ratio of the true
/// times lies within `exp(±(q/2)(1/base + 1/new))` of the measured ratio, whatever the
/// rounds' spread says. `step_ns` ≤ 0 (unknown) changes nothing.
pub fn widen_for_step(ri: RatioInterval, base: f64, new: f64, step_ns: f64) -> RatioInterval {
    if !(step_ns > 0.0 && base > 0.0 && new > 0.0) {
        return ri;
    }
    let f = step_ns / 2.0 * (1.0 / base + 1.0 / new);
    RatioInterval {
        low: ri.low.min(ri.ratio * (-f).exp()),
        high: ri.high.max(ri.ratio * f.exp()),
        ..ri
    }
}

/// The SD (a fraction) of a whole process's shift in time on a CPU device, which two runs'
/// intervals must carry (issue 41). A CPU's frequency, caches and neighbours differ from one
/// process to the next: on lavapipe (an idle 2-core machine) two processes of unchanged code
/// were 1.14-1.16x apart in bank_conflicts' medians (issue 41), and this session's five
/// further pairs 0.907-1.016x. 1.96 x √2 x 6 % holds a 1.166x shift. Changes smaller than that
/// are found within one run (`compare RUN --pair`), where the process is shared. (On a GPU
/// the process effect is the SM clock it gets, measured by the clock gauge: measure/clock.rs.)
pub const CPU_PROCESS_SD: f64 = 0.06;

/// The SD (a fraction) of a whole process's shift on a GPU where the device has no measured
/// one: the SM clock a process gets (measure/clock.rs, `PROCESS_CLOCK_SD`: 0.35 %, from
/// H100s and H200s), which `compare` of two runs carries in each pair's interval besides the
/// gauged clocks' own difference.
pub const GPU_PROCESS_SD: f64 = 0.0035;

/// The SD (a fraction) of a whole card's shift against another card of the same model and
/// driver, which `compare` of two runs on two cards carries in each pair's interval besides
/// the process SD (in quadrature): what differs between the cards (clocks under load, memory,
/// cooling) moves every row of a run. Three H200s, one suite process each at full size
/// (reports/nvidia-h200/s46/cards.py, 590 rows a pair): two cards agreed within 0.68 % at the 99th percentile of
/// the rows, the third differed from both by 2.55 % there (8.8 % at most, one row); the SD of
/// the log ratios was 0.83 %. 1 % per card holds that 99th percentile (1.96 × √2 × 1 % =
/// 2.8 %).
pub const CARD_SD: f64 = 0.01;

/// Two runs are two processes: the interval also holds the shift a process brings, an SD of
/// `sd` (a fraction) per process, in quadrature with the measured interval on the log scale;
/// p from the widened interval (a normal approximation), never below the measured one.
pub fn widen_for_process(ri: RatioInterval, sd: f64) -> RatioInterval {
    if !(sd > 0.0 && ri.ratio > 0.0 && ri.low > 0.0 && ri.high > 0.0) {
        return ri;
    }
    let z = 1.959_963_984_540_054;
    let extra = z * std::f64::consts::SQRT_2 * (1.0 + sd).ln();
    let l = ri.ratio.ln();
    let below = (l - ri.low.ln()).max(0.0).hypot(extra);
    let above = (ri.high.ln() - l).max(0.0).hypot(extra);
    let se = (below + above) / 2.0 / z;
    let p = (2.0 * super::normal_sf(l.abs() / se)).clamp(ri.p, 1.0);
    RatioInterval {
        low: (l - below).exp(),
        high: (l + above).exp(),
        p,
        ..ri
    }
}

/// A drift across rounds: the least-squares line through the round medians in the order they
/// ran.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Trend {
    /// The fitted change from the first to the last round, in % of the mean.
    pub change_pct: f64,
    /// Two-sided p-value of the slope (t-test, n - 2 degrees of freedom).
    pub p: f64,
}

/// A trend is flagged (and keeps the rounds going) when its slope is this significant...
pub const TREND_P: f64 = 0.01;
/// ...and the fitted change over the kept rounds is larger than this, in %.
pub const TREND_PCT: f64 = 1.0;

impl Trend {
    /// Whether the trend counts: p below TREND_P and a fitted change over TREND_PCT %; then the
    /// rounds go on.
    pub fn flagged(&self) -> bool {
        self.p < TREND_P && self.change_pct.abs() > TREND_PCT
    }
}

/// None with fewer than three rounds or non-finite values.
pub fn trend(round_medians: &[f64]) -> Option<Trend> {
    let n = round_medians.len();
    if n < 3 || round_medians.iter().any(|x| !x.is_finite()) {
        return None;
    }
    let nf = n as f64;
    let xm = (nf - 1.0) / 2.0;
    let ym = mean(round_medians);
    let sxx: f64 = (0..n).map(|i| (i as f64 - xm).powi(2)).sum();
    let sxy: f64 = round_medians
        .iter()
        .enumerate()
        .map(|(i, y)| (i as f64 - xm) * (y - ym))
        .sum();
    let slope = sxy / sxx;
    let resid: f64 = round_medians
        .iter()
        .enumerate()
        .map(|(i, y)| (y - (ym + slope * (i as f64 - xm))).powi(2))
        .sum();
    let se = (resid / (nf - 2.0) / sxx).sqrt();
    let p = if se > 0.0 {
        t_two_sided_p(slope / se, nf - 2.0)
    } else if slope == 0.0 {
        1.0
    } else {
        0.0
    };
    let change_pct = if ym != 0.0 {
        slope * (nf - 1.0) / ym.abs() * 100.0
    } else {
        0.0
    };
    Some(Trend { change_pct, p })
}

/// Smallest change, in %, the placement check reports as a dependence on placement (the
/// noise threshold `compare` uses for a verdict).
pub const PLACEMENT_PCT: f64 = 1.0;

/// The placement check's rule, shared by the runner (results.csv `placement`) and `compare`
/// (which re-derives it from samples.csv): Some(true) when every round on moved resources
/// (`moved`, round medians) fell outside the 99 % prediction interval of one more kept round
/// on the same side, and their mean differs from the kept rounds' mean by at least
/// [`PLACEMENT_PCT`]; Some(false) otherwise; None without moved rounds or with fewer than two
/// kept ones.
pub fn placement_verdict(kept: &[f64], moved: &[f64], step_ns: f64) -> Option<bool> {
    if moved.is_empty() {
        return None;
    }
    let (lo, hi) = round_prediction(kept, step_ns, 0.99)?;
    let est = kept.iter().sum::<f64>() / kept.len() as f64;
    let mean = moved.iter().sum::<f64>() / moved.len() as f64;
    let above = moved.iter().all(|m| *m > hi);
    let below = moved.iter().all(|m| *m < lo);
    let big = est > 0.0 && ((mean / est - 1.0).abs() * 100.0) >= PLACEMENT_PCT;
    Some((above || below) && big)
}

#[cfg(test)]
#[path = "inference_tests.rs"]
mod tests;
