//! Loading: the model, the shards and their dense parts, each checked against the manifest's
//! SHA-256 before it is decoded (the loading step of the pipeline).

use super::{Library, LoadError};
use crate::analysis::Lang;
use crate::dense::DenseShard;
#[cfg(not(target_arch = "wasm32"))]
use crate::format::Manifest;
use crate::format::{
    decode_dense_part, decode_shard, decode_shard_prehashed, decode_term_filters, sha256_hex,
    ChunkRecord, DenseIndex, FormatError, ModelEntry, PartEntry, PostingsEntry, ShardEntry,
    ShardPayload, TextEntry,
};
#[cfg(not(target_arch = "wasm32"))]
use crate::gate::Gating;
#[cfg(not(target_arch = "wasm32"))]
use crate::scope::Scope;
use rustc_hash::FxHashMap;
use std::fmt;

/// Embeds queries for the dense path; its vectors must come from the model the shards used.
pub trait QueryEmbedder: Send + Sync {
    /// SHA-256 of the model file (compared with each shard's `model_sha256`).
    fn model_sha256(&self) -> &str;
    /// A unit vector for the query.
    fn embed_query(&self, query: &str) -> Vec<f32>;
}

/// The static embedding model as a [`QueryEmbedder`].
pub struct ModelEmbedder {
    model: crate::embed::StaticModel,
    sha256: String,
}

impl ModelEmbedder {
    /// Decodes a model file; `sha256` identifies it (the shards record the same digest).
    pub fn from_bytes(
        bytes: &[u8],
    ) -> Result<ModelEmbedder, crate::format::model::ModelFormatError> {
        Ok(ModelEmbedder {
            model: crate::embed::StaticModel::from_bytes(bytes)?,
            sha256: sha256_hex(bytes),
        })
    }

    /// Decodes a model file whose SHA-256 (`sha256`) the caller computed and checked against a
    /// trusted digest: the file is not hashed again.
    pub fn from_prehashed(
        bytes: &[u8],
        sha256: String,
    ) -> Result<ModelEmbedder, crate::format::model::ModelFormatError> {
        let payload = crate::format::model::decode_model_prehashed(bytes)?;
        Ok(ModelEmbedder {
            model: crate::embed::StaticModel::from_payload(payload)?,
            sha256,
        })
    }

    /// The model.
    pub fn model(&self) -> &crate::embed::StaticModel {
        &self.model
    }
}

impl QueryEmbedder for ModelEmbedder {
    fn model_sha256(&self) -> &str {
        &self.sha256
    }
    fn embed_query(&self, query: &str) -> Vec<f32> {
        self.model.embed_query(query)
    }
}

/// Decodes the bytes of manifest file `file` with `decode(bytes, checksum)` once their SHA-256
/// (`found`, hex, computed over exactly `bytes` by the caller) matches `expected`, the manifest's
/// whole digest ([`crate::format::digest_matches`]; a shard's parts are checked against their
/// part list's Merkle roots instead, [`merkle_verified`]): that
/// digest covers the whole file, so the payload checksum is not computed again (`checksum`
/// false). On a mismatch the file is decoded with its checksum anyway, to report the most precise
/// reason (truncation, another version…) when there is one.
pub(super) fn verified<T>(
    file: &str,
    bytes: &[u8],
    expected: &str,
    found: &str,
    decode: impl Fn(&[u8], bool) -> Result<T, FormatError>,
) -> Result<T, LoadError> {
    let fmt_err = |error| LoadError::Format {
        file: file.into(),
        error,
    };
    let found = found.to_ascii_lowercase();
    if !crate::format::digest_matches(expected, &found) {
        decode(bytes, true).map_err(fmt_err)?;
        return Err(LoadError::Integrity {
            file: file.into(),
            expected: expected.into(),
            found,
        });
    }
    decode(bytes, false).map_err(fmt_err)
}

/// Decodes part `file` of a shard, leaf `leaf` of its `leaves` parts, with `decode(frame,
/// checksum)` once the file's frame and the audit path after it lead to the root of its
/// subtree among `roots` (its part list's: how far below the tree's root, and their hex;
/// [`crate::format::merkle`]): the leaf hashes the whole frame, so the payload checksum is not
/// computed again. Otherwise the frame (as long as its header says) is decoded with its
/// checksum anyway, to report the most precise reason (truncation, another version…) when
/// there is one; a sound frame that is not this part is an integrity error.
pub(super) fn merkle_verified<T>(
    file: &str,
    bytes: &[u8],
    roots: &(u32, Vec<String>),
    leaf: (usize, usize),
    decode: impl Fn(&[u8], bool) -> Result<T, FormatError>,
) -> Result<T, LoadError> {
    let frame = merkle_frame(file, bytes, roots, leaf, &|b| decode(b, true).map(|_| ()))?;
    decode(frame, false).map_err(|error| LoadError::Format {
        file: file.into(),
        error,
    })
}

/// The frame of part `file` once it and its audit path lead to its subtree's root
/// ([`merkle_verified`], whose checks of another kind of part share this one copy); otherwise
/// the error, after `check` (the frame decoded with its checksum) has had its say.
fn merkle_frame<'a>(
    file: &str,
    bytes: &'a [u8],
    (depth, roots): &(u32, Vec<String>),
    (leaf, leaves): (usize, usize),
    check: &dyn Fn(&[u8]) -> Result<(), FormatError>,
) -> Result<&'a [u8], LoadError> {
    use crate::format::merkle;
    let (s, first, n) = merkle::subtree_of(leaf, leaves, *depth);
    let root = roots.get(s).map_or("", String::as_str);
    let found = merkle::frame_and_root(bytes, leaf - first, n);
    if let Some((frame, r)) = found {
        if crate::format::hex(&r) == root {
            return Ok(frame);
        }
    }
    // The frame as its header measures it (not as the path's length would cut it: another
    // part's bytes may carry a path of another length).
    let declared = crate::format::frame::framed_len(bytes).filter(|&end| end <= bytes.len());
    check(declared.map_or(bytes, |end| &bytes[..end])).map_err(|error| LoadError::Format {
        file: file.into(),
        error,
    })?;
    Err(LoadError::Integrity {
        file: file.into(),
        expected: format!("Merkle root {root}"),
        found: found.map_or_else(
            || format!("{} bytes, too few for an audit path", bytes.len()),
            |(_, r)| format!("Merkle root {}", crate::format::hex(&r)),
        ),
    })
}

/// Decodes and checks a dense index's graph for a shard of `n_chunks`, then drops the encoded
/// graph (the decoded one replaces it; `DenseIndex` keeps the model id and parameters).
fn decode_dense(d: &mut DenseIndex, n_chunks: usize) -> Result<DenseShard, FormatError> {
    let graph = d.decode_graph(n_chunks)?;
    d.graph = Vec::new();
    Ok(DenseShard::new(graph, d.dims as usize))
}

/// A shard decoded and ready to search.
pub struct Shard {
    /// Its manifest entry.
    pub entry: ShardEntry,
    /// Its decoded payload.
    pub payload: ShardPayload,
    /// Languages present among its chunks.
    pub langs: Vec<Lang>,
    /// Total number of index terms.
    pub total_len: u64,
    /// The dense index, when the shard has one.
    pub dense: Option<DenseShard>,
    /// Section of each chunk as a small integer (chunks with the same `section_key` share it;
    /// [`NO_SECTION`] when a chunk has none), computed once at load for section evidence.
    pub sections: Vec<u32>,
    /// Its distinct sections plus its chunks without one (section IDF's N), computed at load.
    pub section_units: u64,
    /// For each chunk, the position of the chunk it answers in this shard (a correction's
    /// exercise: its `answers` id), or [`NO_ANSWER`]; empty when no chunk answers one. Computed
    /// at load for the answers list ([`Library::pass`]).
    pub answers: Vec<u32>,
    /// The shard's text blocks as (first chunk, chunks), from the shard itself: one text part
    /// each. Empty when the text is inside the shard.
    pub text_blocks: Vec<(u32, u32)>,
    /// The shard's text parts, once its part list is loaded (empty before).
    pub text: Vec<TextEntry>,
    /// Whether the shard's parts are known: its part list is loaded, or it has none.
    pub listed: bool,
    /// The shard's postings blocks as (first term, terms), from the shard itself: one postings
    /// part each. Empty when the postings are inside the shard.
    pub postings_blocks: Vec<(u32, u32)>,
    /// The shard's postings parts, once its part list is loaded (empty before).
    pub postings: Vec<PostingsEntry>,
    /// Which of the shard's postings parts are loaded: until a part is, the postings of its
    /// terms read as zeros (a search asks for them first: [`Library::postings_needed`]).
    pub postings_loaded: Vec<bool>,
    /// Which of the shard's text parts are loaded: the chunks of a part not loaded have no text
    /// yet. Empty when the text is inside the shard.
    pub text_loaded: Vec<bool>,
    /// The roots of the Merkle subtrees over the shard's parts and how far below the tree's
    /// root they are, from its part list (none before it loads): every part is checked against
    /// its subtree's ([`crate::format::merkle`]).
    pub parts_roots: (u32, Vec<String>),
    /// Whether the shard file held no near-duplicate pairs, so that its text parts may bring
    /// them (format v13, [`crate::format::pairs`]): a builder writes them in one place.
    pub pairs_in_parts: bool,
}

/// [`Shard::sections`] of a chunk without a section (the same marker BM25's section IDF reads).
pub use crate::bm25::NO_SECTION;

/// [`Shard::answers`] of a chunk that answers no chunk of its shard.
pub const NO_ANSWER: u32 = u32::MAX;

/// [`Shard::answers`]: for each chunk, the position of the chunk its `answers` id names, or
/// [`NO_ANSWER`]; empty when no chunk names one.
fn answered(chunks: &[ChunkRecord]) -> Vec<u32> {
    if chunks.iter().all(|c| c.answers.is_none()) {
        return Vec::new();
    }
    // The same map as `section_numbers` (one instantiation of the hash map's code).
    let mut at: FxHashMap<&str, u32> = FxHashMap::default();
    for (i, c) in chunks.iter().enumerate() {
        at.entry(c.id.as_str()).or_insert(i as u32);
    }
    chunks
        .iter()
        .map(|c| match c.answers.as_deref() {
            Some(id) => *at.entry(id).or_insert(NO_ANSWER),
            None => NO_ANSWER,
        })
        .collect()
}

/// Numbers the distinct section keys of `chunks` (in order of first appearance).
fn section_numbers(chunks: &[ChunkRecord]) -> Vec<u32> {
    let mut ids: FxHashMap<&str, u32> = FxHashMap::default();
    chunks
        .iter()
        .map(|c| match c.section_key.as_deref() {
            Some(k) => {
                let next = ids.len() as u32;
                *ids.entry(k).or_insert(next)
            }
            None => NO_SECTION,
        })
        .collect()
}

/// The distinct sections of `sections` (numbered from 0 by [`section_numbers`]) plus its chunks
/// without a section.
fn section_units(sections: &[u32]) -> u64 {
    let numbered = sections
        .iter()
        .filter(|&&s| s != NO_SECTION)
        .map(|&s| s as u64 + 1)
        .max()
        .unwrap_or(0);
    numbered + sections.iter().filter(|&&s| s == NO_SECTION).count() as u64
}

/// (first, count) of each block of a shard's parts, from the blocks' counts in order.
fn spans(counts: &[u32]) -> Vec<(u32, u32)> {
    let mut first = 0;
    counts
        .iter()
        .map(|&n| {
            first += n;
            (first - n, n)
        })
        .collect()
}

impl fmt::Debug for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Shard({}, {} chunks)",
            self.entry.file,
            self.payload.chunks.len()
        )
    }
}

impl Shard {
    /// The chunks of the shard.
    pub fn chunks(&self) -> &[ChunkRecord] {
        &self.payload.chunks
    }
}

impl Library {
    /// Sets the query embedder (the model the shards' vectors were made with).
    pub fn set_embedder(&mut self, e: Box<dyn QueryEmbedder>) {
        self.embedder = Some(e);
    }

    /// Whether a query embedder is loaded.
    pub fn has_model(&self) -> bool {
        self.embedder.is_some()
    }

    /// The manifest's embedding model entry when the shards have one, this build has the dense
    /// path and no model is loaded yet: the file a browser fetches after the first result.
    pub fn model_needed(&self) -> Option<&ModelEntry> {
        if !crate::dense::BUILT || self.has_model() {
            return None;
        }
        self.manifest.model.as_ref()
    }

    /// Verifies (against the manifest's SHA-256) and loads the embedding model file.
    pub fn load_model(&mut self, bytes: &[u8]) -> Result<(), LoadError> {
        self.load_model_with_digest(bytes, &sha256_hex(bytes))
    }

    /// As [`Library::load_model`], with the file's SHA-256 (hex) computed by the caller over
    /// exactly `bytes` (in the browser, WebCrypto's `crypto.subtle.digest`, several times faster
    /// than hashing in Wasm): it is compared with the manifest's digest and the file is not hashed
    /// here.
    pub fn load_model_with_digest(&mut self, bytes: &[u8], sha256: &str) -> Result<(), LoadError> {
        let entry = self.manifest.model.clone().ok_or_else(|| LoadError::Model {
            file: "(model)".into(),
            message: "this manifest names no embedding model: build the shards with `chsr build --model`".into(),
        })?;
        if !crate::dense::BUILT {
            return Err(LoadError::NoDensePath { file: entry.file });
        }
        let found = sha256.to_ascii_lowercase();
        if found != entry.sha256 {
            return Err(LoadError::Model {
                file: entry.file,
                message: format!(
                    "SHA-256 mismatch (manifest {}, received {found}): the model does not match these shards; \
                     reload, or rebuild with `chsr build --model`",
                    entry.sha256
                ),
            });
        }
        let e = ModelEmbedder::from_prehashed(bytes, found).map_err(|err| LoadError::Model {
            file: entry.file.clone(),
            message: err.to_string(),
        })?;
        self.embedder = Some(Box::new(e));
        Ok(())
    }

    /// Loads the manifest's model from `dir`, if it names one (native only).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn load_model_from_dir(&mut self, dir: &std::path::Path) -> Result<(), LoadError> {
        let Some(entry) = self.manifest.model.clone() else {
            return Ok(());
        };
        let path = dir.join(&entry.file);
        let bytes = std::fs::read(&path).map_err(|e| LoadError::Io {
            file: path.display().to_string(),
            message: format!("cannot read the model listed in the manifest: {e}"),
        })?;
        self.load_model(&bytes)
    }

    /// Whether the shard file, a dense-part or text-part file, or the term-filter file is loaded.
    pub fn is_loaded(&self, file: &str) -> bool {
        if self.manifest.terms.as_ref().is_some_and(|t| t.file == file) {
            return self.terms_loaded();
        }
        self.manifest
            .shards
            .iter()
            .zip(&self.shards)
            .any(|(e, loaded)| match loaded {
                Some(_) if e.file == file => true,
                Some(shard) => {
                    shard.dense.is_some() && e.dense.as_ref().is_some_and(|d| d.file == file)
                }
                None => false,
            })
            || self.is_part_loaded(file)
    }

    /// Verifies (the manifest's SHA-256, then the file's own header and checksum) and decodes
    /// the term-filter file named in the manifest's `terms`: widening then loads only the shards
    /// a query could match. Loading it again is a no-op.
    pub fn load_terms(&mut self, bytes: &[u8]) -> Result<(), LoadError> {
        self.load_terms_with_digest(bytes, &sha256_hex(bytes))
    }

    /// As [`Library::load_terms`], with the file's SHA-256 (hex) computed by the caller over
    /// exactly `bytes` (see [`Library::load_shard_with_digest`]).
    pub fn load_terms_with_digest(&mut self, bytes: &[u8], sha256: &str) -> Result<(), LoadError> {
        let Some(entry) = self.manifest.terms.clone() else {
            return Err(LoadError::UnknownFile(
                "terms.*.chsrt (this manifest names no term-filter file)".into(),
            ));
        };
        if self.terms_loaded() {
            return Ok(());
        }
        let file = verified(
            &entry.file,
            bytes,
            &entry.sha256,
            sha256,
            decode_term_filters,
        )?;
        let mut filters = vec![None; self.manifest.shards.len()];
        for f in &file.filters {
            let Some(i) = self.shard_with_file(&f.file) else {
                return Err(LoadError::Mismatch {
                    file: entry.file.clone(),
                    expected: "the term filters of the manifest's shards".into(),
                    found: format!(
                        "a filter for {}, which the manifest does not list",
                        crate::format::json::quote(&f.file)
                    ),
                });
            };
            filters[i] = f.decode();
        }
        self.filters = super::Filters::Known(filters);
        Ok(())
    }

    /// The manifest position of the shard stored in `file`.
    fn shard_with_file(&self, file: &str) -> Option<usize> {
        self.manifest.shards.iter().position(|s| s.file == file)
    }

    /// The manifest position of the shard whose dense part is stored in `file`.
    fn shard_with_part(&self, file: &str) -> Option<usize> {
        self.manifest
            .shards
            .iter()
            .position(|s| s.dense.as_ref().is_some_and(|d| d.file == file))
    }

    /// Verifies (manifest SHA-256, then the shard's own header and checksum) and decodes a shard.
    pub fn load_shard(&mut self, file: &str, bytes: &[u8]) -> Result<(), LoadError> {
        self.load_shard_with_digest(file, bytes, &sha256_hex(bytes))
    }

    /// As [`Library::load_shard`], with the file's SHA-256 (hex) computed by the caller over
    /// exactly `bytes` (in the browser, WebCrypto's `crypto.subtle.digest`, several times faster
    /// than hashing in Wasm): it is compared with the manifest's digest, and on a match the payload
    /// is decoded without being hashed again; errors are those of `load_shard`.
    pub fn load_shard_with_digest(
        &mut self,
        file: &str,
        bytes: &[u8],
        sha256: &str,
    ) -> Result<(), LoadError> {
        let i = self
            .shard_with_file(file)
            .ok_or_else(|| LoadError::UnknownFile(file.to_string()))?;
        let entry = self.manifest.shards[i].clone();
        let fmt_err = |error| LoadError::Format {
            file: file.into(),
            error,
        };
        let payload = verified(file, bytes, &entry.sha256, sha256, |b, checksum| {
            if checksum {
                decode_shard(b)
            } else {
                decode_shard_prehashed(b)
            }
        })?;
        if payload.subject != entry.subject || payload.level != entry.level {
            return Err(LoadError::Mismatch {
                file: file.into(),
                expected: format!("{}/{}", entry.subject, entry.level),
                found: format!("{}/{}", payload.subject, payload.level),
            });
        }
        let mut payload = payload;
        if !crate::dense::BUILT {
            // A build without the dense path never searches the inline vectors: not kept.
            payload.dense = None;
        }
        let dense = match &mut payload.dense {
            Some(d) => Some(decode_dense(d, payload.chunks.len()).map_err(fmt_err)?),
            None => None,
        };
        let mut langs: Vec<Lang> = payload
            .chunks
            .iter()
            .map(|c| Lang::from_code(&c.lang))
            .collect();
        crate::order::sort(&mut langs);
        langs.dedup();
        let text_blocks = spans(&payload.text_blocks);
        let postings_blocks = spans(&payload.postings_blocks);
        let (texts, postings) = entry.part_list.as_ref().map_or((0, 0), |t| {
            (t.text_parts as usize, t.postings_parts as usize)
        });
        if texts != text_blocks.len() || postings != postings_blocks.len() {
            return Err(LoadError::Mismatch {
                file: file.into(),
                expected: format!("{texts} text parts and {postings} postings parts"),
                found: format!(
                    "{} text blocks and {} postings blocks",
                    text_blocks.len(),
                    postings_blocks.len()
                ),
            });
        }
        if !postings_blocks.is_empty() {
            // A place for every term and its postings; each part fills its range as it arrives
            // (until then a term of the range is empty, with no postings).
            let lex = &mut payload.lexical;
            let n_terms = postings_blocks.last().map_or(0, |&(f, n)| (f + n) as usize);
            lex.terms = vec![String::new(); n_terms];
            lex.df = vec![0; n_terms];
            lex.offsets = Vec::with_capacity(n_terms + 1);
            let mut at = 0u32;
            for (&(_, n), &bytes) in postings_blocks.iter().zip(&payload.postings_block_bytes) {
                lex.offsets.extend(std::iter::repeat_n(at, n as usize));
                at += bytes;
            }
            lex.offsets.push(at);
            lex.postings = vec![0; at as usize];
        }
        let listed = entry.part_list.is_none();
        let total_len = payload.lexical.total_len();
        let sections = section_numbers(&payload.chunks);
        let section_units = section_units(&sections);
        let answers = answered(&payload.chunks);
        let text_loaded = vec![false; text_blocks.len()];
        let pairs_in_parts = payload.near_duplicates.is_empty();
        self.shards[i] = Some(Shard {
            entry,
            payload,
            langs,
            total_len,
            dense,
            sections,
            section_units,
            answers,
            text_blocks,
            text: Vec::new(),
            text_loaded,
            listed,
            postings_loaded: vec![false; postings_blocks.len()],
            postings_blocks,
            postings: Vec::new(),
            parts_roots: (0, Vec::new()),
            pairs_in_parts,
        });
        self.attach_pending_list(i);
        Ok(())
    }

    /// Loads any file the manifest or a loaded part list names: a shard
    /// ([`Library::load_shard`]), a shard's dense part ([`Library::load_dense`], after its
    /// shard), its part list ([`Library::load_part_list`], after its shard), a text part
    /// ([`Library::load_text`], after its part list), the model ([`Library::load_model`]) or the
    /// term-filter file ([`Library::load_terms`]).
    pub fn load_file(&mut self, file: &str, bytes: &[u8]) -> Result<(), LoadError> {
        if self.manifest.terms.as_ref().is_some_and(|t| t.file == file) {
            self.load_terms(bytes)
        } else if self.shard_with_file(file).is_some() {
            self.load_shard(file, bytes)
        } else if self.shard_with_part(file).is_some() {
            self.load_dense(file, bytes)
        } else if self.shard_with_part_list(file).is_some() {
            self.load_part_list(file, bytes)
        } else if file.ends_with(".chsri") {
            self.load_postings(file, bytes)
        } else if file.ends_with(".chsrx") {
            self.load_text(file, bytes)
        } else if self.manifest.model.as_ref().is_some_and(|e| e.file == file) {
            self.load_model(bytes)
        } else {
            Err(LoadError::UnknownFile(file.to_string()))
        }
    }

    /// The dense parts of the loaded shards that are not loaded yet, in manifest order: a
    /// browser fetches them after the first (lexical) result, then searches again.
    pub fn dense_needed(&self) -> Vec<PartEntry> {
        if !crate::dense::BUILT {
            return Vec::new();
        }
        self.loaded()
            .filter(|s| s.dense.is_none())
            .filter_map(|s| s.entry.dense.clone())
            .collect()
    }

    /// Verifies (against the manifest's SHA-256), decodes and attaches the dense part `file` of
    /// a loaded shard. Loading a part that is already loaded is a no-op.
    pub fn load_dense(&mut self, file: &str, bytes: &[u8]) -> Result<(), LoadError> {
        self.load_dense_with_digest(file, bytes, &sha256_hex(bytes))
    }

    /// As [`Library::load_dense`], with the file's SHA-256 (hex) computed by the caller over
    /// exactly `bytes` (see [`Library::load_shard_with_digest`]).
    pub fn load_dense_with_digest(
        &mut self,
        file: &str,
        bytes: &[u8],
        sha256: &str,
    ) -> Result<(), LoadError> {
        let i = self
            .shard_with_part(file)
            .ok_or_else(|| LoadError::UnknownFile(file.to_string()))?;
        if !crate::dense::BUILT {
            return Err(LoadError::NoDensePath { file: file.into() });
        }
        let entry = self.manifest.shards[i].clone();
        let part_entry = entry.dense.clone().expect("found by its dense part");
        let Some(shard) = self.shards[i].as_mut() else {
            return Err(LoadError::PartBeforeShard {
                file: file.into(),
                shard: entry.file,
            });
        };
        if shard.dense.is_some() {
            return Ok(());
        }
        let fmt_err = |error| LoadError::Format {
            file: file.into(),
            error,
        };
        let mut part = verified(file, bytes, &part_entry.sha256, sha256, decode_dense_part)?;
        if part.subject != entry.subject
            || part.level != entry.level
            || part.chunks != shard.payload.chunks.len() as u64
            || part.shard_sha256 != entry.sha256
        {
            return Err(LoadError::Mismatch {
                file: file.into(),
                expected: format!(
                    "the vectors of {} ({}/{}, {} chunks)",
                    entry.file,
                    entry.subject,
                    entry.level,
                    shard.payload.chunks.len()
                ),
                found: format!(
                    "vectors of {}/{} ({} chunks) for the shard with SHA-256 {}",
                    part.subject, part.level, part.chunks, part.shard_sha256
                ),
            });
        }
        let d = decode_dense(&mut part.index, shard.payload.chunks.len()).map_err(fmt_err)?;
        shard.payload.dense = Some(part.index);
        shard.dense = Some(d);
        Ok(())
    }

    /// Reads `manifest.json` from a folder (native only).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn open_dir(dir: &std::path::Path) -> Result<Library, LoadError> {
        let path = dir.join("manifest.json");
        let text = std::fs::read_to_string(&path).map_err(|e| LoadError::Io {
            file: path.display().to_string(),
            message: if e.kind() == std::io::ErrorKind::NotFound {
                format!(
                    "no manifest.json in {}: not a chsr shard folder (make one with \
                     `chsr build --out {} CORPUS.jsonl`)",
                    dir.display(),
                    dir.display()
                )
            } else {
                e.to_string()
            },
        })?;
        let manifest = Manifest::from_json(&text).map_err(|error| LoadError::Format {
            file: path.display().to_string(),
            error,
        })?;
        Ok(Library::new(manifest))
    }

    /// Loads from `dir` every shard the scope needs that is not loaded yet (native only).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn load_needed_from_dir(
        &mut self,
        dir: &std::path::Path,
        scope: &Scope,
        gating: Gating,
    ) -> Result<(), LoadError> {
        let read = |file: &str| {
            let path = dir.join(file);
            std::fs::read(&path).map_err(|e| LoadError::Io {
                file: path.display().to_string(),
                message: missing_shard_message(&e),
            })
        };
        for entry in self.shards_needed(scope, gating) {
            self.load_shard(&entry.file, &read(&entry.file)?)?;
        }
        for part in self.dense_needed() {
            self.load_dense(&part.file, &read(&part.file)?)?;
        }
        // Natively every text part is read with its shard: results, sections and context never
        // wait for one.
        for list in self.part_lists_needed() {
            self.load_part_list(&list.file, &read(&list.file)?)?;
        }
        for t in self.postings_remaining() {
            self.load_postings(&t.part.file, &read(&t.part.file)?)?;
        }
        for t in self.text_needed() {
            self.load_text(&t.part.file, &read(&t.part.file)?)?;
        }
        // Natively the term filters cost one small read: widening never waits for them.
        if let Some(t) = self.manifest.terms.clone() {
            if !self.terms_loaded() {
                self.load_terms(&read(&t.file)?)?;
            }
        }
        Ok(())
    }

    /// Loaded shards, in manifest order.
    pub fn loaded(&self) -> impl Iterator<Item = &Shard> {
        self.shards.iter().flatten()
    }
}

/// What to say when a shard the manifest lists cannot be read (native only).
#[cfg(not(target_arch = "wasm32"))]
pub fn missing_shard_message(e: &std::io::Error) -> String {
    if e.kind() == std::io::ErrorKind::NotFound {
        "listed in manifest.json but missing: the folder is incomplete; copy every file \
         `chsr build` wrote, or rebuild with `chsr build`"
            .to_string()
    } else {
        format!("listed in manifest.json but unreadable: {e}")
    }
}
