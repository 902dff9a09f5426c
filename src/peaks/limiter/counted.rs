//! The counted verdict (issue 25): from the hardware counters' `hw_*` busy percentages, the
//! limiter the GPU measured, which takes `limiter` over from the declared one
//! ([`super::derive`]) and keeps that as a second opinion, flagging where they disagree.
use super::{busy_words, BUSY_PCT};
use crate::results::record::{Counted, Verdict};
use crate::results::{Limiter, LimiterSource, MemoryLevel};
use crate::scenario::Work;

/// The counted units a declared unit's work runs through (the unit registry's
/// [`crate::units::Declared::counted_units`]); `launch` has none.
fn counted_units_of(declared: &str) -> &'static [&'static str] {
    crate::units::declared(declared).map_or(&[], |u| u.counted_units)
}

/// A declared DRAM traffic this far (%) from the counted one is flagged.
pub const DRAM_BYTES_TOLERANCE_PCT: f64 = 15.0;

/// The counter batch's say in the verdict `v` of a timed mode: first the flags its counted
/// figures raise (`c.flags`); then, where the batch may lead (`c.lead`), the P3 verdict from
/// the counters (issue 25), where `hw_*` are set: `hw_limiter` and its
/// percentage from the counted units (every unit past BUSY_PCT, busiest first, `+`-joined),
/// then `limiter` becomes the counted one and the declared verdict moves to
/// `declared_limiter`, a second opinion. A disagreement is a flag naming both: a different
/// limiter, or declared DRAM bytes more than DRAM_BYTES_TOLERANCE_PCT % from the counted ones
/// (rows whose traffic counts against DRAM). `work`: the declared work.
pub fn apply_counted(v: &mut Verdict, c: &Counted, work: &Work) {
    v.flags.extend(c.flags.iter().cloned());
    if c.lead {
        lead(v, c, work);
    }
}

/// The counted verdict takes `limiter` over (see [`apply_counted`]).
fn lead(verdict: &mut Verdict, c: &Counted, work: &Work) {
    let units = [
        ("sm", c.hw_sm_pct),
        ("dram", c.hw_dram_pct),
        ("l2", c.hw_l2_pct),
        ("l1tex", c.hw_l1tex_pct),
        ("tensor", c.hw_tensor_pct),
    ];
    if units.iter().all(|(_, v)| v.is_none()) {
        return;
    }
    // A counted figure over 100 was clamped and flagged where the counters were read
    // (measure/hw `counted`).
    let mut busy: Vec<(&str, f64)> = units
        .iter()
        .filter_map(|(n, v)| v.filter(|v| *v >= BUSY_PCT).map(|v| (*n, v)))
        .collect();
    busy.sort_by(|a, b| b.1.total_cmp(&a.1));
    let top = units
        .iter()
        .filter_map(|(n, v)| v.map(|v| (*n, v)))
        .max_by(|a, b| a.1.total_cmp(&b.1));
    let declared = verdict.limiter.take();
    let declared_evidence = std::mem::take(&mut verdict.limiter_evidence);
    let (hw, pct, words) = match busy.first() {
        Some((_, v)) => (
            Limiter::Units(busy.iter().map(|(n, _)| n.to_string()).collect()),
            Some(*v),
            format!(
                "counted: {} (>= {BUSY_PCT} % of the hardware's sustained peak)",
                busy_words(&busy)
            ),
        ),
        None => {
            let busiest = top
                .map(|(n, v)| format!("the busiest, {n}, is at {v:.0} %"))
                .unwrap_or_default();
            // No counted unit is busy: the declared rules for waiting (spills, occupancy,
            // fixed cost) still say which kind of waiting.
            let kind = if declared == Some(Limiter::Occupancy) {
                Limiter::Occupancy
            } else {
                Limiter::Latency
            };
            (
                kind,
                None,
                format!(
                    "counted: no unit reaches {BUSY_PCT} % ({busiest}): the time goes to waiting"
                ),
            )
        }
    };
    // The second opinion.
    let declared_names: &[String] = declared.as_ref().map(Limiter::units).unwrap_or(&[]);
    let declared_units: Vec<&str> = declared_names
        .iter()
        .flat_map(|d| counted_units_of(d).iter().copied())
        .collect();
    let declared_is_unit = !declared_units.is_empty();
    let launch_only = !declared_names.is_empty() && declared_names.iter().all(|d| d == "launch");
    let agree = if busy.is_empty() {
        !declared_is_unit
    } else {
        busy.iter().any(|(n, _)| declared_units.contains(n))
    };
    let judged = !matches!(declared, None | Some(Limiter::None));
    let declared_words = declared
        .as_ref()
        .map(Limiter::to_string)
        .unwrap_or_default();
    if !agree && judged && !launch_only {
        verdict.flags.push(
            format!(
                "limiter: counted `{hw}` but declared `{declared_words}`: the scenario's declared work is not what the GPU did"
            ),
        );
    }
    if verdict.memory_level == Some(MemoryLevel::Dram) {
        let declared_bytes = work.bytes_read.unwrap_or(0) + work.bytes_written.unwrap_or(0);
        if let (true, Some(r), Some(w)) = (
            declared_bytes >= 1 << 20,
            c.hw_dram_read_bytes,
            c.hw_dram_write_bytes,
        ) {
            let counted = (r + w) as f64;
            let d = declared_bytes as f64;
            let off = (counted / d - 1.0) * 100.0;
            if off.abs() > DRAM_BYTES_TOLERANCE_PCT {
                verdict.flags.push(
                    format!(
                        "dram bytes: declared {declared_bytes} but counted {counted:.0} per repetition ({off:+.0} %)"
                    ),
                );
            }
        }
    }
    // A declared figure over 100 % (emptied by `derive`) gives way to the counted figure of
    // the unit behind it, where the row has one; the flag says so (issue 39).
    let over: Vec<String> = verdict
        .declared_over_units
        .split('+')
        .filter(|u| !u.is_empty())
        .map(str::to_string)
        .collect();
    for u in &over {
        let hw = |col: &str| c.pct(col);
        if let Some((col, v)) = crate::results::units::counted_figure(u, hw) {
            if let Some(cell) = verdict.pcts.cell(u) {
                *cell = Some(v.min(100.0));
            }
            verdict.flags.push(format!(
                "{u}: the counted {} ({col}) {v:.0} % stands in for the declared figure",
                crate::results::units::counted_unit(col)
            ));
        }
    }
    // The SM's busiest pipe says which work keeps it busy.
    const PIPES: [&str; 7] = [
        "hw_fma_pct",
        "hw_fmaheavy_pct",
        "hw_alu_pct",
        "hw_fp64_pct",
        "hw_xu_pct",
        "hw_shared_pct",
        "hw_tex_pct",
    ];
    let words = match PIPES
        .iter()
        .filter_map(|col| {
            c.pct(col)
                .map(|v| (crate::results::units::counted_unit(col), v))
        })
        .max_by(|a, b| a.1.total_cmp(&b.1))
    {
        Some((n, v)) if v >= 1.0 => format!("{words}; busiest pipe {n} at {v:.0} %"),
        _ => words,
    };
    verdict.hw_limiter = Some(hw.clone());
    verdict.hw_limiter_pct = pct;
    verdict.declared_limiter_pct = verdict.limiter_pct;
    verdict.limiter_evidence = if declared.is_none() {
        words
    } else {
        format!("{words}; declared: {declared_words} ({declared_evidence})")
    };
    verdict.declared_limiter = declared;
    verdict.limiter = Some(hw);
    verdict.limiter_pct = pct;
    verdict.limiter_source = Some(LimiterSource::Counted);
}
