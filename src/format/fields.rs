//! Reading the shard folder's JSON files (`manifest.json`, part lists) field by field from a
//! [`serde_json::Value`], instead of with derived deserializers.
//!
//! The browser's module parses JSON values anyway (scopes, options); a derived reader per struct
//! adds a state machine per struct and per optional field to it. Measured on the browser module
//! (brotli 11): the part list's derived reader cost about 16 kB before its own hand reader, the
//! manifest's about 6 kB before this one (`docs/performance.md`, sessions 11 and 16). As the
//! derived readers did, a reader ignores fields it does not know and reads a missing or `null`
//! optional field as absent; unlike them, an error names the field's whole path
//! (`shards[2].part_list.sha256`).

use super::json::quote;
use super::{FormatError, PartEntry, FORMAT_VERSION};
use serde_json::Value;

/// One JSON object of a file, with its path in the file (for errors) and the error its file's
/// kind wraps a message in ([`FormatError::Manifest`], [`FormatError::PartList`]).
#[derive(Clone, Copy)]
pub(super) struct Fields<'a> {
    obj: &'a serde_json::Map<String, Value>,
    path: &'a str,
    bad: fn(String) -> FormatError,
}

/// A field's path below `path` (`shards[2]` + `file` → `shards[2].file`).
fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

/// Parses a file's JSON text, a syntax error wrapped by `bad`.
pub(super) fn parse(text: &str, bad: fn(String) -> FormatError) -> Result<Value, FormatError> {
    super::json::parse(text).map_err(|e| bad(e.to_string()))
}

impl<'a> Fields<'a> {
    /// The file's top-level object.
    pub fn root(v: &'a Value, bad: fn(String) -> FormatError) -> Result<Self, FormatError> {
        match v.as_object() {
            Some(obj) => Ok(Fields { obj, path: "", bad }),
            None => Err(bad("not a JSON object".to_string())),
        }
    }

    /// `obj`, found at `path` below this object, with this file's error.
    fn child<'b>(&self, obj: &'b serde_json::Map<String, Value>, path: &'b str) -> Fields<'b> {
        Fields {
            obj,
            path,
            bad: self.bad,
        }
    }

    /// Checks the file's `format` (it must be `format`) and `format_version` (this build's
    /// [`FORMAT_VERSION`]); the format's name.
    pub fn header(&self, format: &str) -> Result<String, FormatError> {
        let found = self.string("format")?;
        if found != format {
            return Err((self.bad)(format!(
                "format is {}, expected {}",
                quote(&found),
                quote(format)
            )));
        }
        let version = self.u64("format_version")?;
        if version != u64::from(FORMAT_VERSION) {
            return Err((self.bad)(format!(
                "written by format v{version}, this reader reads v{FORMAT_VERSION}: rebuild with `chsr build`"
            )));
        }
        Ok(found)
    }

    /// A file this object names: its plain file name (`file`), `sha256` and size (`bytes`).
    pub fn entry(&self) -> Result<PartEntry, FormatError> {
        Ok(PartEntry {
            file: self.file("file")?,
            sha256: self.string("sha256")?,
            bytes: self.u64("bytes")?,
        })
    }

    fn error(&self, key: &str, what: &str) -> FormatError {
        (self.bad)(format!("field `{}` {what}", join(self.path, key)))
    }

    /// The field's value, unless it is missing or `null`.
    fn get(&self, key: &str) -> Option<&'a Value> {
        self.obj.get(key).filter(|v| !v.is_null())
    }

    /// A required field holding `hex` lower-case hex digits (a digest).
    pub fn hex(&self, key: &str, hex: usize) -> Result<String, FormatError> {
        let s = self.string(key)?;
        if s.len() != hex
            || !s
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
        {
            return Err(self.error(
                key,
                &format!("must be {hex} lower-case hex digits, not {}", quote(&s)),
            ));
        }
        Ok(s)
    }

    /// A required string field.
    pub fn string(&self, key: &str) -> Result<String, FormatError> {
        match self.get(key) {
            Some(Value::String(s)) => Ok(s.clone()),
            Some(_) => Err(self.error(key, "must be a string")),
            None => Err(self.error(key, "is missing")),
        }
    }

    /// A required non-negative integer field.
    pub fn u64(&self, key: &str) -> Result<u64, FormatError> {
        match self.get(key) {
            Some(v) => v
                .as_u64()
                .ok_or_else(|| self.error(key, "must be a non-negative integer")),
            None => Err(self.error(key, "is missing")),
        }
    }

    /// A required integer field of at most `u32::MAX`.
    pub fn u32(&self, key: &str) -> Result<u32, FormatError> {
        u32::try_from(self.u64(key)?).map_err(|_| self.error(key, "is out of range"))
    }

    /// A required string field holding a plain file name (no path, not hidden): what a reader
    /// fetches next to the file that names it.
    pub fn file(&self, key: &str) -> Result<String, FormatError> {
        let file = self.string(key)?;
        if file.is_empty() || file.contains('/') || file.contains('\\') || file.starts_with('.') {
            return Err(self.error(
                key,
                &format!("({}) must be a plain file name", quote(&file)),
            ));
        }
        Ok(file)
    }

    /// An optional object field, read by `read` (with its path for errors).
    pub fn optional<T>(
        &self,
        key: &str,
        read: impl FnOnce(Fields<'_>) -> Result<T, FormatError>,
    ) -> Result<Option<T>, FormatError> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::Object(obj)) => {
                let path = join(self.path, key);
                read(self.child(obj, &path)).map(Some)
            }
            Some(_) => Err(self.error(key, "must be an object")),
        }
    }

    /// A required object field of the file's top-level object (`key` is then its whole path).
    pub fn top_object(&self, key: &'static str) -> Result<Fields<'a>, FormatError> {
        debug_assert!(self.path.is_empty(), "a field of the top-level object");
        Ok(self.child(self.required_object(key)?, key))
    }

    /// A required object field's own fields.
    fn required_object(
        &self,
        key: &str,
    ) -> Result<&'a serde_json::Map<String, Value>, FormatError> {
        match self.get(key) {
            Some(Value::Object(obj)) => Ok(obj),
            Some(_) => Err(self.error(key, "must be an object")),
            None => Err(self.error(key, "is missing")),
        }
    }

    /// A required array field's items (a column of a file's parts, read by [`Self::integer_at`]
    /// and [`Self::string_at`]), which must be `len` if given.
    pub fn items(&self, key: &str, len: Option<usize>) -> Result<&'a [Value], FormatError> {
        let items = match self.get(key) {
            Some(Value::Array(items)) => items,
            Some(_) => return Err(self.error(key, "must be an array")),
            None => return Err(self.error(key, "is missing")),
        };
        match len {
            Some(n) if n != items.len() => {
                let what = format!("has {} items, not {n} as its neighbours", items.len());
                Err(self.error(key, &what))
            }
            _ => Ok(items),
        }
    }

    /// Item `i` of `items`, the array field `key`: an integer of at most `max`.
    pub fn integer_at(
        &self,
        key: &str,
        items: &[Value],
        i: usize,
        max: u64,
    ) -> Result<u64, FormatError> {
        match items[i].as_u64() {
            Some(n) if n <= max => Ok(n),
            Some(_) => Err(self.error(&format!("{key}[{i}]"), "is out of range")),
            None => Err(self.error(&format!("{key}[{i}]"), "must be a non-negative integer")),
        }
    }

    /// Item `i` of `items`, the array field `key`: a string.
    pub fn string_at(&self, key: &str, items: &[Value], i: usize) -> Result<String, FormatError> {
        match &items[i] {
            Value::String(s) => Ok(s.clone()),
            _ => Err(self.error(&format!("{key}[{i}]"), "must be a string")),
        }
    }

    /// A required array field of objects, each read by `read` (with its path for errors).
    pub fn objects<T>(
        &self,
        key: &str,
        mut read: impl FnMut(Fields<'_>) -> Result<T, FormatError>,
    ) -> Result<Vec<T>, FormatError> {
        let items = self.items(key, None)?;
        let mut out = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            let path = format!("{}[{i}]", join(self.path, key));
            match item.as_object() {
                Some(obj) => out.push(read(self.child(obj, &path))?),
                None => return Err((self.bad)(format!("field `{path}` must be an object"))),
            }
        }
        Ok(out)
    }

    /// A required object field whose values are objects (each read by `read`), by key.
    pub fn map<T>(
        &self,
        key: &str,
        mut read: impl FnMut(Fields<'_>) -> Result<T, FormatError>,
    ) -> Result<Vec<(String, T)>, FormatError> {
        let obj = self.required_object(key)?;
        let mut out = Vec::with_capacity(obj.len());
        for (k, v) in obj {
            let path = format!("{}.{k}", join(self.path, key));
            match v.as_object() {
                Some(inner) => out.push((k.clone(), read(self.child(inner, &path))?)),
                None => return Err((self.bad)(format!("field `{path}` must be an object"))),
            }
        }
        Ok(out)
    }

    /// Every field of this object as a non-negative integer (facet counts), by key.
    pub fn counts(&self) -> Result<Vec<(String, u64)>, FormatError> {
        self.obj
            .keys()
            .map(|k| Ok((k.clone(), self.u64(k)?)))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Result<Vec<(String, u64)>, FormatError> {
        let v: Value = serde_json::from_str(text).unwrap();
        let root = Fields::root(&v, FormatError::Manifest)?;
        let name = root.string("name")?;
        let mut out = vec![(name, root.u64("n")?)];
        out.extend(root.objects("items", |f| {
            Ok((f.file("file")?, u64::from(f.u32("bytes")?)))
        })?);
        if let Some(x) = root.optional("extra", |f| f.u64("n"))? {
            out.push(("extra".into(), x));
        }
        Ok(out)
    }

    #[test]
    fn fields_are_read_and_unknown_or_null_optional_fields_ignored() {
        let got = read(
            r#"{"name":"a","n":3,"other":[1],"extra":null,"items":[{"file":"x.bin","bytes":7}]}"#,
        )
        .unwrap();
        assert_eq!(got, vec![("a".into(), 3), ("x.bin".into(), 7)]);
        let got = read(r#"{"name":"a","n":3,"items":[],"extra":{"n":9}}"#).unwrap();
        assert_eq!(got, vec![("a".into(), 3), ("extra".into(), 9)]);
    }

    #[test]
    fn an_error_names_the_fields_whole_path() {
        let err = |t: &str| read(t).unwrap_err().to_string();
        assert!(err(r#"{"n":3,"items":[]}"#).contains("field `name` is missing"));
        assert!(err(r#"{"name":1,"n":3,"items":[]}"#).contains("field `name` must be a string"));
        assert!(err(r#"{"name":"a","n":-1,"items":[]}"#)
            .contains("field `n` must be a non-negative integer"));
        let e = err(r#"{"name":"a","n":1,"items":[{"file":"ok"},{"file":"../x","bytes":1}]}"#);
        assert!(e.contains("field `items[0].bytes` is missing"), "{e}");
        let e = err(r#"{"name":"a","n":1,"items":[{"file":"../x","bytes":1}]}"#);
        assert!(
            e.contains("`items[0].file` (\"../x\") must be a plain file name"),
            "{e}"
        );
        let e = err(r#"{"name":"a","n":1,"items":[{"file":"x","bytes":5000000000}]}"#);
        assert!(e.contains("`items[0].bytes` is out of range"), "{e}");
        let e = err(r#"{"name":"a","n":1,"items":[],"extra":{"n":"x"}}"#);
        assert!(
            e.contains("`extra.n` must be a non-negative integer"),
            "{e}"
        );
        assert!(err("[1]").contains("not a JSON object"));
    }
}
