//! How the site built from Markdown sources publishes them, as its generator (or the code forge
//! that shows them) does: where each page is served, its headings' anchors, which files are
//! pages (notebooks, Jekyll's `_` folders, mdBook's `SUMMARY.md`) and which folders are the
//! generator's output rather than pages. Set for a source by
//! [`super::config::Config::recognise_projects`]; read when its pages are listed
//! ([`walks`], [`Publishing::unpublished`]) and linked ([`super::urls::page_url_path`]).

use super::anchors::Anchors;

/// How a source's Markdown pages are published.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Publishing {
    /// Where a page is served.
    pub urls: PageUrls,
    /// How its headings' anchors are made.
    pub anchors: Anchors,
    /// Whether its Jupyter notebooks (`*.ipynb`) are pages: a generator that renders them
    /// (Jupyter Book, mystmd, Quarto, MkDocs with `mkdocs-jupyter`) or a forge.
    pub notebooks: bool,
    /// Folders not looked into for pages, relative to the source: the output of a generator
    /// whose pages are in its project's own folder (Jupyter Book's `_build`, Quarto's `_site`,
    /// Jekyll's `_site` and `vendor`). `node_modules` is never looked into ([`walks`]).
    pub output: Vec<String>,
    /// Files that are not pages: mdBook's `SUMMARY.md` (the book's table of contents, shown as
    /// its navigation).
    pub contents: Vec<String>,
    /// A Jekyll site's rules, when it is one.
    pub jekyll: Option<Jekyll>,
}

/// Where the site built from Markdown sources serves a page `a/b.md`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PageUrls {
    /// At `a/b/` (MkDocs, Hugo, Docusaurus; the default).
    #[default]
    Folders,
    /// At `a/b.html` (Quarto, bookdown, Jupyter Book, mdBook, Jekyll, VitePress; and any
    /// `.qmd` or `.Rmd` page).
    Html,
    /// At `a/b.md` itself, as a code forge shows a repository's files (a source whose `url` is
    /// a GitHub, GitLab or Gitea file view: [`super::forges`]).
    Files,
}

/// What Jekyll publishes of a folder starting with `_`: only its posts (`_posts`) and the
/// collections its `_config.yml` outputs (`collections: {cours: {output: true}}`); the others
/// (`_includes`, `_layouts`, `_data`, a collection without `output`) are shown inside other
/// pages, if at all.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Jekyll {
    /// The `_` folders whose pages are published: `_posts` and each output collection's.
    pub published: Vec<String>,
}

/// Whether the folder at `rel` (relative to the source, `/`-separated) is looked into for
/// pages: not a generator's output ([`Publishing::output`]) nor `node_modules` (packages'
/// READMEs, never a course's pages).
pub fn walks(publishing: &Publishing, rel: &str) -> bool {
    let name = rel.rsplit('/').next().unwrap_or(rel);
    name != "node_modules" && !publishing.output.iter().any(|f| f == rel)
}

impl Publishing {
    /// Why the page at `rel` is not a page of the site on its own, if it is not.
    pub fn unpublished(&self, rel: &str) -> Option<&'static str> {
        if self.contents.iter().any(|f| f == rel) {
            return Some(
                "the book's table of contents (SUMMARY.md), which the site shows as its navigation",
            );
        }
        let jekyll = self.jekyll.as_ref()?;
        let (top, _) = rel.split_once('/')?;
        (top.starts_with('_') && !jekyll.published.iter().any(|p| p == top)).then_some(
            "in a Jekyll folder starting with _ (includes, layouts, data, or a collection without output: true), which Jekyll does not publish as pages: what its pages' templates show of it is in the built site (index _site with --site)",
        )
    }

    /// The path Jekyll serves a page at, as a source path: a post's `_posts/2024-01-05-titre.md`
    /// at `2024/01/05/titre.md`, a collection's `_cours/piles.md` at `cours/piles.md`; any other
    /// as it is.
    pub fn served_path<'a>(&self, rel: &'a str) -> std::borrow::Cow<'a, str> {
        if self.jekyll.is_none() {
            return rel.into();
        }
        let Some((top, rest)) = rel.split_once('/') else {
            return rel.into();
        };
        if top == "_posts" {
            // The file name's date, then its title (a post's folders, its categories, dropped).
            let name = rest.rsplit('/').next().unwrap_or(rest);
            let date: Vec<&str> = name.splitn(4, '-').collect();
            let dated = date.len() == 4
                && [4, 2, 2]
                    .iter()
                    .zip(&date)
                    .all(|(n, p)| p.len() == *n && p.bytes().all(|b| b.is_ascii_digit()));
            return if dated {
                format!("{}/{}/{}/{}", date[0], date[1], date[2], date[3]).into()
            } else {
                rest.into()
            };
        }
        match top.strip_prefix('_') {
            Some(collection) => format!("{collection}/{rest}").into(),
            None => rel.into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_jekyll_sites_underscore_folders_posts_and_collections() {
        let site = Publishing {
            jekyll: Some(Jekyll {
                published: vec!["_posts".into(), "_cours".into()],
            }),
            ..Publishing::default()
        };
        for rel in ["_includes/enonce.md", "_staffers/kevin.md", "_layouts/x.md"] {
            assert!(site.unpublished(rel).is_some(), "{rel}");
        }
        for rel in [
            "_posts/2024-01-05-bienvenue.md",
            "_cours/piles.md",
            "index.md",
            "_index.md",
        ] {
            assert_eq!(site.unpublished(rel), None, "{rel}");
        }
        let served = |rel| site.served_path(rel).into_owned();
        assert_eq!(
            served("_posts/2024-01-05-bienvenue.md"),
            "2024/01/05/bienvenue.md"
        );
        assert_eq!(
            served("_posts/annonces/2024-01-05-bienvenue.md"),
            "2024/01/05/bienvenue.md"
        );
        assert_eq!(served("_posts/sans-date.md"), "sans-date.md");
        assert_eq!(served("_cours/piles.md"), "cours/piles.md");
        assert_eq!(served("cours/piles.md"), "cours/piles.md");
        // Elsewhere, `_` folders are pages like any other, served where they are.
        let mkdocs = Publishing::default();
        assert_eq!(mkdocs.unpublished("_cours/piles.md"), None);
        assert_eq!(mkdocs.served_path("_cours/piles.md"), "_cours/piles.md");
    }

    #[test]
    fn output_folders_and_packages_are_not_walked() {
        let book = Publishing {
            output: vec!["_build".into()],
            contents: vec!["SUMMARY.md".into()],
            ..Publishing::default()
        };
        assert!(!walks(&book, "_build") && !walks(&book, "outils/node_modules"));
        assert!(walks(&book, "chapitres") && walks(&book, "chapitres/_build"));
        assert!(book.unpublished("SUMMARY.md").is_some());
        assert_eq!(book.unpublished("chapitres/SUMMARY.md"), None);
    }
}
