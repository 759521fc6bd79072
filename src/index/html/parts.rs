//! Element-level helpers of the HTML reader: math source, code text and language, heading
//! anchors, a page's hand-written table of contents.

use super::sel;
use scraper::{ElementRef, Node, Selector};
use std::sync::LazyLock;

/// Selectors used per element, compiled once.
static ANNOTATION: LazyLock<Selector> = LazyLock::new(|| sel("annotation"));
static CODE: LazyLock<Selector> = LazyLock::new(|| sel("code"));
static ANCHORS: LazyLock<Selector> = LazyLock::new(|| sel("a[id], a[name], a[href^='#']"));
static LINKS: LazyLock<Selector> = LazyLock::new(|| sel("a"));

/// TeX source of a math element (KaTeX annotation, MathJax `script[type=math/tex]`), if it is one.
pub(super) fn math_source(e: ElementRef<'_>) -> Option<String> {
    let v = e.value();
    if v.name() == "script" {
        let ty = v.attr("type").unwrap_or("");
        if ty.starts_with("math/tex") {
            let t: String = e.text().collect();
            return Some(if ty.contains("display") {
                format!("$${t}$$")
            } else {
                format!("${t}$")
            });
        }
    }
    if v.has_class("katex", scraper::CaseSensitivity::AsciiCaseInsensitive) {
        let t: String = e.select(&ANNOTATION).next()?.text().collect();
        return Some(format!("${}$", t.trim()));
    }
    if v.name() == "mjx-container" {
        return v.attr("data-latex").map(|t| format!("${t}$"));
    }
    None
}

/// The text of a code block, every space kept, line numbers left out, and the lines mdBook
/// hides in a Rust example (`<span class="boring">`, the `fn main() {` wrapper a reader sees
/// only by unfolding it).
pub(super) fn collect_code(e: ElementRef<'_>, out: &mut String) {
    for child in e.children() {
        match child.value() {
            Node::Text(t) => out.push_str(t),
            Node::Element(_) => {
                if let Some(c) = ElementRef::wrap(child) {
                    let skip = c
                        .value()
                        .classes()
                        .any(|k| matches!(k, "linenos" | "lineno" | "linenodiv" | "boring"))
                        || c.value().name() == "button";
                    if c.value().name() == "br" {
                        out.push('\n');
                    } else if !skip {
                        collect_code(c, out);
                    }
                }
            }
            _ => {}
        }
    }
}

/// A code block's language, from `language-…`/`lang-…` classes on it or its wrapper.
pub(super) fn code_lang(e: ElementRef<'_>) -> Option<String> {
    let mut nodes: Vec<ElementRef<'_>> = e.select(&CODE).collect();
    nodes.push(e);
    let mut p = e.parent().and_then(ElementRef::wrap);
    for _ in 0..3 {
        if let Some(x) = p {
            nodes.push(x);
            p = x.parent().and_then(ElementRef::wrap);
        }
    }
    for n in nodes {
        for c in n.value().classes() {
            if let Some(l) = c
                .strip_prefix("language-")
                .or_else(|| c.strip_prefix("lang-"))
            {
                if !l.is_empty()
                    && l.chars()
                        .all(|c| c.is_ascii_alphanumeric() || c == '+' || c == '-')
                {
                    return Some(l.to_ascii_lowercase());
                }
            }
        }
    }
    None
}

/// A heading's anchor: its `id`, a child anchor's `id`/`name`, or its permalink's fragment.
pub(super) fn heading_anchor(e: ElementRef<'_>) -> Option<String> {
    if let Some(id) = e.value().attr("id").filter(|s| !s.is_empty()) {
        return Some(id.to_string());
    }
    for a in e.select(&ANCHORS) {
        let v = a.value();
        if let Some(id) = v.attr("id").or(v.attr("name")).filter(|s| !s.is_empty()) {
            return Some(id.to_string());
        }
        if let Some(h) = v
            .attr("href")
            .and_then(|h| h.strip_prefix('#'))
            .filter(|s| !s.is_empty())
        {
            return Some(h.to_string());
        }
    }
    // Docusaurus and some themes put the id on a parent or previous empty anchor.
    e.prev_siblings()
        .filter_map(ElementRef::wrap)
        .next()
        .filter(|p| p.value().name() == "a" && p.text().all(|t| t.trim().is_empty()))
        .and_then(|p| {
            p.value()
                .attr("id")
                .or(p.value().attr("name"))
                .map(str::to_string)
        })
}

/// A list that is the page's own table of contents, written by hand at its top ("Table of
/// Contents" then a list of its sections): at least three links, every one to a place on the
/// page (`#…`), and no text besides theirs. The sections it lists are indexed where they are.
pub(super) fn in_page_toc(list: ElementRef<'_>) -> bool {
    let words = |e: ElementRef<'_>| {
        e.text()
            .flat_map(str::chars)
            .filter(|c| c.is_alphanumeric())
            .count()
    };
    let mut links = 0;
    let mut linked = 0;
    for a in list.select(&LINKS) {
        let href = a.value().attr("href").unwrap_or("");
        if href.len() < 2 || !href.starts_with('#') {
            return false;
        }
        links += 1;
        linked += words(a);
    }
    links >= 3 && linked == words(list)
}
