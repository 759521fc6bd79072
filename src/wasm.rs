//! WebAssembly bindings: the [`Library`] API exposed to JavaScript with `wasm-bindgen`.
//!
//! Networking stays in JavaScript (`www/chsr-client.js` fetches the manifest and shards, with a
//! retry); everything else — integrity checks, decoding, gating, retrieval — is the same library
//! code the native CLI runs. Errors become JS exceptions carrying the library's messages.
//!
//! ```js
//! const index = ChsrIndex.fromManifest(manifestText);
//! for (const s of index.shardsNeeded(scope, options)) index.loadShard(s.file, bytes);
//! const { results, trace } = index.search("specific heat", { subject: "chemistry" }, { k: 8 });
//! ```

use crate::format::Manifest;
use crate::library::{Library, SearchOptions, SearchResponse};
use crate::scope::Scope;
use serde::Serialize;
use wasm_bindgen::prelude::*;

/// Installs the panic hook so a Rust panic shows its message in the console.
#[wasm_bindgen(start)]
pub fn start() {
    console_error_panic_hook::set_once();
}

/// A library error as a JavaScript `Error` carrying its message.
fn js_err(e: impl std::fmt::Display) -> JsError {
    JsError::new(&e.to_string())
}

fn to_js<T: Serialize>(v: &T) -> Result<JsValue, JsError> {
    v.serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .map_err(js_err)
}

fn from_js(v: JsValue, what: &str) -> Result<serde_json::Value, JsError> {
    if v.is_undefined() || v.is_null() {
        return Ok(serde_json::Value::Null);
    }
    serde_wasm_bindgen::from_value(v).map_err(|e| JsError::new(&format!("{what}: {e}")))
}

fn scope_of(v: JsValue) -> Result<Scope, JsError> {
    Scope::from_json(&from_js(v, "scope")?).map_err(js_err)
}

fn options_of(v: JsValue) -> Result<SearchOptions, JsError> {
    SearchOptions::from_json(&from_js(v, "options")?).map_err(js_err)
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
    pub fn from_manifest(manifest_json: &str) -> Result<ChsrIndex, JsError> {
        let m = Manifest::from_json(manifest_json).map_err(js_err)?;
        Ok(ChsrIndex {
            lib: Library::new(m),
        })
    }

    /// The manifest as a plain object (shards, facets, counts).
    pub fn manifest(&self) -> Result<JsValue, JsError> {
        to_js(self.lib.manifest())
    }

    /// The manifest entries (`{file, sha256, bytes, subject, level, …}`) of the shards that a
    /// search with this scope and these options needs and that are not loaded yet.
    #[wasm_bindgen(js_name = shardsNeeded)]
    pub fn shards_needed(&self, scope: JsValue, options: JsValue) -> Result<JsValue, JsError> {
        let scope = scope_of(scope)?;
        let opts = options_of(options)?;
        scope.validate(self.lib.manifest()).map_err(js_err)?;
        to_js(&self.lib.shards_needed(&scope, opts.stages.gating))
    }

    /// Verifies (SHA-256 from the manifest, the shard's own checksum and version) and loads a
    /// shard's bytes.
    #[wasm_bindgen(js_name = loadShard)]
    pub fn load_shard(&mut self, file: &str, bytes: &[u8]) -> Result<(), JsError> {
        self.lib.load_shard(file, bytes).map_err(js_err)
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
    ) -> Result<(), JsError> {
        self.lib
            .load_shard_with_digest(file, bytes, sha256_hex)
            .map_err(js_err)
    }

    /// The dense parts (`{file, sha256, bytes}`) of the loaded shards that are not loaded yet:
    /// fetch them (with the model) after the first result, then search again.
    #[wasm_bindgen(js_name = denseNeeded)]
    pub fn dense_needed(&self) -> Result<JsValue, JsError> {
        to_js(&self.lib.dense_needed())
    }

    /// Verifies (manifest SHA-256, the file's own version) and attaches a loaded shard's dense
    /// part.
    #[wasm_bindgen(js_name = loadDense)]
    pub fn load_dense(&mut self, file: &str, bytes: &[u8]) -> Result<(), JsError> {
        self.lib.load_dense(file, bytes).map_err(js_err)
    }

    /// As `loadDense`, with the file's SHA-256 computed by the caller (see `loadShardWithDigest`).
    #[wasm_bindgen(js_name = loadDenseWithDigest)]
    pub fn load_dense_with_digest(
        &mut self,
        file: &str,
        bytes: &[u8],
        sha256_hex: &str,
    ) -> Result<(), JsError> {
        self.lib
            .load_dense_with_digest(file, bytes, sha256_hex)
            .map_err(js_err)
    }

    /// The manifest's embedding model entry (`{file, sha256, bytes, id, dims}`) if the shards
    /// have dense indexes and the model is not loaded yet, else `null`.
    #[wasm_bindgen(js_name = modelNeeded)]
    pub fn model_needed(&self) -> Result<JsValue, JsError> {
        match (&self.lib.manifest().model, self.lib.has_model()) {
            (Some(m), false) => to_js(m),
            _ => Ok(JsValue::NULL),
        }
    }

    /// Verifies (manifest SHA-256, the model file's own checksum and version) and loads the
    /// embedding model that embeds queries for the dense path.
    #[wasm_bindgen(js_name = loadModel)]
    pub fn load_model(&mut self, bytes: &[u8]) -> Result<(), JsError> {
        self.lib.load_model(bytes).map_err(js_err)
    }

    /// As `loadModel`, with the file's SHA-256 computed by the caller (see `loadShardWithDigest`).
    #[wasm_bindgen(js_name = loadModelWithDigest)]
    pub fn load_model_with_digest(
        &mut self,
        bytes: &[u8],
        sha256_hex: &str,
    ) -> Result<(), JsError> {
        self.lib
            .load_model_with_digest(bytes, sha256_hex)
            .map_err(js_err)
    }

    /// Whether a shard file is loaded.
    #[wasm_bindgen(js_name = isLoaded)]
    pub fn is_loaded(&self, file: &str) -> bool {
        self.lib.is_loaded(file)
    }

    /// Searches the loaded shards: `{results: [...], trace: {...}}`. Throws if a needed shard is
    /// not loaded, or if the scope or options are invalid.
    pub fn search(
        &self,
        query: &str,
        scope: JsValue,
        options: JsValue,
    ) -> Result<JsValue, JsError> {
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
    ) -> Result<JsValue, JsError> {
        let scope = scope_of(scope)?;
        let opts = options_of(options)?;
        let ex =
            crate::explain::explain(&self.lib, query, &scope, &opts, &expect).map_err(js_err)?;
        to_js(&ex)
    }

    /// The results of a search packaged as `[DOCUMENT N]` context for an assistant.
    #[wasm_bindgen(js_name = toContext)]
    pub fn to_context(
        &self,
        query: &str,
        scope: JsValue,
        options: JsValue,
    ) -> Result<String, JsError> {
        let resp = self.respond(query, scope, options)?;
        Ok(self.lib.to_context(&resp))
    }
}

impl ChsrIndex {
    /// The search behind `search` and `toContext`: reads the scope and options, then searches.
    fn respond(
        &self,
        query: &str,
        scope: JsValue,
        options: JsValue,
    ) -> Result<SearchResponse, JsError> {
        let scope = scope_of(scope)?;
        let opts = options_of(options)?;
        self.lib.search(query, &scope, &opts).map_err(js_err)
    }
}
