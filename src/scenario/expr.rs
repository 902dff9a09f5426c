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

// ---------------------------------------------------------------------------------------
// Lexer

#[derive(Debug, Clone, Copy, PartialEq)]
enum Tok {
    Num(f64),
    Ident,
    Plus,
    Minus,
    Star,
    Slash,
    Percent,
    Pow,
    LParen,
    RParen,
    Comma,
    End,
}

#[derive(Debug, Clone, Copy)]
struct Token {
    tok: Tok,
    start: usize,
    end: usize,
}

struct Lexer<'a> {
    src: &'a str,
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Lexer<'a> {
    fn tokenize(src: &'a str) -> Result<Vec<Token>, ExprError> {
        let mut lx = Lexer {
            src,
            bytes: src.as_bytes(),
            pos: 0,
        };
        let mut out = Vec::new();
        loop {
            let t = lx.next()?;
            out.push(t);
            if t.tok == Tok::End {
                return Ok(out);
            }
        }
    }

    fn peek(&self, off: usize) -> Option<u8> {
        self.bytes.get(self.pos + off).copied()
    }

    fn next(&mut self) -> Result<Token, ExprError> {
        while self.peek(0).is_some_and(|b| b.is_ascii_whitespace()) {
            self.pos += 1;
        }
        let start = self.pos;
        let Some(b) = self.peek(0) else {
            return Ok(Token {
                tok: Tok::End,
                start,
                end: start,
            });
        };
        let single = |tok| (tok, 1);
        let (tok, len) = match b {
            b'+' => single(Tok::Plus),
            b'-' => single(Tok::Minus),
            b'*' if self.peek(1) == Some(b'*') => (Tok::Pow, 2),
            b'*' => single(Tok::Star),
            b'^' => single(Tok::Pow),
            b'/' => single(Tok::Slash),
            b'%' => single(Tok::Percent),
            b'(' => single(Tok::LParen),
            b')' => single(Tok::RParen),
            b',' => single(Tok::Comma),
            b'0'..=b'9' | b'.' => return self.number(),
            b if b.is_ascii_alphabetic() || b == b'_' => {
                while self
                    .peek(0)
                    .is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_')
                {
                    self.pos += 1;
                }
                return Ok(Token {
                    tok: Tok::Ident,
                    start,
                    end: self.pos,
                });
            }
            _ => {
                let ch = self.src[start..].chars().next().unwrap_or('?');
                return Err(syntax(
                    self.src,
                    start,
                    format!("unexpected character `{}`", ch.escape_debug()),
                ));
            }
        };
        self.pos += len;
        Ok(Token {
            tok,
            start,
            end: self.pos,
        })
    }

    /// Consumes a run of digits with `_` separators; returns the digits without separators.
    fn digits(&mut self, radix: u32, out: &mut String) -> Result<(), ExprError> {
        while let Some(b) = self.peek(0) {
            if (b as char).is_digit(radix) {
                out.push(b as char);
                self.pos += 1;
            } else if b == b'_' {
                let prev_digit = self
                    .pos
                    .checked_sub(1)
                    .and_then(|p| self.bytes.get(p))
                    .is_some_and(|&p| (p as char).is_digit(radix));
                let next_digit = self.peek(1).is_some_and(|n| (n as char).is_digit(radix));
                if !(prev_digit && next_digit) {
                    return Err(syntax(
                        self.src,
                        self.pos,
                        "`_` in a number must sit between two digits".to_owned(),
                    ));
                }
                self.pos += 1;
            } else {
                break;
            }
        }
        Ok(())
    }

    fn number(&mut self) -> Result<Token, ExprError> {
        let start = self.pos;
        let value = if self.peek(0) == Some(b'0') && matches!(self.peek(1), Some(b'x' | b'X')) {
            self.pos += 2;
            let mut hex = String::new();
            self.digits(16, &mut hex)?;
            if hex.is_empty() {
                return Err(syntax(
                    self.src,
                    self.pos,
                    "expected hexadecimal digits after `0x`".to_owned(),
                ));
            }
            // Saturating keeps the lexer total; the range check below reports the overflow.
            hex.chars().fold(0f64, |acc, c| {
                acc * 16.0 + f64::from(c.to_digit(16).unwrap_or(0))
            })
        } else {
            let mut text = String::new();
            self.digits(10, &mut text)?;
            if self.peek(0) == Some(b'.') {
                self.pos += 1;
                text.push('.');
                self.digits(10, &mut text)?;
            }
            if text == "." {
                return Err(syntax(
                    self.src,
                    start,
                    "expected digits around `.`".to_owned(),
                ));
            }
            // Only treat `e` as an exponent when digits follow, so `2e` reads as `2` then `e`
            // and produces an ordinary "unexpected name" error.
            if matches!(self.peek(0), Some(b'e' | b'E')) {
                let sign = usize::from(matches!(self.peek(1), Some(b'+' | b'-')));
                if self.peek(1 + sign).is_some_and(|b| b.is_ascii_digit()) {
                    text.push('e');
                    if sign == 1 {
                        text.push(self.bytes[self.pos + 1] as char);
                    }
                    self.pos += 1 + sign;
                    self.digits(10, &mut text)?;
                }
            }
            text.parse::<f64>().map_err(|_| {
                syntax(
                    self.src,
                    start,
                    format!("`{}` is not a valid number", &self.src[start..self.pos]),
                )
            })?
        };
        if self
            .peek(0)
            .is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.')
        {
            return Err(syntax(
                self.src,
                self.pos,
                format!(
                    "unexpected `{}` directly after the number `{}`",
                    self.bytes[self.pos] as char,
                    &self.src[start..self.pos]
                ),
            ));
        }
        let end = self.pos;
        if value.is_nan() || value.abs() > MAX_MAGNITUDE {
            return Err(ExprError::Overflow {
                expr: self.src[start..end].to_owned(),
                value,
            });
        }
        Ok(Token {
            tok: Tok::Num(value),
            start,
            end,
        })
    }
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
// Parser

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

fn parse(src: &str) -> Result<Node, ExprError> {
    let len = src.chars().count();
    if len > MAX_LEN {
        return Err(ExprError::TooLong { len, max: MAX_LEN });
    }
    let tokens = Lexer::tokenize(src)?;
    let mut p = Parser {
        src,
        tokens,
        pos: 0,
        depth: 0,
    };
    if p.peek().tok == Tok::End {
        return Err(syntax(src, 0, "the expression is empty".to_owned()));
    }
    let node = p.expr()?;
    let t = p.peek();
    if t.tok != Tok::End {
        return Err(p.unexpected(t, "an operator or the end of the expression"));
    }
    Ok(node)
}

struct Parser<'a> {
    src: &'a str,
    tokens: Vec<Token>,
    pos: usize,
    depth: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Token {
        // The token list always ends with `End`, and the parser never advances past it.
        self.tokens[self.pos.min(self.tokens.len() - 1)]
    }

    fn bump(&mut self) -> Token {
        let t = self.peek();
        if t.tok != Tok::End {
            self.pos += 1;
        }
        t
    }

    fn text(&self, t: Token) -> &str {
        &self.src[t.start..t.end]
    }

    fn unexpected(&self, t: Token, wanted: &str) -> ExprError {
        let found = if t.tok == Tok::End {
            "the end of the expression".to_owned()
        } else {
            format!("`{}`", self.text(t))
        };
        syntax(
            self.src,
            t.start,
            format!("expected {wanted}, found {found}"),
        )
    }

    fn expr(&mut self) -> Result<Node, ExprError> {
        let start = self.peek().start;
        let first = self.term()?;
        let mut rest = Vec::new();
        loop {
            let op = match self.peek().tok {
                Tok::Plus => BinOp::Add,
                Tok::Minus => BinOp::Sub,
                _ => break,
            };
            self.bump();
            let rhs = self.term()?;
            rest.push((op, rhs, (start, self.prev_end())));
        }
        Ok(chain(first, rest))
    }

    fn term(&mut self) -> Result<Node, ExprError> {
        let start = self.peek().start;
        let first = self.unary()?;
        let mut rest = Vec::new();
        loop {
            let op = match self.peek().tok {
                Tok::Star => BinOp::Mul,
                Tok::Slash => BinOp::Div,
                Tok::Percent => BinOp::Rem,
                _ => break,
            };
            self.bump();
            let rhs = self.unary()?;
            rest.push((op, rhs, (start, self.prev_end())));
        }
        Ok(chain(first, rest))
    }

    fn prev_end(&self) -> usize {
        self.pos
            .checked_sub(1)
            .and_then(|i| self.tokens.get(i))
            .map_or(0, |t| t.end)
    }

    /// Every recursive path of the grammar passes through here, so this is where the
    /// nesting depth is counted.
    fn unary(&mut self) -> Result<Node, ExprError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(ExprError::TooDeep {
                expr: snippet(self.src),
                max: MAX_DEPTH,
            });
        }
        let result = self.unary_inner();
        self.depth -= 1;
        result
    }

    fn unary_inner(&mut self) -> Result<Node, ExprError> {
        let t = self.peek();
        match t.tok {
            Tok::Minus => {
                self.bump();
                let inner = self.unary()?;
                Ok(Node::Neg(Box::new(inner)))
            }
            Tok::Plus => {
                self.bump();
                self.unary()
            }
            _ => self.power(),
        }
    }

    fn power(&mut self) -> Result<Node, ExprError> {
        let start = self.peek().start;
        let base = self.primary()?;
        if self.peek().tok == Tok::Pow {
            self.bump();
            let exp = self.unary()?;
            return Ok(Node::Pow(
                Box::new(base),
                Box::new(exp),
                (start, self.prev_end()),
            ));
        }
        Ok(base)
    }

    fn primary(&mut self) -> Result<Node, ExprError> {
        let t = self.bump();
        match t.tok {
            Tok::Num(v) => Ok(Node::Num(v)),
            Tok::LParen => {
                let inner = self.expr()?;
                let close = self.peek();
                if close.tok != Tok::RParen {
                    return Err(self.unexpected(close, "`)`"));
                }
                self.bump();
                Ok(inner)
            }
            Tok::Ident if self.peek().tok == Tok::LParen => self.call(t),
            Tok::Ident => Ok(Node::Var((t.start, t.end))),
            _ => Err(self.unexpected(t, "a number, a variable, a function call or `(`")),
        }
    }

    fn call(&mut self, name_tok: Token) -> Result<Node, ExprError> {
        let name = self.text(name_tok).to_owned();
        let func = Func::lookup(&name).ok_or(ExprError::UnknownFunction { name: name.clone() })?;
        self.bump(); // `(`
        let mut args = Vec::new();
        if self.peek().tok == Tok::RParen {
            self.bump();
        } else {
            loop {
                args.push(self.expr()?);
                let t = self.bump();
                match t.tok {
                    Tok::Comma => continue,
                    Tok::RParen => break,
                    _ => return Err(self.unexpected(t, "`,` or `)`")),
                }
            }
        }
        let span = (name_tok.start, self.prev_end());
        let (lo, hi) = func.arity();
        if args.len() < lo || args.len() > hi {
            let expected = match (lo, hi) {
                (1, 1) => "exactly 1 argument".to_owned(),
                (lo, hi) if lo == hi => format!("exactly {lo} arguments"),
                (lo, _) => format!("at least {lo} arguments"),
            };
            return Err(ExprError::WrongArgCount {
                name,
                expected,
                got: args.len(),
                expr: self.src[span.0..span.1].to_owned(),
            });
        }
        Ok(Node::Call(func, args, span))
    }
}

fn chain(first: Node, rest: Vec<(BinOp, Node, Span)>) -> Node {
    if rest.is_empty() {
        first
    } else {
        Node::Chain {
            first: Box::new(first),
            rest,
        }
    }
}

fn collect_vars(node: &Node, src: &str, out: &mut Vec<String>) {
    match node {
        Node::Num(_) => {}
        Node::Var((s, e)) => {
            let name = &src[*s..*e];
            if !out.iter().any(|n| n == name) {
                out.push(name.to_owned());
            }
        }
        Node::Neg(inner) => collect_vars(inner, src, out),
        Node::Pow(a, b, _) => {
            collect_vars(a, src, out);
            collect_vars(b, src, out);
        }
        Node::Chain { first, rest } => {
            collect_vars(first, src, out);
            for (_, n, _) in rest {
                collect_vars(n, src, out);
            }
        }
        Node::Call(_, args, _) => {
            for a in args {
                collect_vars(a, src, out);
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// Evaluator

struct Evaluator<'a> {
    src: &'a str,
    vars: &'a Vars,
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

    fn eval(&self, node: &Node) -> Result<f64, ExprError> {
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
fn div_ceil(a: f64, b: f64) -> f64 {
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

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn vars(pairs: &[(&str, f64)]) -> Vars {
        pairs.iter().map(|(k, v)| ((*k).to_owned(), *v)).collect()
    }

    fn ev(s: &str) -> f64 {
        eval(
            s,
            &vars(&[("width", 100.0), ("height", 30.0), ("n", 1000.0)]),
        )
        .unwrap_or_else(|e| panic!("{s}: {e}"))
    }

    fn err(s: &str) -> ExprError {
        eval(
            s,
            &vars(&[("width", 100.0), ("height", 30.0), ("n", 1000.0)]),
        )
        .expect_err(&format!("{s} should fail"))
    }

    #[test]
    fn precedence_and_associativity() {
        assert_eq!(ev("1 + 2 * 3"), 7.0);
        assert_eq!(ev("(1 + 2) * 3"), 9.0);
        assert_eq!(ev("10 - 3 - 2"), 5.0);
        assert_eq!(ev("64 / 4 / 2"), 8.0);
        assert_eq!(ev("2 ** 3 ** 2"), 512.0);
        assert_eq!(ev("2 ^ 3 ^ 2"), 512.0);
        assert_eq!(ev("-2 ** 2"), -4.0);
        assert_eq!(ev("2 ** -1"), 0.5);
        assert_eq!(ev("--3"), 3.0);
        assert_eq!(ev("+3 - -3"), 6.0);
        assert_eq!(ev("2 * 3 ** 2"), 18.0);
        assert_eq!(ev("7 % 3 * 2"), 2.0);
        assert_eq!(ev("-7 % 3"), -1.0);
        assert_eq!(ev("7.5 % 2"), 1.5);
        assert_eq!(ev("7 / 2"), 3.5);
        assert_eq!(ev("  width*height*16 "), 48000.0);
    }

    #[test]
    fn numbers() {
        assert_eq!(ev("1_000_000"), 1e6);
        assert_eq!(ev("0xff"), 255.0);
        assert_eq!(ev("0XFF_FF"), 65535.0);
        assert_eq!(ev("1.5"), 1.5);
        assert_eq!(ev(".5"), 0.5);
        assert_eq!(ev("2."), 2.0);
        assert_eq!(ev("1e3"), 1000.0);
        assert_eq!(ev("2.5E-1"), 0.25);
        assert!(matches!(err("1__0"), ExprError::Syntax { .. }));
        assert!(matches!(err("1_"), ExprError::Syntax { .. }));
        assert!(matches!(err("0x"), ExprError::Syntax { .. }));
        assert!(matches!(err("0xg"), ExprError::Syntax { .. }));
        assert!(matches!(err("1.2.3"), ExprError::Syntax { .. }));
        assert!(matches!(err("2e"), ExprError::Syntax { .. }));
        assert!(matches!(err("."), ExprError::Syntax { .. }));
        assert!(matches!(err("1e400"), ExprError::Overflow { .. }));
        assert!(matches!(
            err("0xffff_ffff_ffff_ffff_f"),
            ExprError::Overflow { .. }
        ));
    }

    #[test]
    fn functions() {
        assert_eq!(ev("ceil(width / 8)"), 13.0);
        assert_eq!(ev("floor(width / 8)"), 12.0);
        assert_eq!(ev("round(2.5)"), 3.0);
        assert_eq!(ev("round(-2.5)"), -3.0);
        assert_eq!(ev("abs(-4)"), 4.0);
        assert_eq!(ev("sqrt(16)"), 4.0);
        assert_eq!(ev("log2(1024)"), 10.0);
        assert_eq!(ev("min(3, 1, 2)"), 1.0);
        assert_eq!(ev("max(1, n / 256)"), 1000.0 / 256.0);
        assert_eq!(ev("max(1, 2)"), 2.0);
        assert_eq!(ev("pow(2, 10)"), 1024.0);
        assert_eq!(ev("div_ceil(100, 8)"), 13.0);
        assert_eq!(ev("div_ceil(96, 8)"), 12.0);
        assert_eq!(ev("div_ceil(-7, 2)"), -3.0);
        assert_eq!(ev("div_ceil(7, -2)"), -3.0);
        assert_eq!(ev("div_ceil(-7, -2)"), 4.0);
        assert_eq!(ev("div_ceil(7.5, 2)"), 4.0);
        assert_eq!(ev("clamp(5, 0, 3)"), 3.0);
        assert_eq!(ev("clamp(-5, 0, 3)"), 0.0);
        assert_eq!(ev("align(100, 64)"), 128.0);
        assert_eq!(ev("align(128, 64)"), 128.0);
        assert_eq!(ev("align(0, 64)"), 0.0);
        assert_eq!(ev("max(min(width, height), 2 ** 4)"), 30.0);
        // A variable may share a function's name; only a following `(` makes a call.
        assert_eq!(eval("max * 2", &vars(&[("max", 4.0)])), Ok(8.0));
    }

    #[test]
    fn div_ceil_matches_integer_arithmetic() {
        let big = (1i64 << 53) - 1;
        for (a, b) in [
            (big, 2),
            (big, big - 1),
            (big, 3),
            (-big, 7),
            (1 << 52, 1),
            (5, 5),
        ] {
            let expected = a.div_euclid(b) + i64::from(a.rem_euclid(b) != 0);
            assert_eq!(div_ceil(a as f64, b as f64), expected as f64, "{a} / {b}");
        }
    }

    #[test]
    fn integer_entry_points() {
        let v = vars(&[("n", 1000.0), ("w", 8.0)]);
        assert_eq!(eval_u64("ceil(n / 256)", &v), Ok(4));
        assert_eq!(eval_u64("n * 4", &v), Ok(4000));
        assert_eq!(eval_u64("-0", &v), Ok(0));
        assert_eq!(eval_i64("8 - n", &v), Ok(-992));
        assert_eq!(eval_u64("2 ** 53", &v), Ok(1 << 53));
        assert_eq!(eval_i64("-(2 ** 53)", &v), Ok(-(1 << 53)));

        let e = eval_u64("7 / 2", &v).unwrap_err();
        assert!(matches!(e, ExprError::NotInteger { value, .. } if value == 3.5));
        let msg = e.to_string();
        assert!(msg.contains("`7 / 2`") && msg.contains("3.5") && msg.contains("ceil()"));

        let e = eval_u64("w - n", &v).unwrap_err();
        assert!(matches!(e, ExprError::Negative { value, .. } if value == -992.0));
        assert!(e.to_string().contains("non-negative"));

        let e = eval_u64("2 ** 53 + 2", &v).unwrap_err();
        assert!(matches!(e, ExprError::OutOfRange { .. }), "{e}");
        assert!(e.to_string().contains("2^53"));
        assert!(matches!(
            eval_i64("-(2 ** 60)", &v),
            Err(ExprError::OutOfRange { .. })
        ));
    }

    #[test]
    fn error_messages() {
        let v = vars(&[("n", 16.0), ("w", 8.0)]);
        let e = eval("n / (w - 8)", &v).unwrap_err();
        assert_eq!(
            e,
            ExprError::DivisionByZero {
                expr: "n / (w - 8)".into()
            }
        );
        assert_eq!(e.to_string(), "division by zero in `n / (w - 8)`");

        let v = vars(&[("width", 1.0), ("height", 1.0), ("n", 1.0)]);
        let e = eval("widht * 2", &v).unwrap_err();
        assert_eq!(
            e.to_string(),
            "unknown variable `widht` (known: height, n, width)"
        );
        let e = eval("x", &Vars::new()).unwrap_err();
        assert!(e.to_string().contains("no variables are defined"));

        let e = err("cell(n)");
        assert!(matches!(&e, ExprError::UnknownFunction { name } if name == "cell"));
        assert!(e.to_string().contains("ceil"), "{e}");

        let e = err("min(1)");
        assert!(matches!(&e, ExprError::WrongArgCount { got: 1, .. }));
        assert_eq!(
            e.to_string(),
            "function `min` takes at least 2 arguments, but 1 were given in `min(1)`"
        );
        assert!(matches!(
            err("ceil(1, 2)"),
            ExprError::WrongArgCount { got: 2, .. }
        ));
        assert!(matches!(
            err("ceil()"),
            ExprError::WrongArgCount { got: 0, .. }
        ));
        assert!(matches!(
            err("clamp(1, 2)"),
            ExprError::WrongArgCount { got: 2, .. }
        ));

        let e = err("n * (  * 4)");
        assert_eq!(
            e,
            ExprError::Syntax {
                expr: "n * (  * 4)".into(),
                position: 8,
                message: "expected a number, a variable, a function call or `(`, found `*`".into()
            }
        );
        assert!(e.to_string().starts_with("syntax error at character 8"));
        let e = err("é + 1");
        assert!(matches!(e, ExprError::Syntax { position: 1, .. }), "{e}");
        let e = err("1 + é");
        assert!(matches!(e, ExprError::Syntax { position: 5, .. }), "{e}");
        assert!(matches!(err(""), ExprError::Syntax { .. }));
        assert!(matches!(err("   "), ExprError::Syntax { .. }));
        assert!(matches!(err("(1 + 2"), ExprError::Syntax { .. }));
        assert!(matches!(err("1 + 2)"), ExprError::Syntax { .. }));
        assert!(matches!(err("1 2"), ExprError::Syntax { .. }));
        assert!(matches!(err("max(1 2)"), ExprError::Syntax { .. }));
        assert!(matches!(err("max(1,)"), ExprError::Syntax { .. }));
        assert!(matches!(err("1 +"), ExprError::Syntax { .. }));
        assert!(matches!(err("2 ** * 3"), ExprError::Syntax { .. }));
    }

    #[test]
    fn division_by_zero_everywhere() {
        for s in [
            "1 / 0",
            "1 % 0",
            "ceil(n / (width - 100))",
            "div_ceil(n, 0)",
            "align(n, 0)",
            "0 ** -1",
            "pow(0, -2)",
        ] {
            assert!(
                matches!(err(s), ExprError::DivisionByZero { .. }),
                "{s}: {}",
                err(s)
            );
        }
        assert_eq!(
            err("1 + ceil(n / (width - 100))").to_string(),
            "division by zero in `n / (width - 100)`"
        );
    }

    #[test]
    fn overflow_and_domain() {
        let e = err("2 ** 64");
        assert!(matches!(e, ExprError::Overflow { .. }), "{e}");
        assert!(e.to_string().contains("`2 ** 64`"), "{e}");
        assert!(e.to_string().contains("2^63"), "{e}");
        assert_eq!(ev("2 ** 63"), 2f64.powi(63));
        assert!(matches!(
            err("(2 ** 62) * 4 / 4"),
            ExprError::Overflow { .. }
        ));
        assert!(matches!(err("width ** height"), ExprError::Overflow { .. }));
        assert!(matches!(
            eval("x + 1", &vars(&[("x", f64::NAN)])),
            Err(ExprError::Overflow { .. })
        ));
        assert!(matches!(
            eval("x", &vars(&[("x", f64::INFINITY)])),
            Err(ExprError::Overflow { .. })
        ));
        assert!(matches!(err("(-8) ** 0.5"), ExprError::Overflow { .. }));
        assert!(matches!(err("sqrt(-1)"), ExprError::Domain { .. }));
        assert!(matches!(err("log2(0)"), ExprError::Domain { .. }));
        assert!(matches!(err("clamp(1, 3, 2)"), ExprError::Domain { .. }));
        let e = err("align(10, -4)");
        assert!(matches!(e, ExprError::Domain { .. }));
        assert!(e.to_string().contains("alignment must be positive"), "{e}");
    }

    #[test]
    fn limits() {
        let long = format!("1{}", "+1".repeat(MAX_LEN));
        assert!(matches!(
            eval(&long, &Vars::new()),
            Err(ExprError::TooLong { .. })
        ));
        let ok_long = format!("1{}", "+1".repeat((MAX_LEN - 1) / 2));
        assert_eq!(eval(&ok_long, &Vars::new()), Ok(2048.0));

        let nested = |d: usize| format!("{}1{}", "(".repeat(d), ")".repeat(d));
        assert_eq!(eval(&nested(MAX_DEPTH - 1), &Vars::new()), Ok(1.0));
        assert!(matches!(
            eval(&nested(MAX_DEPTH + 1), &Vars::new()),
            Err(ExprError::TooDeep { .. })
        ));
        for deep in [
            nested(2000),
            format!("{}1", "-".repeat(4000)),
            format!("{}1", "2**".repeat(1300)),
            format!("{}1{}", "abs(".repeat(800), ")".repeat(800)),
        ] {
            assert!(
                matches!(eval(&deep, &Vars::new()), Err(ExprError::TooDeep { .. })),
                "{}",
                &deep[..20]
            );
        }
    }

    #[test]
    fn variables_lists_names_once_in_order() {
        assert_eq!(
            variables("width * height + max(width, n) - pow(k, 2)").unwrap(),
            vec!["width", "height", "n", "k"]
        );
        assert_eq!(variables("1 + 2").unwrap(), Vec::<String>::new());
        assert!(matches!(variables("1 +"), Err(ExprError::Syntax { .. })));
        assert!(matches!(
            variables("foo(1)"),
            Err(ExprError::UnknownFunction { .. })
        ));
    }

    const TOKENS: &[&str] = &[
        "1",
        "0",
        "2",
        "8",
        "0.5",
        "1e3",
        "0x10",
        "1_0",
        "n",
        "w",
        "x",
        "_",
        "+",
        "-",
        "*",
        "/",
        "%",
        "**",
        "^",
        "(",
        ")",
        ",",
        "ceil",
        "floor",
        "round",
        "min",
        "max",
        "abs",
        "pow",
        "log2",
        "sqrt",
        "div_ceil",
        "clamp",
        "align",
        "bogus",
        " ",
        ".",
        "e",
        "__",
        "é",
        "\t",
        "99999999999999999999",
        "1e308",
    ];

    fn token_soup() -> impl Strategy<Value = String> {
        prop::collection::vec(prop::sample::select(TOKENS), 0..80).prop_map(|v| v.concat())
    }

    fn must_not_panic(s: &str) {
        let v = vars(&[("n", 1000.0), ("w", 0.0), ("x", -3.5)]);
        let r = eval(s, &v);
        if let Ok(x) = r {
            assert!(x.abs() <= MAX_MAGNITUDE, "{s} gave {x}");
        }
        let _ = eval_u64(s, &v);
        let _ = eval_i64(s, &v);
        let _ = variables(s);
        if let Err(e) = r {
            assert!(!e.to_string().is_empty());
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        #[test]
        fn arbitrary_strings_never_panic(s in any::<String>()) {
            must_not_panic(&s);
        }

        #[test]
        fn printable_strings_never_panic(s in "[ -~]{0,200}") {
            must_not_panic(&s);
        }

        #[test]
        fn token_soups_never_panic(s in token_soup()) {
            must_not_panic(&s);
        }
    }
}
