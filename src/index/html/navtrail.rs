//! A page's place in its site's navigation: the labels of the sections that hold the page's own
//! link in the sidebar, outermost first. Course sites name pages by their role in a lesson
//! ("Cours", "Activités", "Exercices", "Révision", one of each per chapter) and the chapter by the
//! navigation section that holds them ("C10 : algo graphes", "1.4 Instruction conditionnelle
//! if"); the trail names such a page ([`super::super::lessons::name_shared_titles`]).
//!
//! The page's own link is the one its theme marks as current: MkDocs Material's
//! `.md-nav__link--active`, the Read the Docs theme's `a.current`, Furo's `.current-page`,
//! PyData's and Jupyter Book's `.bd-sidenav .current` / `.active`, Just the Docs'
//! `.nav-list-link.active`, Hugo's Learn and Relearn themes' `li.dd-item.active`, Hugo Book's
//! `.book-menu a.active`, Docsy's `.td-sidebar-link.active`, Quarto's `.sidebar-link.active`, and
//! any navigation's
//! `aria-current="page"` (Docusaurus). Each list
//! item above it is a section; its label is the item's first child that is not its list, its
//! toggle or its icon (MkDocs Material's `<label>`, Docusaurus' collapsible link, Sphinx's link).

use super::{clean_title, sel};
use scraper::{ElementRef, Html, Selector};
use std::sync::LazyLock;

/// The page's own link in the site's navigation, as themes mark it.
static CURRENT: LazyLock<Selector> = LazyLock::new(|| {
    sel(
        ".md-nav--primary a.md-nav__link--active, .wy-menu-vertical a.current, \
         .sidebar-tree li.current-page > a, .bd-sidenav a.current, .bd-sidenav li.active > a, \
         .nav-list-link.active, nav a[aria-current=page], .menu a[aria-current=page], \
         li.dd-item.active > a, .book-menu a.active, #quarto-sidebar a.sidebar-link.active, \
         a.td-sidebar-link.active",
    )
});

/// The labels of the navigation sections that hold the page, outermost first (empty when the
/// page's link is at the navigation's top level); `None` when the theme marks no link as the
/// page's (a page the navigation does not list, or a theme not read here).
pub(super) fn nav_trail(doc: &Html) -> Option<Vec<String>> {
    // The deepest: PyData marks the items above the page `active` too, and a descendant comes
    // after its ancestors.
    let link = doc.select(&CURRENT).next_back()?;
    // The first item above the link is the page's own (for a section's index page, linked
    // from the section's label, the section's): the sections are the items above it.
    let items = link
        .ancestors()
        .filter_map(ElementRef::wrap)
        .filter(|e| e.value().name() == "li")
        .skip(1);
    let mut trail: Vec<String> = items.filter_map(label).collect();
    trail.reverse();
    Some(trail)
}

fn is_list(e: &ElementRef) -> bool {
    matches!(e.value().name(), "ul" | "ol" | "nav")
}

/// A section item's label: its first child with text before its list.
fn label(item: ElementRef) -> Option<String> {
    item.children()
        .filter_map(ElementRef::wrap)
        .take_while(|c| !is_list(c))
        .filter(|c| !matches!(c.value().name(), "input" | "button" | "svg"))
        .map(|c| clean_title(&c.text().collect::<String>()))
        .find(|t| !t.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn trail(html: &str) -> Vec<String> {
        nav_trail(&Html::parse_document(html)).unwrap_or_default()
    }

    #[test]
    fn mkdocs_material_sections_hold_the_active_page() {
        // As MkDocs Material 9 writes a page in a section in a part (David Roche's Terminale
        // NSI course: four pages per chapter, named by their role).
        let html = r##"<html><body><nav class="md-nav md-nav--primary"><ul class="md-nav__list">
          <li class="md-nav__item"><a href="../" class="md-nav__link"><span class="md-ellipsis">Accueil</span></a></li>
          <li class="md-nav__item md-nav__item--active md-nav__item--nested">
            <input class="md-nav__toggle md-toggle" type="checkbox" id="__nav_3" checked>
            <label class="md-nav__link" for="__nav_3"><span class="md-ellipsis">Partie 3</span><span class="md-nav__icon md-icon"></span></label>
            <nav class="md-nav" data-md-level="1"><label class="md-nav__title" for="__nav_3">Partie 3</label>
            <ul class="md-nav__list">
              <li class="md-nav__item md-nav__item--active md-nav__item--nested">
                <input class="md-nav__toggle md-toggle" type="checkbox" id="__nav_3_2" checked>
                <label class="md-nav__link" for="__nav_3_2"><span class="md-ellipsis"> C10 : algo graphes </span></label>
                <nav class="md-nav" data-md-level="2"><ul class="md-nav__list">
                  <li class="md-nav__item"><a href="../c10c/" class="md-nav__link"><span class="md-ellipsis">Cours</span></a></li>
                  <li class="md-nav__item md-nav__item--active"><input class="md-nav__toggle md-toggle" type="checkbox" id="__toc">
                    <a href="./" class="md-nav__link md-nav__link--active"><span class="md-ellipsis">Activités</span></a>
                    <nav class="md-nav md-nav--secondary"><ul class="md-nav__list">
                      <li class="md-nav__item"><a href="#activite-101" class="md-nav__link">activité 10.1</a></li></ul></nav></li>
                </ul></nav></li></ul></nav></li></ul></nav>
          <article class="md-content__inner"><h1>Activités</h1><p>Appliquez l'algorithme.</p></article></body></html>"##;
        assert_eq!(trail(html), ["Partie 3", "C10 : algo graphes"]);
        // A page at the top level has no section but is listed; a page whose theme marks none
        // is not listed.
        let top = html.replace(" md-nav__link--active", "").replace(
            r#"href="../" class="md-nav__link""#,
            r#"href="../" class="md-nav__link md-nav__link--active""#,
        );
        assert_eq!(nav_trail(&Html::parse_document(&top)), Some(Vec::new()));
        let unmarked = html.replace(" md-nav__link--active", "");
        assert_eq!(nav_trail(&Html::parse_document(&unmarked)), None);
    }

    #[test]
    fn a_sections_index_page_is_in_the_section_above() {
        // MkDocs Material's `navigation.indexes`: the section's own page is linked from the
        // section's label; that page is in the sections above it, not in its own.
        let html = r#"<html><body><nav class="md-nav md-nav--primary"><ul class="md-nav__list">
          <li class="md-nav__item md-nav__item--active md-nav__item--nested"><label class="md-nav__link">Thème 2</label>
            <nav class="md-nav"><ul class="md-nav__list">
              <li class="md-nav__item md-nav__item--active md-nav__item--section">
                <div class="md-nav__link md-nav__container"><a href="./" class="md-nav__link md-nav__link--active">Arbres</a></div>
                <nav class="md-nav"><ul><li class="md-nav__item"><a href="exos/" class="md-nav__link">Exercices</a></li></ul></nav>
              </li></ul></nav></li></ul></nav></body></html>"#;
        assert_eq!(trail(html), ["Thème 2"]);
    }

    #[test]
    fn sphinx_and_docusaurus_sidebars_give_their_sections() {
        // The Read the Docs theme: the current page's link and the items above it are `current`.
        let rtd = r##"<html><body><div class="wy-menu wy-menu-vertical"><ul class="current">
          <li class="toctree-l1 current"><a class="reference internal" href="index.html">Graphs</a>
            <ul class="current"><li class="toctree-l2 current"><a class="current reference internal" href="#">Exercises</a>
              <ul><li class="toctree-l3"><a class="reference internal" href="#bfs">BFS</a></li></ul></li></ul></li></ul></div></body></html>"##;
        assert_eq!(trail(rtd), ["Graphs"]);
        // Jupyter Book (PyData's sidebar): the chapter's item is `active` as the page's is.
        let book = r##"<html><body><nav><ul class="current nav bd-sidenav">
          <li class="toctree-l1 current active has-children"><a class="reference internal" href="intro.html">3. Data and Types</a>
            <input checked="" class="toctree-checkbox" type="checkbox"/><label class="toctree-toggle"><i class="fa-solid"></i></label>
            <ul class="current"><li class="toctree-l2"><a class="reference internal" href="lists.html">3.2. Lists</a></li>
            <li class="toctree-l2 current active"><a class="current reference internal" href="#">3.14. Exercises</a></li></ul></li></ul></nav></body></html>"##;
        assert_eq!(trail(book), ["3. Data and Types"]);
        // Docusaurus: a category's collapsible link labels it; its toggle button has no say.
        let docusaurus = r#"<html><body><nav class="menu"><ul class="menu__list">
          <li class="theme-doc-sidebar-item-category menu__list-item"><div class="menu__list-item-collapsible">
            <a class="menu__link menu__link--sublist menu__link--active" href="/docs/loops">Loops</a><button aria-label="Toggle">›</button></div>
            <ul class="menu__list"><li class="menu__list-item"><a class="menu__link menu__link--active" aria-current="page" href="/docs/loops/exercises">Exercises</a></li></ul>
          </li></ul></nav></body></html>"#;
        assert_eq!(trail(docusaurus), ["Loops"]);
        // Hugo's Learn theme: the page's item is `active`, the sections above it `parent`.
        let learn = r#"<html><body><nav id="sidebar"><ul class="topics">
          <li data-nav-id="/algo/" class="dd-item parent"><a href="/algo/">Algorithmique <i class="fas fa-check read-icon"></i></a>
            <ul><li data-nav-id="/algo/tris/" class="dd-item parent"><a href="/algo/tris/">Tris</a>
              <ul><li data-nav-id="/algo/tris/exos/" class="dd-item active"><a href="/algo/tris/exos/">Exercices</a></li></ul></li></ul></li>
          <li data-nav-id="/web/" class="dd-item"><a href="/web/">Web</a></li></ul></nav></body></html>"#;
        assert_eq!(trail(learn), ["Algorithmique", "Tris"]);
        // Hugo Book: a flat section is a label over its pages.
        let book = r#"<html><body><nav><div class="book-menu-content"><ul>
          <li class="book-section-flat"><span>Graphes</span><ul>
            <li><a href="/docs/graphes/cours/">Cours</a></li>
            <li><a href="/docs/graphes/exos/" class="active">Exercices</a></li></ul></li></ul></div></nav></body></html>"#
            .replace("<nav>", r#"<nav class="book-menu">"#);
        assert_eq!(trail(&book), ["Graphes"]);
        // Quarto: a section's label and its toggle are in one container.
        let quarto = r##"<html><body><nav id="quarto-sidebar" class="sidebar"><ul class="list-unstyled mt-1">
          <li class="sidebar-item sidebar-item-section"><div class="sidebar-item-container">
            <a class="sidebar-item-text sidebar-link text-start" data-bs-toggle="collapse" data-bs-target="#s1"><span class="menu-text">Chapitre 2 : Booléens</span></a>
            <a class="sidebar-item-toggle text-start" data-bs-toggle="collapse"><i class="bi bi-chevron-right ms-2"></i></a></div>
            <ul id="s1" class="collapse list-unstyled sidebar-section depth1 show">
              <li class="sidebar-item"><div class="sidebar-item-container"><a href="./exos.html" class="sidebar-item-text sidebar-link active"><span class="menu-text">Exercices</span></a></div></li></ul></li></ul></nav></body></html>"##;
        assert_eq!(trail(quarto), ["Chapitre 2 : Booléens"]);
        // Hugo's Docsy: a section's label is a link in a `<label>` after the section's toggle.
        let docsy = r##"<html><body><nav class="td-sidebar-nav"><ul class="td-sidebar-nav__section">
          <li class="td-sidebar-nav__section-title td-sidebar-nav__section with-child active-path">
            <a href="/cours/" class="align-left ps-0 td-sidebar-link td-sidebar-link__section tree-root"><span>Cours</span></a>
            <ul class="ul-1"><li class="td-sidebar-nav__section-title td-sidebar-nav__section with-child active-path">
              <input type="checkbox" id="m-graphes-check" checked/>
              <label for="m-graphes-check"><a href="/cours/graphes/" class="align-left ps-0 td-sidebar-link td-sidebar-link__section"><span>Graphes</span></a></label>
              <ul class="ul-2 foldable"><li class="td-sidebar-nav__section-title td-sidebar-nav__section without-child active-path">
                <input type="checkbox" id="m-exos-check" checked/>
                <label for="m-exos-check"><a href="/cours/graphes/exos/" class="align-left ps-0 active td-sidebar-link td-sidebar-link__page"><span class="td-sidebar-nav-active-item">Exercices</span></a></label>
              </li></ul></li></ul></li></ul></nav></body></html>"##;
        assert_eq!(trail(docsy), ["Cours", "Graphes"]);
    }
}
