//! The errors of the reader: loading files ([`LoadError`]) and searching ([`SearchError`]).

use crate::format::FormatError;
use crate::scope::ScopeError;
use std::fmt;

/// Errors loading a shard into a library (the loading concern).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LoadError {
    /// The manifest lists no file (shard, dense part, model, term filters) with this name.
    UnknownFile(String),
    /// The file's SHA-256 differs from the manifest's (stale cache, partial download, tampering).
    Integrity {
        /// File name.
        file: String,
        /// SHA-256 from the manifest.
        expected: String,
        /// SHA-256 of the bytes received.
        found: String,
    },
    /// The shard itself is unreadable.
    Format {
        /// File name.
        file: String,
        /// What is wrong.
        error: FormatError,
    },
    /// The shard holds another subject/level than the manifest says.
    Mismatch {
        /// File name.
        file: String,
        /// What the manifest says.
        expected: String,
        /// What the shard holds.
        found: String,
    },
    /// The embedding model file is unreadable or is not the manifest's.
    Model {
        /// File name.
        file: String,
        /// What is wrong.
        message: String,
    },
    /// A shard's dense part, part list or text part arrived before the shard itself (or a text
    /// part before the shard's part list, which names it).
    PartBeforeShard {
        /// The part's file name.
        file: String,
        /// The shard it completes.
        shard: String,
    },
    /// This build of the engine has no dense path (the browser's lexical module, built without
    /// the cargo feature `dense`): it loads no model and no vectors.
    NoDensePath {
        /// The model or dense part offered.
        file: String,
    },
    /// Reading a file failed (native only).
    Io {
        /// Path.
        file: String,
        /// Message.
        message: String,
    },
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LoadError::UnknownFile(x) => write!(
                f,
                "the manifest lists no file named {}",
                crate::format::json::quote(x)
            ),
            LoadError::Integrity { file, expected, found } => write!(
                f,
                "{file}: SHA-256 mismatch (manifest {expected}, received {found}): the download is \
                 incomplete or stale; reload the page or rebuild with `chsr build`"
            ),
            LoadError::Format { file, error } => write!(f, "{file}: {error}"),
            LoadError::Mismatch { file, expected, found } => write!(
                f,
                "{file}: the manifest says {expected} but the shard holds {found}: manifest and shards \
                 come from different builds"
            ),
            LoadError::Model { file, message } => write!(f, "{file}: {message}"),
            LoadError::PartBeforeShard { file, shard } => write!(
                f,
                "{file}: a part (vectors or text) of {shard}, which is not loaded: load the shard first \
                 (and, for a text part, its part list)"
            ),
            LoadError::NoDensePath { file } => write!(
                f,
                "{file}: this build of the engine has no dense path (the lexical module, \
                 chsr_lexical_bg.wasm): open the client with the dense path ({{dense: true}}) to \
                 search with vectors"
            ),
            LoadError::Io { file, message } => write!(f, "{file}: {message}"),
        }
    }
}

impl std::error::Error for LoadError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            LoadError::Format { error, .. } => Some(error),
            _ => None,
        }
    }
}

impl LoadError {
    /// Stable code of the error kind (`load.…`).
    pub fn code(&self) -> &'static str {
        match self {
            LoadError::UnknownFile(_) => "load.unknown_file",
            LoadError::Integrity { .. } => "load.integrity",
            LoadError::Format { .. } => "load.format",
            LoadError::Mismatch { .. } => "load.mismatch",
            LoadError::Model { .. } => "load.model",
            LoadError::PartBeforeShard { .. } => "load.part_before_shard",
            LoadError::NoDensePath { .. } => "load.no_dense_path",
            LoadError::Io { .. } => "load.io",
        }
    }

    /// The error's fields as JSON (`file`, and `expected`/`found` where they apply).
    pub fn details(&self) -> serde_json::Value {
        match self {
            LoadError::UnknownFile(file) => serde_json::json!({"file": file}),
            LoadError::Integrity {
                file,
                expected,
                found,
            }
            | LoadError::Mismatch {
                file,
                expected,
                found,
            } => serde_json::json!({"file": file, "expected": expected, "found": found}),
            LoadError::Format { file, .. } => serde_json::json!({"file": file}),
            LoadError::Model { file, .. }
            | LoadError::Io { file, .. }
            | LoadError::NoDensePath { file } => {
                serde_json::json!({"file": file})
            }
            LoadError::PartBeforeShard { file, shard } => {
                serde_json::json!({"file": file, "shard": shard})
            }
        }
    }
}

/// Errors of a search call (the query concern).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SearchError {
    /// The scope is invalid for this manifest.
    Scope(ScopeError),
    /// Files the search needs are not loaded yet: shards, or the part lists and postings parts
    /// (the query's terms) of loaded shards.
    NotLoaded(Vec<String>),
    /// An option is out of range.
    Option(String),
    /// What was asked is not in this build of the engine (the browser's lexical module leaves
    /// `explain` out): its name.
    NotBuilt(&'static str),
}

impl fmt::Display for SearchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SearchError::Scope(e) => write!(f, "{e}"),
            SearchError::NotLoaded(files) => {
                write!(f, "not loaded yet: {}", files.join(", "))
            }
            SearchError::Option(m) => write!(f, "invalid option: {m}"),
            SearchError::NotBuilt(what) => write!(
                f,
                "{what} is not in this build of the engine (the lexical module, chsr_lexical_bg.wasm): \
                 open the client with the whole engine ({{dense: true}}) to use it"
            ),
        }
    }
}

impl std::error::Error for SearchError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            SearchError::Scope(e) => Some(e),
            _ => None,
        }
    }
}

impl SearchError {
    /// Stable code of the error kind: the scope's own codes (`scope.…`), `search.not_loaded`,
    /// `search.option`, `search.not_built`.
    pub fn code(&self) -> &'static str {
        match self {
            SearchError::Scope(e) => e.code(),
            SearchError::NotLoaded(_) => "search.not_loaded",
            SearchError::Option(_) => "search.option",
            SearchError::NotBuilt(_) => "search.not_built",
        }
    }

    /// The error's fields as JSON.
    pub fn details(&self) -> serde_json::Value {
        match self {
            SearchError::Scope(e) => e.details(),
            SearchError::NotLoaded(files) => serde_json::json!({"files": files}),
            SearchError::Option(_) => serde_json::json!({}),
            SearchError::NotBuilt(what) => serde_json::json!({"feature": what}),
        }
    }
}

impl From<ScopeError> for SearchError {
    fn from(e: ScopeError) -> Self {
        SearchError::Scope(e)
    }
}
