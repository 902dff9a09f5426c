//! Output checks: each variant's outputs against the baseline variant or a CPU reference.
use crate::data;
use crate::scenario::{Case, Check, Resource};
use std::collections::BTreeMap;

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
    ("coalescing_sum", "glsl/patterns/coalescing.comp: dst[s] = wrapping sum of src[s + j*len(dst)]", crate::refs::patterns::coalescing_sum),
    ("transpose_x", "glsl/patterns/bank_conflicts.comp: dst[x*h + y] = x channel of vec4 src[y*w + x]", crate::refs::patterns::transpose_x),
    ("divergence", "glsl/patterns/divergence.comp: iters f32 steps, x*0.999+0.25 (even i) or (x-0.125)*1.0005 (odd i)", crate::refs::patterns::divergence),
    ("write_pattern", "glsl/patterns/write_pattern.comp: dst[p] = (src.zyx + src.w, 1)", crate::refs::patterns::write_pattern),
    ("waterfall", "glsl/patterns/waterfall.comp: dst = buf0 ++ ... ++ buf{nsel-1}", crate::refs::patterns::waterfall),
    (
        "luminance_tiles",
        "lum[g] = mean over TILE x TILE tile g of dot(rgb, (0.2125, 0.7154, 0.0721)), f64 sums",
        crate::refs::reduction::luminance_tiles,
    ),
    ("occupancy_island", "glsl/occupancy/island.comp: red-black Gauss-Seidel over chains of wg particles, then the floor", crate::refs::occupancy::island),
    ("neighborhood_blur3x3", "glsl/neighborhood/*.comp: 3x3 binomial filter of src (width x height), edges clamped", crate::refs::occupancy::blur3x3),
    (
        "tiling_filter",
        "glsl/tiling/filter.comp: 5x5 edge-stopping taps, rgb = sum(w*src.rgb), a = sum(w)",
        crate::refs::tiling::filter,
    ),
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
    let x = data::as_f32(input(inputs, "input", "sum_f32")?);
    let s: f64 = x.iter().map(|v| *v as f64).sum();
    Ok(Contents::from([(
        "out".into(),
        data::from_f32(&[s as f32]),
    )]))
}

/// The verdict of one check.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    pub passed: bool,
    /// `exact`, `max_abs_err=…`, or what differed first.
    pub detail: String,
}

/// Compare `actual` with `expected` for every output the check names.
/// An element passes when |a − e| ≤ tolerance + rel_tolerance·|e|; NaN never passes unless both are NaN.
pub fn compare(
    check: &Check,
    resources: &[Resource],
    expected: &Contents,
    actual: &Contents,
) -> Outcome {
    let mut details = Vec::new();
    let mut passed = true;
    for name in &check.outputs {
        let Some(res) = resources.iter().find(|r| &r.name == name) else {
            continue;
        };
        let (Some(e), Some(a)) = (expected.get(name), actual.get(name)) else {
            // A reference that does not produce this output leaves it unchecked, but says so.
            details.push(format!("{name}: no expected value"));
            continue;
        };
        let elem = res.element();
        let n = (e.len().min(a.len()) as u64 / elem.bytes()) as usize;
        let mut bad = 0usize;
        let mut first: Option<(usize, f64, f64)> = None;
        let mut max_err = 0f64;
        // Identical bytes need no per-element pass (the common case, and the slow one to scan).
        if e != a {
            let mut visit = |i: usize, ev: f64, av: f64| {
                let ok = if ev.is_nan() || av.is_nan() {
                    ev.is_nan() && av.is_nan()
                } else {
                    let err = (av - ev).abs();
                    max_err = max_err.max(err);
                    err <= check.tolerance + check.rel_tolerance * ev.abs()
                };
                if !ok {
                    bad += 1;
                    first.get_or_insert((i, ev, av));
                }
            };
            if elem == crate::scenario::Elem::F32 {
                let (ef, af) = (data::as_f32(&e[..n * 4]), data::as_f32(&a[..n * 4]));
                for (i, (x, y)) in ef.iter().zip(&af).enumerate() {
                    if x.to_bits() != y.to_bits() {
                        visit(i, *x as f64, *y as f64);
                    }
                }
            } else {
                for i in 0..n {
                    visit(i, data::element(e, elem, i), data::element(a, elem, i));
                }
            }
        }
        if e.len() != a.len() {
            passed = false;
            details.push(format!(
                "{name}: size {} bytes, expected {}",
                a.len(),
                e.len()
            ));
        } else if let Some((i, ev, av)) = first {
            passed = false;
            details.push(format!(
                "{name}: {bad} of {n} differ, first at [{i}]: got {av}, expected {ev}"
            ));
        } else if max_err == 0.0 {
            details.push(format!("{name}: exact"));
        } else {
            details.push(format!("{name}: max_abs_err={max_err:e}"));
        }
    }
    Outcome {
        passed,
        detail: details.join("; "),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::{Elem, Init, ResourceKind};

    fn res(name: &str) -> Resource {
        Resource {
            name: name.into(),
            set: 0,
            binding: 0,
            index: 0,
            kind: ResourceKind::Buffer {
                element: Elem::F32,
                bytes: 12,
            },
            init: Init::Zero,
            output: true,
            key: vec![],
        }
    }

    #[test]
    fn tolerances_and_first_difference() {
        let check = Check {
            outputs: vec!["o".into()],
            tolerance: 0.0,
            rel_tolerance: 0.0,
            reference: None,
            baseline: None,
        };
        let e = Contents::from([("o".into(), data::from_f32(&[1.0, 2.0, 3.0]))]);
        let a = Contents::from([("o".into(), data::from_f32(&[1.0, 2.5, 3.0]))]);
        let out = compare(&check, &[res("o")], &e, &a);
        assert!(!out.passed);
        assert!(
            out.detail
                .contains("1 of 3 differ, first at [1]: got 2.5, expected 2"),
            "{}",
            out.detail
        );
        let loose = Check {
            tolerance: 0.6,
            ..check.clone()
        };
        let out = compare(&loose, &[res("o")], &e, &a);
        assert!(out.passed, "{}", out.detail);
        assert!(out.detail.contains("max_abs_err=5e-1"), "{}", out.detail);
        let rel = Check {
            rel_tolerance: 0.25,
            ..check.clone()
        };
        assert!(compare(&rel, &[res("o")], &e, &a).passed);
        assert_eq!(compare(&check, &[res("o")], &e, &e).detail, "o: exact");
        let nan = Contents::from([("o".into(), data::from_f32(&[1.0, f32::NAN, 3.0]))]);
        assert!(!compare(&loose, &[res("o")], &e, &nan).passed);
    }
}
