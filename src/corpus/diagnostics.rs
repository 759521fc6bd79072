//! The errors and warnings of corpus ingest, and how they read.

use super::{suggest_field, KNOWN_FIELDS};
use std::fmt;

/// Errors reading line-oriented JSON input: a corpus, or an evaluation query set
/// (`eval::queries`). Every variant names the file, and the line and field where there is one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IngestError {
    /// The file could not be read.
    Io {
        /// File name as given.
        file: String,
        /// The I/O error message.
        message: String,
    },
    /// A line is not a JSON object.
    Json {
        /// File name as given.
        file: String,
        /// 1-based line number.
        line: usize,
        /// The parser's message.
        message: String,
    },
    /// A field is missing, has the wrong type or an invalid value (the record's only problem).
    Field {
        /// File name as given.
        file: String,
        /// 1-based line number.
        line: usize,
        /// Field name.
        field: String,
        /// What is wrong with it.
        message: String,
    },
    /// Several fields of one record are missing, have the wrong type or an invalid value: every
    /// problem of the record, in field order, so that one build reports them all.
    Fields {
        /// File name as given.
        file: String,
        /// 1-based line number.
        line: usize,
        /// The problems, at least two.
        problems: Vec<FieldProblem>,
    },
    /// The file is plainly not JSON Lines (a Markdown or HTML page, one JSON array).
    NotJsonl {
        /// File name as given.
        file: String,
        /// What it looks like.
        found: FileKind,
    },
    /// Two records share an id.
    DuplicateId {
        /// What the id identifies, as said in the message (`id`, `query id`).
        what: &'static str,
        /// The repeated id.
        id: String,
        /// Where it appears first (`file:line`).
        first: String,
        /// Where it appears again (`file:line`).
        second: String,
    },
    /// A record is marked non-public and the output was not declared private.
    NotPublic {
        /// File name as given.
        file: String,
        /// 1-based line number.
        line: usize,
        /// The record id.
        id: String,
        /// The visibility value found.
        visibility: String,
    },
    /// The file holds no record at all.
    Empty {
        /// File name as given.
        file: String,
        /// What it should hold (`query`, …).
        what: &'static str,
    },
}

impl fmt::Display for IngestError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IngestError::Io { file, message } => write!(f, "{file}: cannot read: {message}"),
            IngestError::Json { file, line, message } => {
                write!(f, "{file}:{line}: not a JSON object: {message}")
            }
            IngestError::Field {
                file,
                line,
                field,
                message,
            } => write!(f, "{file}:{line}: field `{field}`: {message}"),
            IngestError::Fields {
                file,
                line,
                problems,
            } => {
                write!(f, "{file}:{line}: ")?;
                // Fields with the same problem are named together: "fields `subject`, `level`:
                // missing (required)".
                let mut groups: Vec<(&str, Vec<&str>)> = Vec::new();
                for p in problems {
                    match groups.iter_mut().find(|(m, _)| *m == p.message) {
                        Some((_, fields)) => fields.push(&p.field),
                        None => groups.push((&p.message, vec![&p.field])),
                    }
                }
                for (i, (message, fields)) in groups.iter().enumerate() {
                    let names: Vec<String> = fields.iter().map(|n| format!("`{n}`")).collect();
                    let noun = if fields.len() == 1 { "field" } else { "fields" };
                    let sep = if i == 0 { "" } else { "; " };
                    write!(f, "{sep}{noun} {}: {message}", names.join(", "))?;
                }
                Ok(())
            }
            IngestError::NotJsonl { file, found } => {
                let what = match found {
                    FileKind::Markdown => "looks like Markdown",
                    FileKind::Html => "looks like HTML",
                    FileKind::JsonArray => "holds a JSON array",
                };
                write!(
                    f,
                    "{file}: {what}, not JSONL. `chsr build` reads JSON Lines: one chunk per line, \
                     each a JSON object with at least id, text, subject, level, lang and doc_type \
                     (docs/formats.md describes every field)"
                )?;
                match found {
                    FileKind::JsonArray => write!(
                        f,
                        "; write each object on its own line, without the enclosing brackets and \
                         the commas between objects"
                    ),
                    FileKind::Markdown | FileKind::Html => write!(
                        f,
                        ". To index Markdown notes use `chsr index --markdown DIR`; for a built \
                         site, `chsr index --site DIR`"
                    ),
                }
            }
            IngestError::DuplicateId {
                what,
                id,
                first,
                second,
            } => write!(f, "duplicate {what} {id:?} at {second} (first at {first})"),
            IngestError::Empty { file, what } => write!(f, "{file}: no {what} in the file"),
            IngestError::NotPublic {
                file,
                line,
                id,
                visibility,
            } => write!(
                f,
                "{file}:{line}: chunk {id:?} has visibility {visibility:?}; every chunk of a shard is \
                 downloadable by anyone who can open the site. Remove it, or pass --private if the \
                 output folder is not published"
            ),
        }
    }
}

impl std::error::Error for IngestError {}

impl IngestError {
    /// A bad value in `field` on line `line` of `file`.
    pub fn field(file: &str, line: usize, field: &str, message: String) -> IngestError {
        IngestError::Field {
            file: file.into(),
            line,
            field: field.into(),
            message,
        }
    }
}

/// One problem of a record: the field and what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldProblem {
    /// Field name.
    pub field: String,
    /// What is wrong with it.
    pub message: String,
}

/// What a file that is not JSON Lines looks like ([`IngestError::NotJsonl`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    /// A Markdown document (a `.md` name, or a first line opening a heading or front matter).
    Markdown,
    /// An HTML page (a `.html` name, or a first line opening a tag).
    Html,
    /// A single JSON array of records instead of one record per line.
    JsonArray,
}

/// Something a corpus reader or the builder noticed that does not stop the build. The CLI prints
/// each as one line, prefixed by its [`IngestWarning::level`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IngestWarning {
    /// Records of a file carry fields the format does not define; they were ignored.
    /// Reported once per file.
    UnknownFields {
        /// File name as given.
        file: String,
        /// The unknown names, sorted.
        fields: Vec<String>,
        /// 1-based line of the first record carrying one.
        first_line: usize,
        /// Number of records carrying at least one.
        lines: usize,
    },
    /// A `doc_type` value is neither a canonical type nor an alias ([`crate::doctype`]): it is
    /// kept as is, but gets no label on the page and no boost from queries asking for a type.
    /// Reported once per value.
    UnknownDocType {
        /// The value as written.
        value: String,
        /// Where it appears first (`file:line`).
        first: String,
        /// Number of chunks with it.
        chunks: usize,
    },
    /// A `doc_type` alias was stored as its canonical type (`corrigé` → `solution`): a note, not
    /// a problem. Reported once per value.
    DocTypeAlias {
        /// The value as written.
        value: String,
        /// The canonical type stored.
        doc_type: &'static str,
        /// Number of chunks with it.
        chunks: usize,
    },
}

impl IngestWarning {
    /// `warning` for something the author should look at, `note` for information.
    pub fn level(&self) -> &'static str {
        match self {
            IngestWarning::DocTypeAlias { .. } => "note",
            _ => "warning",
        }
    }
}

impl fmt::Display for IngestWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = |n: usize| if n == 1 { "" } else { "s" };
        match self {
            IngestWarning::UnknownFields {
                file,
                fields,
                first_line,
                lines,
            } => {
                let names: Vec<String> = fields
                    .iter()
                    .map(|n| match suggest_field(n) {
                        Some(k) => format!("`{n}` (did you mean `{k}`?)"),
                        None => format!("`{n}`"),
                    })
                    .collect();
                write!(
                    f,
                    "{file}: unknown field{} {} ignored on {lines} line{} (first at line \
                     {first_line}); the known fields are {}",
                    s(fields.len()),
                    names.join(", "),
                    s(*lines),
                    KNOWN_FIELDS.join(", ")
                )
            }
            IngestWarning::UnknownDocType {
                value,
                first,
                chunks,
            } => write!(
                f,
                "{first}: doc_type {value:?} ({chunks} chunk{}) is not a type chsr knows: it is kept, \
                 but gets no label and no boost from queries asking for a type. Known types: {} \
                 (aliases such as `corrigé` or `mark scheme` are listed in docs/formats.md)",
                s(*chunks),
                crate::doctype::names().collect::<Vec<_>>().join(", ")
            ),
            IngestWarning::DocTypeAlias {
                value,
                doc_type,
                chunks,
            } => write!(
                f,
                "doc_type {value:?} stored as {doc_type:?} ({chunks} chunk{})",
                s(*chunks)
            ),
        }
    }
}
