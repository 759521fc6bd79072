//! The query scope: the curriculum slot a query belongs to, and its validation.
//!
//! A scope is a set of `field = value` constraints ([`Field`]). `subject` and `level` choose the
//! shard(s); every other field filters chunks inside them. Values compare as text after trimming
//! (`chapter: 4` and `chapter: "4"` are the same constraint).
//!
//! A field can be **locked** (`{"chapter": 5, "lock": ["chapter"]}`, `chsr search --lock
//! chapter`): an LMS page that embeds the search for one chapter locks it. The gate enforces a
//! lock in every gating mode, relaxation never drops it, and section expansion and context
//! re-gate every chunk they add against it ([`Scope::locks_only`]).

use crate::format::json::quote;
use crate::format::{Field, Manifest};
use serde::{Deserialize, Serialize};
use std::fmt;

mod fields;
pub use fields::{FieldMap, FieldSet};

/// Errors in a scope given by a caller (the scope concern).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ScopeError {
    /// A field name that chsr does not know.
    UnknownField {
        /// The name given.
        field: String,
        /// The valid names.
        valid: Vec<String>,
    },
    /// A value that no shard of the manifest has, for a field whose values the manifest lists.
    UnknownValue {
        /// The field.
        field: Field,
        /// The value given.
        value: String,
        /// The values the manifest knows for that field.
        valid: Vec<String>,
    },
    /// A value of the wrong JSON type (scopes take strings or integers).
    BadValue {
        /// The field.
        field: String,
        /// What is wrong.
        message: String,
    },
}

impl fmt::Display for ScopeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ScopeError::UnknownField { field, valid } => {
                write!(
                    f,
                    "unknown scope field {}; valid fields: {}",
                    quote(field),
                    valid.join(", ")
                )
            }
            ScopeError::UnknownValue {
                field,
                value,
                valid,
            } => write!(
                f,
                "unknown {field} {}; valid values: {}",
                quote(value),
                valid
                    .iter()
                    .map(|v| quote(v))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            ScopeError::BadValue { field, message } => {
                write!(f, "scope field {}: {message}", quote(field))
            }
        }
    }
}

impl std::error::Error for ScopeError {}

impl ScopeError {
    /// Stable code of the error kind (`scope.unknown_field`, `scope.unknown_value`,
    /// `scope.bad_value`).
    pub fn code(&self) -> &'static str {
        match self {
            ScopeError::UnknownField { .. } => "scope.unknown_field",
            ScopeError::UnknownValue { .. } => "scope.unknown_value",
            ScopeError::BadValue { .. } => "scope.bad_value",
        }
    }

    /// The error's fields as JSON (`field`, `value`, `valid`), for a caller that shows the valid
    /// values.
    pub fn details(&self) -> serde_json::Value {
        match self {
            ScopeError::UnknownField { field, valid } => {
                serde_json::json!({"field": field, "valid": valid})
            }
            ScopeError::UnknownValue {
                field,
                value,
                valid,
            } => serde_json::json!({"field": field.name(), "value": value, "valid": valid}),
            ScopeError::BadValue { field, message } => {
                serde_json::json!({"field": field, "reason": message})
            }
        }
    }
}

/// A query scope: constraints by field, in canonical field order.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Scope {
    /// The constraints.
    pub fields: FieldMap,
    /// Fields that no widening may drop (each has a value in `fields`).
    #[serde(skip)]
    pub locked: FieldSet,
}

impl Scope {
    /// An empty scope (admits everything).
    pub fn new() -> Scope {
        Scope::default()
    }

    /// Adds a constraint (builder style). Empty values are ignored.
    pub fn with(mut self, field: Field, value: impl Into<String>) -> Scope {
        self.set(field, value);
        self
    }

    /// Sets a constraint; an empty or blank value removes it.
    pub fn set(&mut self, field: Field, value: impl Into<String>) {
        let v: String = value.into();
        let v = v.trim();
        if v.is_empty() {
            self.fields.remove(&field);
        } else {
            self.fields.insert(field, v.to_string());
        }
    }

    /// Locks `field` (it must have a value: see [`Scope::validate`]); builder style.
    pub fn lock(mut self, field: Field) -> Scope {
        self.locked.insert(field);
        self
    }

    /// Whether `field` is locked.
    pub fn is_locked(&self, field: Field) -> bool {
        self.locked.contains(&field)
    }

    /// Drops the constraint on `field` unless it is locked; returns whether the scope changed.
    /// Widening goes through here, so that a lock can never be relaxed.
    pub fn relax(&mut self, field: Field) -> bool {
        !self.is_locked(field) && self.fields.remove(&field).is_some()
    }

    /// The locked constraints alone: what every surface re-checks (widened results, expanded
    /// sections, context), whatever else was relaxed.
    pub fn locks_only(&self) -> Scope {
        Scope {
            fields: self
                .fields
                .iter()
                .filter(|(f, _)| self.locked.contains(f))
                .map(|(f, v)| (*f, v.clone()))
                .collect(),
            locked: self.locked,
        }
    }

    /// The constraint on `field`, if any.
    pub fn get(&self, field: Field) -> Option<&str> {
        self.fields.get(&field).map(String::as_str)
    }

    /// Whether the scope has no constraint.
    pub fn is_empty(&self) -> bool {
        self.fields.is_empty()
    }

    /// Whether a chunk with these field values satisfies every constraint.
    pub fn admits(&self, get: impl Fn(Field) -> Option<String>) -> bool {
        self.fields
            .iter()
            .all(|(f, v)| get(*f).as_deref().map(str::trim) == Some(v.as_str()))
    }

    /// Parses a scope from a JSON object (`{"subject": "physics", "chapter": 4}`); `null` and
    /// empty strings are ignored.
    pub fn from_json(value: &serde_json::Value) -> Result<Scope, ScopeError> {
        let mut s = Scope::new();
        let obj = match value {
            serde_json::Value::Null => return Ok(s),
            serde_json::Value::Object(o) => o,
            _ => {
                return Err(ScopeError::BadValue {
                    field: "scope".into(),
                    message: "expected an object of field: value".into(),
                })
            }
        };
        for (k, v) in obj {
            if k == "lock" {
                s.locked = parse_lock(v)?;
                continue;
            }
            let field = Field::parse(k).ok_or_else(|| ScopeError::UnknownField {
                field: k.clone(),
                valid: Field::ALL.iter().map(|f| f.name().to_string()).collect(),
            })?;
            match v {
                serde_json::Value::Null => {}
                serde_json::Value::String(x) => s.set(field, x.clone()),
                serde_json::Value::Number(n) if n.is_i64() || n.is_u64() => {
                    s.set(field, n.to_string())
                }
                other => {
                    return Err(ScopeError::BadValue {
                        field: k.clone(),
                        message: format!(
                            "expected a string or an integer, found {}",
                            crate::format::json::to_text(other)
                        ),
                    })
                }
            }
        }
        s.check_locks()?;
        Ok(s)
    }

    /// Checks that every locked field has a value (a lock on nothing would lock nothing, silently).
    pub fn check_locks(&self) -> Result<(), ScopeError> {
        match self.locked.iter().find(|f| !self.fields.contains_key(f)) {
            Some(f) => Err(ScopeError::BadValue {
                field: "lock".into(),
                message: format!("{f} is locked but the scope gives it no value"),
            }),
            None => Ok(()),
        }
    }

    /// Checks subject, level and facet-listed values against the manifest. A value absent from
    /// every facet the manifest lists (doc type, language, exam, year, paper) is an error naming
    /// the valid values; topical fields (chapter, topic: relaxation may drop them) and fields
    /// without facets (question number, section) are left to the gate.
    pub fn validate(&self, manifest: &Manifest) -> Result<(), ScopeError> {
        self.check_locks()?;
        for (field, value) in &self.fields {
            let valid: Vec<String> = match field {
                Field::Subject => manifest.subjects(),
                Field::Level => {
                    // Levels valid for the requested subject, if one is given.
                    let mut v: Vec<String> = manifest
                        .shards
                        .iter()
                        .filter(|s| self.get(Field::Subject).is_none_or(|sub| sub == s.subject))
                        .map(|s| s.level.clone())
                        .collect();
                    crate::order::sort(&mut v);
                    v.dedup();
                    v
                }
                // Chapter and topic are topical: a value the index lacks admits nothing, and
                // relaxation (W1) may drop it, so they are left to the gate.
                Field::DocType | Field::Lang | Field::Exam | Field::Year | Field::Paper => {
                    let mut v: Vec<String> = manifest
                        .shards
                        .iter()
                        .filter_map(|s| s.facets.get(field.name()))
                        .flat_map(|m| m.keys().cloned())
                        .collect();
                    crate::order::sort(&mut v);
                    v.dedup();
                    v
                }
                _ => continue,
            };
            if !valid.iter().any(|v| v == value) {
                return Err(ScopeError::UnknownValue {
                    field: *field,
                    value: value.clone(),
                    valid,
                });
            }
        }
        Ok(())
    }

    /// The scope as a JSON object (`lock` lists the locked fields, when there are any).
    pub fn to_json(&self) -> serde_json::Value {
        // Inserted one by one: `collect` would sort the (already ordered) fields again.
        let mut m = serde_json::Map::new();
        for (f, v) in &self.fields {
            m.insert(f.name().to_string(), serde_json::Value::String(v.clone()));
        }
        if !self.locked.is_empty() {
            m.insert(
                "lock".into(),
                self.locked
                    .iter()
                    .map(|f| serde_json::Value::from(f.name()))
                    .collect(),
            );
        }
        serde_json::Value::Object(m)
    }
}

/// Reads `lock`: an array of field names, or one comma-separated string (`"chapter,level"`).
fn parse_lock(v: &serde_json::Value) -> Result<FieldSet, ScopeError> {
    let names: Vec<String> = match v {
        serde_json::Value::Null => Vec::new(),
        serde_json::Value::String(s) => s
            .split(',')
            .map(|x| x.trim().to_string())
            .filter(|x| !x.is_empty())
            .collect(),
        serde_json::Value::Array(a) => a
            .iter()
            .map(|x| {
                x.as_str()
                    .map(str::to_string)
                    .ok_or_else(|| ScopeError::BadValue {
                        field: "lock".into(),
                        message: format!(
                            "expected field names, found {}",
                            crate::format::json::to_text(x)
                        ),
                    })
            })
            .collect::<Result<_, _>>()?,
        other => {
            return Err(ScopeError::BadValue {
                field: "lock".into(),
                message: format!(
                    "expected an array of field names, found {}",
                    crate::format::json::to_text(other)
                ),
            })
        }
    };
    let mut out = FieldSet::default();
    for n in &names {
        out.insert(Field::parse(n).ok_or_else(|| ScopeError::UnknownField {
            field: n.clone(),
            valid: Field::ALL.iter().map(|f| f.name().to_string()).collect(),
        })?);
    }
    Ok(out)
}

impl fmt::Display for Scope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.fields.is_empty() {
            return f.write_str("(no scope)");
        }
        let parts: Vec<String> = self
            .fields
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        f.write_str(&parts.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn parses_numbers_and_strings_alike() {
        let a = Scope::from_json(&json!({"subject": "physics", "chapter": 4})).unwrap();
        let b =
            Scope::from_json(&json!({"subject": "physics", "chapter": "4", "year": null})).unwrap();
        assert_eq!(a, b);
        assert_eq!(a.get(Field::Chapter), Some("4"));
    }

    #[test]
    fn unknown_fields_list_the_valid_ones() {
        let e = Scope::from_json(&json!({"colour": "red"}))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("colour") && e.contains("doc_type") && e.contains("question_number"),
            "{e}"
        );
    }
}
