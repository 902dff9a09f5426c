//! CPU references: the built-in ones a scenario may name in `check.reference`, each family's
//! in its own file, and the helpers they share. Nothing here depends on the checks that use
//! them (src/check.rs).
use crate::data;
use crate::scenario::Case;
use std::collections::BTreeMap;

pub mod occupancy;
pub mod patterns;
pub mod peak;
pub mod reduction;
pub mod tiling;

/// `(0..n).map(f)` on every core, in order.
pub fn par_map<T: Send + Default + Clone>(n: usize, f: impl Fn(usize) -> T + Sync) -> Vec<T> {
    let mut out = vec![T::default(); n];
    let threads = std::thread::available_parallelism().map_or(1, |t| t.get());
    let per = n.div_ceil(threads).max(1);
    std::thread::scope(|s| {
        for (c, chunk) in out.chunks_mut(per).enumerate() {
            let f = &f;
            s.spawn(move || {
                for (k, slot) in chunk.iter_mut().enumerate() {
                    *slot = f(c * per + k);
                }
            });
        }
    });
    out
}

/// Resource contents by name, tightly packed.
pub type Contents = BTreeMap<String, Vec<u8>>;

/// A CPU reference: the initial contents of every resource in, the expected outputs out.
pub type RefFn = fn(&Case, &Contents) -> Result<Contents, String>;

/// The built-in CPU references a scenario may name in `check.reference`: (name, what it
/// computes, function). Scenario families keep theirs in src/refs/<family>.rs.
const REFERENCES: &[(&str, &str, RefFn)] = &[
    (
        "smoke",
        "dst[i] = 2*src[i] + img(i mod W, (i div W) mod H).r; out_img = 0.5*img",
        smoke,
    ),
    (
        "sum_f32",
        "out[0] = sum of input (f64 accumulation)",
        sum_f32,
    ),
    // Scenario families add their references below, one line each, from src/refs/<family>.rs.
    ("coalescing_sum", "glsl/patterns/coalescing.comp: dst[s] = wrapping sum of src[s + j*len(dst)]", patterns::coalescing_sum),
    ("transpose_x", "glsl/patterns/bank_conflicts.comp: dst[x*h + y] = x channel of vec4 src[y*w + x]", patterns::transpose_x),
    ("divergence", "glsl/patterns/divergence.comp: iters f32 steps, x*0.999+0.25 (even i) or (x-0.125)*1.0005 (odd i)", patterns::divergence),
    ("write_pattern", "glsl/patterns/write_pattern.comp: dst[p] = (src.zyx + src.w, 1)", patterns::write_pattern),
    ("waterfall", "glsl/patterns/waterfall.comp: dst = buf0 ++ ... ++ buf{nsel-1}", patterns::waterfall),
    (
        "luminance_tiles",
        "lum[g] = mean over TILE x TILE tile g of dot(rgb, (0.2125, 0.7154, 0.0721)), f64 sums",
        reduction::luminance_tiles,
    ),
    ("occupancy_island", "glsl/occupancy/island.comp: red-black Gauss-Seidel over chains of wg particles, then the floor", occupancy::island),
    ("neighborhood_blur3x3", "glsl/neighborhood/*.comp: 3x3 binomial filter of src (width x height), edges clamped", occupancy::blur3x3),
    (
        "tiling_filter",
        "glsl/tiling/filter.comp: 5x5 edge-stopping taps, rgb = sum(w*src.rgb), a = sum(w)",
        tiling::filter,
    ),
    ("peak_sink", "glsl/peak/result.glsl: sink = 1.0 x 1024, 0, 0 (every calibration invocation checked its own result)", peak::sink),
    ("peak_write", "glsl/peak/bandwidth.comp MODE 1: vec4 w of dst = (w, 1, 2, 3)", peak::write),
    ("peak_copy", "glsl/peak/bandwidth.comp MODE 2: dst = src", peak::copy),
    ("peak_atomic", "glsl/peak/atomic.comp: every counter = iters", peak::atomic),
    ("peak_launch", "glsl/peak/empty.comp: out[g] = g + 1", peak::launch),
    ("tiling_taps_l2", "glsl/tiling/taps_l2.comp: 5 taps in the column at -R, -R/2, 0, R/2, R rows, weights 1/4, 1/2, 1, 1/2, 1/4", tiling::taps_l2),
];

pub fn reference_names() -> Vec<&'static str> {
    REFERENCES.iter().map(|r| r.0).collect()
}

pub fn reference_exists(name: &str) -> bool {
    REFERENCES.iter().any(|r| r.0 == name)
}

/// Expected outputs from a built-in reference, given the initial contents of every resource.
pub fn run_reference(name: &str, case: &Case, inputs: &Contents) -> Result<Contents, String> {
    let f = REFERENCES
        .iter()
        .find(|r| r.0 == name)
        .ok_or_else(|| format!("unknown reference `{name}`"))?
        .2;
    f(case, inputs)
}

pub fn input<'a>(inputs: &'a Contents, name: &str, reference: &str) -> Result<&'a Vec<u8>, String> {
    inputs
        .get(name)
        .ok_or_else(|| format!("reference `{reference}` needs a resource named `{name}`"))
}

pub fn image_dims(case: &Case, name: &str) -> Result<(usize, usize), String> {
    case.resources
        .iter()
        .find(|r| r.name == name)
        .and_then(|r| match r.kind {
            crate::scenario::ResourceKind::Image { width, height, .. } => {
                Some((width as usize, height as usize))
            }
            _ => None,
        })
        .ok_or_else(|| format!("reference needs an image named `{name}`"))
}

fn smoke(case: &Case, inputs: &Contents) -> Result<Contents, String> {
    let src = data::as_f32(input(inputs, "src", "smoke")?);
    let img = data::as_f32(input(inputs, "img", "smoke")?);
    let (w, h) = image_dims(case, "img")?;
    let dst: Vec<f32> = src
        .iter()
        .enumerate()
        .map(|(i, s)| 2.0 * s + img[((i / w) % h * w + i % w) * 4])
        .collect();
    let out_img: Vec<f32> = img.iter().map(|v| 0.5 * v).collect();
    Ok(Contents::from([
        ("dst".into(), data::from_f32(&dst)),
        ("out_img".into(), data::from_f32(&out_img)),
    ]))
}

fn sum_f32(_case: &Case, inputs: &Contents) -> Result<Contents, String> {
    let bytes = input(inputs, "input", "sum_f32")?;
    // f64 partial sums per core over the raw bytes (at 1 G elements a copy and one thread
    // took seconds); f64 keeps the order's rounding far below f32's.
    let chunks: Vec<&[u8]> = bytes.chunks(4 << 20).collect();
    let parts = par_map(chunks.len(), |i| {
        chunks[i]
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]) as f64)
            .sum::<f64>()
    });
    let s: f64 = parts.iter().sum();
    Ok(Contents::from([(
        "out".into(),
        data::from_f32(&[s as f32]),
    )]))
}
