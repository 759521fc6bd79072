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
//! path); then the first in path order. A page the site's navigation lists comes before all
//! that, where the navigation lists some of the source's pages
//! ([`super::PageOutcome::listed`]).
//!
//! A page the navigation does not list is also left out when most of its words are a page's
//! it lists ([`drop_unlisted_copies`]): a teacher's earlier version or working copy of a lesson
//! kept beside it (`c8a copie/`, `cours-source.md` beside the `cours-git.md` the navigation
//! links to, a synchronisation's "Copie en conflit"), which the generator publishes but no
//! student is led to, and which would otherwise fill a result list with a second version of
//! each passage.

use super::Indexed;
use crate::format::ChunkRecord;
use crate::rerank::dedup;
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
        // Listed pages first, then named pages, then the shallowest, then the first in path
        // order.
        let kept = *group
            .iter()
            .min_by_key(|&&i| {
                let p = &indexed.pages[i];
                let name = p.path.rsplit('/').next().unwrap_or("");
                let depth = p.path.matches('/').count();
                (!p.listed, super::index_file(name), depth, i)
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

/// How much of their words an unlisted page and a listed one share (Jaccard similarity of their
/// word sets, [`dedup::word_set`]) for the unlisted one to be a copy: a version with a few
/// lines changed (0.85–1 on the sites tried), not a lesson that shares its subject's words.
pub const UNLISTED_COPY: f64 = 0.8;

/// Leaves out every page that the navigation does not list and whose words are, at
/// [`UNLISTED_COPY`] or more, those of a page of its source and scope that it lists (module
/// docs); returns how many pages were left out. Nothing happens in a source whose navigation
/// lists no page (a theme chsr does not read, Markdown without a generator's `nav`). Run after
/// [`drop_duplicates`]. Idempotent.
pub fn drop_unlisted_copies(indexed: &mut Indexed) -> usize {
    let spans = indexed.page_spans();
    let mut left_out = Vec::new();
    let pages = &indexed.pages;
    let mut by_source: Vec<(&str, Vec<usize>)> = Vec::new();
    for (i, p) in pages.iter().enumerate() {
        if p.skipped.is_some() || p.chunks == 0 {
            continue;
        }
        match by_source.last_mut() {
            Some((s, list)) if *s == p.source => list.push(i),
            _ => by_source.push((&p.source, vec![i])),
        }
    }
    for (_, list) in by_source {
        if !list.iter().any(|&i| pages[i].listed) || list.iter().all(|&i| pages[i].listed) {
            continue;
        }
        let chunks = |i: usize| &indexed.chunks[spans[i].clone()];
        let sets: Vec<Vec<u64>> = (list.iter())
            .map(|&i| {
                let text: Vec<&str> = chunks(i).iter().map(|c| c.text.as_str()).collect();
                dedup::word_set(&text.join("\n"))
            })
            .collect();
        let scope = |i: usize| chunks(i).first().map(|c| (&c.subject, &c.level, &c.lang));
        // A corrected version of a worksheet is no copy of it: its corrections are its own.
        let corrections = |i: usize| {
            let corrects = |c: &&ChunkRecord| super::copies::is_correction(c);
            chunks(i).iter().filter(corrects).count()
        };
        // Each unlisted page's most similar listed page (the first in path order on a tie).
        let mut copy_of: Vec<Option<(f64, usize)>> = vec![None; list.len()];
        for (a, b, sim) in dedup::similar_pairs(&sets, UNLISTED_COPY) {
            let (a, b) = (a as usize, b as usize);
            let (pa, pb) = (list[a], list[b]);
            let (copy, of) = match (pages[pa].listed, pages[pb].listed) {
                (false, true) => (a, pb),
                (true, false) => (b, pa),
                _ => continue,
            };
            let same = scope(list[copy]) == scope(of) && corrections(list[copy]) <= corrections(of);
            if same && copy_of[copy].is_none_or(|(best, _)| sim > best) {
                copy_of[copy] = Some((sim, of));
            }
        }
        for (k, found) in copy_of.into_iter().enumerate() {
            if let Some((sim, of)) = found {
                let why = format!(
                    "a copy of {}, which the site's navigation lists ({:.0} % of their words shared)",
                    pages[of].path,
                    sim * 100.0
                );
                left_out.push((list[k], why));
            }
        }
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

    /// A lesson of about 60 distinct words; `changed` of them replaced.
    fn lesson(topic: &str, changed: usize) -> Vec<String> {
        let words: Vec<String> = (0..60)
            .map(|i| match i < changed {
                true => format!("nouveau{i}"),
                false => format!("{topic}{i}"),
            })
            .collect();
        vec![words[..30].join(" "), words[30..].join(" ")]
    }

    fn listed(path: &str, texts: &[String], listed: bool) -> (PageOutcome, Vec<ChunkRecord>) {
        let (mut o, c) = crate::index::fixtures::page(path, "Cours", texts);
        o.listed = listed;
        (o, c)
    }

    fn kept(ix: &Indexed) -> Vec<&str> {
        (ix.pages.iter())
            .filter(|p| p.skipped.is_none())
            .map(|p| p.path.as_str())
            .collect()
    }

    #[test]
    fn a_page_the_navigation_does_not_list_is_left_out_for_the_near_copy_it_lists() {
        // A teacher's working copies beside the lesson the navigation links to (`c8a copie/`,
        // `cours-source.md` beside `cours-git.md`), and a lesson of its own that nothing lists.
        let mut ix = indexed(vec![
            listed("c8a copie/index.html", &lesson("graphe", 4), false),
            listed("c8a/index.html", &lesson("graphe", 0), true),
            listed("c9/cours-git.md", &lesson("arbre", 0), true),
            listed("c9/cours-source.md", &lesson("arbre", 2), false),
            listed("c9/ancien.md", &lesson("arbre", 20), false),
            listed("annexe.md", &lesson("tas", 0), false),
        ]);
        assert_eq!(drop_unlisted_copies(&mut ix), 2);
        assert_eq!(
            kept(&ix),
            [
                "c8a/index.html",
                "c9/cours-git.md",
                "c9/ancien.md",
                "annexe.md"
            ]
        );
        assert_eq!(
            ix.pages[0].skipped.as_deref(),
            Some("a copy of c8a/index.html, which the site's navigation lists (88 % of their words shared)")
        );
        assert_eq!(ix.chunks.len(), 8);
        // Running it again changes nothing.
        assert_eq!(drop_unlisted_copies(&mut ix), 0);
    }

    #[test]
    fn without_a_listed_page_or_in_another_scope_an_unlisted_page_is_kept() {
        // A theme chsr does not read marks no page: nothing tells a copy from its original.
        let pages = || {
            vec![
                listed("a/cours.html", &lesson("pile", 0), false),
                listed("b/cours.html", &lesson("pile", 1), false),
            ]
        };
        let mut ix = indexed(pages());
        assert_eq!(drop_unlisted_copies(&mut ix), 0);
        // Two listed pages that are near copies are both kept (the navigation shows both).
        let mut both = pages();
        both.iter_mut().for_each(|(o, _)| o.listed = true);
        assert_eq!(drop_unlisted_copies(&mut indexed(both)), 0);
        // A corrected version of a worksheet keeps its corrections.
        let mut corrected = pages();
        corrected[0].0.listed = true;
        corrected[1].1[1].doc_type = "solution".into();
        assert_eq!(drop_unlisted_copies(&mut indexed(corrected)), 0);
        // A copy for another level is that level's page.
        let mut other = pages();
        other[0].0.listed = true;
        other[1].1.iter_mut().for_each(|c| c.level = "l2".into());
        assert_eq!(drop_unlisted_copies(&mut indexed(other)), 0);
    }

    #[test]
    fn of_two_equal_pages_the_one_the_navigation_lists_is_kept() {
        let text = &["Même contenu.".to_string()];
        let mut ix = indexed(vec![
            listed("cours-source.md", text, false),
            listed("index.md", text, false),
            listed("z/cours-git.md", text, true),
        ]);
        assert_eq!(drop_duplicates(&mut ix), 2);
        assert_eq!(kept(&ix), ["z/cours-git.md"]);
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
