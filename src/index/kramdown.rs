//! kramdown's block attribute lists on blockquotes (Jekyll's Markdown): the Carpentries' older
//! lessons, and the many courses made from their template, write an exercise as a blockquote
//! titled by its heading and classed by the attribute list on the line after it, its solution
//! as a blockquote inside it:
//!
//! ```text
//! > ## From 1 to N
//! > Write a loop that prints the first 3 natural numbers.
//! >
//! > > ## Solution
//! > > ~~~
//! > > for number in range(1, 4):
//! > > ~~~
//! > {: .solution}
//! {: .challenge}
//! ```
//!
//! Read as plain blockquotes, the headings would head the rest of the page and the classes
//! would show as text. Each such blockquote becomes the fenced div the Markdown reader knows
//! (`::: {.challenge title="From 1 to N"}`: an admonition of that kind, titled by the heading),
//! what it holds read the same way; so the built page and its source give the same exercise and
//! correction. A blockquote with no attribute list after it stays a blockquote.

use super::markdown::Fences;
use regex::Regex;
use std::sync::LazyLock;

/// A block attribute list naming a class, on a line of its own (group 1: the first class).
static CLASSED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^ {0,3}\{:[^{}]*?\.([A-Za-z][\w-]*)[^{}]*\}\s*$").expect("valid regex")
});
/// An ATX heading: its text (group 1).
static HEADING: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^ {0,3}#{1,6}\s+(.*?)(\s+#+)?\s*$").expect("valid regex"));

/// The text of an ATX heading line (`## From 1 to N`), if it is one.
pub fn heading_text(line: &str) -> Option<String> {
    HEADING.captures(line).map(|h| h[1].to_string())
}

/// A blockquote line without its first quote marker (and the space after it); `None` for a line
/// that is not quoted.
fn unquoted(line: &str) -> Option<&str> {
    let t = line.strip_prefix("   ").or_else(|| line.strip_prefix("  "));
    let t = t.or_else(|| line.strip_prefix(' ')).unwrap_or(line);
    let rest = t.strip_prefix('>')?;
    Some(rest.strip_prefix(' ').unwrap_or(rest))
}

/// `md` with every blockquote that a classed attribute list follows written as a fenced div of
/// that class, titled by the blockquote's first line when it is a heading (module docs).
pub fn quoted_blocks(md: &str) -> String {
    if !md.contains("{:") {
        return md.to_string();
    }
    let mut out: Vec<String> = Vec::new();
    let mut fences = Fences::default();
    for line in md.lines() {
        if fences.code(line) {
            out.push(line.to_string());
            continue;
        }
        let quoted = out
            .iter()
            .rev()
            .take_while(|l| unquoted(l).is_some())
            .count();
        match CLASSED.captures(line) {
            Some(c) if quoted > 0 => {
                let inner: Vec<String> = out
                    .split_off(out.len() - quoted)
                    .iter()
                    .filter_map(|l| unquoted(l).map(str::to_string))
                    .collect();
                let inner = quoted_blocks(&inner.join("\n"));
                let mut lines = inner.lines().skip_while(|l| l.trim().is_empty()).peekable();
                let title = lines
                    .peek()
                    .and_then(|l| heading_text(l))
                    .map(|h| h.replace('"', "'"));
                if title.is_some() {
                    lines.next();
                }
                let body: Vec<&str> = lines.collect();
                let head = match title {
                    Some(t) => format!("::: {{.{} title=\"{t}\"}}", &c[1]),
                    None => format!("::: {{.{}}}", &c[1]),
                };
                out.extend([String::new(), head]);
                out.extend(body.iter().map(|l| l.to_string()));
                out.extend([":::".to_string(), String::new()]);
            }
            _ => out.push(line.to_string()),
        }
    }
    let mut s = out.join("\n");
    if md.ends_with('\n') {
        s.push('\n');
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_classed_blockquote_and_the_one_inside_it_become_titled_divs() {
        let md = "Intro.\n\n> ## From 1 to N\n> Write a loop.\n>\n> > ## Solution\n> > ~~~\n> > for n in range(1, 4):\n> > ~~~\n> > {: .language-python}\n> {: .solution}\n{: .challenge}\n\nAfter.\n\n> A quotation.\n";
        assert_eq!(
            quoted_blocks(md),
            "Intro.\n\n\n::: {.challenge title=\"From 1 to N\"}\nWrite a loop.\n\n\n::: {.solution title=\"Solution\"}\n~~~\nfor n in range(1, 4):\n~~~\n{: .language-python}\n:::\n:::\n\n\nAfter.\n\n> A quotation.\n"
        );
    }

    #[test]
    fn attribute_lists_in_code_or_after_other_blocks_are_left_as_they_are() {
        let md = "~~~\n> quoted in code\n{: .challenge}\n~~~\n\nText.\n{: .note}\n";
        assert_eq!(quoted_blocks(md), md);
    }
}
