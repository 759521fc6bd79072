//! MyST directives in Markdown sources (Jupyter Book, mystmd, Sphinx with MyST): a directive is
//! a fence named in braces, ```` ```{note} ```` … ```` ``` ```` or `:::{note}` … `:::`, its
//! options (`:class: dropdown`) first in its body. Read as the built book shows them:
//!
//! - an admonition (`note`, `tip`, `warning`, …, or `admonition` with its title) is one of its
//!   kind; with `:class: dropdown`, a collapsible block, as `dropdown` is;
//! - `exercise` (sphinx-exercise) is an exercise titled by its argument, `solution` a
//!   correction; a proof directive (`prf:theorem`, `prf:definition`, …) an admonition of its
//!   kind; `tab-item` a content tab titled by its argument;
//! - a layout directive (`tab-set`, `card`, `grid`, `margin`, `sidebar`, …) gives way to its
//!   text, and a table of contents (`toctree`, `tableofcontents`) is left out;
//! - a code cell or block (`code-cell`, `code-block`) is code in its language, its options
//!   (`:tags: [hide-output]`) left out; a cell tagged `remove-input` or `remove-cell`, whose
//!   code the book does not show, is left out;
//! - sphinx-exercise's gated form, `{solution-start}` … `{solution-end}` (and `exercise-`),
//!   is the block of its name, holding what lies between them;
//! - index entries (`index`) and raw markup for some output (`raw`) are left out;
//! - any other (`figure`, `math`, …) is left as written.
//!
//! Outside code, a target label (a `(label)=` line before a heading) is left out, and a role
//! (`` {download}`the notebook <./nb.ipynb>` ``, `` {ref}`piles` ``) shows its text, without
//! the target in angle brackets; `` {math}`x^2` `` is math.
//!
//! Blocks are written as `pymdownx.blocks` (one slash more a level of nesting), which
//! [`super::markdown`] reads, as it does [`super::hugo`]'s.

use super::markdown::{slash_block, Fences};
use regex::Regex;
use std::sync::LazyLock;

/// A directive's opening fence: indentation (1), fence (2), name (3), argument (4).
static DIRECTIVE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(\s*)(`{3,}|~{3,}|:{3,})\{([\w:-]+)\}\s*(.*?)\s*$").expect("valid regex")
});

/// A target label's line: `(label)=`.
static LABEL: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\s*\([^()\s]+\)=\s*$").expect("valid regex"));

/// A role: what precedes it (1: not a backtick or a word, so `` `{note}` `` in code is no role),
/// its name (2), its text (3) and target (4, in angle brackets).
static ROLE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(^|[^`\w])\{([\w:-]+)\}`([^`<]*?)\s*(?:<([^`>]*)>)?`").expect("valid regex")
});

/// A directive's option line (`:class: dropdown`, `:hidden:`).
static OPTION: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\s*:[A-Za-z][\w-]*:(\s|$)").expect("valid regex"));

const ADMONITIONS: &[&str] = &[
    "note",
    "tip",
    "hint",
    "important",
    "warning",
    "caution",
    "attention",
    "danger",
    "error",
    "seealso",
    "admonition",
];
const LAYOUT: &[&str] = &[
    "tab-set",
    "card",
    "grid",
    "grid-item",
    "grid-item-card",
    "margin",
    "sidebar",
    "topic",
    "epigraph",
    "pull-quote",
    "div",
    "container",
    "only",
    "glossary",
    "rubric",
    "card-carousel",
];
/// Directives whose content a built page does not show as text: tables of contents, index
/// entries, raw markup for some output (`{raw} jupyter`: a notebook's header).
const CONTENTS: &[&str] = &[
    "toctree",
    "tableofcontents",
    "contents",
    "bibliography",
    "index",
    "raw",
];

/// What a directive becomes ([`read_as`] gives `None` for one left as written).
enum Read {
    /// A `pymdownx.blocks` block: its name, title and kind (`type:`; none for a tab).
    Block(&'static str, String, String),
    /// Its text alone.
    Text,
    /// A code block in this language (`code-cell`, `code-block`: its options are not code).
    Code(String),
    /// Nothing.
    Out,
}

fn read_as(name: &str, arg: &str, dropdown: bool) -> Option<Read> {
    let name = name.to_ascii_lowercase();
    let (kind, bare) = match name.strip_prefix("prf:") {
        Some(k) => (k.to_string(), true),
        None => (name.clone(), false),
    };
    let arg = arg.to_string();
    Some(match kind.as_str() {
        _ if bare => Read::Block("admonition", arg, kind),
        "dropdown" => Read::Block("details", arg, "note".into()),
        "admonition" if dropdown => Read::Block("details", arg, "note".into()),
        "admonition" => Read::Block("admonition", arg, "note".into()),
        k if ADMONITIONS.contains(&k) && dropdown => Read::Block("details", arg, kind),
        k if ADMONITIONS.contains(&k) => Read::Block("admonition", arg, kind),
        "exercise" => Read::Block("admonition", arg, "exercise".into()),
        "solution" => Read::Block("admonition", String::new(), "solution".into()),
        "tab-item" => Read::Block("tab", arg, String::new()),
        "code-cell" | "code-block" | "code" | "sourcecode" => Read::Code(arg),
        k if LAYOUT.contains(&k) => Read::Text,
        k if CONTENTS.contains(&k) => Read::Out,
        _ => return None,
    })
}

/// `md` with its MyST directives, labels and roles read as the module says. Text without
/// their syntax is returned as it is.
pub fn directives(md: &str) -> String {
    let fenced = ["```{", ":::{", "~~~{"].iter().any(|f| md.contains(f));
    if !fenced && !md.contains(")=") && !md.contains("}`") {
        return md.to_string();
    }
    let lines: Vec<&str> = md.lines().collect();
    let mut out = String::with_capacity(md.len());
    write(&lines, 0, &mut out);
    out
}

/// A directive opening at `lines[i]` that this module reads: its indentation, its reading,
/// its body (options left out) and the line after it.
fn directive<'a>(lines: &'a [&'a str], i: usize) -> Option<(String, Read, &'a [&'a str], usize)> {
    let c = DIRECTIVE.captures(lines[i])?;
    let fence = c.get(2)?.as_str();
    // The body ends at the fence written again (inner ones are shorter).
    let end = lines[i + 1..].iter().position(|l| l.trim() == fence)?;
    let body = &lines[i + 1..i + 1 + end];
    // Options first: `:key: value` lines, or a `---` block of them.
    let (mut skip, mut dropdown) = (0, false);
    if body.first().map(|l| l.trim()) == Some("---") {
        skip = body[1..]
            .iter()
            .position(|l| l.trim() == "---")
            .map_or(0, |e| e + 2);
        dropdown = body[..skip].iter().any(|l| l.contains("dropdown"));
    }
    while skip < body.len() && OPTION.is_match(body[skip]) {
        dropdown |= body[skip].contains(":class:") && body[skip].contains("dropdown");
        skip += 1;
    }
    let (name, held, next) = match c[3].strip_suffix("-start") {
        // sphinx-exercise's gated form: `{solution-start}` (its options in its body) and
        // `{solution-end}` hold the solution between them, code cells and all.
        Some(name) => {
            let after = i + 2 + end;
            let close = format!("{name}-end");
            let stop = after
                + lines[after..]
                    .iter()
                    .position(|l| DIRECTIVE.captures(l).is_some_and(|d| d[3] == close))?;
            let stop_fence = lines[stop + 1..].iter().position(|l| l.trim() == fence)?;
            (name, &lines[after..stop], stop + 2 + stop_fence)
        }
        None => (&c[3], &body[skip..], i + 2 + end),
    };
    let read = match read_as(name, &c[4], dropdown)? {
        // A cell tagged `remove-input` or `remove-cell` shows no code on the built page.
        Read::Code(_)
            if body[..skip]
                .iter()
                .any(|l| l.contains("remove-input") || l.contains("remove-cell")) =>
        {
            Read::Out
        }
        read => read,
    };
    Some((c[1].to_string(), read, held, next))
}

/// Writes `lines` with their directives read, nested `depth` blocks deep.
fn write(lines: &[&str], depth: usize, out: &mut String) {
    let mut fences = Fences::default();
    let mut i = 0;
    while i < lines.len() {
        // Inside a code block (```` ```python ```` showing a directive), everything is code.
        let found = fences.closing().is_none().then(|| directive(lines, i));
        let Some(Some((pad, read, body, next))) = found else {
            let code = fences.closing().is_some();
            fences.code(lines[i]);
            if code || fences.closing().is_some() {
                out.push_str(lines[i]);
                out.push('\n');
            } else if !LABEL.is_match(lines[i]) {
                out.push_str(&roles(lines[i]));
                out.push('\n');
            }
            i += 1;
            continue;
        };
        match read {
            Read::Block(name, title, kind) => {
                let (start, end) = slash_block(&pad, depth, name, &title, &kind);
                out.push_str(&start);
                out.push('\n');
                write(body, depth + 1, out);
                out.push_str(&end);
                out.push('\n');
            }
            Read::Text => write(body, depth, out),
            Read::Code(lang) => {
                let fence = "`".repeat(3 + body.iter().any(|l| l.contains("```")) as usize);
                out.push_str(&format!("{pad}{fence}{lang}\n"));
                for l in body {
                    out.push_str(l);
                    out.push('\n');
                }
                out.push_str(&format!("{pad}{fence}\n"));
            }
            Read::Out => {}
        }
        i = next;
    }
}

/// A line with its roles written as their text (math as `$…$`).
fn roles(line: &str) -> std::borrow::Cow<'_, str> {
    ROLE.replace_all(line, |c: &regex::Captures| {
        // Inside inline code (an odd number of backticks before it) it is code: `{1}` in
        // `` `s = {1}` and `t` `` is a set.
        let at = c.get(2).map_or(0, |m| m.start());
        if line[..at].matches('`').count() % 2 == 1 {
            return c[0].to_string();
        }
        let text = match (c[3].trim(), c.get(4)) {
            ("", Some(target)) => target.as_str().to_string(),
            (t, _) if &c[2] == "math" => format!("${t}$"),
            (t, _) => t.trim_start_matches('~').to_string(),
        };
        format!("{}{text}", &c[1])
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directives_become_blocks_and_code_stays_code() {
        let md = "```{note}\nUne pile.\n```\n\n````{exercise} Empiler\n:label: ex-1\n\nEmpiler 3.\n\n```{code-cell} python\np.append(3)\n```\n````\n\n\
                  :::{solution} ex-1\n:class: dropdown\nOn obtient 3.\n:::\n\n```{admonition} Attention\n:class: dropdown\nLIFO.\n```\n\n\
                  ::::{tab-set}\n:::{tab-item} Python\nliste\n:::\n::::\n\n```{toctree}\n:hidden:\ncours\n```\n\n```python\n```{note}\n```\n";
        assert_eq!(
            directives(md),
            "/// admonition | \n    type: note\nUne pile.\n///\n\n/// admonition | Empiler\n    type: exercise\n\nEmpiler 3.\n\n\
             ```python\np.append(3)\n```\n///\n\n/// admonition | \n    type: solution\nOn obtient 3.\n///\n\n\
             /// details | Attention\n    type: note\nLIFO.\n///\n\n/// tab | Python\nliste\n///\n\n\n```python\n```{note}\n```\n"
        );
        assert_eq!(directives("sans directive"), "sans directive");
    }

    #[test]
    fn gated_solutions_code_cells_and_raw_markup_are_read_as_the_book_shows_them() {
        // QuantEcon's lectures: a notebook header in `{raw} jupyter`, index entries, code
        // cells with options, and sphinx-exercise's gated solution holding a code cell.
        let md = "```{raw} jupyter\n<div id=\"qe-notebook-header\"><img alt=\"QuantEcon\"></div>\n```\n\n# Functions\n\n\
                  ```{index} single: Python; Functions\n```\n\n```{code-block} ipython3\n:tags: [remove-output]\n\nf(1)\n```\n\n\
                  ```{code-cell} ipython3\n---\ntags: [remove-input]\n---\nsetup()\n```\n\n\
                  ```{solution-start} func_ex1\n:class: dropdown\n```\n\nOne solution:\n\n```{code-cell} python3\nk = 1\n```\n\n\
                  ```{solution-end}\n```\n\nAfter.\n";
        assert_eq!(
            directives(md),
            "\n# Functions\n\n\n```ipython3\n\nf(1)\n```\n\n\n\
             /// admonition | \n    type: solution\n\nOne solution:\n\n```python3\nk = 1\n```\n\n///\n\nAfter.\n"
        );
    }

    #[test]
    fn labels_are_left_out_and_roles_show_their_text() {
        let md = "(piles)=\n# Piles\n\nVoir {ref}`files`, {download}`le carnet <./piles.ipynb>` et {math}`O(1)`.\n\
                  La directive `{note}` et `{ref}`, `s = {x}` et `t`.\n\n```python\n(x)=\nf\"{a}`b`\"\n```\n";
        assert_eq!(
            directives(md),
            "# Piles\n\nVoir files, le carnet et $O(1)$.\nLa directive `{note}` et `{ref}`, `s = {x}` et `t`.\n\n\
             ```python\n(x)=\nf\"{a}`b`\"\n```\n"
        );
    }
}
