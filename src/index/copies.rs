//! Copies: a page whose text other pages of its source already hold, passage for passage.
//!
//! Some generators publish a page's text a second time inside a larger page or beside it: the
//! Carpentries' Workbench writes every episode again on one "all in one" page (`aio.html`) and
//! again as the instructor's view (`instructor/…`, the same text with instructor notes), a
//! "key points" page gathers every episode's key points, a print page holds the whole course.
//! These are not duplicates ([`super::duplicates`]): the copy's chunks have other titles,
//! headings and boundaries. Indexed, each passage would count twice or more in its section's
//! evidence and fill several places of a result list with one text.
//!
//! A page is a **copy** when its text (each line of its chunks, their titles and headings
//! aside) is on other pages of its source, in chunks of the same scope (subject, level,
//! language, document type, chapter, section, topic, year, exam, paper, question…), and it
//! holds at least 200 characters in lines of 30 or more (a short page is never taken for a
//! copy). Only a page that gathers others (no one of them holds half of it) may have lines of
//! its own, each under 80 characters and 2 % of it in all: what gathers them ("Content from
//! Loops"). Copies are left out one at a time, each time rechecking what the pages still
//! indexed hold, so that every line of a page left out stays on an indexed page but for those
//! a gathering page adds: first the page that the most other pages each hold a twentieth of (a
//! page that gathers others), then the deeper page in the folders, then the later one in path
//! order. So of a lesson and its instructor's view, which adds notes to it, the lesson goes; of
//! pages that share a template, each with a line of its own, none does. A page of exercises
//! without their corrections is never left out for one that adds them (a worksheet and its
//! corrected version are both indexed). The report names the pages that hold each copy's text.

use super::Indexed;
use crate::format::ChunkRecord;
use std::collections::{HashMap, HashSet};

/// A line at least this long (in characters) is a passage that must be elsewhere.
const PASSAGE: usize = 30;
/// A page with less text than this in passages is never a copy (too little to tell).
const MIN_PAGE: usize = 200;
/// A line on more pages than this is the site's boilerplate ("Printable version"): it says
/// nothing of which pages hold which (and weighing it on each of its pages for each of the
/// others would cost their square).
const BOILERPLATE: usize = 50;
/// A page that gathers others may add lines shorter than this of its own (at most 2 % of it).
const GLUE: usize = 80;

/// What a chunk's lines are compared with besides their text: the scope its chunk has.
fn scope(source: &str, c: &ChunkRecord) -> String {
    let o = |v: &Option<String>| v.clone().unwrap_or_default();
    [
        source.to_string(),
        c.subject.clone(),
        c.level.clone(),
        c.lang.clone(),
        c.doc_type.clone(),
        o(&c.source),
        o(&c.chapter),
        o(&c.section),
        o(&c.topic),
        o(&c.year),
        o(&c.exam),
        o(&c.paper),
        o(&c.question_number),
        o(&c.exercise_group),
        o(&c.session),
        o(&c.centre),
    ]
    .join("\u{1f}")
}

/// The lines of a chunk's text without its head (the page title, heading and label line).
fn lines(c: &ChunkRecord) -> impl Iterator<Item = &str> {
    let body = match c.title.as_deref() {
        Some(t) if !t.is_empty() && c.text.starts_with(t) => {
            c.text.split_once('\n').map_or("", |(_, b)| b)
        }
        _ => c.text.as_str(),
    };
    body.lines().map(str::trim).filter(|l| !l.is_empty())
}

/// One page's distinct lines, as ids, with their length in characters.
struct PageLines {
    lines: Vec<(usize, usize)>,
    passage_chars: usize,
    all_chars: usize,
    /// Whether it holds exercises, and corrections.
    exercises: bool,
    corrections: bool,
}

/// Leaves out every page whose text other pages of its source hold (module docs); returns how
/// many pages were left out. Run after [`super::duplicates::drop_duplicates`] and before
/// [`super::lessons::group`]. Idempotent.
pub fn drop_copies(indexed: &mut Indexed) -> usize {
    let spans = indexed.page_spans();
    let mut scopes: HashMap<String, usize> = HashMap::new();
    let mut ids: HashMap<(usize, &str), usize> = HashMap::new();
    let mut pages: Vec<Option<PageLines>> = Vec::with_capacity(indexed.pages.len());
    for (i, p) in indexed.pages.iter().enumerate() {
        if p.skipped.is_some() || p.chunks == 0 {
            pages.push(None);
            continue;
        }
        let mut seen = HashSet::new();
        let mut page = PageLines {
            lines: Vec::new(),
            passage_chars: 0,
            all_chars: 0,
            exercises: false,
            corrections: false,
        };
        for c in &indexed.chunks[spans[i].clone()] {
            let kind = crate::doctype::canonical(&c.doc_type);
            page.exercises |= matches!(kind, Some("exercise" | "past_paper_question"));
            page.corrections |= c.answers.is_some() || kind == Some("solution");
            let next = scopes.len();
            let s = *scopes.entry(scope(&p.source, c)).or_insert(next);
            for l in lines(c) {
                let next = ids.len();
                let id = *ids.entry((s, l)).or_insert(next);
                if seen.insert(id) {
                    let n = l.chars().count();
                    page.lines.push((id, n));
                    page.all_chars += n;
                    if n >= PASSAGE {
                        page.passage_chars += n;
                    }
                }
            }
        }
        pages.push(Some(page));
    }
    // Which pages hold each line, and how many of them are still indexed.
    let mut holders: Vec<Vec<usize>> = vec![Vec::new(); ids.len()];
    for (i, p) in pages.iter().enumerate() {
        for &(id, _) in p.iter().flat_map(|p| &p.lines) {
            holders[id].push(i);
        }
    }
    let mut live: Vec<usize> = holders.iter().map(Vec::len).collect();
    // The other indexed pages that hold at least a `share`th of page `i`'s text (any of it for
    // 0), most of it first.
    let others = |i: usize, page: &PageLines, pages: &[Option<PageLines>], share: usize| {
        let mut held: HashMap<usize, usize> = HashMap::new();
        for &(id, n) in &page.lines {
            if holders[id].len() > BOILERPLATE {
                continue;
            }
            for &h in &holders[id] {
                if h != i && pages[h].is_some() {
                    *held.entry(h).or_default() += n;
                }
            }
        }
        let mut held: Vec<(usize, usize)> = held
            .into_iter()
            .filter(|&(_, n)| share == 0 || n * share >= page.all_chars)
            .collect();
        held.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        held
    };
    // Whether page `i` is a copy: every line of it on another indexed page; or, for a page
    // that gathers others (none of them holds half of it), every line but short ones that
    // make up 2 % of it at most (what gathers them: "Content from Loops").
    let copy = |i: usize, p: &PageLines, pages: &[Option<PageLines>], live: &[usize]| {
        if p.passage_chars < MIN_PAGE {
            return false;
        }
        let own: Vec<usize> = p
            .lines
            .iter()
            .filter(|&&(id, _)| live[id] < 2)
            .map(|&(_, n)| n)
            .collect();
        let glue = own.iter().all(|&n| n < GLUE) && own.iter().sum::<usize>() * 50 <= p.all_chars;
        own.is_empty()
            || glue
                && others(i, p, pages, 0)
                    .first()
                    .is_some_and(|&(_, n)| n * 2 < p.all_chars)
    };
    // The copies and the pages holding each, updated as pages are left out: a page left out
    // changes only the copies it held a share of (`watchers`) and the last page holding one of
    // its lines, and makes no new copy.
    let mut candidates: HashMap<usize, Vec<(usize, usize)>> = HashMap::new();
    let mut watchers: Vec<Vec<usize>> = vec![Vec::new(); pages.len()];
    for i in 0..pages.len() {
        if let Some(p) = pages[i].as_ref().filter(|p| copy(i, p, &pages, &live)) {
            let held = others(i, p, &pages, 20);
            // A worksheet is kept beside its corrected version: a student looking for the
            // exercises finds them without their answers.
            let corrected =
                |&(h, _): &(usize, usize)| pages[h].as_ref().is_some_and(|q| q.corrections);
            if p.exercises && !p.corrections && held.iter().any(corrected) {
                continue;
            }
            held.iter().for_each(|&(h, _)| watchers[h].push(i));
            candidates.insert(i, held);
        }
    }
    let depth = |i: usize| indexed.pages[i].path.matches('/').count();
    let mut dropped = Vec::new();
    while let Some(i) = candidates
        .iter()
        .max_by_key(|(&i, held)| (held.len(), depth(i), i))
        .map(|(&i, _)| i)
    {
        candidates.remove(&i);
        let page = pages[i].take().expect("a candidate is indexed");
        let mut touched: HashSet<usize> = std::mem::take(&mut watchers[i]).into_iter().collect();
        for &(id, _) in &page.lines {
            live[id] -= 1;
            if live[id] == 1 {
                touched.extend(holders[id].iter().copied().filter(|&h| pages[h].is_some()));
            }
        }
        for q in touched {
            if !candidates.contains_key(&q) {
                continue;
            }
            if let Some(p) = pages[q].as_ref().filter(|p| copy(q, p, &pages, &live)) {
                let held = others(q, p, &pages, 20);
                held.iter().for_each(|&(h, _)| watchers[h].push(q));
                candidates.insert(q, held);
            } else {
                candidates.remove(&q);
            }
        }
        dropped.push((i, page));
    }
    // Each copy's reason names the pages that hold its text once every copy is out: those
    // holding a twentieth of it, else the two holding the most.
    let mut left_out = Vec::new();
    for (i, page) in dropped {
        let mut held = others(i, &page, &pages, 20);
        if held.is_empty() {
            held = others(i, &page, &pages, 0);
            held.truncate(2);
        }
        let named: Vec<&str> = held
            .iter()
            .take(2)
            .map(|&(h, _)| indexed.pages[h].path.as_str())
            .collect();
        let more = match held.len().saturating_sub(2) {
            0 => String::new(),
            n => format!(" and {n} more"),
        };
        left_out.push((
            i,
            format!(
                "a copy: its text is on other pages ({}{more})",
                named.join(", ")
            ),
        ));
    }
    super::duplicates::leave_out(indexed, left_out)
}

#[cfg(test)]
mod tests {
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
                format!(
                    "{topic:>5}: passage {i:02} of the lesson, long enough to be one of its own."
                )
            })
            .collect()
    }

    fn refs(v: &[String]) -> Vec<&str> {
        v.iter().map(String::as_str).collect()
    }

    const NOTE: &str =
        "Instructor note: learners often forget the colon at the end of the for line.";

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
        assert_eq!(drop_copies(&mut ix), 3);
        // The page that gathers the others goes, its own lines ("Content from …") being what
        // gathers them; each learner's page goes for the instructor's view, which adds to it
        // (a note, an estimated time): nothing is lost. Each reason names pages still indexed.
        assert_eq!(
            kept(&ix),
            ["instructor/05-loop.html", "instructor/06-files.html"]
        );
        assert_eq!(
            ix.pages[2].skipped.as_deref(),
            Some("a copy: its text is on other pages (instructor/05-loop.html, instructor/06-files.html)")
        );
        assert_eq!(
            ix.pages[0].skipped.as_deref(),
            Some("a copy: its text is on other pages (instructor/05-loop.html)")
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
        // loops.html is all inside loops-more.html: it goes; nothing else does.
        assert_eq!(drop_copies(&mut ix), 1);
        assert_eq!(
            kept(&ix),
            ["t2/loops.html", "loops-more.html", "other-source.html"]
        );
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
}
