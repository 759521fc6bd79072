//! Property tests (proptest) of the invariants issue 8 asks the suite to hold:
//!
//! * shards round-trip: for random small corpora (random chunks with random metadata, with or
//!   without a dense index), `decode(encode(x)) == x` and encoding is stable;
//! * `search` never panics and never returns more than k, for every variant, on random queries
//!   (control characters, mixed scripts, formulas, megabyte strings) and random scopes (real
//!   values of the fixture and random strings);
//! * C and D never return a chunk outside the scope; E does only with a leakage label other than
//!   `in_scope`; no variant labels an out-of-scope result `in_scope`;
//! * B+'s results are the in-scope subsequence of B's.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use chsr::build::{build_with, BuildOptions, Embedder};
use chsr::corpus::SourcedChunk;
use chsr::format::{
    decode_dense_part, decode_part_list, decode_postings_part, decode_shard, decode_text_part,
    encode_dense_part, encode_postings_part, encode_shard, encode_text_part, merkle, ChunkRecord,
    Field,
};
use chsr::gate;
use chsr::scope::Scope;
use chsr::search::{Leakage, Library, SearchError, SearchOptions, Variant};
use common::*;
use proptest::prelude::*;
use std::collections::BTreeMap;
use std::sync::OnceLock;

// ------------------------------------------------------------------------- shard round trip

fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-zA-Z0-9 .,'²₂^_$\\\\{}éèàçœ-]{0,80}",
        any::<String>(),
        Just(String::new()),
    ]
}

fn opt_meta() -> impl Strategy<Value = Option<String>> {
    prop::option::of(prop_oneof![
        "[0-9]{1,3}",
        "[a-z ]{1,12}",
        any::<String>().prop_filter("non-empty", |s| !s.is_empty()),
    ])
}

prop_compose! {
    fn chunk(i: usize)(
        text in text(),
        subject in prop::sample::select(vec!["physics", "chemistry", "informatique (NSI)", "Ωmega"]),
        level in prop::sample::select(vec!["college", "O-Level", "première"]),
        lang in prop::sample::select(vec!["en", "fr", "de", "en-GB"]),
        doc_type in prop::sample::select(vec!["exercise", "solution", "textbook_section", "glossary"]),
        chapter in opt_meta(),
        section in opt_meta(),
        topic in opt_meta(),
        year in opt_meta(),
        paper in opt_meta(),
        question in opt_meta(),
        label in opt_meta(),
        section_key in opt_meta(),
    ) -> SourcedChunk {
        SourcedChunk {
            record: ChunkRecord {
                id: format!("c:{i}"),
                text,
                subject: subject.into(),
                level: level.into(),
                lang: lang.into(),
                doc_type: doc_type.into(),
                chapter,
                section,
                topic,
                year,
                paper,
                question_number: question,
                label,
                section_key,
                ..Default::default()
            },
            visibility: None,
            vector: None,
            file: "p.jsonl".into(),
            line: i + 1,
        }
    }
}

fn corpus() -> impl Strategy<Value = Vec<SourcedChunk>> {
    (1usize..12).prop_flat_map(|n| (0..n).map(chunk).collect::<Vec<_>>())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn shards_round_trip(chunks in corpus(), dense in any::<bool>(), block in prop_oneof![Just(1usize), Just(24), Just(usize::MAX)]) {
        let f = |t: &str| toy_embed(t);
        let e = Embedder { model_id: "toy".into(), file: b"toy model", dims: 6, embed: &f };
        // Postings in parts of about `block` bytes (1: a part per term), or inline.
        let opts = BuildOptions { ef_construction: 8, ef_search: 8, postings_block_bytes: Some(block), postings_inline_bytes: block.saturating_mul(8), ..BuildOptions::default() };
        let out = build_with(&chunks, &opts, dense.then_some(&e));
        let inline = build_with(&chunks, &BuildOptions { postings_block_bytes: Some(usize::MAX), postings_inline_bytes: usize::MAX, ..opts }, dense.then_some(&e));
        let mut total = 0;
        for s in &out.shards {
            let p = decode_shard(&s.bytes).expect("a built shard decodes");
            prop_assert_eq!(encode_shard(&p), s.bytes.clone());
            prop_assert_eq!(decode_shard(&encode_shard(&p)).unwrap(), p.clone());
            // The shard holds exactly its subject-level group of the corpus, sorted by id.
            let mut want: Vec<ChunkRecord> = chunks
                .iter()
                .map(|c| c.record.clone())
                .filter(|r| r.subject == p.subject && r.level == p.level)
                .collect();
            want.sort_by(|a, b| a.id.cmp(&b.id));
            // Their text travels in text parts, in order, each bound to this shard.
            let mut texts = Vec::new();
            // Named by the shard's part list, itself bound to this shard.
            let list = decode_part_list(s.part_list_bytes.as_ref().expect("a part list"))
                .expect("a built part list decodes");
            prop_assert_eq!(&list.shard_sha256, &s.entry.sha256);
            prop_assert_eq!(&list.text, &s.text);
            prop_assert_eq!(&list.postings, &s.postings);
            let listed = s.entry.part_list.as_ref().expect("the manifest names the list");
            prop_assert_eq!(listed.text_parts as usize, s.text.len());
            prop_assert_eq!(listed.text_bytes, s.text.iter().map(|t| t.bytes).sum::<u64>());
            prop_assert_eq!(listed.postings_parts as usize, s.postings.len());
            prop_assert_eq!(listed.postings_bytes, s.postings.iter().map(|t| t.bytes).sum::<u64>());
            // The postings: inline, or in parts that together are exactly the inline postings,
            // each bound to this shard and holding its block of terms.
            let built_whole = inline.shards.iter().find(|x| x.entry.subject == p.subject && x.entry.level == p.level).unwrap();
            let whole = decode_shard(&built_whole.bytes).unwrap();
            // The dictionary likewise: in the shard, or in the parts (format v6).
            let (mut joined, mut terms, mut df) = (Vec::new(), Vec::new(), Vec::new());
            let mut first = 0u32;
            // Each part: its frame, then its audit path to its subtree's root in the list.
            let subtrees = merkle::subtrees(s.text.len() + s.postings.len(), list.depth);
            prop_assert_eq!(subtrees.len(), list.roots.len());
            let root_of = |leaf: usize, bytes: &[u8]| {
                let at = subtrees.iter().position(|&(f, m)| (f..f + m).contains(&leaf)).expect("a subtree");
                let (first, m) = subtrees[at];
                let (frame, root) = merkle::frame_and_root(bytes, leaf - first, m).expect("a path");
                (frame.to_vec(), chsr::format::hex(&root) == list.roots[at])
            };
            for (i, (t, bytes)) in s.postings.iter().zip(&s.postings_bytes).enumerate() {
                let (frame, ok) = root_of(s.text.len() + i, bytes);
                prop_assert!(ok, "postings part {} leads to its subtree's root", i);
                let frame = &frame[..];
                let part = decode_postings_part(frame, true).expect("a built postings part decodes");
                prop_assert_eq!(&encode_postings_part(&part), frame);
                prop_assert_eq!(&part.shard_sha256, &s.entry.sha256);
                prop_assert_eq!((part.first, part.terms), (first, t.terms));
                prop_assert_eq!(&part.dictionary[0], &t.first_term);
                first += t.terms;
                joined.extend(part.postings);
                terms.extend(part.dictionary);
                df.extend(part.df);
            }
            if s.postings.is_empty() {
                prop_assert!(p.postings_blocks.is_empty());
                prop_assert_eq!(&p.lexical, &whole.lexical);
            } else {
                prop_assert!(p.lexical.postings.is_empty() && p.lexical.terms.is_empty());
                prop_assert_eq!(&p.lexical.doc_len, &whole.lexical.doc_len);
                prop_assert_eq!(first as usize, whole.lexical.terms.len());
                prop_assert_eq!(&joined, &whole.lexical.postings);
                prop_assert_eq!(&terms, &whole.lexical.terms);
                prop_assert_eq!(&df, &whole.lexical.df);
            }
            for (i, (t, bytes)) in s.text.iter().zip(&s.text_bytes).enumerate() {
                let (frame, ok) = root_of(i, bytes);
                prop_assert!(ok, "text part {} leads to its subtree's root", i);
                let frame = &frame[..];
                let part = decode_text_part(frame, true).expect("a built text part decodes");
                prop_assert_eq!(&encode_text_part(&part), frame);
                prop_assert_eq!(&part.shard_sha256, &s.entry.sha256);
                prop_assert_eq!((part.first as usize, part.texts.len()), (texts.len(), t.chunks as usize));
                texts.extend(part.texts);
            }
            let mut stored = p.chunks.clone();
            for (c, t) in stored.iter_mut().zip(&texts) {
                prop_assert!(c.text.is_empty(), "the shard itself holds no display text");
                c.text = t.clone();
            }
            prop_assert_eq!(texts.len(), stored.len());
            prop_assert_eq!(&stored, &want);
            // The vectors travel in their own file, bound to this shard.
            prop_assert!(p.dense.is_none());
            prop_assert_eq!(s.dense_bytes.is_some(), dense);
            if let Some(bytes) = &s.dense_bytes {
                let part = decode_dense_part(bytes, true).expect("a built dense part decodes");
                prop_assert_eq!(&encode_dense_part(&part), bytes);
                prop_assert_eq!(&part.shard_sha256, &s.entry.sha256);
                part.index.decode_graph(p.chunks.len()).expect("the dense graph decodes");
            }
            total += p.chunks.len();
            // And the reader takes it against its manifest, the shard first.
            let mut lib = Library::new(out.manifest.clone());
            for (file, bytes) in s.files() {
                lib.load_file(file, bytes).expect("a built shard loads");
            }
            prop_assert!(lib.dense_needed().is_empty());
            prop_assert!(lib.text_needed().is_empty());
            prop_assert!(lib.postings_remaining().is_empty());
            // And it ranks as the inline build does.
            let mut whole_lib = Library::new(inline.manifest.clone());
            for (file, bytes) in built_whole.files() {
                whole_lib.load_file(file, bytes).unwrap();
            }
            let scope = Scope::new().with(Field::Subject, p.subject.clone()).with(Field::Level, p.level.clone());
            for q in whole.lexical.terms.iter().take(4) {
                let o = SearchOptions::for_variant(Variant::C);
                let a = lib.search(q, &scope, &o).unwrap();
                let b = whole_lib.search(q, &scope, &o).unwrap();
                let ids = |r: &chsr::search::SearchResponse| r.results.iter().map(|h| (h.id.clone(), h.score.to_bits())).collect::<Vec<_>>();
                prop_assert_eq!(ids(&a), ids(&b));
            }
            // Loaded, every chunk has its text back.
            for c in &want {
                prop_assert_eq!(&lib.chunk_by_id(&c.id).unwrap().text, &c.text);
            }
        }
        prop_assert_eq!(total, chunks.len());
    }
}

// ---------------------------------------------------------------------------------- search

fn fixture() -> &'static (Library, BTreeMap<Field, Vec<String>>) {
    static FIX: OnceLock<(Library, BTreeMap<Field, Vec<String>>)> = OnceLock::new();
    FIX.get_or_init(|| {
        let lib = library(&build_fixture());
        let mut values: BTreeMap<Field, Vec<String>> = BTreeMap::new();
        for c in lib.loaded().flat_map(|s| s.chunks()) {
            for f in Field::ALL {
                if let Some(v) = c.get(f) {
                    let e = values.entry(f).or_default();
                    if !e.iter().any(|x| x == v) {
                        e.push(v.to_string());
                    }
                }
            }
        }
        (lib, values)
    })
}

const WORDS: &[&str] = &[
    "heat",
    "specific",
    "capacity",
    "temperature",
    "énergie",
    "cinétique",
    "chaleur",
    "fonction",
    "liste",
    "arbre",
    "récursivité",
    "the",
    "of",
    "le",
    "la",
    "what",
    "is",
    "mv²",
    "$mv^{2}$",
    "\\frac{1}{2}",
    "q=mcΔT",
    "H₂O",
    "2023",
    "question",
    "3",
    "paper",
    "sujet",
    "corrigé",
    "answer",
    "Table",
    "4.1",
    "chapter",
    "O-Level",
    "terminale",
    "chemistry",
    "physics",
    "NSI",
    "حرارة",
    "חום",
    "热量",
    "теплота",
    "\u{202e}",
    "\u{200b}",
    "\u{0}",
    "\u{1b}[31m",
    "\r\n",
];

fn query() -> impl Strategy<Value = String> {
    prop_oneof![
        6 => prop::collection::vec(prop::sample::select(WORDS), 0..8).prop_map(|w| w.join(" ")),
        3 => any::<String>(),
        1 => "[\\x00-\\x1f\\u{7f}\\u{200b}-\\u{200f}\\u{202a}-\\u{202e} ]{0,24}",
        // Long and huge queries: from a few KB past the byte limit up to about a megabyte.
        1 => (prop::sample::select(WORDS), 500usize..200_000)
            .prop_map(|(w, n)| format!("{w} ").repeat(n)),
    ]
}

#[derive(Clone, Debug)]
enum Val {
    Real(usize),
    Random(String),
}

fn scope_spec() -> impl Strategy<Value = Vec<(usize, Val)>> {
    prop::collection::vec(
        (
            0..Field::ALL.len(),
            prop_oneof![
                4 => any::<usize>().prop_map(Val::Real),
                1 => "[a-z0-9 ]{0,8}".prop_map(Val::Random),
                1 => any::<String>().prop_map(Val::Random),
            ],
        ),
        0..4,
    )
}

fn make_scope(spec: &[(usize, Val)], values: &BTreeMap<Field, Vec<String>>) -> Scope {
    let mut s = Scope::new();
    for (f, v) in spec {
        let field = Field::ALL[*f];
        match v {
            Val::Real(i) => {
                if let Some(vals) = values.get(&field) {
                    s.set(field, vals[i % vals.len()].clone());
                }
            }
            Val::Random(x) => s.set(field, x.clone()),
        }
    }
    s
}

fn chunk_of<'a>(lib: &'a Library, id: &str) -> &'a ChunkRecord {
    lib.loaded()
        .flat_map(|s| s.chunks())
        .find(|c| c.id == id)
        .expect("a result is a loaded chunk")
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    #[test]
    fn search_holds_its_invariants_for_every_variant(
        q in query(),
        spec in scope_spec(),
        k in 1usize..40,
        allow_fallback in any::<bool>(),
    ) {
        let (lib, values) = fixture();
        let scope = make_scope(&spec, values);
        let mut by_variant = BTreeMap::new();
        for v in Variant::ALL {
            let opts = SearchOptions { k, allow_fallback, ..SearchOptions::for_variant(v) };
            let r = match lib.search(&q, &scope, &opts) {
                Ok(r) => r,
                // Only the scope may be refused (an unknown subject, level, doc type, …); the
                // validation does not depend on the variant.
                Err(SearchError::Scope(_)) => {
                    prop_assert!(by_variant.is_empty());
                    return Ok(());
                }
                Err(e) => return Err(TestCaseError::fail(format!("{v:?}: unexpected error {e}"))),
            };
            prop_assert!(r.results.len() <= k, "{:?}: {} results for k = {}", v, r.results.len(), k);
            if q.len() > chsr::analysis::MAX_QUERY_BYTES {
                prop_assert!(r.trace.truncated);
            }
            for (i, h) in r.results.iter().enumerate() {
                prop_assert_eq!(h.rank, i + 1);
                let inside = gate::admits(&scope, chunk_of(lib, &h.id));
                if h.in_scope {
                    prop_assert!(inside, "{}: in_scope but outside {}", h.id, scope);
                }
                if !inside {
                    prop_assert_ne!(h.leakage, Leakage::InScope,
                        "{:?}: {} outside {} labelled in_scope", v, h.id, scope);
                }
                match v {
                    Variant::A | Variant::C | Variant::D | Variant::BPlus => {
                        prop_assert!(inside, "{:?}: {} outside {}", v, h.id, scope);
                    }
                    Variant::E if !inside => prop_assert!(matches!(
                        h.leakage,
                        Leakage::CrossTopic | Leakage::CrossLevel | Leakage::Fallback
                    )),
                    _ => {}
                }
            }
            by_variant.insert(v, r);
        }
        // B+ = the in-scope subsequence of B.
        let b: Vec<&str> = by_variant[&Variant::B]
            .results
            .iter()
            .filter(|h| gate::admits(&scope, chunk_of(lib, &h.id)))
            .map(|h| h.id.as_str())
            .collect();
        let bp: Vec<&str> = by_variant[&Variant::BPlus].results.iter().map(|h| h.id.as_str()).collect();
        prop_assert_eq!(bp, b);
    }
}
