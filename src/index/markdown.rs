//! Markdown sources → the same HTML reader as built sites.
//!
//! YAML front matter (between `---` lines), or Hugo's TOML (between `+++` lines), gives the
//! title and any metadata field (`subject`, `level`, `doc_type`, `chapter`, …, as in the JSONL
//! format); `search: {exclude: true}` (MkDocs Material), `draft: true`, `published: false`
//! (Jekyll), `build: {render: never}` (Hugo) or `chsr_ignore: true`
//! leave the page out. Hugo's shortcodes are read by [`super::hugo`]. MkDocs/Python-Markdown
//! admonitions (`!!! type "Title"`, collapsible `???`/`???+`), Docusaurus and VitePress
//! admonitions (`:::type Title` … `:::`), Pandoc's fenced divs (Quarto callouts, `::: {.exercise}`)
//! and content tabs (`=== "Label"`) become the blocks the HTML reader
//! knows; the rest is CommonMark with tables, math and GitHub's alerts (`> [!NOTE]`, read as
//! quotes) (`pulldown-cmark`). Headings get the slugs MkDocs would give them, so links open at
//! the section.

mod front;
mod raw_html;
mod tables;

use super::html::slug;
use front::front_matter;
use pulldown_cmark::{html, CowStr, Event, Options, Parser, Tag, TagEnd};
use regex::Regex;
use std::sync::LazyLock;

/// An attribute list after a link or an image (`[pdf](s.pdf){. target="_blank"}`), group 1 the
/// link.
static LINK_ATTRS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(\]\((?:[^()\n]|\([^()\n]*\))*\))\{[^{}\n]*\}").expect("valid regex")
});
/// A pymdownx.blocks block's first line: indentation (1), slashes (2), name (3), title (4).
static SLASH_BLOCK: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(\s*)(/{3,})\s*([A-Za-z][\w-]*)\s*(?:\|\s*(.*?))?\s*$").expect("valid regex")
});
/// A line that is only an attribute list (`{: .center }`, for the block before it).
static LINE_ATTRS: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\s*\{:[^{}]*\}\s*$").expect("valid regex"));
/// A heading's attribute list written `{: #id .class }`: heading (1), attributes (2).
static HEADING_ATTRS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(\s{0,3}#{1,6}\s.*?)\s*\{:\s*([^{}]*?)\s*\}\s*$").expect("valid regex")
});

/// A Markdown page: front-matter values and the HTML of its body.
#[derive(Debug, Default)]
pub struct MarkdownPage {
    /// `(key, value)` pairs of the front matter (scalars only, as strings).
    pub front: Vec<(String, String)>,
    /// Why the front matter excludes the page, if it does.
    pub excluded: Option<String>,
    /// The body as HTML.
    pub html: String,
    /// Why the page's front matter could not be read, when it was read as text instead
    /// ([`read_with`]).
    pub unread_front: Option<String>,
}

/// Rewrites admonitions and tabs into HTML blocks around Markdown (CommonMark reads the Markdown
/// between them because blank lines separate it from the tags). Code stays code.
fn blocks(md: &str, loose: bool) -> String {
    let lines: Vec<&str> = md.lines().collect();
    let mut out = String::new();
    let mut fences = Fences::default();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        let trimmed = line.trim_start();
        let indent = line.len() - trimmed.len();
        if fences.code(line) {
            out.push_str(line);
            out.push('\n');
            i += 1;
            continue;
        }
        let mk = ["!!!", "???+", "???", "==="]
            .iter()
            .find(|m| trimmed.starts_with(**m));
        if let Some(m) = mk {
            let head = trimmed[m.len()..].trim();
            let (kind, title) = match head.find('"') {
                Some(q) => (
                    head[..q].trim().to_string(),
                    head[q + 1..].trim_end().trim_end_matches('"').to_string(),
                ),
                None => (head.to_string(), String::new()),
            };
            // The body: the following lines indented deeper (blank lines included).
            let mut j = i + 1;
            let mut body = Vec::new();
            while j < lines.len() {
                let l = lines[j];
                let ind = l.len() - l.trim_start().len();
                if l.trim().is_empty() || ind > indent {
                    // (a line indented less than the body is read from its text: cut at a
                    // fixed width, it lost its first characters, or split one)
                    body.push(if ind >= indent + 4 {
                        &l[indent + 4..]
                    } else {
                        l.trim_start()
                    });
                    j += 1;
                } else {
                    break;
                }
            }
            let block = match *m {
                "===" => Block::Tab,
                "???" | "???+" => Block::Details,
                _ => Block::Admonition,
            };
            block.write(&mut out, indent, &kind, &title, &body.join("\n"), loose);
            i = j;
            continue;
        }
        if let Some(c) = COLON_FENCE.captures(line).filter(|c| !c[2].is_empty()) {
            // A Docusaurus or VitePress admonition (`:::tip Titre`, `::: details Titre`) or a
            // Pandoc fenced div (`::: {.callout-note title="Titre"}`), until the colon line that
            // closes it: fences opened inside it close first.
            let (block, kind, title) = colon_head(&c[2]);
            let (mut j, mut depth, mut inner) = (i + 1, 1, Fences::default());
            let mut body = Vec::new();
            while j < lines.len() {
                let l = lines[j];
                if !inner.code(l) {
                    match COLON_FENCE.captures(l) {
                        Some(c) if c[2].is_empty() => depth -= 1,
                        Some(_) => depth += 1,
                        None => {}
                    }
                }
                if depth == 0 {
                    break;
                }
                body.push(l);
                j += 1;
            }
            // A block without a title of its own is titled by the heading it opens with, as
            // Quarto's callouts and the Carpentries' Workbench (`::: challenge` then `## From
            // 1 to N`) show it; the heading heads nothing after the block. An admonition keeps
            // it, marked as its title, so that its anchor is where the block's results open.
            let opening = body.iter().position(|l| !l.trim().is_empty());
            let heading = opening.and_then(|o| super::kramdown::heading_text(body[o]));
            match (heading, opening) {
                (Some(h), Some(o)) if title.is_empty() && !matches!(block, Block::Plain) => {
                    if matches!(block, Block::Admonition) && !h.ends_with('}') {
                        let mut body: Vec<String> = body.iter().map(|l| l.to_string()).collect();
                        let kind_word: String = (kind.chars())
                            .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_'))
                            .collect();
                        body[o] = format!(
                            "{} {{.admonition-title {TITLE_OF}={kind_word}}}",
                            body[o].trim_end()
                        );
                        Block::write_headed(&mut out, indent, &kind, &body.join("\n"), loose);
                    } else {
                        block.write(
                            &mut out,
                            indent,
                            &kind,
                            &h,
                            &body[o + 1..].join("\n"),
                            loose,
                        );
                    }
                }
                _ => block.write(&mut out, indent, &kind, &title, &body.join("\n"), loose),
            }
            i = j + 1;
            continue;
        }
        if let Some(c) = SLASH_BLOCK.captures(line) {
            // pymdownx.blocks: `/// name | title`, options indented under it, the body, then
            // the same slashes alone on a line.
            let slashes = &c[2];
            let name = c[3].to_ascii_lowercase();
            let title = c.get(4).map_or("", |t| t.as_str()).trim().to_string();
            let mut j = i + 1;
            let mut kind = None;
            while j < lines.len() && lines[j].len() - lines[j].trim_start().len() >= indent + 4 {
                if let Some(v) = lines[j].trim().strip_prefix("type:") {
                    kind = Some(v.trim().trim_matches(['"', '\'']).to_string());
                }
                j += 1;
            }
            let mut body = Vec::new();
            while j < lines.len() && lines[j].trim() != slashes {
                body.push(lines[j]);
                j += 1;
            }
            let (block, kind) = match name.as_str() {
                "tab" => (Block::Tab, String::new()),
                "details" => (Block::Details, kind.unwrap_or_else(|| "note".into())),
                "admonition" => (Block::Admonition, kind.unwrap_or_else(|| "note".into())),
                "html" | "caption" | "figure-caption" | "table-caption" | "define"
                | "definition" => (Block::Plain, String::new()),
                other => (Block::Admonition, other.to_string()),
            };
            block.write(&mut out, indent, &kind, &title, &body.join("\n"), loose);
            i = j + 1;
            continue;
        }
        // Python-Markdown reads `#Titre` (or `#` then a no-break space) as a heading.
        match loose_heading(line) {
            Some(heading) if loose && indent < 4 => out.push_str(&heading),
            _ => out.push_str(line),
        }
        out.push('\n');
        i += 1;
    }
    out
}

/// A line that Python-Markdown reads as a heading and CommonMark does not (no space after its
/// `#`s, or a no-break space), as CommonMark reads it as one.
fn loose_heading(line: &str) -> Option<String> {
    let t = line.trim_start();
    let hashes = t.bytes().take_while(|b| *b == b'#').count();
    let rest = &t[hashes..];
    let first = rest.chars().next()?;
    if !(1..=6).contains(&hashes) || first == ' ' || first == '\t' {
        return None;
    }
    let rest = rest.trim_start_matches('\u{a0}');
    (!rest.trim().is_empty())
        .then(|| format!("{}{} {rest}", &line[..line.len() - t.len()], &t[..hashes]))
}

/// A line of three or more colons (1) and what follows them (2): a block opens when (2) is not
/// empty, and closes when it is.
static COLON_FENCE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\s*(:{3,})\s*(.*?)\s*$").expect("valid regex"));

/// One argument: `key="value"`, `key=value`, `"value"` or `value` (quoted with `'` or `` ` ``
/// too).
static ARG: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"(?:([\w-]+)=)?(?:"([^"]*)"|'([^']*)'|`([^`]*)`|([^\s"'`]+))"#)
        .expect("valid regex")
});

/// The arguments of a Hugo shortcode or the attributes of a Pandoc div (`.callout-tip
/// title="Exercice 1"`): named ones (keys lowercased) and, in order, the others.
pub(super) fn arguments(s: &str) -> (Vec<(String, String)>, Vec<String>) {
    let (mut named, mut positional) = (Vec::new(), Vec::new());
    for c in ARG.captures_iter(s) {
        let v = (2..=5)
            .find_map(|i| c.get(i))
            .map_or("", |m| m.as_str())
            .to_string();
        match c.get(1) {
            Some(k) => named.push((k.as_str().to_ascii_lowercase(), v)),
            None => positional.push(v),
        }
    }
    (named, positional)
}

/// The first lines and the last of a `pymdownx.blocks` block, which [`blocks`] reads back: `name`
/// (`admonition`, `details`, `tab`) titled `title`, of kind `kind` (none when empty), indented by
/// `pad` and nested `depth` blocks deep (a slash more a level). Hugo's shortcodes and MyST's
/// directives are written this way.
pub(super) fn slash_block(
    pad: &str,
    depth: usize,
    name: &str,
    title: &str,
    kind: &str,
) -> (String, String) {
    let slashes = format!("{pad}{}", "/".repeat(3 + depth));
    let mut start = format!("{slashes} {name} | {title}");
    if !kind.is_empty() {
        start.push_str(&format!("\n{pad}    type: {kind}"));
    }
    (start, slashes)
}

/// Pandoc divs that lay out their content (columns, tab sets, what a format shows or hides,
/// speaker notes): their text as it is.
const LAYOUT_DIVS: &[&str] = &[
    "columns",
    "column",
    "panel-tabset",
    "panel-sidebar",
    "panel-fill",
    "panel-center",
    "panel-input",
    "content-visible",
    "content-hidden",
    "cell",
    "cell-output",
    "figure",
    "center",
    "incremental",
    "nonincremental",
    "notes",
    "aside",
    "fragment",
    "r-stack",
    "layout",
    "border",
    "hidden",
];

/// What a colon block's head says: the block, its kind and its title. `{.callout-tip
/// title="Exercice 2"}` (Quarto) is an admonition `tip` titled "Exercice 2", `{#exr-1 .exercise}`
/// an admonition `exercise`, `tip Titre` or `tip[Titre]` (Docusaurus) an admonition `tip`,
/// `details Titre` (VitePress) a collapsible block; a layout div is its text alone.
fn colon_head(head: &str) -> (Block, String, String) {
    let (kind, title) = match head.strip_prefix('{') {
        Some(attrs) => {
            let (named, others) = arguments(attrs.rsplit_once('}').map_or(attrs, |(a, _)| a));
            let class = others
                .iter()
                .find_map(|t| t.strip_prefix('.'))
                .unwrap_or("");
            let title = named
                .iter()
                .find(|(k, _)| k == "title")
                .map_or("", |(_, v)| v);
            (class.to_string(), title.to_string())
        }
        None => match head
            .split_once('[')
            .filter(|(k, _)| !k.contains(char::is_whitespace))
        {
            Some((k, t)) => (
                k.to_string(),
                t.rsplit_once(']').map_or(t, |(t, _)| t).into(),
            ),
            None => {
                let (word, rest) = head.split_once(char::is_whitespace).unwrap_or((head, ""));
                (word.to_string(), rest.trim().to_string())
            }
        },
    };
    let kind = kind
        .strip_prefix("callout-")
        .unwrap_or(&kind)
        .to_ascii_lowercase();
    let block = if kind.is_empty() || LAYOUT_DIVS.contains(&kind.as_str()) {
        Block::Plain
    } else if kind == "details" {
        Block::Details
    } else {
        Block::Admonition
    };
    (block, kind, title)
}

/// A titled block of Markdown sources, as the HTML reader knows it from built sites.
#[derive(Clone, Copy)]
enum Block {
    /// A content tab (`=== "Title"`, `/// tab | Title`).
    Tab,
    /// A collapsible block (`??? kind "Title"`, `/// details | Title`).
    Details,
    /// An admonition (`!!! kind "Title"`, `:::kind Title`, `/// kind | Title`).
    Admonition,
    /// A block with no title of its own (`/// html`, `/// caption`): its Markdown as it is.
    Plain,
}

impl Block {
    /// Writes an admonition titled by the heading `body` opens with, which says so
    /// (`{.admonition-title}`).
    fn write_headed(out: &mut String, indent: usize, kind: &str, body: &str, loose: bool) {
        let pad = " ".repeat(indent);
        let inner = nested(body, loose);
        let kind = escape(kind);
        out.push_str(&format!(
            "\n{pad}<div class=\"admonition {kind}\">\n\n{inner}\n\n{pad}</div>\n\n"
        ));
    }

    /// Writes the block around `body` (its Markdown, read the same way), indented by `indent`
    /// spaces.
    fn write(
        self,
        out: &mut String,
        indent: usize,
        kind: &str,
        title: &str,
        body: &str,
        loose: bool,
    ) {
        let pad = " ".repeat(indent);
        let inner = nested(body, loose);
        let inline = match self {
            Block::Tab => escape(title),
            _ => inline_html(title),
        };
        let (kind, title) = (escape(kind), inline);
        let title = if title.is_empty() { &kind } else { &title };
        let block = match self {
            Block::Tab => format!("{pad}<div data-chsr-tab=\"{title}\">\n\n{inner}\n\n{pad}</div>"),
            Block::Details => format!(
                "{pad}<details class=\"{kind}\">\n{pad}<summary>{title}</summary>\n\n{inner}\n\n{pad}</details>"
            ),
            Block::Admonition => format!(
                "{pad}<div class=\"admonition {kind}\">\n{pad}<p class=\"admonition-title\">{title}</p>\n\n{inner}\n\n{pad}</div>"
            ),
            Block::Plain => inner,
        };
        out.push('\n');
        out.push_str(&block);
        out.push_str("\n\n");
    }
}

/// A block's body read as Markdown of its own, code fences closed; by Python-Markdown
/// (`loose`), its HTML tags as markup ([`raw_html::nested_body`]).
fn nested(body: &str, loose: bool) -> String {
    match loose {
        true => closed(blocks(&raw_html::nested_body(body), loose)),
        false => closed(blocks(body, loose)),
    }
}

/// `md` with Python-Markdown's attribute lists (`attr_list`, in every MkDocs Material site) out
/// of its text, outside code blocks: after a link or an image, on a line of their own, and a
/// heading's `{: #id }` made the `{#id}` CommonMark's heading attributes read. kramdown's table
/// of contents placeholder (`* TOC` then `{:toc}`, which Jekyll replaces by the page's headings)
/// is left out with its list item.
fn attr_lists(md: &str) -> String {
    static TOC: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"^\s*\{:\s*toc\s*\}\s*$").expect("valid regex"));
    static ITEM: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"^\s*([*+-]|\d+\.)\s+\S").expect("valid regex"));
    let mut out = String::with_capacity(md.len());
    let mut fences = Fences::default();
    for line in md.lines() {
        if fences.code(line) {
            out.push_str(line);
        } else if LINE_ATTRS.is_match(line) {
            if TOC.is_match(line) {
                let kept = out.trim_end_matches('\n').len();
                let start = out[..kept].rfind('\n').map_or(0, |i| i + 1);
                if ITEM.is_match(&out[start..kept]) {
                    out.truncate(start);
                }
            }
            continue;
        } else {
            let line = HEADING_ATTRS.replace(line, "$1 {$2}");
            out.push_str(&LINK_ATTRS.replace_all(&line, "$1"));
        }
        out.push('\n');
    }
    out
}

/// `md` with a code fence it leaves open closed at its end. An admonition's or a tab's body
/// ends where its indentation does, fences included (Python-Markdown reads it so); CommonMark
/// between HTML tags would let an open fence run on to the end of the page. (A snippet of
/// Markdown pasted inside a fenced block, as a "Source Markdown" tab shows a statement, closes
/// the fence early and leaves the last one open.)
fn closed(md: String) -> String {
    let mut fences = Fences::default();
    for line in md.lines() {
        // Indented four spaces or more, a fence line is code, never a fence.
        if line.len() - line.trim_start().len() <= 3 {
            fences.code(line);
        }
    }
    match fences.closing() {
        Some(f) => format!("{md}\n{f}\n"),
        None => md,
    }
}

/// Code fences met line by line, by CommonMark's rules but indentation: ```` ``` ```` or `~~~`
/// (three or more) opens one, unless a backtick follows a backtick fence (then the line is inline
/// code: ```` ```ls``` ````), and a bare fence of the same character, as long or longer, closes it,
/// as does a line indented less than the fence (the admonition, tab or list item that held it
/// has ended: Python-Markdown's blocks end with their indentation).
#[derive(Default)]
pub(super) struct Fences(Option<(char, usize, usize)>);

impl Fences {
    /// Reads the next line: whether it is code (a fence line, or inside a fence).
    pub(super) fn code(&mut self, line: &str) -> bool {
        let t = line.trim_start();
        let indent = line.len() - t.len();
        if matches!(self.0, Some((_, _, at)) if indent < at && !t.is_empty()) {
            self.0 = None;
        }
        let fence = t
            .chars()
            .next()
            .filter(|c| *c == '`' || *c == '~')
            .and_then(|c| {
                let n = t.chars().take_while(|x| *x == c).count();
                let rest = &t[n..];
                (n >= 3 && !(c == '`' && rest.contains('`'))).then_some((
                    c,
                    n,
                    rest.trim().is_empty(),
                ))
            });
        match (self.0, fence) {
            (Some((open, len, _)), Some((c, n, true))) if c == open && n >= len => {
                self.0 = None;
                true
            }
            (Some(_), _) => true,
            (None, Some((c, n, _))) => {
                self.0 = Some((c, n, indent));
                true
            }
            (None, None) => false,
        }
    }

    /// The line that closes the fence left open, if one is.
    pub(super) fn closing(&self) -> Option<String> {
        self.0.map(|(c, n, _)| c.to_string().repeat(n))
    }
}

/// A block's title as Python-Markdown shows it: its inline Markdown read (`**NP**`, `` `Arbre` ``,
/// `<i id="ex1"></i>`), as an admonition's or a collapsible block's title is; escaped text when
/// it would read as more than one paragraph (`1. Listes` is no list there).
fn inline_html(title: &str) -> String {
    let mut out = String::new();
    html::push_html(
        &mut out,
        Parser::new_ext(title, Options::ENABLE_STRIKETHROUGH),
    );
    let inner = out
        .trim()
        .strip_prefix("<p>")
        .and_then(|t| t.strip_suffix("</p>"));
    match inner {
        Some(t) if !t.contains("<p>") => t.to_string(),
        _ => escape(title),
    }
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// `text` without the front matter it starts with, if it does (an embedded file's).
pub fn without_front_matter(text: &str) -> &str {
    match front_matter(text) {
        Ok((_, _, body)) => body,
        Err(_) => text,
    }
}

/// Reads a Markdown page.
pub fn read(text: &str) -> Result<MarkdownPage, String> {
    read_as(text, body_html)
}

/// Reads a page whose body (after the front matter) `html` renders.
pub fn read_as(text: &str, html: impl FnOnce(&str) -> String) -> Result<MarkdownPage, String> {
    read_with(text, false, html)
}

/// Reads a page whose body `html` renders; a front matter that cannot be read is an error, or,
/// with `front_as_text`, part of the body (as MkDocs reads it), the reason kept in
/// [`MarkdownPage::unread_front`].
pub fn read_with(
    text: &str,
    front_as_text: bool,
    html: impl FnOnce(&str) -> String,
) -> Result<MarkdownPage, String> {
    let (front, excluded, body, unread_front) = match front_matter(text) {
        Ok((front, excluded, body)) => (front, excluded, body, None),
        Err(why) if front_as_text => {
            let body = text.strip_prefix('\u{feff}').unwrap_or(text);
            (Vec::new(), None, body, Some(why))
        }
        Err(why) => return Err(why),
    };
    Ok(MarkdownPage {
        front,
        excluded,
        unread_front,
        html: format!(
            "<html><body><main data-chsr-body>{}</main></body></html>",
            html(body)
        ),
    })
}

/// The attribute that marks the heading a block opens with, which titles it, with the block's
/// kind ([`body_html_with`]).
const TITLE_OF: &str = "data-chsr-title-of";

/// The HTML of a Markdown text without front matter (the admonitions, tabs and heading slugs
/// of [`read`]), as a fragment.
pub fn body_html(body: &str) -> String {
    body_html_with(body, &mut |t, _| Some(slug(t)))
}

/// [`body_html`] with the headings' anchors (those without an explicit `{#id}`) made by `slug`
/// from their text, in order; `slug` is also told, for the heading that opens and titles a
/// block, the block's kind, and gives no anchor where the generator keeps none
/// ([`super::publishing::Publishing::title_anchored`]).
pub fn body_html_with(
    body: &str,
    slug: &mut dyn FnMut(&str, Option<&str>) -> Option<String>,
) -> String {
    body_html_in(body, slug, Extensions::default())
}

/// Python-Markdown extensions of an MkDocs project that change what its pages' text says.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Extensions {
    /// `pymdownx.emoji`: shortcodes (`:heart:`) are icons, no words
    /// ([`super::emoji::emoji_free`]).
    pub emoji: bool,
    /// `pymdownx.inlinehilite`: `` `#!python for x in t` `` is the code `for x in t`,
    /// highlighted as Python ([`inline_code`]).
    pub inline_hilite: bool,
    /// Python-Markdown itself (every MkDocs project): a heading's `#`s need no space after
    /// them (`#Exercices`, `####\u{a0}B.2.3`), as CommonMark's do, and a code fence opens a
    /// code block under a line of raw HTML too ([`raw_html::as_python_markdown`]).
    pub python_markdown: bool,
    /// `md_in_html`: an element marked `markdown="1"` holds Markdown, on the lines right under
    /// its tag too ([`raw_html::as_python_markdown`]).
    pub md_in_html: bool,
}

/// Inline code as `pymdownx.inlinehilite` shows it: without the language it names first
/// (`#!python x = 1`, `:::css p {}`).
pub fn inline_code(code: &str) -> &str {
    fn named(rest: &str) -> Option<&str> {
        let (lang, code) = rest.split_once(' ')?;
        let ok = !lang.is_empty()
            && lang
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "+-_#.".contains(c));
        ok.then_some(code)
    }
    let rest = code.strip_prefix("#!").or_else(|| code.strip_prefix(":::"));
    rest.and_then(named).unwrap_or(code)
}

/// [`body_html_with`], the page's text as the project's `extensions` show it.
pub fn body_html_in(
    body: &str,
    slug: &mut dyn FnMut(&str, Option<&str>) -> Option<String>,
    extensions: Extensions,
) -> String {
    let body = match extensions.python_markdown {
        true => raw_html::normalized_whitespace(body),
        false => std::borrow::Cow::Borrowed(body),
    };
    let body = match extensions.emoji {
        true => std::borrow::Cow::Owned(super::emoji::emoji_free(&body)),
        false => body,
    };
    let md = super::templates::strip(&super::hugo::shortcodes(&body));
    let md = super::templates::link_addresses(&md);
    let md = super::myst::directives(&md);
    let md = tables::delimiter_rows_without_tabs(&md);
    let md = match extensions.python_markdown {
        true => raw_html::as_python_markdown(&md, extensions.md_in_html),
        false => std::borrow::Cow::Borrowed(md.as_ref()),
    };
    let md = blocks(
        &attr_lists(&super::kramdown::quoted_blocks(&md)),
        extensions.python_markdown,
    );
    let opts = Options::ENABLE_TABLES
        | Options::ENABLE_HEADING_ATTRIBUTES
        | Options::ENABLE_MATH
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_FOOTNOTES
        | Options::ENABLE_GFM;
    // Headings get `slug`'s anchors unless they carry an explicit `{#id}`.
    let events: Vec<Event<'_>> = Parser::new_ext(&md, opts)
        .map(|e| match e {
            Event::Code(c) if extensions.inline_hilite => match inline_code(&c) {
                shown if shown.len() < c.len() => Event::Code(CowStr::from(shown.to_string())),
                _ => Event::Code(c),
            },
            e => e,
        })
        .collect();
    let mut out_events = Vec::with_capacity(events.len());
    let mut i = 0;
    while i < events.len() {
        if let Event::Start(Tag::Heading {
            level,
            id: None,
            classes,
            attrs,
        }) = &events[i]
        {
            let mut text = String::new();
            let mut j = i + 1;
            // The heading's whole text, its emphasis and links included.
            while j < events.len() && !matches!(events[j], Event::End(TagEnd::Heading(_))) {
                if let Event::Text(t) | Event::Code(t) = &events[j] {
                    text.push_str(t);
                }
                j += 1;
            }
            let title_of = attrs.iter().find(|(k, _)| k.as_ref() == TITLE_OF);
            let title_of = title_of.map(|(_, kind)| kind.as_deref().unwrap_or(""));
            out_events.push(Event::Start(Tag::Heading {
                level: *level,
                id: slug(&text, title_of).map(CowStr::from),
                classes: classes.clone(),
                attrs: (attrs.iter())
                    .filter(|(k, _)| k.as_ref() != TITLE_OF)
                    .cloned()
                    .collect(),
            }));
        } else {
            out_events.push(events[i].clone());
        }
        i += 1;
    }
    let mut html_out = String::new();
    html::push_html(&mut html_out, out_events.into_iter());
    html_out
}

#[cfg(test)]
mod tests;
