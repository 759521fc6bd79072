//! The fuzz targets' bodies, and the helpers they share with the seed-corpus writer.
//!
//! Each `fuzz_targets/<name>.rs` is one line calling the function of the same name here, so the
//! regular test suite can replay the committed corpora through exactly the same checks
//! (`tests/fuzz_corpus.rs` includes this file). Helpers: the spine fixture built once, a shard
//! header around arbitrary payload bytes, and a toy embedding model so that forged shards with a
//! dense index reach the dense path.
//!
//! Only `chsr`, `serde_json`, `sha2` and `arbitrary` may be used here: the main crate's tests
//! compile this file with its own dependencies.
#![allow(clippy::manual_range_contains)]

use arbitrary::Arbitrary;
use chsr::analysis::{fold_accents, normalize_formulas, tokenize, Analyzer, Lang, MAX_QUERY_TERMS};
use chsr::build::{build, build_with, BuildOptions, BuildOutput, Embedder};
use chsr::corpus::{check_visibility, parse_jsonl, parse_line, IngestError, SourcedChunk};
use chsr::format::{
    decode_dense_part, decode_shard, encode_dense_part, encode_shard, sha256_hex, ChunkRecord,
    Field, Manifest, ShardEntry, DENSE_MAGIC, FORMAT_VERSION, HEADER_LEN, MAGIC,
};
use chsr::gate;
use chsr::glossary::Glossary;
use chsr::scope::Scope;
use chsr::search::{
    Gating, Leakage, Library, QueryEmbedder, SearchError, SearchOptions, Variant, MAX_K,
};
use chsr::snippet::snippet;
use chsr::understand::{detect_lang, understand};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::sync::OnceLock;

/// The spine fixture of the test suite (288 chunks, five subject-level pairs).
pub const SPINE: &str = include_str!("../../tests/fixtures/spine.jsonl");

/// The fixture's build output and a library with every shard loaded (built once per process).
pub fn fixture() -> &'static (BuildOutput, Library) {
    static FIX: OnceLock<(BuildOutput, Library)> = OnceLock::new();
    FIX.get_or_init(|| {
        let chunks = parse_jsonl("spine.jsonl", SPINE).expect("fixture parses");
        let out = build(&chunks, &BuildOptions::default());
        let mut lib = Library::new(out.manifest.clone());
        for s in &out.shards {
            lib.load_shard(&s.entry.file, &s.bytes)
                .expect("fixture shard loads");
        }
        (out, lib)
    })
}

/// A complete shard file around `payload`: magic, version, the payload's real length and
/// SHA-256. Anyone can compute these, so the decoder must survive any payload behind a valid
/// header (this is what lets the fuzzer past the checksum).
pub fn wrap(payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER_LEN + payload.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    out.extend_from_slice(&Sha256::digest(payload));
    out.extend_from_slice(payload);
    out
}

/// The payload of a shard file (what [`wrap`] wraps).
pub fn payload_of(shard: &[u8]) -> &[u8] {
    &shard[HEADER_LEN..]
}

/// Stands in for the toy model's file: its SHA-256 identifies the "model" in shards and queries.
pub const TOY_MODEL_FILE: &[u8] = b"chsr-fuzz toy bag-of-bytes model, 8 dimensions";

/// SHA-256 of [`TOY_MODEL_FILE`].
pub fn toy_model_sha256() -> &'static str {
    static SHA: OnceLock<String> = OnceLock::new();
    SHA.get_or_init(|| sha256_hex(TOY_MODEL_FILE))
}

/// Dimensions of the toy model.
pub const TOY_DIMS: usize = 8;

/// A deterministic bag-of-bytes embedding: enough to give the HNSW graph distinct points.
pub fn toy_embed(text: &str) -> Vec<f32> {
    let mut v = vec![0f32; TOY_DIMS];
    for (i, b) in text.bytes().enumerate().take(4096) {
        v[(b as usize + i) % TOY_DIMS] += 1.0 + (b % 7) as f32;
    }
    let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if n > 0.0 {
        v.iter_mut().for_each(|x| *x /= n);
    }
    v
}

/// The toy model as a query embedder.
/// Its `String` is the model SHA-256 it claims (normally [`toy_model_sha256`]; the `shard_load`
/// target may claim a forged shard's own model so that the shard's dense index is searched).
pub struct ToyEmbedder(pub String);

impl QueryEmbedder for ToyEmbedder {
    fn model_sha256(&self) -> &str {
        &self.0
    }
    fn embed_query(&self, query: &str) -> Vec<f32> {
        toy_embed(query)
    }
}

/// Builds shards from `chunks`, with a toy dense index when `dense` is set.
pub fn build_small(chunks: &[SourcedChunk], dense: bool) -> BuildOutput {
    let f = |t: &str| toy_embed(t);
    let e = Embedder {
        model_id: "toy".into(),
        file: TOY_MODEL_FILE,
        dims: TOY_DIMS,
        embed: &f,
    };
    build_with(
        chunks,
        &BuildOptions {
            ef_construction: 16,
            ef_search: 16,
            ..BuildOptions::default()
        },
        dense.then_some(&e),
    )
}

/// `format::decode_shard` on arbitrary bytes.
///
/// First byte even: the rest is a whole shard file (exercises magic, version, length and checksum
/// checks). Odd: the rest is a payload, wrapped in a valid header with its real SHA-256, so the
/// bincode decoder and the consistency checks see arbitrary bytes (a forged shard). Bit 1 set:
/// the same for a shard's dense-part file (`decode_dense_part`, then its graph).
/// Properties: no panic; anything that decodes re-encodes to bytes that decode to the same
/// payload; every posting of an accepted index lies inside the shard.
pub fn shard_decode(data: &[u8]) {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    if mode & 2 == 2 {
        return dense_part_decode(mode, rest);
    }
    let bytes = if mode & 1 == 0 {
        rest.to_vec()
    } else {
        wrap(rest)
    };
    match decode_shard(&bytes) {
        Ok(p) => {
            let again = encode_shard(&p);
            let q = decode_shard(&again).expect("a re-encoded shard decodes");
            assert_eq!(encode_shard(&q), again, "encode(decode(x)) is stable");
            let n = p.chunks.len();
            for id in 0..p.lexical.terms.len() {
                for posting in p.lexical.postings(id) {
                    let (doc, _) = posting.expect("validated postings decode");
                    assert!((doc as usize) < n);
                }
            }
            if let Some(d) = &p.dense {
                if let Err(e) = d.decode_graph(n) {
                    let _ = e.to_string();
                }
            }
        }
        Err(e) => {
            let _ = e.to_string();
        }
    }
}

/// The dense-part half of [`shard_decode`].
fn dense_part_decode(mode: u8, rest: &[u8]) {
    let bytes = if mode & 1 == 0 {
        rest.to_vec()
    } else {
        let mut out = wrap(rest);
        out[..8].copy_from_slice(DENSE_MAGIC);
        out
    };
    match decode_dense_part(&bytes, true) {
        Ok(p) => {
            let again = encode_dense_part(&p);
            let q = decode_dense_part(&again, true).expect("a re-encoded dense part decodes");
            assert_eq!(encode_dense_part(&q), again, "encode(decode(x)) is stable");
            // A reader checks `chunks` against its loaded shard first; bound it likewise here.
            let n = p.chunks.min(1 << 16) as usize;
            if let Err(e) = p.index.decode_graph(n) {
                let _ = e.to_string();
            }
        }
        Err(e) => {
            let _ = e.to_string();
        }
    }
}

/// `Library::load_shard` on arbitrary bytes, with a manifest built from the fixture, then searches
/// over whatever loaded.
///
/// First byte, bit 0: wrap the rest in a valid header (forged payload) or take it as a whole file.
/// Bit 1: make the manifest agree with the bytes (its SHA-256, and an entry for the shard's
/// subject/level), as a host serving a forged or stale-but-consistent folder would; otherwise the
/// fixture manifest is used as is (integrity path; bits 3-7 pick its entry). Bit 2 clear: the
/// toy query embedder claims the model the shard records, so its dense index is searched, by exact
/// scan and (forced, since the shards are small) by the HNSW graph; set: the model mismatches.
/// Properties: no panic, loading errors print, searches return at most k results inside the scope.
pub fn shard_load(data: &[u8]) {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let (out, _) = fixture();
    let bytes = if mode & 1 == 1 {
        wrap(rest)
    } else {
        rest.to_vec()
    };
    let mut manifest = out.manifest.clone();
    let mut file = manifest.shards[(mode as usize >> 3) % manifest.shards.len()]
        .file
        .clone();
    if mode & 2 == 2 {
        if let Ok(p) = decode_shard(&bytes) {
            let sha = sha256_hex(&bytes);
            let pos = manifest
                .shards
                .iter()
                .position(|s| s.subject == p.subject && s.level == p.level);
            let entry = ShardEntry {
                subject: p.subject.clone(),
                level: p.level.clone(),
                file: "forged.chsr".into(),
                sha256: sha,
                bytes: bytes.len() as u64,
                chunks: p.chunks.len() as u64,
                facets: Default::default(),
                dense: None,
                // The original shard's part list: a forged payload with as many blocks loads.
                part_list: pos.and_then(|i| manifest.shards[i].part_list.clone()),
                terms: None,
            };
            match pos {
                Some(i) => manifest.shards[i] = entry,
                None => manifest.shards.push(entry),
            }
            file = "forged.chsr".into();
        }
    }
    // Bit 2 clear: the query embedder claims the shard's own model (its dense index is searched
    // whatever model hash it records); set: the toy model (a forged shard's model mismatches).
    let mut model = toy_model_sha256().to_string();
    if mode & 4 == 0 {
        if let Some(d) = decode_shard(&bytes).ok().and_then(|p| p.dense) {
            model = d.model_sha256;
        }
    }
    let mut lib = Library::new(manifest);
    lib.set_embedder(Box::new(ToyEmbedder(model)));
    if let Err(e) = lib.load_shard(&file, &bytes) {
        let _ = e.to_string();
        return;
    }
    let shard = lib.loaded().next().expect("the shard just loaded");
    let scope = Scope::new()
        .with(Field::Subject, shard.payload.subject.clone())
        .with(Field::Level, shard.payload.level.clone());
    let mut queries: Vec<String> = vec![String::new(), "heat energy".into()];
    queries.extend(shard.payload.lexical.terms.iter().take(3).cloned());
    if let Some(c) = shard.payload.chunks.first() {
        queries.push(c.text.chars().take(200).collect());
    }
    for q in &queries {
        for (v, graph) in [
            (Variant::A, false),
            (Variant::A, true),
            (Variant::C, false),
            (Variant::E, true),
        ] {
            let mut opts = SearchOptions {
                k: 5,
                expand_chars: 300,
                ..SearchOptions::for_variant(v)
            };
            if graph {
                // Small shards are scanned exactly; force the HNSW graph search too.
                opts.dense.exact_max = 0;
                opts.dense.exact_fraction = 0.0;
            }
            match lib.search(q, &scope, &opts) {
                Ok(r) => {
                    assert!(r.results.len() <= 5);
                    for h in &r.results {
                        let c = lib
                            .loaded()
                            .flat_map(|s| s.chunks())
                            .find(|c| c.id == h.id)
                            .expect("a result is a loaded chunk");
                        if h.leakage == Leakage::InScope {
                            assert!(gate::admits(&scope, c), "{} outside {scope}", h.id);
                        }
                    }
                    let _ = serde_json::to_string(&r).expect("responses serialise");
                    let _ = lib.to_context(&r);
                }
                Err(e) => {
                    // A scope the manifest does not list (a shard with empty subject/level).
                    let _ = e.to_string();
                }
            }
        }
    }
}

/// `Manifest::from_json` on arbitrary text, then what a reader does with an accepted manifest:
/// list subjects and levels, validate scopes against it, plan which shards to fetch, search
/// before anything is loaded.
/// Properties: no panic; an accepted manifest round-trips through `to_json`; every shard file
/// name it accepts is a plain file name; a search either runs or names the shards to load.
pub fn manifest(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let m = match Manifest::from_json(text) {
        Ok(m) => m,
        Err(e) => {
            let _ = e.to_string();
            return;
        }
    };
    let again = Manifest::from_json(&m.to_json()).expect("an accepted manifest round-trips");
    assert_eq!(again, m);
    for s in &m.shards {
        assert!(!s.file.contains('/') && !s.file.contains('\\') && !s.file.starts_with('.'));
    }
    let _ = (m.subjects(), m.levels());
    let lib = Library::new(m.clone());
    let mut scopes = vec![Scope::new()];
    for s in m.shards.iter().take(8) {
        let mut sc = Scope::new()
            .with(Field::Subject, s.subject.clone())
            .with(Field::Level, s.level.clone());
        scopes.push(sc.clone());
        if let Some(v) = s.facets.get("doc_type").and_then(|f| f.keys().next()) {
            sc.set(Field::DocType, v.clone());
            scopes.push(sc);
        }
    }
    for sc in &scopes {
        if let Err(e) = sc.validate(&m) {
            let _ = e.to_string();
        }
        for g in [Gating::Gated, Gating::Ungated] {
            let _ = lib.shards_needed(sc, g);
        }
        match lib.search("heat", sc, &SearchOptions::default()) {
            Ok(r) => assert!(r.results.is_empty(), "nothing is loaded"),
            Err(SearchError::NotLoaded(files)) => assert!(!files.is_empty()),
            Err(e) => {
                let _ = e.to_string();
            }
        }
    }
}

/// Input layout: language byte, pool bitmask, snippet length (u16 LE), then UTF-8 text and query
/// separated by the first NUL (without a NUL, the text is also the query). Plain text, so the
/// corpus can be seeded with fixture texts and queries.
struct TextInput<'a> {
    text: &'a str,
    query: &'a str,
    lang: u8,
    pool: u8,
    max_chars: u16,
}

fn parse_text_input(data: &[u8]) -> Option<TextInput<'_>> {
    if data.len() < 4 {
        return None;
    }
    let rest = std::str::from_utf8(&data[4..]).ok()?;
    let (text, query) = rest.split_once('\0').unwrap_or((rest, rest));
    Some(TextInput {
        text,
        query,
        lang: data[0],
        pool: data[1],
        max_chars: u16::from_le_bytes([data[2], data[3]]),
    })
}

const LANGS: [Lang; 3] = [Lang::En, Lang::Fr, Lang::Other];

/// The analyzer on arbitrary Unicode: formula normalisation, tokenisation, document and query
/// analysis, snippet building, query understanding and glossary expansion.
/// Properties: no panic; token spans are in order, on char boundaries and equal to their text;
/// a query is bounded by MAX_QUERY_TERMS distinct terms, and (when not truncated) has exactly the
/// distinct terms the document path gives the same text; a snippet is a piece of the text
/// (verbatim, with `…` marking cuts), with no empty or mergeable segments.
pub fn analyzer(data: &[u8]) {
    let Some(input) = parse_text_input(data) else {
        return;
    };
    static STATE: OnceLock<(Analyzer, Glossary)> = OnceLock::new();
    let (a, glossary) = STATE.get_or_init(|| (Analyzer::new(), Glossary::builtin()));
    let lang = LANGS[input.lang as usize % 3];
    let pool: Vec<Lang> = LANGS
        .iter()
        .enumerate()
        .filter(|(i, _)| input.pool & (1 << i) != 0)
        .map(|(_, l)| *l)
        .collect();

    // Tokens of the raw and the normalised text.
    for text in [input.text.to_string(), normalize_formulas(input.text)] {
        let mut last = 0;
        for t in tokenize(&text) {
            assert!(t.start >= last && t.start < t.end && t.end <= text.len());
            assert_eq!(&text[t.start..t.end], t.text);
            last = t.end;
        }
    }
    let _ = fold_accents(input.text);

    // Document path and query path agree.
    let doc = a.analyze(input.text, lang);
    let q = a.analyze_query(input.text, &[lang]);
    assert!(q.terms.len() <= MAX_QUERY_TERMS);
    if !q.truncated {
        let mut distinct: Vec<String> = Vec::new();
        for t in doc {
            if !distinct.contains(&t) {
                distinct.push(t);
            }
        }
        assert_eq!(q.terms, distinct, "query and document analysis differ");
    }

    // Query over a pool of languages; snippet of the text for it.
    let q = a.analyze_query(input.query, &pool);
    assert!(q.terms.len() <= MAX_QUERY_TERMS);
    let segs = snippet(a, input.text, lang, &q.terms, input.max_chars as usize);
    let mut joined = String::new();
    for (i, s) in segs.iter().enumerate() {
        assert!(!s.text.is_empty(), "empty segment");
        if i > 0 {
            assert_ne!(
                segs[i - 1].hit,
                s.hit,
                "adjacent segments should have merged"
            );
        }
        joined.push_str(&s.text);
    }
    let middle = joined.strip_prefix('…').unwrap_or(&joined);
    let middle = middle.strip_suffix('…').unwrap_or(middle);
    assert!(
        input.text.contains(joined.as_str()) || input.text.contains(middle),
        "snippet is not a piece of the text"
    );

    // Query understanding and cross-language expansion.
    let u = understand(input.query);
    let _ = serde_json::to_string(&u).expect("understanding serialises");
    let qlang = detect_lang(input.query);
    let _ = glossary.expand(input.query, qlang, &pool, a);
}

#[derive(Arbitrary, Debug)]
enum Value {
    Real(u16),
    Random(String),
}

#[derive(Arbitrary, Debug)]
struct SearchInput {
    query: Vec<u8>,
    repeat: u8,
    scope: Vec<(u8, Value)>,
    k: u8,
    variant: u8,
    gating: Option<u8>,
    expand: u16,
    snippet_chars: u16,
    allow_fallback: bool,
}

/// Distinct values of every field in the fixture.
fn real_values() -> &'static BTreeMap<Field, Vec<String>> {
    static V: OnceLock<BTreeMap<Field, Vec<String>>> = OnceLock::new();
    V.get_or_init(|| {
        let (_, lib) = fixture();
        let mut m: BTreeMap<Field, Vec<String>> = BTreeMap::new();
        for c in lib.loaded().flat_map(|s| s.chunks()) {
            for f in Field::ALL {
                if let Some(v) = c.get(f) {
                    let e = m.entry(f).or_default();
                    if !e.iter().any(|x| x == v) {
                        e.push(v.to_string());
                    }
                }
            }
        }
        m
    })
}

/// `Library::search` over the fixture library with arbitrary queries, scopes and options.
///
/// The input is structured (`arbitrary`): query bytes (read as lossy UTF-8, optionally repeated
/// into a long query), scope fields whose values come from the fixture's real values or are
/// random strings, k (including 0 and more than MAX_K), the variant, a gating override, section
/// expansion, snippet length and the fallback switch.
/// Properties: no panic; an error is a scope or option error (never "not loaded": every shard
/// is); at most k results, ranked 1..n; gated results (C, D, and E's in-scope ones) satisfy the
/// requested scope; a result outside the scope always carries a leakage label other than
/// in_scope; B+ never returns an out-of-scope chunk; the response serialises.
pub fn search(data: &[u8]) {
    let Ok(input) = SearchInput::arbitrary_take_rest(arbitrary::Unstructured::new(data)) else {
        return;
    };
    let (_, lib) = fixture();
    let reals = real_values();
    let mut query = String::from_utf8_lossy(&input.query).into_owned();
    if input.repeat > 200 && !query.is_empty() {
        // A long query: up to ~1 MB, as a pasted document would be.
        let times = ((1usize << 20) / query.len()).min(1 << 14);
        query = query.repeat(times);
    }
    let mut scope = Scope::new();
    for (f, v) in input.scope.iter().take(6) {
        let field = Field::ALL[*f as usize % Field::ALL.len()];
        let value = match v {
            Value::Real(i) => match reals.get(&field) {
                Some(vals) if !vals.is_empty() => vals[*i as usize % vals.len()].clone(),
                _ => continue,
            },
            Value::Random(s) => s.clone(),
        };
        scope.set(field, value);
    }
    let variant = Variant::ALL[input.variant as usize % Variant::ALL.len()];
    let mut opts = SearchOptions::for_variant(variant);
    opts.k = input.k as usize;
    if let Some(g) = input.gating {
        opts.stages.gating = [Gating::Gated, Gating::Ungated, Gating::PostFiltered][g as usize % 3];
    }
    opts.expand_chars = (input.expand % 2000) as usize;
    opts.snippet_chars = 16 + (input.snippet_chars % 1000) as usize;
    opts.allow_fallback = input.allow_fallback;
    let k = opts.k;
    let r = match lib.search(&query, &scope, &opts) {
        Ok(r) => r,
        Err(SearchError::Option(_)) if k == 0 || k > MAX_K => return,
        Err(SearchError::Scope(e)) => {
            let _ = e.to_string();
            return;
        }
        Err(e) => panic!("unexpected error: {e}"),
    };
    assert!(k >= 1 && k <= MAX_K);
    assert!(
        r.results.len() <= k,
        "{} results for k = {k}",
        r.results.len()
    );
    assert!(r.trace.admissible <= r.trace.pool_chunks);
    if query.len() > chsr::analysis::MAX_QUERY_BYTES {
        assert!(
            r.trace.truncated,
            "a query over the byte limit is reported truncated"
        );
    }
    let chunk = |id: &str| -> &ChunkRecord {
        lib.loaded()
            .flat_map(|s| s.chunks())
            .find(|c| c.id == id)
            .expect("a result is a loaded chunk")
    };
    let gating = opts.stages.gating;
    for (i, h) in r.results.iter().enumerate() {
        assert_eq!(h.rank, i + 1);
        let inside = gate::admits(&scope, chunk(&h.id));
        if h.in_scope {
            assert!(inside, "{}: flagged in_scope but outside {scope}", h.id);
        }
        if !inside {
            assert_ne!(
                h.leakage,
                Leakage::InScope,
                "{} is outside {scope} but labelled in_scope ({variant:?}, {gating:?})",
                h.id
            );
        }
        if gating == Gating::PostFiltered
            || (gating == Gating::Gated && matches!(variant, Variant::A | Variant::C | Variant::D))
        {
            assert!(inside, "{} outside {scope} ({variant:?}, {gating:?})", h.id);
        }
    }
    let _ = serde_json::to_string(&r).expect("responses serialise");
    let _ = lib.to_context(&r);
}

/// JSONL ingest (`corpus::parse_line`, `corpus::parse_jsonl`) on arbitrary text, and — for small
/// corpora that parse — the builder and the reader behind it.
/// Properties: no panic; every line error names `file:line`; duplicate ids are refused; what
/// parses builds shards that decode and load against their own manifest; every chunk is found by
/// a gated browse of its own subject and level.
pub fn jsonl(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    for (i, line) in text.lines().enumerate() {
        if let Err(e) = parse_line("f.jsonl", i + 1, line) {
            let msg = e.to_string();
            assert!(
                msg.starts_with(&format!("f.jsonl:{}: ", i + 1)),
                "error without file:line: {msg}"
            );
        }
    }
    let chunks = match parse_jsonl("f.jsonl", text) {
        Ok(c) => c,
        Err(e) => {
            if let IngestError::DuplicateId { first, second, .. } = &e {
                assert_ne!(first, second);
            }
            let _ = e.to_string();
            return;
        }
    };
    if let Err(e) = check_visibility(&chunks, false) {
        assert!(e.to_string().contains("--private"));
    }
    if chunks.is_empty() || text.len() > 16 * 1024 {
        return;
    }
    let out = build(&chunks, &Default::default());
    let manifest = Manifest::from_json(&out.manifest.to_json()).expect("built manifests parse");
    let mut lib = Library::new(manifest);
    for s in &out.shards {
        decode_shard(&s.bytes).expect("built shards decode");
        lib.load_shard(&s.entry.file, &s.bytes)
            .expect("built shards load");
    }
    let opts = SearchOptions {
        k: 200,
        ..SearchOptions::for_variant(Variant::C)
    };
    for c in chunks.iter().take(8) {
        let scope = Scope::new()
            .with(Field::Subject, c.record.subject.clone())
            .with(Field::Level, c.record.level.clone());
        let r = lib
            .search("", &scope, &opts)
            .unwrap_or_else(|e| panic!("{}: its own scope {scope} fails: {e}", c.record.id));
        assert!(
            r.trace.admissible > 0,
            "{}: its own scope {scope} admits nothing",
            c.record.id
        );
    }
}
