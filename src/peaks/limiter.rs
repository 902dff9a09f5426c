//! What a timed row's numbers say about its limits: each unit's %-of-peak from the declared
//! work, where the memory traffic was served (DRAM or L2), the limiter, and flags for derived
//! numbers that cannot be true. Pure: rows in, rows out.
//!
//! # The rules
//!
//! * **%-of-peak.** Declared work ÷ median ÷ the unit's measured peak (peaks.csv), × 100, for
//!   every unit the row declares work for: memory (`bytes_read + bytes_written`), `flops`
//!   (against FP32), `shared_bytes`, `texels` and `texels_linear` (their time shares add up:
//!   one texture unit serves both), `atomics`, `shared_atomics`, `int_ops`, `sfu_ops`,
//!   `l1_bytes`, `fp64_flops`, `int8_dot_ops`, `int16_ops`, `int64_ops`, `l2_bytes` (requests
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
//! * **Flags.** A %-of-peak over 100 (the declared work or the peak is wrong: a peak from
//!   another GPU, traffic that the caches served), and a %-of-peak against a peak that
//!   peaks.csv marks suspect.
use crate::peaks::Peaks;
use crate::results::{Limiter, LimiterSource, MemoryLevel, ResultRow};

/// A unit at least this busy (% of its peak) is the limiter.
pub const BUSY_PCT: f64 = 60.0;
/// Below this occupancy (%), with no busy unit, the limiter is `occupancy`.
pub const LOW_OCCUPANCY_PCT: f64 = 50.0;

fn pct(work: Option<u64>, median_ns: f64, peak: Option<f64>) -> Option<f64> {
    match (work, peak) {
        (Some(w), Some(p)) if w > 0 && median_ns > 0.0 => Some(w as f64 / median_ns / p * 100.0),
        _ => None,
    }
}

pub(crate) fn flag(row: &mut ResultRow, what: String) {
    if !row.flags.is_empty() {
        row.flags.push_str("; ");
    }
    row.flags.push_str(&what);
}

/// Fill the %-of-peak columns, `memory_level`, the limiter and the flags of a timed row
/// (`median_ns` set). `warm` is the row's mode.
pub fn derive(row: &mut ResultRow, peaks: &Peaks, warm: bool) {
    let Some(median) = row.median_ns.filter(|m| *m > 0.0) else {
        return;
    };
    let bytes = match (row.bytes_read, row.bytes_written) {
        (None, None) => None,
        (r, w) => Some(r.unwrap_or(0) + w.unwrap_or(0)),
    };
    let footprint = row.footprint_bytes.or(bytes);
    let fits_l2 = match (peaks.l2_capacity, footprint) {
        (Some(cap), Some(f)) => Some(warm && (f as f64) <= cap),
        _ => None,
    };
    match fits_l2 {
        Some(true) => {
            row.memory_level = Some(MemoryLevel::L2);
            row.l2_pct = pct(row.l2_bytes.or(bytes), median, peaks.get("l2_read"));
            row.dram_pct = None;
        }
        Some(false) => {
            row.memory_level = Some(MemoryLevel::Dram);
            row.dram_pct = pct(bytes, median, peaks.dram());
        }
        None => row.dram_pct = pct(bytes, median, peaks.dram()),
    }
    // Declared L2 requests (taps that miss the L1) count against the L2 whatever the level.
    if row.l2_bytes.is_some() && fits_l2 != Some(true) {
        row.l2_pct = pct(row.l2_bytes, median, peaks.get("l2_read"));
    }
    row.flop_pct = pct(row.flops, median, peaks.get("fp32"));
    row.shared_pct = pct(row.shared_bytes, median, peaks.get("shared"));
    row.texture_pct = match (
        pct(row.texels, median, peaks.get("texture_point")),
        pct(row.texels_linear, median, peaks.get("texture_bilinear")),
    ) {
        (None, None) => None,
        (a, b) => Some(a.unwrap_or(0.0) + b.unwrap_or(0.0)),
    };
    row.atomic_pct = pct(row.atomics, median, peaks.get("atomic"));
    row.shared_atomic_pct = pct(row.shared_atomics, median, peaks.get("shared_atomic"));
    row.int_pct = pct(row.int_ops, median, peaks.get("int32"));
    row.sfu_pct = pct(row.sfu_ops, median, peaks.get("sfu"));
    row.l1_pct = pct(row.l1_bytes, median, peaks.get("l1_read"));
    row.launch_pct = pct(row.workgroups, median, peaks.get("launch"));
    row.fp64_pct = pct(row.fp64_flops, median, peaks.get("fp64"));
    row.int8_dot_pct = pct(row.int8_dot_ops, median, peaks.get("int8_dot"));
    row.int16_pct = pct(row.int16_ops, median, peaks.get("int16"));
    row.int64_pct = pct(row.int64_ops, median, peaks.get("int64"));
    let tensor_unit = row.tensor_unit.clone().unwrap_or_default();
    row.tensor_pct = pct(row.tensor_flops, median, peaks.get(&tensor_unit));

    if let Some(why) = &peaks.foreign {
        flag(row, format!("peaks {why} (--force-peaks)"));
    }
    let units: [(&str, &str, Option<f64>); 16] = [
        ("dram", "dram_read", row.dram_pct),
        ("l2", "l2_read", row.l2_pct),
        ("fp32", "fp32", row.flop_pct),
        ("shared", "shared", row.shared_pct),
        ("texture", "texture_point", row.texture_pct),
        ("atomic", "atomic", row.atomic_pct),
        ("shared_atomic", "shared_atomic", row.shared_atomic_pct),
        ("int32", "int32", row.int_pct),
        ("sfu", "sfu", row.sfu_pct),
        ("l1", "l1_read", row.l1_pct),
        ("launch", "launch", row.launch_pct),
        ("fp64", "fp64", row.fp64_pct),
        ("int8_dot", "int8_dot", row.int8_dot_pct),
        ("int16", "int16", row.int16_pct),
        ("int64", "int64", row.int64_pct),
        ("tensor", tensor_unit.as_str(), row.tensor_pct),
    ];
    for (name, peak_unit, v) in units.iter() {
        let Some(v) = v else { continue };
        let column = pct_column(name);
        if *v > 100.0 {
            flag(
                row,
                format!("{column} {v:.1} > 100: the declared work or the peak is wrong"),
            );
        }
        let suspect = peaks.suspect.iter().any(|s| {
            s == peak_unit
                || (*name == "dram" && s.starts_with("dram_"))
                || (*name == "texture" && s.starts_with("texture_"))
        });
        if suspect {
            flag(
                row,
                format!("{column} uses a peak that peaks.csv marks suspect"),
            );
        }
    }
    let top = units
        .iter()
        .filter_map(|(n, _, v)| v.map(|v| (*n, v)))
        .max_by(|a, b| a.1.total_cmp(&b.1));
    // Every unit past BUSY_PCT, busiest first: two busy units are a co-limit (`launch+dram`).
    let mut busy: Vec<(&str, f64)> = units
        .iter()
        .filter_map(|(n, _, v)| v.filter(|v| *v >= BUSY_PCT).map(|v| (*n, v)))
        .collect();
    busy.sort_by(|a, b| b.1.total_cmp(&a.1));
    let (limiter, limiter_pct, evidence) = decide(row, peaks, median, top, &busy);
    row.limiter = Some(limiter);
    row.limiter_pct = limiter_pct;
    row.limiter_evidence = evidence;
    row.limiter_source = Some(LimiterSource::Declared);
}

/// The results.csv column of a declared unit's %-of-peak, as flags name it (issue 29: a flag
/// said `fp32_pct` for the column `flop_pct`).
fn pct_column(unit: &str) -> String {
    match unit {
        "fp32" => "flop_pct".into(),
        "int32" => "int_pct".into(),
        other => format!("{other}_pct"),
    }
}

/// `a at 92 %, b at 71 %`.
fn busy_words(busy: &[(&str, f64)]) -> String {
    busy.iter()
        .map(|(n, v)| format!("{n} at {v:.0} %"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn decide(
    row: &ResultRow,
    peaks: &Peaks,
    median: f64,
    top: Option<(&str, f64)>,
    busy: &[(&str, f64)],
) -> (Limiter, Option<f64>, String) {
    let top_words = match top {
        Some((n, v)) => format!("the busiest unit, {n}, is at {v:.0} % of its peak"),
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
    if let Some(s) = row.spill_bytes_per_thread.filter(|s| *s > 0) {
        return (
            Limiter::Latency,
            None,
            format!("{s} spill bytes per thread (local memory round trips); {top_words}"),
        );
    }
    let occ = match (
        row.achieved_waves_per_unit,
        row.occupancy_waves_per_unit,
        row.occupancy_pct,
    ) {
        (Some(a), Some(_), Some(_)) => row
            .occupancy_pct
            .zip(row.occupancy_waves_per_unit)
            .map(|(p, t)| (p * f64::from(a) / f64::from(t.max(1)), "achieved")),
        (_, _, Some(p)) => Some((p, "theoretical")),
        _ => None,
    };
    if let Some((o, kind)) = occ {
        if o < LOW_OCCUPANCY_PCT {
            let by = if row.occupancy_limiter.is_empty() {
                String::new()
            } else {
                format!(", limited by {}", row.occupancy_limiter)
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

/// The counted units a declared unit's work runs through (NVIDIA's names: shared memory and
/// texture fetches go through L1TEX, global atomics resolve in the L2); `launch` has none.
fn counted_units_of(declared: &str) -> &'static [&'static str] {
    match declared {
        "dram" => &["dram"],
        "l2" | "atomic" => &["l2"],
        "fp32" | "fp16" | "int32" | "sfu" | "fp64" | "int8_dot" | "int16" | "int64" => &["sm"],
        "shared" | "shared_atomic" | "l1" | "texture" => &["l1tex", "sm"],
        "tensor" => &["tensor", "sm"],
        _ => &[],
    }
}

/// A declared DRAM traffic this far (%) from the counted one is flagged.
pub const DRAM_BYTES_TOLERANCE_PCT: f64 = 15.0;

/// The P3 verdict from the counters (issue 25), where `hw_*` are set: `hw_limiter` and its
/// percentage from the counted units (every unit past BUSY_PCT, busiest first, `+`-joined),
/// then `limiter` becomes the counted one and the declared verdict moves to
/// `declared_limiter`, a second opinion. A disagreement is a flag naming both: a different
/// limiter, or declared DRAM bytes more than DRAM_BYTES_TOLERANCE_PCT % from the counted ones
/// (rows whose traffic counts against DRAM).
pub fn apply_counted(row: &mut ResultRow) {
    let units = [
        ("sm", row.hw_sm_pct),
        ("dram", row.hw_dram_pct),
        ("l2", row.hw_l2_pct),
        ("l1tex", row.hw_l1tex_pct),
        ("tensor", row.hw_tensor_pct),
    ];
    if units.iter().all(|(_, v)| v.is_none()) {
        return;
    }
    for (n, v) in units {
        if let Some(v) = v.filter(|v| *v > 100.5) {
            flag(
                row,
                format!("hw_{n}_pct {v:.1} > 100: the counter's sustained peak"),
            );
        }
    }
    let mut busy: Vec<(&str, f64)> = units
        .iter()
        .filter_map(|(n, v)| v.filter(|v| *v >= BUSY_PCT).map(|v| (*n, v)))
        .collect();
    busy.sort_by(|a, b| b.1.total_cmp(&a.1));
    let top = units
        .iter()
        .filter_map(|(n, v)| v.map(|v| (*n, v)))
        .max_by(|a, b| a.1.total_cmp(&b.1));
    let declared = row.limiter.take();
    let declared_evidence = std::mem::take(&mut row.limiter_evidence);
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
        flag(
            row,
            format!(
                "limiter: counted `{hw}` but declared `{declared_words}`: the scenario's declared work is not what the GPU did"
            ),
        );
    }
    if row.memory_level == Some(MemoryLevel::Dram) {
        let declared_bytes = row.bytes_read.unwrap_or(0) + row.bytes_written.unwrap_or(0);
        if let (true, Some(r), Some(w)) = (
            declared_bytes >= 1 << 20,
            row.hw_dram_read_bytes,
            row.hw_dram_write_bytes,
        ) {
            let counted = (r + w) as f64;
            let d = declared_bytes as f64;
            let off = (counted / d - 1.0) * 100.0;
            if off.abs() > DRAM_BYTES_TOLERANCE_PCT {
                flag(
                    row,
                    format!(
                        "dram bytes: declared {declared_bytes} but counted {counted:.0} per repetition ({off:+.0} %)"
                    ),
                );
            }
        }
    }
    row.hw_limiter = Some(hw.clone());
    row.hw_limiter_pct = pct;
    row.declared_limiter_pct = row.limiter_pct;
    row.limiter_evidence = if declared.is_none() {
        words
    } else {
        format!("{words}; declared: {declared_words} ({declared_evidence})")
    };
    row.declared_limiter = declared;
    row.limiter = Some(hw);
    row.limiter_pct = pct;
    row.limiter_source = Some(LimiterSource::Counted);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::cell;

    fn peaks() -> Peaks {
        let mut p = Peaks::default();
        for (u, v) in [
            ("dram_read", 4000.0),
            ("dram_copy", 4200.0),
            ("l2_read", 10000.0),
            ("fp32", 60000.0),
            ("texture_point", 1.0),
            ("texture_bilinear", 0.5),
            ("launch", 2.0),
            ("empty", 2000.0),
        ] {
            p.values.insert(u.into(), v);
        }
        p.l2_capacity = Some(50e6);
        p
    }

    fn row(median_ns: f64) -> ResultRow {
        ResultRow {
            median_ns: Some(median_ns),
            ..Default::default()
        }
    }

    #[test]
    fn a_footprint_that_fits_the_l2_counts_against_the_l2_in_warm_mode_only() {
        // The reduction ladder of issue 12: 33 MB read at 3.9 TB/s.
        let mut r = row(33e6 / 3900.0);
        r.bytes_read = Some(33_000_000);
        derive(&mut r, &peaks(), true);
        assert_eq!((cell(&r.memory_level).as_str(), r.dram_pct), ("l2", None));
        assert!((r.l2_pct.unwrap() - 39.0).abs() < 1e-9);
        let mut c = row(33e6 / 3900.0);
        c.bytes_read = Some(33_000_000);
        derive(&mut c, &peaks(), false);
        assert_eq!(cell(&c.memory_level), "dram", "cold mode evicted the L2");
        assert!((c.dram_pct.unwrap() - 3900.0 / 4200.0 * 100.0).abs() < 1e-9);
        assert_eq!((cell(&c.limiter).as_str(), c.flags.as_str()), ("dram", ""));
        // An explicit footprint over the capacity wins over bytes read.
        let mut f = row(1e6);
        f.bytes_read = Some(1_000_000);
        f.footprint_bytes = Some(100_000_000);
        derive(&mut f, &peaks(), true);
        assert_eq!(cell(&f.memory_level), "dram");
        // No capacity measured: DRAM, and the level is not claimed.
        let mut p = peaks();
        p.l2_capacity = None;
        let mut n = row(1e6);
        n.bytes_read = Some(1_000_000);
        derive(&mut n, &p, true);
        assert_eq!(
            (cell(&n.memory_level).as_str(), n.dram_pct.is_some()),
            ("", true)
        );
    }

    #[test]
    fn limiter_is_a_busy_unit_or_the_evidence_for_latency_or_occupancy() {
        // Texture-bound filter: 0.96 T fetches/s against a 1 T peak.
        let mut t = row(1e6);
        t.texels = Some(960_000);
        t.bytes_read = Some(300_000_000);
        derive(&mut t, &peaks(), true);
        assert_eq!(cell(&t.limiter), "texture");
        assert!((t.limiter_pct.unwrap() - 96.0).abs() < 1e-9);
        assert!(t.limiter_evidence.contains(">= 60 %"));
        // Point and bilinear shares of one texture unit add up.
        let mut tb = row(1e6);
        tb.texels = Some(300_000);
        tb.texels_linear = Some(200_000);
        derive(&mut tb, &peaks(), true);
        assert!((tb.texture_pct.unwrap() - 70.0).abs() < 1e-9);
        // Issue 12's occupancy nreg128: fp32 at 50 % with 608 spill bytes is not fp32-bound.
        let mut s = row(1e6);
        s.flops = Some(30_000_000_000);
        s.spill_bytes_per_thread = Some(608);
        derive(&mut s, &peaks(), true);
        assert_eq!(
            (cell(&s.limiter).as_str(), s.limiter_pct),
            ("latency", None)
        );
        assert!(
            s.limiter_evidence.contains("608 spill bytes"),
            "{}",
            s.limiter_evidence
        );
        assert!(
            s.limiter_evidence.contains("fp32, is at 50 %"),
            "{}",
            s.limiter_evidence
        );
        // Low occupancy, no spills: occupancy, achieved where probed.
        let mut o = row(1e6);
        o.flops = Some(6_000_000_000);
        o.occupancy_pct = Some(50.0);
        o.occupancy_waves_per_unit = Some(32);
        o.achieved_waves_per_unit = Some(16);
        o.occupancy_limiter = "registers".into();
        derive(&mut o, &peaks(), true);
        assert_eq!(cell(&o.limiter), "occupancy");
        assert!(
            o.limiter_evidence.contains("25 % achieved occupancy"),
            "{}",
            o.limiter_evidence
        );
        assert!(o.limiter_evidence.contains("limited by registers"));
        // Near an empty dispatch: fixed cost.
        let mut e = row(3000.0);
        e.flops = Some(1000);
        derive(&mut e, &peaks(), true);
        assert_eq!(cell(&e.limiter), "latency");
        assert!(e.limiter_evidence.contains("empty dispatch"));
        // Nothing declared, no peaks.
        let mut z = row(1e6);
        derive(&mut z, &Peaks::default(), true);
        assert_eq!(cell(&z.limiter), "none");
    }

    #[test]
    fn declared_l2_requests_tell_an_l2_bound_order_from_one_waiting_on_dram() {
        // shared/seeds/000 (the L2-locality article) on the H200 (tiling_l2, R = 256): 7.2 GB of taps and stores a repetition,
        // a 2.4 GB footprint. Row-major: 1.52 ms; tiles of 4 groups: 1.06 ms.
        for (ms, limiter) in [(1.52, "latency"), (1.06, "l2")] {
            let mut r = row(ms * 1e6);
            r.bytes_read = Some(1_200_000_000);
            r.bytes_written = Some(1_200_000_000);
            r.l2_bytes = Some(7_200_000_000);
            derive(&mut r, &peaks(), true);
            assert_eq!(
                (cell(&r.memory_level).as_str(), cell(&r.limiter).as_str()),
                ("dram", limiter)
            );
            let l2 = 7.2e9 / (ms * 1e6) / 10000.0 * 100.0;
            assert!((r.l2_pct.unwrap() - l2).abs() < 1e-9);
        }
    }

    #[test]
    fn percentages_over_100_and_suspect_peaks_are_flagged() {
        let mut p = peaks();
        p.suspect.push("fp32".into());
        let mut r = row(1e6);
        r.bytes_read = Some(4_300_000_000);
        r.footprint_bytes = Some(1 << 30);
        r.flops = Some(1_000_000);
        derive(&mut r, &p, true);
        assert!(r.flags.contains("dram_pct 102.4 > 100"), "{}", r.flags);
        assert!(
            r.flags
                .contains("flop_pct uses a peak that peaks.csv marks suspect"),
            "{}",
            r.flags
        );
        assert_eq!(cell(&r.limiter), "dram");
        // Flags name results.csv's columns (issue 29): int32's is `int_pct`.
        p.values.insert("int32".into(), 30_000.0);
        let mut r = row(1e3);
        r.int_ops = Some(1_000_000_000);
        derive(&mut r, &p, true);
        assert!(r.flags.contains("int_pct 3333.3 > 100"), "{}", r.flags);
        assert!(!r.flags.contains("int32_pct"), "{}", r.flags);
    }

    #[test]
    fn a_busy_counted_unit_against_declared_waiting_is_flagged() {
        // Declared latency, counted SM at 96 %: the scenario declares less than the GPU did.
        let mut r = row(1000.0);
        r.limiter = Some(Limiter::Latency);
        r.hw_sm_pct = Some(96.0);
        r.hw_dram_pct = Some(3.0);
        apply_counted(&mut r);
        assert_eq!(cell(&r.limiter), "sm");
        assert_eq!(cell(&r.declared_limiter), "latency");
        assert!(
            r.flags.contains("counted `sm` but declared `latency`"),
            "{}",
            r.flags
        );
        // Declared launch alone is not judged against the counters (no counted unit).
        let mut l = row(1000.0);
        l.limiter = Some(Limiter::one("launch"));
        l.hw_sm_pct = Some(96.0);
        apply_counted(&mut l);
        assert!(!l.flags.contains("limiter:"), "{}", l.flags);
    }
}
