//! Relations between units that hold on every GPU: a peak that breaks one is marked suspect.
use super::super::{Peak, CROSS_SLACK, FP16_OVER_FP32, L1_OVER_L2, TENSOR_OVER_FP32};

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
pub(super) fn cross_check(peaks: &mut [Peak]) {
    let get = |list: &[Peak], u: &str| {
        list.iter()
            .find(|p| p.unit == u && p.status != "failed")
            .and_then(|p| p.value)
    };
    let snapshot: Vec<Peak> = peaks.to_vec();
    let mut mark = |unit: &str, why: String| {
        if let Some(p) = peaks.iter_mut().find(|p| p.unit == unit) {
            p.status = crate::peaks::PeakStatus::Suspect;
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
