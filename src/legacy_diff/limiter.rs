#![allow(dead_code, clippy::all)]
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
    // `texels` against the unit the scenario named for its format and fetch path
    // (`[measure].texture_unit`), else rgba8 point sampling; bilinear fetches against bilinear.
    let texture_unit = row
        .texture_unit
        .clone()
        .unwrap_or_else(|| crate::scenario::variant::DEFAULT_TEXTURE_UNIT.to_string());
    row.texture_pct = match (
        pct(row.texels, median, peaks.get(&texture_unit)),
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
    row.fp16_pct = pct(row.fp16_flops, median, peaks.get("fp16"));

    if let Some(why) = &peaks.foreign {
        flag(row, format!("peaks {why} (--force-peaks)"));
    }
    let units: [(&str, &str, Option<f64>); 17] = [
        ("dram", "dram_read", row.dram_pct),
        ("l2", "l2_read", row.l2_pct),
        ("fp32", "fp32", row.flop_pct),
        ("shared", "shared", row.shared_pct),
        ("texture", texture_unit.as_str(), row.texture_pct),
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
        ("fp16", "fp16", row.fp16_pct),
    ];
    let mut over: Vec<(&str, f64)> = Vec::new();
    for (name, peak_unit, v) in units.iter() {
        let Some(v) = v else { continue };
        let column = pct_column(name);
        if *v > 100.0 {
            over.push((name, *v));
            flag(
                row,
                format!(
                    "{column}: declared {v:.1} % of the {peak_unit} peak, over 100: {}; not a verdict",
                    over_cause(name)
                ),
            );
        }
        // Texture: the peaks this row's fetches were divided by (its `texels` unit, bilinear).
        let suspect = peaks.suspect.iter().any(|s| match *name {
            "dram" => s.starts_with("dram_"),
            "texture" => {
                (s == peak_unit && row.texels.is_some())
                    || (s == "texture_bilinear" && row.texels_linear.is_some())
            }
            _ => s == peak_unit,
        });
        if suspect {
            flag(
                row,
                format!("{column} uses a peak that peaks.csv marks suspect"),
            );
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
    row.declared_over_units = over.iter().map(|(n, _)| *n).collect::<Vec<_>>().join("+");
    row.declared_over_peak = over.iter().map(|(_, v)| *v).reduce(f64::max);
    for (name, _) in &over {
        if let Some(cell) = pct_cell(row, name) {
            *cell = None;
        }
    }
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

/// The likely reason a declared unit reads over 100 % of its peak: the declaration counts
/// what a kernel asks for, the hardware serves some of it elsewhere.
pub(crate) fn over_cause(unit: &str) -> &'static str {
    match unit {
        "dram" => "the declared bytes include reads the L2 served (L2 hits never reach DRAM)",
        "l2" => "the declared bytes include reads the L1 served (L1 hits never reach the L2)",
        "shared" | "shared_atomic" => {
            "the declared bytes count a broadcast read once per thread (the hardware reads it once per warp: one wavefront)"
        }
        "texture" => {
            "the declared texels include reuse (neighbouring fetches share a quad and the L1TEX cache)"
        }
        "l1" => "the declared bytes count one read per thread where a warp's coalesced read is one request",
        "launch" => "the declared workgroups are more than the dispatch launched",
        _ => "the declared work or the peak is wrong",
    }
}

/// The `*_pct` cell of a declared unit.
pub(crate) fn pct_cell<'a>(row: &'a mut ResultRow, unit: &str) -> Option<&'a mut Option<f64>> {
    Some(match unit {
        "dram" => &mut row.dram_pct,
        "l2" => &mut row.l2_pct,
        "fp32" => &mut row.flop_pct,
        "shared" => &mut row.shared_pct,
        "texture" => &mut row.texture_pct,
        "atomic" => &mut row.atomic_pct,
        "shared_atomic" => &mut row.shared_atomic_pct,
        "int32" => &mut row.int_pct,
        "sfu" => &mut row.sfu_pct,
        "l1" => &mut row.l1_pct,
        "launch" => &mut row.launch_pct,
        "fp64" => &mut row.fp64_pct,
        "int8_dot" => &mut row.int8_dot_pct,
        "int16" => &mut row.int16_pct,
        "int64" => &mut row.int64_pct,
        "tensor" => &mut row.tensor_pct,
        "fp16" => &mut row.fp16_pct,
        _ => return None,
    })
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
        None if !row.declared_over_units.is_empty() => format!(
            "every declared figure is over 100 % ({}): the declaration gives no verdict",
            row.declared_over_units
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
    // A counted figure over 100 was clamped and flagged where the counters filled the row
    // (measure/hw `fill_row`).
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
    // A declared figure over 100 % (emptied by `derive`) gives way to the counted figure of
    // the unit behind it, where the row has one; the flag says so (issue 39).
    let over: Vec<String> = row
        .declared_over_units
        .split('+')
        .filter(|u| !u.is_empty())
        .map(str::to_string)
        .collect();
    for u in &over {
        let hw = |c: &str| hw_pct(row, c);
        if let Some((col, v)) = crate::results::units::counted_figure(u, hw) {
            if let Some(cell) = pct_cell(row, u) {
                *cell = Some(v.min(100.0));
            }
            flag(
                row,
                format!(
                    "{u}: the counted {} ({col}) {v:.0} % stands in for the declared figure",
                    crate::results::units::counted_unit(col)
                ),
            );
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
        .filter_map(|c| hw_pct(row, c).map(|v| (crate::results::units::counted_unit(c), v)))
        .max_by(|a, b| a.1.total_cmp(&b.1))
    {
        Some((n, v)) if v >= 1.0 => format!("{words}; busiest pipe {n} at {v:.0} %"),
        _ => words,
    };
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

/// A counted `hw_*_pct` cell of a row, by column name.
fn hw_pct(row: &ResultRow, column: &str) -> Option<f64> {
    match column {
        "hw_sm_pct" => row.hw_sm_pct,
        "hw_dram_pct" => row.hw_dram_pct,
        "hw_l2_pct" => row.hw_l2_pct,
        "hw_l1tex_pct" => row.hw_l1tex_pct,
        "hw_tensor_pct" => row.hw_tensor_pct,
        "hw_fma_pct" => row.hw_fma_pct,
        "hw_fmaheavy_pct" => row.hw_fmaheavy_pct,
        "hw_alu_pct" => row.hw_alu_pct,
        "hw_fp64_pct" => row.hw_fp64_pct,
        "hw_xu_pct" => row.hw_xu_pct,
        "hw_shared_pct" => row.hw_shared_pct,
        "hw_tex_pct" => row.hw_tex_pct,
        _ => None,
    }
}
