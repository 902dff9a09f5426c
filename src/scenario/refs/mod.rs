//! CPU references: the built-in ones a scenario may name in `check.reference`, each family's
//! in its own file, and the helpers they share. Nothing here depends on the checks that use
//! them (src/measure/check.rs).
use crate::scenario::data;
use crate::scenario::{Case, ImageFormat, Resource, ResourceKind};
use std::collections::BTreeMap;

pub mod external;
pub mod gemm;
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

/// A built-in CPU reference a scenario may name in `check.reference`: what it computes, what
/// it needs (checked when the scenario loads, so a reference that cannot apply stops the run
/// before anything runs), and the outputs it gives. tests/reference_needs.rs runs every one on
/// a bundled scenario cut down to exactly what it declares, so a need cannot go undeclared.
pub struct Builtin {
    /// The name `[check].reference` gives (`tiling_filter`, `peak_copy`, ...).
    pub name: &'static str,
    /// What it computes (the shader it mirrors), one line.
    pub computes: &'static str,
    /// Params it reads.
    pub params: &'static [&'static str],
    /// Resources it reads: (name, what it must be). A name ending in `*` stands for every
    /// resource with that prefix (at least one). "f32 buffer", "u32 buffer", "buffer" (any
    /// element), "rgba32f image", "rgba16f image".
    pub resources: &'static [(&'static str, &'static str)],
    /// The outputs it gives: a checked output must be one of them.
    pub outputs: &'static [&'static str],
    f: RefFn,
}

macro_rules! builtin {
    ($name:expr, $computes:expr, params: [$($p:expr),*], resources: [$(($r:expr, $k:expr)),*], outputs: [$($o:expr),*], $f:expr) => {
        Builtin { name: $name, computes: $computes, params: &[$($p),*], resources: &[$(($r, $k)),*], outputs: &[$($o),*], f: $f }
    };
}

/// Scenario families add theirs, one entry each, from src/scenario/refs/<family>.rs.
#[rustfmt::skip]
const BUILTINS: &[Builtin] = &[
    builtin!("smoke", "dst[i] = 2*src[i] + img(i mod W, (i div W) mod H).r; out_img = 0.5*img",
        params: [], resources: [("src", "f32 buffer"), ("img", "rgba32f image")], outputs: ["dst", "out_img"], smoke),
    builtin!("sum_f32", "out[0] = sum of input (f64 accumulation)",
        params: [], resources: [("input", "f32 buffer")], outputs: ["out"], sum_f32),
    builtin!("coalescing_sum", "glsl/patterns/coalescing.comp: dst[s] = wrapping sum of src[s + j*len(dst)]",
        params: [], resources: [("src", "u32 buffer"), ("dst", "u32 buffer")], outputs: ["dst"], patterns::coalescing_sum),
    builtin!("transpose_x", "glsl/patterns/bank_conflicts.comp: dst[x*h + y] = x channel of vec4 src[y*w + x]",
        params: ["w", "h"], resources: [("src", "f32 buffer")], outputs: ["dst"], patterns::transpose_x),
    builtin!("divergence", "glsl/patterns/divergence.comp: iters f32 steps, x*0.999+0.25 (even i) or (x-0.125)*1.0005 (odd i)",
        params: ["iters"], resources: [("src", "f32 buffer")], outputs: ["dst"], patterns::divergence),
    builtin!("write_pattern", "glsl/patterns/write_pattern.comp: dst[p] = (src.zyx + src.w, 1)",
        params: [], resources: [("src", "rgba32f image")], outputs: ["dst"], patterns::write_pattern),
    builtin!("waterfall", "glsl/patterns/waterfall.comp: dst = buf0 ++ ... ++ buf{nsel-1}",
        params: ["nsel"], resources: [("buf*", "buffer")], outputs: ["dst"], patterns::waterfall),
    builtin!("luminance_tiles", "lum[g] = mean over TILE x TILE tile g of dot(rgb, (0.2125, 0.7154, 0.0721)), f64 sums",
        params: ["w0", "h0", "scale", "tile"], resources: [("pixels", "f32 buffer")], outputs: ["lum"], reduction::luminance_tiles),
    builtin!("occupancy_island", "glsl/occupancy/island.comp: red-black Gauss-Seidel over chains of wg particles, then the floor",
        params: ["n", "wg", "passes"], resources: [("pos", "f32 buffer")], outputs: ["out"], occupancy::island),
    builtin!("neighborhood_blur3x3", "glsl/neighborhood/*.comp: 3x3 binomial filter of src (width x height), edges clamped",
        params: ["width", "height"], resources: [("src", "f32 buffer")], outputs: ["dst"], occupancy::blur3x3),
    builtin!("tiling_filter", "glsl/tiling/filter.comp: 5x5 edge-stopping taps, rgb = sum(w*src.rgb), a = sum(w)",
        params: ["radius"], resources: [("src", "rgba16f image")], outputs: ["dst"], tiling::filter),
    builtin!("tiling_taps_l2", "glsl/tiling/taps_l2.comp: 5 taps in the column at -R, -R/2, 0, R/2, R rows, weights 1/4, 1/2, 1, 1/2, 1/4",
        params: ["width", "radius"], resources: [("src", "f32 buffer")], outputs: ["dst"], tiling::taps_l2),
    builtin!("gemm_f32", "glsl/gemm/*.comp: c = a * b, n x n row-major f32, f64 sums rounded once",
        params: ["n"], resources: [("a", "f32 buffer"), ("b", "f32 buffer")], outputs: ["c"], gemm::gemm_f32),
    builtin!("gemm_f16_f32", "glsl/gemm/coopmat.comp: c (f32) = a * b, n x n row-major f16 inputs, f64 sums rounded once",
        params: ["n"], resources: [("a", "f16 buffer"), ("b", "f16 buffer")], outputs: ["c"], gemm::gemm_f16_f32),
    builtin!("peak_sink", "glsl/peak/result.glsl: sink = 1.0 x 1024, 0, 0 (every calibration invocation checked its own result)",
        params: [], resources: [("sink", "f32 buffer")], outputs: ["sink"], peak::sink),
    builtin!("peak_write", "glsl/peak/bandwidth.comp MODE 1: vec4 w of dst = (w, 1, 2, 3)",
        params: [], resources: [("dst", "f32 buffer")], outputs: ["dst"], peak::write),
    builtin!("peak_copy", "glsl/peak/bandwidth.comp MODE 2: dst = src",
        params: [], resources: [("src", "buffer"), ("dst", "buffer")], outputs: ["dst"], peak::copy),
    builtin!("peak_atomic", "glsl/peak/atomic.comp: every counter = iters",
        params: ["iters"], resources: [("counters", "u32 buffer")], outputs: ["counters"], peak::atomic),
    builtin!("peak_int64_vk", "glsl/peak/vkpeak_int.comp (vkpeak's int64 kernel): out[gx] = c0 + c1 (u64 as 2 u32), c0, c1 from gx, gx mod wg after 8 * loop steps of x -> gx x + gx mod wg",
        params: ["wg", "loop"], resources: [("out", "u32 buffer")], outputs: ["out"], peak::int64_vk),
    builtin!("peak_int32_vk", "glsl/peak/vkpeak_int.comp INT32 (vkpeak's int32 kernel): out[gx] = c0 + c1 (u32), c0, c1 from gx, gx mod wg after 8 * loop steps of x -> gx x + gx mod wg",
        params: ["wg", "loop"], resources: [("out", "u32 buffer")], outputs: ["out"], peak::int32_vk),
    builtin!("peak_launch", "glsl/peak/empty.comp: out[g] = g + 1",
        params: [], resources: [("out", "u32 buffer")], outputs: ["out"], peak::launch),
];

/// Every built-in reference, in declaration order.
pub fn builtins() -> &'static [Builtin] {
    BUILTINS
}

/// The names of every built-in reference, in [`builtins`] order (for messages listing the choices).
pub fn reference_names() -> Vec<&'static str> {
    BUILTINS.iter().map(|r| r.name).collect()
}

/// The built-in reference called `name`; None when there is none.
pub fn builtin(name: &str) -> Option<&'static Builtin> {
    BUILTINS.iter().find(|r| r.name == name)
}

/// Whether a built-in reference is called `name`.
pub fn reference_exists(name: &str) -> bool {
    builtin(name).is_some()
}

/// Does a resource fit a declared need ("f32 buffer", "buffer", "rgba16f image", ...)?
fn fits(r: &Resource, need: &str) -> bool {
    let (elem_or_format, kind) = match need.split_once(' ') {
        Some((a, b)) => (Some(a), b),
        None => (None, need),
    };
    match (&r.kind, kind) {
        (ResourceKind::Buffer { element, .. }, "buffer") => {
            elem_or_format.is_none_or(|e| e == element.name())
        }
        (ResourceKind::Image { format, .. }, "image") => {
            elem_or_format.is_none_or(|f| Some(*format) == ImageFormat::parse(f))
        }
        _ => false,
    }
}

/// Why a built-in reference cannot apply to a case (its params, resources and checked
/// outputs), in one message that names the reference once. Checked when the file loads.
pub fn applies(
    b: &Builtin,
    params: &BTreeMap<String, f64>,
    resources: &[Resource],
    outputs: &[String],
) -> Result<(), String> {
    let missing: Vec<&str> = b
        .params
        .iter()
        .filter(|p| !params.contains_key(**p))
        .copied()
        .collect();
    if !missing.is_empty() {
        return Err(format!(
            "`{}` needs the param(s) {} in [params]",
            b.name,
            missing
                .iter()
                .map(|p| format!("`{p}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    for (name, need) in b.resources {
        let matching: Vec<&Resource> = match name.strip_suffix('*') {
            Some(prefix) => resources
                .iter()
                .filter(|r| r.name.starts_with(prefix))
                .collect(),
            None => resources.iter().filter(|r| r.name == *name).collect(),
        };
        if matching.is_empty() {
            return Err(format!(
                "`{}` needs a resource named `{name}` ({need})",
                b.name
            ));
        }
        if let Some(r) = matching.iter().find(|r| !fits(r, need)) {
            return Err(format!(
                "`{}` needs `{}` to be a {need}, not a {}",
                b.name,
                r.name,
                describe(r)
            ));
        }
    }
    if let Some(o) = outputs.iter().find(|o| !b.outputs.contains(&o.as_str())) {
        return Err(format!(
            "`{}` gives {}; it has no answer for the checked output `{o}` (list the outputs to check in [check] outputs)",
            b.name,
            b.outputs.iter().map(|o| format!("`{o}`")).collect::<Vec<_>>().join(", ")
        ));
    }
    Ok(())
}

fn describe(r: &Resource) -> String {
    match &r.kind {
        ResourceKind::Buffer { element, .. } => format!("{} buffer", element.name()),
        ResourceKind::Uniform { .. } => "uniform buffer".to_string(),
        ResourceKind::Image { format, .. } => format!("{format:?} image").to_lowercase(),
    }
}

/// Expected outputs from a built-in reference, given the initial contents of every resource.
pub fn run_reference(name: &str, case: &Case, inputs: &Contents) -> Result<Contents, String> {
    let b = builtin(name).ok_or_else(|| format!("unknown reference `{name}`"))?;
    (b.f)(case, inputs)
}

/// A resource's initial contents; `_reference` names the caller for readers of the code only
/// (messages get the reference's name once, from the caller of run_reference).
pub fn input<'a>(
    inputs: &'a Contents,
    name: &str,
    _reference: &str,
) -> Result<&'a Vec<u8>, String> {
    inputs
        .get(name)
        .ok_or_else(|| format!("needs a resource named `{name}`"))
}

/// Width and height in texels of the case's image resource `name`; an error naming it when there is
/// no such image.
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
        .ok_or_else(|| format!("needs an image named `{name}`"))
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
