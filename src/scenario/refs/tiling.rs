//! CPU references of the tiling family: the wide-kernel filter of scenarios/tiling.toml
//! (glsl/tiling/filter.comp) and the 5 vertical taps of scenarios/tiling_l2.toml
//! (glsl/tiling/taps_l2.comp), each computed with the same operations in the same order as its
//! shader, so that it matches the GPU bit for bit (power-of-two weights, no division).
use crate::scenario::refs::{image_dims, input, Contents};
use crate::scenario::Case;

/// Luminance difference up to which a tap counts (`EDGE` in filter.comp).
const EDGE: f32 = 1.0;

/// `dst` of filter.comp from the rgba16f image `src` and the param `radius`.
pub fn filter(case: &Case, inputs: &Contents) -> Result<Contents, String> {
    let bytes = input(inputs, "src", "tiling_filter")?;
    let (w, h) = image_dims(case, "src")?;
    let radius = *case
        .params
        .get("radius")
        .ok_or("needs a param named `radius`")?;
    if bytes.len() != w * h * 8 {
        return Err(format!(
            "needs `src` as rgba16f ({} bytes), got {} bytes",
            w * h * 8,
            bytes.len()
        ));
    }
    let src: Vec<f32> = bytes
        .chunks_exact(2)
        .map(|b| half::f16::from_le_bytes([b[0], b[1]]).to_f32())
        .collect();
    let r = radius as i64;
    let offs = [-r, -(r / 2), 0, r / 2, r];
    let mut dst = vec![0f32; w * h * 4];
    // Rows in parallel: at the full sizes (8192 x 4608, 25 taps) one thread takes seconds.
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let rows_per = h.div_ceil(threads).max(1);
    std::thread::scope(|s| {
        for (chunk, out) in dst.chunks_mut(rows_per * w * 4).enumerate() {
            let src = &src;
            s.spawn(move || {
                for (k, px) in out.chunks_exact_mut(4).enumerate() {
                    let i = chunk * rows_per * w + k;
                    let (x, y) = ((i % w) as i64, (i / w) as i64);
                    px.copy_from_slice(&pixel(src, w as i64, h as i64, x, y, &offs));
                }
            });
        }
    });
    Ok(Contents::from([(
        "dst".into(),
        crate::scenario::data::from_f32(&dst),
    )]))
}

fn pixel(src: &[f32], w: i64, h: i64, x: i64, y: i64, offs: &[i64; 5]) -> [f32; 4] {
    let at = |qx: i64, qy: i64| {
        let b = ((qy * w + qx) * 4) as usize;
        [src[b], src[b + 1], src[b + 2]]
    };
    let c0 = at(x, y);
    let l0 = (c0[0] + c0[1]) + c0[2];
    let mut acc = [0f32; 4];
    for j in 0..5i64 {
        for i in 0..5i64 {
            let qx = (x + offs[i as usize]).clamp(0, w - 1);
            let qy = (y + offs[j as usize]).clamp(0, h - 1);
            let c = at(qx, qy);
            let l = (c[0] + c[1]) + c[2];
            let ring = (i - 2).abs().max((j - 2).abs());
            let ws = match ring {
                0 => 1.0,
                1 => 0.5,
                _ => 0.25,
            };
            let wt = if (l - l0).abs() <= EDGE { ws } else { 0.0 };
            acc[0] += wt * c[0];
            acc[1] += wt * c[1];
            acc[2] += wt * c[2];
            acc[3] += wt;
        }
    }
    acc
}

/// `dst` of taps_l2.comp (scenarios/tiling_l2.toml) from the vec2-of-f32 buffer `src` and the
/// params `width` and `radius`: 5 taps in each pixel's column at -R, -R/2, 0, R/2, R rows
/// (clamped), weighted 1/4, 1/2, 1, 1/2, 1/4 and summed in that order. Powers of two make the
/// products exact, so the result does not depend on FMA contraction.
pub fn taps_l2(case: &Case, inputs: &Contents) -> Result<Contents, String> {
    let bytes = input(inputs, "src", "tiling_taps_l2")?;
    let param = |name: &str| {
        case.params
            .get(name)
            .map(|v| *v as usize)
            .ok_or(format!("needs a param named `{name}`"))
    };
    let (w, radius) = (param("width")?, param("radius")? as i64);
    if w == 0 || bytes.is_empty() || bytes.len() % (w * 8) != 0 {
        return Err(format!(
            "needs `src` as rows of {w} vec2 of f32, got {} bytes",
            bytes.len()
        ));
    }
    let h = (bytes.len() / (w * 8)) as i64;
    let src = crate::scenario::data::as_f32(bytes);
    let (r, half) = (radius, radius / 2);
    let taps = [
        (-r, 0.25f32),
        (-half, 0.5),
        (0, 1.0),
        (half, 0.5),
        (r, 0.25),
    ];
    let mut dst = vec![0u8; bytes.len()];
    // Rows in parallel: the full size is 16384 x 9216 pixels.
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let rows_per = (h as usize).div_ceil(threads).max(1);
    std::thread::scope(|s| {
        for (chunk, out) in dst.chunks_mut(rows_per * w * 8).enumerate() {
            let src = &src;
            s.spawn(move || {
                for (k, v) in out.chunks_exact_mut(4).enumerate() {
                    // Float k of the chunk: pixel (x, y), component c.
                    let i = chunk * rows_per * w * 2 + k;
                    let (c, x, y) = (i % 2, (i / 2) % w, (i / 2 / w) as i64);
                    let mut acc = 0f32;
                    for (t, (dy, wt)) in taps.iter().enumerate() {
                        let row = (y + dy).clamp(0, h - 1) as usize;
                        let p = src[(row * w + x) * 2 + c] * wt;
                        acc = if t == 0 { p } else { acc + p };
                    }
                    v.copy_from_slice(&acc.to_le_bytes());
                }
            });
        }
    });
    Ok(Contents::from([("dst".into(), dst)]))
}
