//! `chsr index`: a course site (built HTML, or Markdown sources) in; chunks with curriculum
//! metadata, shards and a ready search bundle out.
//!
//! | module | role |
//! |---|---|
//! | [`config`] | `chsr.toml`: sources, scope values, rules reading metadata from paths and headings |
//! | [`html`] | built HTML → blocks with their headings, exercises and corrections (HTML5 parser) |
//! | [`charset`] | a page's bytes as text: UTF-8, or the charset it declares (Latin-1 pages) |
//! | [`markdown`] | Markdown with front matter → the same reader |
//! | [`docsify`] | a Docsify site: its Markdown files at Docsify's addresses |
//! | [`myst`] | MyST directives in Markdown sources (Jupyter Book): admonitions, exercises, tabs |
//! | [`hugo`] | Hugo's shortcodes in Markdown sources: blocks, code, or their text |
//! | [`translations`] | a multilingual Hugo site's languages: each page's, and where it is served |
//! | [`snippets`] | MkDocs snippets (`--8<--`): the files a Markdown source includes |
//! | [`templates`] | Liquid and Jinja template tags in Markdown sources, left out |
//! | [`macros`] | an MkDocs project's `mkdocs-macros` macros, run where they are simple enough |
//! | [`kramdown`] | Jekyll's classed blockquotes (`{: .challenge}`) as the exercises they are |
//! | [`duplicates`], [`copies`] | pages whose text other pages of their source hold, left out |
//! | [`pagefind`] | a site prepared for Pagefind: its `data-pagefind-body` and `-ignore` attributes |
//! | [`projects`] | a site generator's project given as a source (MkDocs, Hugo, Jekyll, Sphinx…): its built site, or its pages |
//! | [`chunk`] | blocks → chunk records (`chsr build`'s format) |
//! | [`urls`] | where a page is served: its URL path, its source's base URL |
//! | [`bundle`] | the self-contained folder: shards, Wasm package, client, element, search page |
//! | [`report`] | the build report, the chunks as JSONL, the interface language: a run's outputs |
//! | `run` | (native) the whole command: walks folders, reads files, writes the bundle |
//! | `wasm` | (wasm32, feature `indexer`) the same core for the npm package's Node entry point |
//!
//! The core is I/O-free and the same on every target: a page is given as (source, relative
//! path, bytes) to [`read_page`], where a source is served is given by the caller
//! ([`configured_url`], else [`relative_url_between`] the bundle and the source folder), and the
//! shards are made by [`crate::build`] exactly as for a JSONL corpus. Only walking folders
//! ([`run::list_pages`]), reading and writing files, threads (rayon) and progress bars are native;
//! the npm package's `bin/chsr.mjs` does those in Node and calls the core through Wasm, so both
//! write the same bytes.

pub mod anchors;
pub mod bundle;
pub mod charset;
pub mod chunk;
pub mod compact;
pub mod config;
pub mod copies;
pub mod docsify;
pub mod duplicates;
pub mod emoji;
#[cfg(test)]
mod fixtures;
pub mod forges;
pub mod html;
pub mod hugo;
pub mod kramdown;
pub mod lessons;
pub mod macros;
pub mod markdown;
pub mod mdbook;
pub mod mdx;
pub mod myst;
pub mod notebooks;
pub mod pagefind;
pub mod projects;
pub mod publishing;
pub mod report;
pub mod reveal;
#[cfg(not(target_arch = "wasm32"))]
pub mod run;
pub mod site_search;
pub mod sitenav;
pub mod snippets;
pub mod templates;
pub mod translations;
pub mod urls;
#[cfg(target_arch = "wasm32")]
pub mod wasm;

use crate::format::ChunkRecord;
use config::{Format, Rule, SectionBy, Source, ValueRule, RULE_FIELDS};
use publishing::Notebooks;
use std::cell::RefCell;
use std::collections::HashMap;
use std::fmt;
use std::path::Path;
use urls::markdown_stem;
#[cfg(not(target_arch = "wasm32"))]
pub use urls::{base_url, relative_url};
pub use urls::{configured_url, page_url_path, relative_url_between};
#[cfg(not(target_arch = "wasm32"))]
use {config::Config, rayon::prelude::*};

/// Errors of `chsr index`. Each names the file, key or page concerned; [`IndexError::code`] is
/// stable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IndexError {
    /// The configuration is invalid (`config`).
    Config {
        /// The configuration file (or `command line`).
        file: String,
        /// The key (`source[0].year.path`) or the line.
        key: String,
        /// What is wrong.
        message: String,
    },
    /// A file or folder could not be read or written (`io`).
    Io {
        /// The path.
        path: String,
        /// The system's message.
        message: String,
    },
    /// A source folder holds no page of its format (`no_pages`).
    NoPages {
        /// The folder.
        path: String,
        /// What was looked for.
        format: &'static str,
        /// What to check or use instead.
        hint: &'static str,
    },
    /// A page's chunks lack a subject, level or language (`unscoped`).
    Unscoped {
        /// The page (source folder and path).
        page: String,
        /// The missing fields.
        missing: Vec<&'static str>,
    },
    /// A page could not be read as its format (`page`).
    Page {
        /// The page.
        page: String,
        /// What is wrong.
        message: String,
    },
    /// Building the shards or the bundle failed (`build`).
    Build {
        /// What failed.
        message: String,
    },
    /// A source folder is a site generator's project whose site has not been built
    /// (`not_built`): its HTML files are templates.
    NotBuilt {
        /// The project folder.
        path: String,
        /// The generator (`Hugo`).
        generator: &'static str,
        /// The command that builds the site (`hugo`).
        build: &'static str,
        /// Where the built site goes, relative to the project (`public`).
        site_dir: String,
        /// Whether the project's pages are Markdown that `--markdown` reads.
        markdown: bool,
    },
    /// The command line does not say what to index, or mixes its ways of saying it (`usage`).
    Usage {
        /// What is wrong.
        message: String,
    },
}

impl IndexError {
    /// Stable code of the error kind.
    pub fn code(&self) -> &'static str {
        match self {
            IndexError::Config { .. } => "config",
            IndexError::Io { .. } => "io",
            IndexError::NoPages { .. } => "no_pages",
            IndexError::Unscoped { .. } => "unscoped",
            IndexError::Page { .. } => "page",
            IndexError::Build { .. } => "build",
            IndexError::NotBuilt { .. } => "not_built",
            IndexError::Usage { .. } => "usage",
        }
    }
}

impl fmt::Display for IndexError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IndexError::Config { file, key, message } if key.is_empty() => write!(f, "{file}: {message}"),
            IndexError::Config { file, key, message } => write!(f, "{file}: {key}: {message}"),
            IndexError::Io { path, message } => write!(f, "{path}: {message}"),
            IndexError::NoPages { path, format, hint } => {
                write!(f, "{path}: no {format} page found ({hint})")
            }
            IndexError::Unscoped { page, missing } => write!(
                f,
                "{page}: no {} for this page: set it for its source in the config, in a rule matching the page, or in the page (<meta name=\"chsr:{}\" content=\"…\"> or data-chsr-{} on its content); or pass --skip-unscoped to leave such pages out",
                missing.join(", "),
                missing[0],
                missing[0].replace('_', "-")
            ),
            IndexError::Page { page, message } => write!(f, "{page}: {message}"),
            IndexError::NotBuilt {
                path,
                generator,
                build,
                site_dir,
                markdown,
            } => {
                write!(f, "{path}: a site generator's project ({generator}), not a built site ({site_dir}/index.html not found): build it first (`{build}` in that folder), then index the site it writes, {path}/{site_dir}")?;
                if *markdown {
                    write!(f, "; or index its Markdown pages as they are, with --markdown or format = \"markdown\"")?;
                }
                Ok(())
            }
            IndexError::Build { message } | IndexError::Usage { message } => {
                write!(f, "{message}")
            }
        }
    }
}

impl std::error::Error for IndexError {}

/// What became of one page.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PageOutcome {
    /// The source's name.
    pub source: String,
    /// The page path within its source.
    pub path: String,
    /// Chunks made from it.
    pub chunks: usize,
    /// Why it was left out, if it was.
    pub skipped: Option<String>,
    /// Whether its section is the page for want of a chapter (`section_by` not set to `page` or
    /// `heading`): [`lessons::group`] may then give it its lesson folder's section.
    pub default_section: bool,
    /// Whether its content is marked with `data-pagefind-body` ([`pagefind`]).
    pub pagefind_body: bool,
    /// The site navigation's sections that hold it, outermost first (a built page's sidebar).
    pub nav_trail: Vec<String>,
    /// Whether the site's navigation lists it (its sidebar marks it, its generator's `nav`).
    pub listed: bool,
}

/// The chunks of every source and what happened to each page.
#[derive(Clone, Debug, Default)]
pub struct Indexed {
    /// Chunks, sources in config order, pages in path order.
    pub chunks: Vec<ChunkRecord>,
    /// One entry per page found.
    pub pages: Vec<PageOutcome>,
    /// Things the user should know (unknown meta fields, unreadable characters…).
    pub warnings: Vec<String>,
}

impl Indexed {
    /// Adds a page read by [`read_page`] (pages must come in source order, then path order).
    pub fn add(&mut self, page: PageRead) {
        let (outcome, chunks, warnings) = page;
        self.pages.push(outcome);
        self.chunks.extend(chunks);
        self.warnings.extend(warnings);
    }

    /// Each page's chunks, as a range of `chunks`: they come page by page, in the pages' order
    /// ([`Indexed::add`]).
    pub fn page_spans(&self) -> Vec<std::ops::Range<usize>> {
        let mut at = 0;
        self.pages
            .iter()
            .map(|p| {
                at += p.chunks;
                at - p.chunks..at
            })
            .collect()
    }

    /// Once every page is in: leaves out the pages Pagefind would not index
    /// ([`pagefind::only_marked_pages`]) and those that repeat another's text
    /// ([`duplicates::drop_duplicates`]) or hold it ([`copies::drop_copies`]), names pages that
    /// share a title by their navigation section ([`lessons::name_shared_titles`]), then gives
    /// lesson folders their section ([`lessons::group`]). Idempotent.
    pub fn settle(&mut self) {
        pagefind::only_marked_pages(self);
        duplicates::drop_duplicates(self);
        duplicates::drop_unlisted_copies(self);
        copies::drop_copies(self);
        lessons::name_shared_titles(self);
        lessons::group(self);
    }
}

/// Whether a file name is a folder's index page (`index.html`, `index.fr.md`, `README.md`):
/// the folder's own page.
pub fn index_file(name: &str) -> bool {
    let stem = name.split('.').next().unwrap_or(name);
    stem.eq_ignore_ascii_case("index") || stem.eq_ignore_ascii_case("readme")
}

/// File name endings of a source's pages (compared with the lowercased file name): its
/// format's, Jupyter notebooks where its generator renders them
/// ([`publishing::Publishing::notebooks`]) and MDX files where it reads them (`mdx`).
pub fn page_extensions(source: &Source) -> &'static [&'static str] {
    match source.format {
        Format::Html => &[".html", ".htm"],
        Format::Markdown if source.publishing.notebooks != Notebooks::Files => {
            &[".md", ".markdown", ".qmd", ".rmd", ".ipynb"]
        }
        Format::Markdown if source.publishing.mdx => &[".md", ".markdown", ".mdx"],
        Format::Markdown => &[".md", ".markdown", ".qmd", ".rmd"],
        Format::Docsify(_) => &[".md", ".markdown"],
    }
}

/// The error for a source whose path is not a folder.
pub fn not_a_folder(source: &Source) -> IndexError {
    IndexError::Io {
        path: source.path.display().to_string(),
        message: "not a folder (the path of a [[source]] is a folder of pages, relative to the config file)".into(),
    }
}

/// The pages of a source among the files listed with [`page_extensions`]: its notebooks left
/// out when they are pages only alone ([`Notebooks::Alone`]) and other pages were found; an
/// error when none is left ([`no_pages`]).
pub fn pages_found(source: &Source, mut pages: Vec<String>) -> Result<Vec<String>, IndexError> {
    let notebook = |p: &String| p.to_lowercase().ends_with(".ipynb");
    if source.publishing.notebooks == Notebooks::Alone && !pages.iter().all(notebook) {
        pages.retain(|p| !notebook(p));
    }
    if pages.is_empty() {
        return Err(no_pages(source));
    }
    Ok(pages)
}

/// The error for a source folder without a page of its format.
pub fn no_pages(source: &Source) -> IndexError {
    IndexError::NoPages {
        path: source.path.display().to_string(),
        format: match source.format {
            Format::Html => "HTML (*.html)",
            Format::Markdown => "Markdown (*.md)",
            Format::Docsify(_) => "Markdown (*.md) beside the Docsify index.html that shows them",
        },
        hint: match source.format {
            Format::Html => "is this the built site's output folder? for Markdown sources use format = \"markdown\" or --markdown",
            _ => "is this the folder of the course's Markdown files? for a built site use --site, or format = \"html\"",
        },
    }
}

/// A page read: what became of it, its chunks, and warnings.
pub type PageRead = (PageOutcome, Vec<ChunkRecord>, Vec<String>);

fn applies(rule: &Rule, path: &str) -> bool {
    rule.pages
        .as_ref()
        .map(|g| g.is_match(path))
        .unwrap_or(true)
}

/// Reads every page of every source into chunks, in parallel. `pages[i]` are source `i`'s pages
/// ([`run::list_pages`], listed once by the caller), `base_urls[i]` is where it is served (ending in `/`). Pages without subject, level or language are an error, or
/// left out with `skip_unscoped`. `progress` is called after each page.
#[cfg(not(target_arch = "wasm32"))]
pub fn read_sources(
    cfg: &Config,
    pages: &[Vec<String>],
    base_urls: &[String],
    skip_unscoped: bool,
    progress: &(dyn Fn(&str) + Sync),
) -> Result<Indexed, IndexError> {
    let mut all = Indexed::default();
    for (si, source) in cfg.sources.iter().enumerate() {
        let pages = &pages[si];
        let reader = html::Reader::new(&source.structure);
        let results: Vec<Result<PageRead, IndexError>> = pages
            .par_iter()
            .map(|rel| {
                let load = || {
                    std::fs::read(source.path.join(rel)).map_err(|e| IndexError::Io {
                        path: page_name(source, rel),
                        message: e.to_string(),
                    })
                };
                let include = |p: &Path| std::fs::read(p).ok().map(|b| charset::decode(b).0);
                let r = read_page(
                    source,
                    &reader,
                    &base_urls[si],
                    rel,
                    load,
                    &include,
                    skip_unscoped,
                );
                progress(rel);
                r
            })
            .collect();
        for r in results {
            all.add(r?);
        }
    }
    all.settle();
    Ok(all)
}

/// A page as messages name it: its source folder and its path.
pub fn page_name(source: &Source, rel: &str) -> String {
    format!("{}/{rel}", source.path.display())
}

/// Why a page is left out before it is read (the source's `exclude` globs, a rule with
/// `skip = true`, or the `404.html` at the root of a built site, which every generator writes for
/// GitHub Pages and which says nothing of the course, or at the root of one of its languages:
/// Docusaurus, Hugo and MkDocs write `fr/404.html` for each translation), if it is.
pub fn skip_reason(source: &Source, rel: &str) -> Option<&'static str> {
    if source.exclude.is_match(rel) {
        return Some("excluded by the source's exclude globs");
    }
    if source.format == Format::Html && (rel == "404.html" || translations::language_404(rel)) {
        return Some("the site's 404 page (a root 404.html is never indexed)");
    }
    if source.format == Format::Markdown {
        if let Some(why) = source.publishing.unpublished(rel) {
            return Some(why);
        }
    }
    if let Some(why) = source
        .publishing
        .not_searched(rel, source.format == Format::Html)
    {
        return Some(why);
    }
    if let Format::Docsify(shell) = &source.format {
        if docsify::partial(rel, shell) {
            return Some("a part of the Docsify site's pages (sidebar, navbar, cover page, or a _ file they embed)");
        }
    }
    let skip = std::iter::once(&source.base)
        .chain(source.rules.iter().filter(|r| applies(r, rel)))
        .any(|r| r.skip);
    skip.then_some("a rule with skip = true matches it")
}

/// `html` without its comments (`<!-- … -->`; an unclosed one runs to the end).
fn without_comments(html: &str) -> String {
    let mut out = String::with_capacity(html.len());
    let mut rest = html;
    while let Some(at) = rest.find("<!--") {
        out.push_str(&rest[..at]);
        rest = match rest[at + 4..].find("-->") {
            Some(end) => &rest[at + 4 + end + 3..],
            None => "",
        };
    }
    out.push_str(rest);
    out
}

/// Reads one page of a source into chunks (I/O-free): `base_url` is where the source is served
/// (ending in `/`), `rel` the page's path in the source, and `load` gives its bytes (called only
/// when the page is not left out by [`skip_reason`]); `include` reads a file a Markdown source
/// includes ([`included_paths`]). A page without subject, level or language is an
/// [`IndexError::Unscoped`], or left out with `skip_unscoped`.
pub fn read_page(
    source: &Source,
    reader: &html::Reader,
    base_url: &str,
    rel: &str,
    load: impl FnOnce() -> Result<Vec<u8>, IndexError>,
    include: &dyn Fn(&Path) -> Option<String>,
    skip_unscoped: bool,
) -> Result<PageRead, IndexError> {
    let page_name = page_name(source, rel);
    let mut outcome = PageOutcome {
        source: source.name.clone(),
        path: rel.to_string(),
        chunks: 0,
        skipped: None,
        default_section: false,
        pagefind_body: false,
        nav_trail: Vec::new(),
        listed: false,
    };
    let skip = |mut o: PageOutcome, why: String| {
        o.skipped = Some(why);
        Ok((o, Vec::new(), Vec::new()))
    };
    if let Some(why) = skip_reason(source, rel) {
        return skip(outcome, why.into());
    }
    let exists = |p: &str| include(&source.path.join(p)).is_some();
    let readme = (source.format == Format::Markdown)
        .then(|| source.publishing.by_an_index_page(rel, &exists))
        .flatten();
    if let Some(Err(why)) = readme {
        return skip(outcome, why.into());
    }
    let rules: Vec<&Rule> = std::iter::once(&source.base)
        .chain(source.rules.iter().filter(|r| applies(r, rel)))
        .collect();
    let bytes = load()?;
    let mut warnings = Vec::new();
    let (text, how) = charset::decode(bytes);
    warnings.extend(how.map(|how| format!("{page_name}: {how}")));
    let mut fields: Vec<(&'static str, String)> = Vec::new();
    let mut heading_rules = Vec::new();
    let (mut exercise_dt, mut solution_dt, mut section_by) = (None, None, None);
    for r in &rules {
        for (name, v) in &r.fields {
            match v {
                ValueRule::Heading {
                    level,
                    pattern,
                    template,
                } => heading_rules.push((*name, *level, pattern.clone(), template.clone())),
                _ => {
                    if let Some(val) = v.for_path(rel) {
                        fields.push((name, val));
                    }
                }
            }
        }
        exercise_dt = r.exercise_doc_type.clone().or(exercise_dt);
        solution_dt = r.solution_doc_type.clone().or(solution_dt);
        section_by = r.section_by.or(section_by);
    }
    let (page, mut front) = match &source.format {
        Format::Html => {
            let lower = text
                .get(..text.len().min(4096))
                .unwrap_or(&text)
                .to_ascii_lowercase();
            if text.trim().is_empty() {
                return skip(outcome, "an empty file".into());
            }
            // A bare `<meta http-equiv="refresh">` (Sphinx's and Jupyter Book's root page) is a
            // page too: the reader reports it as a redirect. What a comment says does not count:
            // the pydata Sphinx theme's `_static/webpack-macros.html`, a Jinja template in every
            // Jupyter Book built with it, names `<body>` in one.
            let markup = without_comments(&lower);
            if !markup.contains("<html")
                && !markup.contains("<body")
                && !markup.contains("<!doctype")
                && !markup.contains("http-equiv")
            {
                return skip(
                    outcome,
                    "not an HTML page (a template or a fragment)".into(),
                );
            }
            let text = reveal::markdown_slides(&text);
            let page = reader.read_at(&text, &heading_rules, false, base_url);
            (page, Vec::new())
        }
        markdown_like => {
            let converted;
            let lower = rel.to_ascii_lowercase();
            let text = if lower.ends_with(".ipynb") {
                converted = notebooks::markdown(&text).map_err(|m| IndexError::Page {
                    page: page_name.clone(),
                    message: m,
                })?;
                &converted
            } else if lower.ends_with(".mdx") || source.publishing.mdx {
                // Docusaurus reads its `.md` pages as MDX too.
                converted = mdx::markdown(&text);
                &converted
            } else {
                &text
            };
            let included;
            let text = if let Some(pages) = &source.publishing.mdbook_includes {
                // Paths from the book's root, which is `pages` above the source folder.
                let up = pages.split('/').filter(|c| !c.is_empty());
                let book = up.fold(source.path.clone(), |p, _| p.join(".."));
                let read = |p: &str| include(&book.join(p));
                let at = if pages.is_empty() {
                    rel.to_string()
                } else {
                    format!("{pages}/{rel}")
                };
                let mut missing = Vec::new();
                included = mdbook::includes(text, &at, &read, &mut missing);
                for name in missing {
                    warnings.push(format!("{page_name}: {name:?}, a file it includes ({{{{#include}}}}), was not found from the page's folder inside the book: left out"));
                }
                &included
            } else {
                text
            };
            // A file included twice on a page (a statement shown, then its source) is read once.
            let read_once = RefCell::new(HashMap::<String, Option<String>>::new());
            let file = |name: &str| {
                let mut seen = read_once.borrow_mut();
                let found = seen.entry(name.to_string()).or_insert_with(|| {
                    included_paths(source, rel, name)
                        .iter()
                        .find_map(|p| include(p))
                });
                found.clone()
            };
            let mut missing = Vec::new();
            let md = match markdown_like {
                Format::Docsify(_) => docsify::read(&docsify::embed(text, &file, &mut missing)),
                _ => {
                    // mkdocs-macros runs on the page as written, before the files it
                    // includes are read in.
                    // A notebook is no Markdown page to it, nor to Python-Markdown: its cells
                    // are read by nbconvert, as CommonMark.
                    let notebook = lower.ends_with(".ipynb");
                    let text = match &source.publishing.macros {
                        Some(m) if !notebook => std::borrow::Cow::Owned(m.render(text)),
                        _ => std::borrow::Cow::Borrowed(text),
                    };
                    let text = snippets::expand(&text, &file, &mut missing);
                    // Anchors as the site (or forge) that shows the page makes them.
                    let as_text = source.publishing.front_matter_as_text;
                    markdown::read_with(&text, as_text, |body| {
                        let mut slugs = anchors::Slugs::new(source.publishing.anchors);
                        let mut extensions = source.publishing.extensions;
                        extensions.python_markdown &= !notebook;
                        let anchor = &mut |t: &str, title_of: Option<&str>| {
                            let slug = slugs.slug(t);
                            (title_of.is_none_or(|k| source.publishing.title_anchored(k)))
                                .then_some(slug)
                        };
                        markdown::body_html_in(body, anchor, extensions)
                    })
                }
            };
            for name in missing {
                warnings.push(format!("{page_name}: {name:?}, a file it includes, was not found (looked for from the site's root and the page's folder, and for a snippet the MkDocs project's folder): left out"));
            }
            let mut md = md.map_err(|m| IndexError::Page {
                page: page_name.clone(),
                message: m,
            })?;
            if let Some(why) = md.unread_front.take() {
                warnings.push(format!(
                    "{page_name}: {why}: read as the page's text, as its generator shows it"
                ));
            }
            if let Some(why) = md
                .excluded
                .or_else(|| source.publishing.encrypted.why(&md.front))
            {
                return skip(outcome, why);
            }
            (reader.read(&md.html, &heading_rules, true), md.front)
        }
    };
    let mut page = page;
    if let Some(why) = page.skip.take() {
        return skip(outcome, why);
    }
    outcome.pagefind_body = page.pagefind_body;
    // A built page's sidebar places it; Markdown sources, their generator's navigation.
    let nav = (source.format != Format::Html).then_some(&source.publishing.nav);
    let pages_file = |p: &str| include(&source.path.join(p));
    if let Some(listed) = nav.and_then(|nav| sitenav::place(nav, rel, &pages_file)) {
        // MkDocs shows a page without a heading of its own under its navigation label.
        page.title = page.title.or(listed.label);
        page.nav_trail = listed.trail;
        page.listed = true;
    }
    // A Markdown page that nothing names is titled by its file's name, as MkDocs, Docusaurus
    // and the code forges show it (a translation's without its language: `test.fr.md`).
    if nav.is_some() {
        let named = (source.publishing.languages.as_ref()).map_or(rel.into(), |l| l.of(rel).1);
        page.title = page.title.or_else(|| sitenav::file_title(&named));
    }
    outcome.nav_trail = std::mem::take(&mut page.nav_trail);
    outcome.listed = page.listed;
    // After any address of its own, where its generator serves a README beside an index page.
    front.extend(
        readme
            .and_then(Result::ok)
            .map(|p| ("permalink".to_string(), p)),
    );
    // Page-level values: the page's language as a fallback, then meta tags / front matter.
    // A Docsify site's pages have the language of the page that shows them.
    // A multilingual Hugo site's, the language its file's name or folder says.
    let site_lang = match &source.format {
        Format::Docsify(shell) => shell.lang.as_deref(),
        Format::Markdown => source.publishing.page_lang(rel),
        _ => None,
    };
    if let Some(l) = page.lang.as_deref().or(site_lang) {
        fields.insert(0, ("lang", l.to_string()));
    }
    for (k, v) in page.meta.iter().chain(front.iter()) {
        let k = k.replace('-', "_");
        if k == "title" {
            page.title = Some(v.clone());
            continue;
        }
        match RULE_FIELDS.iter().find(|f| **f == k) {
            Some(f) => fields.push((f, v.trim().to_string())),
            None if source.format == Format::Html => warnings.push(format!(
                "{page_name}: unknown field chsr:{k} ignored; known: {}",
                RULE_FIELDS.join(", ")
            )),
            None => {}
        }
    }
    let key_path = match &source.format {
        Format::Html => rel
            .trim_end_matches("index.html")
            .trim_end_matches(".html")
            .trim_end_matches('/')
            .to_string(),
        Format::Markdown | Format::Docsify(_) => markdown_stem(rel).to_string(),
    };
    let key_path = if key_path.is_empty() {
        "index".to_string()
    } else {
        key_path
    };
    let meta = chunk::PageMeta {
        key: format!("{}:{key_path}", source.name),
        url: format!(
            "{base_url}{}",
            urls::page_url_path_with(rel, source, &front)
        ),
        fragment: match source.format {
            Format::Docsify(_) => "?id=",
            _ => "#",
        },
        path: rel.to_string(),
        fields,
        exercise_doc_type: exercise_dt.unwrap_or_else(|| "exercise".into()),
        solution_doc_type: solution_dt.unwrap_or_else(|| "solution".into()),
        section_by: section_by.unwrap_or(SectionBy::Chapter),
        source: source.name.clone(),
    };
    let chunks = chunk::chunks(&page, &meta);
    if chunks.is_empty() {
        return skip(outcome, "no text in its content".into());
    }
    let mut missing: Vec<&'static str> = Vec::new();
    for c in &chunks {
        for (name, v) in [
            ("subject", &c.subject),
            ("level", &c.level),
            ("lang", &c.lang),
        ] {
            if v.is_empty() && !missing.contains(&name) {
                missing.push(name);
            }
        }
    }
    if !missing.is_empty() {
        if skip_unscoped {
            return skip(
                outcome,
                format!("no {} (--skip-unscoped)", missing.join(", ")),
            );
        }
        return Err(IndexError::Unscoped {
            page: page_name,
            missing,
        });
    }
    outcome.chunks = chunks.len();
    outcome.default_section = meta.section_by == SectionBy::Chapter;
    Ok((outcome, chunks, warnings))
}

/// Where a file a page includes may be, in order. A snippet (`--8<-- "includes/enonce.md"`):
/// from the MkDocs project's folder (the source folder's parent: `pymdownx.snippets` reads from
/// where `mkdocs` runs, beside `docs/`), the source folder, the page's folder. A Docsify embed
/// (`[code](exo.py ':include')`): from the site's root, then the page's folder. A name that would
/// leave them (absolute, with `..`, or a URL) is never read.
pub fn included_paths(source: &Source, rel: &str, name: &str) -> Vec<std::path::PathBuf> {
    let outside = name.starts_with(['/', '\\'])
        || name.contains("://")
        || name.get(1..2) == Some(":")
        || name.split(['/', '\\']).any(|c| c == "..");
    if outside {
        return Vec::new();
    }
    let page_dir = rel.rsplit_once('/').map_or("", |(d, _)| d);
    let mut paths = vec![
        source.path.join(name),
        source.path.join(page_dir).join(name),
    ];
    if source.format == Format::Markdown {
        paths.insert(0, source.path.join("..").join(name));
    }
    paths
}
