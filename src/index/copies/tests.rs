//! Tests of [`super`]: which pages are copies, what a page that holds others keeps.

use super::*;
use crate::index::PageOutcome;

use crate::index::fixtures::indexed;

/// A page titled `title` whose chunks hold these paragraphs, one chunk each, each after
/// its head line.
fn page(path: &str, title: &str, texts: &[&str]) -> (PageOutcome, Vec<ChunkRecord>) {
    let texts: Vec<String> = texts
        .iter()
        .enumerate()
        .map(|(i, t)| format!("{title} — Part {i}\n{t}"))
        .collect();
    crate::index::fixtures::page(path, title, &texts)
}

/// How many chunks of the page at `path` are indexed.
fn chunks_on(ix: &Indexed, path: &str) -> usize {
    (ix.chunks.iter())
        .filter(|c| c.path.as_deref() == Some(path))
        .count()
}

fn kept(ix: &Indexed) -> Vec<&str> {
    ix.pages
        .iter()
        .filter(|p| p.skipped.is_none())
        .map(|p| p.path.as_str())
        .collect()
}

/// `n` passages of a lesson on `topic`, each a line of its own, all of one length.
fn passages(topic: &str, n: usize) -> Vec<String> {
    (0..n)
        .map(|i| {
            format!("{topic:>5}: passage {i:02} of the lesson, long enough to be one of its own.")
        })
        .collect()
}

fn refs(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

const NOTE: &str = "Instructor note: learners often forget the colon at the end of the for line.";

#[test]
fn an_all_in_one_page_and_the_instructor_views_are_left_out_and_every_passage_is_kept() {
    let (loops, files) = (passages("loops", 20), passages("files", 20));
    let aio: Vec<&str> = ["Content from Loops"]
        .into_iter()
        .chain(refs(&loops))
        .chain(["Content from Files"])
        .chain(refs(&files))
        .collect();
    let mut instructor_loops = refs(&loops);
    instructor_loops.push(NOTE);
    let mut instructor_files = refs(&files);
    instructor_files.push("Estimated time: 30 minutes");
    let mut ix = indexed(vec![
        page("05-loop.html", "Loops", &refs(&loops)),
        page("06-files.html", "Files", &refs(&files)),
        page("aio.html", "All in One View", &aio),
        page("instructor/05-loop.html", "Loops", &instructor_loops),
        page("instructor/06-files.html", "Files", &instructor_files),
    ]);
    assert_eq!(drop_copies(&mut ix), 1);
    // The page that gathers the others goes, its own lines ("Content from …") being what
    // gathers them; each instructor's view keeps only what it adds to the learner's page
    // (a note, an estimated time), where a student's result opens: nothing is lost.
    assert_eq!(
        kept(&ix),
        [
            "05-loop.html",
            "06-files.html",
            "instructor/05-loop.html",
            "instructor/06-files.html"
        ]
    );
    assert_eq!(
        ix.pages[2].skipped.as_deref(),
        Some("a copy: its text is on other pages (05-loop.html, 06-files.html)")
    );
    assert_eq!((ix.pages[3].chunks, ix.pages[4].chunks), (1, 1));
    assert_eq!(
        ix.warnings,
        [
            "book/instructor/05-loop.html: 20 of its 21 chunks left out and 0 cut to their own paragraphs, their text being on pages it holds whole (05-loop.html)",
            "book/instructor/06-files.html: 20 of its 21 chunks left out and 0 cut to their own paragraphs, their text being on pages it holds whole (06-files.html)"
        ]
    );
    let texts: String = ix.chunks.iter().map(|c| c.text.as_str()).collect();
    let time = "Estimated time: 30 minutes";
    for t in loops
        .iter()
        .chain(&files)
        .map(String::as_str)
        .chain([NOTE, time])
    {
        assert_eq!(texts.matches(t).count(), 1, "{t}");
    }
    assert_eq!(drop_copies(&mut ix), 0);
}

#[test]
fn a_page_with_a_passage_of_its_own_or_another_scope_is_kept() {
    let loops = passages("loops", 20);
    let mut more = refs(&loops);
    more.push("A while loop runs for as long as its condition holds, maybe forever.");
    let (a, ca) = page("loops.html", "Loops", &refs(&loops));
    let (b, mut cb) = page("t2/loops.html", "Loops", &refs(&loops));
    for c in &mut cb {
        c.year = Some("2024".into());
    }
    let mut ix = indexed(vec![
        (a, ca),
        (b, cb),
        page("loops-more.html", "Loops again", &more),
        page("other-source.html", "Loops", &refs(&loops)),
    ]);
    ix.pages[3].source = "other".into();
    // loops-more.html holds loops.html and t2/loops.html whole and keeps only its own passage;
    // loops.html, without a year, is a copy of t2/loops.html, which every scope that admits it
    // admits; t2/loops.html is no copy of it, nor the other source's page.
    assert_eq!(drop_copies(&mut ix), 1);
    let kept: Vec<&str> = (ix.pages.iter())
        .filter(|p| p.skipped.is_none())
        .map(|p| p.path.as_str())
        .collect();
    assert_eq!(
        kept,
        ["t2/loops.html", "loops-more.html", "other-source.html"]
    );
    assert_eq!(ix.pages[2].chunks, 1);
    assert_eq!(
        ix.chunks
            .iter()
            .filter(|c| c.text.contains("passage 07"))
            .count(),
        2
    );
}

#[test]
fn a_print_page_or_a_section_page_keeps_only_its_own_text_beside_the_pages_it_shows() {
    let (loops, files) = (passages("loops", 12), passages("files", 12));
    let cover = "A course of programming for beginners, from the first loop to reading files and writing functions that use them.";
    let mut print: Vec<&str> = vec![cover, "Table of contents"];
    print.extend(refs(&loops));
    print.extend(refs(&files));
    let intro = "This chapter is about loops: read its pages in order, then do the exercises.";
    let mut section: Vec<&str> = vec![intro];
    section.extend(refs(&loops));
    let mut ix = indexed(vec![
        page("loops/index.html", "Loops", &section),
        page("loops/for.html", "For loops", &refs(&loops)),
        page("files.html", "Files", &refs(&files)),
        page("print_page/index.html", "Print", &print),
    ]);
    // Each lesson is kept, where its results open; the print page and the section page
    // keep what they add (the cover and its contents, the chapter's introduction).
    assert_eq!(drop_copies(&mut ix), 0);
    let chunks = |path: &str| chunks_on(&ix, path);
    assert_eq!(chunks("loops/for.html"), 12);
    assert_eq!(chunks("files.html"), 12);
    assert_eq!(chunks("loops/index.html"), 1);
    assert_eq!(chunks("print_page/index.html"), 2);
    let texts: String = ix.chunks.iter().map(|c| c.text.as_str()).collect();
    for t in loops
        .iter()
        .chain(&files)
        .map(String::as_str)
        .chain([cover, intro])
    {
        assert_eq!(texts.matches(t).count(), 1, "{t}");
    }
    assert_eq!(drop_copies(&mut ix), 0);
    assert_eq!(ix.chunks.len(), 27);
}

#[test]
fn a_chunk_that_adds_a_note_keeps_only_its_own_paragraphs() {
    let lesson = passages("loops", 8);
    let code = "```python\nfor x in range(3):\n\n    print(x)\n```";
    let own_code = "```python\nfor x in range(30):\n\n    print(x, x * x)\n```";
    let learner = format!(
        "{}\n\n{code}\n\n{}",
        lesson[..4].join("\n"),
        lesson[4..].join("\n")
    );
    let instructor = format!(
        "{}\n\n{code}\n\n{NOTE}\n\n{own_code}\n\n{}",
        lesson[..4].join("\n"),
        lesson[4..].join("\n")
    );
    let mut ix = indexed(vec![
        page("05-loop.html", "Loops", &[&learner]),
        page("instructor/05-loop.html", "Loops", &[&instructor]),
    ]);
    assert_eq!(drop_copies(&mut ix), 0);
    // The lesson's paragraphs and its code are the learner's page's; the note and the
    // instructor's own code block (a blank line inside it) stay, whole.
    assert_eq!(
        ix.chunks[1].text,
        format!("Loops — Part 0\n{NOTE}\n\n{own_code}")
    );
    assert_eq!(ix.chunks[0].text, format!("Loops — Part 0\n{learner}"));
    assert_eq!(
        ix.warnings,
        ["book/instructor/05-loop.html: 0 of its 1 chunks left out and 1 cut to their own paragraphs, their text being on pages it holds whole (05-loop.html)"]
    );
}

#[test]
fn a_page_without_chapter_holds_the_chapters_pages_it_shows() {
    // A print page has no chapter where the config reads chapters from the pages' paths.
    let (loops, files) = (passages("loops", 12), passages("files", 12));
    let cover = "A course of programming for beginners, from the first loop to reading files and writing functions that use them.";
    let mut print: Vec<&str> = vec![cover];
    print.extend(refs(&loops));
    print.extend(refs(&files));
    let chapter = |(o, mut cs): (PageOutcome, Vec<ChunkRecord>), ch: &str| {
        cs.iter_mut().for_each(|c| c.chapter = Some(ch.into()));
        (o, cs)
    };
    let mut ix = indexed(vec![
        chapter(page("01-loops/index.html", "Loops", &refs(&loops)), "01"),
        chapter(page("02-files/index.html", "Files", &refs(&files)), "02"),
        // The same lesson in another chapter is no copy of it.
        chapter(page("03-again/index.html", "Loops", &refs(&loops)), "03"),
        page("print_page/index.html", "Print", &print),
    ]);
    assert_eq!(drop_copies(&mut ix), 0);
    let on = |path: &str| chunks_on(&ix, path);
    assert_eq!(on("print_page/index.html"), 1);
    assert_eq!(
        (
            on("01-loops/index.html"),
            on("02-files/index.html"),
            on("03-again/index.html")
        ),
        (12, 12, 12)
    );
}

#[test]
fn a_chunk_that_a_kept_correction_answers_stays() {
    let statements = passages("ex", 10);
    let (sheet, mut cs) = page(
        "ex.html",
        "Ex",
        &[
            &statements.join("\n"),
            "Correction : la boucle tourne dix fois, une fois par élément de la liste.",
        ],
    );
    cs[0].doc_type = "exercise".into();
    cs[1].doc_type = "solution".into();
    cs[1].answers = Some(cs[0].id.clone());
    let (full, mut cf) = page(
        "ex-detail.html",
        "Ex",
        &[
            &statements.join("\n"),
            "Correction : la boucle tourne dix fois, une fois par élément de la liste.",
            "Correction détaillée : chaque tour de boucle lit un élément, dix tours en tout, puis la boucle s'arrête.",
        ],
    );
    cf[0].doc_type = "exercise".into();
    let statement = cf[0].id.clone();
    for c in &mut cf[1..] {
        c.doc_type = "solution".into();
        c.answers = Some(statement.clone());
    }
    let mut ix = indexed(vec![(sheet, cs), (full, cf)]);
    // ex-detail.html holds ex.html whole: its copy of the short correction goes, but its
    // own detailed correction answers its statements, which stay with it.
    assert_eq!(drop_copies(&mut ix), 0);
    let kept: Vec<&str> = ix.chunks.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(
        kept,
        [
            "book:ex.html#0",
            "book:ex.html#1",
            "book:ex-detail.html#0",
            "book:ex-detail.html#2"
        ]
    );
    assert!(ix.chunks[2].text.ends_with(&statements.join("\n")));
}

#[test]
fn a_short_page_or_one_with_short_lines_of_its_own_is_kept() {
    let loops = passages("loops", 20);
    let mut code = refs(&loops);
    code.extend([
        "x = 1",
        "y = x + 1",
        "print(x, y)",
        "z = [x, y]",
        "w = z * 2",
    ]);
    let mut ix = indexed(vec![
        page("a.html", "A", &refs(&loops[..2])),
        page("b.html", "B", &[&code.join("\n")]),
        page("c.html", "C", &refs(&loops)),
    ]);
    // a.html has too little text to tell; b.html's short lines are its own (over 2 % of
    // its text); c.html is all in b.html.
    assert_eq!(drop_copies(&mut ix), 1);
    assert_eq!(kept(&ix), ["a.html", "b.html"]);
}

#[test]
fn printable_copies_are_left_out_and_each_page_is_kept_once() {
    // Sixty pages, each with a printable copy that adds the same line: each page or its
    // copy is kept, one copy in place of its page once its line is its own.
    let mut all = Vec::new();
    for i in 0..60 {
        let text = passages(&format!("p{i:02}"), 10);
        let mut printable = refs(&text);
        printable.insert(0, "Printable version of this page, generated by the site.");
        all.push(page(&format!("p{i:02}.html"), "P", &refs(&text)));
        all.push(page(&format!("print/p{i:02}.html"), "P", &printable));
    }
    let mut ix = indexed(all);
    assert_eq!(drop_copies(&mut ix), 60);
    let kept = kept(&ix);
    assert_eq!(kept.iter().filter(|p| p.starts_with("print/")).count(), 1);
    let texts: String = ix.chunks.iter().map(|c| c.text.as_str()).collect();
    for i in 0..60 {
        let t = format!("  p{i:02}: passage 03 of the lesson");
        assert_eq!(texts.matches(&t).count(), 1, "{t}");
    }
}

#[test]
fn a_section_page_showing_its_one_child_page_is_the_copy() {
    // Hugo Relearn: each section has a print version (`index.print.html`) showing its pages
    // in full; a section of one page shows that page alone, nothing more. The page is kept,
    // though it is deeper in the folders; of a page and its copy under a second path (an older
    // version's folder), the shallower still is.
    let text = passages("integ", 8);
    let mut ix = indexed(vec![
        page("maths/calculus/index.print.html", "Calculus", &refs(&text)),
        page(
            "maths/calculus/indefinite-integration/index.html",
            "Indefinite Integration",
            &refs(&text),
        ),
        page("cours/piles.html", "Piles", &refs(&passages("piles", 8))),
        page(
            "v1/cours/piles.html",
            "Piles (v1)",
            &refs(&passages("piles", 8)),
        ),
        page(
            "cours/chapitre.html",
            "Chapitre",
            &refs(&passages("chap", 8)),
        ),
        page(
            "cours/chapitre/section.html",
            "Section",
            &refs(&passages("chap", 8)),
        ),
    ]);
    assert_eq!(drop_copies(&mut ix), 3);
    assert_eq!(
        kept(&ix),
        [
            "maths/calculus/indefinite-integration/index.html",
            "cours/piles.html",
            "cours/chapitre/section.html"
        ]
    );
}

#[test]
fn a_worksheet_is_kept_beside_its_corrected_version() {
    let statements = passages("td", 12);
    let (sheet, mut cs) = page("td.html", "TD", &refs(&statements));
    let (corrected, mut cc) = page(
        "td-corrige.html",
        "TD",
        &[
            &statements.join("\n"),
            "Correction : empiler puis dépiler rend le dernier élément empilé.",
        ],
    );
    cc[0].doc_type = "exercise".into();
    cc[1].doc_type = "solution".into();
    for c in &mut cs {
        c.doc_type = "exercise".into();
    }
    let mut ix = indexed(vec![(sheet, cs), (corrected, cc)]);
    assert_eq!(drop_copies(&mut ix), 0);
    // Both whole: the corrected version keeps its statements beside its corrections.
    assert_eq!(ix.chunks.len(), 14);
}

#[test]
fn pages_that_share_a_template_keep_each_its_own_line() {
    // Forty exercise pages, each the same long instructions and a statement of its own
    // (under 2 % of the page): none is a copy, nothing of theirs is lost.
    let rules = passages("rules", 25);
    let all = (0..40)
        .map(|i| {
            let mut text = refs(&rules);
            let own = format!("Exercice {i} : calculer {i} + 4.");
            text.push(&own);
            page(&format!("ex{i:02}.html"), "Exercice", &[&text.join("\n")])
        })
        .collect();
    let mut ix = indexed(all);
    assert_eq!(drop_copies(&mut ix), 0);
}

proptest::proptest! {
    /// A chunk keeps every line no page it holds has, in order, and drops only paragraphs
    /// whose every line is held.
    #[test]
    fn a_trimmed_chunk_keeps_every_line_of_its_own(
        lines in proptest::collection::vec(("[a-c ]{0,6}|```", proptest::bool::ANY), 0..24)
    ) {
        let body: Vec<&str> = lines.iter().map(|(l, _)| l.as_str()).collect();
        let c = ChunkRecord {
            title: Some("T".into()),
            text: format!("T — head\n{}", body.join("\n")),
            ..Default::default()
        };
        let held: Vec<bool> = lines
            .iter()
            .filter(|(l, _)| !l.trim().is_empty())
            .map(|(_, h)| *h)
            .collect();
        let out = own_paragraphs(&c, &held);
        proptest::prop_assert!(out.starts_with("T — head"));
        let kept: Vec<&str> = out.lines().skip(1).map(str::trim).filter(|l| !l.is_empty()).collect();
        let own: Vec<&str> = lines
            .iter()
            .filter(|(l, _)| !l.trim().is_empty())
            .zip(&held)
            .filter(|(_, &h)| !h)
            .map(|((l, _), _)| l.trim())
            .collect();
        // Every line of its own is still there, in order.
        let mut at = kept.iter();
        for l in &own {
            proptest::prop_assert!(at.any(|k| k == l), "{l:?} lost: {out:?}");
        }
        // Nothing is kept that the chunk did not say.
        proptest::prop_assert!(kept.len() <= held.len());
    }
}

proptest::proptest! {
    /// Whatever pages hold each other's text, every passage of 80 characters or more (longer
    /// than any line a page that gathers others may drop) stays on an indexed page.
    #[test]
    fn no_passage_is_lost(
        pages in proptest::collection::vec(
            (
                proptest::collection::vec(proptest::collection::vec(0usize..14, 1..6), 1..4),
                0usize..3,
            ),
            1..8,
        )
    ) {
        let line = |k: usize| match k {
            12 => "Short label".to_string(),
            13 => "Estimated time: 30 minutes".to_string(),
            k => format!("{k:02}: a passage long enough to count, written out to more than eighty characters."),
        };
        let all: Vec<(PageOutcome, Vec<ChunkRecord>)> = pages
            .iter()
            .enumerate()
            .map(|(p, (chunks, chapter))| {
                let texts: Vec<String> = chunks
                    .iter()
                    .map(|ks| ks.iter().map(|&k| line(k)).collect::<Vec<_>>().join("\n\n"))
                    .collect();
                let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
                // Pages without a chapter (a print page) and in chapter 1 or 2.
                let (o, mut cs) = page(&format!("d{}/p{p}.html", p % 3), "P", &texts);
                for c in &mut cs {
                    c.chapter = (*chapter > 0).then(|| chapter.to_string());
                }
                (o, cs)
            })
            .collect();
        let mut ix = indexed(all);
        // Each passage with the chapter of a chunk that has it (`None`: without a chapter).
        let found = |ix: &Indexed| -> std::collections::BTreeSet<(String, Option<String>)> {
            let mut found = std::collections::BTreeSet::new();
            for l in (0..12).map(line) {
                for c in ix.chunks.iter().filter(|c| c.text.contains(l.as_str())) {
                    found.insert((l.clone(), c.chapter.clone()));
                }
            }
            found
        };
        let before = found(&ix);
        drop_copies(&mut ix);
        let after = found(&ix);
        // A passage stays in every chapter it was in, and indexed wherever it was without one.
        for (l, chapter) in &before {
            let kept = match chapter {
                Some(_) => after.contains(&(l.clone(), chapter.clone())),
                None => after.iter().any(|(m, _)| m == l),
            };
            proptest::prop_assert!(kept, "{l} ({chapter:?}) lost: {:?}", ix.pages);
        }
        // The pages' chunk counts still add up to the chunks indexed.
        proptest::prop_assert_eq!(ix.pages.iter().map(|p| p.chunks).sum::<usize>(), ix.chunks.len());
    }
}

#[test]
fn a_listed_page_keeps_the_text_of_a_part_of_it_that_the_navigation_does_not_list() {
    // David Roche's `c8a/` (in the sidebar) and `c8ab/` (its second half, kept beside it).
    let (first, second) = (passages("arbre", 6), passages("taille", 6));
    let mut whole = refs(&first);
    whole.extend(refs(&second));
    let pages = |listed: bool| {
        let (mut a, ca) = page("c8a/index.html", "Activités", &whole);
        let (b, cb) = page("c8ab/index.html", "Activités", &refs(&second));
        a.listed = listed;
        indexed(vec![(a, ca), (b, cb)])
    };
    let mut ix = pages(true);
    assert_eq!(drop_copies(&mut ix), 1);
    assert_eq!(kept(&ix), ["c8a/index.html"]);
    assert_eq!(chunks_on(&ix, "c8a/index.html"), 12);
    // Where the navigation says nothing, the part is a page of its own and the whole keeps
    // what it adds (a section page showing its child page).
    let mut ix = pages(false);
    assert_eq!(drop_copies(&mut ix), 0);
    assert_eq!(chunks_on(&ix, "c8a/index.html"), 6);
    assert_eq!(chunks_on(&ix, "c8ab/index.html"), 6);
}
