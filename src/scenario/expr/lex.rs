//! The lexer: an expression's text as tokens (numbers, names, operators), each with its byte
//! span for error messages.
use super::{syntax, ExprError, MAX_MAGNITUDE};

#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Tok {
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
pub(super) struct Token {
    pub(super) tok: Tok,
    pub(super) start: usize,
    pub(super) end: usize,
}

pub(super) struct Lexer<'a> {
    src: &'a str,
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Lexer<'a> {
    pub(super) fn tokenize(src: &'a str) -> Result<Vec<Token>, ExprError> {
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
