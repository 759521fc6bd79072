//! Performance tooling for chsr (issue 7), run as a plain program (`harness = false`):
//!
//! ```sh
//! cargo bench --bench perf -- export --shards DIR --queries Q.jsonl --out DIR
//! cargo bench --bench perf -- synth --corpus chunks.jsonl --copies N [--mode deepen|widen] --out F
//! cargo bench --bench perf -- load --shards DIR [--repeat N] [--json OUT] [--dump DIR]
//! cargo bench --bench perf -- dense --shards DIR --queries Q.jsonl [--repeat N]
//! cargo bench --bench perf -- snippets --shards DIR --queries Q.jsonl [--variant D] [--dump F]
//! ```
//!
//! * `export` writes what the browser benchmark needs to index the *same* chunks in a peer
//!   engine: `docs.json` (the indexed text of every chunk, i.e. body + titles + label, and its
//!   scope fields), `vectors.bin` (each chunk's int8 vector and scale exactly as stored in the
//!   shard's HNSW graph), `queries.json` (the dev queries with scope, grades and the query vector
//!   from the shards' model, bit-identical to what the Wasm module computes) and
//!   `stopwords.json` (the analyzer's English stopwords among the corpus and query words).
//! * `synth` multiplies a corpus: every copy gets new ids and perturbed text (word replacement,
//!   drops and swaps with a deterministic generator); `deepen` keeps all metadata (the shards grow),
//!   `widen` also renames the subject of each copy (new shards of the original size).
//! * `load` times each stage of loading every shard of a folder natively (SHA-256, bincode
//!   decode, lexical validation, graph decode) and reports the bytes of each part of the payload
//!   (`--dump DIR` writes each part, bincode-encoded, for a script to compress).
//!
//! * `dense` compares, on the queries whose scope is a whole shard, the HNSW graph search the
//!   library plans for them with an exact scan of every vector of the shard: time and overlap
//!   of the top 50 (what dropping the graph from the shards would cost or gain).
//!
//! * `snippets` times, natively, a variant's searches and the snippet computation of their
//!   results alone (what the search spends outside its timed stages).
//!
//! Nothing here is a test: it prints numbers (and JSON for the scripts in `scripts/bench-*`).

use chsr::analysis::{is_stopword, Lang};
use chsr::build::index_text;
use chsr::dense::DenseShard;
use chsr::format::{decode_dense_part, sha256_hex, ChunkRecord, ShardPayload, HEADER_LEN};
use chsr::gate::Gating;
use chsr::scope::Scope;
use chsr::search::{Library, ModelEmbedder, QueryEmbedder};
use serde_json::{json, Map, Value};
use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

// What a first visit downloads before its first result (scripts/bench-first-page).
#[path = "perf/first_page.rs"]
mod first_page;

fn main() {
    // `cargo bench` appends `--bench`; it means nothing here.
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    let result = match args.first().map(String::as_str) {
        Some("export") => export(&Opts::parse(&args[1..])),
        Some("synth") => synth(&Opts::parse(&args[1..])),
        Some("load") => load(&Opts::parse(&args[1..])),
        Some("dense") => dense_plans(&Opts::parse(&args[1..])),
        Some("snippets") => snippets(&Opts::parse(&args[1..])),
        Some("build") => first_page::build_blocks(&Opts::parse(&args[1..])),
        Some("first-page") => first_page::first_page(&Opts::parse(&args[1..])),
        _ => Err("usage: perf export|synth|load|dense|snippets|build|first-page [--option value]... (see benches/perf.rs)".into()),
    };
    if let Err(e) = result {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}

/// `--name value` pairs.
struct Opts(BTreeMap<String, String>);

impl Opts {
    fn parse(args: &[String]) -> Opts {
        let mut m = BTreeMap::new();
        let mut it = args.iter();
        while let Some(a) = it.next() {
            if let Some(name) = a.strip_prefix("--") {
                m.insert(name.to_string(), it.next().cloned().unwrap_or_default());
            }
        }
        Opts(m)
    }
    fn get(&self, name: &str) -> Result<&str, String> {
        self.0
            .get(name)
            .map(String::as_str)
            .ok_or_else(|| format!("missing --{name}"))
    }
    fn path(&self, name: &str) -> Result<PathBuf, String> {
        self.get(name).map(PathBuf::from)
    }
    fn num(&self, name: &str, default: u64) -> Result<u64, String> {
        match self.0.get(name) {
            None => Ok(default),
            Some(v) => v
                .parse()
                .map_err(|_| format!("--{name}: not a number: {v}")),
        }
    }
}

fn err<E: std::fmt::Display>(ctx: impl std::fmt::Display) -> impl FnOnce(E) -> String {
    move |e| format!("{ctx}: {e}")
}

/// Every file of the shard folder `dir` loaded: shards, dense parts, part lists, postings and
/// text parts (the export for the peer engine indexes each chunk's text, and the snippets need
/// it: a shard alone has neither since its text moved to text parts).
fn open_all(dir: &Path) -> Result<Library, String> {
    let mut lib = Library::open_dir(dir).map_err(|e| e.to_string())?;
    lib.load_needed_from_dir(dir, &Scope::new(), Gating::Ungated)
        .map_err(|e| e.to_string())?;
    Ok(lib)
}

/// Every shard and dense part of `dir`, the model loaded into the library, and the model again
/// as a standalone embedder (for query vectors outside a search).
fn open_with_model(
    dir: &Path,
) -> Result<(Library, chsr::format::ModelEntry, ModelEmbedder), String> {
    let mut lib = open_all(dir)?;
    lib.load_model_from_dir(dir).map_err(|e| e.to_string())?;
    let model_entry = lib
        .manifest()
        .model
        .clone()
        .ok_or("the shards have no embedding model: build them with --model")?;
    let model_bytes = std::fs::read(dir.join(&model_entry.file)).map_err(err(&model_entry.file))?;
    let model = ModelEmbedder::from_bytes(&model_bytes).map_err(|e| e.to_string())?;
    Ok((lib, model_entry, model))
}

// ------------------------------------------------------------------------------------ export

const SCOPE_FIELDS: [&str; 12] = [
    "subject",
    "level",
    "lang",
    "doc_type",
    "source",
    "chapter",
    "section",
    "section_key",
    "topic",
    "year",
    "exam",
    "paper",
];

fn doc_json(c: &ChunkRecord) -> Value {
    let mut m = Map::new();
    m.insert("id".into(), json!(c.id));
    m.insert("text".into(), json!(index_text(c)));
    let fields = [
        ("subject", Some(&c.subject)),
        ("level", Some(&c.level)),
        ("lang", Some(&c.lang)),
        ("doc_type", Some(&c.doc_type)),
        ("source", c.source.as_ref()),
        ("chapter", c.chapter.as_ref()),
        ("section", c.section.as_ref()),
        ("section_key", c.section_key.as_ref()),
        ("topic", c.topic.as_ref()),
        ("year", c.year.as_ref()),
        ("exam", c.exam.as_ref()),
        ("paper", c.paper.as_ref()),
        ("question_number", c.question_number.as_ref()),
    ];
    debug_assert!(SCOPE_FIELDS
        .iter()
        .all(|f| fields.iter().any(|(n, _)| n == f)));
    for (name, v) in fields {
        if let Some(v) = v {
            m.insert(name.into(), json!(v.trim()));
        }
    }
    Value::Object(m)
}

fn export(o: &Opts) -> Result<(), String> {
    let dir = o.path("shards")?;
    let out = o.path("out")?;
    std::fs::create_dir_all(&out).map_err(err(out.display()))?;
    let (lib, model_entry, model) = open_with_model(&dir)?;
    let dims = model_entry.dims as usize;

    // Documents and their stored vectors, shard by shard in manifest order.
    let mut docs = Vec::new();
    let mut vectors: Vec<u8> = Vec::new();
    let mut words: BTreeSet<String> = BTreeSet::new();
    for s in lib.loaded() {
        let dense: &DenseShard = s.dense.as_ref().ok_or("a shard has no dense index")?;
        let mut by_doc: Vec<Option<&chsr::format::QVec>> = vec![None; s.chunks().len()];
        for ((_, p), &doc) in dense.graph.iter().zip(&dense.graph.values) {
            by_doc[doc as usize] = Some(p);
        }
        for (c, v) in s.chunks().iter().zip(by_doc) {
            let v = v.ok_or("a chunk has no vector")?;
            if v.q.len() != dims {
                return Err("vector dimensions differ from the manifest's".into());
            }
            if c.text.is_empty() {
                // The peer would index titles only (as it did from session 8 to 27).
                return Err(format!(
                    "chunk {} has no text: its text part is not loaded",
                    c.id
                ));
            }
            docs.push(doc_json(c));
            vectors.extend_from_slice(&v.scale.to_le_bytes());
            vectors.extend(v.q.iter().map(|&x| x as u8));
            for w in index_text(c).split(|ch: char| !ch.is_alphanumeric()) {
                if !w.is_empty() && w.len() < 20 {
                    words.insert(w.to_lowercase());
                }
            }
        }
    }
    // Queries with the query vector of the same model.
    let qpath = o.path("queries")?;
    let text = std::fs::read_to_string(&qpath).map_err(err(qpath.display()))?;
    let mut queries = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let q: Value = serde_json::from_str(line).map_err(err("queries"))?;
        let query = q["query"].as_str().unwrap_or_default();
        for w in query.split(|ch: char| !ch.is_alphanumeric()) {
            if !w.is_empty() && w.len() < 20 {
                words.insert(w.to_lowercase());
            }
        }
        let v = model.embed_query(query);
        queries.push(json!({
            "id": q["id"],
            "slice": q["slice"],
            "query": query,
            "scope": q["scope"],
            "grades": if q["relevant_grades"].is_object() { q["relevant_grades"].clone() } else {
                Value::Object(q["relevant_ids"].as_array().into_iter().flatten()
                    .filter_map(|x| x.as_str().map(|id| (id.to_string(), json!(1)))).collect())
            },
            "vector": v,
        }));
    }
    // The analyzer's English stopwords among the words seen (derived through its public API).
    let stop: Vec<&String> = words.iter().filter(|w| is_stopword(w, Lang::En)).collect();
    let write = |name: &str, bytes: &[u8]| -> Result<(), String> {
        let p = out.join(name);
        std::fs::write(&p, bytes).map_err(err(p.display()))
    };
    write(
        "docs.json",
        serde_json::to_string(&docs).unwrap().as_bytes(),
    )?;
    write("vectors.bin", &vectors)?;
    write(
        "queries.json",
        serde_json::to_string(&queries).unwrap().as_bytes(),
    )?;
    write(
        "stopwords.json",
        serde_json::to_string(&stop).unwrap().as_bytes(),
    )?;
    write(
        "meta.json",
        serde_json::to_string_pretty(&json!({
            "docs": docs.len(), "dims": dims, "queries": queries.len(),
            "model": model_entry.file, "model_sha256": model.model_sha256(),
            "vector_record_bytes": 4 + dims,
        }))
        .unwrap()
        .as_bytes(),
    )?;
    eprintln!(
        "exported {} docs ({} vector bytes), {} queries, {} stopwords into {}",
        docs.len(),
        vectors.len(),
        queries.len(),
        stop.len(),
        out.display()
    );
    Ok(())
}

// ------------------------------------------------------------------------------------- synth

/// SplitMix64: small, fast, deterministic.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    fn chance(&mut self, per_mille: u64) -> bool {
        self.next() % 1000 < per_mille
    }
}

/// Perturbs a text: each whitespace-separated word is replaced (by a word drawn from `pool`,
/// so frequent words stay frequent), dropped, or swapped with its successor, at the given rates
/// (per mille); line breaks are kept.
fn perturb(text: &str, pool: &[&str], rng: &mut Rng, rates: (u64, u64, u64)) -> String {
    let (replace, drop, swap) = rates;
    let mut out = String::with_capacity(text.len());
    for (li, line) in text.split('\n').enumerate() {
        if li > 0 {
            out.push('\n');
        }
        let mut ws: Vec<&str> = Vec::new();
        for w in line.split(' ') {
            if rng.chance(drop) {
                continue;
            }
            if rng.chance(replace) && !pool.is_empty() {
                ws.push(pool[rng.below(pool.len())]);
            } else {
                ws.push(w);
            }
        }
        let mut i = 0;
        while i + 1 < ws.len() {
            if rng.chance(swap) {
                ws.swap(i, i + 1);
                i += 1;
            }
            i += 1;
        }
        out.push_str(&ws.join(" "));
    }
    out
}

fn synth(o: &Opts) -> Result<(), String> {
    let corpus = o.path("corpus")?;
    let copies = o.num("copies", 1)? as usize;
    let limit = o.num("limit", u64::MAX)? as usize;
    let seed = o.num("seed", 42)?;
    let mode = o.0.get("mode").map(String::as_str).unwrap_or("deepen");
    if mode != "deepen" && mode != "widen" {
        return Err("--mode must be deepen or widen".into());
    }
    let rates = (
        o.num("replace", 200)?,
        o.num("drop", 50)?,
        o.num("swap", 50)?,
    );
    let out = o.path("out")?;
    let f = std::fs::File::open(&corpus).map_err(err(corpus.display()))?;
    let mut records: Vec<Map<String, Value>> = Vec::new();
    for line in std::io::BufReader::new(f).lines() {
        let line = line.map_err(err(corpus.display()))?;
        if line.trim().is_empty() {
            continue;
        }
        match serde_json::from_str(&line).map_err(err(corpus.display()))? {
            Value::Object(m) => records.push(m),
            _ => return Err("a corpus line is not an object".into()),
        }
    }
    // Word pools per (subject, level), with repetition (frequency-proportional draws).
    let key = |m: &Map<String, Value>| {
        (
            m["subject"].as_str().unwrap_or_default().to_string(),
            m["level"].as_str().unwrap_or_default().to_string(),
        )
    };
    let mut pools: BTreeMap<(String, String), Vec<&str>> = BTreeMap::new();
    for m in &records {
        let pool = pools.entry(key(m)).or_default();
        pool.extend(
            m["text"]
                .as_str()
                .unwrap_or_default()
                .split([' ', '\n'])
                .filter(|w| !w.is_empty()),
        );
    }
    let file = std::fs::File::create(&out).map_err(err(out.display()))?;
    let mut w = BufWriter::new(file);
    let mut n = 0usize;
    'outer: for copy in 0..copies {
        for (i, m) in records.iter().enumerate() {
            if n >= limit {
                break 'outer;
            }
            let mut r = m.clone();
            if copy > 0 {
                let mut rng = Rng(seed ^ ((copy as u64) << 32) ^ i as u64);
                rng.next();
                let id = format!("{}~{copy}", m["id"].as_str().unwrap_or_default());
                r.insert("id".into(), json!(id));
                if let Some(a) = m.get("answers").and_then(Value::as_str) {
                    r.insert("answers".into(), json!(format!("{a}~{copy}")));
                }
                let pool = &pools[&key(m)];
                let text = perturb(
                    m["text"].as_str().unwrap_or_default(),
                    pool,
                    &mut rng,
                    rates,
                );
                r.insert("text".into(), json!(text));
                if mode == "widen" {
                    let s = format!("{}-{copy}", m["subject"].as_str().unwrap_or_default());
                    r.insert("subject".into(), json!(s));
                }
            }
            serde_json::to_writer(&mut w, &Value::Object(r)).map_err(err(out.display()))?;
            w.write_all(b"\n").map_err(err(out.display()))?;
            n += 1;
        }
    }
    w.flush().map_err(err(out.display()))?;
    eprintln!(
        "wrote {n} chunks ({mode}, {copies} copies) to {}",
        out.display()
    );
    Ok(())
}

// -------------------------------------------------------------------------------------- load

fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1000.0
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// `v` in bincode 2's standard encoding, as the shard formats write their fields.
fn bin<T: bincode::Encode>(v: &T) -> Vec<u8> {
    bincode::encode_to_vec(v, bincode::config::standard()).unwrap_or_default()
}

fn enc_len<T: bincode::Encode>(v: &T) -> usize {
    bin(v).len()
}

fn load(o: &Opts) -> Result<(), String> {
    let dir = o.path("shards")?;
    let repeat = o.num("repeat", 3)?.max(1) as usize;
    let lib = Library::open_dir(&dir).map_err(|e| e.to_string())?;
    let manifest = lib.manifest().clone();
    let mut rows = Vec::new();
    println!(
        "{:<44} {:>7} {:>10} | {:>7} {:>7} {:>7} {:>7} {:>7} {:>7} | {:>8} {:>8} {:>8} {:>8} {:>8}",
        "shard",
        "chunks",
        "bytes",
        "sha ms",
        "body ms",
        "decode",
        "lexval",
        "graph",
        "total",
        "text kB",
        "meta kB",
        "lex kB",
        "dense kB",
        "vec kB"
    );
    for e in &manifest.shards {
        let path = dir.join(&e.file);
        let bytes = std::fs::read(&path).map_err(err(path.display()))?;
        let body = &bytes[HEADER_LEN..];
        // The shard's dense part, in its own file since the lexical-first split.
        let part_bytes = match &e.dense {
            Some(d) => Some(std::fs::read(dir.join(&d.file)).map_err(err(&d.file))?),
            None => None,
        };
        let (mut t_sha, mut t_body, mut t_dec, mut t_val, mut t_graph, mut t_total) =
            (vec![], vec![], vec![], vec![], vec![], vec![]);
        let mut payload: Option<ShardPayload> = None;
        for _ in 0..repeat {
            let t = Instant::now();
            let _ = sha256_hex(&bytes);
            t_sha.push(ms(t));
            let t = Instant::now();
            let _ = sha256_hex(body);
            t_body.push(ms(t));
            let t = Instant::now();
            let config = bincode::config::standard().with_limit::<{ 1 << 31 }>();
            let (mut p, _): (ShardPayload, usize) =
                bincode::decode_from_slice(body, config).map_err(err(&e.file))?;
            if let Some(b) = &part_bytes {
                p.dense = Some(decode_dense_part(b, false).map_err(err(&e.file))?.index);
            }
            t_dec.push(ms(t));
            let t = Instant::now();
            // A shard with postings parts holds the tables only (the parts are checked as they
            // arrive), as `decode_shard` checks it.
            if p.postings_blocks.is_empty() {
                p.lexical.validate(p.chunks.len())
            } else {
                let total = p.lexical.offsets.last().map_or(0, |&e| e as usize);
                p.lexical.validate_tables(p.chunks.len(), total)
            }
            .map_err(|x| x.to_string())?;
            t_val.push(ms(t));
            let t = Instant::now();
            if let Some(d) = &p.dense {
                let g = d.decode_graph(p.chunks.len()).map_err(|x| x.to_string())?;
                let _ = DenseShard::new(g, d.dims as usize);
            }
            t_graph.push(ms(t));
            // The whole library path (what the Wasm module's loadShard runs).
            let mut l = Library::new(manifest.clone());
            let t = Instant::now();
            l.load_shard(&e.file, &bytes).map_err(|x| x.to_string())?;
            if let (Some(d), Some(b)) = (&e.dense, &part_bytes) {
                l.load_dense(&d.file, b).map_err(|x| x.to_string())?;
            }
            t_total.push(ms(t));
            payload = Some(p);
        }
        let p = payload.expect("decoded at least once");
        if let Ok(dump) = o.path("dump") {
            // Each part of the payload on its own (bincode), so a script can gzip them.
            std::fs::create_dir_all(&dump).map_err(err(dump.display()))?;
            let stem = e.file.trim_end_matches(".chsr");
            let text: Vec<&str> = p.chunks.iter().map(|c| c.text.as_str()).collect();
            let meta: Vec<ChunkRecord> = p
                .chunks
                .iter()
                .map(|c| ChunkRecord {
                    text: String::new(),
                    ..c.clone()
                })
                .collect();
            for (part, bytes) in [
                ("text", bin(&text)),
                ("meta", chsr::format::encoded_chunks(&meta)),
                ("lexical", bin(&p.lexical)),
                ("dense", bin(&p.dense)),
            ] {
                let f = dump.join(format!("{stem}.{part}.bin"));
                std::fs::write(&f, bytes).map_err(err(f.display()))?;
            }
        }
        let text: usize = p.chunks.iter().map(|c| c.text.len()).sum();
        let chunks_len = chsr::format::encoded_chunks(&p.chunks).len();
        let lexical = enc_len(&p.lexical);
        let dense = p.dense.as_ref().map(enc_len).unwrap_or(0);
        let vec_bytes = p
            .dense
            .as_ref()
            .map(|d| p.chunks.len() * (d.dims as usize + 4))
            .unwrap_or(0);
        let terms: usize = p.lexical.terms.iter().map(|t| t.len() + 1).sum();
        let row = json!({
            "file": e.file, "subject": e.subject, "level": e.level, "chunks": e.chunks,
            "bytes": bytes.len(),
            "ms": {
                "sha256_file": median(t_sha), "sha256_payload": median(t_body),
                "bincode_decode": median(t_dec), "lexical_validate": median(t_val),
                "graph_decode_validate": median(t_graph), "load_shard": median(t_total),
            },
            "parts": {
                "chunk_text": text, "chunk_metadata": chunks_len.saturating_sub(text),
                "lexical": lexical, "lexical_terms": terms,
                "lexical_postings": p.lexical.postings.len(),
                "lexical_doc_len": enc_len(&p.lexical.doc_len),
                "dense": dense, "dense_vectors": vec_bytes,
                "dense_graph_links": dense.saturating_sub(vec_bytes),
            },
        });
        println!(
            "{:<44} {:>7} {:>10} | {:>7.1} {:>7.1} {:>7.1} {:>7.1} {:>7.1} {:>7.1} | {:>8} {:>8} {:>8} {:>8} {:>8}",
            format!("{}/{}", e.subject, e.level),
            e.chunks,
            bytes.len(),
            row["ms"]["sha256_file"].as_f64().unwrap(),
            row["ms"]["sha256_payload"].as_f64().unwrap(),
            row["ms"]["bincode_decode"].as_f64().unwrap(),
            row["ms"]["lexical_validate"].as_f64().unwrap(),
            row["ms"]["graph_decode_validate"].as_f64().unwrap(),
            row["ms"]["load_shard"].as_f64().unwrap(),
            text / 1000,
            chunks_len.saturating_sub(text) / 1000,
            lexical / 1000,
            dense / 1000,
            vec_bytes / 1000
        );
        rows.push(row);
    }
    let mut model_row = Value::Null;
    if let Some(m) = &manifest.model {
        let bytes = std::fs::read(dir.join(&m.file)).map_err(err(&m.file))?;
        let mut t_sha = vec![];
        let mut t_dec = vec![];
        for _ in 0..repeat {
            let t = Instant::now();
            let _ = sha256_hex(&bytes);
            t_sha.push(ms(t));
            let t = Instant::now();
            let _ = ModelEmbedder::from_bytes(&bytes).map_err(|x| x.to_string())?;
            t_dec.push(ms(t));
        }
        println!(
            "model {} bytes: sha256 {:.1} ms, decode {:.1} ms",
            bytes.len(),
            median(t_sha.clone()),
            median(t_dec.clone())
        );
        model_row = json!({"file": m.file, "bytes": bytes.len(),
            "ms": {"sha256": median(t_sha), "decode": median(t_dec)}});
    }
    if let Ok(p) = o.path("json") {
        let v = json!({"repeat": repeat, "shards": rows, "model": model_row});
        std::fs::write(&p, serde_json::to_string_pretty(&v).unwrap()).map_err(err(p.display()))?;
    }
    Ok(())
}

// ------------------------------------------------------------------------------------- dense

fn dense_plans(o: &Opts) -> Result<(), String> {
    use chsr::dense::{search, DenseConfig};
    use chsr::format::QVec;
    use chsr::gate::Bitset;
    let dir = o.path("shards")?;
    let repeat = o.num("repeat", 5)?.max(1) as usize;
    let (lib, _, model) = open_with_model(&dir)?;
    let qpath = o.path("queries")?;
    let text = std::fs::read_to_string(&qpath).map_err(err(qpath.display()))?;
    let graph_cfg = DenseConfig::default();
    let exact_cfg = DenseConfig {
        exact_max: usize::MAX,
        exact_fraction: 1.0,
    };
    let (mut t_graph, mut t_exact, mut overlap, mut n) = (0.0, 0.0, 0.0, 0usize);
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let q: Value = serde_json::from_str(line).map_err(err("queries"))?;
        let scope = q["scope"].as_object().ok_or("scope")?;
        // Only scopes that are a whole shard (subject and level): the graph plan's case.
        if scope.len() != 2 {
            continue;
        }
        let (subj, lev) = (scope["subject"].as_str(), scope["level"].as_str());
        let Some(s) = lib.loaded().find(|s| {
            Some(s.entry.subject.as_str()) == subj && Some(s.entry.level.as_str()) == lev
        }) else {
            continue;
        };
        let d = s.dense.as_ref().ok_or("no dense index")?;
        let gate = Bitset::full(s.chunks().len());
        let qv = QVec::quantize(&model.embed_query(q["query"].as_str().unwrap_or_default()));
        let id_of = |_: usize, doc: u32| s.chunks()[doc as usize].id.as_str();
        let run = |cfg: &DenseConfig| {
            let t = Instant::now();
            let mut out = Vec::new();
            for _ in 0..repeat {
                out = search(&[(d, &gate)], &qv, 50, cfg, id_of).0;
            }
            (t.elapsed().as_secs_f64() * 1000.0 / repeat as f64, out)
        };
        let (tg, g) = run(&graph_cfg);
        let (te, e) = run(&exact_cfg);
        let exact_ids: BTreeSet<u32> = e.iter().map(|x| x.doc).collect();
        overlap +=
            g.iter().filter(|x| exact_ids.contains(&x.doc)).count() as f64 / e.len().max(1) as f64;
        t_graph += tg;
        t_exact += te;
        n += 1;
    }
    let n = n.max(1) as f64;
    println!(
        "{} whole-shard queries: graph {:.3} ms, exact scan {:.3} ms per query (native); graph top-50 overlap with exact {:.3}",
        n, t_graph / n, t_exact / n, overlap / n
    );
    Ok(())
}

// ---------------------------------------------------------------------------------- snippets

fn snippets(o: &Opts) -> Result<(), String> {
    use chsr::analysis::Analyzer;
    use chsr::search::{SearchOptions, Variant};
    use chsr::snippet::{snippet, SNIPPET_CHARS};
    let dir = o.path("shards")?;
    let mut lib = open_all(&dir)?;
    lib.load_model_from_dir(&dir).map_err(|e| e.to_string())?;
    let variant = Variant::parse(o.0.get("variant").map(String::as_str).unwrap_or("D"))
        .ok_or("unknown --variant")?;
    let opts = SearchOptions::for_variant(variant);
    let qpath = o.path("queries")?;
    let text = std::fs::read_to_string(&qpath).map_err(err(qpath.display()))?;
    let analyzer = Analyzer::new();
    let chunks: BTreeMap<&str, &ChunkRecord> = lib
        .loaded()
        .flat_map(|s| s.chunks().iter())
        .map(|c| (c.id.as_str(), c))
        .collect();
    let (mut t_search, mut t_rust, mut t_snip, mut n) = (0.0, 0.0, 0.0, 0usize);
    let mut dump = match o.path("dump") {
        Ok(p) => Some(BufWriter::new(
            std::fs::File::create(&p).map_err(err(p.display()))?,
        )),
        Err(_) => None,
    };
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let q: Value = serde_json::from_str(line).map_err(err("queries"))?;
        let scope = chsr::scope::Scope::from_json(&q["scope"]).map_err(|e| e.to_string())?;
        let query = q["query"].as_str().unwrap_or_default();
        let _ = lib.search(query, &scope, &opts);
        let t = Instant::now();
        let resp = lib
            .search(query, &scope, &opts)
            .map_err(|e| e.to_string())?;
        t_search += ms(t);
        t_rust += resp.trace.timings.total_ms;
        let t = Instant::now();
        let mut snips = Vec::new();
        for h in &resp.results {
            let c = chunks[h.id.as_str()];
            let lang = Lang::from_code(&c.lang);
            snips.push(snippet(
                &analyzer,
                &c.text,
                lang,
                &resp.trace.query_terms,
                SNIPPET_CHARS,
            ));
        }
        t_snip += ms(t);
        if let Some(w) = dump.as_mut() {
            // The snippets themselves, to check that a faster snippet gives the same output.
            writeln!(w, "{}", serde_json::to_string(&snips).unwrap()).map_err(err("dump"))?;
        }
        n += 1;
    }
    let n = n.max(1) as f64;
    println!(
        "variant {} over {} queries (native): search {:.3} ms per query (trace total {:.3}), of which the results' snippets {:.3} ms ({:.0}%)",
        variant.name(),
        n,
        t_search / n,
        t_rust / n,
        t_snip / n,
        100.0 * t_snip / t_search.max(1e-9)
    );
    Ok(())
}
