//! What the probe records say: resident warps / waves and workgroups per unit (SM, or the
//! device without SM ids), the launch order and the tail; and whether the counts are
//! physically possible against the theoretical occupancy.
use super::{Group, Records};
use std::collections::BTreeMap;

/// What the records say.
#[derive(Debug, Clone, PartialEq)]
pub struct Analysis {
    /// Groups of the grid, and how many of them left at least one complete subgroup record.
    pub groups: usize,
    /// Groups of the grid that left at least one complete subgroup record.
    pub recorded: usize,
    /// Complete subgroup records, and records that began but never ended.
    pub subgroups_recorded: usize,
    /// Subgroup records that began but never ended (a subgroup that left without `p3_group_end()`).
    pub subgroups_unfinished: usize,
    /// Distinct SM ids seen (1 without SM ids: the whole device is one unit).
    pub units: usize,
    /// Whether the records carry SM ids (else the device is one unit).
    pub has_unit_ids: bool,
    /// Most groups running at once on one unit for at least `SUSTAIN` of the median group's
    /// duration. A group counts while all its subgroups are resident (last start to first end),
    /// or, where most groups never had all their subgroups at once (subgroups run one after
    /// another), from its first subgroup's start to its last one's end.
    pub per_unit_max: u32,
    /// Most groups at once at any instant, hand-overs included.
    pub per_unit_peak: u32,
    /// Time-weighted mean of the groups running at once on a unit, over that unit's busy
    /// window (first start to last end on it), averaged over the units.
    pub per_unit_mean: f64,
    /// The same three for subgroups (warps on NVIDIA, waves on AMD), `SUSTAIN` of the median
    /// subgroup's duration.
    pub waves_per_unit_max: u32,
    /// Most subgroups at once on one unit at any instant, hand-overs included.
    pub waves_per_unit_peak: u32,
    /// Time-weighted mean of the subgroups running at once on a unit over its busy window, averaged
    /// over the units.
    pub waves_per_unit_mean: f64,
    /// Per unit (SM id, or None for the device): the sustained group and subgroup counts.
    pub per_unit: Vec<UnitCount>,
    /// Last end minus first start, in ticks.
    pub span: u64,
    /// Time from the 95th-percentile group end to the last end, as % of the span.
    pub tail_pct: f64,
    /// Start rank of each group (0 = first to start; ties by flat index), `None` if unrecorded.
    pub ranks: Vec<Option<u32>>,
    /// Spearman correlation of start rank with flat group index (1 = row-major launch order).
    pub rank_corr: f64,
}

/// Sustained concurrency on one unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UnitCount {
    /// SM id, or None where the records have none (the whole device).
    pub unit: Option<u32>,
    /// Most groups resident at once on this unit for at least `SUSTAIN` of the median group's
    /// duration.
    pub groups: u32,
    /// Most subgroups (warps / waves) resident at once on this unit, sustained likewise.
    pub waves: u32,
}

/// A level of concurrency counts when it lasts at least this share of the median interval's
/// duration (group or subgroup): the hand-over from a finishing group to the next one, while
/// the old group's last subgroup records its end, is not counted. The first version of the
/// probe timed a group by invocation 0 alone, and then counted 1-3 groups more than the SM can
/// hold in 14 of 385 rows on the H200, up to 11 groups of 256 threads where 8 fit.
pub const SUSTAIN: f64 = 0.1;

fn median_tau(mut durations: Vec<u64>) -> u64 {
    durations.sort_unstable();
    durations
        .get(durations.len() / 2)
        .map_or(0, |d| (*d as f64 * SUSTAIN) as u64)
}

/// Analyse one pass's records; `None` when no subgroup left a complete record.
pub fn analyze(records: &Records) -> Option<Analysis> {
    let groups = records.group_records();
    let rec: Vec<(usize, Group)> = groups
        .iter()
        .enumerate()
        .filter_map(|(i, g)| g.map(|g| (i, g)))
        .collect();
    if rec.is_empty() {
        return None;
    }
    let subs: Vec<_> = records.subgroups.iter().flatten().collect();
    let first = rec.iter().map(|(_, g)| g.start).min().unwrap();
    let last = rec.iter().map(|(_, g)| g.end).max().unwrap();
    let span = last - first;

    // Intervals per unit (SM id, or the device): groups by their first subgroup's SM, over
    // the window in which all their subgroups were resident (Records::group_full_windows);
    // subgroups by their own.
    // A device that runs a group's subgroups one after another (lavapipe: one CPU thread per
    // group) has no such windows; there a group counts from its first start to its last end.
    let mut group_iv: BTreeMap<Option<u32>, Vec<(u64, u64)>> = BTreeMap::new();
    let full: Vec<(u64, u64, Option<u32>)> =
        records.group_full_windows().into_iter().flatten().collect();
    let windows: Vec<(u64, u64, Option<u32>)> = if full.len() * 2 >= rec.len() {
        full
    } else {
        rec.iter().map(|(_, g)| (g.start, g.end, g.sm)).collect()
    };
    for (start, end, sm) in &windows {
        group_iv.entry(*sm).or_default().push((*start, *end));
    }
    let mut wave_iv: BTreeMap<Option<u32>, Vec<(u64, u64)>> = BTreeMap::new();
    for s in &subs {
        wave_iv
            .entry(s.sm)
            .or_default()
            .push((s.start, s.end.max(s.start)));
    }
    let tau_g = median_tau(windows.iter().map(|(s, e, _)| e - s).collect());
    let tau_w = median_tau(subs.iter().map(|s| s.end.saturating_sub(s.start)).collect());
    let level = |iv: &BTreeMap<Option<u32>, Vec<(u64, u64)>>, tau: u64| {
        let (mut max, mut peak, mut means) = (0u32, 0u32, Vec::new());
        for intervals in iv.values() {
            let (p, mean) = concurrency(intervals);
            peak = peak.max(p);
            max = max.max(sustained(intervals, tau));
            means.push(mean);
        }
        (max, peak, means.iter().sum::<f64>() / means.len() as f64)
    };
    let (per_unit_max, per_unit_peak, per_unit_mean) = level(&group_iv, tau_g);
    let (waves_per_unit_max, waves_per_unit_peak, waves_per_unit_mean) = level(&wave_iv, tau_w);
    let per_unit = wave_iv
        .iter()
        .map(|(unit, w)| UnitCount {
            unit: *unit,
            groups: group_iv.get(unit).map_or(0, |g| sustained(g, tau_g)),
            waves: sustained(w, tau_w),
        })
        .collect();

    // Tail: 95th-percentile end (nearest rank) to the last end.
    let mut ends: Vec<u64> = rec.iter().map(|(_, g)| g.end).collect();
    ends.sort_unstable();
    let k = ((0.95 * ends.len() as f64).ceil() as usize).clamp(1, ends.len()) - 1;
    let tail_pct = if span == 0 {
        0.0
    } else {
        (last - ends[k]) as f64 / span as f64 * 100.0
    };

    // Launch order.
    let mut order: Vec<(u64, usize)> = rec.iter().map(|(i, g)| (g.start, *i)).collect();
    order.sort_unstable();
    let mut ranks = vec![None; groups.len()];
    for (r, (_, i)) in order.iter().enumerate() {
        ranks[*i] = Some(r as u32);
    }
    // Spearman over the recorded groups: ranks of the flat index among recorded groups.
    let n = rec.len() as f64;
    let rank_corr = if rec.len() < 2 {
        1.0
    } else {
        let d2: f64 = rec
            .iter()
            .enumerate()
            .map(|(idx_rank, (i, _))| {
                let d = ranks[*i].unwrap() as f64 - idx_rank as f64;
                d * d
            })
            .sum();
        1.0 - 6.0 * d2 / (n * (n * n - 1.0))
    };
    Some(Analysis {
        groups: groups.len(),
        recorded: rec.len(),
        subgroups_recorded: subs.len(),
        subgroups_unfinished: records.unfinished,
        units: group_iv.len(),
        has_unit_ids: subs.iter().any(|s| s.sm.is_some()),
        per_unit_max,
        per_unit_peak,
        per_unit_mean,
        waves_per_unit_max,
        waves_per_unit_peak,
        waves_per_unit_mean,
        per_unit,
        span,
        tail_pct,
        ranks,
        rank_corr,
    })
}

/// The most intervals open together for an unbroken stretch of at least `tau` ticks.
fn sustained(intervals: &[(u64, u64)], tau: u64) -> u32 {
    if tau == 0 {
        return concurrency(intervals).0;
    }
    // An empty interval lasts no time; without them every end follows its own start.
    let mut events: Vec<(u64, i32)> = Vec::with_capacity(intervals.len() * 2);
    for &(s, e) in intervals.iter().filter(|(s, e)| e > s) {
        events.push((s, 1));
        events.push((e, -1));
    }
    events.sort_unstable();
    let levels = intervals.len();
    // since[l]: when the open count last rose to at least l (None while below l).
    let mut since: Vec<Option<u64>> = vec![None; levels + 2];
    let (mut open, mut best) = (0usize, 0u32);
    for (t, d) in events {
        if d > 0 {
            open += 1;
            since[open] = Some(t);
        } else {
            if let Some(s) = since[open].take() {
                if t - s >= tau {
                    // Every level up to `open` lasted at least as long.
                    best = best.max(open as u32);
                }
            }
            open -= 1;
        }
    }
    best
}

/// Most intervals open at once, and the time-weighted mean of the open count over the window
/// from the first start to the last end. Intervals are half-open: one that ends when another
/// starts does not overlap it. A zero-length window counts every interval as concurrent.
fn concurrency(intervals: &[(u64, u64)]) -> (u32, f64) {
    let mut events: Vec<(u64, i32)> = Vec::with_capacity(intervals.len() * 2);
    for &(s, e) in intervals {
        events.push((s, 1));
        events.push((e, -1));
    }
    // Ends (-1) sort before starts (+1) at the same time.
    events.sort_unstable();
    let (mut open, mut max) = (0i32, 0i32);
    for (_, d) in &events {
        open += d;
        max = max.max(open);
    }
    let lo = intervals.iter().map(|i| i.0).min().unwrap_or(0);
    let hi = intervals.iter().map(|i| i.1).max().unwrap_or(0);
    let busy: u64 = intervals.iter().map(|(s, e)| e - s).sum();
    let mean = if hi > lo {
        busy as f64 / (hi - lo) as f64
    } else {
        intervals.len() as f64
    };
    (max.max(0) as u32, mean)
}

/// What the counts are compared with: the theoretical occupancy of the row, per unit.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Expected {
    /// Theoretical resident groups and warps / waves per unit (`occupancy_*_per_unit`).
    pub groups: Option<u32>,
    /// Theoretical resident warps / waves per unit (`occupancy_waves_per_unit`).
    pub waves: Option<u32>,
    /// The hardware's maximum of warps / waves per unit.
    pub max_waves: Option<u32>,
    /// Units on the device (SMs): scales the limits when the records carry no unit ids.
    pub units: Option<u32>,
    /// "SM", "CU" or "WGP"; "warps" or "waves".
    pub unit_name: String,
    /// "warps" (NVIDIA) or "waves" (any other vendor), as messages call subgroups.
    pub wave_name: String,
}

/// `probe_status` and the flags for the row's `flags` column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    /// `ok`, `invalid: <why>` (a count above what the hardware can hold) or
    /// `unchecked: <why>` (nothing to compare with).
    pub status: String,
    /// One `achieved_occupancy>theoretical: ...` entry per count over its limit.
    pub flags: Vec<String>,
}

/// Compare the sustained counts with `e`. With unit ids every unit is held to the per-unit
/// limits (the worst one is named); without them the device is one unit, held to the limits
/// times the unit count where that is known.
pub fn judge(a: &Analysis, e: &Expected) -> Verdict {
    if e.groups.is_none() && e.waves.is_none() && e.max_waves.is_none() {
        return Verdict {
            status: "unchecked: no theoretical occupancy for this device and shader".into(),
            flags: vec![],
        };
    }
    let (scale, where_) = if a.has_unit_ids {
        (1, None)
    } else {
        match e.units {
            Some(n) if n > 0 => (n, Some(format!("on the device ({n} {}s)", e.unit_name))),
            _ => {
                return Verdict {
                    status: format!(
                        "unchecked: no {} ids in the records and the {} count is unknown",
                        e.unit_name, e.unit_name
                    ),
                    flags: vec![],
                }
            }
        }
    };
    let place = |u: &UnitCount| {
        where_.clone().unwrap_or_else(|| match u.unit {
            Some(id) => format!("on {} {id}", e.unit_name),
            None => "on the device".into(),
        })
    };
    // Each limit: the unit that exceeds it most.
    let mut why = Vec::new();
    let mut flags = Vec::new();
    // (limit, what it is, what is counted, the count of a unit)
    type Count = fn(&UnitCount) -> u32;
    let checks: [(Option<u32>, &str, &str, Count); 3] = [
        (e.waves, "theoretical", &e.wave_name, |u| u.waves),
        (e.max_waves, "hardware maximum", &e.wave_name, |u| u.waves),
        (e.groups, "theoretical", "groups", |u| u.groups),
    ];
    for (limit, what, noun, count) in checks {
        let Some(limit) = limit.map(|l| l.saturating_mul(scale)) else {
            continue;
        };
        let worst = a.per_unit.iter().max_by_key(|u| count(u));
        if let Some(u) = worst.filter(|u| count(u) > limit) {
            let n = count(u);
            // The waves over the hardware maximum are over the theoretical too: say it once.
            if what == "hardware maximum" && e.waves.is_some_and(|w| w <= limit) {
                continue;
            }
            why.push(format!("achieved {n} {noun} > {what} {limit} {}", place(u)));
            flags.push(format!(
                "achieved_occupancy>theoretical: {n} {noun} > {limit} {}",
                place(u)
            ));
        }
    }
    Verdict {
        status: if why.is_empty() {
            "ok".into()
        } else {
            format!("invalid: {}", why.join("; "))
        },
        flags,
    }
}

#[cfg(test)]
#[path = "analysis_tests.rs"]
mod tests;
