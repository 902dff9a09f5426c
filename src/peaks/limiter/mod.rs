//! What a timed row's numbers say about its limits: each unit's %-of-peak from the declared
//! work, where the memory traffic was served (DRAM or L2), the limiter, and flags for derived
//! numbers that cannot be true. Pure: a typed [`Input`] in, a [`Verdict`] out (the row is
//! made from it at the edge, src/results/record/rows.rs).
//!
//! # The rules
//!
//! * **%-of-peak.** Declared work ÷ median ÷ the unit's measured peak (peaks.csv), × 100, for
//!   every unit the row declares work for: memory (`bytes_read + bytes_written`), `flops`
//!   (against FP32), `shared_bytes`, `texels` (against the texture peak `texture_unit` names
//!   for the format and fetch path, else rgba8 point sampling) and `texels_linear` (against
//!   bilinear; their time shares add up: one texture path serves both), `atomics`, `shared_atomics`, `int_ops`, `sfu_ops`,
//!   `l1_bytes`, `fp64_flops`, `fp16_flops` (against FP16), `int8_dot_ops`, `int16_ops`, `int64_ops`, `l2_bytes` (requests
//!   to the L2, e.g. every tap of a filter, against the L2 read peak), `tensor_flops` against
//!   the tensor peak `tensor_unit` names (`tensor`), and every row's workgroups against the
//!   launch rate.
//! * **L2 fit.** In warm mode, a row whose footprint (`footprint_bytes`, else bytes read +
//!   written) fits in the measured L2 capacity is served by the L2 after its first repetition:
//!   its traffic counts against the L2 read peak (`l2_pct`, `memory_level = l2`) and
//!   `dram_pct` stays empty. Cold mode (L2 evicted before each repetition) and footprints over
//!   the capacity count against DRAM (`memory_level = dram`). Without a measured capacity the
//!   traffic counts against DRAM and `memory_level` stays empty.
//! * **Limiter.** The unit with the highest %-of-peak is the limiter when it is at least
//!   [`BUSY_PCT`] % (P3's rule of thumb: a unit that busy explains the time; below, the time
//!   goes to waiting, not to throughput). Otherwise, in this order: a dispatch within 2x of an
//!   empty dispatch is `latency` (fixed cost); spills (local memory per thread) make it
//!   `latency` (memory round trips); an occupancy under [`LOW_OCCUPANCY_PCT`] % (achieved
//!   where probed, else theoretical) makes it `occupancy`; with some declared work it is
//!   `latency`; with none, or without peaks, `none`. `limiter_evidence` says which rule and
//!   the numbers it used.
//! * **Nothing over 100 %.** A declared %-of-peak over 100 is impossible: the declaration
//!   counts work the hardware did not do at that level (L2 hits counted as DRAM bytes, a
//!   broadcast read counted per thread, texel reuse), or the peak is wrong. Its cell is
//!   emptied (counted.rs puts the counted figure of that unit there where the row was
//!   counted), `declared_over_units` and `declared_over_peak` keep it for the cross-check, a
//!   flag names it with the likely cause, and it never becomes the limiter (issue 39).
//! * **Flags.** A declared %-of-peak over 100, and a %-of-peak against a peak that peaks.csv
//!   marks suspect.
//!
//! The counters' verdict (`hw_*` columns, issue 25) and how it takes over `limiter` are in
//! counted.rs; this file is the declared verdict.
use crate::peaks::Peaks;
use crate::results::record::Verdict;
use crate::results::{Limiter, LimiterSource, MemoryLevel};
use crate::scenario::Work;

/// A unit at least this busy (% of its peak) is the limiter.
pub const BUSY_PCT: f64 = 60.0;
/// Below this occupancy (%), with no busy unit, the limiter is `occupancy`.
pub const LOW_OCCUPANCY_PCT: f64 = 50.0;

/// What the declared verdict is judged from: a timed mode's median, the declared work, and
/// what the build and the check run found (spills, occupancy).
#[derive(Debug, Clone, Copy)]
pub struct Input<'a> {
    /// The mode's headline time, ns; no verdict without one over 0.
    pub median_ns: Option<f64>,
    /// The scenario's declared work per repetition.
    pub work: &'a Work,
    /// Workgroups one repetition launches (the launch rate's work).
    pub workgroups: Option<u64>,
    /// Spilled bytes per thread (the driver's).
    pub spill_bytes_per_thread: Option<u32>,
    /// The theoretical occupancy, %.
    pub occupancy_pct: Option<f64>,
    /// The theoretical resident warps / waves per unit.
    pub occupancy_waves_per_unit: Option<u32>,
    /// What binds the theoretical occupancy (empty where unknown).
    pub occupancy_limiter: &'a str,
    /// The probes' most warps / waves at once per unit.
    pub achieved_waves_per_unit: Option<u32>,
    /// Warm mode (the L2-fit rule holds only there).
    pub warm: bool,
}

fn pct(work: Option<u64>, median_ns: f64, peak: Option<f64>) -> Option<f64> {
    match (work, peak) {
        (Some(w), Some(p)) if w > 0 && median_ns > 0.0 => Some(w as f64 / median_ns / p * 100.0),
        _ => None,
    }
}

/// The verdict of a timed mode without peaks: nothing to judge against.
pub fn no_peaks() -> Verdict {
    Verdict {
        limiter: Some(Limiter::None),
        limiter_evidence: "no peaks for this device: run `p3lab peak`".into(),
        ..Default::default()
    }
}

/// The declared verdict of a timed mode: the %-of-peak of every unit with declared work,
/// `memory_level`, the limiter and the flags. Empty when the median is not over 0.
pub fn derive(input: &Input, peaks: &Peaks) -> Verdict {
    let mut v = Verdict::default();
    let Some(median) = input.median_ns.filter(|m| *m > 0.0) else {
        return v;
    };
    let w = input.work;
    let warm = input.warm;
    let bytes = match (w.bytes_read, w.bytes_written) {
        (None, None) => None,
        (r, w) => Some(r.unwrap_or(0) + w.unwrap_or(0)),
    };
    let footprint = w.footprint_bytes.or(bytes);
    let fits_l2 = match (peaks.l2_capacity, footprint) {
        (Some(cap), Some(f)) => Some(warm && (f as f64) <= cap),
        _ => None,
    };
    let p = &mut v.pcts;
    match fits_l2 {
        Some(true) => {
            v.memory_level = Some(MemoryLevel::L2);
            p.l2_pct = pct(w.l2_bytes.or(bytes), median, peaks.get("l2_read"));
            p.dram_pct = None;
        }
        Some(false) => {
            v.memory_level = Some(MemoryLevel::Dram);
            p.dram_pct = pct(bytes, median, peaks.dram());
        }
        None => p.dram_pct = pct(bytes, median, peaks.dram()),
    }
    // Declared L2 requests (taps that miss the L1) count against the L2 whatever the level.
    if w.l2_bytes.is_some() && fits_l2 != Some(true) {
        p.l2_pct = pct(w.l2_bytes, median, peaks.get("l2_read"));
    }
    p.flop_pct = pct(w.flops, median, peaks.get("fp32"));
    p.shared_pct = pct(w.shared_bytes, median, peaks.get("shared"));
    // `texels` against the unit the scenario named for its format and fetch path
    // (`[measure].texture_unit`), else rgba8 point sampling; bilinear fetches against bilinear.
    let texture_unit = w
        .texels_unit()
        .unwrap_or(crate::scenario::variant::DEFAULT_TEXTURE_UNIT)
        .to_string();
    p.texture_pct = match (
        pct(w.texels, median, peaks.get(&texture_unit)),
        pct(w.texels_linear, median, peaks.get("texture_bilinear")),
    ) {
        (None, None) => None,
        (a, b) => Some(a.unwrap_or(0.0) + b.unwrap_or(0.0)),
    };
    p.atomic_pct = pct(w.atomics, median, peaks.get("atomic"));
    p.shared_atomic_pct = pct(w.shared_atomics, median, peaks.get("shared_atomic"));
    p.int_pct = pct(w.int_ops, median, peaks.get("int32"));
    p.sfu_pct = pct(w.sfu_ops, median, peaks.get("sfu"));
    p.l1_pct = pct(w.l1_bytes, median, peaks.get("l1_read"));
    p.launch_pct = pct(input.workgroups, median, peaks.get("launch"));
    p.fp64_pct = pct(w.fp64_flops, median, peaks.get("fp64"));
    p.int8_dot_pct = pct(w.int8_dot_ops, median, peaks.get("int8_dot"));
    p.int16_pct = pct(w.int16_ops, median, peaks.get("int16"));
    p.int64_pct = pct(w.int64_ops, median, peaks.get("int64"));
    let tensor_unit = w.tensor_unit.clone().unwrap_or_default();
    p.tensor_pct = pct(w.tensor_flops, median, peaks.get(&tensor_unit));
    p.fp16_pct = pct(w.fp16_flops, median, peaks.get("fp16"));

    if let Some(why) = &peaks.foreign {
        v.flags.push(format!("peaks {why} (--force-peaks)"));
    }
    // Every declared unit of the registry, its peak (the row's own texture or tensor unit)
    // and its figure.
    let mut cells = v.pcts.clone();
    let units: Vec<(&str, &str, Option<f64>)> = crate::units::DECLARED
        .iter()
        .map(|u| {
            let peak = match u.name {
                "texture" => texture_unit.as_str(),
                "tensor" => tensor_unit.as_str(),
                _ => u.peaks[0],
            };
            (u.name, peak, cells.cell(u.name).and_then(|c| *c))
        })
        .collect();
    let mut over: Vec<(&str, f64)> = Vec::new();
    for (name, peak_unit, x) in units.iter() {
        let Some(x) = x else { continue };
        let column = pct_column(name);
        if *x > 100.0 {
            over.push((name, *x));
            v.flags.push(format!(
                "{column}: declared {x:.1} % of the {peak_unit} peak, over 100: {}; not a verdict",
                over_cause(name)
            ));
        }
        // Texture: the peaks this row's fetches were divided by (its `texels` unit, bilinear).
        let suspect = peaks.suspect.iter().any(|s| match *name {
            "dram" => crate::units::declared("dram").is_some_and(|u| u.peaks.contains(&s.as_str())),
            "texture" => {
                (s == peak_unit && w.texels.is_some())
                    || (s == "texture_bilinear" && w.texels_linear.is_some())
            }
            _ => s == peak_unit,
        });
        if suspect {
            v.flags
                .push(format!("{column} uses a peak that peaks.csv marks suspect"));
        }
    }
    // A declared figure over 100 % is impossible: the declaration counts work the hardware
    // did not do at that level. It leaves its cell (the counted figure stands in where the
    // row is counted: counted.rs), is kept for the cross-check, and never decides.
    let top = units
        .iter()
        .filter_map(|(n, _, v)| v.map(|v| (*n, v)))
        .filter(|(_, v)| *v <= 100.0)
        .max_by(|a, b| a.1.total_cmp(&b.1));
    // Every unit past BUSY_PCT, busiest first: two busy units are a co-limit (`launch+dram`).
    let mut busy: Vec<(&str, f64)> = units
        .iter()
        .filter_map(|(n, _, v)| v.filter(|v| *v >= BUSY_PCT).map(|v| (*n, v)))
        .filter(|(_, v)| *v <= 100.0)
        .collect();
    busy.sort_by(|a, b| b.1.total_cmp(&a.1));
    v.declared_over_units = over.iter().map(|(n, _)| *n).collect::<Vec<_>>().join("+");
    v.declared_over_peak = over.iter().map(|(_, v)| *v).reduce(f64::max);
    for (name, _) in &over {
        if let Some(cell) = v.pcts.cell(name) {
            *cell = None;
        }
    }
    let (limiter, limiter_pct, evidence) =
        decide(input, &v.declared_over_units, peaks, median, top, &busy);
    v.limiter = Some(limiter);
    v.limiter_pct = limiter_pct;
    v.limiter_evidence = evidence;
    v.limiter_source = Some(LimiterSource::Declared);
    v
}

/// The results.csv column of a declared unit's %-of-peak, as flags name it (issue 29: a flag
/// said `fp32_pct` for the column `flop_pct`).
fn pct_column(unit: &str) -> &'static str {
    crate::units::declared(unit).map_or("", |u| u.column)
}

/// The likely reason a declared unit reads over 100 % of its peak: the declaration counts
/// what a kernel asks for, the hardware serves some of it elsewhere (the unit registry's
/// [`crate::units::Declared::over_cause`]).
pub(crate) fn over_cause(unit: &str) -> &'static str {
    crate::units::declared(unit).map_or("the declared work or the peak is wrong", |u| u.over_cause)
}

/// `a at 92 %, b at 71 %`.
fn busy_words(busy: &[(&str, f64)]) -> String {
    busy.iter()
        .map(|(n, v)| format!("{n} at {v:.0} %"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn decide(
    input: &Input,
    declared_over_units: &str,
    peaks: &Peaks,
    median: f64,
    top: Option<(&str, f64)>,
    busy: &[(&str, f64)],
) -> (Limiter, Option<f64>, String) {
    let top_words = match top {
        Some((n, v)) => format!("the busiest unit, {n}, is at {v:.0} % of its peak"),
        None if !declared_over_units.is_empty() => format!(
            "every declared figure is over 100 % ({declared_over_units}): the declaration gives no verdict"
        ),
        None => "no unit has declared work and a peak".to_string(),
    };
    if let Some((_, v)) = busy.first() {
        let name = Limiter::Units(busy.iter().map(|(n, _)| n.to_string()).collect());
        let words = if busy.len() > 1 {
            format!(
                "{} (each >= {BUSY_PCT} %: co-limited, either can explain the time)",
                busy_words(busy)
            )
        } else {
            format!("{top_words} (>= {BUSY_PCT} %: it explains the time)")
        };
        return (name, Some(*v), words);
    }
    if peaks.values.is_empty() {
        return (
            Limiter::None,
            None,
            "no peaks for this device: run `p3lab peak`".into(),
        );
    }
    if let Some(empty) = peaks.get("empty") {
        if median <= 2.0 * empty {
            return (
                Limiter::Latency,
                None,
                format!(
                    "the dispatch takes {median:.0} ns, within 2x of an empty dispatch ({empty:.0} ns): fixed cost; {top_words}"
                ),
            );
        }
    }
    if let Some(s) = input.spill_bytes_per_thread.filter(|s| *s > 0) {
        return (
            Limiter::Latency,
            None,
            format!("{s} spill bytes per thread (local memory round trips); {top_words}"),
        );
    }
    let occ = match (
        input.achieved_waves_per_unit,
        input.occupancy_waves_per_unit,
        input.occupancy_pct,
    ) {
        (Some(a), Some(_), Some(_)) => input
            .occupancy_pct
            .zip(input.occupancy_waves_per_unit)
            .map(|(p, t)| (p * f64::from(a) / f64::from(t.max(1)), "achieved")),
        (_, _, Some(p)) => Some((p, "theoretical")),
        _ => None,
    };
    if let Some((o, kind)) = occ {
        if o < LOW_OCCUPANCY_PCT {
            let by = if input.occupancy_limiter.is_empty() {
                String::new()
            } else {
                format!(", limited by {}", input.occupancy_limiter)
            };
            return (
                Limiter::Occupancy,
                None,
                format!("{o:.0} % {kind} occupancy (< {LOW_OCCUPANCY_PCT} %{by}); {top_words}"),
            );
        }
    }
    match top {
        Some(_) => (
            Limiter::Latency,
            None,
            format!(
                "{top_words} (< {BUSY_PCT} %): no unit is busy enough, the time goes to waiting"
            ),
        ),
        None => (Limiter::None, None, top_words),
    }
}

mod counted;
pub use counted::{apply_counted, DRAM_BYTES_TOLERANCE_PCT};

#[cfg(test)]
mod tests;
