//! The evaluator: a [`Node`] tree to a value, with every intermediate checked (finite, at
//! most 2^63) and the failing subexpression quoted in the error.
use super::*;

pub(super) struct Evaluator<'a> {
    pub(super) src: &'a str,
    pub(super) vars: &'a Vars,
}

impl Evaluator<'_> {
    fn text(&self, (s, e): Span) -> String {
        self.src[s..e].trim().to_owned()
    }

    fn check(&self, value: f64, span: Span) -> Result<f64, ExprError> {
        if value.abs() <= MAX_MAGNITUDE {
            Ok(value)
        } else {
            Err(ExprError::Overflow {
                expr: self.text(span),
                value,
            })
        }
    }

    fn domain(&self, span: Span, reason: String) -> ExprError {
        ExprError::Domain {
            expr: self.text(span),
            reason,
        }
    }

    pub(super) fn eval(&self, node: &Node) -> Result<f64, ExprError> {
        match node {
            Node::Num(v) => Ok(*v),
            Node::Var(span) => {
                let name = &self.src[span.0..span.1];
                match self.vars.get(name) {
                    Some(&v) => self.check(v, *span),
                    None => Err(ExprError::UnknownVariable {
                        name: name.to_owned(),
                        known: self.vars.keys().cloned().collect(),
                    }),
                }
            }
            Node::Neg(inner) => Ok(-self.eval(inner)?),
            Node::Pow(a, b, span) => {
                let (a, b) = (self.eval(a)?, self.eval(b)?);
                if a == 0.0 && b < 0.0 {
                    return Err(ExprError::DivisionByZero {
                        expr: self.text(*span),
                    });
                }
                self.check(a.powf(b), *span)
            }
            Node::Chain { first, rest } => {
                let mut acc = self.eval(first)?;
                for (op, rhs, span) in rest {
                    let r = self.eval(rhs)?;
                    acc = match op {
                        BinOp::Add => acc + r,
                        BinOp::Sub => acc - r,
                        BinOp::Mul => acc * r,
                        BinOp::Div | BinOp::Rem if r == 0.0 => {
                            return Err(ExprError::DivisionByZero {
                                expr: self.text(*span),
                            })
                        }
                        BinOp::Div => acc / r,
                        BinOp::Rem => acc % r,
                    };
                    acc = self.check(acc, *span)?;
                }
                Ok(acc)
            }
            Node::Call(func, args, span) => {
                let mut vals = Vec::with_capacity(args.len());
                for a in args {
                    vals.push(self.eval(a)?);
                }
                let v = self.call(*func, &vals, *span)?;
                self.check(v, *span)
            }
        }
    }

    fn call(&self, func: Func, a: &[f64], span: Span) -> Result<f64, ExprError> {
        Ok(match func {
            Func::Ceil => a[0].ceil(),
            Func::Floor => a[0].floor(),
            Func::Round => a[0].round(),
            Func::Abs => a[0].abs(),
            Func::Sqrt if a[0] < 0.0 => {
                return Err(self.domain(
                    span,
                    format!("sqrt needs a non-negative argument, got {}", show(&a[0])),
                ))
            }
            Func::Sqrt => a[0].sqrt(),
            Func::Log2 if a[0] <= 0.0 => {
                return Err(self.domain(
                    span,
                    format!("log2 needs a positive argument, got {}", show(&a[0])),
                ))
            }
            Func::Log2 => a[0].log2(),
            Func::Min => a.iter().copied().fold(f64::INFINITY, f64::min),
            Func::Max => a.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            Func::Pow => {
                if a[0] == 0.0 && a[1] < 0.0 {
                    return Err(ExprError::DivisionByZero {
                        expr: self.text(span),
                    });
                }
                a[0].powf(a[1])
            }
            Func::DivCeil => {
                if a[1] == 0.0 {
                    return Err(ExprError::DivisionByZero {
                        expr: self.text(span),
                    });
                }
                div_ceil(a[0], a[1])
            }
            Func::Clamp => {
                let (x, lo, hi) = (a[0], a[1], a[2]);
                if lo > hi {
                    return Err(self.domain(
                        span,
                        format!(
                            "the lower bound {} is above the upper bound {}",
                            show(&lo),
                            show(&hi)
                        ),
                    ));
                }
                x.clamp(lo, hi)
            }
            Func::Align => {
                let (x, align) = (a[0], a[1]);
                if align == 0.0 {
                    return Err(ExprError::DivisionByZero {
                        expr: self.text(span),
                    });
                }
                if align < 0.0 {
                    return Err(self.domain(
                        span,
                        format!("the alignment must be positive, got {}", show(&align)),
                    ));
                }
                let q = div_ceil(x, align);
                self.check(q, span)? * align
            }
        })
    }
}

/// `ceil(a / b)`. Integer arguments go through integer arithmetic so the result never
/// depends on how the float quotient happened to round.
pub(super) fn div_ceil(a: f64, b: f64) -> f64 {
    if a.fract() == 0.0 && b.fract() == 0.0 && a.abs() <= MAX_MAGNITUDE && b.abs() <= MAX_MAGNITUDE
    {
        // Both fit in i128 exactly, so neither the casts nor the arithmetic can overflow.
        let (a, b) = (a as i128, b as i128);
        let q = a / b;
        let r = a % b;
        let q = if r != 0 && ((r > 0) == (b > 0)) {
            q + 1
        } else {
            q
        };
        q as f64
    } else {
        (a / b).ceil()
    }
}
