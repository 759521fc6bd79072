//! WebAssembly bindings: the [`Library`] API exposed to JavaScript with `wasm-bindgen`.
//!
//! Networking stays in JavaScript (`www/chsr-client.js` fetches the manifest and shards, with a
//! retry); everything else — integrity checks, decoding, gating, retrieval — is the same library
//! code the native CLI runs. Rust decides, JS renders: which shards a scope needs, facet values
//! and counts, scope validation with the valid values, a section by id, context for shown
//! results. Errors become JS `Error`s carrying the library's message, a stable `code`
//! (`scope.unknown_value`, `load.integrity`, `search.not_loaded`, …) and `details` (an object:
//! the field, the valid values, the file…), so JavaScript never parses a message.
//!
//! ```js
//! const index = ChsrIndex.fromManifest(manifestText);
//! for (const s of index.shardsNeeded(scope, options)) index.loadShard(s.file, bytes);
//! const { results, trace } = index.search("specific heat", { subject: "chemistry" }, { k: 8 });
//! ```

use crate::format::Manifest;
use crate::scope::{Scope, ScopeError};
use crate::search::{Library, LoadError, SearchError, SearchOptions, SearchResponse};
use serde::Serialize;
use wasm_bindgen::prelude::*;

/// A library error with a stable code and details (see the module docs).
trait Coded: std::fmt::Display {
    fn code(&self) -> &'static str;
    fn details(&self) -> serde_json::Value;
}

macro_rules! coded {
    ($($t:ty),*) => {$(
        impl Coded for $t {
            fn code(&self) -> &'static str { <$t>::code(self) }
            fn details(&self) -> serde_json::Value { <$t>::details(self) }
        }
    )*};
}
coded!(ScopeError, SearchError, LoadError);

/// A JS `Error` with `code` and `details`.
fn coded_err(code: &str, message: &str, details: &serde_json::Value) -> JsValue {
    let e = js_sys::Error::new(message);
    let set = |k: &str, v: JsValue| {
        let _ = js_sys::Reflect::set(&e, &JsValue::from_str(k), &v);
    };
    set("code", JsValue::from_str(code));
    set("details", to_js(details).unwrap_or(JsValue::NULL));
    e.into()
}

/// A typed library error as a coded JS `Error`.
fn err(e: impl Coded) -> JsValue {
    coded_err(e.code(), &e.to_string(), &e.details())
}

/// The caller's SHA-256 (hex) of `bytes`, or, without one, the module's own: exactly what the
/// `load_*` methods without a digest hash before they call their `*_with_digest` twin.
fn digest(given: Option<String>, bytes: &[u8]) -> String {
    given.unwrap_or_else(|| crate::format::sha256_hex(bytes))
}

/// An error without a kind of its own (a malformed manifest, an argument JS could not convert).
fn plain(code: &str, e: impl std::fmt::Display) -> JsValue {
    coded_err(code, &e.to_string(), &serde_json::json!({}))
}

/// Installs the panic hook so a Rust panic shows its message in the console. Only builds with an
/// ordinary std run it (the Wasm test suites): the browser's module is built with
/// `panic=immediate-abort` (`scripts/build-wasm`), where a panic traps at once and JavaScript
/// gets a `RuntimeError` without a message.
#[wasm_bindgen(start)]
pub fn start() {
    // With `panic=immediate-abort` no panic reaches a hook: installing one would only add its
    // message formatting to the module.
    #[cfg(not(panic = "immediate-abort"))]
    console_error_panic_hook::set_once();
}

/// A value for JavaScript, as JSON text parsed by the engine's `JSON.parse`: one string crosses
/// the boundary instead of one call per field and string (a search response has hundreds).
fn to_js<T: Serialize>(v: &T) -> Result<JsValue, JsValue> {
    // Writing the engine's own types cannot fail (no map has non-string keys); the message
    // names the failure without formatting serde_json's error, whose `Display` would bring every
    // I/O error's text into the module.
    let text = serde_json::to_string(v)
        .map_err(|_| plain("input", "the engine's answer could not be written as JSON"))?;
    js_sys::JSON::parse(&text).map_err(|_| plain("input", "the engine's JSON did not parse"))
}

/// A JavaScript argument (a scope, options) as JSON, through `JSON.stringify`.
fn from_js(v: JsValue, what: &str) -> Result<serde_json::Value, JsValue> {
    if v.is_undefined() || v.is_null() {
        return Ok(serde_json::Value::Null);
    }
    let text: String = js_sys::JSON::stringify(&v)
        .map_err(|_| plain("input", format!("{what}: not convertible to JSON")))?
        .into();
    crate::format::json::parse(&text).map_err(|e| plain("input", format!("{what}: {e}")))
}

fn scope_of(v: JsValue) -> Result<Scope, JsValue> {
    Scope::from_json(&from_js(v, "scope")?).map_err(err)
}

fn options_of(v: JsValue) -> Result<SearchOptions, JsValue> {
    SearchOptions::from_json(&from_js(v, "options")?).map_err(err)
}

/// A shard library in the browser: a manifest and the shards loaded so far.
#[wasm_bindgen]
pub struct ChsrIndex {
    lib: Library,
}

#[wasm_bindgen]
impl ChsrIndex {
    /// Creates an index from the text of `manifest.json`.
    #[wasm_bindgen(js_name = fromManifest)]
    pub fn from_manifest(manifest_json: &str) -> Result<ChsrIndex, JsValue> {
        let m = Manifest::from_json(manifest_json).map_err(|e| plain("manifest", e))?;
        Ok(ChsrIndex {
            lib: Library::new(m),
        })
    }

    /// The manifest as a plain object (shards, facets, counts).
    pub fn manifest(&self) -> Result<JsValue, JsValue> {
        to_js(self.lib.manifest())
    }

    /// The manifest entries (`{file, sha256, bytes, subject, level, …}`) of the shards that a
    /// search with this scope and these options needs and that are not loaded yet.
    #[wasm_bindgen(js_name = shardsNeeded)]
    pub fn shards_needed(&self, scope: JsValue, options: JsValue) -> Result<JsValue, JsValue> {
        let scope = scope_of(scope)?;
        let opts = options_of(options)?;
        scope.validate(self.lib.manifest()).map_err(err)?;
        to_js(&self.lib.shards_needed(&scope, opts.stages.gating))
    }

    /// Every manifest entry a search with this scope and these options reads, loaded or not;
    /// with a `query` (a string), only those the query could match by their term summary in the
    /// manifest (`shards[].terms`, a Bloom filter: a shard left out certainly holds no query
    /// term).
    #[wasm_bindgen(js_name = shardsFor)]
    pub fn shards_for(
        &self,
        scope: JsValue,
        options: JsValue,
        query: Option<String>,
    ) -> Result<JsValue, JsValue> {
        let scope = scope_of(scope)?;
        let opts = options_of(options)?;
        match query {
            Some(q) => to_js(&self.lib.shards_for_query(&scope, &q, &opts)),
            None => to_js(&self.lib.shards_for(&scope, opts.stages.gating)),
        }
    }

    /// Verifies (SHA-256 from the manifest, the shard's own checksum and version) and loads a
    /// shard's bytes.
    #[wasm_bindgen(js_name = loadShard)]
    pub fn load_shard(&mut self, file: &str, bytes: &[u8]) -> Result<(), JsValue> {
        self.lib.load_shard(file, bytes).map_err(err)
    }

    /// As `loadShard`, with the file's SHA-256 (64 hex digits) computed by the caller over exactly
    /// these bytes, e.g. with `crypto.subtle.digest('SHA-256', bytes)` (WebCrypto is several times
    /// faster than hashing in Wasm): the module compares it with the manifest's digest instead of
    /// hashing the file; the other checks and the error messages are those of `loadShard`.
    #[wasm_bindgen(js_name = loadShardWithDigest)]
    pub fn load_shard_with_digest(
        &mut self,
        file: &str,
        bytes: &[u8],
        sha256_hex: &str,
    ) -> Result<(), JsValue> {
        self.lib
            .load_shard_with_digest(file, bytes, sha256_hex)
            .map_err(err)
    }

    /// The dense parts (`{file, sha256, bytes}`) of the loaded shards that are not loaded yet:
    /// fetch them (with the model) after the first result, then search again.
    #[wasm_bindgen(js_name = denseNeeded)]
    pub fn dense_needed(&self) -> Result<JsValue, JsValue> {
        to_js(&self.lib.dense_needed())
    }

    /// Verifies (manifest SHA-256, the file's own version) and attaches a loaded shard's dense
    /// part.
    #[wasm_bindgen(js_name = loadDense)]
    pub fn load_dense(&mut self, file: &str, bytes: &[u8]) -> Result<(), JsValue> {
        self.lib.load_dense(file, bytes).map_err(err)
    }

    /// As `loadDense`, with the file's SHA-256 computed by the caller (see `loadShardWithDigest`).
    #[wasm_bindgen(js_name = loadDenseWithDigest)]
    pub fn load_dense_with_digest(
        &mut self,
        file: &str,
        bytes: &[u8],
        sha256_hex: &str,
    ) -> Result<(), JsValue> {
        self.lib
            .load_dense_with_digest(file, bytes, sha256_hex)
            .map_err(err)
    }

    /// The manifest's embedding model entry (`{file, sha256, bytes, id, dims}`) if the shards
    /// have dense indexes, this module has the dense path and the model is not loaded yet, else
    /// `null`.
    #[wasm_bindgen(js_name = modelNeeded)]
    pub fn model_needed(&self) -> Result<JsValue, JsValue> {
        match self.lib.model_needed() {
            Some(m) => to_js(m),
            None => Ok(JsValue::NULL),
        }
    }

    /// Verifies (manifest SHA-256, the model file's own checksum and version) and loads the
    /// embedding model that embeds queries for the dense path.
    #[wasm_bindgen(js_name = loadModel)]
    pub fn load_model(&mut self, bytes: &[u8]) -> Result<(), JsValue> {
        self.lib.load_model(bytes).map_err(err)
    }

    /// As `loadModel`, with the file's SHA-256 computed by the caller (see `loadShardWithDigest`).
    #[wasm_bindgen(js_name = loadModelWithDigest)]
    pub fn load_model_with_digest(
        &mut self,
        bytes: &[u8],
        sha256_hex: &str,
    ) -> Result<(), JsValue> {
        self.lib
            .load_model_with_digest(bytes, sha256_hex)
            .map_err(err)
    }

    /// Verifies (manifest SHA-256, the file's own checksum and version) and loads the term-filter
    /// file the manifest names in `terms` (relaxation asks for it in `pending_shards` before it
    /// asks for another level's shards). The caller's SHA-256 of the bytes (64 hex digits, e.g.
    /// from WebCrypto) is compared with the manifest's; without one the module hashes the file.
    #[wasm_bindgen(js_name = loadTerms)]
    pub fn load_terms(&mut self, bytes: &[u8], sha256_hex: Option<String>) -> Result<(), JsValue> {
        self.lib
            .load_terms_with_digest(bytes, &digest(sha256_hex, bytes))
            .map_err(err)
    }

    /// Verifies (manifest SHA-256, format, agreement with its shard) and attaches the part list
    /// of a loaded shard (the manifest's `part_list`; fetch it with the shard): its text parts
    /// become known. The caller's SHA-256 of the bytes is compared with the manifest's; without
    /// one the module hashes the file.
    #[wasm_bindgen(js_name = loadPartList)]
    pub fn load_part_list(
        &mut self,
        file: &str,
        bytes: &[u8],
        sha256_hex: Option<String>,
    ) -> Result<(), JsValue> {
        self.lib
            .load_part_list_with_digest(file, bytes, &digest(sha256_hex, bytes))
            .map_err(err)
    }

    /// Verifies (the file's frame and audit path against its shard's part list's Merkle roots,
    /// its version) and attaches a text part of a loaded shard (a search names those its
    /// results need in `pending_text`). The module hashes the file itself.
    #[wasm_bindgen(js_name = loadText)]
    pub fn load_text(&mut self, file: &str, bytes: &[u8]) -> Result<(), JsValue> {
        self.lib.load_text(file, bytes).map_err(err)
    }

    /// Verifies (the file's frame and audit path against its shard's part list's Merkle roots,
    /// its version, its term range, every posting) and attaches a postings part of a loaded
    /// shard (what `postingsNeeded` names). The module hashes the file itself.
    #[wasm_bindgen(js_name = loadPostings)]
    pub fn load_postings(&mut self, file: &str, bytes: &[u8]) -> Result<(), JsValue> {
        self.lib.load_postings(file, bytes).map_err(err)
    }

    /// The files a search of `query` with `options` needs besides its scope's shards: the
    /// postings parts of its terms in the loaded shards (or a part list first). Load them with
    /// `loadPostings` (`loadPartList`) before searching.
    #[wasm_bindgen(js_name = postingsNeeded)]
    pub fn postings_needed(&self, query: &str, options: JsValue) -> Result<Vec<String>, JsValue> {
        Ok(self.lib.postings_needed(query, &options_of(options)?))
    }

    /// The postings parts (`{part: {file, bytes, first, terms, first_term}, shard, subject, level}`)
    /// of the loaded shards that are not loaded yet (a page loads them after the first result).
    #[wasm_bindgen(js_name = postingsRemaining)]
    pub fn postings_remaining(&self) -> Result<JsValue, JsValue> {
        to_js(&self.lib.postings_remaining())
    }

    /// The text parts (`{part: {file, bytes, first, chunks}, shard, subject, level}`) of
    /// the loaded shards that are not loaded yet (a page keeping a scope for offline use fetches them
    /// all).
    #[wasm_bindgen(js_name = textNeeded)]
    pub fn text_needed(&self) -> Result<JsValue, JsValue> {
        to_js(&self.lib.text_needed())
    }

    /// Whether a file the manifest lists (a shard, a dense part, a part list, the term-filter
    /// file) or a loaded part list names (a text part) is loaded.
    #[wasm_bindgen(js_name = isLoaded)]
    pub fn is_loaded(&self, file: &str) -> bool {
        self.lib.is_loaded(file)
    }

    /// Searches the loaded shards: `{results: [...], trace: {...}, pending_text: [...]}`
    /// (`pending_text`: text parts the results need before they are shown; load them with
    /// `loadText` and search again). Throws if a needed shard, or a postings part of the query's
    /// terms (`postingsNeeded`), is not loaded, or if the scope or options are invalid.
    pub fn search(
        &self,
        query: &str,
        scope: JsValue,
        options: JsValue,
    ) -> Result<JsValue, JsValue> {
        to_js(&self.respond(query, scope, options)?)
    }

    /// Explains, stage by stage, where each expected chunk id was lost or found:
    /// `{response, chunks: [{id, verdict, admitted, excluded_by, bm25_rank, dense_rank,
    /// fused_rank, duplicate_of, final_rank, leakage, explanation}]}`.
    pub fn explain(
        &self,
        query: &str,
        scope: JsValue,
        options: JsValue,
        expect: Vec<String>,
    ) -> Result<JsValue, JsValue> {
        let scope = scope_of(scope)?;
        let opts = options_of(options)?;
        let ex = crate::explain::explain(&self.lib, query, &scope, &opts, &expect).map_err(err)?;
        to_js(&ex)
    }

    /// The results of a search packaged as `[DOCUMENT N]` context for an assistant.
    #[wasm_bindgen(js_name = toContext)]
    pub fn to_context(
        &self,
        query: &str,
        scope: JsValue,
        options: JsValue,
    ) -> Result<String, JsValue> {
        let resp = self.respond(query, scope, options)?;
        Ok(self.lib.to_context(&resp))
    }

    /// Checks a scope against the manifest: `{ok: true}`, or `{ok: false, code, message,
    /// details}` (`details.valid` lists the valid values of the field at fault).
    #[wasm_bindgen(js_name = validateScope)]
    pub fn validate_scope(&self, scope: JsValue) -> Result<JsValue, JsValue> {
        let checked = Scope::from_json(&from_js(scope, "scope")?)
            .and_then(|s| s.validate(self.lib.manifest()));
        to_js(&match checked {
            Ok(()) => serde_json::json!({"ok": true}),
            Err(e) => serde_json::json!({
                "ok": false, "code": e.code(), "message": e.to_string(), "details": e.details()
            }),
        })
    }

    /// The scope pickers' facets: `[{field, values: [{value, count}], selected, locked, exact}]`,
    /// counts narrowed by the rest of the scope (exact once the scope's shards are loaded).
    pub fn facets(&self, scope: JsValue) -> Result<JsValue, JsValue> {
        let scope = scope_of(scope)?;
        to_js(&self.lib.facets(&scope))
    }

    /// The whole section of a shown result, re-gated against the scope it was searched with:
    /// `{id, chunks: [{id, text, doc_type, chapter, …}], withheld}`, or `null` when the chunk is
    /// not loaded or lies outside the scope.
    pub fn section(&self, id: &str, scope: JsValue) -> Result<JsValue, JsValue> {
        let scope = scope_of(scope)?;
        match self.lib.section(id, &scope) {
            Some(s) => to_js(&s),
            None => Ok(JsValue::NULL),
        }
    }

    /// `[DOCUMENT N]` context for results already shown (`ids`, in order), without searching
    /// again: `{context, withheld}`, each chunk re-gated against the scope.
    #[wasm_bindgen(js_name = contextFor)]
    pub fn context_for(&self, ids: Vec<String>, scope: JsValue) -> Result<JsValue, JsValue> {
        let scope = scope_of(scope)?;
        let (context, withheld) = self.lib.context_for(&ids, &scope);
        to_js(&serde_json::json!({"context": context, "withheld": withheld}))
    }
}

impl ChsrIndex {
    /// The search behind `search` and `toContext`: reads the scope and options, then searches.
    fn respond(
        &self,
        query: &str,
        scope: JsValue,
        options: JsValue,
    ) -> Result<SearchResponse, JsValue> {
        let scope = scope_of(scope)?;
        let opts = options_of(options)?;
        self.lib.search(query, &scope, &opts).map_err(err)
    }
}
