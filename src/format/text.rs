//! Text parts: the display text of a block of a shard's chunks, in its own file.
//!
//! Ranking reads only the shard (index, metadata, near-duplicate pairs); the text of a result is
//! needed to show it (snippet, whole section, `[DOCUMENT N]` context). So the builder cuts each
//! shard's text into blocks of consecutive chunks of about [`TEXT_BLOCK_BYTES`] and writes each
//! block to its own file; a browser fetches the blocks of the results it shows, after ranking,
//! instead of a whole subject's text before the first result (Pagefind's fragments, per block
//! rather than per page).
//!
//! The parts are named, with their digests, in the shard's **text list** ([`TextList`], a small
//! JSON file that the manifest names in [`super::ShardEntry::text_list`] and a page fetches
//! with the shard): the manifest stays one entry per shard however many parts a library has,
//! and a service worker or an offline check reads the list without the Wasm module. The chain of
//! digests runs manifest → shard and text list → parts.

use super::frame::FrameKind;
use super::{FormatError, TextEntry, FORMAT_VERSION, MAX_PAYLOAD};
use serde::{Deserialize, Serialize};

/// Magic bytes opening every text-part file.
pub const TEXT_MAGIC: &[u8; 8] = b"CHSRTEXT";

/// Bytes of display text (UTF-8) after which the builder closes a block: small enough that the
/// blocks of a page of results weigh a few tens of kB compressed, large enough that a section
/// usually lies in one or two blocks.
pub const TEXT_BLOCK_BYTES: usize = 16 * 1024;

/// The display text of chunks `first .. first + texts.len()` of a shard. Bound to its shard
/// file by that file's SHA-256.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TextPart {
    /// Subject of the shard.
    pub subject: String,
    /// Level of the shard.
    pub level: String,
    /// SHA-256 of the shard file this part belongs to.
    pub shard_sha256: String,
    /// Position of the block's first chunk in the shard.
    pub first: u32,
    /// The chunks' display text, in shard order.
    pub texts: Vec<String>,
}

/// The text-part file kind: [`TEXT_MAGIC`], [`FORMAT_VERSION`], at most [`MAX_PAYLOAD`].
const TEXT_FRAME: FrameKind = FrameKind {
    magic: TEXT_MAGIC,
    version: FORMAT_VERSION,
    max_payload: MAX_PAYLOAD,
};

/// Encodes a text part into a complete file (header + payload).
pub fn encode_text_part(part: &TextPart) -> Vec<u8> {
    TEXT_FRAME.encode(part)
}

/// Decodes a text-part file: magic, version, length, checksum (unless `checksum` is false
/// because the caller has matched the whole file against the manifest's digest), payload.
pub fn decode_text_part(bytes: &[u8], checksum: bool) -> Result<TextPart, FormatError> {
    TEXT_FRAME.decode(bytes, checksum)
}

/// `format` of every text-list file.
pub const TEXT_LIST_FORMAT: &str = "chsr-text-list";

/// A shard's text parts, in chunk order: file names, digests, sizes and the chunks each holds.
/// Bound to its shard file by that file's SHA-256; JSON, so that JavaScript (a service worker,
/// an offline check) can read it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TextList {
    /// Always [`TEXT_LIST_FORMAT`].
    pub format: String,
    /// [`FORMAT_VERSION`].
    pub format_version: u32,
    /// Subject of the shard.
    pub subject: String,
    /// Level of the shard.
    pub level: String,
    /// SHA-256 of the shard file the parts belong to.
    pub shard_sha256: String,
    /// The parts, in chunk order.
    pub parts: Vec<TextEntry>,
}

/// Encodes a text list into a complete file (compact JSON and a newline).
pub fn encode_text_list(list: &TextList) -> Vec<u8> {
    let mut v = serde_json::to_vec(list).expect("a text list serialises");
    v.push(b'\n');
    v
}

/// Decodes a text-list file and checks its format and version; its digest is checked by the
/// caller against the manifest, its agreement with the shard by the library.
///
/// Read field by field from a JSON value rather than by a derived deserializer: the browser's
/// module already parses JSON values (scopes, options), and a derived reader for these three
/// structs would add about 16 kB to it.
pub fn decode_text_list(bytes: &[u8]) -> Result<TextList, FormatError> {
    use serde_json::Value;
    let bad = |m: String| FormatError::TextList(m);
    let text = std::str::from_utf8(bytes).map_err(|e| bad(e.to_string()))?;
    let v: Value = serde_json::from_str(text).map_err(|e| bad(e.to_string()))?;
    let string = |o: &Value, k: &str| -> Result<String, FormatError> {
        o.get(k)
            .and_then(Value::as_str)
            .map(str::to_string)
            .ok_or_else(|| bad(format!("missing or non-string field `{k}`")))
    };
    let number = |o: &Value, k: &str| -> Result<u64, FormatError> {
        o.get(k)
            .and_then(Value::as_u64)
            .ok_or_else(|| bad(format!("missing or non-integer field `{k}`")))
    };
    let format = string(&v, "format")?;
    if format != TEXT_LIST_FORMAT {
        return Err(bad(format!(
            "format is {format:?}, expected {TEXT_LIST_FORMAT:?}"
        )));
    }
    let version = number(&v, "format_version")?;
    if version != u64::from(FORMAT_VERSION) {
        return Err(bad(format!(
            "written by format v{version}, this reader reads v{FORMAT_VERSION}: rebuild with `chsr build`"
        )));
    }
    let small = |o: &Value, k: &str| -> Result<u32, FormatError> {
        u32::try_from(number(o, k)?).map_err(|_| bad(format!("field `{k}` is out of range")))
    };
    let parts = v
        .get("parts")
        .and_then(Value::as_array)
        .ok_or_else(|| bad("missing or non-array field `parts`".into()))?
        .iter()
        .map(|p| {
            let file = string(p, "file")?;
            if file.contains('/') || file.contains('\\') || file.starts_with('.') {
                return Err(bad(format!("file name {file:?} must be a plain file name")));
            }
            Ok(TextEntry {
                file,
                sha256: string(p, "sha256")?,
                bytes: number(p, "bytes")?,
                first: small(p, "first")?,
                chunks: small(p, "chunks")?,
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(TextList {
        format,
        format_version: FORMAT_VERSION,
        subject: string(&v, "subject")?,
        level: string(&v, "level")?,
        shard_sha256: string(&v, "shard_sha256")?,
        parts,
    })
}

/// Cuts `texts` into blocks of consecutive chunks, closing a block once it holds at least
/// `target` bytes: the chunk counts of the blocks, in order (none for no chunk).
pub fn text_blocks(texts: &[&str], target: usize) -> Vec<u32> {
    let mut out = Vec::new();
    let (mut n, mut bytes) = (0u32, 0usize);
    for t in texts {
        n += 1;
        bytes += t.len();
        if bytes >= target {
            out.push(n);
            (n, bytes) = (0, 0);
        }
    }
    if n > 0 {
        out.push(n);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_cover_every_chunk_once_and_close_at_the_target() {
        let texts = ["aaaa", "bb", "cccccc", "d", "", "eeeeeeee"];
        let blocks = text_blocks(&texts, 6);
        assert_eq!(blocks, vec![2, 1, 3]);
        assert_eq!(blocks.iter().sum::<u32>() as usize, texts.len());
        assert!(text_blocks(&[], 6).is_empty());
        assert_eq!(text_blocks(&["x"], 6), vec![1]);
    }

    #[test]
    fn a_text_part_round_trips_and_a_damaged_one_is_refused() {
        let part = TextPart {
            subject: "physics".into(),
            level: "college".into(),
            shard_sha256: "ab".repeat(32),
            first: 12,
            texts: vec!["Newton's first law".into(), "Inertia".into()],
        };
        let bytes = encode_text_part(&part);
        assert_eq!(decode_text_part(&bytes, true).unwrap(), part);
        let mut bad = bytes.clone();
        *bad.last_mut().unwrap() ^= 1;
        assert_eq!(
            decode_text_part(&bad, true),
            Err(FormatError::ChecksumMismatch)
        );
        let mut shard = bytes;
        shard[..8].copy_from_slice(crate::format::MAGIC);
        assert_eq!(decode_text_part(&shard, true), Err(FormatError::Magic));
    }

    #[test]
    fn a_text_list_round_trips_and_a_foreign_or_unsafe_one_is_refused() {
        let list = TextList {
            format: TEXT_LIST_FORMAT.into(),
            format_version: FORMAT_VERSION,
            subject: "physics".into(),
            level: "college".into(),
            shard_sha256: "ab".repeat(32),
            parts: vec![TextEntry {
                file: "physics--college.0123456789abcdef.chsrx".into(),
                sha256: "cd".repeat(32),
                bytes: 5000,
                first: 0,
                chunks: 7,
            }],
        };
        let bytes = encode_text_list(&list);
        assert_eq!(decode_text_list(&bytes).unwrap(), list);
        let refused = |l: &TextList| match decode_text_list(&encode_text_list(l)) {
            Err(FormatError::TextList(m)) => m,
            other => panic!("accepted: {other:?}"),
        };
        let old = TextList {
            format_version: FORMAT_VERSION - 1,
            ..list.clone()
        };
        assert!(refused(&old).contains("rebuild"));
        let manifest = TextList {
            format: "chsr-manifest".into(),
            ..list.clone()
        };
        assert!(refused(&manifest).contains("chsr-text-list"));
        let mut up = list.clone();
        up.parts[0].file = "../secret.chsrx".into();
        assert!(refused(&up).contains("plain file name"));
        assert!(matches!(
            decode_text_list(b"{\"format\": \"chsr-text-list\"}"),
            Err(FormatError::TextList(_))
        ));
    }
}
