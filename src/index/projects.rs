//! Site generators' project folders. A folder that holds a generator's configuration
//! (`mkdocs.yml`, `hugo.toml`, `_config.yml`, `book.toml`, `conf.py`, …) is a project, not a
//! site: its HTML files are the theme's templates, its Markdown files the pages before they are
//! built. Given as a built site (`--site`, an HTML source), what is read is the site the project
//! builds (MkDocs' `site_dir`, Hugo's `public/`, Jekyll's `_site/`, Sphinx's `_build/html/`, …),
//! and when that has not been built yet the error says how to build it; given as Markdown sources
//! (`--markdown`), the folder of its pages when the generator keeps them apart (MkDocs'
//! `docs_dir`, Hugo's `content/`, mdBook's `src/`, Docusaurus' `docs/`): the project's own
//! `README.md`, the files its pages include and its theme's templates are not pages. MkDocs
//! snippets are then looked for from the project's folder, as MkDocs does
//! ([`super::included_paths`]).
//!
//! Each generator is recognised by its configuration file alone, read with the caller's `read`
//! (the core stays I/O-free). A folder whose root page is a built page (an `index.html` that is
//! not a Jekyll template with front matter) is a built site whatever else it holds: a published
//! branch may keep a `_config.yml` for GitHub Pages.

use super::anchors::Anchors;
use super::config::{Config, Format, PageUrls};
use super::forges;
use super::macros::Macros;
use super::mdbook;
use super::publishing::{
    Encrypted, FrontUrls, Jekyll, Notebooks, Patterns, Publishing, Quarto, Unsearched,
};
use super::site_search::SiteSearch;
use super::sitenav::{mkdocs_nav, PagesFiles, SiteNav};
use super::translations;
use super::IndexError;
use std::path::Path;

/// A generator's project: where it writes its site and keeps its pages.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Project {
    /// The generator's name (`MkDocs`, `Hugo`, …).
    pub generator: &'static str,
    /// The command that builds the site.
    pub build: &'static str,
    /// Where the built site is, relative to the project folder (`site`, `public`, `_build/html`).
    pub site_dir: String,
    /// Where its Markdown pages are, when apart from the project's other files (`docs`,
    /// `content`, `src`); `None`: the folder itself, or pages that are not Markdown.
    pub pages_dir: Option<String>,
    /// Whether its pages are Markdown files that `--markdown` reads.
    pub markdown: bool,
    /// How it publishes its Markdown pages. Its `output` folders (the first folder of
    /// `site_dir`, and more) apply when its pages are in the project's own folder.
    pub publishing: Publishing,
}

/// The value of a top-level key in a configuration file read line by line (YAML `key: value` or
/// TOML `key = value`, the key compared without case as Hugo does; a trailing comment and quotes
/// removed). Line by line because real files hold what a strict reader refuses (`!!python/name:`
/// tags in `mkdocs.yml`).
pub(super) fn key(text: &str, name: &str) -> Option<String> {
    keyed(text, name, false)
}

/// [`key`] at any indentation (Quarto's `project:` → `output-dir:`).
fn nested_key(text: &str, name: &str) -> Option<String> {
    keyed(text, name, true)
}

fn keyed(text: &str, name: &str, nested: bool) -> Option<String> {
    text.lines().find_map(|l| {
        let l = if nested { l.trim_start() } else { l };
        let rest = l.get(..name.len())?;
        if !rest.eq_ignore_ascii_case(name) {
            return None;
        }
        let v = l[name.len()..].trim_start();
        let v = v.strip_prefix(':').or_else(|| v.strip_prefix('='))?;
        let v = v.split(" #").next().unwrap_or(v).trim();
        let v = v.trim_matches(['"', '\'']).trim_end_matches('/');
        (!v.is_empty()).then(|| v.to_string())
    })
}

impl Project {
    /// A generator's project whose site is in `site_dir`, its Markdown pages in its own folder,
    /// served at `page.html`.
    fn new(generator: &'static str, build: &'static str, site_dir: String) -> Project {
        let output = site_dir.split('/').next().unwrap_or_default().to_string();
        Project {
            generator,
            build,
            site_dir,
            pages_dir: None,
            markdown: true,
            publishing: Publishing {
                urls: PageUrls::Html,
                anchors: Anchors::GitHub,
                output: vec![output],
                ..Publishing::default()
            },
        }
    }

    /// Its publishing changed by `f`.
    fn with(mut self, f: impl FnOnce(&mut Publishing)) -> Project {
        f(&mut self.publishing);
        self
    }

    /// Its headings' anchors made as `anchors` says (GitHub's by default: Hugo, Docusaurus,
    /// Jekyll's GFM, mdBook; mystmd, whose own rule is unchecked).
    fn anchors(self, anchors: Anchors) -> Project {
        self.with(|p| p.anchors = anchors)
    }

    /// Its Jupyter notebooks rendered as pages.
    fn notebooks(self) -> Project {
        self.with(|p| p.notebooks = Notebooks::Pages)
    }

    /// Its Markdown pages in a folder of their own.
    fn pages(self, dir: String) -> Project {
        Project {
            pages_dir: Some(dir),
            ..self
        }
    }

    /// A page served at its folder (`page/`).
    fn folder_urls(self) -> Project {
        self.with(|p| p.urls = PageUrls::Folders)
    }
}

/// The project a folder is, from the configuration files `read` finds in it (`read("mkdocs.yml")`:
/// the file's text, `None` when absent), or `None` for a folder that is no project.
pub fn detect(read: &dyn Fn(&str) -> Option<String>) -> Option<Project> {
    let first = |names: &[&str]| names.iter().find_map(|n| read(n));
    let or = |v: Option<String>, default: &str| v.unwrap_or_else(|| default.into());
    if let Some(y) = first(&["mkdocs.yml", "mkdocs.yaml"]) {
        let site = or(key(&y, "site_dir"), "site");
        let docs = or(key(&y, "docs_dir"), "docs");
        // What its build leaves out: `/templates/` always, then its own patterns.
        let mut excluded = vec!["/templates/".to_string()];
        excluded.extend(yaml_lines(&y, "exclude_docs"));
        excluded.extend(yaml_lines(&y, "draft_docs"));
        // An extension or plugin it names on a line that is not a comment.
        let on =
            |name: &str| (y.lines()).any(|l| !l.trim_start().starts_with('#') && l.contains(name));
        let mkdocs = Project::new("MkDocs", "mkdocs build", site)
            .pages(docs)
            .anchors(Anchors::MkDocs)
            .with(|p| p.excluded = Patterns::gitignore(&excluded))
            .with(|p| p.front_matter_as_text = true)
            .with(|p| {
                p.extensions.emoji = on("pymdownx.emoji");
                p.extensions.inline_hilite = on("pymdownx.inlinehilite");
                p.extensions.python_markdown = true;
                p.extensions.md_in_html = on("md_in_html");
                p.encrypted = match (on("encryptcontent"), on("global_password")) {
                    (true, true) => Encrypted::All,
                    (true, false) => Encrypted::Marked,
                    _ => Encrypted::None,
                };
            })
            .with(|p| {
                // mkdocs-macros' module (`module_name`, `main.py` by default).
                let module = nested_key(&y, "module_name").unwrap_or_else(|| "main".into());
                let code = read(&format!("{module}.py"))
                    .or_else(|| read(&format!("{module}/__init__.py")));
                p.macros = code
                    .filter(|_| on("macros"))
                    .map(|c| Macros::read(&c))
                    .filter(|m| !m.is_empty());
            })
            .with(|p| p.unsearched = exclude_search(&y))
            .with(|p| {
                p.nav = match yaml_block(&y, "nav", true) {
                    Some((head, block)) => {
                        SiteNav::Listed(mkdocs_nav(&[&[head], &block[..]].concat().join("\n")))
                    }
                    // (`awesome-pages`, or `mkdocs-awesome-pages-plugin` as it was named)
                    None => SiteNav::Folders(on("awesome-pages").then(PagesFiles::default)),
                }
            });
        // `use_directory_urls: false` (a site that also opens from a folder) serves `page.html`.
        let files = key(&y, "use_directory_urls").is_some_and(|v| yaml_false(&v));
        let mkdocs = if files { mkdocs } else { mkdocs.folder_urls() };
        // The `mkdocs-jupyter` plugin renders notebooks as pages; without it they are files
        // the site offers for download.
        let jupyter = y.lines().any(|l| {
            let l = l.trim_start().trim_start_matches('-').trim_start();
            l.starts_with("mkdocs-jupyter") || l.starts_with("\"mkdocs-jupyter\"")
        });
        return Some(if jupyter { mkdocs.notebooks() } else { mkdocs });
    }
    if read("config.yaml").is_some_and(|c| key(&c, "carpentry").is_some()) {
        // A Carpentries Workbench lesson (sandpaper), its site in `site/docs`.
        let build = "Rscript -e 'sandpaper::build_lesson()'";
        let lesson = Project::new("Carpentries Workbench", build, "site/docs".into());
        return Some(lesson.anchors(Anchors::Pandoc).with(|p| p.workbench = true));
    }
    // Hugo's configuration file, or its configuration folder's; a `config.toml` that sets a
    // `baseURL` (`baseURL = "/"` too).
    let hugo = first(&["hugo.toml", "hugo.yaml", "hugo.yml", "hugo.json"])
        .or_else(|| {
            first(&["config.toml", "config.yaml", "config.yml"])
                .filter(|c| c.lines().any(|l| translations::is_key(l, "baseURL")))
        })
        .or_else(|| first(&["config/_default/hugo.toml", "config/_default/config.toml"]));
    if let Some(h) = hugo {
        let site = or(key(&h, "publishDir"), "public");
        // A multilingual site may give each language a content folder: the folder that holds
        // them all is read when there is one, else the first (give the others as sources of
        // their own).
        let content = key(&h, "contentDir").or_else(|| nested_key(&h, "contentDir"));
        let content = or(content, "content");
        let languages_file = first(&[
            "config/_default/languages.toml",
            "config/_default/languages.yaml",
        ]);
        let languages = translations::hugo(&h, languages_file.as_deref(), &content);
        let parent = languages.as_ref().and_then(|l| l.parent.clone());
        let content = parent.unwrap_or(content);
        let hugo = Project::new("Hugo", "hugo", site).pages(content);
        let disabled =
            key(&h, "disablePathToLower").is_some_and(|v| v.eq_ignore_ascii_case("true"));
        let hugo = hugo.with(|p| {
            p.front_urls = FrontUrls::Hugo;
            p.lower_case_urls = !disabled;
            p.languages = languages;
        });
        // `uglyURLs = true` serves `page.html`.
        let ugly = key(&h, "uglyURLs").is_some_and(|v| v.eq_ignore_ascii_case("true"));
        return Some(if ugly { hugo } else { hugo.folder_urls() });
    }
    if let Some(q) = read("_quarto.yml") {
        let book = q.lines().any(|l| l.trim() == "type: book");
        let default = if book { "_book" } else { "_site" };
        let site = or(nested_key(&q, "output-dir"), default);
        let render = yaml_list(&q, "render");
        let quarto = Project::new("Quarto", "quarto render", site).with(|p| {
            p.quarto = Some(Quarto {
                render: Patterns::rooted(&render),
            })
        });
        return Some(quarto.notebooks().anchors(Anchors::Pandoc));
    }
    if let Some(b) = read("_bookdown.yml") {
        let site = or(key(&b, "output_dir"), "_book");
        let build = "Rscript -e 'bookdown::render_book()'";
        return Some(Project::new("bookdown", build, site).anchors(Anchors::Pandoc));
    }
    if read("myst.yml").is_some() {
        let (name, build) = ("Jupyter Book (mystmd)", "myst build --html");
        return Some(Project::new(name, build, "_build/html".into()).notebooks());
    }
    if let Some(c) = read("_config.yml") {
        if read("_toc.yml").is_some() {
            let build = "jupyter-book build .";
            let book = Project::new("Jupyter Book", build, "_build/html".into());
            // Jupyter Book 1 builds with Sphinx: docutils' section ids.
            return Some(book.notebooks().anchors(Anchors::Docutils));
        }
        let site = or(key(&c, "destination"), "_site");
        let jekyll = Project::new("Jekyll", "bundle exec jekyll build", site).with(|p| {
            // Gems installed beside the site (`bundle config path vendor/bundle`), which
            // Jekyll leaves out too.
            p.output.push("vendor".into());
            p.front_urls = FrontUrls::Jekyll;
            let collections = jekyll_outputs(&c).into_iter().map(|n| format!("_{n}"));
            p.jekyll = Some(Jekyll {
                published: std::iter::once("_posts".to_string())
                    .chain(collections)
                    .collect(),
            });
        });
        // `permalink: pretty` gives each page its folder.
        let pretty = key(&c, "permalink").as_deref() == Some("pretty");
        return Some(if pretty { jekyll.folder_urls() } else { jekyll });
    }
    if let Some(b) = read("book.toml") {
        let site = or(key(&b, "build-dir"), "book");
        let src = or(key(&b, "src"), "src");
        let src = src.trim_start_matches("./").to_string();
        let summary = read(&format!("{src}/SUMMARY.md"));
        let book = Project::new("mdBook", "mdbook build", site).pages(src.clone());
        return Some(book.with(|p| {
            p.contents.push("SUMMARY.md".into());
            p.mdbook_includes = Some(mdbook::in_book(&src));
            p.listed = summary.as_deref().map(summary_chapters);
        }));
    }
    let docusaurus = ["js", "ts", "mjs", "cjs"].map(|e| format!("docusaurus.config.{e}"));
    if docusaurus.iter().any(|f| read(f).is_some()) {
        let project = Project::new("Docusaurus", "npm run build", "build".into());
        let project = project.pages("docs".into()).folder_urls();
        return Some(project.with(|p| {
            p.front_urls = FrontUrls::Docusaurus;
            p.mdx = true;
            // Partials (`_rappel.mdx`), which pages import, are no pages of their own.
            p.excluded = Patterns::gitignore(&["_*".into()]);
        }));
    }
    let vitepress = ["js", "ts", "mjs", "mts"].map(|e| format!(".vitepress/config.{e}"));
    if vitepress.iter().any(|f| read(f).is_some()) {
        let build = "npx vitepress build";
        let vitepress = Project::new("VitePress", build, ".vitepress/dist".into());
        return Some(vitepress.anchors(Anchors::VitePress));
    }
    // Sphinx's pages are reStructuredText, which `--markdown` does not read.
    let sphinx = |build, site: &str| Project {
        markdown: false,
        ..Project::new("Sphinx", build, site.into()).anchors(Anchors::Docutils)
    };
    if read("conf.py").is_some() {
        return Some(sphinx("sphinx-build -b html . _build/html", "_build/html"));
    }
    if read("source/conf.py").is_some() {
        return Some(sphinx(
            "sphinx-build -b html source build/html",
            "build/html",
        ));
    }
    None
}

/// The chapter files an mdBook `SUMMARY.md` links to (`- [Les piles](cours/piles.md)`), as
/// paths from its folder (`./` and percent-encoded spaces undone; a draft chapter, `[Titre]()`,
/// has none).
fn summary_chapters(summary: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = summary;
    while let Some(at) = rest.find("](") {
        rest = &rest[at + 2..];
        let Some(end) = rest.find(')') else { break };
        let link = rest[..end].trim().split('#').next().unwrap_or("");
        let link = link.trim_start_matches("./").replace("%20", " ");
        if !link.is_empty() && !link.contains("://") {
            out.push(link);
        }
    }
    out
}

/// The line of key `name` (`top`: at the line's start, as a top-level key; else at any
/// indentation) and the lines under it: indented deeper (or a list's `- ` items at its own
/// indentation), blank lines and comments left out. Read line by line as the rest of a
/// configuration file is ([`key`]).
fn yaml_block<'a>(text: &'a str, name: &str, top: bool) -> Option<(&'a str, Vec<&'a str>)> {
    let head_of = |l: &str| {
        let t = if top { l } else { l.trim_start() };
        t.strip_prefix(name).is_some_and(|r| r.starts_with(':'))
    };
    let mut lines = text.lines();
    let head = lines.find(|l| head_of(l))?;
    let indent = |l: &str| l.len() - l.trim_start().len();
    let at = indent(head);
    let block = lines
        .filter(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
        .take_while(|l| indent(l) > at || (indent(l) == at && l.trim_start().starts_with("- ")))
        .collect();
    Some((head, block))
}

/// The lines of a top-level YAML block scalar (`exclude_docs: |` and the indented lines after
/// it), or its one inline value.
fn yaml_lines(text: &str, name: &str) -> Vec<String> {
    let Some((head, block)) = yaml_block(text, name, true) else {
        return Vec::new();
    };
    if !head[name.len() + 1..].trim().starts_with(['|', '>']) {
        return key(head, name).into_iter().collect();
    }
    block.iter().map(|l| l.trim().to_string()).collect()
}

/// Whether a YAML value is false as PyYAML (MkDocs' reader) reads it: `false`, `no` or `off`.
fn yaml_false(v: &str) -> bool {
    ["false", "no", "off"]
        .iter()
        .any(|f| v.eq_ignore_ascii_case(f))
}

/// The items of the YAML list under key `name` at any indentation (`project:` → `render:` →
/// `- index.qmd`), or of its flow list (`exclude: [a.md, b/*]`) or one value, quotes and
/// comments removed.
fn yaml_list(text: &str, name: &str) -> Vec<String> {
    let Some((head, block)) = yaml_block(text, name, false) else {
        return Vec::new();
    };
    let item = |v: &str| {
        let v = v.split(" #").next().unwrap_or(v);
        v.trim().trim_matches(['"', '\'']).to_string()
    };
    let inline = item(&head.trim_start()[name.len() + 1..]);
    // (`|` or `>` opens a block scalar: no list)
    if !inline.is_empty() && !inline.starts_with(['|', '>']) {
        let flow = inline.strip_prefix('[').and_then(|f| f.strip_suffix(']'));
        return match flow {
            Some(items) => items
                .split(',')
                .map(item)
                .filter(|v| !v.is_empty())
                .collect(),
            None => vec![inline],
        };
    }
    block
        .iter()
        .filter_map(|l| l.trim().strip_prefix("- "))
        .map(item)
        .collect()
}

/// The pages an MkDocs site's search leaves out, from its `mkdocs-exclude-search` plugin's
/// `exclude` and `ignore` lists.
fn exclude_search(y: &str) -> Unsearched {
    let Some((head, block)) = yaml_block(y, "- exclude-search", false) else {
        return Unsearched::default();
    };
    // The plugin's own lines: those indented under it (the next plugin's `- ` ends them).
    let indent = |l: &str| l.len() - l.trim_start().len();
    let config: Vec<&str> = block
        .into_iter()
        .take_while(|l| indent(l) > indent(head))
        .collect();
    let config = config.join("\n");
    Unsearched::new(
        &yaml_list(&config, "exclude"),
        &yaml_list(&config, "ignore"),
    )
}

/// The collections a Jekyll `_config.yml` outputs as pages (`collections:` → `cours:` →
/// `output: true`).
fn jekyll_outputs(config: &str) -> Vec<String> {
    let Some((_, block)) = yaml_block(config, "collections", true) else {
        return Vec::new();
    };
    let indent = |l: &str| l.len() - l.trim_start().len();
    let top = block.iter().map(|l| indent(l)).min().unwrap_or(0);
    let mut out = Vec::new();
    let mut current = None;
    for l in block {
        let t = l.trim();
        if indent(l) == top {
            current = t.split_once(':').map(|(name, _)| name.trim().to_string());
        } else if let Some(name) = &current {
            let t = t.split(" #").next().unwrap_or(t).replace(' ', "");
            if t == "output:true" && !out.contains(name) {
                out.push(name.clone());
            }
        }
    }
    out
}

/// Whether a folder's root page is a built page: an `index.html` that is not a Jekyll source
/// page (front matter first).
fn built_root(read: &dyn Fn(&str) -> Option<String>) -> bool {
    read("index.html").is_some_and(|t| {
        !t.trim_start_matches('\u{feff}')
            .trim_start()
            .starts_with("---")
    })
}

/// How a folder of Markdown pages that is no project is published: as its project publishes
/// it when it is the pages folder of the project above it (`docs/` given alone, `mkdocs.yml`
/// beside it), else, served by GitHub Pages (a `url` on `*.github.io`, or a `CNAME` file; no
/// `.nojekyll`), as GitHub Pages builds a folder with no configuration: Jekyll with its defaults
/// (`cours/piles.md` → `cours/piles.html`, GitHub's anchors, `_` folders not published). `None`:
/// neither.
fn published_alone(
    root: &Path,
    read: &dyn Fn(&Path) -> Option<String>,
    url: Option<&str>,
) -> Option<Publishing> {
    // The folder, one or two folders down from its project's (Hugo's `content/fr`, a
    // language's own content folder).
    let names: Vec<_> = root.components().rev().take(2).collect();
    let of_project = |depth: usize| {
        let above = root.join("../".repeat(depth));
        let mut p = detect(&|n: &str| read(&above.join(n)))?;
        let path = names
            .get(..depth)?
            .iter()
            .rev()
            .collect::<std::path::PathBuf>();
        if let Some(l) = p.publishing.languages.as_mut() {
            if let Some(code) = l.of_folder(&path.to_str()?.replace('\\', "/")) {
                l.folder = Some(code.to_string());
                l.by_folder.clear();
                return Some(p);
            }
        }
        Path::new(p.pages_dir.as_deref()?)
            .ends_with(&path)
            .then_some(p)
    };
    let project = (of_project(1).or_else(|| of_project(2))).or_else(|| {
        // GitHub Pages: a `*.github.io` address, or the `CNAME` file that gives it a domain
        // of its own; with `.nojekyll` it serves the Markdown files as they are.
        let host = url
            .and_then(|u| u.split_once("://"))
            .and_then(|(_, rest)| rest.split('/').next());
        let github = host.is_some_and(|h| h.to_ascii_lowercase().ends_with(".github.io"))
            || read(&root.join("CNAME")).is_some();
        let jekyll = github && read(&root.join(".nojekyll")).is_none();
        jekyll.then(|| detect(&|n: &str| (n == "_config.yml").then(String::new)))?
    })?;
    let mut publishing = project.publishing;
    if project.pages_dir.is_some() {
        publishing.output.clear();
    }
    Some(publishing)
}

impl Config {
    /// Points each HTML or Markdown source that is a generator's project ([`detect`]) at the
    /// site it builds or at its pages; `read` reads a file (`None`: absent or unreadable).
    /// An HTML source whose project has not been built is an error that says how to build it.
    pub fn recognise_projects(
        &mut self,
        read: impl Fn(&Path) -> Option<String>,
    ) -> Result<(), IndexError> {
        for s in &mut self.sources {
            if matches!(s.format, Format::Docsify(_)) {
                continue;
            }
            let root = s.path.clone();
            let at = |name: &str| read(&root.join(name));
            if s.format == Format::Html && built_root(&at) {
                let index = at("search/search_index.json");
                s.publishing.site_search = index.and_then(|j| SiteSearch::read(&j));
                continue;
            }
            // Markdown read on a forge: each file at its own address, notebooks included.
            let forge = (s.format == Format::Markdown)
                .then(|| s.url.as_deref().and_then(forges::forge_of))
                .flatten();
            if let Some(anchors) = forge {
                s.publishing = Publishing {
                    urls: PageUrls::Files,
                    anchors,
                    notebooks: Notebooks::Pages,
                    ..Publishing::default()
                };
            }
            let Some(p) = detect(&at) else {
                if s.format == Format::Markdown && forge.is_none() {
                    match published_alone(&root, &read, s.url.as_deref()) {
                        Some(p) => s.publishing = p,
                        None => s.publishing.notebooks = Notebooks::Alone,
                    }
                }
                continue;
            };
            match s.format {
                Format::Markdown => {
                    let mut publishing = p.publishing;
                    if let Some(d) = p.pages_dir {
                        s.path = root.join(d);
                        publishing.output.clear();
                    }
                    match forge {
                        // Read on a forge, the project's output folders are still not pages.
                        Some(_) => s.publishing.output = publishing.output,
                        None => s.publishing = publishing,
                    }
                }
                _ => {
                    if read(&root.join(&p.site_dir).join("index.html")).is_none() {
                        return Err(IndexError::NotBuilt {
                            path: root.display().to_string(),
                            generator: p.generator,
                            build: p.build,
                            site_dir: p.site_dir,
                            markdown: p.markdown,
                        });
                    }
                    s.path = root.join(p.site_dir);
                    let index = read(&s.path.join("search/search_index.json"));
                    s.publishing.site_search = index.and_then(|j| SiteSearch::read(&j));
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
