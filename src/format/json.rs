//! A JSON text parser into [`serde_json::Value`] (RFC 8259), for the shard folder's JSON files
//! (`manifest.json`, part lists) and the JS API's arguments (scopes, options).
//!
//! `serde_json::from_str` reaches a `Value` through serde's generic deserializer (a visitor per
//! value kind, its own float parser and power-of-ten tables, an error type that can carry an
//! `std::io::Error` and so every I/O error's message). This parser builds the `Value` directly,
//! which keeps the browser's module smaller (every student downloads it before a first result;
//! `docs/performance.md`, session 26). It accepts exactly the JSON texts `serde_json` accepts,
//! builds the same values (checked against `serde_json` in the tests below), and its errors
//! read as `serde_json`'s do: what was wrong, then `at line L column C`.
//!
//! Numbers: an integer is kept exactly as `u64` (or `i64` when negative) when it fits, as
//! `serde_json` does; any other number is an `f64` rounded correctly (natively by
//! `str::parse`, in the browser by JavaScript's `parseFloat`, which the module already has at
//! hand instead of carrying a second float parser), and a number too large for an `f64` is an
//! error.

use serde_json::{Map, Number, Value};
use std::fmt;

/// Nesting deeper than this is an error, not a stack overflow (`serde_json`'s limit too).
const MAX_DEPTH: usize = 128;

/// Why a text is not JSON, and where (1-based line and column, in bytes, as `serde_json`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsonError {
    /// What was wrong (`expected value`, `trailing characters`, …).
    pub message: &'static str,
    /// The line of the offending byte (1-based).
    pub line: usize,
    /// Its column (1-based, counted in bytes).
    pub column: usize,
}

impl fmt::Display for JsonError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} at line {} column {}",
            self.message, self.line, self.column
        )
    }
}

impl std::error::Error for JsonError {}

/// Parses one JSON value, with nothing but whitespace around it.
pub fn parse(text: &str) -> Result<Value, JsonError> {
    let mut p = Parser {
        s: text.as_bytes(),
        i: 0,
        depth: 0,
    };
    let v = p.value()?;
    p.skip_ws();
    if p.i < p.s.len() {
        return Err(p.error("trailing characters"));
    }
    Ok(v)
}

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
    depth: usize,
}

impl Parser<'_> {
    /// An error at the current byte (at the last byte when the text has ended).
    fn error(&self, message: &'static str) -> JsonError {
        let at = self.i.min(self.s.len());
        let before = &self.s[..at];
        let line = 1 + before.iter().filter(|&&b| b == b'\n').count();
        let start = before
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |p| p + 1);
        // serde_json points at the last byte read: the column of the offending byte itself, or
        // of the last one when the text ended.
        let column = if at < self.s.len() {
            at - start + 1
        } else {
            at - start
        };
        JsonError {
            message,
            line,
            column,
        }
    }

    fn skip_ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.s.get(self.i) {
            self.i += 1;
        }
    }

    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }

    fn value(&mut self) -> Result<Value, JsonError> {
        self.skip_ws();
        match self.peek() {
            None => Err(self.error("EOF while parsing a value")),
            Some(b'{') => self.nested(Self::object),
            Some(b'[') => self.nested(Self::array),
            Some(b'"') => Ok(Value::String(self.string()?)),
            Some(b't') => self.literal(b"true", Value::Bool(true)),
            Some(b'f') => self.literal(b"false", Value::Bool(false)),
            Some(b'n') => self.literal(b"null", Value::Null),
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(_) => Err(self.error("expected value")),
        }
    }

    fn nested(&mut self, f: fn(&mut Self) -> Result<Value, JsonError>) -> Result<Value, JsonError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            // At the last byte taken in, as serde_json.
            self.i -= 1;
            return Err(self.error("recursion limit exceeded"));
        }
        self.i += 1;
        let v = f(self);
        self.depth -= 1;
        v
    }

    fn literal(&mut self, word: &[u8], v: Value) -> Result<Value, JsonError> {
        for &w in word {
            match self.peek() {
                Some(b) if b == w => self.i += 1,
                None => return Err(self.error("EOF while parsing a value")),
                Some(_) => return Err(self.error("expected ident")),
            }
        }
        Ok(v)
    }

    /// After `[`.
    fn array(&mut self) -> Result<Value, JsonError> {
        let mut items = Vec::new();
        self.skip_ws();
        match self.peek() {
            Some(b']') => {
                self.i += 1;
                return Ok(Value::Array(items));
            }
            None => return Err(self.error("EOF while parsing a list")),
            Some(_) => {}
        }
        loop {
            items.push(self.value()?);
            if !self.separator(b']', "EOF while parsing a list", "expected `,` or `]`")? {
                return Ok(Value::Array(items));
            }
            self.skip_ws();
            if self.peek() == Some(b']') {
                return Err(self.error("trailing comma"));
            }
        }
    }

    /// After `{`. A key given twice keeps its last value (as `serde_json`).
    fn object(&mut self) -> Result<Value, JsonError> {
        let mut map = Map::new();
        self.skip_ws();
        if self.peek() == Some(b'}') {
            self.i += 1;
            return Ok(Value::Object(map));
        }
        loop {
            self.skip_ws();
            match self.peek() {
                Some(b'"') => {}
                None => return Err(self.error("EOF while parsing an object")),
                Some(b'}') => return Err(self.error("trailing comma")),
                Some(_) => return Err(self.error("key must be a string")),
            }
            let key = self.string()?;
            self.skip_ws();
            match self.peek() {
                Some(b':') => self.i += 1,
                None => return Err(self.error("EOF while parsing an object")),
                Some(_) => return Err(self.error("expected `:`")),
            }
            let v = self.value()?;
            map.insert(key, v);
            if !self.separator(b'}', "EOF while parsing an object", "expected `,` or `}`")? {
                return Ok(Value::Object(map));
            }
        }
    }

    /// After a list's or an object's item: a `,` (true: another item follows) or the closing
    /// `close` (false), taken in; anything else is an error (`eof` when the text ends).
    fn separator(
        &mut self,
        close: u8,
        eof: &'static str,
        expected: &'static str,
    ) -> Result<bool, JsonError> {
        self.skip_ws();
        match self.peek() {
            Some(b',') => {
                self.i += 1;
                Ok(true)
            }
            Some(b) if b == close => {
                self.i += 1;
                Ok(false)
            }
            None => Err(self.error(eof)),
            Some(_) => Err(self.error(expected)),
        }
    }

    /// At `"`: the string's value.
    fn string(&mut self) -> Result<String, JsonError> {
        self.i += 1;
        let mut out = Vec::new();
        loop {
            // The run of bytes that need no attention, copied at once (the input is UTF-8).
            let start = self.i;
            while let Some(&b) = self.s.get(self.i) {
                if b == b'"' || b == b'\\' || b < 0x20 {
                    break;
                }
                self.i += 1;
            }
            out.extend_from_slice(&self.s[start..self.i]);
            match self.peek() {
                None => return Err(self.error("EOF while parsing a string")),
                Some(b'"') => {
                    self.i += 1;
                    // Only whole UTF-8 sequences of the input and encoded chars were added.
                    return Ok(String::from_utf8(out).expect("JSON strings stay UTF-8"));
                }
                Some(b'\\') => {
                    self.i += 1;
                    let c = match self.peek() {
                        None => return Err(self.error("EOF while parsing a string")),
                        Some(b'"') => '"',
                        Some(b'\\') => '\\',
                        Some(b'/') => '/',
                        Some(b'b') => '\u{8}',
                        Some(b'f') => '\u{c}',
                        Some(b'n') => '\n',
                        Some(b'r') => '\r',
                        Some(b't') => '\t',
                        Some(b'u') => self.unicode_escape()?,
                        Some(_) => return Err(self.error("invalid escape")),
                    };
                    self.i += 1;
                    let mut buf = [0; 4];
                    out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
                }
                Some(_) => {
                    return Err(self
                        .error("control character (\\u0000-\\u001F) found while parsing a string"))
                }
            }
        }
    }

    /// At the `u` of `\uXXXX`: the char, with a surrogate pair's second half read too. Leaves
    /// `i` on the escape's last hex digit.
    fn unicode_escape(&mut self) -> Result<char, JsonError> {
        let hi = self.hex4()?;
        let code = match hi {
            0xD800..=0xDBFF => {
                // A leading surrogate: `\u` and a trailing one must follow.
                for want in [b'\\', b'u'] {
                    self.i += 1;
                    match self.peek() {
                        None => return Err(self.error("EOF while parsing a string")),
                        Some(b) if b != want => {
                            return Err(self.error("unexpected end of hex escape"))
                        }
                        Some(_) => {}
                    }
                }
                let lo = self.hex4()?;
                if !(0xDC00..=0xDFFF).contains(&lo) {
                    return Err(self.error("lone leading surrogate in hex escape"));
                }
                0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00)
            }
            0xDC00..=0xDFFF => return Err(self.error("lone leading surrogate in hex escape")),
            c => c,
        };
        Ok(char::from_u32(code).expect("a scalar value"))
    }

    /// At a `u`: the four hex digits after it, leaving `i` on the last one.
    fn hex4(&mut self) -> Result<u32, JsonError> {
        if self.i + 4 >= self.s.len() {
            self.i = self.s.len();
            return Err(self.error("EOF while parsing a string"));
        }
        let digits = &self.s[self.i + 1..self.i + 5];
        self.i += 4;
        let mut n = 0;
        for &b in digits {
            n = n * 16
                + (b as char)
                    .to_digit(16)
                    .ok_or_else(|| self.error("invalid escape"))?;
        }
        Ok(n)
    }

    fn digits(&mut self) -> usize {
        let start = self.i;
        while let Some(b'0'..=b'9') = self.peek() {
            self.i += 1;
        }
        self.i - start
    }

    fn number(&mut self) -> Result<Value, JsonError> {
        let start = self.i;
        let negative = self.peek() == Some(b'-');
        if negative {
            self.i += 1;
        }
        let int_start = self.i;
        match self.peek() {
            Some(b'0') => {
                self.i += 1;
                if let Some(b'0'..=b'9') = self.peek() {
                    return Err(self.error("invalid number"));
                }
            }
            Some(b'1'..=b'9') => {
                self.digits();
            }
            None => return Err(self.error("EOF while parsing a value")),
            Some(_) => return Err(self.error("invalid number")),
        }
        let int_end = self.i;
        let mut integer = true;
        if self.peek() == Some(b'.') {
            integer = false;
            self.i += 1;
            if self.digits() == 0 {
                return Err(self.number_error());
            }
        }
        if let Some(b'e' | b'E') = self.peek() {
            integer = false;
            self.i += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.i += 1;
            }
            if self.digits() == 0 {
                return Err(self.number_error());
            }
        }
        if integer {
            let digits = &self.s[int_start..int_end];
            let mut n: u64 = 0;
            let fits = digits.iter().try_for_each(|&d| {
                n = n.checked_mul(10)?.checked_add(u64::from(d - b'0'))?;
                Some(())
            });
            if fits.is_some() {
                if !negative {
                    return Ok(Value::from(n));
                }
                // -0 is a float, as in serde_json.
                if n != 0 && n <= 1 << 63 {
                    return Ok(Value::from((n as i64).wrapping_neg()));
                }
            }
        }
        let text = std::str::from_utf8(&self.s[start..self.i]).expect("ASCII digits");
        let x = parse_float(text);
        Number::from_f64(x).map(Value::Number).ok_or_else(|| {
            // Rewind to the number's start, where serde_json points too.
            JsonError {
                message: "number out of range",
                ..self.error("")
            }
        })
    }

    /// A number without digits where they must be: at the byte that should have been one.
    fn number_error(&self) -> JsonError {
        match self.peek() {
            None => self.error("EOF while parsing a value"),
            Some(_) => self.error("invalid number"),
        }
    }
}

/// A JSON number's text as the nearest `f64` (the grammar was checked by the caller).
#[cfg(not(target_arch = "wasm32"))]
fn parse_float(text: &str) -> f64 {
    text.parse().expect("a JSON number is a Rust float literal")
}

/// A JSON number's text as the nearest `f64`, by JavaScript's `parseFloat` (correctly rounded,
/// and already in the browser: Rust's own float parser would add its tables to the module).
#[cfg(target_arch = "wasm32")]
fn parse_float(text: &str) -> f64 {
    js_sys::parse_float(text)
}

/// A string as a JSON string literal (`"…"`, quotes, backslashes and control characters escaped),
/// for error messages: for ordinary text what `{:?}` writes, without bringing Rust's `Debug`
/// escaping and its Unicode tables into the browser's module (the JSON writer is there anyway).
pub fn quote(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_default()
}

/// Numbers as `[1, 2, 3]`, for error messages (what `{:?}` writes for a list of numbers).
pub fn list<T: std::fmt::Display>(items: impl IntoIterator<Item = T>) -> String {
    let items: Vec<String> = items.into_iter().map(|x| x.to_string()).collect();
    format!("[{}]", items.join(", "))
}

/// A value as compact JSON text, for error messages (`Value`'s own `Display` would add a second,
/// pretty-printing writer to the browser's module).
pub fn to_text(v: &Value) -> String {
    serde_json::to_string(v).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The same value as serde_json, or an error where serde_json has one (the same message and
    /// place: the messages reach users through the manifest's and the options' errors).
    fn same(text: &str) {
        if let Some(d) = differs(text) {
            panic!("{d}");
        }
    }

    fn differs(text: &str) -> Option<String> {
        let ours = parse(text);
        let theirs: Result<Value, _> = serde_json::from_str(text);
        match (&ours, &theirs) {
            (Ok(a), Ok(b)) if a == b => None,
            (Err(a), Err(b)) if a.to_string() == b.to_string() => None,
            (Ok(a), Ok(b)) => Some(format!("{text:?}: ours {a:?}, serde_json {b:?}")),
            (Err(a), Err(b)) => Some(format!("{text:?}: ours {a}, serde_json {b}")),
            _ => Some(format!("{text:?}: ours {ours:?}, serde_json {theirs:?}")),
        }
    }

    fn all_same(texts: &[&str]) {
        let bad: Vec<String> = texts.iter().filter_map(|t| differs(t)).collect();
        assert!(bad.is_empty(), "{}", bad.join("\n"));
    }

    #[test]
    fn values_are_serde_jsons() {
        let texts = [
            "null",
            " true ",
            "false",
            "0",
            "-0",
            "7",
            "-12",
            "18446744073709551615",
            "18446744073709551616",
            "-9223372036854775808",
            "-9223372036854775809",
            "0.1",
            "-2.5e-3",
            "1E10",
            "1e+2",
            "0.30000000000000004",
            "123456789012345678901234567890",
            "4.9406564584124654e-324",
            "1.7976931348623157e308",
            "\"\"",
            "\"plain\"",
            "\"é, 物理, 🙂\"",
            r#""\" \\ \/ \b \f \n \r \t""#,
            r#""\u00e9\u0041\ud83d\ude42\u0000""#,
            "[]",
            "[1, [2, [3]], {}]",
            r#"{"a": 1, "b": [true, null], "c": {"d": "e"}}"#,
            r#"{"k": 1, "k": 2}"#,
            "\n\t\r {\"x\" :\n[ ]\n}\n",
        ];
        all_same(&texts);
    }

    #[test]
    fn errors_are_serde_jsons() {
        let texts = [
            "",
            "   ",
            "nul",
            "nulx",
            "tru",
            "x",
            "01",
            "1.",
            "1.e3",
            "1e",
            "1e+",
            "-",
            "-a",
            "1e400",
            "-1e400",
            "[1,]",
            "[1 2]",
            "[1",
            "[",
            "{",
            "{\"a\"",
            "{\"a\" 1}",
            "{\"a\": 1,}",
            "{\"a\": 1 \"b\": 2}",
            "{1: 2}",
            "\"abc",
            "\"a\\x\"",
            "\"a\\u12\"",
            "\"a\\u12g4\"",
            "\"\\ud83d\"",
            "\"\\ud83d\\u0041\"",
            "\"\\ude42\"",
            "\"tab\there\"",
            "1 2",
            "{} x",
            "[1]\n]",
            "[1,",
            "{\"a\":",
            "{\"a\": }",
            "-01",
            "1.5.",
            "tru e",
            "\"\\u\"",
            "\"\\ud83dx\"",
            "\"\\ud83d\\x\"",
            "\"\\ud83d\\",
            "\"\\ud83d\\ud83d\"",
            "\n\n  [1,\n  2,,]",
        ];
        all_same(&texts);
    }

    /// Error messages quote names and values as they did with `{:?}`: the same text for
    /// anything a manifest, an option or a scope holds (accents, quotes, backslashes, line
    /// breaks, tabs); only characters Rust's `Debug` would escape as `\u{…}` differ.
    #[test]
    fn quote_and_list_write_what_debug_wrote() {
        for s in [
            "",
            "physics",
            "Physique-chimie (1re)",
            "say \"hi\"",
            "a\\b",
            "two\nlines\tand a tab\r",
            "é ü ß Ω → ✓ 🙂",
        ] {
            assert_eq!(quote(s), format!("{s:?}"));
        }
        assert_eq!(list([1u32, 22, 333]), format!("{:?}", [1u32, 22, 333]));
        assert_eq!(list(Vec::<u32>::new()), "[]");
    }

    #[test]
    fn nesting_deeper_than_the_limit_is_an_error_not_a_crash() {
        let deep = "[".repeat(100_000);
        assert_eq!(
            parse(&deep).unwrap_err().message,
            "recursion limit exceeded"
        );
        let ok = format!("{}{}", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
        assert!(parse(&ok).is_ok());
        same(&format!(
            "{}{}",
            "[".repeat(MAX_DEPTH + 1),
            "]".repeat(MAX_DEPTH + 1)
        ));
    }

    #[test]
    fn generated_documents_parse_as_with_serde_json() {
        // Documents of every value kind, nested, written compact and pretty by serde_json
        // (as `chsr build` writes the manifest and the part lists): read back the same.
        let mut seed = 0x9E37_79B9_7F4A_7C15_u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        fn gen(next: &mut dyn FnMut() -> u64, depth: usize) -> Value {
            let strings = [
                "",
                "a",
                "é",
                "物理",
                "🙂",
                "quote \" back \\ slash",
                "\u{1}\u{1f}\n",
            ];
            match next() % if depth > 4 { 6 } else { 8 } {
                0 => Value::Null,
                1 => Value::Bool(next().is_multiple_of(2)),
                2 => Value::from(next() >> (next() % 64)),
                3 => Value::from(-((next() >> 2) as i64 >> (next() % 62))),
                4 => Value::from(
                    f64::from_bits(next() >> 2) * if next().is_multiple_of(2) { 1.0 } else { -1.0 },
                ),
                5 => Value::String(
                    strings[(next() % strings.len() as u64) as usize]
                        .repeat((next() % 3) as usize + 1),
                ),
                6 => Value::Array((0..next() % 5).map(|_| gen(next, depth + 1)).collect()),
                _ => Value::Object(
                    (0..next() % 5)
                        .map(|i| {
                            (
                                format!("k{i}{}", strings[(next() % 7) as usize]),
                                gen(next, depth + 1),
                            )
                        })
                        .collect(),
                ),
            }
        }
        for _ in 0..500 {
            let v = gen(&mut next, 0);
            // `v` itself is the reference: serde_json's own float parser is not always correctly
            // rounded (`-1.4264285722298365e-254` reads one unit in the last place off), this
            // parser is.
            let compact = serde_json::to_string(&v).unwrap();
            assert_eq!(parse(&compact).unwrap(), v, "{compact}");
            let pretty = serde_json::to_string_pretty(&v).unwrap();
            assert_eq!(parse(&pretty).unwrap(), v, "{pretty}");
        }
    }
}
