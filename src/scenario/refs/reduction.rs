//! CPU reference of the reduction family (scenarios/reduction.toml): the mean luminance of each
//! TILE x TILE block of an RGBA32F image, summed in f64.
use crate::scenario::data;
use crate::scenario::refs::{input, Contents};
use crate::scenario::Case;

/// The article's luminance weights, as the f32 constants the shaders use.
const WEIGHTS: [f32; 3] = [0.2125, 0.7154, 0.0721];

fn param(case: &Case, name: &str) -> Result<usize, String> {
    let v = *case
        .params
        .get(name)
        .ok_or_else(|| format!("needs a param named `{name}`"))?;
    if v < 1.0 || v.fract() != 0.0 {
        return Err(format!("param `{name}` = {v} is not a positive integer"));
    }
    Ok(v as usize)
}

/// `lum[gy * groups_x + gx]` = (sum of dot(rgb, WEIGHTS) over the tile's pixels inside the
/// image) / tile², for the image `pixels` of (w0·scale) x (h0·scale) RGBA32F texels and the
/// params `w0`, `h0`, `scale`, `tile`. Pixels outside the image count as 0, as in the shaders.
pub fn luminance_tiles(case: &Case, inputs: &Contents) -> Result<Contents, String> {
    let scale = param(case, "scale")?;
    let (w, h) = (param(case, "w0")? * scale, param(case, "h0")? * scale);
    let tile = param(case, "tile")?;
    let px = data::as_f32(input(inputs, "pixels", "luminance_tiles")?);
    if px.len() != w * h * 4 {
        return Err(format!(
            "needs `pixels` as {w}x{h} RGBA32F ({} floats), got {}",
            w * h * 4,
            px.len()
        ));
    }
    let lum = tile_means(&px, w, h, tile);
    Ok(Contents::from([("lum".into(), data::from_f32(&lum))]))
}

/// Mean luminance per tile of a w x h RGBA32F image (row-major texels), tiles row-major.
fn tile_means(px: &[f32], w: usize, h: usize, tile: usize) -> Vec<f32> {
    let (gw, gh) = (w.div_ceil(tile), h.div_ceil(tile));
    let mut sums = vec![0f64; gw * gh];
    for (y, row) in px.chunks_exact(w * 4).enumerate() {
        let out = &mut sums[(y / tile) * gw..(y / tile + 1) * gw];
        for (x, p) in row.chunks_exact(4).enumerate() {
            let l: f64 = (0..3).map(|c| p[c] as f64 * WEIGHTS[c] as f64).sum();
            out[x / tile] += l;
        }
    }
    let area = (tile * tile) as f64;
    sums.iter().map(|s| (s / area) as f32).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partial_tiles_count_missing_pixels_as_zero() {
        // 3x2 image of white pixels, tiles of 2: a 2x1 grid, the second tile half outside.
        let lum = tile_means(&[1.0; 3 * 2 * 4], 3, 2, 2);
        let white = WEIGHTS.iter().map(|w| *w as f64).sum::<f64>();
        assert_eq!(lum.len(), 2);
        assert!((lum[0] as f64 - white).abs() < 1e-6, "{lum:?}");
        assert!((lum[1] as f64 - white / 2.0).abs() < 1e-6, "{lum:?}");
    }

    #[test]
    fn alpha_is_ignored_and_weights_apply_per_channel() {
        // One 1x1 tile: red 1, green 2, blue 4, alpha 100.
        let lum = tile_means(&[1.0, 2.0, 4.0, 100.0], 1, 1, 1);
        let want = 0.2125f32 as f64 + 2.0 * 0.7154f32 as f64 + 4.0 * 0.0721f32 as f64;
        assert!((lum[0] as f64 - want).abs() < 1e-6, "{lum:?}");
    }
}
