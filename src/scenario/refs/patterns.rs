//! CPU references of the access-pattern scenarios (scenarios/coalescing.toml,
//! bank_conflicts.toml, divergence.toml, write_pattern.toml, waterfall.toml).
use crate::scenario::data::{as_f32, from_f32};
use crate::scenario::refs::{image_dims, input, Contents};
use crate::scenario::Case;

fn param(case: &Case, name: &str, _reference: &str) -> Result<usize, String> {
    case.params
        .get(name)
        .map(|v| *v as usize)
        .ok_or_else(|| format!("needs a param named `{name}`"))
}

fn as_u32(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// coalescing: dst[s] = sum over j of src[s + j*T] (wrapping u32), T = len(dst).
pub fn coalescing_sum(_case: &Case, inputs: &Contents) -> Result<Contents, String> {
    let src = as_u32(input(inputs, "src", "coalescing_sum")?);
    let columns = input(inputs, "dst", "coalescing_sum")?.len() / 4;
    if columns == 0 || !src.len().is_multiple_of(columns) {
        return Err(format!(
            "coalescing_sum: src ({}) is not a multiple of dst ({columns})",
            src.len()
        ));
    }
    let mut dst = vec![0u32; columns];
    for row in src.chunks_exact(columns) {
        for (d, v) in dst.iter_mut().zip(row) {
            *d = d.wrapping_add(*v);
        }
    }
    Ok(Contents::from([(
        "dst".into(),
        dst.iter().flat_map(|v| v.to_le_bytes()).collect(),
    )]))
}

/// bank_conflicts: dst[x*h + y] = src[(y*w + x)*4] (the x channel, transposed).
pub fn transpose_x(case: &Case, inputs: &Contents) -> Result<Contents, String> {
    let (w, h) = (
        param(case, "w", "transpose_x")?,
        param(case, "h", "transpose_x")?,
    );
    let src = as_f32(input(inputs, "src", "transpose_x")?);
    if src.len() != 4 * w * h {
        return Err(format!(
            "transpose_x: src has {} floats, not 4*w*h",
            src.len()
        ));
    }
    let mut dst = vec![0f32; w * h];
    for y in 0..h {
        for x in 0..w {
            dst[x * h + y] = src[(y * w + x) * 4];
        }
    }
    Ok(Contents::from([("dst".into(), from_f32(&dst))]))
}

/// divergence: `iters` steps of x*0.999+0.25 (even i) or (x-0.125)*1.0005 (odd i), each
/// operation rounded to f32 (the shader marks them `precise`, so no FMA).
pub fn divergence(case: &Case, inputs: &Contents) -> Result<Contents, String> {
    let iters = param(case, "iters", "divergence")?;
    let src = as_f32(input(inputs, "src", "divergence")?);
    // Elements in parallel: at the full size (2 M elements x 1024 steps) one thread takes
    // seconds, and the run waits for it.
    let dst = crate::scenario::refs::par_map(src.len(), |i| {
        let mut x = src[i];
        for _ in 0..iters {
            x = if i % 2 == 0 {
                x * 0.999f32 + 0.25f32
            } else {
                (x - 0.125f32) * 1.0005f32
            };
        }
        x
    });
    Ok(Contents::from([("dst".into(), from_f32(&dst))]))
}

/// write_pattern: dst[p] = (src.z + src.w, src.y + src.w, src.x + src.w, 1).
pub fn write_pattern(case: &Case, inputs: &Contents) -> Result<Contents, String> {
    let (w, h) = image_dims(case, "src")?;
    let src = as_f32(input(inputs, "src", "write_pattern")?);
    if src.len() != 4 * w * h {
        return Err("write_pattern: src must be an rgba32f image".into());
    }
    let dst: Vec<f32> = src
        .chunks_exact(4)
        .flat_map(|t| [t[2] + t[3], t[1] + t[3], t[0] + t[3], 1.0])
        .collect();
    Ok(Contents::from([("dst".into(), from_f32(&dst))]))
}

/// waterfall: dst = buf0 ++ buf1 ++ ... ++ buf{nsel-1} (the sources in order).
pub fn waterfall(case: &Case, inputs: &Contents) -> Result<Contents, String> {
    let nsel = param(case, "nsel", "waterfall")?;
    let mut dst = Vec::new();
    for k in 0..nsel {
        dst.extend_from_slice(input(inputs, &format!("buf{k}"), "waterfall")?);
    }
    Ok(Contents::from([("dst".into(), dst)]))
}
