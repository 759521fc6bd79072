//! Text parts and what a first page waits for: a search asks for the text parts of its results'
//! own chunks (their snippets and `[DOCUMENT N]` context), not for their whole sections; "show
//! the whole section" names the rest (`Section::pending_text`) and is complete once they are
//! loaded. A search that expands its results (`expand_chars`) still asks for the sections.

use chsr::build::{build, BuildOptions, BuildOutput};
use chsr::corpus::parse_jsonl;
use chsr::format::Field;
use chsr::scope::Scope;
use chsr::search::{Library, SearchOptions, SearchResponse, Variant};
use std::collections::BTreeSet;

mod common;
use common::{built_file, library_with, SPINE};

/// The spine corpus with text parts of a few hundred bytes: most sections span several parts.
fn spine() -> BuildOutput {
    build(
        &parse_jsonl("spine.jsonl", SPINE).unwrap(),
        &BuildOptions {
            text_block_bytes: Some(300),
            ..BuildOptions::default()
        },
    )
}

/// Every file of `out` but the text parts.
fn without_text(out: &BuildOutput) -> Library {
    library_with(out, |f| !f.ends_with(".chsrx"))
}

fn load_text(lib: &mut Library, out: &BuildOutput, files: &[String]) {
    for f in files {
        lib.load_text(f, built_file(out, f)).unwrap();
    }
}

/// The text parts holding the chunks `ids` (with `sections`: every chunk of their sections).
fn parts_of(lib: &Library, out: &BuildOutput, ids: &[String], sections: bool) -> BTreeSet<String> {
    let mut parts = BTreeSet::new();
    for shard in lib.loaded() {
        let built = out
            .shards
            .iter()
            .find(|s| s.entry.file == shard.entry.file)
            .unwrap();
        let chunks = shard.chunks();
        for id in ids {
            let Some(hit) = chunks.iter().find(|c| &c.id == id) else {
                continue;
            };
            for (pos, c) in chunks.iter().enumerate() {
                let same = if sections {
                    c.section_key == hit.section_key
                } else {
                    c.id == hit.id
                };
                if same {
                    let pos = pos as u32;
                    let part = built
                        .text
                        .iter()
                        .find(|t| pos >= t.first && pos < t.first + t.chunks)
                        .unwrap();
                    parts.insert(part.file.clone());
                }
            }
        }
    }
    parts
}

fn physics_hs() -> Scope {
    Scope::new()
        .with(Field::Subject, "physics")
        .with(Field::Level, "high_school")
}

fn ids(r: &SearchResponse) -> Vec<String> {
    r.results.iter().map(|h| h.id.clone()).collect()
}

const QUERIES: &[&str] = &[
    "temperature in kelvins",
    "specific heat capacity of water",
    "work done by a gas",
    "heat transfer by conduction",
];

#[test]
fn a_search_waits_only_for_its_results_own_text() {
    let out = spine();
    assert!(
        out.shards.iter().any(|s| s.text.len() > 3),
        "the fixture is cut into several text parts"
    );
    let opts = SearchOptions::for_variant(Variant::F);
    let mut narrower = 0;
    for q in QUERIES {
        let lib = without_text(&out);
        let r = lib.search(q, &physics_hs(), &opts).unwrap();
        assert!(!r.results.is_empty(), "{q}");
        let asked: BTreeSet<String> = r.pending_text.iter().cloned().collect();
        assert_eq!(
            asked,
            parts_of(&lib, &out, &ids(&r), false),
            "{q}: the parts of the results' own chunks, no other"
        );
        if parts_of(&lib, &out, &ids(&r), true).len() > asked.len() {
            narrower += 1;
        }
    }
    assert!(
        narrower > 0,
        "some query's results have sections beyond their own text parts"
    );
}

#[test]
fn the_whole_section_names_the_rest_of_its_text_and_is_complete_once_loaded() {
    let out = spine();
    let opts = SearchOptions::for_variant(Variant::F);
    let mut checked = 0;
    for q in QUERIES {
        let mut lib = without_text(&out);
        let first = lib.search(q, &physics_hs(), &opts).unwrap();
        load_text(&mut lib, &out, &first.pending_text);
        // The first page has everything it shows: snippets, and the context of its results.
        let shown = lib.search(q, &physics_hs(), &opts).unwrap();
        assert!(shown.pending_text.is_empty(), "{q}");
        assert_eq!(ids(&first), ids(&shown), "{q}: the ranking reads no text");
        for h in &shown.results {
            assert!(!h.snippet.is_empty(), "{q}: {}", h.id);
        }
        let (_, withheld) = lib.context_for(&ids(&shown), &physics_hs());
        assert_eq!(
            withheld, 0,
            "{q}: the context of the results needs nothing more"
        );
        for h in &shown.results {
            let s = lib.section(&h.id, &physics_hs()).unwrap();
            if s.pending_text.is_empty() {
                continue;
            }
            // Part of the section is not loaded yet: it says which parts, and they are exactly
            // the section's parts the page does not have.
            checked += 1;
            let all = parts_of(&lib, &out, std::slice::from_ref(&h.id), true);
            for f in &s.pending_text {
                assert!(all.contains(f), "{q}: {f} holds none of the section");
                assert!(!lib.is_loaded(f), "{q}: {f} is loaded already");
            }
            load_text(&mut lib, &out, &s.pending_text);
            let full = lib.section(&h.id, &physics_hs()).unwrap();
            assert!(full.pending_text.is_empty(), "{q}: {}", h.id);
            assert_eq!(full.chunks.len(), s.chunks.len(), "{q}: the same chunks");
            for c in &full.chunks {
                assert!(!c.text.is_empty(), "{q}: {} has its text", c.id);
            }
        }
    }
    assert!(checked > 0, "some section waited for more text");
}

#[test]
fn a_search_that_expands_its_results_waits_for_their_sections() {
    let out = spine();
    let mut opts = SearchOptions::for_variant(Variant::F);
    opts.expand_chars = 2000;
    for q in QUERIES {
        let lib = without_text(&out);
        let r = lib.search(q, &physics_hs(), &opts).unwrap();
        let asked: BTreeSet<String> = r.pending_text.iter().cloned().collect();
        assert_eq!(asked, parts_of(&lib, &out, &ids(&r), true), "{q}");
    }
}

/// What a result card shows besides the text (titles, subsection, page URL) comes with the
/// results' text parts (format v10), and ranking does not wait for it: the search before the
/// text arrives ranks the same chunks with the same scores, and once the parts named in
/// `pending_text` are loaded every hit shows exactly its chunk's metadata from the corpus.
#[test]
fn a_results_titles_come_with_its_text_and_its_ranking_does_not_wait_for_them() {
    let out = spine();
    let corpus = parse_jsonl("spine.jsonl", SPINE).unwrap();
    let everything = library_with(&out, |_| true);
    let opts = SearchOptions::for_variant(Variant::F);
    let mut titled = 0;
    for q in QUERIES {
        let mut lib = without_text(&out);
        let before = lib.search(q, &physics_hs(), &opts).unwrap();
        let whole = everything.search(q, &physics_hs(), &opts).unwrap();
        let ranked = |r: &SearchResponse| -> Vec<(String, String)> {
            r.results
                .iter()
                .map(|h| (h.id.clone(), format!("{:.6}", h.score)))
                .collect()
        };
        assert_eq!(ranked(&before), ranked(&whole), "{q}: the same ranking");
        load_text(&mut lib, &out, &before.pending_text);
        let after = lib.search(q, &physics_hs(), &opts).unwrap();
        assert!(after.pending_text.is_empty(), "{q}");
        assert_eq!(ranked(&after), ranked(&whole), "{q}");
        for h in &after.results {
            let c = &corpus.iter().find(|c| c.record.id == h.id).unwrap().record;
            let shown = (
                &h.chapter_title,
                &h.section_title,
                &h.subsection,
                &h.url,
                &h.title,
            );
            let source = (
                &c.chapter_title,
                &c.section_title,
                &c.subsection,
                &c.url,
                &c.title,
            );
            assert_eq!(shown, source, "{q}: {}", h.id);
            titled += usize::from(h.section_title.is_some() && h.chapter_title.is_some());
        }
    }
    assert!(titled > 0, "some result has titles to show");
}

/// Searches as a page does (format v13): the results' text parts, which bring their chunks'
/// near-duplicate pairs, then again until the results' text is loaded; the response and the
/// searches it took.
fn as_a_page(
    lib: &mut Library,
    out: &BuildOutput,
    q: &str,
    scope: &Scope,
) -> (SearchResponse, usize) {
    let opts = SearchOptions::for_variant(Variant::F);
    let mut rounds = 1;
    loop {
        let r = lib.search(q, scope, &opts).unwrap();
        if r.pending_text.is_empty() {
            return (r, rounds);
        }
        assert!(
            r.pending_text.iter().all(|f| !lib.is_loaded(f)),
            "{q}: only parts not loaded are named"
        );
        load_text(lib, out, &r.pending_text);
        rounds += 1;
        assert!(rounds <= 8, "{q}: the page's rounds end");
    }
}

/// The spine with a near-copy (one word more) of every third chunk, some in the other level, and
/// its pairs in the text parts, as a large subject has them (format v13).
fn copies() -> BuildOutput {
    let corpus = parse_jsonl("spine.jsonl", SPINE).unwrap();
    let mut lines: Vec<String> = SPINE.lines().map(String::from).collect();
    for (i, c) in corpus.iter().enumerate().filter(|(i, _)| i % 3 == 0) {
        let mut copy = c.record.clone();
        copy.id = format!("{}:copy", copy.id);
        copy.text = format!("{} again", copy.text);
        if i % 2 == 0 {
            copy.level = if copy.level == "college" {
                "high_school"
            } else {
                "college"
            }
            .into();
        }
        lines.push(serde_json::to_string(&copy).unwrap());
    }
    build(
        &parse_jsonl("copies.jsonl", &lines.join("\n")).unwrap(),
        &BuildOptions {
            text_block_bytes: Some(300),
            pairs_inline_bytes: 0,
            ..BuildOptions::default()
        },
    )
}

/// The questions asked of [`copies`]: the first six words of every fifth chunk of the spine (with
/// its position), in physics high school and in physics.
fn questions() -> Vec<(usize, String, Scope)> {
    let corpus = parse_jsonl("spine.jsonl", SPINE).unwrap();
    let physics = Scope::new().with(Field::Subject, "physics");
    let mut out = Vec::new();
    for (i, c) in corpus.iter().enumerate().step_by(5) {
        let words: Vec<&str> = c.record.text.split_whitespace().take(6).collect();
        for scope in [physics_hs(), physics.clone()] {
            out.push((i, words.join(" "), scope));
        }
    }
    out
}

/// The near-duplicate pairs travel with the text (format v13), so a search knows those of the
/// chunks whose text is loaded. A page that loads only its results' text parts shows exactly
/// what a library holding every pair shows (the same results, scores and labels), over a corpus
/// whose chunks have near-copies in other text parts and in the other level's shard.
#[test]
fn a_page_with_only_its_results_text_shows_what_every_pair_would() {
    let out = copies();
    let everything = library_with(&out, |_| true);
    let opts = SearchOptions::for_variant(Variant::F);
    let (mut removed, mut more_rounds) = (0, 0);
    for (i, q, scope) in questions() {
        let whole = everything.search(&q, &scope, &opts).unwrap();
        let mut lib = without_text(&out);
        let (page, rounds) = as_a_page(&mut lib, &out, &q, &scope);
        let json = |r: &SearchResponse| serde_json::to_string(&r.results).unwrap();
        assert_eq!(json(&page), json(&whole), "query {i} ({q}) in {scope}");
        // The trace names the duplicates found (a candidate that a later step leaves out,
        // padding under weak evidence, never has its pairs loaded, nor its duplicates).
        for d in &page.trace.duplicates {
            assert!(whole.trace.duplicates.contains(d), "query {i}: {d:?}");
        }
        removed += usize::from(!whole.trace.duplicates.is_empty());
        more_rounds += usize::from(rounds > 2);
    }
    assert!(
        removed > 10,
        "near-duplicates were removed ({removed} searches)"
    );
    assert!(
        more_rounds > 0,
        "a result gave way to a near-duplicate's neighbour once its pairs came"
    );
}

/// When a result's near-duplicate pairs are still to come with its text part, the search names
/// the text part of the candidate after its last result with the results' own: should a result
/// give way to it, its text is already loaded (one round instead of two). Only then: with the
/// pairs in the shard a search names its results' parts alone
/// (`a_search_waits_only_for_its_results_own_text`).
#[test]
fn the_next_candidates_text_comes_with_results_that_may_give_way() {
    let out = copies();
    let (mut checked, mut beyond) = (0, 0);
    for (_, q, scope) in questions() {
        let lib = without_text(&out);
        let k = |k| SearchOptions {
            k,
            ..SearchOptions::for_variant(Variant::F)
        };
        let ten = lib.search(&q, &scope, &k(10)).unwrap();
        let eleven = lib.search(&q, &scope, &k(11)).unwrap();
        let Some(next) = eleven.results.get(10) else {
            continue;
        };
        assert_eq!(ids(&ten), ids(&eleven)[..10], "{q}");
        let asked: BTreeSet<String> = ten.pending_text.iter().cloned().collect();
        let own = parts_of(&lib, &out, &ids(&ten), false);
        let next_part = parts_of(&lib, &out, std::slice::from_ref(&next.id), false);
        let want: BTreeSet<String> = own.union(&next_part).cloned().collect();
        assert_eq!(
            asked, want,
            "{q} in {scope}: the results' parts and the next one's"
        );
        checked += 1;
        beyond += usize::from(!own.is_superset(&next_part));
    }
    assert!(
        checked > 50 && beyond > 30,
        "{checked} searches, {beyond} with a part more"
    );
}
