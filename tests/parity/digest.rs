//! The digests: a case's outcome as a canonical string, its golden line, and the comparison
//! with the golden file.

use super::{Case, GOLDEN, GOLDEN_PATH};
use chsr::format::sha256_hex;
use chsr::scope::Scope;
use chsr::search::{Library, SearchOptions};
use serde_json::Value;

/// `s` with the content hashes of data file names (`name.<16 hex>.chsr`, `.chsrm`) replaced by
/// `*`: a shard's bytes are pinned by the build lines, so a format change that leaves results
/// alone leaves the case digests alone.
pub fn unhash(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    while i < b.len() {
        let hex = b.len() >= i + 18
            && b[i] == b'.'
            && b[i + 1..i + 17].iter().all(|c| c.is_ascii_hexdigit())
            && s[i + 17..].starts_with(".chsr");
        if hex {
            out.push_str(".*");
            i += 17;
        } else {
            let c = s[i..].chars().next().unwrap();
            out.push(c);
            i += c.len_utf8();
        }
    }
    out
}

/// A JSON value as a canonical string: object keys sorted, every number written as the bits of
/// its f64 (so a score that differs in its last bit differs here), strings JSON-escaped (with
/// [`unhash`]).
/// `trace.timings` (wall-clock) is left out. Zero is written without its sign (a JS round trip
/// turns -0 into 0).
pub fn canonical(v: &Value, out: &mut String) {
    match v {
        Value::Null => out.push('n'),
        Value::Bool(b) => out.push(if *b { 't' } else { 'f' }),
        Value::Number(n) => {
            let f = n.as_f64().expect("a JSON number is an f64");
            let f = if f == 0.0 { 0.0 } else { f };
            out.push_str(&format!("#{:016x}", f.to_bits()));
        }
        Value::String(s) => out.push_str(&serde_json::to_string(&unhash(s)).unwrap()),
        Value::Array(a) => {
            out.push('[');
            for (i, x) in a.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                canonical(x, out);
            }
            out.push(']');
        }
        Value::Object(m) => {
            out.push('{');
            let mut keys: Vec<&String> = m.keys().filter(|k| *k != "timings").collect();
            keys.sort();
            for (i, k) in keys.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&serde_json::to_string(k).unwrap());
                out.push(':');
                canonical(&m[*k], out);
            }
            out.push('}');
        }
    }
}

/// The canonical text of an outcome: the response (as JSON) and its context, or the error.
pub fn outcome_text(response: Result<(Value, String), String>) -> String {
    match response {
        Ok((resp, context)) => {
            let mut s = String::from("ok ");
            canonical(&resp, &mut s);
            s.push_str(" context ");
            s.push_str(&serde_json::to_string(&context).unwrap());
            s
        }
        Err(e) => format!("error {e}"),
    }
}

/// Runs a case through the library API (`Scope::from_json`, `SearchOptions::from_json`,
/// `Library::search`, `Library::to_context`): the canonical outcome text.
pub fn run_library(lib: &Library, case: &Case) -> String {
    let r = (|| {
        let scope = Scope::from_json(&case.scope).map_err(|e| e.to_string())?;
        let opts = SearchOptions::from_json(&case.options).map_err(|e| e.to_string())?;
        let resp = lib
            .search(&case.query, &scope, &opts)
            .map_err(|e| e.to_string())?;
        let context = lib.to_context(&resp);
        Ok((serde_json::to_value(&resp).unwrap(), context))
    })();
    outcome_text(r)
}

/// The golden line of a case: index, set-up, digest of the outcome, and a short summary (result
/// count or `error`) for readable diffs.
pub fn case_line(i: usize, case: &Case, outcome: &str) -> String {
    let summary = if let Some(rest) = outcome.strip_prefix("error ") {
        format!("error {}", rest.chars().take(40).collect::<String>())
    } else {
        let v: usize = outcome.matches("\"rank\":").count();
        format!("{v} results")
    };
    format!(
        "{i:03} {} {} {}",
        case.setup.name(),
        &sha256_hex(outcome.as_bytes())[..16],
        summary.replace('\n', " ")
    )
}

/// The golden file's lines that are not comments.
pub fn golden_lines() -> Vec<&'static str> {
    GOLDEN
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .collect()
}

/// The header of the golden file.
pub const HEADER: &str = "\
# Native/Wasm parity digests (tests/parity/mod.rs): one line per random case,
# `index set-up digest summary`; the digest is a 64-bit prefix of the SHA-256 of the canonical
# outcome (every field of the response except timings, scores as f64 bits, the context, or the
# error). Checked by `cargo test --test wasm_parity` and by tests/wasm.rs under Node and
# headless Chromium. Rewrite after an intended change: CHSR_BLESS=1 cargo test --test wasm_parity
";

/// Compares computed lines with the golden ones; on a difference, describes the first few
/// (with the case and the beginning of its canonical outcome) in the error.
pub fn compare(
    got: &[String],
    cases: &[Case],
    outcomes: &[String],
    what: &str,
) -> Result<(), String> {
    let want = golden_lines();
    let mut msg = String::new();
    let mut bad = 0;
    if got.len() != want.len() {
        msg.push_str(&format!(
            "{what}: {} lines, golden has {}\n",
            got.len(),
            want.len()
        ));
        bad += 1;
    }
    let manifests = got.len() - cases.len();
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        if g != w {
            bad += 1;
            if bad <= 5 {
                msg.push_str(&format!("{what}: got  {g}\n{what}: want {w}\n"));
                if let Some(c) = i.checked_sub(manifests).and_then(|j| cases.get(j)) {
                    let o = &outcomes[i - manifests];
                    msg.push_str(&format!(
                        "  case: query {:?} scope {} options {}\n  outcome: {}\n",
                        c.query.chars().take(120).collect::<String>(),
                        c.scope,
                        c.options,
                        o.chars().take(600).collect::<String>()
                    ));
                }
            }
        }
    }
    if bad == 0 {
        Ok(())
    } else {
        Err(format!("{bad} line(s) differ from {GOLDEN_PATH}\n{msg}"))
    }
}
