//! JSONL corpus ingest with strict validation.
//!
//! One JSON object per line, in the OpenCERB format (`docs/formats.md` describes every field):
//! `id`, `text`, `subject`, `level`, `lang`, `doc_type` are required strings; `source`, `chapter`,
//! `chapter_title`, `section`, `section_title`, `subsection`, `section_key`, `topic`, `year`,
//! `exam`, `paper`, `question_number`, `exercise_group`, `exercise_number`, `session`, `centre`,
//! `label`, `answers`, `path`, `url`, `title` are optional strings or integers. `visibility` (or
//! `access`) marks restricted material: anything other than `public` is refused by the builder
//! unless the output is declared private. `vector` and `vector_model` bring a precomputed vector.
//!
//! Every error names the file, the line and the field; all the problems of one record are
//! reported together ([`IngestError::Fields`]). A file that is plainly not JSONL (Markdown, HTML,
//! one JSON array) is named as such ([`IngestError::NotJsonl`]). Unknown fields are ignored, and
//! reported once per file as an [`IngestWarning`] by [`read_corpus`] and [`parse_corpus`].
//! Metadata values (everything but `id` and `text`) are trimmed, as scope values are; a blank
//! optional value is absent.

use crate::format::ChunkRecord;
use serde_json::{Map, Value};
use std::collections::BTreeSet;

mod diagnostics;

pub use diagnostics::{FieldProblem, FileKind, IngestError, IngestWarning};

/// A corpus read with its warnings.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Corpus {
    /// The records, in file and line order.
    pub chunks: Vec<SourcedChunk>,
    /// What the reader noticed without failing (unknown fields, once per file).
    pub warnings: Vec<IngestWarning>,
}

/// A parsed record and where it came from.
#[derive(Clone, Debug, PartialEq)]
pub struct SourcedChunk {
    /// The chunk.
    pub record: ChunkRecord,
    /// `visibility`/`access` value if present.
    pub visibility: Option<String>,
    /// A precomputed document vector (`vector`) and the id of the model that made it
    /// (`vector_model`), when the corpus brings its own vectors.
    pub vector: Option<(Vec<f32>, String)>,
    /// File name as given.
    pub file: String,
    /// 1-based line number.
    pub line: usize,
}

/// Longest accepted chunk text (bytes); larger records are refused rather than silently cut.
pub const MAX_TEXT_BYTES: usize = 1 << 20;

/// The required fields, in the order errors name them.
pub const REQUIRED: [&str; 6] = ["id", "text", "subject", "level", "lang", "doc_type"];

/// Every field a record may carry; any other is reported as unknown ([`IngestWarning`]). The
/// [`REQUIRED`] ones come first, then the optional scalars, then the fields read on their own.
pub const KNOWN_FIELDS: &[&str] = &[
    "id",
    "text",
    "subject",
    "level",
    "lang",
    "doc_type",
    "source",
    "chapter",
    "chapter_title",
    "section",
    "section_title",
    "subsection",
    "section_key",
    "topic",
    "year",
    "exam",
    "paper",
    "question_number",
    "exercise_group",
    "exercise_number",
    "session",
    "centre",
    "label",
    "answers",
    "path",
    "url",
    "title",
    "visibility",
    "access",
    "vector",
    "vector_model",
];

/// Parses one JSONL line as a JSON object; blank lines yield `Ok(None)`, anything but an object
/// is [`IngestError::Json`] at `file:line_no`.
pub fn parse_object(
    file: &str,
    line_no: usize,
    line: &str,
) -> Result<Option<Map<String, Value>>, IngestError> {
    if line.trim().is_empty() {
        return Ok(None);
    }
    let json_err = |message: String| IngestError::Json {
        file: file.into(),
        line: line_no,
        message,
    };
    match serde_json::from_str(line).map_err(|e| json_err(e.to_string()))? {
        Value::Object(obj) => Ok(Some(obj)),
        _ => Err(json_err("expected an object".into())),
    }
}

/// Parses one JSONL line. Empty and whitespace-only lines yield `Ok(None)`.
pub fn parse_line(
    file: &str,
    line_no: usize,
    line: &str,
) -> Result<Option<SourcedChunk>, IngestError> {
    Ok(parse_record(file, line_no, line)?.map(|(c, _)| c))
}

/// [`parse_line`], also returning the names of the fields the format does not define.
fn parse_record(
    file: &str,
    line_no: usize,
    line: &str,
) -> Result<Option<(SourcedChunk, Vec<String>)>, IngestError> {
    let Some(obj) = parse_object(file, line_no, line)? else {
        return Ok(None);
    };
    let obj = &obj;
    let unknown: Vec<String> = obj
        .keys()
        .filter(|k| !KNOWN_FIELDS.contains(&k.as_str()))
        .cloned()
        .collect();
    // Every problem of the record is collected, so that one run reports them all.
    let mut problems: Vec<FieldProblem> = Vec::new();
    let mut problem = |field: &str, message: String| {
        problems.push(FieldProblem {
            field: field.into(),
            message,
        })
    };
    let mut required = |name: &str| -> String {
        match required_string(obj, name) {
            Ok(v) => v,
            Err(mut message) => {
                if let Some(k) = unknown.iter().find(|k| suggest_field(k) == Some(name)) {
                    message = format!("{message}; the record has `{k}`: rename it `{name}`");
                }
                problem(name, message);
                String::new()
            }
        }
    };
    let mut r = ChunkRecord {
        id: required("id"),
        text: required("text"),
        subject: required("subject"),
        level: required("level"),
        lang: required("lang"),
        doc_type: required("doc_type"),
        ..Default::default()
    };
    if r.text.len() > MAX_TEXT_BYTES {
        problem(
            "text",
            format!(
                "{} bytes, more than the {MAX_TEXT_BYTES}-byte limit: split the chunk",
                r.text.len()
            ),
        );
    }
    // The optional scalars: the known fields after the required ones, but for those read on
    // their own below.
    for name in &KNOWN_FIELDS[REQUIRED.len()..] {
        let slot = match *name {
            "source" => &mut r.source,
            "chapter" => &mut r.chapter,
            "chapter_title" => &mut r.chapter_title,
            "section" => &mut r.section,
            "section_title" => &mut r.section_title,
            "subsection" => &mut r.subsection,
            "section_key" => &mut r.section_key,
            "topic" => &mut r.topic,
            "year" => &mut r.year,
            "exam" => &mut r.exam,
            "paper" => &mut r.paper,
            "question_number" => &mut r.question_number,
            "exercise_group" => &mut r.exercise_group,
            "exercise_number" => &mut r.exercise_number,
            "session" => &mut r.session,
            "centre" => &mut r.centre,
            "label" => &mut r.label,
            "answers" => &mut r.answers,
            "path" => &mut r.path,
            "url" => &mut r.url,
            "title" => &mut r.title,
            "visibility" | "access" | "vector" | "vector_model" => continue,
            _ => unreachable!("KNOWN_FIELDS lists only the names matched above"),
        };
        *slot = optional_scalar(obj, name).unwrap_or_else(|m| {
            problem(name, m);
            None
        });
    }
    let visibility = match (
        optional_scalar(obj, "visibility"),
        optional_scalar(obj, "access"),
    ) {
        (Err(m), _) => {
            problem("visibility", m);
            None
        }
        (_, Err(m)) => {
            problem("access", m);
            None
        }
        // Fail closed: when both are given, a non-public one wins over a public one.
        (Ok(v), Ok(a)) => match (v, a) {
            (Some(v), Some(a)) if is_public(&v) => Some(a),
            (v, a) => v.or(a),
        },
    };
    let vector = parse_vector(obj).unwrap_or_else(|p| {
        problem(&p.field, p.message);
        None
    });
    match problems.len() {
        0 => {}
        1 => {
            let p = problems.remove(0);
            return Err(IngestError::field(file, line_no, &p.field, p.message));
        }
        _ => {
            return Err(IngestError::Fields {
                file: file.into(),
                line: line_no,
                problems,
            })
        }
    }
    let chunk = SourcedChunk {
        record: r,
        visibility,
        vector,
        file: file.into(),
        line: line_no,
    };
    Ok(Some((chunk, unknown)))
}

/// A required string field: trimmed unless it is `id` or `text`, which stay verbatim; an error
/// message when it is missing, blank (but `text` may be blank) or not a string.
fn required_string(obj: &Map<String, Value>, name: &str) -> Result<String, String> {
    match obj.get(name) {
        None | Some(Value::Null) => Err("missing (required)".into()),
        Some(Value::String(s)) if s.trim().is_empty() && name != "text" => {
            Err("must not be empty".into())
        }
        // Metadata is compared with scopes, which are trimmed: store it trimmed too, or a
        // subject written "physics " would build a shard no scope can select.
        Some(Value::String(s)) if name == "text" || name == "id" => Ok(s.clone()),
        Some(Value::String(s)) => Ok(s.trim().to_string()),
        Some(other) => Err(format!("expected a string, found {}", kind(other))),
    }
}

/// The `vector` and `vector_model` fields, or the field at fault and what is wrong with it.
fn parse_vector(obj: &Map<String, Value>) -> Result<Option<(Vec<f32>, String)>, FieldProblem> {
    let err = |field: &str, message: String| FieldProblem {
        field: field.into(),
        message,
    };
    match (obj.get("vector"), obj.get("vector_model")) {
        (None | Some(Value::Null), None | Some(Value::Null)) => Ok(None),
        (Some(Value::Array(a)), Some(Value::String(m))) if !m.trim().is_empty() => {
            if a.is_empty() || a.len() > 4096 {
                return Err(err(
                    "vector",
                    format!("{} components; expected 1 to 4096", a.len()),
                ));
            }
            let mut v = Vec::with_capacity(a.len());
            for (i, x) in a.iter().enumerate() {
                match x.as_f64() {
                    Some(f) if f.is_finite() => v.push(f as f32),
                    _ => {
                        return Err(err(
                            "vector",
                            format!("component {i} is not a finite number"),
                        ))
                    }
                }
            }
            Ok(Some((v, m.clone())))
        }
        (Some(Value::Array(_)), _) => Err(err(
            "vector_model",
            "required with `vector`: the id of the model that made it".into(),
        )),
        (Some(other), _) => Err(err(
            "vector",
            format!("expected an array of numbers, found {}", kind(other)),
        )),
        (None, Some(_)) => Err(err(
            "vector",
            "missing: `vector_model` is set but `vector` is not".into(),
        )),
    }
}

/// The known field an unknown field name probably means: the same name in another case or
/// spelling (`docType`, `Doc-Type` → `doc_type`), or a common synonym (`language` → `lang`,
/// `content` → `text`).
pub fn suggest_field(name: &str) -> Option<&'static str> {
    let loose = |s: &str| -> String {
        s.chars()
            .filter(|c| c.is_alphanumeric())
            .flat_map(char::to_lowercase)
            .collect()
    };
    let n = loose(name);
    let synonym = match n.as_str() {
        "language" => Some("lang"),
        "type" | "documenttype" | "kind" => Some("doc_type"),
        "content" | "body" => Some("text"),
        "link" | "href" => Some("url"),
        "grade" => Some("level"),
        _ => None,
    };
    synonym.or_else(|| KNOWN_FIELDS.iter().copied().find(|k| loose(k) == n))
}

/// How a JSON value's type is named in error messages ("a string", "null", …).
pub fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn optional_scalar(obj: &Map<String, Value>, name: &str) -> Result<Option<String>, String> {
    match obj.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) if s.trim().is_empty() => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.trim().to_string())),
        Some(Value::Number(n)) if n.is_i64() || n.is_u64() => Ok(Some(n.to_string())),
        Some(other) => Err(format!(
            "expected a string or an integer, found {}",
            kind(other)
        )),
    }
}

/// Parses a whole JSONL text; duplicate ids within `text` are an error. Warnings are dropped:
/// [`parse_corpus`] returns them.
pub fn parse_jsonl(file: &str, text: &str) -> Result<Vec<SourcedChunk>, IngestError> {
    parse_corpus(file, text).map(|c| c.chunks)
}

/// Parses a whole JSONL text named `file`, with its warnings; duplicate ids within `text` are an
/// error.
pub fn parse_corpus(file: &str, text: &str) -> Result<Corpus, IngestError> {
    let mut corpus = Corpus::default();
    read_into(&mut corpus, file, text)?;
    check_chunk_ids(&corpus.chunks)?;
    Ok(corpus)
}

/// Reads several JSONL files (native only); ids must be unique across all of them. Warnings are
/// dropped: [`read_corpus`] returns them.
#[cfg(not(target_arch = "wasm32"))]
pub fn read_files<P: AsRef<std::path::Path>>(
    paths: &[P],
) -> Result<Vec<SourcedChunk>, IngestError> {
    read_corpus(paths).map(|c| c.chunks)
}

/// Reads several JSONL files (native only), with their warnings; ids must be unique across all
/// of them.
#[cfg(not(target_arch = "wasm32"))]
pub fn read_corpus<P: AsRef<std::path::Path>>(paths: &[P]) -> Result<Corpus, IngestError> {
    let mut corpus = Corpus::default();
    for p in paths {
        let (name, text) = read_text(p.as_ref())?;
        read_into(&mut corpus, &name, &text)?;
    }
    check_chunk_ids(&corpus.chunks)?;
    Ok(corpus)
}

/// Parses the records of one file into `corpus`, and adds the file's warning about unknown
/// fields, if any.
fn read_into(corpus: &mut Corpus, file: &str, text: &str) -> Result<(), IngestError> {
    check_looks_like_jsonl(file, text)?;
    let mut unknown: BTreeSet<String> = BTreeSet::new();
    let (mut first_line, mut lines) = (0, 0);
    for (i, line) in text.lines().enumerate() {
        if let Some((c, names)) = parse_record(file, i + 1, line)? {
            if !names.is_empty() {
                if lines == 0 {
                    first_line = i + 1;
                }
                lines += 1;
                unknown.extend(names);
            }
            corpus.chunks.push(c);
        }
    }
    if lines > 0 {
        corpus.warnings.push(IngestWarning::UnknownFields {
            file: file.into(),
            fields: unknown.into_iter().collect(),
            first_line,
            lines,
        });
    }
    Ok(())
}

/// Refuses, with an error saying what the format is, a file that is plainly not JSON Lines: its
/// first non-blank line opens a Markdown heading or front matter (`#`, `---`), an HTML tag
/// (`<`) or a JSON array (`[`), or its name ends in `.md`/`.markdown`/`.html`/`.htm` and its
/// first line is not a JSON object. Anything else is left to the line parser.
pub fn check_looks_like_jsonl(file: &str, text: &str) -> Result<(), IngestError> {
    let Some(first) = text.lines().map(str::trim).find(|l| !l.is_empty()) else {
        return Ok(());
    };
    let first = first.trim_start_matches('\u{feff}');
    if first.starts_with('{') {
        return Ok(());
    }
    let ext = std::path::Path::new(file)
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    let found = if first.starts_with('#') || first.starts_with("---") {
        FileKind::Markdown
    } else if first.starts_with('<') {
        FileKind::Html
    } else if first.starts_with('[') {
        FileKind::JsonArray
    } else if matches!(ext.as_str(), "md" | "markdown") {
        FileKind::Markdown
    } else if matches!(ext.as_str(), "html" | "htm") {
        FileKind::Html
    } else {
        return Ok(());
    };
    Err(IngestError::NotJsonl {
        file: file.into(),
        found,
    })
}

/// Reads a UTF-8 text file (native only): (its name as displayed, its text); invalid UTF-8 is
/// an error naming the line where it starts.
#[cfg(not(target_arch = "wasm32"))]
pub fn read_text(path: &std::path::Path) -> Result<(String, String), IngestError> {
    let name = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|e| IngestError::Io {
        file: name.clone(),
        message: e.to_string(),
    })?;
    let text = String::from_utf8(bytes).map_err(|e| {
        let upto = &e.as_bytes()[..e.utf8_error().valid_up_to()];
        let line = upto.iter().filter(|&&b| b == b'\n').count() + 1;
        IngestError::Json {
            file: name.clone(),
            line,
            message: "invalid UTF-8".into(),
        }
    })?;
    Ok((name, text))
}

/// The first repeated id among `(id, file, line)` records, as [`IngestError::DuplicateId`]
/// (`what` names the id in the message).
pub fn check_unique<'a>(
    what: &'static str,
    records: impl IntoIterator<Item = (&'a str, &'a str, usize)>,
) -> Result<(), IngestError> {
    let mut seen: std::collections::HashMap<&str, (&str, usize)> = std::collections::HashMap::new();
    for (id, file, line) in records {
        if let Some((first_file, first_line)) = seen.insert(id, (file, line)) {
            return Err(IngestError::DuplicateId {
                what,
                id: id.to_string(),
                first: format!("{first_file}:{first_line}"),
                second: format!("{file}:{line}"),
            });
        }
    }
    Ok(())
}

fn check_chunk_ids(chunks: &[SourcedChunk]) -> Result<(), IngestError> {
    check_unique(
        "id",
        chunks
            .iter()
            .map(|c| (c.record.id.as_str(), c.file.as_str(), c.line)),
    )
}

/// Whether a `visibility`/`access` value means public (`public`, any case).
pub fn is_public(value: &str) -> bool {
    value.eq_ignore_ascii_case("public")
}

/// Refuses non-public records unless `private` is set.
pub fn check_visibility(chunks: &[SourcedChunk], private: bool) -> Result<(), IngestError> {
    if private {
        return Ok(());
    }
    for c in chunks {
        if let Some(v) = &c.visibility {
            if !is_public(v) {
                return Err(IngestError::NotPublic {
                    file: c.file.clone(),
                    line: c.line,
                    id: c.record.id.clone(),
                    visibility: v.clone(),
                });
            }
        }
    }
    Ok(())
}

/// Checks brought-in vectors: every chunk has one or none does; one model id; one dimension.
/// Returns the model id and dimension when the corpus brings vectors.
pub fn check_vectors(chunks: &[SourcedChunk]) -> Result<Option<(String, usize)>, IngestError> {
    let Some(first) = chunks.iter().find(|c| c.vector.is_some()) else {
        return Ok(None);
    };
    let (v0, m0) = first.vector.as_ref().expect("found above");
    for c in chunks {
        let err =
            |field: &str, message: String| IngestError::field(&c.file, c.line, field, message);
        match &c.vector {
            None => {
                return Err(err(
                    "vector",
                    format!(
                        "missing, but {}:{} brings one: every chunk needs a vector, or none",
                        first.file, first.line
                    ),
                ))
            }
            Some((_, m)) if m != m0 => {
                return Err(err(
                    "vector_model",
                    format!("{m:?}, but {}:{} uses {m0:?}", first.file, first.line),
                ))
            }
            Some((v, _)) if v.len() != v0.len() => {
                return Err(err(
                    "vector",
                    format!(
                        "{} dimensions, but {}:{} has {}",
                        v.len(),
                        first.file,
                        first.line,
                        v0.len()
                    ),
                ))
            }
            Some(_) => {}
        }
    }
    Ok(Some((m0.clone(), v0.len())))
}

/// The distinct (subject, level) pairs of a corpus, sorted.
pub fn subject_levels(chunks: &[SourcedChunk]) -> BTreeSet<(String, String)> {
    chunks
        .iter()
        .map(|c| (c.record.subject.clone(), c.record.level.clone()))
        .collect()
}

/// Test-only: the record of the one chunk the JSON object `line` describes.
#[cfg(test)]
pub(crate) fn record_of(line: Value) -> ChunkRecord {
    parse_jsonl("t.jsonl", &line.to_string())
        .unwrap()
        .remove(0)
        .record
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_fields_start_with_the_required_ones() {
        assert_eq!(KNOWN_FIELDS[..REQUIRED.len()], REQUIRED);
    }

    const OK: &str = r#"{"id":"a:1","text":"Heat flows.","subject":"physics","level":"college","lang":"en","doc_type":"textbook_section","chapter":14,"section":2}"#;

    #[test]
    fn parses_a_record_with_integer_fields() {
        let c = parse_line("c.jsonl", 1, OK).unwrap().unwrap();
        assert_eq!(c.record.chapter.as_deref(), Some("14"));
        assert_eq!(c.record.section.as_deref(), Some("2"));
        assert_eq!(c.record.subject, "physics");
    }

    #[test]
    fn errors_name_file_line_and_field() {
        let bad = OK.replace(r#""subject":"physics","#, "");
        let e = parse_line("c.jsonl", 7, &bad).unwrap_err();
        assert_eq!(
            e.to_string(),
            "c.jsonl:7: field `subject`: missing (required)"
        );
        let bad = OK.replace(r#""chapter":14"#, r#""chapter":[1]"#);
        let e = parse_line("c.jsonl", 3, &bad).unwrap_err().to_string();
        assert!(e.starts_with("c.jsonl:3: field `chapter`"), "{e}");
        let e = parse_line("c.jsonl", 9, "{not json")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("c.jsonl:9: not a JSON object"), "{e}");
    }

    #[test]
    fn duplicate_ids_are_refused() {
        let text = format!("{OK}\n\n{OK}\n");
        let e = parse_jsonl("c.jsonl", &text).unwrap_err().to_string();
        assert_eq!(e, "duplicate id \"a:1\" at c.jsonl:3 (first at c.jsonl:1)");
    }

    #[test]
    fn non_public_records_need_the_private_flag() {
        let line = OK.replace(r#""id":"a:1""#, r#""id":"a:1","visibility":"teachers""#);
        let chunks = parse_jsonl("c.jsonl", &line).unwrap();
        let e = check_visibility(&chunks, false).unwrap_err().to_string();
        assert!(e.contains("teachers") && e.contains("--private"), "{e}");
        assert!(check_visibility(&chunks, true).is_ok());
    }
}
