//! The L2 capacity: the largest working set still read at 90 % of the L2's bandwidth (the
//! knee of the l2_capacity calibration's curve).
use super::super::{Peak, L2_CAPACITY};
use super::{num, peak_row};
use crate::results::{Record, RowStatus};

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
pub(super) fn l2_capacity(rows: &[Record]) -> anyhow::Result<Option<Peak>> {
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
            p.status = crate::peaks::PeakStatus::Suspect;
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
