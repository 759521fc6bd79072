//! Built HTML → the page's text, block by block, with the structure that gives it meaning.
//!
//! The page is parsed by a real HTML5 parser (`html5ever`, through `scraper`). Only the main
//! content is read (`[data-chsr-body]`, else the first of the configured content selectors);
//! navigation, headers, footers, sidebars, search UI, scripts and line numbers never are.
//! Blocks stay whole: a paragraph, a list item, a table (as a pipe table), a code block (fenced,
//! every space kept), math as its TeX source. Headings give the section path and the anchor a
//! result links to; admonitions, collapsibles and tabs whose titles say "Exercice", "Correction",
//! "Énoncé"… (patterns in [`Structure`]) make exercise and correction units, a correction linked
//! to the exercise it answers.

use super::config::{expand, Structure};
use regex::Regex;
use scraper::{ElementRef, Html, Node, Selector};

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

/// Elements never read, whatever the site.
const ALWAYS_SKIP: &str = "script, style, noscript, template, nav, header, footer, aside:not(.admonition), \
form, button, input, select, textarea, svg, iframe, canvas, audio, video, object, embed, img, \
[data-chsr-ignore], [hidden], [aria-hidden=true], .headerlink, .anchor-link, a.hash-link, .md-source-file, .md-content__button, \
.md-nav, .md-header, .md-footer, .md-sidebar, .md-search, .md-dialog, .md-top, .md-tags, \
.linenos, .linenodiv, .lineno, .katex-html, .MathJax_Preview, .visually-hidden, .sr-only, .screen-reader-text, \
.admonition-title, .theme-admonition-heading, [class*=admonitionHeading], .callout-title, \
.tabbed-labels, [role=tablist], .pagination-nav, .theme-doc-footer, .theme-doc-toc-mobile, .toc, #toc, .table-of-contents, \
.breadcrumbs, .theme-doc-breadcrumbs, .edit-this-page, .prev-next, .page-nav, .post-nav";

/// Compiled selectors of one source.
pub struct Reader {
    skip: Selector,
    extra_skip: Vec<Selector>,
    content: Vec<Selector>,
    body: Selector,
    h1: Selector,
    title: Selector,
    meta: Selector,
    refresh: Selector,
    structure: Structure,
}

fn sel(s: &str) -> Selector {
    Selector::parse(s).unwrap_or_else(|e| panic!("built-in selector {s:?}: {e}"))
}

impl Reader {
    /// Compiles the selectors of a structure (checked when the configuration was read).
    pub fn new(structure: &Structure) -> Reader {
        Reader {
            skip: sel(ALWAYS_SKIP),
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
            h1: sel("h1"),
            title: sel("title"),
            meta: sel("meta[name]"),
            refresh: sel("meta[http-equiv]"),
            structure: structure.clone(),
        }
    }

    /// Reads a page. `generate_anchors`: give headings without an `id` one (Markdown sources,
    /// whose generator makes the same slugs); a built page's headings keep only their own.
    pub fn read(&self, html: &str, rules: &[HeadingRule], generate_anchors: bool) -> PageText {
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
        let root = doc
            .select(&self.body)
            .next()
            .or_else(|| self.content.iter().find_map(|s| doc.select(s).next()));
        let Some(root) = root else {
            page.skip = Some("no content element".into());
            return page;
        };
        if root.value().attr("data-chsr-ignore").is_some() {
            page.skip = Some("data-chsr-ignore on the content".into());
        }
        let h1 = root
            .select(&self.h1)
            .map(|h| clean_title(&self.inline(h)))
            .find(|t| !t.is_empty());
        let doc_title = doc
            .select(&self.title)
            .next()
            .map(|t| clean_title(&t.text().collect::<String>()))
            .filter(|t| !t.is_empty());
        page.title = page
            .meta
            .iter()
            .find(|(k, _)| k == "title")
            .map(|(_, v)| v.clone())
            .or(h1)
            .or(doc_title);
        let mut w = Walker {
            r: self,
            rules,
            generate_anchors,
            headings: Vec::new(),
            hfields: Vec::new(),
            attrs: Vec::new(),
            units: Vec::new(),
            next_unit: 0,
            last_exercise: None,
            dirty: true,
            inline: String::new(),
            list_depth: 0,
            in_item: false,
            page: &mut page,
        };
        w.attrs_of(root);
        w.children(root);
        w.flush();
        page
    }

    fn skipped(&self, e: ElementRef<'_>) -> bool {
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
                Node::Text(t) => out.push_str(t),
                Node::Element(_) => {
                    let Some(c) = ElementRef::wrap(child) else {
                        continue;
                    };
                    if self.skipped(c) {
                        continue;
                    }
                    match c.value().name() {
                        "br" => out.push(' '),
                        "code" | "kbd" | "samp" => {
                            out.push('`');
                            out.push_str(&c.text().collect::<String>());
                            out.push('`');
                        }
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

/// TeX source of a math element (KaTeX annotation, MathJax `script[type=math/tex]`), if it is one.
fn math_source(e: ElementRef<'_>) -> Option<String> {
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
        let ann = Selector::parse("annotation").ok()?;
        let t: String = e.select(&ann).next()?.text().collect();
        return Some(format!("${}$", t.trim()));
    }
    if v.name() == "mjx-container" {
        return v.attr("data-latex").map(|t| format!("${t}$"));
    }
    None
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
}

struct Walker<'a, 'p> {
    r: &'a Reader,
    rules: &'a [HeadingRule],
    generate_anchors: bool,
    headings: Vec<Heading>,
    hfields: Vec<(u8, &'static str, String)>,
    attrs: Vec<(usize, &'static str, String)>,
    units: Vec<Unit>,
    next_unit: usize,
    last_exercise: Option<usize>,
    dirty: bool,
    inline: String,
    list_depth: usize,
    in_item: bool,
    page: &'p mut PageText,
}

impl Walker<'_, '_> {
    fn ctx(&mut self) -> usize {
        if self.dirty || self.page.ctxs.is_empty() {
            let u = self.units.last();
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
            });
            self.dirty = false;
        }
        self.page.ctxs.len() - 1
    }

    fn push_block(&mut self, text: String, tight: bool) {
        if text.trim().is_empty() {
            return;
        }
        let ctx = self.ctx();
        self.page.blocks.push(Block { ctx, text, tight });
    }

    fn flush(&mut self) {
        let text = collapse(&std::mem::take(&mut self.inline));
        if text.is_empty() {
            return;
        }
        let (text, tight) = if self.in_item {
            let indent = "  ".repeat(self.list_depth.saturating_sub(1));
            (format!("{indent}- {text}"), true)
        } else {
            (text, false)
        };
        self.push_block(text, tight);
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
        for child in e.children() {
            match child.value() {
                Node::Text(t) => self.inline.push_str(t),
                Node::Element(_) => {
                    if let Some(c) = ElementRef::wrap(child) {
                        self.element(c);
                    }
                }
                _ => {}
            }
        }
    }

    fn element(&mut self, e: ElementRef<'_>) {
        if self.r.skipped(e) {
            return;
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
            self.inline.push_str(&tex);
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
            "code" | "kbd" | "samp" => {
                self.inline.push('`');
                self.inline.push_str(&e.text().collect::<String>());
                self.inline.push('`');
            }
            "strong" | "b" => self.wrap(e, "**"),
            "em" | "i" => self.wrap(e, "*"),
            "table" => {
                self.flush();
                if e.value().has_class(
                    "highlighttable",
                    scraper::CaseSensitivity::AsciiCaseInsensitive,
                ) {
                    self.children(e);
                } else {
                    self.table(e);
                }
            }
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
                self.in_item = true;
                self.children(e);
                self.flush();
                self.in_item = was;
            }
            "details" => self.unit_block(e, self.summary(e), true),
            _ if self.is_admonition(e) => {
                let title = self.admonition_title(e);
                self.unit_block(e, title, true)
            }
            _ if self.is_tabs(e) => self.tabs(e),
            _ if v.attr("data-chsr-tab").is_some() => {
                let label = v.attr("data-chsr-tab").map(clean_title);
                self.unit_block(e, label, false)
            }
            "p" | "div" | "section" | "article" | "main" | "blockquote" | "figure"
            | "figcaption" | "dl" | "dt" | "dd" | "center" | "aside" | "address" | "summary"
            | "tr" | "td" | "th" => {
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
        self.dirty = true;
    }

    fn code(&mut self, e: ElementRef<'_>) {
        let mut code = String::new();
        collect_code(e, &mut code);
        let code = code.trim_end_matches(['\n', ' ', '\t', '\r']);
        let code = code.trim_start_matches('\n');
        if code.trim().is_empty() {
            return;
        }
        let lang = code_lang(e).unwrap_or_default();
        self.push_block(format!("```{lang}\n{code}\n```"), false);
    }

    fn table(&mut self, e: ElementRef<'_>) {
        let tr = sel("tr");
        let cell = sel("th, td");
        let mut rows: Vec<(Vec<String>, bool)> = Vec::new();
        for row in e.select(&tr) {
            let cells: Vec<ElementRef<'_>> = row
                .children()
                .filter_map(ElementRef::wrap)
                .filter(|c| cell.matches(c))
                .collect();
            if cells.is_empty() {
                continue;
            }
            let header = cells.iter().all(|c| c.value().name() == "th");
            let texts = cells
                .iter()
                .map(|c| self.r.inline(*c).replace('|', "\\|"))
                .collect();
            rows.push((texts, header));
        }
        if rows.is_empty() {
            return;
        }
        let mut out = String::new();
        for (i, (cells, header)) in rows.iter().enumerate() {
            out.push_str("| ");
            out.push_str(&cells.join(" | "));
            out.push_str(" |\n");
            if i == 0 && *header {
                out.push('|');
                out.push_str(&vec!["---"; cells.len()].join("|"));
                out.push_str("|\n");
            }
        }
        self.push_block(out.trim_end().to_string(), false);
    }

    fn summary(&self, e: ElementRef<'_>) -> Option<String> {
        e.children()
            .filter_map(ElementRef::wrap)
            .find(|c| c.value().name() == "summary")
            .map(|s| clean_title(&s.text().collect::<String>()))
    }

    fn is_admonition(&self, e: ElementRef<'_>) -> bool {
        let v = e.value();
        v.classes().any(|c| {
            matches!(
                c,
                "admonition" | "theme-admonition" | "callout" | "alert" | "notices" | "note-box"
            ) || c.starts_with("admonition_")
        })
    }

    fn admonition_title(&self, e: ElementRef<'_>) -> Option<String> {
        let t = sel(".admonition-title, .theme-admonition-heading, [class*=admonitionHeading], .callout-title, summary");
        e.select(&t)
            .next()
            .map(|h| clean_title(&h.text().collect::<String>()))
            .filter(|s| !s.is_empty())
    }

    fn is_tabs(&self, e: ElementRef<'_>) -> bool {
        e.value()
            .has_class("tabbed-set", scraper::CaseSensitivity::AsciiCaseInsensitive)
            || e.value().has_class(
                "tabs-container",
                scraper::CaseSensitivity::AsciiCaseInsensitive,
            )
    }

    /// A tab set: each panel read with its label (pymdownx `tabbed`, Docusaurus tabs).
    fn tabs(&mut self, e: ElementRef<'_>) {
        self.flush();
        let labels: Vec<String> = e
            .select(&sel(".tabbed-labels > label, [role=tab]"))
            .map(|l| clean_title(&l.text().collect::<String>()))
            .collect();
        let blocks: Vec<ElementRef<'_>> = e
            .select(&sel(".tabbed-content > .tabbed-block, [role=tabpanel]"))
            .collect();
        if blocks.is_empty() {
            self.children(e);
            return;
        }
        for (i, b) in blocks.into_iter().enumerate() {
            self.unit_block(b, labels.get(i).cloned(), false);
        }
    }

    /// A block with a title: a skipped block, a correction, an exercise, a statement, or a plain
    /// block whose title is kept as a bold line.
    fn unit_block(&mut self, e: ElementRef<'_>, title: Option<String>, own_classes: bool) {
        self.flush();
        let st = &self.r.structure;
        let t = title.clone().unwrap_or_default();
        let classed = own_classes
            && e.value()
                .classes()
                .any(|c| st.exercise_classes.iter().any(|x| x == c));
        let inside = self.units.last().map(|u| (u.role, u.unit));
        let unit = if !t.is_empty() && st.skip.is_match(&t) {
            return;
        } else if !t.is_empty() && st.solution.is_match(&t) {
            let answers = match inside {
                Some((Role::Exercise, u)) => u,
                _ => self.last_exercise,
            };
            Some(Unit {
                role: Role::Solution,
                unit: Some(self.new_unit()),
                answers,
                label: title,
            })
        } else if (!t.is_empty() && st.statement.is_match(&t))
            && matches!(inside, Some((Role::Exercise, _)))
        {
            None
        } else if (!t.is_empty() && (st.exercise.is_match(&t) || st.statement.is_match(&t)))
            || classed
        {
            let u = self.new_unit();
            Some(Unit {
                role: Role::Exercise,
                unit: Some(u),
                answers: None,
                label: title,
            })
        } else {
            if !t.is_empty() {
                self.push_block(format!("**{t}**"), false);
            }
            None
        };
        match unit {
            Some(u) => {
                let exercise = (u.role == Role::Exercise).then_some(u.unit).flatten();
                self.units.push(u);
                self.dirty = true;
                self.children(e);
                self.flush();
                self.units.pop();
                self.dirty = true;
                if exercise.is_some() {
                    self.last_exercise = exercise;
                }
            }
            None => {
                self.children(e);
                self.flush();
            }
        }
    }

    fn new_unit(&mut self) -> usize {
        self.next_unit += 1;
        self.next_unit
    }
}

/// The text of a code block, every space kept, line numbers left out.
fn collect_code(e: ElementRef<'_>, out: &mut String) {
    for child in e.children() {
        match child.value() {
            Node::Text(t) => out.push_str(t),
            Node::Element(_) => {
                if let Some(c) = ElementRef::wrap(child) {
                    let skip = c
                        .value()
                        .classes()
                        .any(|k| matches!(k, "linenos" | "lineno" | "linenodiv"))
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
fn code_lang(e: ElementRef<'_>) -> Option<String> {
    let mut nodes: Vec<ElementRef<'_>> = e.select(&sel("code")).collect();
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
fn heading_anchor(e: ElementRef<'_>) -> Option<String> {
    if let Some(id) = e.value().attr("id").filter(|s| !s.is_empty()) {
        return Some(id.to_string());
    }
    for a in e.select(&sel("a[id], a[name], a[href^='#']")) {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn read(html: &str) -> PageText {
        Reader::new(&Structure::default()).read(html, &[], false)
    }

    #[test]
    fn navigation_is_left_out_and_code_keeps_its_indentation() {
        let p = read(
            r##"<html><head><title>T - Site</title></head><body><nav>Menu Accueil</nav>
            <article class="md-content__inner"><h1 id="t">4.3 Tri<a class="headerlink" href="#t">¶</a></h1>
            <p>Le <strong>tri</strong> par <code>insertion</code>.</p>
            <div class="highlight"><table class="highlighttable"><tr><td class="linenos"><div class="linenodiv"><pre>1
2</pre></div></td><td class="code"><div><pre><code><span class="k">def</span> f(x):
    <span>return</span> x
</code></pre></div></td></tr></table></div>
            <table><tr><th>a</th><th>b</th></tr><tr><td>1</td><td>x|y</td></tr></table>
            </article><footer>© 2024</footer></body></html>"##,
        );
        assert_eq!(p.title.as_deref(), Some("4.3 Tri"));
        let texts: Vec<&str> = p.blocks.iter().map(|b| b.text.as_str()).collect();
        assert_eq!(
            texts,
            vec![
                "Le **tri** par `insertion`.",
                "```\ndef f(x):\n    return x\n```",
                "| a | b |\n|---|---|\n| 1 | x\\|y |",
            ]
        );
        assert!(!texts
            .iter()
            .any(|t| t.contains("Menu") || t.contains("2024") || t.contains('¶')));
        assert_eq!(
            p.ctxs[p.blocks[0].ctx].headings[0].anchor.as_deref(),
            Some("t")
        );
    }

    #[test]
    fn docusaurus_and_hugo_pages_read_the_same_way() {
        // Docusaurus 3: content in .theme-doc-markdown, code lines as spans ended by <br>,
        // admonitions as .theme-admonition with a heading div, tabs as role=tabpanel.
        let p = read(
            r##"<html lang="en"><body><nav class="navbar">Docs Blog</nav><main><article>
            <nav class="theme-doc-breadcrumbs">Home › Loops</nav>
            <div class="theme-doc-markdown markdown"><h1>Loops</h1>
            <h2 class="anchor" id="while-loops">While loops<a href="#while-loops" class="hash-link">#</a></h2>
            <div class="language-python codeBlockContainer_x"><pre class="prism-code language-python"><code><span class="token-line"><span>while n &gt; 0:</span><br></span><span class="token-line"><span>    n -= 1</span><br></span></code></pre></div>
            <div class="theme-admonition theme-admonition-tip admonition_x alert alert--success"><div class="admonitionHeading_x">Exercise 2</div><div class="admonitionContent_x"><p>Count down from 10.</p></div></div>
            <div class="tabs-container"><ul role="tablist"><li role="tab">Statement</li><li role="tab">Solution</li></ul>
            <div role="tabpanel"><p>Sum 1..n.</p></div><div role="tabpanel"><p>n*(n+1)/2</p></div></div>
            </div></article></main><footer>© Docs</footer></body></html>"##,
        );
        assert_eq!(p.lang.as_deref(), Some("en"));
        let texts: Vec<&str> = p.blocks.iter().map(|b| b.text.as_str()).collect();
        assert!(
            texts.contains(&"```python\nwhile n > 0:\n    n -= 1\n```"),
            "{texts:?}"
        );
        assert!(
            !texts
                .iter()
                .any(|t| t.contains("Home") || t.contains("Docs Blog") || t.contains('#')),
            "{texts:?}"
        );
        let of = |t: &str| &p.ctxs[p.blocks.iter().find(|b| b.text.contains(t)).unwrap().ctx];
        assert_eq!(of("Count down").role, Role::Exercise);
        assert_eq!(of("Sum 1..n").role, Role::Exercise);
        assert_eq!(of("n*(n+1)/2").role, Role::Solution);
        assert_eq!(of("n*(n+1)/2").answers, of("Sum 1..n").unit);
        assert_eq!(
            of("while").headings.last().unwrap().anchor.as_deref(),
            Some("while-loops")
        );
        // Hugo (chroma): lines as spans with their own newlines.
        let h = read(
            r##"<html><body><header>Site</header><main><article class="markdown book-article"><h2 id="x">X</h2>
            <div class="highlight"><pre tabindex="0" class="chroma"><code class="language-python" data-lang="python"><span class="line"><span class="cl">def f():
</span></span><span class="line"><span class="cl">    return 1
</span></span></code></pre></div></article></main></body></html>"##,
        );
        assert_eq!(h.blocks[0].text, "```python\ndef f():\n    return 1\n```");
    }

    #[test]
    fn exercises_corrections_and_tabs_become_linked_units() {
        let p = read(
            r##"<article class="md-content__inner"><h2 id="s">Sujet 01</h2>
            <div class="admonition example"><p class="admonition-title">Exercice 1</p>
              <p>Écrire une fonction.</p>
              <details class="success"><summary>Correction</summary><pre><code>def f():
    pass</code></pre></details>
            </div>
            <div class="admonition example"><p class="admonition-title">Exercice 01.2</p>
              <div class="tabbed-set"><div class="tabbed-labels"><label>Énoncé</label><label>Correction</label><label>Source Markdown</label></div>
              <div class="tabbed-content"><div class="tabbed-block"><p>Compléter.</p></div>
              <div class="tabbed-block"><p>Réponse.</p></div><div class="tabbed-block"><p>copie</p></div></div></div>
            </div>
            <div class="admonition note"><p class="admonition-title">À retenir</p><p>Texte.</p></div></article>"##,
        );
        let of = |t: &str| &p.ctxs[p.blocks.iter().find(|b| b.text.contains(t)).unwrap().ctx];
        let ex = of("Écrire");
        assert_eq!(
            (ex.role, ex.label.as_deref()),
            (Role::Exercise, Some("Exercice 1"))
        );
        let sol = of("def f");
        assert_eq!(sol.role, Role::Solution);
        assert_eq!(sol.answers, ex.unit);
        let st = of("Compléter");
        assert_eq!(st.role, Role::Exercise);
        let ans = of("Réponse");
        assert_eq!((ans.role, ans.answers), (Role::Solution, st.unit));
        assert!(!p.blocks.iter().any(|b| b.text.contains("copie")));
        assert_eq!(of("Texte").role, Role::Prose);
        assert!(p.blocks.iter().any(|b| b.text == "**À retenir**"));
    }

    #[test]
    fn heading_rules_and_page_attributes_set_metadata_under_their_heading() {
        let rules: Vec<HeadingRule> = vec![(
            "paper",
            2,
            Regex::new(r"Sujet (\d+)").unwrap(),
            "sujet $1".into(),
        )];
        let p = Reader::new(&Structure::default()).read(
            r##"<meta name="chsr:level" content="terminale"><main><h2>▶ Sujet 07</h2><p>a</p>
            <section data-chsr-doc-type="syllabus"><p>b</p></section><h2>Annexe</h2><p>c</p></main>"##,
            &rules,
            true,
        );
        assert_eq!(p.meta, vec![("level".to_string(), "terminale".to_string())]);
        let ctx = |t: &str| &p.ctxs[p.blocks.iter().find(|b| b.text == t).unwrap().ctx];
        assert_eq!(
            ctx("a").heading_fields,
            vec![("paper", "sujet 07".to_string())]
        );
        assert_eq!(ctx("a").headings[0].anchor.as_deref(), Some("sujet-07"));
        assert_eq!(
            ctx("b").attr_fields,
            vec![("doc_type", "syllabus".to_string())]
        );
        assert!(ctx("c").heading_fields.is_empty());
    }
}
