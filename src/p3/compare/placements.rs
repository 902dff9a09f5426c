//! Where the data sat, as compare sees it: kept rounds grouped by placement, the ratio over
//! placements (paired inside each within one run), one placement's ratio, the placement SD
//! widening a two-run interval, and the placement check's say on a pair.
use super::*;

/// The placement check's say on a pair (both sides timed in rounds, no failure): each side's
/// verdict by the runner's rule ([`placement_verdict`] on its kept and moved round medians,
/// or results.csv `placement` when samples.csv has no moved rounds), and for two variants of
/// one run the ratio in the moved rounds. That ratio counts when it falls outside the 99 %
/// prediction interval of one more paired round's ratio and its own verdict differs.
pub(super) fn placement_of_pair(
    row: &mut PairRow,
    base: (&RunData, &Record, &[(u32, f64)]),
    new: (&RunData, &Record, &[(u32, f64)]),
    same_run: bool,
    opts: &CompareOptions,
) -> bool {
    let values = |r: &[(u32, f64)]| r.iter().map(|(_, m)| *m).collect::<Vec<f64>>();
    let mut notes = Vec::new();
    let mut depends = false;
    let mut moved = Vec::new();
    for (side, (run, r, kept)) in [("base", base), ("new", new)] {
        let m = run.placement_medians(&r.key());
        let step = r.num("timer_step_ns").unwrap_or(0.0);
        let sensitive = match placement_verdict(&values(kept), &values(&m), step) {
            Some(v) => v,
            None => r.get("placement") == "sensitive",
        };
        if sensitive {
            // Two runs: each side sat in a placement of its own.
            depends |= !same_run;
            let pct = match (m.is_empty(), kept.is_empty()) {
                (false, false) => {
                    let mean = |v: Vec<f64>| v.iter().sum::<f64>() / v.len() as f64;
                    Some((mean(values(&m)) / mean(values(kept)) - 1.0) * 100.0)
                }
                _ => r.num("placement_pct"),
            };
            notes.push(match pct {
                Some(p) => format!(
                    "{side} `{}` moved {p:+.1} % with its data",
                    r.get("variant")
                ),
                None => format!("{side} `{}` moved with its data", r.get("variant")),
            });
        }
        moved.push(m);
    }
    if same_run {
        let by_round: HashMap<u32, f64> = moved[1].iter().copied().collect();
        let logs: Vec<f64> = moved[0]
            .iter()
            .filter_map(|(r, x)| by_round.get(r).map(|y| (y / x).ln()))
            .filter(|l| l.is_finite())
            .collect();
        if !logs.is_empty() {
            let rm = (logs.iter().sum::<f64>() / logs.len() as f64).exp();
            row.ratio_moved = Some(rm);
            // The kept rounds' ratios, paired by round, as compare paired them.
            let by_round: HashMap<u32, f64> = new.2.iter().copied().collect();
            let kept_logs: Vec<f64> = base
                .2
                .iter()
                .filter_map(|(r, x)| by_round.get(r).map(|y| (y / x).ln()))
                .collect();
            let outside = round_prediction(&kept_logs, 0.0, 0.99)
                .is_some_and(|(lo, hi)| rm.ln() < lo || rm.ln() > hi);
            let there = verdict_for_ci((rm, rm), opts.noise_pct);
            if outside && there != row.verdict {
                depends = true;
                notes.push(format!(
                    "with the data moved the ratio is {rm:.3} ({})",
                    there.as_str()
                ));
            }
        }
    }
    row.placement = notes.join("; ");
    depends
}

/// Widen a ratio's interval by a normal component of log-variance `var` (in quadrature with
/// each side of the interval's log half-width).
pub(super) fn widen_for_placement(ri: RatioInterval, var: f64) -> RatioInterval {
    let z = 1.96 * var.sqrt();
    let (lo, hi) = ((ri.ratio / ri.low).ln(), (ri.high / ri.ratio).ln());
    RatioInterval {
        low: ri.ratio * (-lo.hypot(z)).exp(),
        high: ri.ratio * hi.hypot(z).exp(),
        ..ri
    }
}

/// Kept rounds `(round, median)` grouped by the placement they ran in (`round → placement`;
/// a round without one counts as placement 0).
pub(super) fn by_placement(
    rounds: &[(u32, f64)],
    at: &HashMap<u32, u32>,
) -> BTreeMap<u32, Vec<(u32, f64)>> {
    let mut g: BTreeMap<u32, Vec<(u32, f64)>> = BTreeMap::new();
    for &(r, m) in rounds {
        g.entry(at.get(&r).copied().unwrap_or(0))
            .or_default()
            .push((r, m));
    }
    g
}

/// Each placement's mean round median, by placement index.
pub(super) fn placement_means(g: &BTreeMap<u32, Vec<(u32, f64)>>) -> Vec<f64> {
    g.values()
        .map(|v| v.iter().map(|(_, m)| m).sum::<f64>() / v.len() as f64)
        .collect()
}

/// Two sides' kept rounds, one placement: paired by round within one run (at least two
/// common rounds), Welch's otherwise.
pub(super) fn rounds_ratio(
    rb: &[(u32, f64)],
    rn: &[(u32, f64)],
    same_run: bool,
) -> (Method, Option<RatioInterval>) {
    let values = |r: &[(u32, f64)]| r.iter().map(|(_, m)| *m).collect::<Vec<f64>>();
    // Within one run round k of both variants ran close in time: pair them by index, only
    // rounds both have.
    let common: Vec<(f64, f64)> = if same_run {
        let by_round: HashMap<u32, f64> = rn.iter().copied().collect();
        rb.iter()
            .filter_map(|(r, x)| by_round.get(r).map(|y| (*x, *y)))
            .collect()
    } else {
        Vec::new()
    };
    if common.len() >= 2 {
        let (x, y): (Vec<f64>, Vec<f64>) = common.into_iter().unzip();
        (Method::PairedRounds, paired_ratio(&x, &y))
    } else {
        // Two runs, or (rarely) variants of one run with under two common rounds.
        (
            Method::UnpairedRounds,
            unpaired_ratio(&values(rb), &values(rn)),
        )
    }
}

/// Two variants of one run measured over placements: in each placement the geometric mean of
/// the paired rounds' ratios, then a t-interval over placements (placements - 1 degrees of
/// freedom). None with fewer than two placements both sides ran in.
pub(super) fn paired_over_placements(
    rb: &[(u32, f64)],
    at: &HashMap<u32, u32>,
    rn: &[(u32, f64)],
) -> Option<RatioInterval> {
    let by_round: HashMap<u32, f64> = rn.iter().copied().collect();
    let mut logs: BTreeMap<u32, Vec<f64>> = BTreeMap::new();
    for (r, x) in rb {
        if let Some(y) = by_round.get(r) {
            let l = (y / x).ln();
            if l.is_finite() {
                logs.entry(at.get(r).copied().unwrap_or(0))
                    .or_default()
                    .push(l);
            }
        }
    }
    let ratios: Vec<f64> = logs
        .values()
        .map(|v| (v.iter().sum::<f64>() / v.len() as f64).exp())
        .collect();
    let ones = vec![1.0; ratios.len()];
    paired_ratio(&ones, &ratios)
}

/// What two runs' first placements alone (`multi`: each side measured over several, its
/// first one; otherwise each run's one placement before the placement SD is counted) would
/// have read, `v`, where the interval over placements reads no change.
pub(super) fn narrow_note_for(v: &Verdict, narrow: Option<RatioInterval>, multi: bool) -> String {
    let what = if multi {
        "each run's first placement alone"
    } else {
        "one placement each, without the placement SD"
    };
    match narrow {
        Some(ri) => format!(
            "{what} would read {} ({:.3} [{:.3}, {:.3}]); the two runs sat in different memory, and the interval over placements holds that",
            v.as_str(),
            ri.ratio,
            ri.low,
            ri.high
        ),
        None => format!(
            "{what} would read {}; the two runs sat in different memory, and the interval over placements holds that",
            v.as_str()
        ),
    }
}
