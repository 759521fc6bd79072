//! Python-Markdown's reading of an MkDocs page where it differs from CommonMark's.
//!
//! - Whitespace first ([`normalized_whitespace`]): tabs expanded to four columns, lines of
//!   spaces only emptied, as its first preprocessor does.
//! - Code fences under raw HTML ([`as_python_markdown`]): Python-Markdown takes a page's fenced
//!   code blocks out before it reads its raw HTML (`fenced_code` and `pymdownx.superfences` are
//!   preprocessors that run first), so a fence on the line right under a line of HTML (`<div
//!   class="decal1">`, then ```` ```python ````) opens a code block there. By CommonMark's rules
//!   the HTML block runs on over it until a blank line, and the code would be read as one line
//!   of the HTML's text. A block of raw HTML also ends with the line that closes it.
//! - With `md_in_html`, an element marked `markdown="1"` (or `"block"`) holds Markdown: its
//!   content is read as Markdown even on the lines right under its tag (`<center markdown="1">`
//!   then `![Tuto](images/x.png)`), where CommonMark's HTML block would show it as written.
//! - Raw HTML is a block only at the page's level ([`nested_body`]): in an admonition, a tag is
//!   markup in a paragraph.

use super::Fences;
use std::borrow::Cow;

/// `md` with a blank line before each code fence that opens inside a block of raw HTML (a line
/// starting with a tag, and the lines after it up to a blank one), and with `md_in_html` after
/// each line that opens an element marked `markdown="1"`, so that CommonMark reads them as
/// Python-Markdown does. Anything else is unchanged.
pub(super) fn as_python_markdown(md: &str, md_in_html: bool) -> Cow<'_, str> {
    let mut fences = Fences::default();
    let mut in_html = false;
    let mut out = String::new();
    let mut lines = md.split_inclusive('\n').peekable();
    while let Some(line) = lines.next() {
        let bare = line.trim_end_matches(['\n', '\r']);
        let open_before = fences.closing().is_some();
        let code = fences.code(bare);
        if code && !open_before && in_html {
            // The fence that opens here: Python-Markdown's, not the HTML's text.
            out.push('\n');
        }
        out.push_str(line);
        let t = bare.trim();
        in_html = match () {
            _ if code || t.is_empty() => false,
            _ if tag_start(t) => true,
            _ => in_html,
        };
        // A block of raw HTML at the page's level ends with the line that closes it
        // (`</center>`): Python-Markdown reads the next line as Markdown (a heading, an image),
        // where CommonMark's HTML block runs on to a blank line.
        let top = bare.len() - bare.trim_start().len() < 4;
        let next_text = lines.peek().is_some_and(|n| !n.trim().is_empty());
        let closes = in_html && top && next_text && whole_tag(t).is_some_and(|t| t.closing);
        // With `md_in_html`, a marked element's content is Markdown: the HTML block ends with
        // its tag.
        let marked = md_in_html && whole_tag(t).is_some_and(|t| !t.closing && t.markdown());
        if !code && (closes || marked) {
            if !line.ends_with('\n') {
                out.push('\n');
            }
            out.push('\n');
            in_html = false;
        }
    }
    match out.len() == md.len() {
        true => Cow::Borrowed(md),
        false => Cow::Owned(out),
    }
}

/// A line that is one HTML tag and nothing else (`<div class="x">`, `</center>`).
struct WholeTag<'a> {
    /// The element's name.
    name: &'a str,
    /// Whether it is a closing tag.
    closing: bool,
    /// What follows the name in an opening tag.
    attrs: &'a str,
}

impl WholeTag<'_> {
    /// Whether the element is marked to hold Markdown (`markdown="1"`, `"block"`, or
    /// `markdown` alone).
    fn markdown(&self) -> bool {
        self.attrs.split_whitespace().any(|a| {
            let v = a.strip_prefix("markdown");
            v == Some("")
                || matches!(
                    v,
                    Some("=\"1\"" | "='1'" | "=1" | "=\"block\"" | "='block'")
                )
        })
    }
}

/// The tag a trimmed line is, when it is one tag alone (not self-closing).
fn whole_tag(t: &str) -> Option<WholeTag<'_>> {
    let inner = t.strip_prefix('<')?.strip_suffix('>')?;
    let (closing, inner) = match inner.strip_prefix('/') {
        Some(rest) => (true, rest),
        None => (false, inner),
    };
    if inner.contains(['<', '>']) || inner.ends_with('/') {
        return None;
    }
    let end = inner
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
        .unwrap_or(inner.len());
    let (name, attrs) = inner.split_at(end);
    let named = name.starts_with(|c: char| c.is_ascii_alphabetic());
    let fits = match closing {
        true => attrs.trim().is_empty(),
        false => attrs.is_empty() || attrs.starts_with([' ', '\t']),
    };
    (named && fits).then_some(WholeTag {
        name,
        closing,
        attrs,
    })
}

/// `md` as Python-Markdown's first step normalises it: tabs expanded to the next multiple of
/// four columns (in code too), and lines of spaces only emptied. A teacher who indents an
/// admonition's tabs with a tab and four spaces (`\t    - [ ] …`) nests them as Python-Markdown
/// does; counted as one column, a tab cut the blocks short (a quiz's correction fell out of its
/// tab).
pub(super) fn normalized_whitespace(md: &str) -> Cow<'_, str> {
    if !md.contains('\t') && !md.lines().any(|l| !l.is_empty() && l.trim().is_empty()) {
        return Cow::Borrowed(md);
    }
    let mut out = String::with_capacity(md.len() + 64);
    for line in md.split_inclusive('\n') {
        let (bare, end) = match line.strip_suffix('\n') {
            Some(b) => (b, "\n"),
            None => (line, ""),
        };
        if bare.trim().is_empty() {
            out.push_str(end);
            continue;
        }
        let mut column = 0;
        for c in bare.chars() {
            if c == '\t' {
                let next = (column / 4 + 1) * 4;
                out.extend(std::iter::repeat_n(' ', next - column));
                column = next;
            } else {
                out.push(c);
                column += 1;
            }
        }
        out.push_str(end);
    }
    Cow::Owned(out)
}

/// The body of a block nested in the page (an admonition's, a tab's, a collapsible block's)
/// as Python-Markdown reads it: a tag at the start of one of its lines is indented, so no block
/// of raw HTML, only markup in a paragraph, and the Markdown around it is read (a link or an
/// image between `<center>` and `</center>`). CommonMark would read the body's lines, once out
/// of their block, as raw HTML written as it is. So the lines that are only the tag of an
/// element that holds no text of its own (`<div class="x">`, `</center>`) are left out, outside
/// code; any other line is kept.
pub(super) fn nested_body(body: &str) -> Cow<'_, str> {
    const BARE: &[&str] = &[
        "div", "center", "span", "p", "section", "article", "aside", "font", "header", "footer",
    ];
    let tag_only =
        |t: &str| whole_tag(t).is_some_and(|t| BARE.iter().any(|b| t.name.eq_ignore_ascii_case(b)));
    let mut fences = Fences::default();
    let mut out = String::with_capacity(body.len());
    let mut dropped = false;
    for line in body.split_inclusive('\n') {
        let bare = line.trim_end_matches(['\n', '\r']);
        if !fences.code(bare) && tag_only(bare.trim()) {
            dropped = true;
            continue;
        }
        out.push_str(line);
    }
    match dropped {
        true => Cow::Owned(out),
        false => Cow::Borrowed(body),
    }
}

/// Whether a line starts with an HTML tag (`<div …>`, `</div>`), as a block of raw HTML does.
fn tag_start(t: &str) -> bool {
    let rest = t
        .strip_prefix('<')
        .map(|r| r.strip_prefix('/').unwrap_or(r));
    rest.is_some_and(|r| r.starts_with(|c: char| c.is_ascii_alphabetic()))
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// Any page, however its tags, tabs, blank lines and fences fall: read without a panic;
        /// normalising its whitespace keeps every other character and every line, and a
        /// nested body loses only lines that are a tag alone.
        #[test]
        fn any_page_keeps_its_text_as_python_markdown_reads_it(
            parts in proptest::collection::vec(
                "<div class=\"x\">|</div>|<center>|</center>|<span>|<p markdown=\"1\">|\t|  |\n|```\n|~~~\n|# |- |é|[a-z]{1,4}",
                0..50,
            )
        ) {
            let page: String = parts.concat();
            let _ = as_python_markdown(&page, true);
            let normal = normalized_whitespace(&page);
            let words = |t: &str| t.chars().filter(|c| !c.is_whitespace()).collect::<String>();
            proptest::prop_assert!(!normal.contains('\t'));
            proptest::prop_assert_eq!(words(&normal), words(&page));
            proptest::prop_assert_eq!(normal.matches('\n').count(), page.matches('\n').count());
            let nested = nested_body(&page);
            let kept: Vec<&str> = nested.lines().collect();
            let mut rest = kept.iter().peekable();
            for line in page.lines() {
                if rest.peek() == Some(&&line) {
                    rest.next();
                } else {
                    let t = line.trim();
                    proptest::prop_assert!(t.starts_with('<') && t.ends_with('>'), "{line:?}");
                }
            }
            proptest::prop_assert!(rest.next().is_none());
        }
    }

    #[test]
    fn a_fence_under_a_line_of_html_opens_a_code_block() {
        let fences_out_of_html = |md| as_python_markdown(md, false);
        let md = "<div class = \"decal1\">\n```python\ndef f():\n    return 1\n```\n</div>\n";
        assert_eq!(
            fences_out_of_html(md),
            "<div class = \"decal1\">\n\n```python\ndef f():\n    return 1\n```\n</div>\n"
        );
        // Indented in an admonition, after the HTML block's text.
        let md = "!!! note\n    <div>\n    Voici :\n    ```python\n    x = 1\n    ```\n";
        assert_eq!(
            fences_out_of_html(md),
            "!!! note\n    <div>\n    Voici :\n\n    ```python\n    x = 1\n    ```\n"
        );
    }

    #[test]
    fn fences_elsewhere_and_html_inside_code_are_unchanged() {
        let fences_out_of_html = |md| as_python_markdown(md, true);
        for md in [
            // After a blank line, after a paragraph, or with no HTML at all.
            "<div>\n\n```python\nx = 1\n```\n</div>\n",
            "Voici :\n```python\nx = 1\n```\n",
            "x < y\n```\ncode\n```\n",
            // HTML inside a code block is code: the fence after it closes that block.
            "```html\n<div>\n```\n",
            // A fence inside a fence.
            "````md\n<p>\n```python\n````\n",
        ] {
            assert!(matches!(fences_out_of_html(md), Cow::Borrowed(_)), "{md}");
        }
    }

    #[test]
    fn an_element_marked_markdown_holds_markdown_with_md_in_html() {
        let md = "4. Ajout :\n<center markdown=\"1\">\n![Tuto](images/x.png)\n</center>\n";
        assert_eq!(
            as_python_markdown(md, true),
            "4. Ajout :\n<center markdown=\"1\">\n\n![Tuto](images/x.png)\n</center>\n"
        );
        assert!(matches!(as_python_markdown(md, false), Cow::Borrowed(_)));
        for unmarked in [
            "<center>\n![Tuto](x.png)\n</center>\n",
            "<div markdown=\"0\">\nx\n</div>\n",
            "<div title=\"markdown=1\">x</div>\n",
        ] {
            assert!(
                matches!(as_python_markdown(unmarked, true), Cow::Borrowed(_)),
                "{unmarked}"
            );
        }
    }
}
