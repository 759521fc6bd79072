//! The macros of an MkDocs project's `mkdocs-macros` plugin, run as the plugin runs them when
//! they are simple enough to read without Python.
//!
//! A teacher's `main.py` defines macros such as
//!
//! ```python
//! @env.macro
//! def correction(bool, texte):
//!     if bool == False:
//!         return ""
//!     else:
//!         return texte
//! ```
//!
//! and a page calls `{{ correction(False, """…""") }}` to keep a correction off the site until
//! the lesson is over, or `{{ exercice() }}` to number its exercises. Read as written, the hidden
//! correction would be indexed and the call's syntax would be words of the page. A macro whose
//! body is made of `if`/`elif`/`else` on its arguments (one-line `if`s too), `return` of a
//! literal, an argument, an f-string, a `+` or `*` of these or `a if c else b`, local names and
//! counters in `env.variables` (`=`, `+= 1`, `*=`) is run: a call with
//! literal arguments (strings, triple-quoted too, numbers, `True`, `False`, `None`) shows what
//! the macro returns. Anything else (a macro that reads files, builds HTML in loops, calls other
//! code; a call with a variable argument) is left as written, as before. Counters start each page
//! at the value `define_env` gives them (pages usually reset them with a call of their own).

mod python;

use python::{block, eval, logical_lines, parameters, run, statement, tokens};
use python::{Expr, Parser, Stmt, Tok, Value};
use std::collections::HashMap;

/// One macro: its name, its parameters (with their defaults) and its body.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Macro {
    name: String,
    params: Vec<(String, Option<Expr>)>,
    body: Vec<Stmt>,
}

/// The macros of a project that can be run, and the counters `define_env` sets.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Macros {
    macros: Vec<Macro>,
    variables: Vec<(String, Expr)>,
}

impl Macros {
    /// The macros of `main.py` (`module`, the text of the plugin's module) that can be run:
    /// those of `define_env(env)` marked `@env.macro`, and the counters it sets.
    pub fn read(module: &str) -> Macros {
        let lines = logical_lines(module);
        let mut out = Macros::default();
        let Some(start) = lines
            .iter()
            .position(|(_, t)| t.starts_with("def define_env("))
        else {
            return out;
        };
        let base = lines[start].0;
        let mut at = start + 1;
        let Some(inner) = lines.get(at).map(|(i, _)| *i).filter(|i| *i > base) else {
            return out;
        };
        let mut decorated = false;
        while let Some((i, text)) = lines.get(at) {
            if *i <= base {
                break;
            }
            at += 1;
            if *i != inner {
                continue;
            }
            if text == "@env.macro" {
                decorated = true;
                continue;
            }
            let macro_ = std::mem::take(&mut decorated);
            if let Some(def) = text.strip_prefix("def ") {
                let Some((name, rest)) = def.split_once('(') else {
                    continue;
                };
                let params = rest.rsplit_once(')').and_then(|(p, _)| parameters(p));
                let mut body_at = at;
                let body = block(&lines, &mut body_at, inner);
                // Skip the body whatever it holds.
                while lines.get(at).is_some_and(|(j, _)| *j > inner) {
                    at += 1;
                }
                if let (true, Some(params), Some(body)) = (macro_, params, body) {
                    if body_at == at {
                        let name = name.trim().to_string();
                        out.macros.push(Macro { name, params, body });
                    }
                }
            } else if let Some(Stmt::SetVar(k, e, None)) = statement(text) {
                out.variables.push((k, e));
            }
        }
        out
    }

    /// Whether no macro can be run.
    pub fn is_empty(&self) -> bool {
        self.macros.is_empty()
    }

    /// A page's Markdown with the calls of its runnable macros replaced by what they show
    /// (`{{ correction(False, """…""") }}` by nothing), outside code blocks.
    pub fn render(&self, md: &str) -> String {
        if self.macros.is_empty() || !md.contains("{{") {
            return md.to_string();
        }
        let mut vars: HashMap<String, Value> = HashMap::new();
        for (k, e) in &self.variables {
            if let Some(v) = eval(e, &HashMap::new(), &vars) {
                vars.insert(k.clone(), v);
            }
        }
        let mut out = String::with_capacity(md.len());
        let mut fences = super::markdown::Fences::default();
        let mut pos = 0;
        while pos < md.len() {
            let end = md[pos..].find('\n').map_or(md.len(), |e| pos + e + 1);
            let line = &md[pos..end];
            if fences.code(line.trim_end_matches(['\n', '\r'])) {
                out.push_str(line);
                pos = end;
                continue;
            }
            // Calls on this line (one may run over the lines after it).
            let mut at = pos;
            let mut next_line = end;
            while let Some(open) = md[at..next_line].find('{').map(|o| at + o) {
                // A Jinja comment is not run (nor shown: `templates::strip` leaves it out).
                if let Some(len) = super::templates::comment_len(&md[open..]) {
                    out.push_str(&md[at..open + len]);
                    at = open + len;
                    if at > next_line {
                        next_line = md[at..].find('\n').map_or(md.len(), |e| at + e + 1);
                    }
                    continue;
                }
                if !md[open..].starts_with("{{") {
                    out.push_str(&md[at..=open]);
                    at = open + 1;
                    continue;
                }
                match self.call(&md[open..], &mut vars) {
                    Some((shown, len)) => {
                        out.push_str(&md[at..open]);
                        out.push_str(&shown);
                        at = open + len;
                        if at > next_line {
                            next_line = md[at..].find('\n').map_or(md.len(), |e| at + e + 1);
                        }
                    }
                    None => {
                        out.push_str(&md[at..open + 2]);
                        at = open + 2;
                    }
                }
            }
            out.push_str(&md[at..next_line]);
            pos = next_line;
        }
        out
    }

    /// The call at the start of `text` (`{{ name(args) }}`), run: what it shows and its length.
    fn call(&self, text: &str, vars: &mut HashMap<String, Value>) -> Option<(String, usize)> {
        let inner = text.strip_prefix("{{")?;
        let dash = usize::from(inner.starts_with('-'));
        let stop = |r: &str| r.starts_with("}}") || r.starts_with("-}}");
        let (toks, len) = tokens(&inner[dash..], &stop, true)?;
        let close = &inner[dash + len..];
        if !stop(close) {
            // The page ended before the call's `}}`.
            return None;
        }
        let close_len = if close.starts_with("-}}") { 3 } else { 2 };
        let Some((Tok::Name(name), rest)) = toks.split_first() else {
            return None;
        };
        let m = self.macros.iter().find(|m| m.name == *name)?;
        let rest = rest.strip_prefix(&[Tok::Op("(")])?;
        let rest = rest.strip_suffix(&[Tok::Op(")")])?;
        // Arguments: literals, by position then by name.
        let mut args: HashMap<String, Value> = HashMap::new();
        let mut p = Parser { toks: rest, at: 0 };
        let mut position = 0;
        while !p.done() {
            let named = match (p.peek(), p.toks.get(p.at + 1)) {
                (Some(Tok::Name(n)), Some(Tok::Op("="))) => {
                    let n = n.clone();
                    p.at += 2;
                    Some(n)
                }
                _ => None,
            };
            let value = eval(&p.expr()?, &HashMap::new(), &HashMap::new())?;
            let name = match named {
                Some(n) => n,
                None => m.params.get(position)?.0.clone(),
            };
            position += 1;
            args.insert(name, value);
            if !p.eat(",") && !p.done() {
                return None;
            }
        }
        for (name, default) in &m.params {
            if !args.contains_key(name) {
                let v = eval(default.as_ref()?, &HashMap::new(), vars)?;
                args.insert(name.clone(), v);
            }
        }
        if args.len() != m.params.len() {
            return None;
        }
        // Counters change only if the macro runs to its end.
        let mut changed = vars.clone();
        let shown = run(&m.body, &mut args, &mut changed)?.unwrap_or(Value::None);
        *vars = changed;
        Some((shown.shown(), 2 + dash + len + close_len))
    }
}

/// Runs statements: `Some(Some(v))` returned `v`, `Some(None)` ran to the end, `None` could not.
#[cfg(test)]
mod tests;
