//! The parser: tokens into a [`Node`] tree (recursive descent, depth-limited), and the
//! variables a tree refers to.
use super::lex::{Lexer, Tok, Token};
use super::*;

pub(super) fn parse(src: &str) -> Result<Node, ExprError> {
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

pub(super) fn collect_vars(node: &Node, src: &str, out: &mut Vec<String>) {
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
