//! A shard's parts: its postings by term range, and the part list that names them with its text
//! parts.
//!
//! Ranking reads a shard's chunk metadata for every query, but the dictionary entries and the
//! postings of only the query's terms: most of a large shard's bytes (physics college: 276 of
//! 414 kB brotli) are postings a query never reads, and its dictionary is most of the rest (42
//! of 91 kB). So the builder cuts a shard's postings, once they exceed [`POSTINGS_INLINE_BYTES`],
//! into blocks of consecutive terms of about [`postings_block_bytes`] ([`postings_blocks`]) and
//! writes each block, its terms and their document frequencies with it (format v6), to its own
//! **postings part**
//! ([`PostingsPart`], `*.chsri`); the shard keeps the block sizes, and the part list the first
//! term of each block, so that the reader knows, before any part arrives, which parts a query's
//! terms need (Pagefind's index chunks, by term range).
//!
//! The postings parts and the text parts ([`super::TextPart`]) are named, with the roots of the
//! Merkle tree over them all some levels down ([`super::merkle`], format v12), in the shard's
//! **part list** ([`PartList`], a small JSON file that the manifest names in
//! [`super::ShardEntry::part_list`] and a page fetches with the shard): the manifest stays one
//! entry per shard however many parts a library has, and a service worker or an offline check
//! reads the list without the Wasm module. Digests chain manifest → shard and part list →
//! parts (each part's frame and audit path lead to its subtree's root in the list); every part also names its
//! shard's SHA-256.

use super::fields::{self, Fields};
use super::frame::FrameKind;
use super::{FormatError, TextEntry, FORMAT_VERSION, MAX_PAYLOAD, PART_DIGEST_HEX};
use bincode::{Decode, Encode};
use serde::Serialize;

/// Magic bytes opening every postings-part file.
pub const POSTINGS_MAGIC: &[u8; 8] = b"CHSRPOST";

/// The smallest and largest postings block ([`postings_block_bytes`]).
pub const POSTINGS_BLOCK_BYTES: std::ops::RangeInclusive<usize> = 1024..=16 * 1024;

/// Bytes of encoded postings after which the builder closes a block of a shard whose postings
/// take `postings` bytes in all: `2·√postings`, within [`POSTINGS_BLOCK_BYTES`].
///
/// Why: a block comes whole for the one or two of its terms a query needs, and the part list a
/// first visit downloads with the shard names every block. With blocks of `b` bytes, a query
/// needing `d` of them weighs about `c·postings/b` bytes of list (`c` ≈ 20 bytes brotli an
/// entry) plus `d·0.5·b` bytes of parts (postings compress to about half), least at
/// `b = √(2·c·postings/d)`: `2·√postings` for `d` ≈ 10 (OpenCERB dev's short questions need 8 to
/// 12 parts; a pasted exercise statement 20 to 30). So a small shard gets small blocks and a large
/// one larger blocks and a list that grows as `√postings`, not as `postings`. Measured
/// (`POSTINGS_BLOCKS="4096 auto" scripts/bench-first-page`: every dev query in its subject and
/// level, files brotli, with the page and the module): mean bytes before the first result, one
/// 4 KiB size for all (sessions 13 to 24) → this rule, physics
/// college 304.7 → 292.2 kB (of its 210 queries, 106 → 63 over 300 kB), chemistry 284.4 → 270.8
/// (32 → 3 of 133 over), physics high school 258.3 → 248.1, and the NSI terminale course site
/// indexed with `chsr index` 327.5 → 300.9 (82 → 63 of 115 over), for about one more file a
/// query (6.8 more on that site, whose questions are pasted exercise statements). What it costs:
/// over HTTP/1.1 (six requests at a time, a round trip each) a question with many terms may wait
/// one round trip more (chemistry's demo question: 17 → 23 parts, its first result 0.14 s later
/// on the throttled slow phone of `scripts/bench-browser`, 19 kB less).
pub fn postings_block_bytes(postings: usize) -> usize {
    let b = (2.0 * (postings as f64).sqrt()) as usize;
    b.clamp(*POSTINGS_BLOCK_BYTES.start(), *POSTINGS_BLOCK_BYTES.end())
}

/// A shard whose postings take at most this many bytes keeps them inline: a query's terms would
/// need many of its parts anyway (OpenCERB dev, format v6: with 2 KiB blocks NSI terminale 19.0
/// parts a query for 21 kB less, with 4 KiB 13.9 parts for 13 kB less; NSI première 7.9 parts
/// for 3 kB less), so splitting would cost a first visit many requests (six at a time over
/// HTTP/1.1, a round trip each on a slow link).
pub const POSTINGS_INLINE_BYTES: usize = 128 * 1024;

/// The terms `first .. first + terms` of a shard (by term id, the dictionary's order) with their
/// document frequencies and postings: the shard's dictionary and postings for that range (the
/// shard itself keeps neither). Bound to its shard file by that file's SHA-256.
///
/// Stored as [`super::LexicalIndex`] stores a dictionary (format v7): the terms front-coded, the
/// postings as two streams (gaps, frequencies) without offsets.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PostingsPart {
    /// Subject of the shard.
    pub subject: String,
    /// Level of the shard.
    pub level: String,
    /// SHA-256 of the shard file this part belongs to.
    pub shard_sha256: String,
    /// Id of the block's first term.
    pub first: u32,
    /// Number of terms in the block.
    pub terms: u32,
    /// The block's terms, sorted.
    pub dictionary: Vec<String>,
    /// Their document frequencies.
    pub df: Vec<u32>,
    /// Start offset of each term's postings in `postings`, plus the end (from 0).
    pub offsets: Vec<u32>,
    /// Their encoded postings, as in [`super::LexicalIndex::postings`].
    pub postings: Vec<u8>,
}

impl Encode for PostingsPart {
    fn encode<E: bincode::enc::Encoder>(
        &self,
        encoder: &mut E,
    ) -> Result<(), bincode::error::EncodeError> {
        self.subject.encode(encoder)?;
        self.level.encode(encoder)?;
        self.shard_sha256.encode(encoder)?;
        self.first.encode(encoder)?;
        self.terms.encode(encoder)?;
        super::dictionary::encode_terms(&self.dictionary, encoder)?;
        self.df.encode(encoder)?;
        super::dictionary::encode_postings(&self.offsets, &self.postings, encoder)
    }
}

impl<C> Decode<C> for PostingsPart {
    fn decode<D: bincode::de::Decoder<Context = C>>(
        decoder: &mut D,
    ) -> Result<Self, bincode::error::DecodeError> {
        let subject = Decode::decode(decoder)?;
        let level = Decode::decode(decoder)?;
        let shard_sha256 = Decode::decode(decoder)?;
        let first = Decode::decode(decoder)?;
        let terms = Decode::decode(decoder)?;
        let dictionary = super::dictionary::decode_terms(decoder)?;
        let df: Vec<u32> = Decode::decode(decoder)?;
        let (offsets, postings) = super::dictionary::decode_postings(&df, decoder)?;
        Ok(PostingsPart {
            subject,
            level,
            shard_sha256,
            first,
            terms,
            dictionary,
            df,
            offsets,
            postings,
        })
    }
}

bincode::impl_borrow_decode!(PostingsPart);

/// The postings-part file kind: [`POSTINGS_MAGIC`], [`FORMAT_VERSION`], at most [`MAX_PAYLOAD`].
const POSTINGS_FRAME: FrameKind = FrameKind {
    magic: POSTINGS_MAGIC,
    version: FORMAT_VERSION,
    max_payload: MAX_PAYLOAD,
};

/// Encodes a postings part into a complete file (header + payload).
pub fn encode_postings_part(part: &PostingsPart) -> Vec<u8> {
    POSTINGS_FRAME.encode(part)
}

/// Decodes a postings part's frame (the file without its audit path): magic, version, length,
/// checksum (unless `checksum` is false because the caller has led the frame to the part list's
/// root, [`super::merkle`]), payload.
pub fn decode_postings_part(bytes: &[u8], checksum: bool) -> Result<PostingsPart, FormatError> {
    POSTINGS_FRAME.decode(bytes, checksum)
}

/// Cuts a shard's postings, given its offsets (one per term plus the end), into blocks of
/// consecutive terms, closing a block once it holds at least `target` bytes (`None`: sized to
/// the postings, [`postings_block_bytes`]): the term counts of the blocks, in order. None (the
/// postings stay inline) when they hold at most `inline` bytes (by default
/// [`POSTINGS_INLINE_BYTES`]).
pub fn postings_blocks(offsets: &[u32], target: Option<usize>, inline: usize) -> Vec<u32> {
    let total = offsets.last().map_or(0, |&e| e as usize);
    if total <= inline || offsets.len() < 2 {
        return Vec::new();
    }
    let target = target.unwrap_or_else(|| postings_block_bytes(total));
    let mut out = Vec::new();
    let (mut n, mut start) = (0u32, offsets[0] as usize);
    for w in offsets.windows(2) {
        n += 1;
        if w[1] as usize - start >= target {
            out.push(n);
            (n, start) = (0, w[1] as usize);
        }
    }
    if n > 0 {
        out.push(n);
    }
    out
}

/// A postings part of a shard ([`PostingsPart`]), as its part list names it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PostingsEntry {
    /// File name, relative to the manifest (as [`TextEntry::file`]).
    pub file: String,
    /// File size in bytes.
    pub bytes: u64,
    /// Id of the part's first term.
    pub first: u32,
    /// Number of terms in the part.
    pub terms: u32,
    /// The part's first term: with the next part's, the range of terms it holds, so that a
    /// reader can tell which parts a query needs from the list alone, while the shard is still
    /// on its way.
    pub first_term: String,
}

/// Which of `parts` (a part list's postings parts, in term order) hold a term of `terms`, by
/// their first terms: a part's range runs from its first term to the next part's. A term the
/// shard does not have may flag the part it would be in.
pub fn parts_holding<'t>(
    parts: &[PostingsEntry],
    terms: impl IntoIterator<Item = &'t str>,
) -> Vec<bool> {
    let mut want = vec![false; parts.len()];
    for t in terms {
        let p = parts.partition_point(|e| e.first_term.as_str() <= t);
        if p > 0 {
            want[p - 1] = true;
        }
    }
    want
}

/// `format` of every part-list file.
pub const PART_LIST_FORMAT: &str = "chsr-part-list";

/// Hex digits of a part list's [`PartList::key`].
pub const PART_KEY_HEX: usize = 16;

/// The file name of a shard's part `leaf` (its text parts then its postings parts, the Merkle
/// tree's leaf order): `{stem}.{leaf}.{key}.{ext}`, `ext` `chsrx` for text, `chsri` for postings
/// (a page's scripts apply the same rule: `ChsrClient.partListFiles`, the service worker).
pub fn part_file(stem: &str, leaf: usize, key: &str, ext: &str) -> String {
    format!("{stem}.{leaf}.{key}.{ext}")
}

/// A shard's parts: its text parts in chunk order and its postings parts in term order (file
/// names, sizes, what each holds), and the roots of the Merkle tree over them some levels down. Bound to its shard file by
/// that file's SHA-256; JSON, so that JavaScript (a service worker, an offline check) can read
/// it. The file gives each part's count of chunks or terms, not its first one (format v10: the
/// sum of the counts before it), which [`decode_part_list`] fills in; and since format v14 each
/// field of the parts as one array (`"text": {"bytes": [..], "chunks": [..]}`, `"postings":
/// {"bytes": [..], "terms": [..], "first_term": [..]}`) and their file names as the rule
/// [`part_file`] over `stem` and `key`, which the reader applies (a third less brotli than an
/// object a part with its name: chemistry's list 4.1 → 3.0 kB, at 250k chunks physics college's
/// 27.5 → 18.0).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PartList {
    /// Always [`PART_LIST_FORMAT`].
    pub format: String,
    /// [`FORMAT_VERSION`].
    pub format_version: u32,
    /// Subject of the shard.
    pub subject: String,
    /// Level of the shard.
    pub level: String,
    /// SHA-256 of the shard file the parts belong to.
    pub shard_sha256: String,
    /// How many levels below the root of the Merkle tree over the parts ([`super::merkle`]: the
    /// text parts then the postings parts, in list order) the list gives its subtrees' roots
    /// ([`super::merkle::list_depth`]).
    pub depth: u32,
    /// The roots of those subtrees ([`super::merkle::subtrees`]), in leaf order, each
    /// [`PART_DIGEST_HEX`] lower-case hex digits (the file writes them as one string). Each part
    /// file carries its audit path within its subtree after its frame.
    pub roots: Vec<String>,
    /// What the parts' file names share ([`part_file`]): the shard's stem (a plain file name).
    pub stem: String,
    /// And their key, [`PART_KEY_HEX`] lower-case hex digits (the builder: the Merkle root's
    /// first, so that a change to any part renames them all).
    pub key: String,
    /// The text parts, in chunk order (none when the text is inside the shard).
    pub text: Vec<TextEntry>,
    /// The postings parts, in term order (none when the postings are inside the shard).
    pub postings: Vec<PostingsEntry>,
}

/// Encodes a part list into a complete file (compact JSON and a newline): each field of the
/// parts as an array, without their `first` chunk or term, which must be the sum of the counts
/// before it, nor their file names, which must follow [`part_file`] (the builder's lists do; a
/// reader derives both).
pub fn encode_part_list(list: &PartList) -> Vec<u8> {
    /// The text parts as the file lists them.
    #[derive(Serialize)]
    struct Text {
        bytes: Vec<u64>,
        chunks: Vec<u32>,
    }
    /// The postings parts as the file lists them.
    #[derive(Serialize)]
    struct Postings<'a> {
        bytes: Vec<u64>,
        terms: Vec<u32>,
        first_term: Vec<&'a str>,
    }
    /// The file.
    #[derive(Serialize)]
    struct File<'a> {
        format: &'a str,
        format_version: u32,
        subject: &'a str,
        level: &'a str,
        shard_sha256: &'a str,
        depth: u32,
        roots: String,
        stem: &'a str,
        key: &'a str,
        text: Text,
        postings: Postings<'a>,
    }
    fn consecutive(mut parts: impl Iterator<Item = (u32, u32)>) -> bool {
        parts
            .try_fold(0u32, |at, (first, n)| (first == at).then(|| at + n))
            .is_some()
    }
    assert!(
        consecutive(list.text.iter().map(|t| (t.first, t.chunks)))
            && consecutive(list.postings.iter().map(|t| (t.first, t.terms))),
        "a part list's parts follow each other from the first chunk and term"
    );
    let names = (list.text.iter().map(|t| (&t.file, "chsrx")))
        .chain(list.postings.iter().map(|t| (&t.file, "chsri")));
    for (leaf, (file, ext)) in names.enumerate() {
        assert_eq!(
            *file,
            part_file(&list.stem, leaf, &list.key, ext),
            "a part list's parts are named by its stem, their leaf and its key"
        );
    }
    let file = File {
        format: &list.format,
        format_version: list.format_version,
        subject: &list.subject,
        level: &list.level,
        shard_sha256: &list.shard_sha256,
        depth: list.depth,
        roots: list.roots.concat(),
        stem: &list.stem,
        key: &list.key,
        text: Text {
            bytes: list.text.iter().map(|t| t.bytes).collect(),
            chunks: list.text.iter().map(|t| t.chunks).collect(),
        },
        postings: Postings {
            bytes: list.postings.iter().map(|t| t.bytes).collect(),
            terms: list.postings.iter().map(|t| t.terms).collect(),
            first_term: list
                .postings
                .iter()
                .map(|t| t.first_term.as_str())
                .collect(),
        },
    };
    let mut v = serde_json::to_vec(&file).expect("a part list serialises");
    v.push(b'\n');
    v
}

/// The largest count a part list's `chunks` or `terms` may give.
const MAX32: u64 = u32::MAX as u64;

/// The first chunk or term of the next part: `at + n`, or an error naming the field whose
/// counts run past `u32` (a hostile list).
fn after(at: u32, n: u32, field: &str) -> Result<u32, FormatError> {
    at.checked_add(n).ok_or_else(|| {
        FormatError::PartList(format!("field `{field}`: the parts' counts run past 2^32"))
    })
}

/// Decodes a part-list file and checks its format and version; its digest is checked by the
/// caller against the manifest, its agreement with the shard by the library. Read field by field
/// ([`super::fields`]): unknown fields ignored, an error names the field's path.
pub fn decode_part_list(bytes: &[u8]) -> Result<PartList, FormatError> {
    let text = std::str::from_utf8(bytes).map_err(|e| FormatError::PartList(e.to_string()))?;
    let v = fields::parse(text, FormatError::PartList)?;
    let l = Fields::root(&v, FormatError::PartList)?;
    let format = l.header(PART_LIST_FORMAT)?;
    let (subject, level) = (l.string("subject")?, l.string("level")?);
    let shard_sha256 = l.string("shard_sha256")?;
    let (stem, key) = (l.file("stem")?, l.hex("key", PART_KEY_HEX)?);
    // Each part's fields, one array a field, all as long; each part's file name (its leaf: text
    // parts first) and first chunk or term (the sum of the counts before it).
    let t = l.top_object("text")?;
    let text_bytes = t.items("bytes", None)?;
    let chunks = t.items("chunks", Some(text_bytes.len()))?;
    let mut text = Vec::with_capacity(chunks.len());
    let mut first = 0u32;
    for i in 0..chunks.len() {
        let n = t.integer_at("chunks", chunks, i, MAX32)? as u32;
        text.push(TextEntry {
            file: part_file(&stem, i, &key, "chsrx"),
            bytes: t.integer_at("bytes", text_bytes, i, u64::MAX)?,
            first,
            chunks: n,
        });
        first = after(first, n, "text")?;
    }
    let p = l.top_object("postings")?;
    let postings_bytes = p.items("bytes", None)?;
    let terms = p.items("terms", Some(postings_bytes.len()))?;
    let first_terms = p.items("first_term", Some(postings_bytes.len()))?;
    let mut postings = Vec::with_capacity(terms.len());
    first = 0;
    for j in 0..terms.len() {
        let n = p.integer_at("terms", terms, j, MAX32)? as u32;
        postings.push(PostingsEntry {
            file: part_file(&stem, text.len() + j, &key, "chsri"),
            bytes: p.integer_at("bytes", postings_bytes, j, u64::MAX)?,
            first,
            terms: n,
            first_term: p.string_at("first_term", first_terms, j)?,
        });
        first = after(first, n, "postings")?;
    }
    // The roots of the tree's subtrees `depth` levels down, as many as the parts make.
    // (Deeper than a tree is high, every leaf is its own subtree: at most one root a part.)
    let depth = l.u32("depth")?;
    let n = super::merkle::subtree_count(text.len() + postings.len(), depth);
    let roots = l.hex("roots", n * PART_DIGEST_HEX)?;
    Ok(PartList {
        format,
        format_version: FORMAT_VERSION,
        subject,
        level,
        shard_sha256,
        depth,
        roots: (0..n)
            .map(|i| roots[i * PART_DIGEST_HEX..][..PART_DIGEST_HEX].to_string())
            .collect(),
        stem,
        key,
        text,
        postings,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shard_with_more_postings_gets_larger_blocks_within_the_bounds() {
        // Below the smallest block (and far under the inline threshold): the smallest.
        assert_eq!(postings_block_bytes(0), 1024);
        assert_eq!(postings_block_bytes(200_000), 1024);
        // The demo's subjects (their postings, raw): about 1.0, 1.4 and 1.7 KiB.
        assert_eq!(postings_block_bytes(268_386), 1036);
        assert_eq!(postings_block_bytes(494_456), 1406);
        assert_eq!(postings_block_bytes(721_177), 1698);
        // A subject a hundred times larger: blocks ten times larger, capped at 16 KiB.
        assert_eq!(postings_block_bytes(72_117_700), 16 * 1024);
        let sizes: Vec<usize> = (0..60)
            .map(|i| postings_block_bytes(i * 1_000_000))
            .collect();
        assert!(sizes.windows(2).all(|w| w[0] <= w[1]), "{sizes:?}");
    }

    #[test]
    fn postings_blocks_cover_every_term_once_and_close_at_the_target() {
        // Five terms whose postings take 4, 2, 6, 1 and 8 bytes.
        let offsets = [0, 4, 6, 12, 13, 21];
        let blocks = postings_blocks(&offsets, Some(2), 16);
        assert_eq!(blocks, vec![1, 1, 1, 2]);
        assert_eq!(blocks.iter().sum::<u32>(), 5);
        // Small enough (21 bytes, at most the inline size): inline.
        assert!(postings_blocks(&offsets, Some(2), 21).is_empty());
        assert!(postings_blocks(&[0], Some(2), 0).is_empty());
        assert_eq!(postings_blocks(&offsets, Some(1), 0), vec![1, 1, 1, 1, 1]);
    }

    #[test]
    fn a_postings_part_round_trips_and_a_damaged_one_is_refused() {
        let part = PostingsPart {
            subject: "physics".into(),
            level: "college".into(),
            shard_sha256: "ab".repeat(32),
            first: 40,
            terms: 2,
            // The terms front-coded on disk ("électron" shares "élect" with "électrique").
            dictionary: vec!["électrique".into(), "électron".into()],
            df: vec![1, 1],
            offsets: vec![0, 2, 4],
            postings: vec![1, 2, 3, 1],
        };
        let bytes = encode_postings_part(&part);
        assert_eq!(decode_postings_part(&bytes, true).unwrap(), part);
        let mut bad = bytes.clone();
        *bad.last_mut().unwrap() ^= 1;
        assert_eq!(
            decode_postings_part(&bad, true),
            Err(FormatError::ChecksumMismatch)
        );
        let mut shard = bytes;
        shard[..8].copy_from_slice(crate::format::MAGIC);
        assert_eq!(decode_postings_part(&shard, true), Err(FormatError::Magic));
    }

    #[test]
    fn a_part_list_round_trips_and_a_foreign_or_unsafe_one_is_refused() {
        let list = PartList {
            format: PART_LIST_FORMAT.into(),
            format_version: FORMAT_VERSION,
            subject: "physics".into(),
            level: "college".into(),
            shard_sha256: "ab".repeat(32),
            depth: 1,
            roots: vec!["cd".repeat(16), "ef".repeat(16)],
            stem: "physics--college".into(),
            key: "0123456789abcdef".into(),
            text: vec![TextEntry {
                file: "physics--college.0.0123456789abcdef.chsrx".into(),
                bytes: 5000,
                first: 0,
                chunks: 7,
            }],
            postings: vec![PostingsEntry {
                file: "physics--college.1.0123456789abcdef.chsri".into(),
                bytes: 9000,
                first: 0,
                terms: 300,
                first_term: "absorb".into(),
            }],
        };
        let bytes = encode_part_list(&list);
        assert_eq!(decode_part_list(&bytes).unwrap(), list);
        let refused = |l: &PartList| match decode_part_list(&encode_part_list(l)) {
            Err(FormatError::PartList(m)) => m,
            other => panic!("accepted: {other:?}"),
        };
        let old = PartList {
            format_version: FORMAT_VERSION - 1,
            ..list.clone()
        };
        assert!(refused(&old).contains("rebuild"));
        let manifest = PartList {
            format: "chsr-manifest".into(),
            ..list.clone()
        };
        assert!(refused(&manifest).contains("chsr-part-list"));
        // The parts' names come from the stem and the key: a stem that would lead out of the
        // folder, or a key that is not 16 lower-case hex digits, is refused by name.
        let renamed = |stem: &str, key: &str| {
            let mut l = list.clone();
            (l.stem, l.key) = (stem.into(), key.into());
            l.text[0].file = part_file(stem, 0, key, "chsrx");
            l.postings[0].file = part_file(stem, 1, key, "chsri");
            l
        };
        for stem in ["../secret", "a/b", "", ".hidden"] {
            let m = refused(&renamed(stem, &list.key));
            assert!(m.contains("`stem`") && m.contains("plain file name"), "{m}");
        }
        for key in ["0123456789ABCDEF", "0123456789abcde", "../0123456789abc"] {
            let m = refused(&renamed(&list.stem, key));
            assert!(
                m.contains("`key`") && m.contains("16 lower-case hex"),
                "{m}"
            );
        }
        // Each subtree root is 128 bits of SHA-256, in lower-case hex: a whole digest, a
        // shorter one (which would match too much) or another alphabet is refused by name.
        for digest in [
            "cd".repeat(32),
            "cd".repeat(8),
            "CD".repeat(16),
            "zz".repeat(16),
        ] {
            let mut other = list.clone();
            other.roots[1] = digest.clone();
            let m = refused(&other);
            assert!(
                m.contains("roots") && m.contains("64 lower-case hex"),
                "{digest}: {m}"
            );
        }
        // As many roots as the depth makes of the parts: two parts one level down make two.
        let fewer = PartList {
            roots: vec!["cd".repeat(16)],
            ..list.clone()
        };
        assert!(refused(&fewer).contains("roots"));
        let shallower = PartList {
            depth: 0,
            ..list.clone()
        };
        assert!(refused(&shallower).contains("roots"));
        assert!(matches!(
            decode_part_list(b"{\"format\": \"chsr-part-list\"}"),
            Err(FormatError::PartList(_))
        ));
    }

    #[test]
    fn a_part_list_gives_counts_and_its_reader_derives_each_parts_first_and_name() {
        let file = |chunks: &str, bytes: &str, terms: &str| {
            format!(
                r#"{{"format": "chsr-part-list", "format_version": {FORMAT_VERSION}, "subject": "s",
                    "level": "l", "shard_sha256": "{}", "depth": 0, "roots": "{}",
                    "stem": "s--l", "key": "0123456789abcdef",
                    "text": {{"bytes": [{bytes}], "chunks": [{chunks}]}},
                    "postings": {{"bytes": [30, 40], "terms": [{terms}], "first_term": ["a", "m"]}}}}"#,
                "ab".repeat(32),
                "cd".repeat(16),
            )
        };
        let list = decode_part_list(file("7, 5, 9", "10, 11, 12", "100, 60").as_bytes()).unwrap();
        let firsts: Vec<(u32, u32)> = list.text.iter().map(|t| (t.first, t.chunks)).collect();
        assert_eq!(firsts, [(0, 7), (7, 5), (12, 9)]);
        let firsts: Vec<(u32, u32)> = list.postings.iter().map(|t| (t.first, t.terms)).collect();
        assert_eq!(firsts, [(0, 100), (100, 60)]);
        // Named by leaf, text parts first, as the builder names them.
        let names: Vec<(&str, u64)> = (list.text.iter().map(|t| (t.file.as_str(), t.bytes)))
            .chain(list.postings.iter().map(|t| (t.file.as_str(), t.bytes)))
            .collect();
        assert_eq!(
            names,
            [
                ("s--l.0.0123456789abcdef.chsrx", 10),
                ("s--l.1.0123456789abcdef.chsrx", 11),
                ("s--l.2.0123456789abcdef.chsrx", 12),
                ("s--l.3.0123456789abcdef.chsri", 30),
                ("s--l.4.0123456789abcdef.chsri", 40),
            ]
        );
        assert_eq!(list.postings[1].first_term, "m");
        // The file the builder writes has neither a `first` to disagree with the counts nor a
        // name to disagree with the rule.
        let again = String::from_utf8(encode_part_list(&list)).unwrap();
        assert!(!again.contains("\"first\"") && !again.contains("\"file\""));
        assert_eq!(decode_part_list(again.as_bytes()).unwrap(), list);
        let refused = |f: String| match decode_part_list(f.as_bytes()) {
            Err(FormatError::PartList(m)) => m,
            other => panic!("accepted: {other:?}"),
        };
        // Counts that run past 2^32 chunks are refused, not wrapped around.
        let m = refused(file(
            &format!("{}, 2, 1", u32::MAX),
            "10, 11, 12",
            "100, 60",
        ));
        assert!(m.contains("`text`"), "{m}");
        // A field with more or fewer items than the parts' sizes, or an item of another kind,
        // is refused by its path.
        let m = refused(file("7, 5", "10, 11, 12", "100, 60"));
        assert!(m.contains("`text.chunks` has 2 items, not 3"), "{m}");
        let m = refused(file("7, 5, 9", "10, 11, 12", "100"));
        assert!(m.contains("`postings.terms` has 1 items, not 2"), "{m}");
        let m = refused(file("7, -5, 9", "10, 11, 12", "100, 60"));
        assert!(
            m.contains("`text.chunks[1]` must be a non-negative integer"),
            "{m}"
        );
        let m = refused(file("7, 5, 9", "10, 11, 12", "100, 4294967296"));
        assert!(m.contains("`postings.terms[1]` is out of range"), "{m}");
    }
}
