//! From a calibration run's results.csv to peaks.csv rows: each unit's best checked variant,
//! the agreement and cross-unit checks that mark a peak suspect, and the L2 capacity knee.
use super::{
    Peak, Unit, AGREE, CROSS_SLACK, FP16_OVER_FP32, L1_OVER_L2, L2_CAPACITY, PEAKS_SCHEMA_VERSION,
    TENSOR_OVER_FP32, UNITS,
};
use crate::results::{Mode, Record, ResultRow, RowStatus};
use std::path::Path;

/// The unit a calibration variant measures: its name's first `-`-separated word.
pub fn unit_of(variant: &str) -> Option<&'static Unit> {
    let prefix = variant.split('-').next().unwrap_or("");
    UNITS.iter().find(|u| u.name == prefix)
}

fn num(row: &Record, col: &str) -> Option<f64> {
    row.num(col)
}

/// The value a row gives its unit: work ÷ time (per ns = giga per s), or the median.
///
/// The time is the median less `fixed_ns`, the fixed cost of one dispatch (the calibration's
/// empty dispatch; calibration rows are one dispatch each), where that cost is under a
/// quarter of the median. A rate of work ÷ median counts the fixed cost as if it were work:
/// a variant with more work per dispatch then beats the "peak". On an H100 a 2.36 M-group
/// tiling pass launched at 100.06 % of the launch rate that 1 M empty groups gave (H200:
/// 100.28 %), with a 2.66 µs empty dispatch in each 633 µs calibration run.
fn row_value(u: &Unit, row: &Record, fixed_ns: Option<f64>) -> Option<f64> {
    let median = num(row, "median_ns").filter(|m| *m > 0.0 && m.is_finite())?;
    if u.work.is_empty() {
        return Some(median);
    }
    let work = num(row, u.work)?;
    let time = match fixed_ns {
        Some(f) if f > 0.0 && f < FIXED_COST_SHARE * median => median - f,
        _ => median,
    };
    (work > 0.0).then_some(work / time)
}

/// The largest share of a calibration row's median the empty dispatch's time may be and still
/// be taken out of it (beyond it the row measures the fixed cost, not the unit).
const FIXED_COST_SHARE: f64 = 0.25;

/// The time of an empty dispatch: the fastest `ok` warm row of the `empty` unit.
fn empty_dispatch_ns(rows: &[Record]) -> Option<f64> {
    rows.iter()
        .filter(|r| r.status() == RowStatus::Ok)
        .filter(|r| r.mode() != Mode::Cold)
        .filter(|r| unit_of(r.get("variant")).is_some_and(|u| u.name == "empty"))
        .filter_map(|r| num(r, "median_ns").filter(|m| *m > 0.0 && m.is_finite()))
        .min_by(f64::total_cmp)
}

fn peak_row(unit: &str, value_unit: &str, row: &Record) -> Peak {
    Peak {
        schema_version: PEAKS_SCHEMA_VERSION,
        device_name: row.get("device_name").to_string(),
        device_uuid: row.get("device_uuid").to_string(),
        driver_version: num(row, "driver_version").unwrap_or(0.0) as u32,
        unit: unit.into(),
        value: None,
        value_unit: value_unit.into(),
        best_variant: row.get("variant").to_string(),
        median_ns: num(row, "median_ns"),
        median_ci_low_ns: num(row, "median_ci_low_ns"),
        median_ci_high_ns: num(row, "median_ci_high_ns"),
        cv_pct: num(row, "cv_pct"),
        n: num(row, "n").map(|n| n as usize),
        status: super::PeakStatus::Ok,
        reason: String::new(),
        variants: None,
    }
}

/// Each unit's peak from a calibration run's results.csv: the best of its `ok` warm rows
/// (rows that failed their check are not `ok`), checked for agreement between variants and
/// between units, and the L2 capacity from the `l2_capacity-*` rows.
pub fn from_results(results_csv: &Path) -> anyhow::Result<Vec<Peak>> {
    let rows = crate::results::read_results(results_csv)?;
    from_records(&rows)
}

/// [`from_results`] over the rows a calibration run just measured.
pub fn from_rows(rows: &[ResultRow]) -> anyhow::Result<Vec<Peak>> {
    let records: Vec<Record> = rows.iter().cloned().map(Record::from_row).collect();
    from_records(&records)
}

fn from_records(rows: &[Record]) -> anyhow::Result<Vec<Peak>> {
    let usable = |row: &&Record| row.status() == RowStatus::Ok && row.mode() != Mode::Cold;
    let mut out = Vec::new();
    let fixed = empty_dispatch_ns(rows);
    for u in UNITS {
        let mut vals: Vec<(f64, &Record)> = rows
            .iter()
            .filter(usable)
            .filter(|r| unit_of(r.get("variant")).is_some_and(|x| x.name == u.name))
            .filter_map(|r| row_value(u, r, fixed).map(|v| (v, r)))
            .collect();
        if vals.is_empty() {
            // A unit whose every variant failed (or did not run) is said so, not left out.
            let failed: Vec<&Record> = rows
                .iter()
                .filter(|r| unit_of(r.get("variant")).is_some_and(|x| x.name == u.name))
                .collect();
            if let Some(r) = failed.first() {
                let mut p = peak_row(u.name, u.value_unit, r);
                p.median_ns = None;
                p.median_ci_low_ns = None;
                p.median_ci_high_ns = None;
                p.cv_pct = None;
                p.n = None;
                p.status = super::PeakStatus::Failed;
                p.reason = format!(
                    "no variant of {} ran and passed its check (first: {} {}: {})",
                    u.name,
                    r.get("variant"),
                    r.get("status"),
                    r.get("reason")
                );
                p.variants = Some(0);
                out.push(p);
            }
            continue;
        }
        let bigger = !u.work.is_empty();
        vals.sort_by(|a, b| {
            if bigger {
                b.0.total_cmp(&a.0)
            } else {
                a.0.total_cmp(&b.0)
            }
        });
        let (best, row) = vals[0];
        let mut p = peak_row(u.name, u.value_unit, row);
        p.value = Some(best);
        p.variants = Some(vals.len());
        match vals.get(1) {
            None => {
                p.status = super::PeakStatus::Suspect;
                p.reason = "only one variant ran: nothing confirms it".into();
            }
            Some(&(next, next_row)) => {
                let ratio = if bigger { best / next } else { next / best };
                if ratio > AGREE {
                    p.status = super::PeakStatus::Suspect;
                    p.reason = format!(
                        "the best variant, {}, reads {ratio:.2}x the next best, {} ({next:.4} {}): variants of one unit must agree within {AGREE}x",
                        row.get("variant"), next_row.get("variant"), u.value_unit
                    );
                }
            }
        }
        out.push(p);
    }
    if let Some(p) = l2_capacity(rows)? {
        out.push(p);
    }
    cross_check(&mut out);
    Ok(out)
}

/// The texture units of one fetch path, narrowest texel first (rgba8, rgba16f, rgba32f).
const TEXTURE_PATHS: [[&str; 3]; 2] = [
    [
        "texture_point",
        "texture_point_rgba16f",
        "texture_point_rgba32f",
    ],
    [
        "texture_fetch_rgba8",
        "texture_fetch_rgba16f",
        "texture_fetch_rgba32f",
    ],
];

/// Relations between units that hold on every GPU: a peak that breaks one is suspect.
fn cross_check(peaks: &mut [Peak]) {
    let get = |list: &[Peak], u: &str| {
        list.iter()
            .find(|p| p.unit == u && p.status != "failed")
            .and_then(|p| p.value)
    };
    let snapshot: Vec<Peak> = peaks.to_vec();
    let mut mark = |unit: &str, why: String| {
        if let Some(p) = peaks.iter_mut().find(|p| p.unit == unit) {
            p.status = super::PeakStatus::Suspect;
            if !p.reason.is_empty() {
                p.reason.push_str("; ");
            }
            p.reason.push_str(&why);
        }
    };
    if let (Some(h), Some(f)) = (get(&snapshot, "fp16"), get(&snapshot, "fp32")) {
        let (lo, hi) = FP16_OVER_FP32;
        if h > hi * CROSS_SLACK * f {
            mark(
                "fp16",
                format!(
                    "FP16 at {:.2}x FP32: packed FP16 without tensor cores is at most {hi}x FP32 on any GPU",
                    h / f
                ),
            );
        } else if h * CROSS_SLACK < lo * f {
            mark(
                "fp16",
                format!(
                    "FP16 at {:.2}x FP32: packed FP16 runs at least at the FP32 rate on every GPU with FP16 arithmetic (the kernel is not packed, or the driver computes FP16 through conversions)",
                    h / f
                ),
            );
        }
    }
    // Wider types never run faster than the narrower ones on the same pipes: FP64 is 1/64
    // (Ada) to 1x (CDNA2) the FP32 rate, and an int64 multiply-add takes several int32 ones.
    for (wide, narrow, words) in [
        (
            "fp64",
            "fp32",
            "FP64 runs at most at the FP32 rate on any GPU",
        ),
        (
            "int64",
            "int32",
            "an int64 multiply-add is never cheaper than an int32 one",
        ),
    ] {
        if let (Some(w), Some(n)) = (get(&snapshot, wide), get(&snapshot, narrow)) {
            if w > CROSS_SLACK * n {
                mark(wide, format!("{wide} at {:.2}x {narrow}: {words}", w / n));
            }
        }
    }
    // Texture paths: a wider texel moves more bytes through the same path, so on every GPU its
    // fetch rate is at most a narrower format's (equal where the path is not the limit; H100:
    // rgba8 1421, rgba16f 791, rgba32f 530 Gtexel/s with texture()).
    // A bilinear fetch (four texels blended) is never faster than a point-sampled one. The
    // texture units x clock bound does not hold as such: the H100's rgba8 point sampling
    // reached 1.36x it (reports/nvidia-h100/i26-fp16), the L1TEX data path being the limit.
    for path in TEXTURE_PATHS {
        for (i, wide) in path.iter().enumerate().skip(1) {
            let Some(w) = get(&snapshot, wide) else {
                continue;
            };
            let narrower = path[..i].iter().find_map(|n| {
                get(&snapshot, n)
                    .filter(|v| w > CROSS_SLACK * v)
                    .map(|v| (n, v))
            });
            if let Some((narrow, n)) = narrower {
                mark(
                    wide,
                    format!(
                        "{wide} at {:.2}x {narrow}: a wider texel is never fetched faster than a narrower one on the same path",
                        w / n
                    ),
                );
            }
        }
    }
    if let (Some(b), Some(p)) = (
        get(&snapshot, "texture_bilinear"),
        get(&snapshot, "texture_point"),
    ) {
        if b > CROSS_SLACK * p {
            mark(
                "texture_bilinear",
                format!(
                    "texture_bilinear at {:.2}x texture_point: a bilinear fetch (four texels blended) is never faster than a point-sampled one of the same format",
                    b / p
                ),
            );
        }
    }
    // Tensor cores (matrix units) run a multiply-add of matrices at 1x (AMD RDNA3's WMMA on
    // the vector ALUs: 2x FP32 in FP16) to ~56x (B200 int8: 4500 TOPS dense over 80 TFLOP/s)
    // the FP32 rate: below FP32 the kernel is not on matrix units, over TENSOR_OVER_FP32 no
    // GPU's are that fast.
    if let Some(f) = get(&snapshot, "fp32") {
        for u in super::UNITS
            .iter()
            .filter(|u| u.name.starts_with("tensor_"))
        {
            let Some(t) = get(&snapshot, u.name) else {
                continue;
            };
            if t * CROSS_SLACK < f {
                mark(
                    u.name,
                    format!(
                        "{} at {:.2}x FP32: matrix units run at least at the FP32 rate on every GPU that has them",
                        u.name,
                        t / f
                    ),
                );
            } else if t > TENSOR_OVER_FP32 * CROSS_SLACK * f {
                mark(
                    u.name,
                    format!(
                        "{} at {:.1}x FP32: over {TENSOR_OVER_FP32}x, no GPU's matrix units are that fast",
                        u.name,
                        t / f
                    ),
                );
            }
        }
    }
    let dram = ["dram_read", "dram_write", "dram_copy"]
        .iter()
        .filter_map(|u| get(&snapshot, u))
        .fold(None, |a: Option<f64>, v| Some(a.map_or(v, |a| a.max(v))));
    if let (Some(l2), Some(d)) = (get(&snapshot, "l2_read"), dram) {
        if l2 < d {
            mark(
                "l2_read",
                format!("L2 read bandwidth {l2:.0} GB/s below the DRAM peak {d:.0} GB/s"),
            );
        }
    }
    if let (Some(l1), Some(l2)) = (get(&snapshot, "l1_read"), get(&snapshot, "l2_read")) {
        if l1 < l2 {
            mark(
                "l1_read",
                format!("L1 read bandwidth {l1:.0} GB/s below the L2 peak {l2:.0} GB/s"),
            );
        } else if l1 > L1_OVER_L2 * l2 {
            // The first H200 run read 441 TB/s: the compiler had hoisted a load whose index
            // repeated every iteration (glsl/peak/l1.comp now takes its stride from a push
            // constant). Real L1s are 2-8x their L2 (H200: 33 TB/s theoretical vs 8.8).
            mark(
                "l1_read",
                format!(
                    "L1 read bandwidth {:.1}x the L2 peak: over {L1_OVER_L2}x, no GPU's L1 is that much faster (loads hoisted out of the loop?)",
                    l1 / l2
                ),
            );
        }
    }
}

/// `bytes=...` of a row's params label.
fn param(row: &Record, key: &str) -> Option<f64> {
    row.get("params")
        .split(';')
        .filter_map(|kv| kv.split_once('='))
        .find(|(k, _)| *k == key)
        .and_then(|(_, v)| v.parse().ok())
}

/// The L2 capacity from the `l2_capacity-*` rows: read bandwidth against working-set size.
/// See [`knee`].
fn l2_capacity(rows: &[Record]) -> anyhow::Result<Option<Peak>> {
    let pts: Vec<(f64, f64, &Record)> = rows
        .iter()
        .filter(|r| r.get("variant").starts_with("l2_capacity-"))
        .filter(|r| r.status() == RowStatus::Ok)
        .filter_map(|r| Some((param(r, "bytes")?, num(r, "gbytes_per_s")?, r)))
        .collect();
    let Some(first) = pts.first() else {
        return Ok(None);
    };
    let mut p = peak_row(L2_CAPACITY, "bytes", first.2);
    p.best_variant = first.2.get("variant").to_string();
    p.median_ns = None;
    p.median_ci_low_ns = None;
    p.median_ci_high_ns = None;
    p.cv_pct = None;
    p.n = None;
    p.variants = Some(pts.len());
    let curve: Vec<(f64, f64)> = pts.iter().map(|(s, b, _)| (*s, *b)).collect();
    match knee(&curve) {
        Ok(k) => p.value = Some(k),
        Err(why) => {
            p.status = super::PeakStatus::Suspect;
            p.reason = why;
        }
    }
    Ok(Some(p))
}

/// The bandwidth, as a share of the plateau's, down to which a working set still counts as
/// served by the L2. Where the curve has fallen halfway to DRAM, a good share of the reads
/// already miss: that size read 56.4 MB on an H100, whose L2 holds 50 MB (H200: 62.8 MB).
/// At 90 % of the plateau: 44.6 MB and 52.8 MB from the same curves.
pub const L2_FIT_SHARE: f64 = 0.9;

/// The knee of a bandwidth curve `(working-set bytes, GB/s)`: the largest working set the L2
/// still serves at [`L2_FIT_SHARE`] of its plateau (the highest point), interpolated linearly
/// in log2(size) between the last point at or above that bandwidth and the first below it.
/// An error when the curve has under three sizes or falls by less than 30 % (no knee to
/// read), or never falls below that bandwidth after the plateau.
pub fn knee(curve: &[(f64, f64)]) -> Result<f64, String> {
    let mut c = curve.to_vec();
    c.sort_by(|a, b| a.0.total_cmp(&b.0));
    c.dedup_by(|a, b| a.0 == b.0);
    if c.len() < 3 {
        return Err(format!("{} working-set sizes: at least 3 needed", c.len()));
    }
    let (hi_i, hi) = c
        .iter()
        .enumerate()
        .map(|(i, p)| (i, p.1))
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .expect("non-empty");
    let lo = c.last().expect("non-empty").1;
    if hi < 1.3 * lo {
        return Err(format!(
            "bandwidth {hi:.0} GB/s at the plateau and {lo:.0} GB/s at the largest size: under 30 % apart, no knee (is the largest size beyond the L2?)"
        ));
    }
    let fit = L2_FIT_SHARE * hi;
    for w in c[hi_i..].windows(2) {
        let ((s0, b0), (s1, b1)) = (w[0], w[1]);
        if b0 >= fit && b1 < fit {
            let t = (b0 - fit) / (b0 - b1);
            return Ok((s0.log2() + t * (s1.log2() - s0.log2())).exp2());
        }
    }
    Err(format!(
        "the bandwidth never falls below {:.0} % of its plateau after it",
        L2_FIT_SHARE * 100.0
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A peaks table of published figures, in GFLOP/s or Gop/s.
    fn table(units: &[(&str, f64)]) -> Vec<Peak> {
        units
            .iter()
            .map(|(u, v)| Peak {
                schema_version: PEAKS_SCHEMA_VERSION,
                device_name: "synthetic".into(),
                device_uuid: "u".into(),
                driver_version: 1,
                unit: (*u).into(),
                value: Some(*v),
                value_unit: "gflops_per_s".into(),
                best_variant: format!("{u}-a"),
                median_ns: None,
                median_ci_low_ns: None,
                median_ci_high_ns: None,
                cv_pct: None,
                n: None,
                status: super::super::PeakStatus::Ok,
                reason: String::new(),
                variants: Some(2),
            })
            .collect()
    }

    fn suspects(units: &[(&str, f64)]) -> Vec<(String, String)> {
        let mut t = table(units);
        cross_check(&mut t);
        t.into_iter()
            .filter(|p| p.status == "suspect")
            .map(|p| (p.unit, p.reason))
            .collect()
    }

    #[test]
    fn cross_unit_rules_hold_on_published_peaks_of_several_architectures() {
        // Vendor datasheets, non-tensor (vector) rates in GFLOP/s. MI300X's vector FP16 is not
        // published beside its FP32 (163.4) and FP64 (81.7): left out.
        for (gpu, units) in [
            (
                "H100 SXM",
                &[("fp32", 66_900.0), ("fp16", 133_800.0), ("fp64", 33_500.0)][..],
            ),
            (
                "A100",
                &[("fp32", 19_500.0), ("fp16", 78_000.0), ("fp64", 9_700.0)][..],
            ),
            (
                "RTX 4090",
                &[("fp32", 82_600.0), ("fp16", 82_600.0), ("fp64", 1_290.0)][..],
            ),
            ("MI300X", &[("fp32", 163_400.0), ("fp64", 81_700.0)][..]),
            // Dense tensor rates (no sparsity) beside FP32, from the datasheets.
            (
                "H100 SXM tensor",
                &[
                    ("fp32", 66_900.0),
                    ("tensor_f16_f32", 989_400.0),
                    ("tensor_f16_f16", 989_400.0),
                    ("tensor_s8_s32", 1_978_900.0),
                ][..],
            ),
            (
                "A100 tensor",
                &[
                    ("fp32", 19_500.0),
                    ("tensor_f16_f32", 312_000.0),
                    ("tensor_s8_s32", 624_000.0),
                ][..],
            ),
            (
                "RTX 4090 tensor",
                &[
                    ("fp32", 82_600.0),
                    ("tensor_f16_f16", 330_300.0),
                    ("tensor_f16_f32", 165_200.0),
                    ("tensor_s8_s32", 660_600.0),
                ][..],
            ),
            (
                "RX 7900 XTX (WMMA)",
                &[("fp32", 61_400.0), ("tensor_f16_f32", 122_800.0)][..],
            ),
            (
                "B200 tensor",
                &[
                    ("fp32", 80_000.0),
                    ("tensor_f16_f32", 2_250_000.0),
                    ("tensor_s8_s32", 4_500_000.0),
                ][..],
            ),
            // A 1:1 GPU measured with FP16 5 % under FP32 (noise) is still believed.
            (
                "RTX 4090, noisy",
                &[("fp32", 82_600.0), ("fp16", 78_500.0)][..],
            ),
            // Texture rates in Gtexel/s. H100 as measured (reports/nvidia-h100/i26-fp16; bilinear
            // from i25/peak/peaks.csv): rgba8 point sampling at 1.36x texture units x clock,
            // the L1TEX data path the limit.
            (
                "H100 texture (measured)",
                &[
                    ("texture_point", 1421.0),
                    ("texture_point_rgba16f", 790.9),
                    ("texture_point_rgba32f", 530.0),
                    ("texture_fetch_rgba8", 1366.0),
                    ("texture_fetch_rgba16f", 750.1),
                    ("texture_fetch_rgba32f", 514.0),
                    ("texture_bilinear", 1021.4),
                ][..],
            ),
            // A GPU whose texture units are the limit, one texel per unit and clock in every
            // format up to 64 bits and half rate at 128 (bilinear too): equal rates pass.
            (
                "texel-rate-bound GPU",
                &[
                    ("texture_point", 1000.0),
                    ("texture_point_rgba16f", 1000.0),
                    ("texture_point_rgba32f", 500.0),
                    ("texture_fetch_rgba8", 1030.0),
                    ("texture_fetch_rgba16f", 1000.0),
                    ("texture_fetch_rgba32f", 500.0),
                    ("texture_bilinear", 1000.0),
                ][..],
            ),
            // Noise: rgba16f 5 % over rgba8 and bilinear 8 % over point are within the slack;
            // texelFetch faster than texture() (no rule across paths).
            (
                "texture, noisy",
                &[
                    ("texture_point", 1000.0),
                    ("texture_point_rgba16f", 1050.0),
                    ("texture_fetch_rgba8", 1500.0),
                    ("texture_bilinear", 1080.0),
                ][..],
            ),
        ] {
            assert_eq!(suspects(units), vec![], "{gpu}");
        }
    }

    #[test]
    fn cross_unit_rules_flag_impossible_ratios() {
        // Hopper's FP16 at half the FP32 rate: a kernel converting through FP32.
        let s = suspects(&[("fp32", 66_900.0), ("fp16", 33_000.0)]);
        assert_eq!(s.len(), 1, "{s:?}");
        assert_eq!(s[0].0, "fp16");
        assert!(s[0].1.contains("at least at the FP32 rate"), "{}", s[0].1);
        // Over 4x FP32 (4.4x with the slack): no GPU's vector FP16 is that fast.
        let s = suspects(&[("fp32", 19_500.0), ("fp16", 90_000.0)]);
        assert!(s[0].1.contains("at most 4x FP32"), "{s:?}");
        // FP64 faster than FP32, int64 faster than int32.
        let s = suspects(&[
            ("fp32", 10_000.0),
            ("fp64", 12_000.0),
            ("int32", 30_000.0),
            ("int64", 40_000.0),
        ]);
        let units: Vec<&str> = s.iter().map(|(u, _)| u.as_str()).collect();
        assert_eq!(units, ["fp64", "int64"], "{s:?}");
        assert!(s[0].1.contains("fp64 at 1.20x fp32"), "{}", s[0].1);
        // A "tensor" kernel slower than FP32 is not on the matrix units; one at 100x is wrong.
        let s = suspects(&[
            ("fp32", 66_900.0),
            ("tensor_f16_f32", 40_000.0),
            ("tensor_s8_s32", 7_000_000.0),
        ]);
        let units: Vec<&str> = s.iter().map(|(u, _)| u.as_str()).collect();
        assert_eq!(units, ["tensor_f16_f32", "tensor_s8_s32"], "{s:?}");
        assert!(s[0].1.contains("at least at the FP32 rate"), "{}", s[0].1);
        assert!(s[1].1.contains("no GPU's matrix units"), "{}", s[1].1);
        // A wider texel fetched faster than a narrower one on the same path; rgba32f is
        // compared with rgba8 where rgba16f failed; bilinear faster than point sampling.
        let s = suspects(&[
            ("texture_point", 1000.0),
            ("texture_point_rgba16f", 1300.0),
            ("texture_point_rgba32f", 500.0),
            ("texture_fetch_rgba8", 900.0),
            ("texture_fetch_rgba32f", 1000.0),
            ("texture_bilinear", 1200.0),
        ]);
        let units: Vec<&str> = s.iter().map(|(u, _)| u.as_str()).collect();
        assert_eq!(
            units,
            [
                "texture_point_rgba16f",
                "texture_fetch_rgba32f",
                "texture_bilinear"
            ],
            "{s:?}"
        );
        assert!(
            s[0].1
                .contains("texture_point_rgba16f at 1.30x texture_point")
                && s[0].1.contains("wider texel"),
            "{}",
            s[0].1
        );
        assert!(
            s[1].1
                .contains("texture_fetch_rgba32f at 1.11x texture_fetch_rgba8"),
            "{}",
            s[1].1
        );
        assert!(
            s[2].1.contains("texture_bilinear at 1.20x texture_point"),
            "{}",
            s[2].1
        );
        // rgba32f over rgba8 is suspect even when rgba16f sits between them within the slack.
        let s = suspects(&[
            ("texture_fetch_rgba8", 1000.0),
            ("texture_fetch_rgba16f", 1080.0),
            ("texture_fetch_rgba32f", 1150.0),
        ]);
        assert_eq!(s.len(), 1, "{s:?}");
        assert!(
            s[0].1.contains("at 1.15x texture_fetch_rgba8"),
            "{}",
            s[0].1
        );
        // A failed unit has no value to compare.
        let mut t = table(&[("fp32", 10_000.0), ("fp16", 1.0)]);
        t[1].status = super::super::PeakStatus::Failed;
        cross_check(&mut t);
        assert_eq!(t[1].status, "failed");
    }
}
