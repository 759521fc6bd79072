//! Lesson folders: the section a page belongs to when its site names no chapter.
//!
//! Section evidence, section coverage, "show the whole section" and relaxation group chunks by
//! their section (`section_key`). With a chapter (a `chapter` rule, a `chsr:chapter` meta tag,
//! a `data-chsr-chapter` attribute) a section is every page of the chapter; without one, each
//! page used to be its own section, so a lesson published as a course page and its exercise
//! and correction pages (`…/1.2_Boucles/cours/`, `…/1.2_Boucles/exercices/`) was split in
//! three sections that compete instead of adding up.
//!
//! Course sites put a lesson's pages in one folder. Without a chapter, a **lesson folder** is
//! one section: a folder (not the source's root) that directly holds between two and
//! [`MAX_LESSON_PAGES`] of the source's pages (`folder/page.html` or `folder/page/index.html`
//! each count once), at least one of them a course page (more of its chunks course text,
//! `textbook_section`, than of any other type): a course, its introduction, its exercises and
//! their corrections. Any
//! other folder keeps its pages as their own sections: one holding more pages is a part of the
//! course (a book's chapter with a page per section, a list of projects), one holding only
//! exercises or corrections is no lesson (two exam papers' corrections, two tests), and a page
//! alone in its folder stays alone. A source's `section_by = "page"` keeps every page its own
//! section; `section_by = "heading"` is not affected.

use super::Indexed;
use crate::format::ChunkRecord;
use std::collections::HashMap;

/// The most pages a lesson folder holds: a course page and its companions (exercises,
/// corrections, a summary).
pub const MAX_LESSON_PAGES: usize = 4;

/// The folder a page's lesson would be (its path without the page's own name: `a/b/c.html` and
/// `a/b/c/index.html` are both in `a/b`), or `None` for a page at the source's root.
pub fn lesson_folder(path: &str) -> Option<&str> {
    let path = path.trim_end_matches('/');
    let (dir, file) = path.rsplit_once('/')?;
    let dir = if super::index_file(file) {
        // A folder's index page is that folder's page: its lesson is the folder above.
        dir.rsplit_once('/')?.0
    } else {
        dir
    };
    (!dir.is_empty()).then_some(dir)
}

/// Gives the chunks of pages in a lesson folder the folder's section (`source:folder/`), for
/// pages whose section is theirs by default ([`super::PageOutcome::default_section`]) and chunks
/// without a chapter. A page with no folder of its own (every page in a folder at the site's
/// root: `c10c/`, `c10e/`) is in the lesson of the navigation section that holds it
/// ([`super::PageOutcome::nav_trail`], `source:nav:Part › Section`), on the same terms.
/// Idempotent.
pub fn group(indexed: &mut Indexed) {
    let spans = indexed.page_spans();
    // Each page's lesson, if its section would be its own (a page left out has none).
    let folder: Vec<Option<String>> = indexed
        .pages
        .iter()
        .map(|p| {
            let nav =
                || (!p.nav_trail.is_empty()).then(|| format!("nav:{}", p.nav_trail.join(" › ")));
            let lesson = lesson_folder(&p.path).map(|f| format!("{f}/")).or_else(nav);
            lesson.filter(|_| p.default_section)
        })
        .collect();
    // (pages, course pages) per (source, folder).
    let mut folders: HashMap<(&str, &str), (usize, usize)> = HashMap::new();
    for ((p, span), f) in indexed.pages.iter().zip(&spans).zip(&folder) {
        if let Some(f) = f {
            let n = folders.entry((&p.source, f)).or_default();
            n.0 += 1;
            n.1 += usize::from(course_page(&indexed.chunks[span.clone()]));
        }
    }
    let keys: Vec<Option<String>> = indexed
        .pages
        .iter()
        .zip(&folder)
        .map(|(p, f)| {
            let f = f.as_deref()?;
            let (pages, courses) = folders[&(p.source.as_str(), f)];
            ((2..=MAX_LESSON_PAGES).contains(&pages) && courses >= 1)
                .then(|| format!("{}:{f}", p.source))
        })
        .collect();
    for (span, key) in spans.into_iter().zip(keys) {
        if let Some(key) = key {
            for c in indexed.chunks[span]
                .iter_mut()
                .filter(|c| c.chapter.is_none())
            {
                c.section_key = Some(key.clone());
            }
        }
    }
}

/// Names the pages that share their title with another page of their source by the navigation
/// section that holds them ([`super::PageOutcome::nav_trail`]). A course published as one page
/// per role and chapter ("Cours", "Activités", "Exercices", "Révision" in each chapter's section
/// of the sidebar) gave a dozen chapters' exercises the same chapter title, "Exercices": the
/// words a student searches for, the chapter's, were on none of them, and every result card read
/// "Exercices". Such a page's chunks take the section's label as their chapter title (indexed
/// with their text) where it was the page's title, and the page's title becomes "Section ›
/// Title", as a breadcrumb names it. A title of one page, or a page outside any section, is kept.
/// Idempotent.
pub fn name_shared_titles(indexed: &mut Indexed) {
    let spans = indexed.page_spans();
    let titles: Vec<Option<String>> = spans
        .iter()
        .map(|span| indexed.chunks[span.clone()].first()?.title.clone())
        .collect();
    let mut pages: HashMap<(&str, String), usize> = HashMap::new();
    for (p, t) in indexed.pages.iter().zip(&titles) {
        if let Some(t) = t {
            *pages.entry((&p.source, role_name(t))).or_default() += 1;
        }
    }
    let renamed: Vec<_> = indexed
        .pages
        .iter()
        .zip(&titles)
        .zip(spans)
        .filter_map(|((p, t), span)| {
            // The nearest section named otherwise than the page: a folder of one page is a
            // section of its own, named as the page, in MkDocs' navigation built from folders.
            let t = t.as_ref()?;
            let name = role_name(t);
            let section = p.nav_trail.iter().rev().find(|s| role_name(s) != name)?;
            let named = t.starts_with(&format!("{section} › "));
            (pages[&(p.source.as_str(), name)] > 1 && !named)
                .then(|| (span, t.clone(), section.clone()))
        })
        .collect();
    for (span, t, section) in renamed {
        let named = format!("{section} › {t}");
        for c in &mut indexed.chunks[span] {
            if c.chapter_title.as_ref() == Some(&t) {
                c.chapter_title = Some(section.clone());
            }
            c.title = Some(named.clone());
        }
    }
}

/// A page's title as a name two pages may share: without the section number a generator puts
/// before it ("3.14. Exercises" and "2.11. Exercises" in a Jupyter Book), case folded.
fn role_name(title: &str) -> String {
    super::html::without_section_number(title)
        .trim()
        .to_lowercase()
}

/// Whether a page is a course page: it holds more course text (`textbook_section`, or one of its
/// aliases) than chunks of any other type. A lesson's course page often carries its own
/// exercises and their corrections (a course on lists with a dozen worked exercises has about
/// as many exercise and correction chunks together as course text); it is still the lesson's
/// course as long as no single other type outweighs its teaching.
fn course_page(chunks: &[ChunkRecord]) -> bool {
    let mut course = 0;
    let mut others: Vec<(&str, usize)> = Vec::new();
    for c in chunks {
        let t = crate::doctype::canonical(&c.doc_type).unwrap_or(&c.doc_type);
        if t == "textbook_section" {
            course += 1;
        } else if let Some(n) = others.iter_mut().find(|(o, _)| *o == t) {
            n.1 += 1;
        } else {
            others.push((t, 1));
        }
    }
    course > 0 && others.iter().all(|&(_, n)| course > n)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::PageOutcome;

    #[test]
    fn a_pages_lesson_is_the_folder_above_it() {
        let folder = |p| lesson_folder(p);
        assert_eq!(
            folder("t1/1.2_boucles/cours/index.html"),
            Some("t1/1.2_boucles")
        );
        assert_eq!(
            folder("t1/1.2_boucles/exercices.html"),
            Some("t1/1.2_boucles")
        );
        assert_eq!(folder("cours/piles.md"), Some("cours"));
        assert_eq!(folder("cours/index.md"), None);
        assert_eq!(folder("chapitre1/README.md"), None);
        assert_eq!(folder("index.html"), None);
        assert_eq!(folder("page.html"), None);
        assert_eq!(folder("a/index.html"), None);
    }

    fn page(path: &str, chunks: usize, default_section: bool) -> PageOutcome {
        PageOutcome {
            source: "s".into(),
            path: path.into(),
            chunks,
            skipped: None,
            default_section,
            pagefind_body: false,
            nav_trail: Vec::new(),
            listed: false,
        }
    }

    fn chunk(key: &str, chapter: Option<&str>, doc_type: &str) -> ChunkRecord {
        ChunkRecord {
            section_key: Some(key.into()),
            chapter: chapter.map(String::from),
            doc_type: doc_type.into(),
            ..Default::default()
        }
    }

    #[test]
    fn a_lessons_pages_share_one_section_and_other_folders_do_not() {
        // (path, its chunks' doc types, whether its section is the page by default)
        let mut pages: Vec<(String, Vec<&str>, bool)> = [
            // A lesson: a course page (one of its chunks an exercise) and its exercises.
            (
                "t1/boucles/cours/index.html",
                vec!["textbook_section", "cours", "exercise"],
                true,
            ),
            (
                "t1/boucles/exercices/index.html",
                vec!["exercise", "solution"],
                true,
            ),
            // A page left out counts for nothing.
            ("t1/boucles/brouillon/index.html", vec![], true),
            // Alone in its folder.
            ("t1/listes/cours/index.html", vec!["textbook_section"], true),
            // Two exam papers' corrections: no course.
            ("annales/2024/sujet1.html", vec!["solution"], true),
            ("annales/2024/sujet2.html", vec!["solution"], true),
            // A lesson's introduction and its course: one lesson.
            ("t3/tris/intro.html", vec!["textbook_section"], true),
            (
                "t3/tris/cours.html",
                vec!["textbook_section", "textbook_section"],
                true,
            ),
            // The course page of a source that keeps pages apart (`section_by = "page"`).
            ("t2/arbres/cours.html", vec!["textbook_section"], false),
            ("t2/arbres/exercices.html", vec!["exercise"], true),
        ]
        .into_iter()
        .map(|(p, d, s)| (p.to_string(), d, s))
        .collect();
        // Five pages, one of them a course: a part of the course (a project list), not a lesson.
        pages.push(("projets/intro.html".into(), vec!["textbook_section"], true));
        for i in 0..4 {
            pages.push((format!("projets/p{i}.html"), vec!["exercise"], true));
        }
        let mut x = Indexed::default();
        for (path, docs, default_section) in &pages {
            x.pages.push(page(path, docs.len(), *default_section));
            for d in docs {
                x.chunks.push(chunk(&format!("s:{path}"), None, d));
            }
        }
        // A chunk with a chapter keeps the chapter's section.
        x.chunks[1] = chunk("s:3.1", Some("3.1"), "textbook_section");
        group(&mut x);
        let mut want: Vec<String> = ["s:t1/boucles/", "s:3.1", "s:t1/boucles/"]
            .into_iter()
            .chain(["s:t1/boucles/"; 2])
            .map(String::from)
            .collect();
        for (path, docs, _) in &pages[3..] {
            let key = if path.starts_with("t3/tris/") {
                "s:t3/tris/".into()
            } else {
                format!("s:{path}")
            };
            want.extend(docs.iter().map(|_| key.clone()));
        }
        let keys = |x: &Indexed| -> Vec<String> {
            x.chunks
                .iter()
                .map(|c| c.section_key.clone().unwrap_or_default())
                .collect()
        };
        assert_eq!(keys(&x), want);
        // Twice is once.
        group(&mut x);
        assert_eq!(keys(&x), want);
    }

    /// A page of source `s` in the navigation sections `trail`, its chunks titled `title`.
    fn in_nav(x: &mut Indexed, path: &str, trail: &[&str], title: &str, docs: &[&str]) {
        let mut p = page(path, docs.len(), true);
        p.nav_trail = trail.iter().map(|t| t.to_string()).collect();
        x.pages.push(p);
        for d in docs {
            let mut c = chunk(&format!("s:{path}"), None, d);
            (c.title, c.chapter_title) = (Some(title.into()), Some(title.into()));
            x.chunks.push(c);
        }
    }

    #[test]
    fn pages_named_by_their_role_take_their_sections_name() {
        // David Roche's Terminale NSI course: each chapter's section of the sidebar holds a
        // "Cours" and an "Exercices" page, in folders at the site's root.
        let mut x = Indexed::default();
        let graphs = ["Partie 2", "C10 : algo graphes"];
        in_nav(
            &mut x,
            "c10c/index.html",
            &graphs,
            "Cours",
            &["textbook_section"; 2],
        );
        in_nav(
            &mut x,
            "c10e/index.html",
            &graphs,
            "Exercices",
            &["exercise"],
        );
        in_nav(
            &mut x,
            "c11c/index.html",
            &["Partie 3", "C11 : routage"],
            "Cours",
            &["textbook_section"],
        );
        // A title of one page, and a shared title outside any section, stay.
        in_nav(
            &mut x,
            "c11r/index.html",
            &["Partie 3", "C11 : routage"],
            "Révision",
            &["textbook_section"],
        );
        in_nav(
            &mut x,
            "c11e/index.html",
            &["Partie 3", "C11 : routage"],
            "Exercices",
            &["exercise"],
        );
        in_nav(&mut x, "a/index.html", &[], "Cours", &["textbook_section"]);
        // A section named as the page is no name for it: the one above is.
        in_nav(
            &mut x,
            "t1/tris/exos/index.html",
            &["T1", "Tris", "Exercices"],
            "Exercices",
            &["exercise"],
        );
        // Titles that differ only by their section number are one name.
        in_nav(
            &mut x,
            "b/x.html",
            &["3. Data"],
            "3.14. Exercises",
            &["exercise"],
        );
        in_nav(
            &mut x,
            "c/x.html",
            &["4. Higher-Order"],
            "4.9. Exercises",
            &["exercise"],
        );
        // A chapter title a rule gave is kept; the page is still named.
        x.chunks[1].chapter_title = Some("Graphes".into());
        name_shared_titles(&mut x);
        group(&mut x);
        let got: Vec<(String, String, String)> = x
            .chunks
            .iter()
            .map(|c| {
                let f = |v: &Option<String>| v.clone().unwrap_or_default();
                (f(&c.title), f(&c.chapter_title), f(&c.section_key))
            })
            .collect();
        let (c10, c11) = (
            "s:nav:Partie 2 › C10 : algo graphes",
            "s:nav:Partie 3 › C11 : routage",
        );
        let want = [
            ("C10 : algo graphes › Cours", "C10 : algo graphes", c10),
            ("C10 : algo graphes › Cours", "Graphes", c10),
            ("C10 : algo graphes › Exercices", "C10 : algo graphes", c10),
            ("C11 : routage › Cours", "C11 : routage", c11),
            ("Révision", "Révision", c11),
            ("C11 : routage › Exercices", "C11 : routage", c11),
            ("Cours", "Cours", "s:a/index.html"),
            ("Tris › Exercices", "Tris", "s:t1/tris/exos/index.html"),
            ("3. Data › 3.14. Exercises", "3. Data", "s:b/x.html"),
            (
                "4. Higher-Order › 4.9. Exercises",
                "4. Higher-Order",
                "s:c/x.html",
            ),
        ]
        .map(|(a, b, c)| (a.to_string(), b.to_string(), c.to_string()));
        assert_eq!(got, want);
        // Twice is once, even for two pages of one section that share their title.
        in_nav(&mut x, "d/x.html", &["D"], "Cours", &["textbook_section"]);
        in_nav(&mut x, "d/y.html", &["D"], "Cours", &["textbook_section"]);
        name_shared_titles(&mut x);
        name_shared_titles(&mut x);
        assert_eq!(x.chunks.last().unwrap().title.as_deref(), Some("D › Cours"));
        assert_eq!(
            x.chunks[0].title.as_deref(),
            Some("C10 : algo graphes › Cours")
        );
    }

    #[test]
    fn a_course_page_teaches_more_than_it_asks_or_answers() {
        let page = |types: &[(&str, usize)]| -> Vec<ChunkRecord> {
            types
                .iter()
                .flat_map(|&(t, n)| (0..n).map(move |_| chunk("s:p", None, t)))
                .collect()
        };
        // A course on lists with its worked exercises: 26 course chunks, 13 exercises and 15
        // corrections (less than half of its chunks, more than either other type).
        assert!(course_page(&page(&[
            ("textbook_section", 26),
            ("exercise", 13),
            ("solution", 15)
        ])));
        // An alias of course text counts as course text.
        assert!(course_page(&page(&[("cours", 2), ("exercise", 1)])));
        // As many exercises as course text, or more corrections: an exercise page.
        assert!(!course_page(&page(&[
            ("textbook_section", 6),
            ("exercise", 6)
        ])));
        assert!(!course_page(&page(&[
            ("textbook_section", 1),
            ("exercise", 9),
            ("solution", 12)
        ])));
        assert!(!course_page(&[]));
    }
}
