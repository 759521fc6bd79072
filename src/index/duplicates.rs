//! Duplicate pages: a page whose chunks say exactly what another page of the same source says.
//!
//! Generators publish some pages twice: mdBook writes the book's first chapter again as the
//! root `index.html`, and a site may keep an alias or a copy of a page under a second path.
//! Indexed twice, such a page doubles its share of the bundle, counts twice in its section's
//! evidence and fills two places of a result list with one text (the search's near-duplicate
//! step hides the second only when both reach the same list). A page is a **duplicate** when it
//! gives the same chunks as an earlier page of its source, field for field (text, title, headings,
//! document type and every scope field), leaving aside what only names the page (id, URL, file
//! path, section key and the ids a correction answers). One page of each group of duplicates is
//! indexed and the others are left out, each with the reason "the same text as PAGE" in the
//! report: nothing a student can find is lost. The page kept is not a folder's index page
//! (`index.html`, `README`) if one of them is not: the named page (`introduction.html`) is the one
//! a table of contents links to; then the one in the fewest folders (a Docusaurus site's current
//! `docs/intro/`, not its older version's `docs/1.0/intro/`, nor a copy kept under a second
//! path); then the first in path order.

use super::Indexed;
use crate::format::ChunkRecord;
use std::collections::HashMap;

/// The chunk with what only names its page cleared: two pages whose chunks are equal this way
/// say the same thing.
fn content(c: &ChunkRecord) -> ChunkRecord {
    ChunkRecord {
        id: String::new(),
        url: None,
        path: None,
        section_key: None,
        answers: None,
        ..c.clone()
    }
}

/// Leaves out every page whose chunks duplicate another's of its source (module docs); returns
/// how many pages were left out. Run before [`super::lessons::group`], so a copy does not count
/// as a lesson folder's page. Idempotent.
pub fn drop_duplicates(indexed: &mut Indexed) -> usize {
    let spans = indexed.page_spans();
    // The pages of each (source, content), in page order.
    let mut groups: HashMap<(&str, Vec<ChunkRecord>), Vec<usize>> = HashMap::new();
    for (i, p) in indexed.pages.iter().enumerate() {
        if p.skipped.is_none() && p.chunks > 0 {
            let chunks = indexed.chunks[spans[i].clone()]
                .iter()
                .map(content)
                .collect();
            groups.entry((&p.source, chunks)).or_default().push(i);
        }
    }
    let groups: Vec<Vec<usize>> = groups.into_values().filter(|g| g.len() > 1).collect();
    let mut left_out = Vec::new();
    for group in &groups {
        // Named pages first, then the shallowest, then the first in path order.
        let kept = *group
            .iter()
            .min_by_key(|&&i| {
                let path = &indexed.pages[i].path;
                let name = path.rsplit('/').next().unwrap_or("");
                (super::index_file(name), path.matches('/').count(), i)
            })
            .expect("a group has pages");
        let why = format!(
            "the same text as {} (indexed once)",
            indexed.pages[kept].path
        );
        left_out.extend(
            group
                .iter()
                .filter(|&&i| i != kept)
                .map(|&i| (i, why.clone())),
        );
    }
    leave_out(indexed, left_out)
}

/// Leaves out the pages `(page, why)` of `indexed` once read: their chunks removed, the reason
/// kept for the report; returns how many.
pub(super) fn leave_out(indexed: &mut Indexed, pages: Vec<(usize, String)>) -> usize {
    let spans = indexed.page_spans();
    let mut keep = vec![true; indexed.chunks.len()];
    for (i, why) in &pages {
        keep[spans[*i].clone()].fill(false);
        let p = &mut indexed.pages[*i];
        p.chunks = 0;
        p.skipped = Some(why.clone());
    }
    let mut keep = keep.into_iter();
    indexed.chunks.retain(|_| keep.next().unwrap_or(true));
    pages.len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::PageOutcome;

    use crate::index::fixtures::indexed;

    fn page(path: &str, texts: &[&str]) -> (PageOutcome, Vec<ChunkRecord>) {
        let texts: Vec<String> = texts.iter().map(|t| t.to_string()).collect();
        crate::index::fixtures::page(path, "Introduction", &texts)
    }

    #[test]
    fn of_a_page_and_its_copy_in_more_folders_the_shallower_is_kept() {
        // A Docusaurus site with an older version of its course, a lesson's instructor view.
        let text = &["Une pile est LIFO.", "Empiler puis dépiler."];
        let mut ix = indexed(vec![
            page("docs/1.0/piles/index.html", text),
            page("docs/piles/index.html", text),
            page("docs/next/piles/index.html", text),
            page("instructor/reference.html", &["Glossaire."]),
            page("reference.html", &["Glossaire."]),
        ]);
        assert_eq!(drop_duplicates(&mut ix), 3);
        let kept: Vec<&str> = (ix.pages.iter())
            .filter(|p| p.skipped.is_none())
            .map(|p| p.path.as_str())
            .collect();
        assert_eq!(kept, ["docs/piles/index.html", "reference.html"]);
    }

    #[test]
    fn an_mdbook_root_index_that_repeats_the_first_chapter_is_left_out_for_the_named_page() {
        let intro = &["Welcome to the book.", "How to read it."];
        let mut ix = indexed(vec![
            page("ch01-loops.html", &["A loop repeats."]),
            page("index.html", intro),
            page("introduction.html", intro),
        ]);
        assert_eq!(drop_duplicates(&mut ix), 1);
        let paths: Vec<_> = ix.chunks.iter().map(|c| c.path.clone().unwrap()).collect();
        assert_eq!(
            paths,
            ["ch01-loops.html", "introduction.html", "introduction.html"]
        );
        let root = &ix.pages[1];
        assert_eq!(root.chunks, 0);
        assert_eq!(
            root.skipped.as_deref(),
            Some("the same text as introduction.html (indexed once)")
        );
        // Running it again changes nothing.
        assert_eq!(drop_duplicates(&mut ix), 0);
        assert_eq!(ix.chunks.len(), 3);
    }

    #[test]
    fn pages_that_differ_in_a_scope_field_or_a_word_are_both_kept() {
        let (a, ca) = page("t1/exercices.html", &["Exercice 1. Écrire une boucle."]);
        let (b, mut cb) = page("t2/exercices.html", &["Exercice 1. Écrire une boucle."]);
        cb[0].chapter = Some("2".into());
        let (c, cc) = page("t3/exercices.html", &["Exercice 1. Écrire deux boucles."]);
        let mut ix = indexed(vec![(a, ca), (b, cb), (c, cc)]);
        assert_eq!(drop_duplicates(&mut ix), 0);
        assert_eq!(ix.chunks.len(), 3);
    }

    #[test]
    fn the_same_page_in_two_sources_is_kept_in_each() {
        let (a, ca) = page("cours.html", &["Les piles."]);
        let (mut b, cb) = page("cours.html", &["Les piles."]);
        b.source = "other".into();
        let mut ix = indexed(vec![(a, ca), (b, cb)]);
        assert_eq!(drop_duplicates(&mut ix), 0);
    }

    #[test]
    fn without_a_named_copy_the_first_page_in_path_order_is_kept() {
        let text = &["Même contenu."];
        let mut ix = indexed(vec![
            page("a/copie.html", text),
            page("b/copie.html", text),
            page("c/copie.html", text),
        ]);
        assert_eq!(drop_duplicates(&mut ix), 2);
        assert_eq!(ix.chunks.len(), 1);
        assert_eq!(ix.chunks[0].path.as_deref(), Some("a/copie.html"));
        assert!(ix.pages[2]
            .skipped
            .as_deref()
            .unwrap()
            .contains("a/copie.html"));
    }
}
