//! Where a page is served: its URL path within its source (pretty URLs for Markdown, `.html`
//! for Quarto and R Markdown, Docsify's `#/` addresses) and its source's base URL (configured,
//! or relative to the bundle).

use super::config::{Format, PageUrls, Source};
use super::docsify;
use super::publishing::FrontUrls;
#[cfg(not(target_arch = "wasm32"))]
use super::IndexError;
use std::path::Path;

/// A Markdown page's path without its extension (`.md`, `.markdown`, `.mdx`, `.qmd`, `.Rmd`,
/// or a notebook's `.ipynb`).
pub(crate) fn markdown_stem(path: &str) -> &str {
    let lower = path.to_ascii_lowercase();
    [".markdown", ".mdx", ".md", ".qmd", ".rmd", ".ipynb"]
        .iter()
        .find(|e| lower.ends_with(*e))
        .map_or(path, |e| &path[..path.len() - e.len()])
}

/// The URL path of a page relative to its site's root: `a/b/index.html` → `a/b/`, a Markdown
/// `a/b.md` → `a/b/` (the pretty URLs of MkDocs, Hugo and Docusaurus) or `a/b.html` (the
/// source's [`PageUrls`]; a `.qmd` or `.Rmd` page; a Jekyll post or collection where Jekyll
/// serves it, [`super::publishing::Publishing::served_path`]), a Docsify site's `a/b.md` →
/// `#/a/b` ([`docsify::url_path`]).
pub fn page_url_path(rel: &str, source: &Source) -> String {
    let served = match source.format {
        Format::Markdown => source.publishing.served_path(rel),
        _ => rel.into(),
    };
    let encoded: Vec<String> = served.split('/').map(encode_segment).collect();
    let path = encoded.join("/");
    match &source.format {
        Format::Docsify(shell) => docsify::url_path(rel, &path, shell),
        Format::Html => path
            .strip_suffix("index.html")
            .map(str::to_string)
            .unwrap_or(path),
        Format::Markdown if source.publishing.urls == PageUrls::Files => path,
        Format::Markdown => {
            let stem = markdown_stem(&path);
            let (folder, name) = match stem.rsplit_once('/') {
                Some((f, n)) => (format!("{f}/"), n),
                None => (String::new(), stem),
            };
            // Quarto and R Markdown write `page.html` beside the source, as do the generators
            // of [`PageUrls::Html`]; the others give a page its folder.
            let html = source.publishing.urls == PageUrls::Html
                || [".qmd", ".rmd"]
                    .iter()
                    .any(|e| path.to_lowercase().ends_with(e));
            // A folder's `index`, `README` (mdBook, GitHub; not Hugo's, a page of its own) or
            // `_index` (Hugo) is its page.
            let hugo = source.publishing.front_urls == FrontUrls::Hugo;
            let readme = name.eq_ignore_ascii_case("readme") && !hugo;
            if readme
                || ["index", "_index"]
                    .iter()
                    .any(|n| name.eq_ignore_ascii_case(n))
            {
                folder
            } else if html {
                format!("{stem}.html")
            } else {
                format!("{stem}/")
            }
        }
    }
}

/// A page's URL path ([`page_url_path`]), or where its front matter says it is served when its
/// generator reads that ([`super::publishing::front_url`]: Jekyll's `permalink`, Hugo's `url`
/// and `slug`, Docusaurus' `slug` and `id`).
pub fn page_url_path_with(rel: &str, source: &Source, front: &[(String, String)]) -> String {
    let default = page_url_path(rel, source);
    match super::publishing::front_url(&source.publishing, rel, front, &default) {
        Some(path) => path
            .split('/')
            .map(encode_segment)
            .collect::<Vec<_>>()
            .join("/"),
        None => default,
    }
}

/// One path segment percent-encoded where a URL needs it.
fn encode_segment(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        match c {
            ' ' => out.push_str("%20"),
            '#' => out.push_str("%23"),
            '?' => out.push_str("%3F"),
            '%' => out.push_str("%25"),
            '"' => out.push_str("%22"),
            c => out.push(c),
        }
    }
    out
}

/// The relative URL from folder `from` to folder `to` (both canonical, absolute), ending in `/`
/// (empty when they are the same folder).
pub fn relative_url_between(from: &Path, to: &Path) -> String {
    let ac: Vec<_> = from.components().collect();
    let bc: Vec<_> = to.components().collect();
    let common = ac.iter().zip(&bc).take_while(|(x, y)| x == y).count();
    let mut out = "../".repeat(ac.len() - common);
    for c in &bc[common..] {
        out.push_str(&encode_segment(&c.as_os_str().to_string_lossy()));
        out.push('/');
    }
    out
}

/// The relative URL from folder `from` to folder `to` (both existing), ending in `/`.
#[cfg(not(target_arch = "wasm32"))]
pub fn relative_url(from: &Path, to: &Path) -> Result<String, IndexError> {
    let canon = |p: &Path| {
        std::fs::canonicalize(p).map_err(|e| IndexError::Io {
            path: p.display().to_string(),
            message: e.to_string(),
        })
    };
    Ok(relative_url_between(&canon(from)?, &canon(to)?))
}

/// Where a source is served, as configured (`url`), ending in `/`; `None`: relative to the
/// bundle (see [`relative_url_between`]).
pub fn configured_url(source: &Source) -> Option<String> {
    match &source.url {
        Some(u) if u.ends_with('/') => Some(u.clone()),
        Some(u) => Some(format!("{u}/")),
        None => None,
    }
}

/// The folder a source is served from, as a URL ending in `/`: its configured `url`, else its
/// place relative to the bundle folder `out` (deployed together, as uploaded).
#[cfg(not(target_arch = "wasm32"))]
pub fn base_url(source: &Source, out: &Path) -> Result<String, IndexError> {
    match configured_url(source) {
        Some(u) => Ok(u),
        None => relative_url(out, &source.path),
    }
}

#[cfg(test)]
mod tests {
    use super::super::publishing::Publishing;
    use super::*;

    #[test]
    fn a_pages_url_path_as_its_generator_serves_it() {
        let source = |format: &str| {
            let toml = format!("[[source]]\npath = \".\"\nformat = \"{format}\"\n");
            let cfg = super::super::Config::from_text(&toml, Path::new("chsr.toml")).unwrap();
            cfg.sources.into_iter().next().unwrap()
        };
        let (html, md) = (source("html"), source("markdown"));
        let quarto = Source {
            publishing: Publishing {
                urls: PageUrls::Html,
                ..Publishing::default()
            },
            ..md.clone()
        };
        let jekyll = Source {
            publishing: Publishing {
                urls: PageUrls::Html,
                jekyll: Some(Default::default()),
                ..Publishing::default()
            },
            ..md.clone()
        };
        let cases = [
            (&html, "cours/piles/index.html", "cours/piles/"),
            (&html, "cours/files.html", "cours/files.html"),
            (&md, "cours/piles.md", "cours/piles/"),
            (&md, "cours/README.md", "cours/"),
            (&md, "cours/_index.md", "cours/"),
            (&md, "cours/les piles.md", "cours/les%20piles/"),
            (&md, "cours/piles.qmd", "cours/piles.html"),
            (&md, "cours/index.qmd", "cours/"),
            (&md, "chapitre-2.Rmd", "chapitre-2.html"),
            (&md, "tp/tableaux.ipynb", "tp/tableaux/"),
            (&quarto, "tp/tableaux.ipynb", "tp/tableaux.html"),
            (
                &jekyll,
                "_posts/2024-09-02-rentree.md",
                "2024/09/02/rentree.html",
            ),
            (&jekyll, "_cours/piles.md", "cours/piles.html"),
            (&quarto, "cours/piles.md", "cours/piles.html"),
            (&quarto, "index.md", ""),
            (&quarto, "chapitre/README.md", "chapitre/"),
        ];
        for (s, rel, want) in cases {
            assert_eq!(page_url_path(rel, s), want, "{rel}");
        }
        assert_eq!(markdown_stem("a/b.Rmd"), "a/b");
        assert_eq!(markdown_stem("a/b.markdown"), "a/b");
    }
}
