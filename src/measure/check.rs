//! Output checks: each variant's outputs against the baseline variant or a CPU reference
//! (the references themselves live in src/scenario/refs/).
use crate::scenario::data;
pub use crate::scenario::refs::Contents;
use crate::scenario::{Check, Resource};

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
            on: Default::default(),
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
