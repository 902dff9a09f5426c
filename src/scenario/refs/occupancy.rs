//! CPU references of scenarios/occupancy.toml (the island solver) and
//! scenarios/neighborhood.toml (the 3x3 filter), mirroring their shaders' f32 arithmetic.
use crate::scenario::data;
use crate::scenario::refs::{input, Contents};
use crate::scenario::Case;

fn param(case: &Case, name: &str, _reference: &str) -> Result<usize, String> {
    let v = *case
        .params
        .get(name)
        .ok_or_else(|| format!("needs a param named `{name}`"))?;
    if v < 0.0 || v.fract() != 0.0 {
        return Err(format!("param `{name}` = {v} is not a count"));
    }
    Ok(v as usize)
}

/// glsl/occupancy/island.comp: islands of `wg` particles (2D positions in `pos`), `passes`
/// red-black Gauss-Seidel passes (one gradient step on |b - a|^2 - REST^2 per constraint),
/// then the floor; `out`. Only +, -, * in the shader's order, so it matches bit for bit.
pub fn island(case: &Case, inputs: &Contents) -> Result<Contents, String> {
    const NAME: &str = "occupancy_island";
    const REST2: f32 = 0.0025;
    const STEP: f32 = 0.05;
    const FLOOR_Y: f32 = -0.5;
    let (n, wg, passes) = (
        param(case, "n", NAME)?,
        param(case, "wg", NAME)?,
        param(case, "passes", NAME)?,
    );
    let pos = data::as_f32(input(inputs, "pos", NAME)?);
    if wg == 0 || !n.is_multiple_of(wg) || pos.len() < 2 * n {
        return Err(format!(
            "n = {n} must be a multiple of wg = {wg} and pos must hold 2n floats"
        ));
    }
    let mut out = pos[..2 * n].to_vec();
    for island in out.chunks_exact_mut(2 * wg) {
        for _ in 0..passes {
            for colour in 0..2 {
                for j in (colour..wg.saturating_sub(1)).step_by(2) {
                    let (ax, ay) = (island[2 * j], island[2 * j + 1]);
                    let (bx, by) = (island[2 * j + 2], island[2 * j + 3]);
                    let (dx, dy) = (bx - ax, by - ay);
                    let s = STEP * ((dx * dx + dy * dy) - REST2);
                    let (cx, cy) = (s * dx, s * dy);
                    island[2 * j] = ax + cx;
                    island[2 * j + 1] = ay + cy;
                    island[2 * j + 2] = bx - cx;
                    island[2 * j + 3] = by - cy;
                }
            }
            for y in island.iter_mut().skip(1).step_by(2) {
                *y = y.max(FLOOR_Y);
            }
        }
    }
    Ok(Contents::from([("out".into(), data::from_f32(&out))]))
}

/// glsl/neighborhood/blur3x3.comp: `dst` = the 3x3 binomial filter (1 2 1 / 2 4 2 / 1 2 1,
/// over 16) of the `width` x `height` image `src`, edges clamped. The weights are powers of
/// two, so every product is exact and the row-major sum matches the shader bit for bit.
pub fn blur3x3(case: &Case, inputs: &Contents) -> Result<Contents, String> {
    const NAME: &str = "neighborhood_blur3x3";
    const W: [[f32; 3]; 3] = [[1.0, 2.0, 1.0], [2.0, 4.0, 2.0], [1.0, 2.0, 1.0]];
    let (w, h) = (param(case, "width", NAME)?, param(case, "height", NAME)?);
    let src = data::as_f32(input(inputs, "src", NAME)?);
    if w == 0 || h == 0 || src.len() < w * h {
        return Err(format!("src must hold width x height = {w} x {h} floats"));
    }
    let at = |x: isize, y: isize| {
        let x = x.clamp(0, w as isize - 1) as usize;
        let y = y.clamp(0, h as isize - 1) as usize;
        src[y * w + x]
    };
    let mut dst = vec![0f32; w * h];
    for y in 0..h {
        for x in 0..w {
            let mut acc = 0f32;
            for (dy, row) in W.iter().enumerate() {
                for (dx, wt) in row.iter().enumerate() {
                    acc += wt * at(x as isize + dx as isize - 1, y as isize + dy as isize - 1);
                }
            }
            dst[y * w + x] = acc * 0.0625;
        }
    }
    Ok(Contents::from([("dst".into(), data::from_f32(&dst))]))
}
