//! Element-level helpers of the HTML reader: math source, code text and language, heading
//! anchors, a page's hand-written table of contents.

use super::sel;
use scraper::{ElementRef, Html, Node, Selector};
use std::sync::LazyLock;

/// Selectors used per element, compiled once.
static ANNOTATION: LazyLock<Selector> = LazyLock::new(|| sel("annotation"));
static CODE: LazyLock<Selector> = LazyLock::new(|| sel("code"));
static ANCHORS: LazyLock<Selector> = LazyLock::new(|| sel("a[id], a[name], a[href^='#']"));
static LINKS: LazyLock<Selector> = LazyLock::new(|| sel("a"));

/// The page's content: the element of the first selector that names one region of the page
/// (every other element it selects lies inside the first). A selector that names several
/// regions side by side names parts of the content, not the content (`main article` on a
/// PreTeXt page, where each activity, definition and example is an `article`), and the next one
/// is tried; when none names one region, the first element any of them selects.
pub(super) fn content_root<'a>(doc: &'a Html, selectors: &[Selector]) -> Option<ElementRef<'a>> {
    let sole = |s: &Selector| {
        let mut all = doc.select(s);
        let first = all.next()?;
        all.all(|e| e.ancestors().any(|a| a.id() == first.id()))
            .then_some(first)
    };
    selectors
        .iter()
        .find_map(sole)
        .or_else(|| selectors.iter().find_map(|s| doc.select(s).next()))
}

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

/// Whether a text node is text a page shows: none holding control characters (but tab and line
/// breaks), which no browser displays, is: the compressed or encrypted data a theme keeps in the
/// page for its scripts (pyodide-mkdocs-theme's corrections, until a student has tried).
pub(super) fn displayed(t: &str) -> bool {
    !t.chars()
        .any(|c| c.is_control() && !matches!(c, '\t' | '\n' | '\r'))
}

/// The text of a code block, every space kept, line numbers left out, and the lines mdBook
/// hides in a Rust example (`<span class="boring">`, the `fn main() {` wrapper a reader sees
/// only by unfolding it).
pub(super) fn collect_code(e: ElementRef<'_>, out: &mut String) {
    for child in e.children() {
        match child.value() {
            Node::Text(t) if displayed(t) => out.push_str(t),
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

/// A heading's anchor: its `id`, a child anchor's `id`/`name`, its permalink's fragment, an
/// empty anchor just before it, or the `id` of the section or article it heads.
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
    let before = e.prev_siblings().find_map(ElementRef::wrap);
    let anchor = before
        .filter(|p| p.value().name() == "a" && p.text().all(|t| t.trim().is_empty()))
        .and_then(|p| p.value().attr("id").or(p.value().attr("name")));
    // Pandoc (Quarto, R Markdown) and PreTeXt give the id to the section the heading opens.
    let section = || {
        let parent = e.parent().and_then(ElementRef::wrap)?;
        let kind = parent.value().name();
        (before.is_none() && (kind == "section" || kind == "article"))
            .then(|| parent.value().attr("id"))
            .flatten()
    };
    anchor
        .or_else(section)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
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

/// A paragraph that only dates the page and links to its source's editor ("Last updated on
/// 2025-05-29 | Edit this page", as the Carpentries' Workbench opens each episode): furniture,
/// like the "Edit this page" buttons of other themes. Its one link goes to a forge's editor
/// (`…/edit/…`) and it says little else (under 80 characters in all).
pub(super) fn edit_line(p: ElementRef<'_>) -> bool {
    let mut links = p.select(&LINKS);
    let edit = links
        .next()
        .and_then(|a| a.value().attr("href"))
        .is_some_and(|h| h.contains("/edit/"));
    edit && links.next().is_none()
        && p.text()
            .flat_map(str::chars)
            .filter(|c| !c.is_whitespace())
            .count()
            < 80
}
