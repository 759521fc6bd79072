//! Pages that only list other pages: a blog's index and its later pages, its tag, author and
//! archive pages, a docs plugin's tag pages. Each post or document they list is indexed on its
//! own page; indexed again here, its summary would come up as a second result beside it, and a
//! list of titles is no course text. And a site's own search page, whose results its script
//! fills in: what it holds is a heading "Search" and the site's buttons. And a page whose content
//! is encrypted, which only a password shows.

use super::sel;
use scraper::{ElementRef, Html, Selector};
use std::sync::LazyLock;

/// The classes Docusaurus puts on `<html>` for the pages of its blog and docs plugins that list
/// posts, documents, tags or authors (`ThemeClassNames.page` of `@docusaurus/theme-common`).
const DOCUSAURUS_LISTS: [&str; 7] = [
    "blog-list-page",
    "blog-tags-post-list-page",
    "blog-tags-list-page",
    "blog-authors-list-page",
    "blog-authors-posts-page",
    "docs-tags-list-page",
    "docs-tags-doc-list-page",
];

/// Why a page is only a list of other pages, if it is: a Docusaurus list page by its `<html>`
/// classes, or any page of its blog plugin that is not a post (the archive has no class of its
/// own, only `plugin-blog`).
pub(super) fn list_page(doc: &Html) -> Option<&'static str> {
    let html = doc.root_element().value();
    let has = |c: &str| html.classes().any(|k| k == c);
    let listing =
        DOCUSAURUS_LISTS.iter().any(|c| has(c)) || (has("plugin-blog") && !has("blog-post-page"));
    listing.then_some("a list of posts, documents or tags (Docusaurus blog or docs plugin), each indexed on its own page")
}

/// Why a page is a list of post summaries, if it is: two or more `article`s side by side, each
/// titled by a link to another page (a blog's index, tag and archive pages in a theme that marks
/// summaries up as articles: Docusaurus 2 before its page classes, many Jekyll and Hugo themes).
/// Articles titled without a link (a PreTeXt section's activities and definitions) are content.
pub(super) fn summaries_page(doc: &Html) -> Option<&'static str> {
    static ARTICLES: LazyLock<Selector> = LazyLock::new(|| sel("article"));
    static TITLE: LazyLock<Selector> = LazyLock::new(|| sel("h1, h2, h3"));
    static LINK: LazyLock<Selector> = LazyLock::new(|| sel("a[href]"));
    let outer: Vec<_> = doc
        .select(&ARTICLES)
        .filter(|a| {
            !a.ancestors().any(|p| {
                p.value()
                    .as_element()
                    .is_some_and(|e| e.name() == "article")
            })
        })
        .collect();
    let linked = |a: &scraper::ElementRef<'_>| {
        a.select(&TITLE).next().is_some_and(|h| {
            h.select(&LINK)
                .any(|l| !l.value().attr("href").unwrap_or("#").starts_with('#'))
        })
    };
    (outer.len() >= 2 && outer.iter().all(linked))
        .then_some("a list of posts, each titled by a link to its own page, where it is indexed")
}

/// Why a page is the site's own search page, if it is: Sphinx's (every theme, Jupyter Book's
/// too) loads `searchtools.js` there and nowhere else, and gives its results an empty
/// `#search-results`. Both are asked for: a Jekyll theme (Just the Docs) has a
/// `#search-results` in every page's header.
pub(super) fn search_page(doc: &Html) -> Option<&'static str> {
    static SCRIPTS: LazyLock<Selector> = LazyLock::new(|| sel("script[src]"));
    static RESULTS: LazyLock<Selector> = LazyLock::new(|| sel("#search-results"));
    let sphinx = doc.select(&SCRIPTS).any(|s| {
        let src = s.value().attr("src").unwrap_or("");
        src.split(['?', '#'])
            .next()
            .unwrap_or("")
            .ends_with("searchtools.js")
    });
    (sphinx && doc.select(&RESULTS).next().is_some())
        .then_some("the site's search page (Sphinx), filled in by its own script")
}

/// Why a page's content is what a script fills in or decrypts, if it is: MkDocs' search
/// results box (`#mkdocs-search-results`: the `search.html` page of the readthedocs theme; the
/// mkdocs theme keeps the same box in a dialog outside the content of every page, which stays),
/// or the ciphertext of `mkdocs-encryptcontent-plugin` (a hidden `#mkdocs-encrypted-content`
/// beside the password form its script shows: read, it would be base64 under the form's
/// heading, "Page protégée par un mot de passe").
pub(super) fn scripted_content(content: ElementRef<'_>) -> Option<&'static str> {
    static KINDS: LazyLock<[(Selector, &str); 2]> = LazyLock::new(|| {
        [
            (
                sel("#mkdocs-search-results"),
                "the site's search page (MkDocs), filled in by its own script",
            ),
            (
                sel("#mkdocs-encrypted-content"),
                "its content is encrypted (mkdocs-encryptcontent-plugin): only a password shows it",
            ),
        ]
    });
    KINDS
        .iter()
        .find(|(s, _)| content.select(s).next().is_some())
        .map(|(_, why)| *why)
}
