//! Integer-valued arithmetic expressions over scenario params, e.g. `ceil(width / 8)`.
//!
//! Scenario files allow an expression wherever a number goes. Expressions are evaluated in
//! `f64` so that `ceil(n / 256)` means what it says, and the integer entry points
//! ([`eval_u64`], [`eval_i64`]) then insist on an exact integer instead of silently
//! truncating: a dispatch size of `7 / 2` is almost certainly a mistake in the scenario.
//!
//! Grammar (whitespace is ignored everywhere):
//!
//! ```text
//! expr    := term (('+' | '-') term)*
//! term    := unary (('*' | '/' | '%') unary)*
//! unary   := ('-' | '+') unary | power
//! power   := primary (('**' | '^') unary)?        right associative, binds tighter than unary
//! primary := number | ident | ident '(' expr (',' expr)* ')' | '(' expr ')'
//! number  := digits ('.' digits?)? (('e'|'E') ('+'|'-')? digits)? | '.' digits ... | '0x' hexdigits
//! ```
//!
//! Digits may contain `_` separators between digits (`1_000_000`, `0xffff_ffff`).
//! As in Python, `-2 ** 2` is `-4` and `2 ** -1` is `0.5`. `%` is the real remainder with
//! the sign of the dividend (like Rust's `%` on floats), so `-7 % 3` is `-1`.
//!
//! Functions: `ceil`, `floor`, `round` (halves away from zero), `abs`, `sqrt`, `log2`,
//! `min(a, b, ...)`, `max(a, b, ...)`, `pow(a, b)`, `div_ceil(a, b)` (`ceil(a / b)`,
//! computed exactly for integer arguments), `clamp(x, lo, hi)`, `align(x, a)` (`x` rounded
//! up to a multiple of the positive `a`).
//!
//! Every intermediate value must be finite with magnitude at most 2^63, so that a typo such
//! as `width ** height` is reported where it happens instead of producing `inf`.

use std::collections::BTreeMap;

/// Values of the params an expression may refer to.
pub type Vars = BTreeMap<String, f64>;

/// Longest accepted expression, in characters. Scenario expressions are one-liners; anything
/// longer is almost certainly generated garbage and only costs parse time.
const MAX_LEN: usize = 4096;
/// Deepest accepted nesting (parentheses, unary signs, powers, call arguments). Bounds the
/// recursion of both the parser and the evaluator so hostile input cannot overflow the stack.
const MAX_DEPTH: usize = 64;
/// Magnitude limit for intermediates. Beyond this the values stop meaning anything as sizes
/// and the `f64` → integer conversions later would saturate.
const MAX_MAGNITUDE: f64 = 9_223_372_036_854_775_808.0; // 2^63
/// Largest integer that `f64` represents exactly, and so the limit for integer results.
const MAX_EXACT: f64 = 9_007_199_254_740_992.0; // 2^53

/// Why an expression could not be parsed or evaluated. Every message is a complete sentence
/// that names the offending (sub)expression, so callers can show it to users as is.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ExprError {
    /// The text is not a well-formed expression. `position` is the 1-based character index.
    #[error("syntax error at character {position} of `{expr}`: {message}")]
    Syntax {
        /// The whole expression as written.
        expr: String,
        /// 1-based character index where parsing stopped.
        position: usize,
        /// What was expected or found there.
        message: String,
    },
    /// The expression is longer than the accepted maximum.
    #[error("expression is {len} characters long; at most {max} are allowed")]
    TooLong {
        /// Length of the expression, in characters.
        len: usize,
        /// The limit, `MAX_LEN` (4096 characters).
        max: usize,
    },
    /// Parentheses, signs or powers are nested deeper than the accepted maximum.
    #[error("expression `{expr}` is nested more than {max} levels deep")]
    TooDeep {
        /// The whole expression, trimmed.
        expr: String,
        /// The limit, `MAX_DEPTH` levels.
        max: usize,
    },
    /// A name that is not one of the defined variables.
    #[error("unknown variable `{name}` ({})", known_list(.known))]
    UnknownVariable {
        /// The name as written.
        name: String,
        /// Every variable that was defined, listed in the message.
        known: Vec<String>,
    },
    /// A call to a function that does not exist.
    #[error("unknown function `{name}` (known: {})", FUNCTION_NAMES.join(", "))]
    UnknownFunction {
        /// The name as written.
        name: String,
    },
    /// A known function called with the wrong number of arguments.
    #[error("function `{name}` takes {expected}, but {got} were given in `{expr}`")]
    WrongArgCount {
        /// The function's name.
        name: String,
        /// What it takes, in words ("at least 2 arguments").
        expected: String,
        /// Arguments given.
        got: usize,
        /// The call as written.
        expr: String,
    },
    /// Division, remainder, `div_ceil` or `align` by zero.
    #[error("division by zero in `{expr}`")]
    DivisionByZero {
        /// The (sub)expression that divided by zero.
        expr: String,
    },
    /// A function argument outside the function's domain (e.g. `sqrt(-1)`).
    #[error("invalid argument in `{expr}`: {reason}")]
    Domain {
        /// The offending call.
        expr: String,
        /// Why the argument is out of the domain.
        reason: String,
    },
    /// An intermediate value that is infinite, NaN or larger in magnitude than 2^63.
    #[error("`{expr}` evaluates to {}, which is outside the supported range (values must be finite with magnitude at most 2^63)", show(.value))]
    Overflow {
        /// The (sub)expression whose value it is.
        expr: String,
        /// The value (infinite, NaN or beyond 2^63).
        value: f64,
    },
    /// An integer result larger in magnitude than 2^53, beyond which `f64` is inexact.
    #[error("`{expr}` evaluates to {}, which exceeds 2^53 (9007199254740992), the largest integer handled exactly", show(.value))]
    OutOfRange {
        /// The expression, trimmed.
        expr: String,
        /// Its value, beyond 2^53 in magnitude.
        value: f64,
    },
    /// A fractional result where an integer is needed.
    #[error("`{expr}` evaluates to {}, which is not an integer; wrap it in ceil(), floor() or round() to choose how to round", show(.value))]
    NotInteger {
        /// The expression, trimmed.
        expr: String,
        /// Its fractional value.
        value: f64,
    },
    /// A negative result where a non-negative count is needed.
    #[error("`{expr}` evaluates to {}, but a non-negative count is needed here", show(.value))]
    Negative {
        /// The expression, trimmed.
        expr: String,
        /// Its negative value.
        value: f64,
    },
}

fn known_list(known: &[String]) -> String {
    if known.is_empty() {
        "no variables are defined here".to_owned()
    } else {
        format!("known: {}", known.join(", "))
    }
}

fn show(value: &f64) -> String {
    // Display prints 1e300 as 301 digits; an exponent is easier to read in an error.
    if value.is_finite() && value.abs() >= 1e16 {
        format!("{value:e}")
    } else {
        format!("{value}")
    }
}

/// Evaluate to a real number (division is exact real division).
pub fn eval(expr: &str, vars: &Vars) -> Result<f64, ExprError> {
    let ast = parse(expr)?;
    Evaluator { src: expr, vars }.eval(&ast)
}

/// Evaluate and require an integer result in [0, 2^53].
pub fn eval_u64(expr: &str, vars: &Vars) -> Result<u64, ExprError> {
    let value = eval_integer(expr, vars)?;
    if value < 0.0 {
        return Err(ExprError::Negative {
            expr: snippet(expr),
            value,
        });
    }
    // In range and integral, so the cast is exact.
    Ok(value as u64)
}

/// Evaluate and require an integer in [-2^53, 2^53].
pub fn eval_i64(expr: &str, vars: &Vars) -> Result<i64, ExprError> {
    // In range and integral, so the cast is exact.
    eval_integer(expr, vars).map(|v| v as i64)
}

/// Names of variables referenced by the expression (for validation), or a syntax error.
///
/// Names appear once each, in order of first use. Unknown functions and wrong argument
/// counts are reported here too, since they are detected while parsing.
pub fn variables(expr: &str) -> Result<Vec<String>, ExprError> {
    let ast = parse(expr)?;
    let mut names = Vec::new();
    collect_vars(&ast, expr, &mut names);
    Ok(names)
}

fn eval_integer(expr: &str, vars: &Vars) -> Result<f64, ExprError> {
    let value = eval(expr, vars)?;
    if value.fract() != 0.0 {
        return Err(ExprError::NotInteger {
            expr: snippet(expr),
            value,
        });
    }
    if value.abs() > MAX_EXACT {
        return Err(ExprError::OutOfRange {
            expr: snippet(expr),
            value,
        });
    }
    // Normalise -0 so callers never see a negative zero turn into a sign surprise.
    Ok(value + 0.0)
}

fn snippet(src: &str) -> String {
    src.trim().to_owned()
}

fn syntax(src: &str, byte_pos: usize, message: String) -> ExprError {
    let position = src.get(..byte_pos).map_or(byte_pos, |s| s.chars().count()) + 1;
    ExprError::Syntax {
        expr: src.to_owned(),
        position,
        message,
    }
}

// ---------------------------------------------------------------------------------------
// The tree the parser builds and the evaluator walks

#[derive(Debug, Clone, Copy, PartialEq)]
enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Func {
    Ceil,
    Floor,
    Round,
    Abs,
    Sqrt,
    Log2,
    Min,
    Max,
    Pow,
    DivCeil,
    Clamp,
    Align,
}

const FUNCTION_NAMES: &[&str] = &[
    "abs", "align", "ceil", "clamp", "div_ceil", "floor", "log2", "max", "min", "pow", "round",
    "sqrt",
];

impl Func {
    fn lookup(name: &str) -> Option<Func> {
        Some(match name {
            "ceil" => Func::Ceil,
            "floor" => Func::Floor,
            "round" => Func::Round,
            "abs" => Func::Abs,
            "sqrt" => Func::Sqrt,
            "log2" => Func::Log2,
            "min" => Func::Min,
            "max" => Func::Max,
            "pow" => Func::Pow,
            "div_ceil" => Func::DivCeil,
            "clamp" => Func::Clamp,
            "align" => Func::Align,
            _ => return None,
        })
    }

    /// Minimum and maximum argument counts.
    fn arity(self) -> (usize, usize) {
        match self {
            Func::Ceil | Func::Floor | Func::Round | Func::Abs | Func::Sqrt | Func::Log2 => (1, 1),
            Func::Pow | Func::DivCeil | Func::Align => (2, 2),
            Func::Clamp => (3, 3),
            Func::Min | Func::Max => (2, usize::MAX),
        }
    }
}

/// Byte span into the source, used to quote the failing subexpression in errors.
type Span = (usize, usize);

#[derive(Debug)]
enum Node {
    Num(f64),
    Var(Span),
    Neg(Box<Node>),
    Pow(Box<Node>, Box<Node>, Span),
    /// Left-associative chains are kept flat so that `1+1+...+1` does not build a tree as
    /// deep as it is long, which would defeat the depth limit during evaluation.
    Chain {
        first: Box<Node>,
        rest: Vec<(BinOp, Node, Span)>,
    },
    Call(Func, Vec<Node>, Span),
}

mod eval;
mod lex;
mod parse;
use eval::Evaluator;
use parse::{collect_vars, parse};

#[cfg(test)]
mod tests;
