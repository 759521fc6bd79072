//! How a shard's lexical index is written (format v5): the in-memory [`LexicalIndex`] keeps its
//! sorted terms and its postings offsets, the file keeps them smaller.
//!
//! * **Terms, front-coded.** Each term is written as the length of the prefix it shares with the
//!   term before it (in bytes, on a character boundary) and the rest: sorted vocabularies share
//!   long prefixes (`conduct`, `conducteur`, `conduction`…), and brotli does not find all of it.
//! * **Postings lengths, not offsets.** Each term's postings byte length rather than its running
//!   offset: most lists are a few bytes, one varint byte each, where offsets grow to three bytes
//!   and do not repeat.
//!
//! Measured on the demo's shards (brotli 11, the dictionary alone): physics college terms 37.8 →
//! 26.6 kB and offsets 25.8 → 8.5 kB; chemistry 37.2 → 26.5 and 23.4 → 7.4 kB. Decoding checks
//! what a hostile file could get wrong: a shared prefix longer than the term before it or not on
//! a character boundary, lengths whose sum overflows.

use super::LexicalIndex;
use bincode::de::read::Reader;
use bincode::de::Decoder;
use bincode::enc::Encoder;
use bincode::error::{DecodeError, EncodeError};
use bincode::{Decode, Encode};

/// Length in bytes of the longest common prefix of `a` and `b` that ends on a character boundary.
fn shared_prefix(a: &str, b: &str) -> usize {
    let n = a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count();
    (0..=n).rev().find(|&i| b.is_char_boundary(i)).unwrap_or(0)
}

/// The lexical index as stored, field after field: the terms (their count, then per term the
/// bytes it shares with the term before it as a `u32` and the rest as a string), the document
/// frequencies, the postings lengths (their count, then one per term), the postings, the
/// document lengths; bincode 2's standard encoding throughout.
impl Encode for LexicalIndex {
    fn encode<E: Encoder>(&self, encoder: &mut E) -> Result<(), EncodeError> {
        encode_terms(&self.terms, encoder)?;
        self.df.encode(encoder)?;
        encode_lengths(&self.offsets, encoder)?;
        self.postings.encode(encoder)?;
        self.doc_len.encode(encoder)
    }
}

/// Writes `terms` front-coded: their count, then per term the bytes it shares with the term
/// before it (a `u32`) and the rest (a string). Also a postings part's slice of the dictionary.
pub(super) fn encode_terms<E: Encoder>(
    terms: &[String],
    encoder: &mut E,
) -> Result<(), EncodeError> {
    (terms.len() as u64).encode(encoder)?;
    let mut prev = "";
    for t in terms {
        let p = shared_prefix(prev, t);
        (p as u32).encode(encoder)?;
        t[p..].encode(encoder)?;
        prev = t;
    }
    Ok(())
}

/// Writes the postings offsets `offsets` (one per term plus the end) as each term's length.
pub(super) fn encode_lengths<E: Encoder>(
    offsets: &[u32],
    encoder: &mut E,
) -> Result<(), EncodeError> {
    (offsets.len().saturating_sub(1) as u64).encode(encoder)?;
    for w in offsets.windows(2) {
        let len = w[1]
            .checked_sub(w[0])
            .ok_or(EncodeError::Other("postings offsets out of order"))?;
        len.encode(encoder)?;
    }
    Ok(())
}

/// Reads terms as [`encode_terms`] writes them, each rebuilt as it is read; refuses a shared
/// prefix longer than the term before it or inside a character.
pub(super) fn decode_terms<C, D: Decoder<Context = C>>(
    decoder: &mut D,
) -> Result<Vec<String>, DecodeError> {
    let n = usize_len(decoder)?;
    decoder.claim_container_read::<String>(n)?;
    let mut terms: Vec<String> = Vec::with_capacity(n);
    for _ in 0..n {
        let shared = u32::decode(decoder)? as usize;
        let rest = usize_len(decoder)?;
        decoder.claim_bytes_read(rest)?;
        let prev = terms.last().map_or("", String::as_str);
        if shared > prev.len() || !prev.is_char_boundary(shared) {
            return Err(DecodeError::Other(
                "front-coded term: shared prefix out of range",
            ));
        }
        let mut bytes = Vec::with_capacity(shared + rest);
        bytes.extend_from_slice(&prev.as_bytes()[..shared]);
        bytes.resize(shared + rest, 0);
        decoder.reader().read(&mut bytes[shared..])?;
        let term = String::from_utf8(bytes).map_err(|e| DecodeError::Utf8 {
            inner: e.utf8_error(),
        })?;
        terms.push(term);
    }
    Ok(terms)
}

/// Reads postings lengths as [`encode_lengths`] writes them, as offsets from 0 (one per term
/// plus the end); refuses lengths whose sum overflows.
pub(super) fn decode_offsets<C, D: Decoder<Context = C>>(
    decoder: &mut D,
) -> Result<Vec<u32>, DecodeError> {
    let lengths = Vec::<u32>::decode(decoder)?;
    let mut offsets = Vec::with_capacity(lengths.len() + 1);
    let mut at = 0u32;
    offsets.push(at);
    for len in lengths {
        at = at
            .checked_add(len)
            .ok_or(DecodeError::Other("postings lengths overflow"))?;
        offsets.push(at);
    }
    Ok(offsets)
}

impl<C> Decode<C> for LexicalIndex {
    fn decode<D: Decoder<Context = C>>(decoder: &mut D) -> Result<Self, DecodeError> {
        // As `encode` writes it, the terms rebuilt as they are read.
        let terms = decode_terms(decoder)?;
        let df = Vec::<u32>::decode(decoder)?;
        let offsets = decode_offsets(decoder)?;
        Ok(LexicalIndex {
            terms,
            df,
            offsets,
            postings: Decode::decode(decoder)?,
            doc_len: Decode::decode(decoder)?,
            blocks: Vec::new(),
        })
    }
}

/// A collection length as bincode writes it (a `u64`), as a `usize`.
pub(super) fn usize_len<C, D: Decoder<Context = C>>(decoder: &mut D) -> Result<usize, DecodeError> {
    let n = u64::decode(decoder)?;
    usize::try_from(n).map_err(|_| DecodeError::OutsideUsizeRange(n))
}

bincode::impl_borrow_decode!(LexicalIndex);

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(idx: &LexicalIndex) -> LexicalIndex {
        let c = bincode::config::standard();
        let bytes = bincode::encode_to_vec(idx, c).unwrap();
        let (back, used): (LexicalIndex, usize) = bincode::decode_from_slice(&bytes, c).unwrap();
        assert_eq!(used, bytes.len());
        back
    }

    #[test]
    fn terms_and_offsets_survive_the_smaller_layout() {
        let idx = LexicalIndex {
            terms: [
                "conduct",
                "conducteur",
                "conduction",
                "élan",
                "élève",
                "été",
                "z",
            ]
            .map(String::from)
            .to_vec(),
            df: vec![1, 2, 1, 1, 3, 1, 1],
            offsets: vec![0, 2, 6, 8, 10, 16, 18, 20],
            postings: (0..20).collect(),
            doc_len: vec![4, 5, 6],
            blocks: vec![],
        };
        assert_eq!(round_trip(&idx), idx);
        // A prefix shared up to the middle of a character is cut at its boundary ("é" is two
        // bytes; "élan" and "élève" share "él", "élève" and "été" only "é").
        assert_eq!(shared_prefix("élève", "été"), "é".len());
        let empty = LexicalIndex {
            offsets: vec![0],
            ..Default::default()
        };
        assert_eq!(round_trip(&empty), empty);
    }

    #[test]
    fn hostile_prefixes_and_lengths_are_refused() {
        let c = bincode::config::standard();
        // The stored fields in order: terms, df, lengths, postings, doc_len.
        type Stored = (Vec<(u32, String)>, Vec<u32>, Vec<u32>, Vec<u8>, Vec<u32>);
        let stored = |terms: Vec<(u32, String)>, lengths: Vec<u32>| -> Stored {
            let df = vec![1; terms.len()];
            (terms, df, lengths, vec![], vec![])
        };
        let decode = |s: Stored| {
            let bytes = bincode::encode_to_vec(s, c).unwrap();
            bincode::decode_from_slice::<LexicalIndex, _>(&bytes, c)
                .unwrap_err()
                .to_string()
        };
        // Longer than the term before it; inside a character; lengths past u32.
        let e = decode(stored(vec![(0, "ab".into()), (3, "c".into())], vec![0, 0]));
        assert!(e.contains("shared prefix out of range"), "{e}");
        let e = decode(stored(vec![(0, "é".into()), (1, "t".into())], vec![0, 0]));
        assert!(e.contains("shared prefix out of range"), "{e}");
        let e = decode(stored(
            vec![(0, "a".into()), (0, "b".into())],
            vec![u32::MAX, 1],
        ));
        assert!(e.contains("postings lengths overflow"), "{e}");
    }
}
