//! A page's `<title>` without the site's name: generators write `Page - Site` (MkDocs, mdBook),
//! `Page | Site` (Hugo, Jekyll, Docusaurus) or `Page — Project documentation` (Sphinx). The
//! title of a page without an `h1` comes from there, and the site's name would then head every
//! chunk of the page and every result card. The name is recognised on the page itself: the
//! `og:site_name` or `application-name` meta tag, or the brand text of the theme's header
//! (MkDocs Material's `.md-header__topic`, mdBook's `.menu-title`, Docusaurus' `.navbar__title`,
//! Bootstrap's `.navbar-brand`, the Read the Docs theme's home link, Furo's and PyData's brand
//! texts, a header's first link).

use super::{clean_title, collapse, sel};
use scraper::{Html, Selector};
use std::sync::LazyLock;

/// Where themes write the site's name (besides the meta tags).
static BRANDS: LazyLock<Selector> = LazyLock::new(|| {
    sel(
        ".md-header__topic, .menu-title, .navbar__title, .navbar-brand, .wy-side-nav-search > a, \
         .sidebar-brand-text, .site-title, header a, [role=banner] a",
    )
});
static META: LazyLock<Selector> =
    LazyLock::new(|| sel("meta[property='og:site_name'], meta[name='application-name']"));

/// The current page's item of a breadcrumb trail (Docusaurus, Bootstrap and ARIA breadcrumbs).
static CRUMB: LazyLock<Selector> = LazyLock::new(|| {
    sel(
        ".breadcrumbs__item--active, .breadcrumb .active, .breadcrumb [aria-current=page], \
         nav[aria-label*=readcrumb] [aria-current=page]",
    )
});

/// Separators between a page's title and the site's name.
const SEPARATORS: [&str; 5] = [" - ", " – ", " — ", " | ", " · "];

/// The names of the site a page gives (meta tags and the theme's brand texts), as cleaned titles.
pub(super) fn site_names(doc: &Html) -> Vec<String> {
    let meta = doc
        .select(&META)
        .filter_map(|m| m.value().attr("content").map(clean_title));
    let brands = doc
        .select(&BRANDS)
        .map(|e| clean_title(&e.text().collect::<String>()));
    meta.chain(brands)
        .filter(|n| !n.is_empty() && n.chars().count() <= 120)
        .collect()
}

/// `title` without a trailing `separator site-name` (the name as `names` give it, or followed by
/// more words: Sphinx's `Project 1.0 documentation`); unchanged when nothing is left before the
/// separator or no name matches.
pub(super) fn without_site_name(title: &str, names: &[String]) -> String {
    let lower = |s: &str| collapse(s).to_lowercase();
    for (at, sep) in SEPARATORS
        .iter()
        .filter_map(|sep| title.rfind(sep).map(|at| (at, *sep)))
    {
        let (head, tail) = (title[..at].trim(), lower(&title[at + sep.len()..]));
        let named = names.iter().map(|n| lower(n)).any(|n| {
            tail == n
                || tail
                    .strip_prefix(&n)
                    .is_some_and(|rest| rest.starts_with(' '))
        });
        if named && !head.is_empty() {
            return head.to_string();
        }
    }
    title.to_string()
}

/// Whether a title only names a folder's index file (`index`, `README`, `index.md`, also
/// before a site's name: `index | Site`): what Docusaurus and others write when a page sets no
/// title of its own. Such a title would head every result card of the page and tell the
/// student nothing.
pub(super) fn placeholder(title: &str) -> bool {
    let head = SEPARATORS
        .iter()
        .filter_map(|sep| title.find(sep).map(|at| &title[..at]))
        .min_by_key(|h| h.len())
        .unwrap_or(title);
    let t = head.trim();
    !t.contains(char::is_whitespace) && crate::index::index_file(t)
}

/// The page's own item in its breadcrumb trail, if the theme writes one (the page's name as
/// the site's navigation gives it).
pub(super) fn breadcrumb(doc: &Html) -> Option<String> {
    doc.select(&CRUMB)
        .next_back()
        .map(|e| clean_title(&e.text().collect::<String>()))
        .filter(|t| !t.is_empty() && !placeholder(t))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(html: &str) -> Vec<String> {
        site_names(&Html::parse_document(html))
    }

    #[test]
    fn the_site_name_is_read_from_meta_tags_and_theme_brands() {
        let mdbook = r#"<html><head><title>Variables - Le cours de Rust</title></head><body>
            <div id="menu-bar"><h1 class="menu-title">Le cours de Rust</h1></div>
            <main><p>Texte.</p></main></body></html>"#;
        let n = names(mdbook);
        assert_eq!(n, ["Le cours de Rust"]);
        assert_eq!(
            without_site_name("Variables - Le cours de Rust", &n),
            "Variables"
        );
        let og = r#"<html><head><meta property="og:site_name" content="NSI Première"></head>
            <body><header><a href="/">Accueil</a></header></body></html>"#;
        assert_eq!(names(og), ["NSI Première", "Accueil"]);
    }

    #[test]
    fn a_page_without_h1_is_titled_without_the_site_name() {
        let page = |title: &str| {
            format!(
                r#"<html><head><title>{title}</title></head><body>
                <div class="sidebar-brand"><span class="sidebar-brand-text">mygithubpages</span></div>
                <article><p>Du texte.</p></article></body></html>"#
            )
        };
        let reader = super::super::Reader::new(&Default::default());
        let read = |t: &str| reader.read(&page(t), &[], false).title;
        assert_eq!(
            read("Usage — mygithubpages documentation").as_deref(),
            Some("Usage")
        );
        // Sphinx's placeholder for a document without a title is no title.
        assert_eq!(read("&lt;no title&gt; — mygithubpages documentation"), None);
    }

    #[test]
    fn only_a_known_name_after_a_separator_is_dropped() {
        let n = ["Cours NSI".to_string(), "mygithubpages".to_string()];
        assert_eq!(without_site_name("Les piles | Cours NSI", &n), "Les piles");
        assert_eq!(without_site_name("Les piles — cours nsi", &n), "Les piles");
        // Sphinx: the project's name, then more words.
        assert_eq!(
            without_site_name("Getting started — mygithubpages documentation", &n),
            "Getting started"
        );
        // A title that merely contains a separator keeps it.
        assert_eq!(without_site_name("Tri - exercices", &n), "Tri - exercices");
        // A name that only starts a word is not the name.
        assert_eq!(
            without_site_name("Piles - Cours NSIx", &n),
            "Piles - Cours NSIx"
        );
        // Nothing before the separator: the title is the site's name, kept.
        assert_eq!(without_site_name(" | Cours NSI", &n), " | Cours NSI");
        assert_eq!(without_site_name("Cours NSI", &n), "Cours NSI");
    }
}
