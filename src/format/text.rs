//! Text parts: the display text of a block of a shard's chunks, in its own file.
//!
//! Ranking reads only the shard (index, metadata); the text of a result is
//! needed to show it (snippet, whole section, `[DOCUMENT N]` context). So the builder cuts each
//! shard's text into blocks of consecutive chunks of about [`text_block_bytes`] and writes each
//! block to its own file; a browser fetches the blocks of the results it shows, after ranking,
//! instead of a whole subject's text before the first result (Pagefind's fragments, per block
//! rather than per page).
//!
//! Since format v10 a part also carries the chunks' display-only metadata ([`ChunkDisplay`]:
//! titles, subsection, page URL, exam session…), which no gate, ranking or relaxation step reads:
//! a result card shows it with the text, so it travels with the text. A shard then keeps only
//! what a search reads (measured on the demo, brotli: chemistry's shard 20.7 → 14.5 kB, physics
//! college 36.0 → 25.5 kB; `docs/performance.md`, session 27).
//! Since format v13 a part also carries its chunks' near-duplicate pairs ([`super::pairs`]):
//! the reranker needs them only for the results a page shows, whose text it fetches anyway.
//!
//! The parts are named in the shard's part list ([`super::PartList`]).

use super::columns::{decode_display, encode_display};
use super::frame::FrameKind;
use super::pairs::{read_pairs, write_pairs, StoredPair};
use super::{ChunkRecord, FormatError, FORMAT_VERSION, MAX_PAYLOAD};
use bincode::de::Decoder;
use bincode::enc::Encoder;
use bincode::error::{DecodeError, EncodeError};
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

/// A chunk's metadata that only a reader sees (a result card, a section, `[DOCUMENT N]`
/// context, `chsr eval`'s labels): no gate, ranking or relaxation step reads it, so a shard with
/// text parts leaves it to them (format v10), with the text.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ChunkDisplay {
    /// [`ChunkRecord::chapter_title`].
    pub chapter_title: Option<String>,
    /// [`ChunkRecord::section_title`].
    pub section_title: Option<String>,
    /// [`ChunkRecord::subsection`].
    pub subsection: Option<String>,
    /// [`ChunkRecord::exercise_group`].
    pub exercise_group: Option<String>,
    /// [`ChunkRecord::exercise_number`].
    pub exercise_number: Option<String>,
    /// [`ChunkRecord::session`].
    pub session: Option<String>,
    /// [`ChunkRecord::centre`].
    pub centre: Option<String>,
    /// [`ChunkRecord::path`].
    pub path: Option<String>,
    /// [`ChunkRecord::url`].
    pub url: Option<String>,
    /// [`ChunkRecord::title`].
    pub title: Option<String>,
}

/// The display-only fields, in their order on disk; generates [`ChunkDisplay::field`] and
/// `field_mut` (by position, for the column reader's loop) and [`ChunkRecord::take_display`] /
/// [`ChunkRecord::put_display`].
macro_rules! display_fields {
    ($($k:literal $f:ident),*) => {
        impl ChunkDisplay {
            /// Number of display-only fields.
            pub const FIELDS: usize = [$($k),*].len();

            /// The field at position `k` (`k < FIELDS`, in declaration order).
            pub fn field(&self, k: usize) -> &Option<String> {
                match k {
                    $($k => &self.$f,)*
                    _ => unreachable!("a display field past FIELDS"),
                }
            }

            /// The field at position `k`, to set.
            pub fn field_mut(&mut self, k: usize) -> &mut Option<String> {
                match k {
                    $($k => &mut self.$f,)*
                    _ => unreachable!("a display field past FIELDS"),
                }
            }
        }

        impl ChunkRecord {
            /// Takes the chunk's display text and display-only metadata out of the record (the
            /// builder's text parts carry them), leaving the text empty and those fields `None`.
            pub fn take_display(&mut self) -> (String, ChunkDisplay) {
                let d = ChunkDisplay { $($f: self.$f.take()),* };
                (std::mem::take(&mut self.text), d)
            }

            /// Gives the record back its display text and metadata (a text part loaded).
            pub fn put_display(&mut self, text: String, d: ChunkDisplay) {
                self.text = text;
                $(self.$f = d.$f;)*
            }
        }
    };
}
display_fields!(
    0 chapter_title,
    1 section_title,
    2 subsection,
    3 exercise_group,
    4 exercise_number,
    5 session,
    6 centre,
    7 path,
    8 url,
    9 title
);

/// The display text and display-only metadata of chunks `first .. first + texts.len()` of a
/// shard. Bound to its shard file by that file's SHA-256.
#[derive(Clone, Debug, PartialEq)]
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
    /// The chunks' display-only metadata, in shard order (one per text), stored by column as a
    /// shard stores its metadata.
    pub display: Vec<ChunkDisplay>,
    /// The chunks' near-duplicate pairs, sorted by chunk then other id, each pair with another
    /// chunk of the shard stored in both chunks' parts (format v13, [`super::pairs`]).
    pub near: Vec<StoredPair>,
}

impl Encode for TextPart {
    fn encode<E: Encoder>(&self, encoder: &mut E) -> Result<(), EncodeError> {
        self.subject.encode(encoder)?;
        self.level.encode(encoder)?;
        self.shard_sha256.encode(encoder)?;
        self.first.encode(encoder)?;
        self.texts.encode(encoder)?;
        encode_display(&self.display, encoder)?;
        write_pairs(&self.near, self.first, encoder)
    }
}

impl<C> Decode<C> for TextPart {
    fn decode<D: Decoder<Context = C>>(decoder: &mut D) -> Result<Self, DecodeError> {
        let subject = Decode::decode(decoder)?;
        let level = Decode::decode(decoder)?;
        let shard_sha256 = Decode::decode(decoder)?;
        let first = Decode::decode(decoder)?;
        let texts: Vec<String> = Decode::decode(decoder)?;
        let display = decode_display(decoder)?;
        if display.len() != texts.len() {
            return Err(DecodeError::Other(
                "a text part's display metadata and texts differ in length",
            ));
        }
        let near = read_pairs(decoder, first)?;
        if near
            .iter()
            .any(|p| (p.chunk - first) as usize >= texts.len())
        {
            return Err(DecodeError::Other(
                "a text part's near-duplicate pair names a chunk outside the part",
            ));
        }
        Ok(TextPart {
            subject,
            level,
            shard_sha256,
            first,
            texts,
            display,
            near,
        })
    }
}

bincode::impl_borrow_decode!(TextPart);

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

/// Decodes a text part's frame (the file without its audit path): magic, version, length,
/// checksum (unless `checksum` is false because the caller has led the frame to the part list's
/// root, [`super::merkle`]), payload.
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
    use super::super::pairs::Other;
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
            display: vec![
                ChunkDisplay {
                    chapter_title: Some("Motion".into()),
                    section_title: Some("Newton's laws".into()),
                    url: Some("motion/newton/#first-law".into()),
                    ..ChunkDisplay::default()
                },
                ChunkDisplay {
                    chapter_title: Some("Motion".into()),
                    session: Some("June".into()),
                    title: Some("Forces".into()),
                    ..ChunkDisplay::default()
                },
            ],
            near: vec![
                StoredPair {
                    chunk: 12,
                    other: Other::Here(40),
                    similarity: 0.8,
                },
                StoredPair {
                    chunk: 13,
                    other: Other::Elsewhere("cp2e:4.1:exercise:2".into()),
                    similarity: 1.0,
                },
            ],
        };
        let bytes = encode_text_part(&part);
        assert_eq!(decode_text_part(&bytes, true).unwrap(), part);
        // A pair of a chunk outside the part is refused.
        let mut outside = part.clone();
        outside.near[1].chunk = 14;
        match decode_text_part(&encode_text_part(&outside), true) {
            Err(FormatError::Decode(m)) => assert!(m.contains("outside the part"), "{m}"),
            other => panic!("{other:?}"),
        }
        // A payload whose display columns do not match its texts is refused.
        let short = TextPart {
            display: part.display[..1].to_vec(),
            ..part.clone()
        };
        assert!(matches!(
            decode_text_part(&encode_text_part(&short), true),
            Err(FormatError::Decode(_))
        ));
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
    fn a_record_gives_its_display_fields_and_takes_them_back() {
        let mut r = ChunkRecord {
            id: "p:1".into(),
            text: "Inertia".into(),
            doc_type: "textbook_section".into(),
            chapter: Some("4".into()),
            chapter_title: Some("Motion".into()),
            section_title: Some("Newton's laws".into()),
            subsection: Some("First law".into()),
            exercise_group: Some("problems".into()),
            exercise_number: Some("2".into()),
            session: Some("June".into()),
            centre: Some("Yaounde".into()),
            label: Some("Table 4.1".into()),
            path: Some("motion.md".into()),
            url: Some("motion/#first".into()),
            title: Some("Forces".into()),
            ..ChunkRecord::default()
        };
        let whole = r.clone();
        let (text, d) = r.take_display();
        assert_eq!(text, "Inertia");
        // What a search reads stays; what only a reader sees leaves.
        let kept = ChunkRecord {
            id: "p:1".into(),
            doc_type: "textbook_section".into(),
            chapter: Some("4".into()),
            label: Some("Table 4.1".into()),
            ..ChunkRecord::default()
        };
        assert_eq!(r, kept);
        r.put_display(text, d);
        assert_eq!(r, whole);
    }
}
