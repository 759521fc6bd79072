//! Built HTML → the page's text, block by block, with the structure that gives it meaning.
//!
//! The page is parsed by a real HTML5 parser (`html5ever`, through `scraper`). Only the main
//! content is read (`[data-chsr-body]`, else Pagefind's `[data-pagefind-body]`, else the first
//! content selector naming one region);
//! navigation, headers, footers, sidebars, search UI, scripts and line numbers never are.
//! Blocks stay whole: a paragraph, a list item, a table (as a pipe table), a code block (fenced,
//! every space kept), math as its TeX source. Headings give the section path and the anchor a
//! result links to; admonitions, collapsibles and tabs whose titles say "Exercice", "Correction",
//! "Énoncé"… (patterns in [`Structure`]) make exercise and correction units, a correction linked
//! to the exercise it answers.

use super::config::{expand, Structure};
use parts::{heading_anchor, math_source};
use regex::Regex;
use scraper::{ElementRef, Html, Node, Selector};
pub(crate) use units::without_section_number;

/// What a unit of text is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// Course text.
    Prose,
    /// An exercise statement.
    Exercise,
    /// A correction.
    Solution,
}

/// One heading on the path to a block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Heading {
    /// 1–6.
    pub level: u8,
    /// Its text.
    pub text: String,
    /// Its anchor (`id`), when it has one.
    pub anchor: Option<String>,
}

/// The context a block was read in: headings above it, metadata set by heading rules and page
/// attributes, and the exercise or correction it belongs to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ctx {
    /// Headings from the top (`h1`) down.
    pub headings: Vec<Heading>,
    /// Values read from headings by the rules (`(field, value)`).
    pub heading_fields: Vec<(&'static str, String)>,
    /// Values set by `data-chsr-*` attributes of enclosing elements.
    pub attr_fields: Vec<(&'static str, String)>,
    /// Prose, exercise or correction.
    pub role: Role,
    /// The exercise or correction unit (numbered in page order), if any.
    pub unit: Option<usize>,
    /// For a correction: the exercise unit it answers.
    pub answers: Option<usize>,
    /// The unit's title ("Exercice 3", "Correction").
    pub label: Option<String>,
    /// The `id` of the block that makes the unit (a Workbench challenge's, a Quarto callout's),
    /// which a result links to before any heading's.
    pub anchor: Option<String>,
}

/// A block of text and the index of its context in [`PageText::ctxs`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Block {
    /// Context index.
    pub ctx: usize,
    /// Markdown-like text (code fenced, tables piped).
    pub text: String,
    /// A list item: joined to its neighbours by one line break, not a blank line.
    pub tight: bool,
}

/// What a page holds.
#[derive(Clone, Debug, Default)]
pub struct PageText {
    /// The page title (its first `h1`, else `<title>`).
    pub title: Option<String>,
    /// `<meta name="chsr:FIELD" content="…">` values.
    pub meta: Vec<(String, String)>,
    /// Contexts, in page order.
    pub ctxs: Vec<Ctx>,
    /// Blocks, in page order.
    pub blocks: Vec<Block>,
    /// Why the page holds nothing to index (a redirect, a template, `data-chsr-ignore`…).
    pub skip: Option<String>,
    /// The page's language (`<html lang>`, primary subtag, lowercase).
    pub lang: Option<String>,
    /// Whether its content is marked with Pagefind's `data-pagefind-body`
    /// ([`super::pagefind`]).
    pub pagefind_body: bool,
    /// The navigation sections that hold the page, outermost first (its theme's current link).
    pub nav_trail: Vec<String>,
    /// Whether the site's navigation lists the page (its theme marks its link as current).
    pub listed: bool,
}

/// A heading rule: `(field, level, pattern, template)`.
pub type HeadingRule = (&'static str, u8, Regex, String);

/// Attribute names `data-chsr-…` and the fields they set.
pub const ATTR_FIELDS: &[(&str, &str)] = &[
    ("data-chsr-subject", "subject"),
    ("data-chsr-level", "level"),
    ("data-chsr-lang", "lang"),
    ("data-chsr-doc-type", "doc_type"),
    ("data-chsr-chapter", "chapter"),
    ("data-chsr-section", "section"),
    ("data-chsr-topic", "topic"),
    ("data-chsr-year", "year"),
    ("data-chsr-exam", "exam"),
    ("data-chsr-paper", "paper"),
    ("data-chsr-question-number", "question_number"),
    ("data-chsr-source", "source"),
];

/// Compiled selectors of one source.
pub struct Reader {
    skip: Selector,
    extra_skip: Vec<Selector>,
    content: Vec<Selector>,
    body: Selector,
    pagefind_body: Selector,
    /// What is outside every `[data-pagefind-body]` of a page that has several.
    pagefind_outside: Selector,
    h1: Selector,
    headings: Selector,
    title: Selector,
    meta: Selector,
    refresh: Selector,
    /// Sphinx's mark of each document assembled into one page (`singlehtml`).
    single_doc: Selector,
    /// Built-in selectors the walk uses per element, compiled once per source.
    tr: Selector,
    cell: Selector,
    admonition_title: Selector,
    tab_labels: Selector,
    tab_panels: Selector,
    structure: Structure,
}

fn sel(s: &str) -> Selector {
    Selector::parse(s).unwrap_or_else(|e| panic!("built-in selector {s:?}: {e}"))
}

impl Reader {
    /// Compiles the selectors of a structure (checked when the configuration was read).
    pub fn new(structure: &Structure) -> Reader {
        Reader {
            skip: sel(furniture::ALWAYS_SKIP),
            extra_skip: structure
                .ignore
                .iter()
                .filter_map(|s| Selector::parse(s).ok())
                .collect(),
            content: structure
                .content
                .iter()
                .filter_map(|s| Selector::parse(s).ok())
                .collect(),
            body: sel("[data-chsr-body]"),
            pagefind_body: sel("[data-pagefind-body]"),
            pagefind_outside: sel(
                ":not([data-pagefind-body]):not([data-pagefind-body] *):not(:has([data-pagefind-body]))",
            ),
            h1: sel("h1"),
            headings: sel("h1, h2, h3, h4, h5, h6"),
            title: sel("title"),
            meta: sel("meta[name]"),
            refresh: sel("meta[http-equiv]"),
            single_doc: sel("span[id^='document-']"),
            tr: sel("tr"),
            cell: sel("th, td"),
            admonition_title: sel(".admonition-title, .theme-admonition-heading, [class*=admonitionHeading], .callout-title, .callout-title-container, .custom-block-title, summary, .accordion-button, .accordion-header, td.icon, .exampleblock > .title, .sidebarblock > .title, .listingblock > .title, .expand > .expand-label"),
            tab_labels: sel(".tabbed-labels > label, [role=tab]"),
            tab_panels: sel(".tabbed-content > .tabbed-block, [role=tabpanel]"),
            structure: structure.clone(),
        }
    }

    /// Reads a page. `generate_anchors`: give headings without an `id` one (Markdown sources,
    /// whose generator makes the same slugs); a built page's headings keep only their own.
    pub fn read(&self, html: &str, rules: &[HeadingRule], generate_anchors: bool) -> PageText {
        self.read_at(html, rules, generate_anchors, "")
    }

    /// [`Self::read`] for a page of the site served at `site` (its base URL): absolute links on
    /// that host are links to the site's own pages, as those on the hosts the page names.
    pub fn read_at(
        &self,
        html: &str,
        rules: &[HeadingRule],
        generate_anchors: bool,
        site: &str,
    ) -> PageText {
        let doc = Html::parse_document(html);
        let mut page = PageText {
            lang: doc
                .root_element()
                .value()
                .attr("lang")
                .and_then(|l| l.split(['-', '_']).next())
                .map(|l| l.trim().to_ascii_lowercase())
                .filter(|l| !l.is_empty()),
            ..PageText::default()
        };
        for m in doc.select(&self.meta) {
            let name = m.value().attr("name").unwrap_or("");
            if let Some(field) = name.strip_prefix("chsr:") {
                let content = m.value().attr("content").unwrap_or("").trim();
                if !content.is_empty() {
                    page.meta
                        .push((field.trim().to_string(), content.to_string()));
                }
            }
            if name.eq_ignore_ascii_case("robots")
                && m.value()
                    .attr("content")
                    .unwrap_or("")
                    .to_ascii_lowercase()
                    .contains("noindex")
            {
                page.skip = Some("marked noindex (meta robots)".into());
            }
        }
        for m in doc.select(&self.refresh) {
            if m.value()
                .attr("http-equiv")
                .unwrap_or("")
                .eq_ignore_ascii_case("refresh")
            {
                page.skip = Some("a redirect (meta refresh)".into());
            }
        }
        if let Some(why) = kind::list_page(&doc)
            .or_else(|| kind::summaries_page(&doc))
            .or_else(|| kind::search_page(&doc))
        {
            page.skip = Some(why.into());
        }
        if doc.select(&self.single_doc).nth(1).is_some() {
            page.skip = Some("the whole project on one page (Sphinx singlehtml), a copy".into());
        }
        // Pagefind reads every element marked as content: several are read from the element
        // that holds them all, less what is outside each of them.
        let bodies: Vec<ElementRef> = doc.select(&self.pagefind_body).collect();
        page.pagefind_body = !bodies.is_empty();
        let chsr_body = doc.select(&self.body).next();
        let outside_bodies = chsr_body.is_none() && bodies.len() > 1;
        let root = chsr_body
            .or_else(|| common_ancestor(&bodies))
            .or_else(|| parts::content_root(&doc, &self.content));
        let Some(root) = root else {
            page.skip = Some("no content element".into());
            return page;
        };
        if let Some(why) = kind::scripted_content(root) {
            page.skip = Some(why.into());
        }
        for ignore in ["data-chsr-ignore", "data-pagefind-ignore"] {
            if root.value().attr(ignore).is_some() {
                page.skip = Some(format!("{ignore} on the content"));
            }
        }
        let place = navtrail::nav_trail(&doc);
        page.listed = place.is_some();
        page.nav_trail = place.unwrap_or_default();
        let h1 = root
            .select(&self.h1)
            .map(|h| clean_title(&self.inline(h)))
            .find(|t| !t.is_empty());
        // Without a title of its own (a `chsr:title` meta tag, an `h1`), the page's `<title>`,
        // without the site's name.
        let doc_title = || {
            doc.select(&self.title)
                .next()
                .map(|t| clean_title(&t.text().collect::<String>()))
                .map(|t| clean_title(&title::without_site_name(&t, &title::site_names(&doc))))
                // Sphinx writes `<no title>` for a document without one.
                .filter(|t| !t.is_empty() && !t.eq_ignore_ascii_case("no title"))
        };
        // A title that only names an index file is none; the breadcrumb then names the page.
        let h1 = h1.filter(|t| !title::placeholder(t));
        page.title = page
            .meta
            .iter()
            .find(|(k, _)| k == "title")
            .map(|(_, v)| v.clone())
            .or(h1)
            .or_else(|| doc_title().filter(|t| !title::placeholder(t)))
            .or_else(|| title::breadcrumb(&doc));
        let mut w = Walker {
            r: self,
            rules,
            generate_anchors,
            headings: Vec::new(),
            hfields: Vec::new(),
            attrs: Vec::new(),
            units: Vec::new(),
            hunits: Vec::new(),
            next_unit: 0,
            last_exercise: None,
            dirty: true,
            inline: String::new(),
            list_depth: 0,
            in_item: false,
            item_open: false,
            tag: String::new(),
            outside_bodies,
            hosts: parts::own_hosts(&doc, site),
            page: &mut page,
        };
        w.attrs_of(root);
        w.children(root);
        w.flush();
        page
    }

    pub(super) fn skipped(&self, e: ElementRef<'_>) -> bool {
        self.skip.matches(&e) || self.extra_skip.iter().any(|s| s.matches(&e))
    }

    /// The text of an element as one line: inline markup kept as Markdown (`code`, bold,
    /// emphasis), line breaks as spaces, skipped elements left out.
    fn inline(&self, e: ElementRef<'_>) -> String {
        let mut s = String::new();
        self.inline_into(e, &mut s);
        collapse(&s)
    }

    fn inline_into(&self, e: ElementRef<'_>, out: &mut String) {
        for child in e.children() {
            match child.value() {
                Node::Text(t) if parts::displayed(t) => out.push_str(t),
                Node::Element(_) => {
                    let Some(c) = ElementRef::wrap(child) else {
                        continue;
                    };
                    if self.skipped(c) {
                        continue;
                    }
                    if follows_link(c) {
                        out.push(' ');
                    }
                    match c.value().name() {
                        "br" => out.push(' '),
                        "code" | "kbd" | "samp" => out.push_str(&parts::code_span(c)),
                        _ => {
                            if let Some(tex) = math_source(c) {
                                out.push_str(&tex);
                            } else {
                                self.inline_into(c, out);
                            }
                        }
                    }
                }
                _ => {}
            }
        }
    }
}

/// A link right after another with nothing between them (`<a>Stack</a><a>Python</a>`): buttons,
/// cards or tags the theme lays out apart, whose words would otherwise run together.
fn follows_link(e: ElementRef<'_>) -> bool {
    e.value().name() == "a"
        && e.prev_sibling()
            .and_then(ElementRef::wrap)
            .is_some_and(|p| p.value().name() == "a")
}

/// Whitespace runs → one space, trimmed.
pub fn collapse(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A heading or title without decorative marks (`▶`, `¶`, `#`, emoji bullets).
pub fn clean_title(s: &str) -> String {
    let s = collapse(s);
    s.trim_matches(|c: char| !c.is_alphanumeric() && !"()[]«»\"'`$.".contains(c))
        .trim()
        .to_string()
}

/// MkDocs-style slug of a heading (lowercase, accents kept, punctuation dropped, spaces → `-`).
pub fn slug(s: &str) -> String {
    let mut out = String::new();
    for c in s.trim().to_lowercase().chars() {
        if c.is_alphanumeric() || c == '_' || c == '-' {
            out.push(c);
        } else if c.is_whitespace() && !out.ends_with('-') {
            out.push('-');
        }
    }
    out.trim_matches('-').to_string()
}

struct Unit {
    role: Role,
    unit: Option<usize>,
    answers: Option<usize>,
    label: Option<String>,
    /// The `id` of the block that makes it, where a result opens.
    anchor: Option<String>,
}

struct Walker<'a, 'p> {
    r: &'a Reader,
    rules: &'a [HeadingRule],
    generate_anchors: bool,
    headings: Vec<Heading>,
    hfields: Vec<(u8, &'static str, String)>,
    attrs: Vec<(usize, &'static str, String)>,
    units: Vec<Unit>,
    /// Exercises and corrections titled by a heading, with its level: each holds what follows
    /// its heading until a heading of its level or above ([`Walker::heading_unit`]).
    hunits: Vec<(u8, Unit)>,
    next_unit: usize,
    last_exercise: Option<usize>,
    dirty: bool,
    inline: String,
    list_depth: usize,
    in_item: bool,
    /// Whether the list item being read has its first line: the next ones continue it (a
    /// second paragraph of the item is not a second item).
    item_open: bool,
    /// The label of the list item being read, until its first line takes it.
    tag: String,
    /// Whether the content is several `[data-pagefind-body]` elements, what is outside them
    /// left out.
    outside_bodies: bool,
    /// The hosts the page names as its own ([`parts::own_hosts`]).
    hosts: Vec<String>,
    page: &'p mut PageText,
}

impl Walker<'_, '_> {
    fn ctx(&mut self) -> usize {
        if self.dirty || self.page.ctxs.is_empty() {
            let u = self.unit();
            let mut attr_fields: Vec<(&'static str, String)> = Vec::new();
            for (_, f, v) in &self.attrs {
                attr_fields.retain(|(g, _)| g != f);
                attr_fields.push((f, v.clone()));
            }
            self.page.ctxs.push(Ctx {
                headings: self.headings.clone(),
                heading_fields: self
                    .hfields
                    .iter()
                    .map(|(_, f, v)| (*f, v.clone()))
                    .collect(),
                attr_fields,
                role: u.map(|u| u.role).unwrap_or(Role::Prose),
                unit: u.and_then(|u| u.unit),
                answers: u.and_then(|u| u.answers),
                label: u.and_then(|u| u.label.clone()),
                anchor: u.and_then(|u| u.anchor.clone()),
            });
            self.dirty = false;
        }
        self.page.ctxs.len() - 1
    }

    fn push_block(&mut self, text: String, tight: bool) {
        if text.trim().is_empty() || parts::tex_definitions(&text) {
            return;
        }
        let ctx = self.ctx();
        self.page.blocks.push(Block { ctx, text, tight });
    }

    fn flush(&mut self) {
        let mut text = collapse(&std::mem::take(&mut self.inline));
        if text.is_empty() {
            return;
        }
        if !self.tag.is_empty() {
            text = format!("{} {text}", std::mem::take(&mut self.tag));
        }
        let (text, tight) = if self.in_item {
            let indent = "  ".repeat(self.list_depth.saturating_sub(1));
            let mark = if self.item_open { "  " } else { "- " };
            self.item_open = true;
            (format!("{indent}{mark}{text}"), true)
        } else {
            (text, false)
        };
        self.push_block(text, tight);
    }

    /// Leaves out a list or block of links ([`parts::in_page_toc`], [`parts::link_block`]) and
    /// the short label that introduced it, if the last text read was one ("Contents:",
    /// "目录：", "Sommaire :"): alone, it would say nothing.
    fn leave_out_links(&mut self) {
        self.flush();
        let ctx = self.page.ctxs.len().checked_sub(1);
        let label = self.page.blocks.last().is_some_and(|b| {
            let t = b.text.trim_end();
            Some(b.ctx) == ctx
                && !self.dirty
                && !b.tight
                && t.chars().count() <= 40
                && !t.contains('\n')
                && (t.ends_with(':') || t.ends_with('：'))
        });
        if label {
            self.page.blocks.pop();
        }
    }

    fn attrs_of(&mut self, e: ElementRef<'_>) -> usize {
        let depth = self.attrs.len();
        for (attr, field) in ATTR_FIELDS {
            if let Some(v) = e.value().attr(attr) {
                let v = v.trim();
                if !v.is_empty() {
                    self.flush();
                    self.attrs.push((depth, field, v.to_string()));
                    self.dirty = true;
                }
            }
        }
        self.attrs.len() - depth
    }

    fn children(&mut self, e: ElementRef<'_>) {
        self.children_but(e, None);
    }

    /// The children of `e` but the element `but`.
    fn children_but(&mut self, e: ElementRef<'_>, but: Option<ElementRef<'_>>) {
        for child in e.children() {
            match child.value() {
                Node::Text(t) if parts::displayed(t) => self.inline.push_str(t),
                Node::Element(_) => {
                    if let Some(c) = ElementRef::wrap(child).filter(|c| but != Some(*c)) {
                        self.element(c);
                    }
                }
                _ => {}
            }
        }
    }

    fn element(&mut self, e: ElementRef<'_>) {
        if self.r.skipped(e) || (self.outside_bodies && self.r.pagefind_outside.matches(&e)) {
            return;
        }
        // A block of links only, or one that only points to a page (one link is enough above
        // the page's first heading, and in a titled block: "Corrigé disponible: Accéder au
        // corrigé", indexed where it points).
        let name = e.value().name();
        if matches!(
            name,
            "div" | "section" | "aside" | "ul" | "ol" | "p" | "menu" | "details"
        ) && parts::link_block(
            e,
            &self.hosts,
            self.headings.is_empty() || name == "details" || self.is_admonition(e),
        ) {
            self.leave_out_links();
            return;
        }
        if follows_link(e) {
            self.inline.push(' ');
        }
        let pushed = self.attrs_of(e);
        self.element_inner(e);
        if pushed > 0 {
            self.flush();
            let keep = self.attrs.len() - pushed;
            self.attrs.truncate(keep);
            self.dirty = true;
        }
    }

    fn element_inner(&mut self, e: ElementRef<'_>) {
        let v = e.value();
        let name = v.name();
        if let Some(tex) = math_source(e) {
            // A block of math (arithmatex's `div`) is a paragraph of its own.
            let block = name == "div";
            if block {
                self.flush();
            }
            self.inline.push_str(&tex);
            if block {
                self.flush();
            }
            return;
        }
        match name {
            "h1" | "h2" | "h3" | "h4" | "h5" | "h6" => self.heading(e, name.as_bytes()[1] - b'0'),
            "pre" => {
                self.flush();
                self.code(e);
            }
            "br" => self.inline.push(' '),
            "hr" => self.flush(),
            "code" | "kbd" | "samp" => self.inline.push_str(&parts::code_span(e)),
            "strong" | "b" => self.wrap(e, "**"),
            "em" | "i" => self.wrap(e, "*"),
            "table" => {
                self.flush();
                // A code table's line numbers, an Asciidoctor admonition's icon and text
                // cells, or LaTeXML's equation and its number: layout, not a table.
                let layout = |e: ElementRef<'_>, class: &str| {
                    e.value()
                        .has_class(class, scraper::CaseSensitivity::AsciiCaseInsensitive)
                };
                let parent = e.parent().and_then(ElementRef::wrap);
                if layout(e, "highlighttable")
                    || layout(e, "ltx_equation")
                    || layout(e, "ltx_equationgroup")
                    || parent.is_some_and(|p| layout(p, "admonitionblock"))
                {
                    self.children(e);
                } else {
                    self.table(e);
                }
            }
            "ul" | "ol" if self.list_depth == 0 && parts::in_page_toc(e) => self.leave_out_links(),
            "p" if parts::edit_line(e) => self.flush(),
            "ul" | "ol" => {
                self.flush();
                let was = self.in_item;
                self.in_item = false;
                self.list_depth += 1;
                self.children(e);
                self.flush();
                self.list_depth -= 1;
                self.in_item = was;
            }
            "li" => {
                self.flush();
                let was = self.in_item;
                let was_open = std::mem::replace(&mut self.item_open, false);
                self.in_item = true;
                // An item's label written as text before its paragraphs (LaTeXML's "(a)")
                // opens the item's first line, not a line of its own.
                let tag = parts::item_tag(e).map(|(t, label)| {
                    self.tag = label;
                    t
                });
                if let Some(b) = parts::task_box(e) {
                    self.tag = format!("{b} {}", self.tag).trim_end().to_string();
                }
                self.children_but(e, tag);
                self.flush();
                self.in_item = was;
                self.item_open = was_open;
                self.tag.clear();
            }
            "details" => self.scoped(|w| w.unit_block(e, w.summary(e), true)),
            _ if self.is_admonition(e) => {
                let title = self.admonition_title(e);
                self.unit_block(e, title, true)
            }
            _ if self.is_tabs(e) => self.tabs(e),
            _ if v.attr("data-chsr-tab").is_some() => {
                let label = v.attr("data-chsr-tab").map(clean_title);
                self.unit_block(e, label, false)
            }
            // A Bootstrap card is a box of its own: its headings (the Carpentries' lesson
            // overview, "Questions" and "Objectives") do not head the text after it.
            "div" if v.has_class("card", scraper::CaseSensitivity::AsciiCaseInsensitive) => {
                self.scoped(|w| w.children(e))
            }
            // A heading inside a section or an article heads it alone (Sphinx, Quarto,
            // PreTeXt nest a page's sections; a PreTeXt activity is an article): the
            // headings outside it head what follows it.
            // An exercise marked up as its own article (PreTeXt's `article.exercise`) or
            // blockquote (the Carpentries' older lessons, kramdown's `{: .challenge}`) is an
            // exercise unit, labelled by its heading; a correction so marked (`{: .solution}`)
            // is one when its heading says so.
            "section" | "article" | "blockquote" | "div"
                if v.classes().any(|c| {
                    c == "solution" || self.r.structure.exercise_classes.iter().any(|x| x == c)
                }) =>
            {
                self.scoped(|w| {
                    let label = e.select(&w.r.headings).next().map(|h| w.r.inline(h));
                    w.unit_block(e, label.map(|l| clean_title(&l)), true);
                })
            }
            "section" | "article" => self.scoped(|w| w.children(e)),
            "p" | "div" | "main" | "blockquote" | "figure" | "figcaption" | "dl" | "dt" | "dd"
            | "center" | "aside" | "address" | "summary" | "tr" | "td" | "th" => {
                self.flush();
                self.children(e);
                self.flush();
            }
            _ => self.children(e),
        }
    }

    fn wrap(&mut self, e: ElementRef<'_>, mark: &str) {
        let inner = self.r.inline(e);
        if inner.is_empty() {
            return;
        }
        // Markup inside a word or around code stays plain: it would only add noise.
        if inner.contains('`') || inner.contains(mark) {
            self.inline.push_str(&inner);
        } else {
            self.inline.push_str(mark);
            self.inline.push_str(&inner);
            self.inline.push_str(mark);
        }
        // A space that ends the marked words (`<strong>Exercise 2.1 </strong>Sum`) still
        // separates them from the next.
        if e.text()
            .last()
            .is_some_and(|t| t.ends_with(char::is_whitespace))
        {
            self.inline.push(' ');
        }
    }

    fn heading(&mut self, e: ElementRef<'_>, level: u8) {
        self.flush();
        let text = clean_title(&self.r.inline(e));
        if text.is_empty() {
            return;
        }
        let anchor = heading_anchor(e).or_else(|| self.generate_anchors.then(|| slug(&text)));
        self.headings.retain(|h| h.level < level);
        self.headings.push(Heading {
            level,
            text: text.clone(),
            anchor,
        });
        self.hfields.retain(|(l, _, _)| *l < level);
        for (field, l, pattern, template) in self.rules {
            if *l == level {
                if let Some(v) = expand(pattern, template, &text) {
                    self.hfields.retain(|(_, f, _)| f != field);
                    self.hfields.push((level, field, v));
                }
            }
        }
        self.last_exercise = None;
        self.heading_unit(level, &text);
        self.dirty = true;
    }
}

mod blocks;
#[cfg(test)]
mod books_tests;
#[cfg(test)]
mod carpentries_tests;
mod furniture;
mod kind;
mod mathjax;
#[cfg(test)]
mod nav_tests;
mod navtrail;
mod parts;
#[cfg(test)]
mod quiz_tests;

/// The innermost element holding every one of `els` (itself for one); `None` for none.
fn common_ancestor<'a>(els: &[ElementRef<'a>]) -> Option<ElementRef<'a>> {
    let first = *els.first()?;
    let holds = |a: &ElementRef<'a>, e: &ElementRef<'a>| {
        e.id() == a.id() || e.ancestors().any(|x| x.id() == a.id())
    };
    std::iter::once(first)
        .chain(first.ancestors().filter_map(ElementRef::wrap))
        .find(|a| els.iter().all(|e| holds(a, e)))
}
#[cfg(test)]
mod tests;
#[cfg(test)]
mod text_tests;
mod title;
mod units;
