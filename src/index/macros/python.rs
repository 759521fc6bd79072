//! The subset of Python that [`super`] runs: the values, expressions and statements of a
//! simple `mkdocs-macros` macro, read from `main.py` (and from a page's calls, in Jinja's
//! syntax, which writes literals and calls as Python does), and run.

use std::collections::HashMap;

/// A value the macros compute with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Value {
    Str(String),
    Int(i64),
    Bool(bool),
    None,
}

impl Value {
    /// As Jinja shows it.
    pub(super) fn shown(&self) -> String {
        match self {
            Value::Str(s) => s.clone(),
            Value::Int(n) => n.to_string(),
            Value::Bool(true) => "True".into(),
            Value::Bool(false) => "False".into(),
            Value::None => "None".into(),
        }
    }

    /// Python's truth.
    fn truth(&self) -> bool {
        match self {
            Value::Str(s) => !s.is_empty(),
            Value::Int(n) => *n != 0,
            Value::Bool(b) => *b,
            Value::None => false,
        }
    }
}

/// An expression of the subset read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Expr {
    Lit(Value),
    /// An argument or a local name.
    Name(String),
    /// `env.variables['k']`.
    Var(String),
    /// An f-string: text and expressions.
    Format(Vec<Expr>),
    Add(Box<Expr>, Box<Expr>),
    /// `*`: numbers multiplied, a string repeated.
    Mul(Box<Expr>, Box<Expr>),
    /// `a if condition else b`: (condition, a, b).
    If(Box<Expr>, Box<Expr>, Box<Expr>),
    /// `str(x)`.
    Str(Box<Expr>),
    Not(Box<Expr>),
    /// `==` (true) or `!=` (false); `is` and `is not` too.
    Eq(Box<Expr>, Box<Expr>, bool),
    And(Box<Expr>, Box<Expr>),
    Or(Box<Expr>, Box<Expr>),
}

/// An augmented assignment's operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Aug {
    /// `+=`.
    Add,
    /// `*=`.
    Mul,
}

/// A statement of the subset read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Stmt {
    /// Branches (condition, body), then the `else` body.
    If(Vec<(Expr, Vec<Stmt>)>, Vec<Stmt>),
    Return(Expr),
    /// `env.variables['k'] = e`, or `+= e`, `*= e`.
    SetVar(String, Expr, Option<Aug>),
    /// `x = e`, or `+= e`, `*= e`.
    SetLocal(String, Expr, Option<Aug>),
    Pass,
}

// ---------------------------------------------------------------------------------------------
// Tokens

#[derive(Clone, Debug, PartialEq)]
pub(super) enum Tok {
    Str(String),
    /// An f-string's raw text.
    FStr(String),
    Int(i64),
    Name(String),
    Op(&'static str),
}

const OPS: [&str; 14] = [
    "==", "!=", "+=", "*=", "+", "*", "(", ")", "[", "]", ".", ",", "=", ":",
];

/// Where the triple-quoted string that `body` starts inside of ends (`body`: the text after its
/// opening `quote`): the offset of its closing quotes, a quote escaped with `\\` not one.
fn triple_end(body: &str, quote: &str) -> Option<usize> {
    let b = body.as_bytes();
    let mut j = 0;
    while j < b.len() {
        if b[j] == b'\\' {
            j += 2;
            continue;
        }
        if b[j..].starts_with(quote.as_bytes()) {
            return Some(j);
        }
        j += 1;
    }
    None
}

/// The value of a string literal's text, with Python's common escapes (others kept as written,
/// so a LaTeX `\frac` stays).
fn unescape(s: &str, raw: bool) -> String {
    if raw {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some(q @ ('\\' | '"' | '\'')) => out.push(q),
            Some('\n') => {}
            Some(o) => {
                out.push('\\');
                out.push(o);
            }
            None => out.push('\\'),
        }
    }
    out
}

/// Reads tokens from `s` until `stop` says the text left ends the expression (`}}` of a call).
/// Returns the tokens and the bytes read; `None` on a token outside the subset. A string in
/// quotes runs over lines in Jinja (`jinja`), not in Python.
pub(super) fn tokens(
    s: &str,
    stop: &dyn Fn(&str) -> bool,
    jinja: bool,
) -> Option<(Vec<Tok>, usize)> {
    let mut out = Vec::new();
    let mut i = 0;
    let b = s.as_bytes();
    loop {
        while i < b.len() && (b[i] == b' ' || b[i] == b'\t' || b[i] == b'\n' || b[i] == b'\r') {
            i += 1;
        }
        let rest = &s[i..];
        if rest.is_empty() || stop(rest) {
            return Some((out, i));
        }
        if rest.starts_with('#') {
            return Some((out, i));
        }
        // A string, with its prefix (f, r, fr, rf).
        let prefix = rest
            .bytes()
            .take_while(|c| matches!(c, b'f' | b'F' | b'r' | b'R'))
            .count();
        let after = &rest[prefix..];
        if prefix <= 2 && (after.starts_with('"') || after.starts_with('\'')) {
            let p = rest[..prefix].to_ascii_lowercase();
            let q = &after[..1];
            let triple = q.repeat(3);
            let (body, len) = if after.starts_with(&triple) {
                let end = triple_end(&after[3..], &triple)?;
                (&after[3..3 + end], 3 + end + 3)
            } else {
                let mut j = 1;
                let ab = after.as_bytes();
                while j < ab.len() && ab[j] != q.as_bytes()[0] {
                    if ab[j] == b'\\' {
                        j += 1;
                    }
                    if ab.get(j) == Some(&b'\n') && !jinja {
                        return None;
                    }
                    j += 1;
                }
                if j >= ab.len() {
                    return None;
                }
                (&after[1..j], j + 1)
            };
            let text = unescape(body, p.contains('r'));
            out.push(if p.contains('f') {
                Tok::FStr(text)
            } else {
                Tok::Str(text)
            });
            i += prefix + len;
            continue;
        }
        let c = rest.chars().next()?;
        if c.is_ascii_digit() || (c == '-' && rest[1..].starts_with(|d: char| d.is_ascii_digit())) {
            let n = 1 + rest[1..].bytes().take_while(u8::is_ascii_digit).count();
            out.push(Tok::Int(rest[..n].parse().ok()?));
            i += n;
            continue;
        }
        if c.is_alphabetic() || c == '_' {
            let n: usize = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .map(char::len_utf8)
                .sum();
            out.push(Tok::Name(rest[..n].to_string()));
            i += n;
            continue;
        }
        let op = OPS.iter().find(|o| rest.starts_with(**o))?;
        out.push(Tok::Op(op));
        i += op.len();
    }
}

// ---------------------------------------------------------------------------------------------
// Expressions

/// A parser over tokens.
pub(super) struct Parser<'a> {
    pub(super) toks: &'a [Tok],
    pub(super) at: usize,
}

impl Parser<'_> {
    pub(super) fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.at)
    }

    pub(super) fn next(&mut self) -> Option<Tok> {
        let t = self.toks.get(self.at).cloned();
        self.at += 1;
        t
    }

    pub(super) fn eat(&mut self, op: &str) -> bool {
        let ok = matches!(self.peek(), Some(Tok::Op(o)) if *o == op)
            || matches!(self.peek(), Some(Tok::Name(n)) if n == op);
        if ok {
            self.at += 1;
        }
        ok
    }

    pub(super) fn done(&self) -> bool {
        self.at >= self.toks.len()
    }

    pub(super) fn expr(&mut self) -> Option<Expr> {
        let e = self.or()?;
        if !self.eat("if") {
            return Some(e);
        }
        let cond = self.or()?;
        if !self.eat("else") {
            return None;
        }
        Some(Expr::If(
            Box::new(cond),
            Box::new(e),
            Box::new(self.expr()?),
        ))
    }

    /// `next (op next)*`, joined from the left by `join`.
    fn chain(
        &mut self,
        op: &str,
        next: fn(&mut Self) -> Option<Expr>,
        join: fn(Box<Expr>, Box<Expr>) -> Expr,
    ) -> Option<Expr> {
        let mut left = next(self)?;
        while self.eat(op) {
            left = join(Box::new(left), Box::new(next(self)?));
        }
        Some(left)
    }

    fn or(&mut self) -> Option<Expr> {
        self.chain("or", Self::and, Expr::Or)
    }

    fn and(&mut self) -> Option<Expr> {
        self.chain("and", Self::not, Expr::And)
    }

    fn not(&mut self) -> Option<Expr> {
        if self.eat("not") {
            return Some(Expr::Not(Box::new(self.not()?)));
        }
        let left = self.sum()?;
        let same = if self.eat("==") {
            true
        } else if self.eat("!=") {
            false
        } else if self.eat("is") {
            !self.eat("not")
        } else {
            return Some(left);
        };
        Some(Expr::Eq(Box::new(left), Box::new(self.sum()?), same))
    }

    fn sum(&mut self) -> Option<Expr> {
        self.chain("+", Self::product, Expr::Add)
    }

    fn product(&mut self) -> Option<Expr> {
        self.chain("*", Self::atom, Expr::Mul)
    }

    pub(super) fn atom(&mut self) -> Option<Expr> {
        match self.next()? {
            Tok::Str(s) => {
                // Adjacent strings are one.
                let mut s = s;
                while let Some(Tok::Str(t)) = self.peek() {
                    s.push_str(t);
                    self.at += 1;
                }
                Some(Expr::Lit(Value::Str(s)))
            }
            Tok::FStr(s) => format_string(&s),
            Tok::Int(n) => Some(Expr::Lit(Value::Int(n))),
            Tok::Op("(") => {
                let e = self.expr()?;
                self.eat(")").then_some(e)
            }
            Tok::Name(n) => match n.as_str() {
                "True" | "true" => Some(Expr::Lit(Value::Bool(true))),
                "False" | "false" => Some(Expr::Lit(Value::Bool(false))),
                "None" | "none" => Some(Expr::Lit(Value::None)),
                "env" => {
                    let ok = self.eat(".") && self.eat("variables") && self.eat("[");
                    let Some(Tok::Str(k)) = self.next().filter(|_| ok) else {
                        return None;
                    };
                    self.eat("]").then_some(Expr::Var(k))
                }
                "str" if self.eat("(") => {
                    let e = self.expr()?;
                    self.eat(")").then(|| Expr::Str(Box::new(e)))
                }
                _ if matches!(self.peek(), Some(Tok::Op("(" | "." | "["))) => None,
                _ => Some(Expr::Name(n)),
            },
            Tok::Op(_) => None,
        }
    }
}

/// An f-string's parts (`f"Exercice {n}"`).
pub(super) fn format_string(s: &str) -> Option<Expr> {
    let mut parts = Vec::new();
    let mut rest = s;
    while let Some(open) = rest.find(['{', '}']) {
        let (text, after) = rest.split_at(open);
        let mut text = text.to_string();
        if after.starts_with("{{") || after.starts_with("}}") {
            text.push_str(&after[..1]);
            parts.push(Expr::Lit(Value::Str(text)));
            rest = &after[2..];
            continue;
        }
        if after.starts_with('}') {
            return None;
        }
        parts.push(Expr::Lit(Value::Str(text)));
        let end = after.find('}')?;
        let (toks, _) = tokens(&after[1..end], &|_| false, false)?;
        let mut p = Parser { toks: &toks, at: 0 };
        let e = p.expr()?;
        if !p.done() {
            return None;
        }
        parts.push(e);
        rest = &after[end + 1..];
    }
    parts.push(Expr::Lit(Value::Str(rest.to_string())));
    Some(Expr::Format(parts))
}

/// One whole expression of `text`.
pub(super) fn expression(text: &str) -> Option<Expr> {
    let (toks, _) = tokens(text, &|_| false, false)?;
    let mut p = Parser { toks: &toks, at: 0 };
    let e = p.expr()?;
    p.done().then_some(e)
}

// ---------------------------------------------------------------------------------------------
// main.py

/// Python's logical lines of `code` (a triple-quoted string or open brackets continue a line),
/// each with its indentation; comments and blank lines left out.
pub(super) fn logical_lines(code: &str) -> Vec<(usize, String)> {
    let mut out: Vec<(usize, String)> = Vec::new();
    let mut open: Option<(usize, String)> = None;
    for line in code.lines() {
        if let Some((indent, mut text)) = open.take() {
            text.push('\n');
            text.push_str(line);
            if continues(&text) {
                open = Some((indent, text));
            } else {
                out.push((indent, text));
            }
            continue;
        }
        let t = line.trim_start();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        let indent = line.len() - t.len();
        if continues(t) {
            open = Some((indent, t.to_string()));
        } else {
            out.push((indent, t.to_string()));
        }
    }
    out.extend(open);
    out
}

/// Whether a line of Python goes on to the next (an open triple-quoted string or bracket).
pub(super) fn continues(text: &str) -> bool {
    let mut depth = 0i32;
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        for q in ["\"\"\"", "'''"] {
            if let Some(after) = rest.strip_prefix(q) {
                match triple_end(after, q) {
                    Some(end) => {
                        rest = &after[end + 3..];
                        break;
                    }
                    None => return true,
                }
            }
        }
        let Some(c2) = rest.chars().next() else { break };
        if c2 != c {
            continue;
        }
        match c {
            '"' | '\'' => {
                let end = rest[1..].find(c).map_or(rest.len(), |e| e + 2);
                rest = &rest[end.min(rest.len())..];
                continue;
            }
            '#' => break,
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            _ => {}
        }
        rest = &rest[c.len_utf8()..];
    }
    depth > 0
}

/// The statements of a block at indentation greater than `above`, from `lines[*at..]`.
pub(super) fn block(lines: &[(usize, String)], at: &mut usize, above: usize) -> Option<Vec<Stmt>> {
    let mut out = Vec::new();
    let indent = lines.get(*at).map(|(i, _)| *i).filter(|i| *i > above)?;
    while let Some((i, text)) = lines.get(*at) {
        if *i < indent {
            break;
        }
        if *i > indent {
            return None;
        }
        *at += 1;
        if let Some((cond, then)) = text.strip_prefix("if ").and_then(one_line) {
            // `if c: statement` on one line.
            out.push(Stmt::If(
                vec![(expression(cond)?, vec![statement(then)?])],
                Vec::new(),
            ));
        } else if let Some(cond) = text.strip_prefix("if ").and_then(|t| t.strip_suffix(':')) {
            let mut branches = vec![(expression(cond)?, block(lines, at, indent)?)];
            let mut otherwise = Vec::new();
            while let Some((_, next)) = lines.get(*at).filter(|(j, _)| *j == indent) {
                if let Some(c) = next.strip_prefix("elif ").and_then(|t| t.strip_suffix(':')) {
                    *at += 1;
                    branches.push((expression(c)?, block(lines, at, indent)?));
                } else if next == "else:" {
                    *at += 1;
                    otherwise = block(lines, at, indent)?;
                    break;
                } else {
                    break;
                }
            }
            out.push(Stmt::If(branches, otherwise));
        } else {
            out.push(statement(text)?);
        }
    }
    Some(out)
}

/// A one-line `if`'s condition and statement (`prem is not None : x = prem`, the text after
/// `if `): split at its first colon outside strings (where [`tokens`] stops), when a statement
/// follows it.
fn one_line(text: &str) -> Option<(&str, &str)> {
    let (_, at) = tokens(text, &|r| r.starts_with(':'), false)?;
    let then = text[at..].strip_prefix(':')?.trim();
    (!then.is_empty()).then(|| (text[..at].trim(), then))
}

/// One simple statement.
pub(super) fn statement(text: &str) -> Option<Stmt> {
    if text == "pass" {
        return Some(Stmt::Pass);
    }
    if text == "return" {
        return Some(Stmt::Return(Expr::Lit(Value::None)));
    }
    if let Some(e) = text.strip_prefix("return ") {
        return Some(Stmt::Return(expression(e)?));
    }
    if text.starts_with(['"', '\'']) {
        // A docstring.
        return expression(text).map(|_| Stmt::Pass);
    }
    let (toks, _) = tokens(text, &|_| false, false)?;
    let at = (toks.iter()).position(|t| matches!(t, Tok::Op("=" | "+=" | "*=")))?;
    let aug = match toks[at] {
        Tok::Op("+=") => Some(Aug::Add),
        Tok::Op("*=") => Some(Aug::Mul),
        _ => None,
    };
    let mut rhs = Parser {
        toks: &toks[at + 1..],
        at: 0,
    };
    let value = rhs.expr()?;
    if !rhs.done() {
        return None;
    }
    let mut lhs = Parser {
        toks: &toks[..at],
        at: 0,
    };
    let target = lhs.atom()?;
    if !lhs.done() {
        return None;
    }
    match target {
        Expr::Var(k) => Some(Stmt::SetVar(k, value, aug)),
        Expr::Name(n) => Some(Stmt::SetLocal(n, value, aug)),
        _ => None,
    }
}

/// `(a, b="x")` → the parameters and their defaults.
pub(super) fn parameters(list: &str) -> Option<Vec<(String, Option<Expr>)>> {
    let mut out = Vec::new();
    for p in list.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (name, default) = match p.split_once('=') {
            Some((n, d)) => (n.trim(), Some(expression(d.trim())?)),
            None => (p, None),
        };
        let name = name.split(':').next()?.trim();
        if name.starts_with('*') || !name.chars().all(|c| c.is_alphanumeric() || c == '_') {
            return None;
        }
        out.push((name.to_string(), default));
    }
    Some(out)
}

pub(super) fn run(
    body: &[Stmt],
    locals: &mut HashMap<String, Value>,
    vars: &mut HashMap<String, Value>,
) -> Option<Option<Value>> {
    for s in body {
        match s {
            Stmt::Pass => {}
            Stmt::Return(e) => return Some(Some(eval(e, locals, vars)?)),
            Stmt::SetLocal(n, e, aug) => {
                let v = eval(e, locals, vars)?;
                let v = augmented(locals.get(n), v, *aug)?;
                locals.insert(n.clone(), v);
            }
            Stmt::SetVar(k, e, aug) => {
                let v = eval(e, locals, vars)?;
                let v = augmented(vars.get(k), v, *aug)?;
                vars.insert(k.clone(), v);
            }
            Stmt::If(branches, otherwise) => {
                let mut taken = None;
                for (cond, b) in branches {
                    if eval(cond, locals, vars)?.truth() {
                        taken = Some(b);
                        break;
                    }
                }
                if let Some(r) = run(taken.unwrap_or(otherwise), locals, vars)? {
                    return Some(Some(r));
                }
            }
        }
    }
    Some(None)
}

/// What an assignment of `v` leaves in a name holding `old`: `v`, or `old + v`, `old * v`.
fn augmented(old: Option<&Value>, v: Value, aug: Option<Aug>) -> Option<Value> {
    match aug {
        None => Some(v),
        Some(Aug::Add) => plus(old?.clone(), v),
        Some(Aug::Mul) => times(old?.clone(), v),
    }
}

/// Python's `*` on numbers and on a string and a count (no longer than a page would show).
fn times(a: Value, b: Value) -> Option<Value> {
    match (a, b) {
        (Value::Int(x), Value::Int(y)) => Some(Value::Int(x.checked_mul(y)?)),
        (Value::Str(s), Value::Int(n)) | (Value::Int(n), Value::Str(s)) => {
            let n = usize::try_from(n.max(0)).ok()?;
            (s.len().checked_mul(n)? <= 10_000).then(|| Value::Str(s.repeat(n)))
        }
        _ => None,
    }
}

pub(super) fn plus(a: Value, b: Value) -> Option<Value> {
    match (a, b) {
        (Value::Int(x), Value::Int(y)) => Some(Value::Int(x.checked_add(y)?)),
        (Value::Str(x), Value::Str(y)) => Some(Value::Str(x + &y)),
        _ => None,
    }
}

pub(super) fn eval(
    e: &Expr,
    locals: &HashMap<String, Value>,
    vars: &HashMap<String, Value>,
) -> Option<Value> {
    Some(match e {
        Expr::Lit(v) => v.clone(),
        Expr::Name(n) => locals.get(n)?.clone(),
        Expr::Var(k) => vars.get(k)?.clone(),
        Expr::Format(parts) => {
            let mut s = String::new();
            for p in parts {
                s.push_str(&eval(p, locals, vars)?.shown());
            }
            Value::Str(s)
        }
        Expr::Add(a, b) => plus(eval(a, locals, vars)?, eval(b, locals, vars)?)?,
        Expr::Mul(a, b) => times(eval(a, locals, vars)?, eval(b, locals, vars)?)?,
        Expr::If(c, a, b) => match eval(c, locals, vars)?.truth() {
            true => eval(a, locals, vars)?,
            false => eval(b, locals, vars)?,
        },
        Expr::Str(a) => Value::Str(eval(a, locals, vars)?.shown()),
        Expr::Not(a) => Value::Bool(!eval(a, locals, vars)?.truth()),
        Expr::Eq(a, b, same) => {
            let (x, y) = (eval(a, locals, vars)?, eval(b, locals, vars)?);
            // Python: True == 1 and False == 0.
            let num = |v: &Value| match v {
                Value::Bool(b) => Value::Int(i64::from(*b)),
                v => v.clone(),
            };
            Value::Bool((num(&x) == num(&y)) == *same)
        }
        Expr::And(a, b) => match eval(a, locals, vars)? {
            x if !x.truth() => x,
            _ => eval(b, locals, vars)?,
        },
        Expr::Or(a, b) => match eval(a, locals, vars)? {
            x if x.truth() => x,
            _ => eval(b, locals, vars)?,
        },
    })
}
