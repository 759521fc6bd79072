//! Query sets in the OpenCERB JSONL format.
//!
//! One JSON object per line. Required: `id`, `slice`, `query` (strings), `scope` (an object of
//! field: string-or-integer) and the relevance judgements, either `relevant_grades` (an object of
//! chunk id: grade, a number ≥ 0) or, failing that, `relevant_ids` (an array of chunk ids, each
//! grade 1). When both are present `relevant_grades` wins, as in the reference evaluator.
//! Optional: `lang`, `relevant_sections` (array of section keys), `expected_fields` (an object of
//! field: scalar), `confusable` (kept as given), `derived_from` (the id of the item the query
//! was built from: contamination does not count that item's own solution against it), `notes`
//! (or, failing that, `description`: free text about the query that the consistency judge reads
//! with the query; OpenCERB has neither). Other fields (`derivation`, …) are ignored: in
//! particular `derivation` is written from the labels, so the judge never reads it. Every error names the file, the line and the field.

#[cfg(not(target_arch = "wasm32"))]
use crate::corpus::read_text;
pub use crate::corpus::IngestError;
use crate::corpus::{check_unique, kind, parse_object};
use crate::scope::Scope;
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// One evaluation query.
#[derive(Clone, Debug, PartialEq)]
pub struct EvalQuery {
    /// Query id.
    pub id: String,
    /// Slice name (mcq, keyword, …).
    pub slice: String,
    /// Language of the query, when given.
    pub lang: Option<String>,
    /// The query text.
    pub query: String,
    /// The scope (the hard gate).
    pub scope: Scope,
    /// Names of the fields the scope constrains, as written in the file.
    pub scope_fields: Vec<String>,
    /// Relevant chunk id → grade (2 = the specific target, 1 = same section or chapter).
    pub grades: BTreeMap<String, f64>,
    /// Section keys of the relevant material.
    pub relevant_sections: Vec<String>,
    /// Field → value (as Python's `str()` renders it) that an exact-scope hit must carry.
    pub expected_fields: Vec<(String, String)>,
    /// What leakage would come from (kept as given).
    pub confusable: Option<Value>,
    /// Id of the item the query was built from (`derived_from`), when given.
    pub derived_from: Option<String>,
    /// Free-text notes on the query (`notes`, else `description`) the judge reads too.
    pub notes: Option<String>,
    /// 1-based line in the file.
    pub line: usize,
}

impl EvalQuery {
    /// The expected value of `field`, if the query names one.
    pub fn expected(&self, field: &str) -> Option<&str> {
        self.expected_fields
            .iter()
            .find(|(f, _)| f == field)
            .map(|(_, v)| v.as_str())
    }

    /// Whether the scope or the expected fields name `field`.
    pub fn names(&self, field: &str) -> bool {
        self.scope_fields.iter().any(|f| f == field) || self.expected(field).is_some()
    }
}

/// Renders a JSON scalar the way Python's `str()` renders the parsed value: strings as they are,
/// integers in decimal, `true`/`false` as `True`/`False`, `null` as `None`, and floats with a
/// `.0` when integral (`4.0` → `"4.0"`). Arrays and objects are refused by the loader.
pub fn py_str(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Bool(true) => "True".into(),
        Value::Bool(false) => "False".into(),
        Value::Null => "None".into(),
        Value::Number(n) => {
            if n.is_i64() || n.is_u64() {
                n.to_string()
            } else {
                let f = n.as_f64().unwrap_or(f64::NAN);
                if f.is_finite() && f.fract() == 0.0 && f.abs() < 1e16 {
                    format!("{f:.1}")
                } else {
                    format!("{f}")
                }
            }
        }
        other => other.to_string(),
    }
}

/// Parses one line. Blank lines yield `Ok(None)`.
pub fn parse_query_line(
    file: &str,
    line_no: usize,
    line: &str,
) -> Result<Option<EvalQuery>, IngestError> {
    let Some(obj) = parse_object(file, line_no, line)? else {
        return Ok(None);
    };
    let obj = &obj;
    let err = |field: &str, message: String| IngestError::field(file, line_no, field, message);
    let string = |name: &str, required: bool| -> Result<Option<String>, IngestError> {
        match obj.get(name) {
            None | Some(Value::Null) if required => Err(err(name, "missing (required)".into())),
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) if required && s.trim().is_empty() => {
                Err(err(name, "must not be empty".into()))
            }
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(other) => Err(err(
                name,
                format!("expected a string, found {}", kind(other)),
            )),
        }
    };
    let id = string("id", true)?.unwrap_or_default();
    let slice = string("slice", true)?.unwrap_or_default();
    let query = string("query", true)?.unwrap_or_default();
    let lang = string("lang", false)?;
    // Optional and informative only: a value that is not a string is ignored, not an error.
    let text_of = |name: &str| {
        obj.get(name)
            .and_then(Value::as_str)
            .filter(|s| !s.trim().is_empty())
            .map(str::to_string)
    };
    let derived_from = text_of("derived_from");
    let notes = text_of("notes").or_else(|| text_of("description"));

    let scope_value = obj
        .get("scope")
        .ok_or_else(|| err("scope", "missing (required)".into()))?;
    let scope_obj = object(scope_value).map_err(|m| err("scope", m))?;
    let scope = Scope::from_json(scope_value).map_err(|e| err("scope", e.to_string()))?;
    let scope_fields: Vec<String> = scope_obj
        .iter()
        .filter(|(_, v)| !v.is_null() && v.as_str() != Some(""))
        .map(|(k, _)| k.clone())
        .collect();

    let mut grades = BTreeMap::new();
    match obj.get("relevant_grades") {
        Some(Value::Null) | None => match obj.get("relevant_ids") {
            Some(Value::Array(ids)) => {
                for (i, x) in ids.iter().enumerate() {
                    let s = x.as_str().ok_or_else(|| {
                        err(
                            "relevant_ids",
                            format!("item {i}: expected a string, found {}", kind(x)),
                        )
                    })?;
                    grades.insert(s.to_string(), 1.0);
                }
            }
            None | Some(Value::Null) => {
                return Err(err(
                    "relevant_grades",
                    "missing (required, or give relevant_ids)".into(),
                ))
            }
            Some(other) => {
                return Err(err(
                    "relevant_ids",
                    format!("expected an array of chunk ids, found {}", kind(other)),
                ))
            }
        },
        Some(v) => {
            let m = object(v).map_err(|m| err("relevant_grades", m))?;
            for (k, g) in m {
                let g = g
                    .as_f64()
                    .filter(|g| g.is_finite() && *g >= 0.0)
                    .ok_or_else(|| {
                        err(
                            "relevant_grades",
                            format!("{k:?}: expected a grade (a number ≥ 0), found {g}"),
                        )
                    })?;
                grades.insert(k.clone(), g);
            }
        }
    }

    let relevant_sections = match obj.get("relevant_sections") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(a)) => a
            .iter()
            .enumerate()
            .map(|(i, x)| {
                x.as_str().map(str::to_string).ok_or_else(|| {
                    err(
                        "relevant_sections",
                        format!("item {i}: expected a string, found {}", kind(x)),
                    )
                })
            })
            .collect::<Result<_, _>>()?,
        Some(other) => {
            return Err(err(
                "relevant_sections",
                format!("expected an array of section keys, found {}", kind(other)),
            ))
        }
    };

    let expected_fields = match obj.get("expected_fields") {
        None | Some(Value::Null) => Vec::new(),
        Some(v) => {
            let m = object(v).map_err(|m| err("expected_fields", m))?;
            let mut out = Vec::with_capacity(m.len());
            for (k, x) in m {
                if x.is_array() || x.is_object() {
                    return Err(err(
                        "expected_fields",
                        format!("{k:?}: expected a scalar value, found {}", kind(x)),
                    ));
                }
                out.push((k.clone(), py_str(x)));
            }
            out
        }
    };

    Ok(Some(EvalQuery {
        id,
        slice,
        lang,
        query,
        scope,
        scope_fields,
        grades,
        relevant_sections,
        expected_fields,
        confusable: obj.get("confusable").filter(|v| !v.is_null()).cloned(),
        derived_from,
        notes,
        line: line_no,
    }))
}

/// Parses a whole JSONL text; ids must be unique and at least one query must be present.
pub fn parse_queries(file: &str, text: &str) -> Result<Vec<EvalQuery>, IngestError> {
    let mut out: Vec<EvalQuery> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if let Some(q) = parse_query_line(file, i + 1, line)? {
            out.push(q);
        }
    }
    check_unique(
        "query id",
        out.iter().map(|q| (q.id.as_str(), file, q.line)),
    )?;
    if out.is_empty() {
        return Err(IngestError::Empty {
            file: file.into(),
            what: "query",
        });
    }
    Ok(out)
}

/// Reads a query file (native only).
#[cfg(not(target_arch = "wasm32"))]
pub fn read_queries(path: &std::path::Path) -> Result<Vec<EvalQuery>, IngestError> {
    let (name, text) = read_text(path)?;
    parse_queries(&name, &text)
}

fn object(v: &Value) -> Result<&Map<String, Value>, String> {
    v.as_object()
        .ok_or_else(|| format!("expected an object, found {}", kind(v)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::Field;
    use serde_json::json;

    const LINE: &str = r#"{"id": "q1", "slice": "mcq", "lang": "en", "query": "what is work", "scope": {"subject": "physics", "level": "college", "chapter": 4}, "relevant_ids": ["a", "b"], "relevant_grades": {"a": 2, "b": 1}, "relevant_sections": ["cp2e:4.1"], "expected_fields": {"chapter": 4, "doc_type": "glossary"}, "confusable": {"level": "high_school"}, "derived_from": "x"}"#;

    #[test]
    fn parses_a_full_line() {
        let q = parse_query_line("q.jsonl", 3, LINE).unwrap().unwrap();
        assert_eq!(q.id, "q1");
        assert_eq!(q.scope.get(Field::Chapter), Some("4"));
        assert_eq!(q.grades.get("a"), Some(&2.0));
        assert_eq!(q.expected("chapter"), Some("4"));
        assert!(q.names("chapter") && q.names("doc_type") && !q.names("section"));
        assert_eq!(q.line, 3);
        assert!(q.confusable.is_some());
        assert_eq!(q.derived_from.as_deref(), Some("x"));
        assert_eq!(q.notes, None);
        let with_notes = LINE.replace(
            r#""derived_from": "x"}"#,
            r#""derived_from": 3, "description": "d", "notes": "Paper 2, 2019"}"#,
        );
        let q = parse_query_line("q.jsonl", 1, &with_notes)
            .unwrap()
            .unwrap();
        assert_eq!(
            (q.derived_from, q.notes.as_deref()),
            (None, Some("Paper 2, 2019"))
        );
    }

    #[test]
    fn falls_back_to_relevant_ids() {
        let q = parse_query_line(
            "q.jsonl",
            1,
            r#"{"id":"q","slice":"s","query":"x","scope":{},"relevant_ids":["a"]}"#,
        )
        .unwrap()
        .unwrap();
        assert_eq!(q.grades.get("a"), Some(&1.0));
    }

    #[test]
    fn errors_name_file_line_and_field() {
        let bad = LINE.replace(r#""query": "what is work""#, r#""query": 5"#);
        let e = parse_query_line("q.jsonl", 7, &bad)
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "q.jsonl:7: field `query`: expected a string, found a number"
        );
        let bad = LINE.replace(
            r#""chapter": 4}, "relevant"#,
            r#""colour": "red"}, "relevant"#,
        );
        let e = parse_query_line("q.jsonl", 2, &bad)
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("q.jsonl:2: field `scope`: unknown scope field"),
            "{e}"
        );
        let bad = LINE.replace(r#""b": 1}"#, r#""b": "high"}"#);
        let e = parse_query_line("q.jsonl", 2, &bad)
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("q.jsonl:2: field `relevant_grades`"), "{e}");
        let e = parse_query_line("q.jsonl", 9, "[1]")
            .unwrap_err()
            .to_string();
        assert_eq!(e, "q.jsonl:9: not a JSON object: expected an object");
        let e = parse_queries("q.jsonl", &format!("{LINE}\n\n{LINE}\n"))
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "duplicate query id \"q1\" at q.jsonl:3 (first at q.jsonl:1)"
        );
        assert!(matches!(
            parse_queries("q.jsonl", "\n"),
            Err(IngestError::Empty { .. })
        ));
    }

    #[test]
    fn python_str_of_scalars() {
        assert_eq!(py_str(&json!(4)), "4");
        assert_eq!(py_str(&json!("4")), "4");
        assert_eq!(py_str(&json!(4.0)), "4.0");
        assert_eq!(py_str(&json!(2.5)), "2.5");
        assert_eq!(py_str(&json!(true)), "True");
        assert_eq!(py_str(&json!(null)), "None");
    }
}
