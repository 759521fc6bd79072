//! Text parts: the display text of a block of a shard's chunks, in its own file.
//!
//! Ranking reads only the shard (index, metadata, near-duplicate pairs); the text of a result is
//! needed to show it (snippet, whole section, `[DOCUMENT N]` context). So the builder cuts each
//! shard's text into blocks of consecutive chunks of about [`text_block_bytes`] and writes each
//! block to its own file; a browser fetches the blocks of the results it shows, after ranking,
//! instead of a whole subject's text before the first result (Pagefind's fragments, per block
//! rather than per page).
//!
//! The parts are named, with their digests, in the shard's part list ([`super::PartList`]).

use super::frame::FrameKind;
use super::{FormatError, FORMAT_VERSION, MAX_PAYLOAD};
use bincode::{Decode, Encode};

/// Magic bytes opening every text-part file.
pub const TEXT_MAGIC: &[u8; 8] = b"CHSRTEXT";

/// The smallest and largest text block ([`text_block_bytes`]).
pub const TEXT_BLOCK_BYTES: std::ops::RangeInclusive<usize> = 4 * 1024..=16 * 1024;

/// Bytes of display text (UTF-8) after which the builder closes a block of a shard whose chunks
/// hold `text` bytes of display text in all: `6·√text`, within [`TEXT_BLOCK_BYTES`].
///
/// Why: a first visit downloads the shard's part list, whose entry per text part costs about 30
/// bytes brotli (format v8), and the text parts its results lie in, each about 0.3 of its block
/// compressed. With blocks of `b` bytes the first page weighs about `30·text/b + d·0.3·b` bytes
/// of text and list for `d` distinct parts, least at `b = √(100·text/d)`; OpenCERB's dev queries
/// need about three parts a first page (d ≈ 3), hence `6·√text`. So a small course gets small
/// blocks (NSI terminale, 0.78 MB of text: 5.3 kB blocks) and a large one larger blocks and a
/// shorter list (physics college, 4.1 MB: 12.1 kB). Measured by `scripts/bench-first-page`
/// (mean kB before the first result per query) against one size for all (16 KiB before).
pub fn text_block_bytes(text: usize) -> usize {
    let b = (6.0 * (text as f64).sqrt()) as usize;
    b.clamp(*TEXT_BLOCK_BYTES.start(), *TEXT_BLOCK_BYTES.end())
}

/// The display text of chunks `first .. first + texts.len()` of a shard. Bound to its shard
/// file by that file's SHA-256.
#[derive(Clone, Debug, PartialEq, Eq, Encode, Decode)]
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
    fn a_larger_shard_gets_larger_blocks_within_the_bounds() {
        assert_eq!(text_block_bytes(0), 4 * 1024);
        assert_eq!(text_block_bytes(300_000), 4 * 1024);
        assert_eq!(text_block_bytes(1_000_000), 6_000);
        assert_eq!(text_block_bytes(4_000_000), 12_000);
        assert_eq!(text_block_bytes(100_000_000), 16 * 1024);
        let sizes: Vec<usize> = (0..40).map(|i| text_block_bytes(i * 250_000)).collect();
        assert!(sizes.windows(2).all(|w| w[0] <= w[1]), "{sizes:?}");
    }

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
}
