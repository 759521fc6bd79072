//! The shard builder: corpus records in, one shard per (subject, level) and a manifest out.
//!
//! Document types are read through the vocabulary of [`crate::doctype`]: an alias (`corrigé`,
//! `mark scheme`) is stored as its canonical type (`solution`), so that the page labels it and
//! queries asking for that type find it; an unknown type is kept as written and reported.
//!
//! Determinism: chunks are sorted by id inside each shard, the vocabulary is sorted, shards are
//! listed by (subject, level), maps are ordered, and nothing records a time stamp. The same
//! corpus therefore yields byte-identical shard files and manifest.

use crate::analysis::{Analyzer, Lang, ANALYZER_VERSION};
use crate::corpus::{IngestWarning, SourcedChunk};
use crate::format::{
    encode_dense_part, encode_shard, encode_term_filters, pairs, postings_blocks, sha256_hex,
    text_block_bytes, text_blocks, write_varint, BuildParams, ChunkRecord, DenseIndex, DensePart,
    FacetCounts, Field, LexicalIndex, Manifest, ModelEntry, NearDuplicate, PartEntry,
    PostingsEntry, QVec, ShardEntry, ShardPayload, ShardTermFilter, TermFiltersFile, TextEntry,
    VectorSpec, BYO_PREFIX, FORMAT_VERSION, MANIFEST_FORMAT, POSTINGS_INLINE_BYTES,
};
use std::collections::BTreeMap;

mod parts;
use parts::{parts_and_list, postings_parts, text_parts, Parts, ShardId};

/// Options of a build.
#[derive(Clone, Debug, PartialEq)]
pub struct BuildOptions {
    /// BM25 k1 recorded in the shards (default 1.2).
    pub k1: f32,
    /// BM25 b recorded in the shards (default 0.75).
    pub b: f32,
    /// HNSW `ef_search` (fixed in the graph at build time).
    pub ef_search: usize,
    /// HNSW `ef_construction`.
    pub ef_construction: usize,
    /// Seed of the HNSW layer assignment (fixed, so builds are reproducible).
    pub seed: u64,
    /// The postings bytes at which a postings part closes; `None` (the default): sized to each
    /// shard's postings ([`crate::format::postings_block_bytes`]).
    pub postings_block_bytes: Option<usize>,
    /// Postings bytes above which a shard's postings go to postings parts (default
    /// [`POSTINGS_INLINE_BYTES`]).
    pub postings_inline_bytes: usize,
    /// The display-text bytes at which a text part closes; `None` (the default): sized to each
    /// shard's text ([`text_block_bytes`]).
    pub text_block_bytes: Option<usize>,
    /// Bytes of near-duplicate pairs (as a shard writes them, uncompressed) above which a
    /// shard's pairs go to its text parts (default [`PAIRS_INLINE_BYTES`]).
    pub pairs_inline_bytes: usize,
}

/// [`BuildOptions::pairs_inline_bytes`] by default: 48 KiB, about 17 kB brotli (pairs compress
/// about 2.9×: physics college's 13.5 kB, 4.6 kB), what the slow phone of issue 18 (1.6 Mbps)
/// downloads in 90 ms. Pairs in text parts cost a page one more round when a result gives way
/// to a near-duplicate's neighbour: measured over the dev questions of the indexed NSI
/// terminale site (2,800 chunks, 11,051 pairs, 33.8 KiB: an exam bank whose exercises recur
/// across sessions), 42 of 115 questions needed one to three more rounds, for no fewer bytes;
/// at 74k chunks, physics college's (56.1 KiB) saved 23 kB a question for one more round on
/// 12 % of its questions (`docs/performance.md`, session 36). Lighter pairs stay in the shard.
pub const PAIRS_INLINE_BYTES: usize = 48 * 1024;

impl Default for BuildOptions {
    fn default() -> Self {
        BuildOptions {
            k1: 1.2,
            b: 0.75,
            ef_search: 128,
            ef_construction: 128,
            seed: 0x00c4_5e42,
            postings_block_bytes: None,
            postings_inline_bytes: POSTINGS_INLINE_BYTES,
            text_block_bytes: None,
            pairs_inline_bytes: PAIRS_INLINE_BYTES,
        }
    }
}

/// An embedding model for the dense index: its id, its file (copied next to the shards so the
/// browser embeds queries with the same model), and a function that embeds a chunk's text into a
/// unit vector of `dims` dimensions.
pub struct Embedder<'a> {
    /// Model id recorded in the shard.
    pub model_id: String,
    /// The model file's bytes.
    pub file: &'a [u8],
    /// Dimensions of the vectors.
    pub dims: usize,
    /// The embedding function.
    pub embed: &'a (dyn Fn(&str) -> Vec<f32> + Sync),
}

impl Embedder<'_> {
    /// The manifest entry of the model file (content-hashed name).
    pub fn entry(&self) -> ModelEntry {
        let sha256 = sha256_hex(self.file);
        ModelEntry {
            file: format!("model.{}.chsrm", &sha256[..16]),
            sha256,
            bytes: self.file.len() as u64,
            id: self.model_id.clone(),
            dims: self.dims as u32,
        }
    }
}

/// Builds the HNSW graph over quantised chunk vectors. The build runs on one thread so the
/// graph (and so the shard bytes) does not depend on scheduling.
fn dense_index(
    records: &[ChunkRecord],
    vector_of: &dyn Fn(&ChunkRecord) -> Vec<f32>,
    model_id: &str,
    model_sha256: String,
    dims: usize,
    opts: &BuildOptions,
) -> DenseIndex {
    let points: Vec<QVec> = records
        .iter()
        .map(|c| QVec::quantize(&unit(vector_of(c))))
        .collect();
    let values: Vec<u32> = (0..records.len() as u32).collect();
    let builder = instant_distance::Builder::default()
        .ef_search(opts.ef_search)
        .ef_construction(opts.ef_construction)
        .seed(opts.seed);
    let build = move || builder.build(points, values);
    #[cfg(not(target_arch = "wasm32"))]
    let graph = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("a one-thread pool can be created")
        .install(build);
    #[cfg(target_arch = "wasm32")]
    let graph = build();
    DenseIndex {
        model_id: model_id.to_string(),
        model_sha256,
        dims: dims as u32,
        ef_search: opts.ef_search as u32,
        ef_construction: opts.ef_construction as u32,
        seed: opts.seed,
        graph: DenseIndex::encode_graph(&graph),
    }
}

/// A built shard: its manifest entry and its file bytes.
#[derive(Clone, Debug, PartialEq)]
pub struct BuiltShard {
    /// Manifest entry (file name, checksum, facets).
    pub entry: ShardEntry,
    /// The complete shard file.
    pub bytes: Vec<u8>,
    /// The complete dense-part file (named in `entry.dense`), when the shard has vectors.
    pub dense_bytes: Option<Vec<u8>>,
    /// The complete part-list file (named in `entry.part_list`), when the shard has parts.
    pub part_list_bytes: Option<Vec<u8>>,
    /// The text parts, as their part list names them.
    pub text: Vec<TextEntry>,
    /// The complete text-part files (named in `text`, same order).
    pub text_bytes: Vec<Vec<u8>>,
    /// The postings parts, as their part list names them (none when the postings are inline).
    pub postings: Vec<PostingsEntry>,
    /// The complete postings-part files (named in `postings`, same order).
    pub postings_bytes: Vec<Vec<u8>>,
}

impl BuiltShard {
    /// The files of this shard, as (file name, bytes): the shard file, its dense part, its part
    /// list, its postings parts, then its text parts.
    pub fn files(&self) -> Vec<(&str, &[u8])> {
        let mut v = vec![(self.entry.file.as_str(), self.bytes.as_slice())];
        if let (Some(e), Some(b)) = (&self.entry.dense, &self.dense_bytes) {
            v.push((e.file.as_str(), b.as_slice()));
        }
        if let (Some(e), Some(b)) = (&self.entry.part_list, &self.part_list_bytes) {
            v.push((e.file.as_str(), b.as_slice()));
        }
        for (e, b) in self.postings.iter().zip(&self.postings_bytes) {
            v.push((e.file.as_str(), b.as_slice()));
        }
        for (e, b) in self.text.iter().zip(&self.text_bytes) {
            v.push((e.file.as_str(), b.as_slice()));
        }
        v
    }
}

/// The result of a build, held in memory.
#[derive(Clone, Debug, PartialEq)]
pub struct BuildOutput {
    /// The manifest listing every shard.
    pub manifest: Manifest,
    /// The shards, in manifest order.
    pub shards: Vec<BuiltShard>,
    /// The embedding model file to publish next to the shards (named in `manifest.model`).
    pub model_file: Option<Vec<u8>>,
    /// The term-filter file to publish next to the shards (named in `manifest.terms`).
    pub terms_file: Option<Vec<u8>>,
    /// What the build noticed about the corpus without failing: `doc_type` aliases stored as
    /// their canonical type, and unknown `doc_type` values (once per value, by value).
    pub warnings: Vec<IngestWarning>,
}

impl BuildOutput {
    /// The files published beside the shards, as (file name, bytes): the embedding model, then
    /// the term-filter file, when the build has them.
    pub fn extra_files(&self) -> Vec<(&str, &[u8])> {
        let mut v = Vec::new();
        if let (Some(m), Some(b)) = (&self.manifest.model, &self.model_file) {
            v.push((m.file.as_str(), b.as_slice()));
        }
        if let (Some(t), Some(b)) = (&self.manifest.terms, &self.terms_file) {
            v.push((t.file.as_str(), b.as_slice()));
        }
        v
    }
}

/// Turns a subject or level name into a file-name-safe slug (`informatique (NSI)` → `informatique-nsi`).
pub fn slug(s: &str) -> String {
    let mut out = String::new();
    for c in crate::analysis::fold_accents(&s.to_lowercase()).chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c);
        } else if !out.ends_with('-') && !out.is_empty() {
            out.push('-');
        }
    }
    while out.ends_with('-') {
        out.pop();
    }
    if out.is_empty() {
        out.push('x');
    }
    out
}

/// Builds the lexical index of `chunks` (in their given order).
fn lexical_index(chunks: &[ChunkRecord], analyzer: &Analyzer) -> LexicalIndex {
    // term -> postings (doc, tf), docs visited in increasing order.
    let mut postings: BTreeMap<String, Vec<(u32, u32)>> = BTreeMap::new();
    let mut doc_len = Vec::with_capacity(chunks.len());
    for (doc, c) in chunks.iter().enumerate() {
        let terms = analyzer.analyze(&index_text(c), Lang::from_code(&c.lang));
        doc_len.push(terms.len() as u32);
        let mut tf: BTreeMap<String, u32> = BTreeMap::new();
        for t in terms {
            *tf.entry(t).or_insert(0) += 1;
        }
        for (t, f) in tf {
            postings.entry(t).or_default().push((doc as u32, f));
        }
    }
    let mut idx = LexicalIndex {
        doc_len,
        ..Default::default()
    };
    idx.offsets.push(0);
    for (term, list) in postings {
        let mut prev = 0u32;
        for (d, f) in &list {
            write_varint(&mut idx.postings, d - prev);
            write_varint(&mut idx.postings, *f);
            prev = *d;
        }
        idx.terms.push(term);
        idx.df.push(list.len() as u32);
        idx.offsets.push(idx.postings.len() as u32);
    }
    idx
}

/// The text indexed for a chunk: its body plus its titles and label, so that a query naming the
/// chapter or section title, or "Table 4.1", finds it.
pub fn index_text(c: &ChunkRecord) -> String {
    let mut s = String::with_capacity(c.text.len() + 64);
    s.push_str(&c.text);
    for extra in [&c.chapter_title, &c.section_title, &c.label]
        .into_iter()
        .flatten()
    {
        s.push('\n');
        s.push_str(extra);
    }
    s
}

fn facets(chunks: &[ChunkRecord]) -> BTreeMap<String, FacetCounts> {
    let mut out: BTreeMap<String, FacetCounts> = BTreeMap::new();
    for f in Field::FACETS {
        let mut counts = FacetCounts::new();
        for c in chunks {
            if let Some(v) = c.get(f) {
                *counts.entry(v.to_string()).or_insert(0) += 1;
            }
        }
        if !counts.is_empty() {
            out.insert(f.name().to_string(), counts);
        }
    }
    out
}

/// Vectors brought with the corpus: model id, dimensions, vector by chunk id.
type ByoVectors<'a> = (String, usize, BTreeMap<&'a str, Vec<f32>>);

/// L2-normalises a vector (brought-in vectors need not be unit length).
fn unit(mut v: Vec<f32>) -> Vec<f32> {
    let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if n > 0.0 && n.is_finite() {
        v.iter_mut().for_each(|x| *x /= n);
    }
    v
}

/// Builds every shard (lexical index only) and the manifest in memory.
pub fn build(chunks: &[SourcedChunk], opts: &BuildOptions) -> BuildOutput {
    build_with(chunks, opts, None)
}

/// Builds every shard with a dense index made by the static embedding model in `model` (the
/// bytes of a `.chsrm` file, published beside the shards).
pub fn build_with_model_file(
    chunks: &[SourcedChunk],
    opts: &BuildOptions,
    model: &[u8],
) -> Result<BuildOutput, crate::format::model::ModelFormatError> {
    let m = crate::embed::StaticModel::from_bytes(model)?;
    let h = m.header();
    let model_id = format!(
        "{} static d{} {} ({} rows)",
        h.source_model,
        h.dims,
        h.quantization.name(),
        h.rows
    );
    let embed = |t: &str| m.embed(t);
    let e = Embedder {
        model_id,
        file: model,
        dims: m.dims(),
        embed: &embed,
    };
    Ok(build_with(chunks, opts, Some(&e)))
}

/// Builds every shard and the manifest in memory; with an embedder, shards get a dense index.
pub fn build_with(
    chunks: &[SourcedChunk],
    opts: &BuildOptions,
    embedder: Option<&Embedder<'_>>,
) -> BuildOutput {
    let analyzer = Analyzer::new();
    // Vectors brought with the corpus (used when no embedding model is given). The caller checks
    // them with `corpus::check_vectors` (all or none, one model, one dimension).
    let byo: Option<ByoVectors<'_>> = match crate::corpus::check_vectors(chunks) {
        Ok(Some((model_id, dims))) if embedder.is_none() => Some((
            model_id,
            dims,
            chunks
                .iter()
                .filter_map(|c| {
                    c.vector
                        .as_ref()
                        .map(|(v, _)| (c.record.id.as_str(), v.clone()))
                })
                .collect(),
        )),
        _ => None,
    };
    let (doc_types, warnings) = canonical_doc_types(chunks);
    let mut groups: BTreeMap<(String, String), Vec<ChunkRecord>> = BTreeMap::new();
    for (c, doc_type) in chunks.iter().zip(doc_types) {
        let mut record = c.record.clone();
        record.doc_type = doc_type;
        groups
            .entry((c.record.subject.clone(), c.record.level.clone()))
            .or_default()
            .push(record);
    }
    let mut all_records: Vec<&ChunkRecord> = groups.values().flatten().collect();
    all_records.sort_by(|a, b| a.id.cmp(&b.id));
    let corpus_json: Vec<u8> = all_records
        .iter()
        .flat_map(|r| {
            let mut v = serde_json::to_vec(r).expect("record serialises");
            v.push(b'\n');
            v
        })
        .collect();
    for records in groups.values_mut() {
        records.sort_by(|a, b| a.id.cmp(&b.id));
    }
    let mut near = near_duplicates(&groups);
    let mut shards = Vec::new();
    let mut filters = Vec::new();
    for ((subject, level), mut records) in groups {
        let near_duplicates = near
            .remove(&(subject.clone(), level.clone()))
            .unwrap_or_default();
        let lexical = lexical_index(&records, &analyzer);
        let dense = match (embedder, &byo) {
            (Some(e), _) => Some(dense_index(
                &records,
                &|c| (e.embed)(&index_text(c)),
                &e.model_id,
                sha256_hex(e.file),
                e.dims,
                opts,
            )),
            (None, Some((model_id, dims, vectors))) => Some(dense_index(
                &records,
                &|c| {
                    vectors
                        .get(c.id.as_str())
                        .cloned()
                        .unwrap_or_else(|| vec![0.0; *dims])
                },
                model_id,
                format!("{BYO_PREFIX}{model_id}"),
                *dims,
                opts,
            )),
            (None, None) => None,
        };
        let n_chunks = records.len() as u64;
        // The display text and display-only metadata go to text parts (below): ranking reads
        // only the shard.
        let block = opts
            .text_block_bytes
            .unwrap_or_else(|| text_block_bytes(records.iter().map(|c| c.text.len()).sum()));
        let text_blocks = text_blocks(
            &records.iter().map(|c| c.text.as_str()).collect::<Vec<_>>(),
            block,
        );
        let texts: Vec<_> = records.iter_mut().map(ChunkRecord::take_display).collect();
        // The dictionary and the postings go to postings parts (below) once the postings exceed
        // a block: a query reads its own terms' entries and postings only; the shard keeps the
        // document lengths and each block's size.
        let postings_blocks = postings_blocks(
            &lexical.offsets,
            opts.postings_block_bytes,
            opts.postings_inline_bytes,
        );
        // The near-duplicate pairs go to the text parts, each on both sides, once they weigh
        // more than `pairs_inline_bytes` (format v13, `format::pairs`): the reranker reads those
        // of the results a page shows.
        let stored = pairs::stored(&near_duplicates, &records);
        let heavy = pairs::shard_bytes(&stored).is_none_or(|b| b > opts.pairs_inline_bytes);
        let (near_duplicates, text_pairs) = if !heavy || text_blocks.is_empty() {
            (near_duplicates, Vec::new())
        } else {
            (Vec::new(), stored)
        };
        let mut postings_block_bytes = Vec::with_capacity(postings_blocks.len());
        let mut first = 0usize;
        for &n in &postings_blocks {
            let end = first + n as usize;
            postings_block_bytes.push(lexical.offsets[end] - lexical.offsets[first]);
            first = end;
        }
        // The whole index: in the shard when inline, else kept here for the parts.
        let (in_shard, split) = if postings_blocks.is_empty() {
            (lexical, None)
        } else {
            let in_shard = LexicalIndex {
                offsets: vec![0],
                doc_len: lexical.doc_len.clone(),
                ..Default::default()
            };
            (in_shard, Some(lexical))
        };
        let payload = ShardPayload {
            params: BuildParams {
                analyzer_version: ANALYZER_VERSION,
                k1: opts.k1,
                b: opts.b,
                builder: format!("chsr {}", env!("CARGO_PKG_VERSION")),
            },
            subject: subject.clone(),
            level: level.clone(),
            lexical: in_shard,
            // The vectors go to their own file (below): a reader searches lexically first.
            dense: None,
            chunks: records,
            near_duplicates,
            text_blocks: text_blocks.clone(),
            postings_blocks: postings_blocks.clone(),
            postings_block_bytes,
        };
        let bytes = encode_shard(&payload);
        let sha = sha256_hex(&bytes);
        let stem = format!("{}--{}", slug(&subject), slug(&level));
        let dense = dense.map(|index| {
            let part = encode_dense_part(&DensePart {
                subject: subject.clone(),
                level: level.clone(),
                chunks: n_chunks,
                shard_sha256: sha.clone(),
                index,
            });
            let part_sha = sha256_hex(&part);
            let entry = PartEntry {
                file: format!("{stem}.{}.chsrv", &part_sha[..16]),
                sha256: part_sha,
                bytes: part.len() as u64,
            };
            (entry, part)
        });
        let id = ShardId {
            stem: &stem,
            subject: &subject,
            level: &level,
            sha256: &sha,
        };
        let lexical = split.as_ref().unwrap_or(&payload.lexical);
        let Parts {
            text,
            postings,
            list: part_list,
        } = parts_and_list(
            &id,
            text_parts(&id, &text_blocks, texts, text_pairs),
            postings_parts(&id, &postings_blocks, lexical),
        );
        let entry = ShardEntry {
            file: format!("{stem}.{}.chsr", &sha[..16]),
            sha256: sha,
            bytes: bytes.len() as u64,
            chunks: n_chunks,
            facets: facets(&payload.chunks),
            subject,
            level,
            dense: dense.as_ref().map(|(e, _)| e.clone()),
            part_list: part_list.as_ref().map(|(e, _)| e.clone()),
            terms: None,
        };
        filters.push(ShardTermFilter::build(
            &entry.file,
            lexical.terms.iter().map(String::as_str),
        ));
        shards.push(BuiltShard {
            entry,
            bytes,
            dense_bytes: dense.map(|(_, b)| b),
            part_list_bytes: part_list.map(|(_, b)| b),
            text: text.iter().map(|(e, _)| e.clone()).collect(),
            text_bytes: text.into_iter().map(|(_, b)| b).collect(),
            postings: postings.iter().map(|(e, _)| e.clone()).collect(),
            postings_bytes: postings.into_iter().map(|(_, b)| b).collect(),
        });
    }
    // Only a shard a widening step could load needs its term filter: another level of a
    // subject (W2). A subject with one level is never loaded by widening.
    let level_count = |subject: &str| shards.iter().filter(|s| s.entry.subject == subject).count();
    let filters: Vec<ShardTermFilter> = filters
        .into_iter()
        .zip(&shards)
        .filter(|(_, s)| level_count(&s.entry.subject) >= 2)
        .map(|(f, _)| f)
        .collect();
    let terms_file =
        (!filters.is_empty()).then(|| encode_term_filters(&TermFiltersFile { filters }));
    let manifest = Manifest {
        format: MANIFEST_FORMAT.to_string(),
        format_version: FORMAT_VERSION,
        analyzer_version: ANALYZER_VERSION,
        chunks: chunks.len() as u64,
        corpus_sha256: sha256_hex(&corpus_json),
        shards: shards.iter().map(|s| s.entry.clone()).collect(),
        model: embedder.map(Embedder::entry),
        query_vectors: byo.as_ref().map(|(model_id, dims, _)| VectorSpec {
            model_id: model_id.clone(),
            dims: *dims as u32,
        }),
        terms: terms_file.as_ref().map(|bytes| {
            let sha = sha256_hex(bytes);
            PartEntry {
                file: format!("terms.{}.chsrt", &sha[..16]),
                sha256: sha,
                bytes: bytes.len() as u64,
            }
        }),
    };
    BuildOutput {
        manifest,
        shards,
        model_file: embedder.map(|e| e.file.to_vec()),
        terms_file,
        warnings,
    }
}

/// Near-duplicate pairs over every chunk of the build ([`crate::rerank::dedup`]), each pair
/// stored on both sides: per shard (subject, level), sorted by chunk then other id.
fn near_duplicates(
    groups: &BTreeMap<(String, String), Vec<ChunkRecord>>,
) -> BTreeMap<(String, String), Vec<NearDuplicate>> {
    use crate::rerank::dedup::{similar_pairs, word_set};
    let all: Vec<(&(String, String), u32, &ChunkRecord)> = groups
        .iter()
        .flat_map(|(k, v)| v.iter().enumerate().map(move |(i, c)| (k, i as u32, c)))
        .collect();
    let sets: Vec<Vec<u64>> = all.iter().map(|(_, _, c)| word_set(&c.text)).collect();
    let mut out: BTreeMap<(String, String), Vec<NearDuplicate>> = BTreeMap::new();
    for (i, j, similarity) in similar_pairs(&sets, crate::rerank::DEDUP_THRESHOLD) {
        for (a, b) in [(i, j), (j, i)] {
            let (key, chunk, _) = all[a as usize];
            out.entry(key.clone()).or_default().push(NearDuplicate {
                chunk,
                of: all[b as usize].2.id.clone(),
                similarity,
            });
        }
    }
    for v in out.values_mut() {
        v.sort_by(|x, y| (x.chunk, &x.of).cmp(&(y.chunk, &y.of)));
    }
    out
}

/// The `doc_type` stored for each chunk (its canonical type, or the value as written when the
/// vocabulary does not know it), and one warning or note per distinct non-canonical value.
fn canonical_doc_types(chunks: &[SourcedChunk]) -> (Vec<String>, Vec<IngestWarning>) {
    // value as written -> (canonical type, first place, chunk count)
    let mut seen: BTreeMap<&str, (Option<&'static str>, String, usize)> = BTreeMap::new();
    let mut out = Vec::with_capacity(chunks.len());
    for c in chunks {
        let value = c.record.doc_type.as_str();
        let canonical = crate::doctype::canonical(value);
        out.push(canonical.unwrap_or(value).to_string());
        if canonical != Some(value) {
            seen.entry(value)
                .or_insert_with(|| (canonical, format!("{}:{}", c.file, c.line), 0))
                .2 += 1;
        }
    }
    let warnings = seen
        .into_iter()
        .map(|(value, (canonical, first, chunks))| match canonical {
            Some(doc_type) => IngestWarning::DocTypeAlias {
                value: value.to_string(),
                doc_type,
                chunks,
            },
            None => IngestWarning::UnknownDocType {
                value: value.to_string(),
                first,
                chunks,
            },
        })
        .collect();
    (out, warnings)
}

/// Writes a build to `dir`: every shard file and `manifest.json`. Stale `*.chsr` files from an
/// earlier build are removed only after the new files are written, so a failed build leaves the
/// old output usable.
#[cfg(not(target_arch = "wasm32"))]
pub fn write_output(out: &BuildOutput, dir: &std::path::Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    for (file, bytes) in out.shards.iter().flat_map(BuiltShard::files) {
        let tmp = dir.join(format!(".{file}.tmp"));
        std::fs::write(&tmp, bytes)?;
        std::fs::rename(&tmp, dir.join(file))?;
    }
    for (file, bytes) in out.extra_files() {
        let tmp = dir.join(format!(".{file}.tmp"));
        std::fs::write(&tmp, bytes)?;
        std::fs::rename(&tmp, dir.join(file))?;
    }
    let tmp = dir.join(".manifest.json.tmp");
    std::fs::write(&tmp, out.manifest.to_json())?;
    std::fs::rename(&tmp, dir.join("manifest.json"))?;
    let keep: std::collections::BTreeSet<&str> = out
        .shards
        .iter()
        .flat_map(|s| s.files().into_iter().map(|(f, _)| f))
        .chain(out.extra_files().into_iter().map(|(f, _)| f))
        .collect();
    for e in std::fs::read_dir(dir)? {
        let e = e?;
        let name = e.file_name().to_string_lossy().to_string();
        let ours = [
            ".chsr", ".chsrv", ".chsrm", ".chsrt", ".chsrx", ".chsrl", ".chsri",
        ]
        .iter()
        .any(|x| name.ends_with(x));
        if ours && !keep.contains(name.as_str()) {
            std::fs::remove_file(e.path())?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs_are_file_safe() {
        assert_eq!(slug("informatique (NSI)"), "informatique-nsi");
        assert_eq!(slug("Première"), "premiere");
        assert_eq!(slug("O-Level"), "o-level");
        assert_eq!(slug("../"), "x");
    }
}
