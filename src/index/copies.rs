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
//! language, document type, chapter, section, topic, year, exam, paper, question…; a chunk
//! with none of the fields from chapter on matches one that has some, `read_lines`), and it
//! holds at least 200 characters in lines of 30 or more (a short page is never taken for a
//! copy). Only a page that gathers others (no one of them holds half of it) may have lines of
//! its own, each under 80 characters and 2 % of it in all: what gathers them ("Content from
//! Loops"). Copies are left out one at a time, each time rechecking what the pages still
//! indexed hold, so that every line of a page left out stays on an indexed page but for those
//! a gathering page adds: first the page that the most other pages each hold a twentieth of (a
//! page that gathers others), then a page that shows one of the pages beneath it in the folders
//! (a section's page or its print version, showing its one child page), then the deeper page in
//! the folders, then the later one in path order. So of a lesson and its instructor's view,
//! which adds notes to it, the lesson goes; of pages that share a template, each with a line of
//! its own, none does. A page of exercises without their corrections is never left out for one
//! that adds them (a worksheet and its corrected version are both indexed). The report names
//! the pages that hold each copy's text.
//!
//! Before that, a page that holds other pages whole and more (a print page with a cover, a
//! Hugo section page that shows its child pages in full, an instructor's view with notes)
//! keeps only what it adds (`strip_containers`): a student's result then opens on the page
//! that holds the passage, and the larger page is no copy of anything.

use super::Indexed;
use crate::format::ChunkRecord;
use std::collections::{HashMap, HashSet};

/// Whether a chunk is a correction: it answers an exercise, or its document type is one.
pub(super) fn is_correction(c: &ChunkRecord) -> bool {
    c.answers.is_some() || crate::doctype::canonical(&c.doc_type) == Some("solution")
}

/// Whether the page at `path` shows a page beneath it in the folders: `other` lies in the
/// folder it heads, its own for a folder's index page (`maths/calculus/index.html`, Hugo
/// Relearn's `maths/calculus/index.print.html`), else the folder named as the page
/// (`chapitre.html` heads `chapitre/`, as Sphinx lays out a document's children).
fn heads(path: &str, other: &str) -> bool {
    let (dir, name) = path.rsplit_once('/').unwrap_or(("", path));
    let inside = match dir {
        "" => Some(other),
        _ => other.strip_prefix(dir).and_then(|r| r.strip_prefix('/')),
    };
    let stem = name.split('.').next().unwrap_or(name);
    inside.is_some_and(|r| {
        super::index_file(name) || r.strip_prefix(stem).is_some_and(|r| r.starts_with('/'))
    })
}

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

/// What a chunk's lines are compared with besides their text: the scope its chunk has, as the
/// fields every chunk has (source, subject, level, language, document type) and, when it has
/// any, those a chunk may lack (chapter, section, topic, year, exam, paper, question…).
fn scope(source: &str, c: &ChunkRecord) -> (String, Option<String>) {
    let open = [
        source,
        &c.subject,
        &c.level,
        &c.lang,
        &c.doc_type,
        c.source.as_deref().unwrap_or_default(),
    ]
    .join("\u{1f}");
    let fields = [
        &c.chapter,
        &c.section,
        &c.topic,
        &c.year,
        &c.exam,
        &c.paper,
        &c.question_number,
        &c.exercise_group,
        &c.session,
        &c.centre,
    ];
    let narrow = fields.iter().any(|f| f.is_some()).then(|| {
        (fields.iter())
            .map(|f| f.as_deref().unwrap_or_default())
            .collect::<Vec<_>>()
            .join("\u{1f}")
    });
    (open, narrow)
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
    /// Each of its chunks' lines (id, characters), in the page's order.
    chunks: Vec<Vec<(usize, usize)>>,
    /// Which of its chunks are corrections.
    correction: Vec<bool>,
    /// The lines of chunks without chapter, year or any such field that it holds in its own
    /// chunks that have some, as ids ([`read_lines`]).
    held: Vec<usize>,
    /// Whether it holds exercises, and corrections.
    exercises: bool,
    corrections: bool,
}

/// What [`read_lines`] reads of the pages.
struct Lines {
    /// Each page's lines (`None` for a page not indexed).
    pages: Vec<Option<PageLines>>,
    /// The pages that hold each line.
    holders: Vec<Vec<usize>>,
    /// For a line of a chunk with a chapter, year or other such field, the pages that hold it
    /// in a chunk with none of them.
    wide: HashMap<usize, Vec<usize>>,
}

/// Every page's distinct lines (`None` for a page not indexed) and, for each line, the pages
/// that hold it; then, for a line of a chunk with a chapter, year or other such field, the
/// pages that hold it in a chunk with none of them.
///
/// A chunk with none of those fields (a print page's, where the chapters come from the pages'
/// paths) is admitted by fewer scopes than one that has some (the gate wants each field a
/// scope names), so its line is held by any chunk of the same open scope that has it: such a
/// page may be a copy of pages with chapters, never the other way round. Two chunks that
/// differ in such a field do not hold each other's lines (the same exercise in two chapters).
fn read_lines(indexed: &Indexed) -> Lines {
    let spans = indexed.page_spans();
    // (open scope, narrow scope) -> index; each scope's open scope's index
    let mut scopes: HashMap<(String, Option<String>), usize> = HashMap::new();
    let mut opens: HashMap<String, usize> = HashMap::new();
    let mut open_of: Vec<(usize, bool)> = Vec::new();
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
            chunks: Vec::new(),
            correction: Vec::new(),
            held: Vec::new(),
            passage_chars: 0,
            all_chars: 0,
            exercises: false,
            corrections: false,
        };
        for c in &indexed.chunks[spans[i].clone()] {
            let kind = crate::doctype::canonical(&c.doc_type);
            page.exercises |= matches!(kind, Some("exercise" | "past_paper_question"));
            let correction = is_correction(c);
            page.corrections |= correction;
            page.correction.push(correction);
            let key = scope(&p.source, c);
            let next = scopes.len();
            let s = *scopes.entry(key.clone()).or_insert_with(|| {
                let n = opens.len();
                open_of.push((*opens.entry(key.0).or_insert(n), key.1.is_none()));
                next
            });
            let mut chunk = Vec::new();
            for l in lines(c) {
                let next = ids.len();
                let id = *ids.entry((s, l)).or_insert(next);
                let n = l.chars().count();
                chunk.push((id, n));
                if seen.insert(id) {
                    page.lines.push((id, n));
                    page.all_chars += n;
                    if n >= PASSAGE {
                        page.passage_chars += n;
                    }
                }
            }
            page.chunks.push(chunk);
        }
        pages.push(Some(page));
    }
    let mut holders: Vec<Vec<usize>> = vec![Vec::new(); ids.len()];
    for (i, p) in pages.iter().enumerate() {
        for &(id, _) in p.iter().flat_map(|p| &p.lines) {
            holders[id].push(i);
        }
    }
    // A line of a chunk without narrow fields, by its open scope: its id.
    let wide_id: HashMap<(usize, &str), usize> = (ids.iter())
        .filter(|(&(s, _), _)| open_of[s].1)
        .map(|(&(s, line), &id)| ((open_of[s].0, line), id))
        .collect();
    let own: Vec<usize> = holders.iter().map(Vec::len).collect();
    let mut wide_holders: HashMap<usize, Vec<usize>> = HashMap::new();
    for (&(s, line), &id) in &ids {
        let (open, wide) = open_of[s];
        if let Some(&wide_id) = wide_id.get(&(open, line)).filter(|_| !wide) {
            let narrow_pages = holders[id].clone();
            wide_holders.insert(id, holders[wide_id][..own[wide_id]].to_vec());
            holders[wide_id].extend(narrow_pages);
        }
    }
    // The pages each line gained, as lines each page holds beyond its own.
    for (id, hs) in holders.iter_mut().enumerate() {
        if hs.len() == own[id] {
            continue;
        }
        let (mine, gained) = hs.split_at(own[id]);
        let mut gained: Vec<usize> = (gained.iter().copied())
            .filter(|h| mine.binary_search(h).is_err())
            .collect();
        gained.sort_unstable();
        gained.dedup();
        for &h in &gained {
            if let Some(p) = pages[h].as_mut() {
                p.held.push(id);
            }
        }
        hs.truncate(own[id]);
        hs.extend(gained);
        hs.sort_unstable();
    }
    Lines {
        pages,
        holders,
        wide: wide_holders,
    }
}

/// The other indexed pages that hold at least a `share`th of page `i`'s text (any of it for
/// 0), with how much of it (in characters, boilerplate lines aside), most of it first; with
/// `wide`, also those that hold its lines in chunks with fewer fields ([`read_lines`]).
fn others(
    i: usize,
    page: &PageLines,
    pages: &[Option<PageLines>],
    holders: &[Vec<usize>],
    wide: Option<&HashMap<usize, Vec<usize>>>,
    share: usize,
) -> Vec<(usize, usize)> {
    let mut held: HashMap<usize, usize> = HashMap::new();
    let mut by: Vec<usize> = Vec::new();
    for &(id, n) in &page.lines {
        if holders[id].len() > BOILERPLATE {
            continue;
        }
        let by = match wide.and_then(|w| w.get(&id)) {
            Some(more) => {
                by.clear();
                by.extend(holders[id].iter().chain(more));
                by.sort_unstable();
                by.dedup();
                &by[..]
            }
            None => &holders[id][..],
        };
        for &h in by {
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
}

/// Whether page `i` is a copy (`live`: how many indexed pages hold each line): every line of
/// it on another indexed page; or, for a page that gathers others (none of them holds half of
/// it), every line but short ones that make up 2 % of it at most (what gathers them: "Content
/// from Loops").
fn copy(
    i: usize,
    p: &PageLines,
    pages: &[Option<PageLines>],
    holders: &[Vec<usize>],
    live: &[usize],
) -> bool {
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
            && others(i, p, pages, holders, None, 0)
                .first()
                .is_some_and(|&(_, n)| n * 2 < p.all_chars)
}

/// Leaves out every page whose text other pages of its source hold (module docs), once each
/// page that holds others whole keeps only its own chunks (`strip_containers`); returns how
/// many pages were left out. Run after [`super::duplicates::drop_duplicates`] and before
/// [`super::lessons::group`]. Idempotent.
pub fn drop_copies(indexed: &mut Indexed) -> usize {
    let lines = read_lines(indexed);
    // Read again only when a page that holds others changed.
    let (emptied, lines) = match strip_containers(indexed, &lines) {
        Some(emptied) => (emptied, read_lines(indexed)),
        None => (0, lines),
    };
    let Lines {
        mut pages, holders, ..
    } = lines;
    let mut live: Vec<usize> = holders.iter().map(Vec::len).collect();
    // The copies and the pages holding each, updated as pages are left out: a page left out
    // changes only the copies it held a share of (`watchers`) and the last page holding one of
    // its lines, and makes no new copy.
    let mut candidates: HashMap<usize, Vec<(usize, usize)>> = HashMap::new();
    let mut watchers: Vec<Vec<usize>> = vec![Vec::new(); pages.len()];
    for i in 0..pages.len() {
        if let Some(p) = pages[i]
            .as_ref()
            .filter(|p| copy(i, p, &pages, &holders, &live))
        {
            let held = others(i, p, &pages, &holders, None, 20);
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
    // A page that shows one of the pages beneath it (a section's page, or its print version,
    // showing its one child page in full) is the copy, not the child.
    let shows_beneath = |i: usize, held: &[(usize, usize)]| {
        let path = &indexed.pages[i].path;
        (held.iter()).any(|&(h, _)| h != i && heads(path, &indexed.pages[h].path))
    };
    let mut dropped = Vec::new();
    while let Some(i) = candidates
        .iter()
        .max_by_key(|(&i, held)| (held.len(), shows_beneath(i, held), depth(i), i))
        .map(|(&i, _)| i)
    {
        candidates.remove(&i);
        let page = pages[i].take().expect("a candidate is indexed");
        let mut touched: HashSet<usize> = std::mem::take(&mut watchers[i]).into_iter().collect();
        for id in page
            .lines
            .iter()
            .map(|&(id, _)| id)
            .chain(page.held.iter().copied())
        {
            live[id] -= 1;
            if live[id] == 1 {
                touched.extend(holders[id].iter().copied().filter(|&h| pages[h].is_some()));
            }
        }
        for q in touched {
            if !candidates.contains_key(&q) {
                continue;
            }
            if let Some(p) = pages[q]
                .as_ref()
                .filter(|p| copy(q, p, &pages, &holders, &live))
            {
                let held = others(q, p, &pages, &holders, None, 20);
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
        let mut held = others(i, &page, &pages, &holders, None, 20);
        if held.is_empty() {
            held = others(i, &page, &pages, &holders, None, 0);
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
    emptied + super::duplicates::leave_out(indexed, left_out)
}

/// A page that holds other pages whole and more (a print page with a cover, a Hugo section
/// page that shows its child pages in full, an instructor's view with notes) keeps only its
/// own chunks, so that a student's result opens on the page that holds a passage, not on the
/// larger one: a chunk that holds some of their text goes when what it adds to it is under a
/// passage (30 characters: a label, an estimated time); and every chunk goes when the page
/// gathers them (none holds half of it) and all it adds is short lines, 2 % of it at most
/// ("Content from Loops"). A chunk that stays keeps only its paragraphs that none of those
/// pages holds. A worksheet (exercises without their corrections) stays whole in a page that
/// adds corrections of its own (its corrected version), and a chunk that a kept chunk answers
/// stays whole. A page left with no chunk is a copy; one left with some gets a warning naming
/// the pages it holds. Returns how many pages were left out, or `None` when it changed nothing
/// (then `lines`, read before it, still reads the pages).
fn strip_containers(indexed: &mut Indexed, lines: &Lines) -> Option<usize> {
    let Lines {
        pages,
        holders,
        wide,
    } = lines;
    // Each page's text and number of distinct lines, boilerplate aside.
    let weight: Vec<(usize, usize)> = (pages.iter())
        .map(|page| {
            let lines = page.iter().flat_map(|p| &p.lines);
            let lines = lines.filter(|&&(id, _)| holders[id].len() <= BOILERPLATE);
            lines.fold((0, 0), |(text, count), &(_, n)| (text + n, count + 1))
        })
        .collect();
    // container -> the pages it holds whole
    let mut held_whole: HashMap<usize, Vec<usize>> = HashMap::new();
    for (c, page) in pages.iter().enumerate() {
        let Some(page) = page else { continue };
        let (text, lines) = weight[c];
        if page.passage_chars < MIN_PAGE || text < MIN_PAGE {
            continue;
        }
        for (p, n) in others(c, page, pages, holders, Some(wide), 0) {
            if n < text {
                break;
            }
            // It holds all of page c's lines: whole, and more when it has more lines. A page
            // the navigation lists keeps what it holds of one it does not list (`c8ab.md`, a
            // part of `c8a.md` kept beside it), which is then a copy.
            let (outer, inner) = (&indexed.pages[p], &indexed.pages[c]);
            if weight[p].1 > lines && (inner.listed || !outer.listed) {
                held_whole.entry(p).or_default().push(c);
            }
        }
    }
    let spans = indexed.page_spans();
    let mut strip = vec![false; indexed.chunks.len()];
    // The chunks that keep only their paragraphs of their own, with which lines are held.
    let mut trims: Vec<(usize, Vec<bool>)> = Vec::new();
    if held_whole.is_empty() {
        return None;
    }
    let mut containers: Vec<(usize, Vec<usize>)> = held_whole.into_iter().collect();
    containers.sort_unstable();
    for (p, inner) in &mut containers {
        inner.sort_unstable();
        let page = pages[*p].as_ref().expect("a container is indexed");
        // A page that adds corrections of its own keeps whole the worksheets it holds.
        let held_by =
            |inner: &[usize], id: usize| holders[id].iter().any(|h| inner.binary_search(h).is_ok());
        let corrects = (page.chunks.iter().zip(&page.correction))
            .any(|(lines, &c)| c && lines.iter().any(|&(id, _)| !held_by(inner, id)));
        if corrects {
            inner.retain(|&c| {
                pages[c]
                    .as_ref()
                    .is_some_and(|w| !w.exercises || w.corrections)
            });
        }
        let added = |id: usize| !held_by(inner, id);
        let own: Vec<usize> = (page.lines.iter())
            .filter(|&&(id, _)| added(id))
            .map(|&(_, n)| n)
            .collect();
        let gathers = inner.iter().all(|&c| weight[c].0 * 2 < page.all_chars);
        let glue = gathers
            && own.iter().all(|&n| n < GLUE)
            && own.iter().sum::<usize>() * 50 <= page.all_chars;
        for (k, lines) in page.chunks.iter().enumerate() {
            let held: Vec<bool> = lines.iter().map(|&(id, _)| !added(id)).collect();
            let adds: usize = (lines.iter().zip(&held))
                .filter(|(_, &h)| !h)
                .map(|(&(_, n), _)| n)
                .sum();
            let at = spans[*p].start + k;
            let holds = held.contains(&true);
            strip[at] = glue || holds && adds < PASSAGE;
            if holds {
                trims.push((at, held));
            }
        }
    }
    let answered: HashSet<&str> = (indexed.chunks.iter().zip(&strip))
        .filter(|(_, &s)| !s)
        .filter_map(|(c, _)| c.answers.as_deref())
        .collect();
    let answered: HashSet<usize> = (indexed.chunks.iter().enumerate())
        .filter(|(_, c)| answered.contains(c.id.as_str()))
        .map(|(i, _)| i)
        .collect();
    for &i in &answered {
        strip[i] = false;
    }
    // Chunks that stay keep their own paragraphs; `trimmed` counts them by chunk.
    let mut trimmed = vec![false; indexed.chunks.len()];
    for (at, held) in trims {
        if !strip[at] && !answered.contains(&at) {
            let c = &mut indexed.chunks[at];
            let text = own_paragraphs(c, &held);
            trimmed[at] = text != c.text;
            c.text = text;
        }
    }
    let mut left_out = 0;
    let mut changed = false;
    for (p, inner) in &containers {
        let count = |of: &[bool]| of[spans[*p].clone()].iter().filter(|&&s| s).count();
        let (n, cut) = (count(&strip), count(&trimmed));
        if n + cut == 0 {
            continue;
        }
        changed = true;
        let named: Vec<&str> = (inner.iter().take(2))
            .map(|&c| indexed.pages[c].path.as_str())
            .collect();
        let more = match inner.len().saturating_sub(2) {
            0 => String::new(),
            n => format!(" and {n} more"),
        };
        let named = format!("{}{more}", named.join(", "));
        let page = &mut indexed.pages[*p];
        page.chunks -= n;
        if page.chunks == 0 {
            left_out += 1;
            page.skipped = Some(format!("a copy: its text is on other pages ({named})"));
        } else {
            let warning = format!(
                "{}/{}: {n} of its {} chunks left out and {cut} cut to their own paragraphs, their text being on pages it holds whole ({named})",
                page.source,
                page.path,
                page.chunks + n,
            );
            indexed.warnings.push(warning);
        }
    }
    let mut strip = strip.into_iter();
    indexed.chunks.retain(|_| !strip.next().unwrap_or(false));
    changed.then_some(left_out)
}

/// A chunk's text without its paragraphs (blocks between blank lines, a fenced code block
/// whole) whose every line is `held` (one flag a line of [`lines`]), its head kept.
fn own_paragraphs(c: &ChunkRecord, held: &[bool]) -> String {
    let (head, body) = match c.title.as_deref() {
        Some(t) if !t.is_empty() && c.text.starts_with(t) => {
            c.text.split_once('\n').unwrap_or((c.text.as_str(), ""))
        }
        _ => ("", c.text.as_str()),
    };
    let mut held = held.iter();
    let mut kept: Vec<String> = Vec::new();
    let (mut block, mut all_held, mut fence) = (Vec::new(), true, false);
    // A blank line outside a fence ends a paragraph; so does the end (a fence a chunk boundary
    // left open included).
    for line in body.lines().map(Some).chain([None]) {
        let t = line.map_or("", str::trim);
        if line.is_none() || t.is_empty() && !fence {
            if !block.is_empty() && !all_held {
                kept.push(block.join("\n"));
            }
            (block, all_held) = (Vec::new(), true);
            continue;
        }
        if !t.is_empty() {
            all_held &= held.next().copied().unwrap_or(false);
        }
        fence ^= t.starts_with("```") || t.starts_with("~~~");
        block.push(line.unwrap_or(""));
    }
    let body = kept.join("\n\n");
    match head {
        "" => body,
        head => format!("{head}\n{body}"),
    }
}

#[cfg(test)]
mod tests;
