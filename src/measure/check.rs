//! Output checks: each variant's outputs against the baseline variant or a CPU reference
//! (the references themselves live in src/scenario/refs/).
use crate::scenario::data;
pub use crate::scenario::refs::Contents;
use crate::scenario::{Check, Resource};

/// The verdict of one check.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    /// Every checked output matched within the tolerances (the `check` column's pass or fail).
    pub passed: bool,
    /// `exact`, `max_abs_err=…`, or what differed first.
    pub detail: String,
}

/// One element's error: where, how large, and the two values there.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ErrorAt {
    /// Element index in the output's contents (each channel of an image counts as one).
    pub index: usize,
    /// The error there: absolute, or relative to the expected value (infinite where that is 0).
    pub error: f64,
    /// The variant's value there.
    pub got: f64,
    /// The expected value there (baseline or reference).
    pub expected: f64,
}

impl ErrorAt {
    fn show(&self) -> String {
        format!(
            "{} at [{}] (got {}, expected {})",
            number(self.error),
            self.index,
            self.got,
            self.expected
        )
    }
}

/// The largest absolute error |got − expected| and the largest relative error
/// |got − expected| / |expected| (infinite where expected is 0) over an output's elements,
/// NaNs aside; the first element where each is reached.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Largest {
    /// The largest absolute error, |got − expected|; None before any element is seen.
    pub abs: Option<ErrorAt>,
    /// The largest relative error, |got − expected| / |expected|; None before any element is seen.
    pub rel: Option<ErrorAt>,
}

impl Largest {
    /// Take element `index` into account (neither value NaN).
    pub fn see(&mut self, index: usize, got: f64, expected: f64) {
        let error = (got - expected).abs();
        let relative = if error == 0.0 {
            0.0
        } else {
            error / expected.abs()
        };
        let at = |error| ErrorAt {
            index,
            error,
            got,
            expected,
        };
        if self.abs.is_none_or(|m| error > m.error) {
            self.abs = Some(at(error));
        }
        if self.rel.is_none_or(|m| relative > m.error) {
            self.rel = Some(at(relative));
        }
    }

    /// What a failed check's detail adds after the first difference, on the same line and
    /// without `;` or `|` (they separate outputs and comparisons in `check_detail`): the
    /// largest absolute and relative errors, each where it is, and the keys that accept them
    /// (a tolerance at the largest absolute error, or a relative one at the largest relative
    /// error, passes every element alone). Empty when every difference was a NaN, which no
    /// tolerance accepts.
    pub fn detail(&self, check: &Check) -> String {
        let (Some(abs), Some(rel)) = (self.abs, self.rel) else {
            return String::new();
        };
        if abs.error == 0.0 {
            return String::new();
        }
        format!(
            ", largest absolute error {}, largest relative error {}: raise check.tolerance (now {}) or check.rel_tolerance (now {}) to accept them (an element passes when |got - expected| <= tolerance + rel_tolerance * |expected|)",
            abs.show(),
            rel.show(),
            exact(check.tolerance),
            exact(check.rel_tolerance)
        )
    }
}

/// An error as the detail prints it: `0`, `inf`, else four significant digits with an
/// exponent (`3.052e-5`).
fn number(v: f64) -> String {
    if v == 0.0 || !v.is_finite() {
        format!("{v}")
    } else {
        let rounded: f64 = format!("{v:.3e}").parse().unwrap_or(v);
        format!("{rounded:e}")
    }
}

/// A tolerance as written: `0`, else with an exponent (`1e-5`).
fn exact(v: f64) -> String {
    if v == 0.0 {
        "0".into()
    } else {
        format!("{v:e}")
    }
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
        let mut largest = Largest::default();
        // Identical bytes need no per-element pass (the common case, and the slow one to scan).
        if e != a {
            let mut visit = |i: usize, ev: f64, av: f64| {
                let ok = if ev.is_nan() || av.is_nan() {
                    ev.is_nan() && av.is_nan()
                } else {
                    let err = (av - ev).abs();
                    max_err = max_err.max(err);
                    largest.see(i, av, ev);
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
                "{name}: {bad} of {n} differ, first at [{i}]: got {av}, expected {ev}{}",
                largest.detail(check)
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

    /// Issue 29: a failed check says how large the errors are and where (absolute and
    /// relative, each at its own element), and which keys accept them, on one line.
    #[test]
    fn a_failure_gives_the_largest_errors_and_the_keys_to_loosen() {
        let check = Check {
            outputs: vec!["o".into()],
            tolerance: 0.0,
            rel_tolerance: 1e-3,
            reference: None,
            baseline: None,
            on: Default::default(),
        };
        let four = |v: [f32; 4]| Contents::from([("o".into(), data::from_f32(&v))]);
        let r = |n: &str| Resource {
            kind: ResourceKind::Buffer {
                element: Elem::F32,
                bytes: 16,
            },
            ..res(n)
        };
        let e = four([1.0, 100.0, 0.5, 4.0]);
        let a = four([1.5, 101.0, 0.5, 4.0]);
        let out = compare(&check, &[r("o")], &e, &a);
        assert!(!out.passed);
        assert_eq!(
            out.detail,
            "o: 2 of 4 differ, first at [0]: got 1.5, expected 1, \
             largest absolute error 1e0 at [1] (got 101, expected 100), \
             largest relative error 5e-1 at [0] (got 1.5, expected 1): \
             raise check.tolerance (now 0) or check.rel_tolerance (now 1e-3) to accept them \
             (an element passes when |got - expected| <= tolerance + rel_tolerance * |expected|)"
        );
        // Against 0 the relative error is infinite; rounded to four digits otherwise.
        let a = four([1.0, 100.0, 0.5, 4.0]);
        let e0 = four([1.0, 100.0, 0.5, 0.0]);
        let out = compare(
            &check,
            &[r("o")],
            &e0,
            &four([1.0, 100.0 + 1.0 / 3.0, 0.5, 4.0]),
        );
        assert!(
            out.detail
                .contains("largest absolute error 4e0 at [3] (got 4, expected 0)")
                && out.detail.contains("largest relative error inf at [3]"),
            "{}",
            out.detail
        );
        let out = compare(
            &check,
            &[r("o")],
            &a,
            &four([1.0, 100.0 + 1.0 / 3.0, 0.5, 4.0]),
        );
        assert!(
            out.detail
                .contains("largest absolute error 3.333e-1 at [1]"),
            "{}",
            out.detail
        );
        // NaNs: no tolerance accepts them, so no largest error and no keys to loosen.
        let out = compare(&check, &[r("o")], &a, &four([1.0, f32::NAN, 0.5, 4.0]));
        assert_eq!(
            out.detail,
            "o: 1 of 4 differ, first at [1]: got NaN, expected 100"
        );
    }
}
