//! Element-level helpers of the HTML reader: math source, code text and language, heading
//! anchors, a page's hand-written table of contents.

use super::sel;
use scraper::{CaseSensitivity, ElementRef, Html, Node, Selector};
use std::sync::LazyLock;

/// Selectors used per element, compiled once.
static ANNOTATION: LazyLock<Selector> = LazyLock::new(|| sel("annotation"));
static TEX_ANNOTATION: LazyLock<Selector> = LazyLock::new(|| sel("annotation[encoding*=tex i]"));
static CODE: LazyLock<Selector> = LazyLock::new(|| sel("code"));
static ANCHORS: LazyLock<Selector> = LazyLock::new(|| sel("a[id], a[name], a[href^='#']"));
static LINKS: LazyLock<Selector> = LazyLock::new(|| sel("a"));
static CHECKBOXES: LazyLock<Selector> = LazyLock::new(|| sel("input[type=checkbox i]"));
static OWN_ADDRESSES: LazyLock<Selector> = LazyLock::new(|| {
    sel("link[rel=canonical], meta[property='og:url'], link[rel=stylesheet], script[src]")
});

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

/// TeX source of a math element (KaTeX annotation, MathJax `script[type=math/tex]`, MathML's
/// `alttext` or TeX annotation), if it is one; MathJax 3's output without its TeX is read from
/// its glyphs ([`super::mathjax`]).
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
    if let Some(tex) = marked_tex(e) {
        return Some(tex);
    }
    if v.name() == "mjx-container" {
        return v
            .attr("data-latex")
            .map(|t| format!("${t}$"))
            .or_else(|| super::mathjax::glyphs(e));
    }
    // MathML with its TeX beside it (LaTeXML's `alttext`, a TeX annotation): the TeX, as
    // KaTeX's is read, not the text of its `<mi>` and `<mn>` run together (`A=[1−324]` for a
    // matrix).
    if v.name() == "math" {
        let tex = v.attr("alttext").map(str::to_string).or_else(|| {
            e.select(&TEX_ANNOTATION)
                .next()
                .map(|a| a.text().collect::<String>())
        })?;
        let tex = tex.split_whitespace().collect::<Vec<_>>().join(" ");
        return (!tex.is_empty()).then(|| {
            if v.attr("display") == Some("block") {
                format!("$${tex}$$")
            } else {
                format!("${tex}$")
            }
        });
    }
    None
}

/// TeX that a Markdown renderer marked and left for the browser to typeset, written as the
/// Markdown sources write it (`$…$` inline, `$$…$$` displayed): pulldown-cmark's
/// `span.math-inline` and `span.math-display` (a Markdown source's `$n$`, whose dollars were
/// lost), pymdownx.arithmatex's `.arithmatex` (`\(n\)`, `\[x\]`, which a built MkDocs site
/// holds where its sources wrote `$n$`), and a `.math` element whose text is delimited so
/// (Pandoc's and Sphinx's). Only an element that holds
/// text alone: one typeset already is read from its output.
fn marked_tex(e: ElementRef<'_>) -> Option<String> {
    let v = e.value();
    let class = |c: &str| v.has_class(c, CaseSensitivity::AsciiCaseInsensitive);
    let marked = class("math-inline") || class("math-display") || class("arithmatex");
    if !(marked || class("math"))
        || v.name() == "math"
        || e.children().any(|c| !c.value().is_text())
    {
        return None;
    }
    let text: String = e.text().collect();
    let t = text.trim();
    let delimited = tex_delimited(t);
    // A `.math` element of another kind (a theme's box named so) holds TeX only between
    // delimiters.
    if delimited.is_none() && !marked {
        return None;
    }
    let (tex, display) = delimited.unwrap_or((t, class("math-display") || v.name() == "div"));
    if tex.is_empty() {
        return None;
    }
    Some(if display {
        format!("$${tex}$$")
    } else {
        format!("${tex}$")
    })
}

/// Inline code as Markdown writes it, between backticks, without the spaces around its text
/// (`` `lst ` `` shows `lst` in a built MkDocs page: Python-Markdown strips them, CommonMark
/// keeps one). Code of spaces only is kept as it is.
pub(super) fn code_span(e: ElementRef<'_>) -> String {
    let text: String = e.text().collect();
    let trimmed = text.trim();
    format!("`{}`", if trimmed.is_empty() { &text } else { trimmed })
}

/// The TeX between the delimiters `t` is written with (`\\(…\\)`, `$…$` inline; `\\[…\\]`,
/// `$$…$$` displayed), trimmed, and whether it is displayed; `None` when it has none or
/// nothing between them.
fn tex_delimited(t: &str) -> Option<(&str, bool)> {
    [
        ("\\(", "\\)", false),
        ("\\[", "\\]", true),
        ("$$", "$$", true),
        ("$", "$", false),
    ]
    .into_iter()
    .find_map(|(open, close, display)| {
        let inner = t.strip_prefix(open)?.strip_suffix(close)?.trim();
        (!inner.is_empty()).then_some((inner, display))
    })
}

/// Whether a block is only TeX macro definitions (`\[ \def\b#1{\mathbf{#1}} \]`, as Quarto
/// and Pandoc courses define their macros in a hidden block): MathJax reads them, a student
/// never sees them.
pub(super) fn tex_definitions(text: &str) -> bool {
    let t = text.trim();
    let t = tex_delimited(t).map_or(t, |(inner, _)| inner);
    [
        "\\def\\",
        "\\newcommand",
        "\\renewcommand",
        "\\providecommand",
        "\\DeclareMathOperator",
    ]
    .iter()
    .any(|c| t.starts_with(c))
}

/// A list item's label written as text before its paragraphs (LaTeXML's
/// `<span class="ltx_tag ltx_tag_item">(a)</span><div class="ltx_para">…`, where the list
/// itself shows no marker): the label's element and its text.
pub(super) fn item_tag(li: ElementRef<'_>) -> Option<(ElementRef<'_>, String)> {
    let mut kids = li.children().filter(|c| match c.value() {
        Node::Text(t) => !t.trim().is_empty(),
        Node::Element(_) => true,
        _ => false,
    });
    let tag = ElementRef::wrap(kids.next()?)?;
    let next = ElementRef::wrap(kids.next()?)?;
    let label = tag.text().collect::<String>().trim().to_string();
    let short = label.chars().count() <= 6
        && label.chars().any(char::is_alphanumeric)
        && !label.contains(char::is_whitespace);
    (tag.value().name() == "span" && short && matches!(next.value().name(), "div" | "p"))
        .then_some((tag, label))
}

/// A task list item's checkbox as Markdown writes it, `[x]` checked and `[ ]` not: the box
/// opening the item (GitHub's `<li><input type="checkbox" checked>`, pymdownx's inside a
/// `label.task-list-control`, a loose item's inside its first paragraph). A quiz's correction
/// says which choices are right by checking them.
pub(super) fn task_box(li: ElementRef<'_>) -> Option<&'static str> {
    fn find(e: ElementRef<'_>, depth: u8) -> Option<&'static str> {
        let first = e.children().find_map(|c| match c.value() {
            Node::Text(t) if !t.trim().is_empty() => Some(None),
            Node::Element(_) => Some(ElementRef::wrap(c)),
            _ => None,
        })??;
        let v = first.value();
        if v.name() == "input" {
            return v
                .attr("type")
                .is_some_and(|t| t.eq_ignore_ascii_case("checkbox"))
                .then_some(if v.attr("checked").is_some() {
                    "[x]"
                } else {
                    "[ ]"
                });
        }
        (depth > 0 && matches!(v.name(), "label" | "span" | "p"))
            .then(|| find(first, depth - 1))
            .flatten()
    }
    find(li, 2)
}

/// The checkboxes a block holds and how many of them are checked.
pub(super) fn checkboxes(e: ElementRef<'_>) -> (usize, usize) {
    e.select(&CHECKBOXES).fold((0, 0), |(n, c), b| {
        (n + 1, c + usize::from(b.value().attr("checked").is_some()))
    })
}

/// Whether a text node is text a page shows: none holding control characters (but tab and line
/// breaks), which no browser displays, is: the compressed or encrypted data a theme keeps in the
/// page for its scripts (pyodide-mkdocs-theme's corrections, until a student has tried).
pub(super) fn displayed(t: &str) -> bool {
    !t.chars()
        .any(|c| c.is_control() && !matches!(c, '\t' | '\n' | '\r'))
}

/// The text of a code block, every space kept, line numbers and what a theme puts before the
/// `code` element left out, and the lines mdBook hides in a Rust example (`<span class="boring">`, the `fn main() {` wrapper a reader sees
/// only by unfolding it).
pub(super) fn collect_code(e: ElementRef<'_>, out: &mut String) {
    // In a `pre` holding its code in `code`, what a theme puts before it (a "Copied" label, a
    // copy icon) is not code. (What follows it is read: a blank line in a shortcode's code makes
    // a `<p>` of the lines after it.)
    let mut before_code = e.value().name() == "pre"
        && e.children()
            .filter_map(ElementRef::wrap)
            .any(|c| c.value().name() == "code");
    for child in e.children() {
        if before_code {
            match ElementRef::wrap(child) {
                Some(c) if c.value().name() == "code" => before_code = false,
                Some(_) => continue,
                None => {}
            }
        }
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

/// A code block's language, from `language-…`/`lang-…` classes on it or its wrapper, or Org
/// mode's `src-…` on the `pre` itself (`<pre class="src src-python">`).
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
            let org = || {
                Some(c)
                    .filter(|_| n.value().name() == "pre")?
                    .strip_prefix("src-")
            };
            if let Some(l) = c
                .strip_prefix("language-")
                .or_else(|| c.strip_prefix("lang-"))
                .or_else(org)
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
/// Contents" then a list of its sections, or a plugin's floating one, as HonKit's
/// `anchor-navigation-ex` puts on every page, one link on a page with one heading): links, every
/// one to a place on the page (`#…`), and no text besides theirs. The sections it lists are
/// indexed where they are.
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
    links >= 1 && linked == words(list)
}

/// A block that only links to the site's pages: a sidebar or menu that a theme writes without
/// `<nav>` or a class the reader knows (a Pelican theme's `div.nav-docs` beside each chapter's
/// text), or a chapter's hand-written list of its lessons. It holds at least three links within
/// the site (a relative address or a place on the page, not another site's) and, outside its
/// links and headings, letters a tenth of its links' at most (a separator, a "Chapter 3"
/// label). Each page it links is indexed where it is. A list of other sites' resources is the
/// teacher's choice and is read. With `one_link`, one link is enough in a block holding no
/// heading: above the page's first heading, a link back to the page's section ("← Index des
/// sujets 2022"); a collapsible block or an admonition that only points to where its text is
/// ("Corrigé disponible: Accéder au corrigé"). A block's own title (a `summary`, an
/// admonition's title) is, like a heading, not text besides its links.
pub(super) fn link_block(e: ElementRef<'_>, hosts: &[String], one_link: bool) -> bool {
    #[derive(Default)]
    struct Tally {
        internal: usize,
        linked: usize,
        other: usize,
        headings: usize,
        /// Links to files and to other sites.
        outside: usize,
    }
    fn walk(e: ElementRef<'_>, hosts: &[String], in_link: bool, in_heading: bool, t: &mut Tally) {
        for child in e.children() {
            match child.value() {
                Node::Text(s) => {
                    let n = s.chars().filter(|c| c.is_alphanumeric()).count();
                    if in_link {
                        t.linked += n;
                    } else if !in_heading {
                        t.other += n;
                    }
                }
                Node::Element(v) => {
                    let Some(c) = ElementRef::wrap(child) else {
                        continue;
                    };
                    let name = v.name();
                    let link = name == "a";
                    match v.attr("href") {
                        Some(h) if link && within_site(h, hosts) => t.internal += 1,
                        Some(_) if link => t.outside += 1,
                        _ => {}
                    }
                    let heading = matches!(name, "h1" | "h2" | "h3" | "h4" | "h5" | "h6");
                    t.headings += usize::from(heading);
                    let title = name == "summary"
                        || v.has_class("admonition-title", CaseSensitivity::AsciiCaseInsensitive);
                    walk(c, hosts, in_link || link, in_heading || heading || title, t);
                }
                _ => {}
            }
        }
    }
    let mut t = Tally::default();
    walk(e, hosts, false, false, &mut t);
    // One link is enough when it is all the block links to: a link to a file or another site
    // beside it is a resource the teacher gives.
    let near = one_link && t.headings == 0;
    let min_links = if near && t.outside == 0 { 1 } else { 3 };
    // Above the title, a bar of links with the site's name beside them ("Cours de NSI Première"
    // and the chapters) is the site's menu: text besides the links may be a quarter of theirs.
    let share = if near { 4 } else { 10 };
    t.internal >= min_links && t.other * share <= t.linked
}

/// An address of a page within the site: relative (`../pages/33-exceptions.html`, `./`,
/// `../lists/`), a place on the page (`#errors`), or absolute on one of the site's `hosts`
/// ([`own_hosts`]: Zola and many Hugo themes write every link so), not another site's, a
/// `mailto:` or `javascript:` one, nor a file to download (`sujet.pdf`, `data.csv`, `rle.py`:
/// an exam's files, which a list of them gives as its content).
fn within_site(href: &str, hosts: &[String]) -> bool {
    let href = href.trim();
    let rest = match href.find([':', '/', '?', '#']) {
        Some(i) if href.as_bytes()[i] == b':' => match host_of(href) {
            Some((host, rest)) if hosts.iter().any(|h| h.eq_ignore_ascii_case(host)) => rest,
            _ => return false,
        },
        _ if href.starts_with("//") => return false,
        _ => href,
    };
    let path = rest.split(['?', '#']).next().unwrap_or("");
    let last = path.rsplit('/').next().unwrap_or("");
    let page = match last.rsplit_once('.') {
        Some((_, ext)) => ["html", "htm", "xhtml", "php"]
            .iter()
            .any(|p| ext.eq_ignore_ascii_case(p)),
        None => true,
    };
    !href.is_empty() && href != "#" && page
}

/// The host of an `http(s)://` address and what follows it.
fn host_of(url: &str) -> Option<(&str, &str)> {
    let (scheme, rest) = url.split_once("://")?;
    if !(scheme.eq_ignore_ascii_case("http") || scheme.eq_ignore_ascii_case("https")) {
        return None;
    }
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    Some((&rest[..end], &rest[end..]))
}

/// The hosts a page names as its own: its canonical address's (`<link rel="canonical">`,
/// `og:url`), and those of the stylesheets and scripts it loads by absolute address (a site
/// built with its base URL in every link, as Zola builds, loads its own files so); and the
/// host of `site`, where the site is served (`--url`), when it is an absolute address.
pub(super) fn own_hosts(doc: &Html, site: &str) -> Vec<String> {
    let mut hosts: Vec<String> = host_of(site.trim())
        .map(|(h, _)| h.to_string())
        .filter(|h| !h.is_empty())
        .into_iter()
        .collect();
    for e in doc.select(&OWN_ADDRESSES) {
        let v = e.value();
        let url = v
            .attr("href")
            .or_else(|| v.attr("src"))
            .or_else(|| v.attr("content"))
            .unwrap_or("");
        if let Some((host, _)) = host_of(url.trim()) {
            if !host.is_empty() && !hosts.iter().any(|h| h.eq_ignore_ascii_case(host)) {
                hosts.push(host.to_string());
            }
        }
    }
    hosts
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
