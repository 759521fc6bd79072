//! How a shard's lexical index is written (format v7): the in-memory [`LexicalIndex`] keeps its
//! sorted terms, its postings offsets and its postings as (document gap, term frequency) varint
//! pairs; the file keeps them smaller.
//!
//! * **Terms, front-coded.** Each term is written as the length of the prefix it shares with the
//!   term before it (in bytes, on a character boundary) and the rest: sorted vocabularies share
//!   long prefixes (`conduct`, `conducteur`, `conduction`…), and brotli does not find all of it.
//! * **Postings in two streams, no offsets.** Every posting's document gap, then every posting's
//!   term frequency (the same varints, regrouped): the frequencies are mostly 1 and compress to
//!   little once they are together, where interleaved with the gaps they do not. Each term's
//!   postings are as many as its document frequency, so the offsets are not written: the reader
//!   rebuilds the pairs and the offsets in one pass.
//!
//! Measured on the demo's shards (brotli 11, the dictionary alone, format v5): physics college
//! terms 37.8 → 26.6 kB and offsets 25.8 → 8.5 kB (as lengths; none since v7); chemistry 37.2 →
//! 26.5 and 23.4 → 7.4 kB. The two streams (v7), NSI terminale's inline postings: 39.9 → 37.0 kB
//! and no lengths (2.5 kB). Decoding checks what a hostile file could get wrong: a shared prefix
//! longer than the term before it or not on a character boundary, streams that do not hold
//! exactly the postings the frequencies count, a varint cut short or past a `u32`.

use super::{read_varint, write_varint, LexicalIndex};
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
/// frequencies, the postings as two byte streams ([`encode_postings`]), the document lengths;
/// bincode 2's standard encoding throughout.
impl Encode for LexicalIndex {
    fn encode<E: Encoder>(&self, encoder: &mut E) -> Result<(), EncodeError> {
        encode_terms(&self.terms, encoder)?;
        self.df.encode(encoder)?;
        encode_postings(&self.offsets, &self.postings, encoder)?;
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
    encode_front(terms.iter().map(String::as_str), encoder)
}

/// Writes `strings` front-coded without their count: per string the bytes it shares with the one
/// before it (a `u32`) and the rest (a string). The terms of a dictionary; a shard's chunk ids
/// (format v8), which share most of their bytes with the id before them (`cp2e:2.3:exercise:4`,
/// `cp2e:2.3:exercise:5`: physics college's id column 10.7 → 2.9 kB brotli).
pub(super) fn encode_front<'s, E: Encoder>(
    strings: impl Iterator<Item = &'s str>,
    encoder: &mut E,
) -> Result<(), EncodeError> {
    let mut prev = "";
    for t in strings {
        let p = shared_prefix(prev, t);
        (p as u32).encode(encoder)?;
        t[p..].encode(encoder)?;
        prev = t;
    }
    Ok(())
}

/// Moves one varint (a `u32`, [`read_varint`]) from the front of `from` to the end of `to`;
/// `None` if `from` is empty or ends inside it, or it is longer than a `u32`.
fn take_varint(from: &mut &[u8], to: &mut Vec<u8>) -> Option<()> {
    write_varint(to, read_varint(from)?);
    Some(())
}

/// Writes the postings of the terms that `offsets` (one per term plus the end) delimit in
/// `postings` as two byte streams: every posting's document gap, then every posting's term
/// frequency, the same values as in `postings`. Also a postings part's postings.
pub(super) fn encode_postings<E: Encoder>(
    offsets: &[u32],
    postings: &[u8],
    encoder: &mut E,
) -> Result<(), EncodeError> {
    let malformed = || EncodeError::Other("postings malformed or offsets out of bounds");
    let mut gaps = Vec::with_capacity(postings.len() / 2 + 1);
    let mut tfs = Vec::with_capacity(postings.len() / 2 + 1);
    for w in offsets.windows(2) {
        let (s, e) = (w[0] as usize, w[1] as usize);
        let mut list = postings.get(s..e).ok_or_else(malformed)?;
        while !list.is_empty() {
            take_varint(&mut list, &mut gaps).ok_or_else(malformed)?;
            take_varint(&mut list, &mut tfs).ok_or_else(malformed)?;
        }
    }
    gaps.encode(encoder)?;
    tfs.encode(encoder)
}

/// Reads terms as [`encode_terms`] writes them, each rebuilt as it is read; refuses a shared
/// prefix longer than the term before it or inside a character.
pub(super) fn decode_terms<C, D: Decoder<Context = C>>(
    decoder: &mut D,
) -> Result<Vec<String>, DecodeError> {
    let n = usize_len(decoder)?;
    decode_front(n, decoder)
}

/// Reads `n` strings as [`encode_front`] writes them, each rebuilt as it is read; refuses a
/// shared prefix longer than the string before it or inside a character.
pub(super) fn decode_front<C, D: Decoder<Context = C>>(
    n: usize,
    decoder: &mut D,
) -> Result<Vec<String>, DecodeError> {
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

/// Reads postings as [`encode_postings`] writes them, for terms with document frequencies
/// `df`: the postings as (gap, frequency) pairs and their offsets (from 0, one per term plus the
/// end). Refuses streams that do not hold exactly `df`'s postings.
pub(super) fn decode_postings<C, D: Decoder<Context = C>>(
    df: &[u32],
    decoder: &mut D,
) -> Result<(Vec<u32>, Vec<u8>), DecodeError> {
    let gaps = Vec::<u8>::decode(decoder)?;
    let tfs = Vec::<u8>::decode(decoder)?;
    let bad = || DecodeError::Other("postings streams do not match the document frequencies");
    let mut postings = Vec::with_capacity(gaps.len() + tfs.len());
    let mut offsets = Vec::with_capacity(df.len() + 1);
    offsets.push(0);
    let (mut g, mut t) = (&gaps[..], &tfs[..]);
    for &n in df {
        // A hostile frequency ends at the streams' end: at most one step per stream byte.
        for _ in 0..n {
            take_varint(&mut g, &mut postings).ok_or_else(bad)?;
            take_varint(&mut t, &mut postings).ok_or_else(bad)?;
        }
        offsets.push(u32::try_from(postings.len()).map_err(|_| bad())?);
    }
    if !g.is_empty() || !t.is_empty() {
        return Err(bad());
    }
    Ok((offsets, postings))
}

impl<C> Decode<C> for LexicalIndex {
    fn decode<D: Decoder<Context = C>>(decoder: &mut D) -> Result<Self, DecodeError> {
        // As `encode` writes it, the terms rebuilt as they are read.
        let terms = decode_terms(decoder)?;
        let df = Vec::<u32>::decode(decoder)?;
        let (offsets, postings) = decode_postings(&df, decoder)?;
        Ok(LexicalIndex {
            terms,
            df,
            offsets,
            postings,
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
    fn hostile_prefixes_and_streams_are_refused() {
        let c = bincode::config::standard();
        // The stored fields in order: terms, df, gaps, frequencies, doc_len.
        type Stored = (Vec<(u32, String)>, Vec<u32>, Vec<u8>, Vec<u8>, Vec<u32>);
        let stored = |terms: Vec<(u32, String)>, gaps: Vec<u8>, tfs: Vec<u8>| -> Stored {
            let df = vec![1; terms.len()];
            (terms, df, gaps, tfs, vec![])
        };
        let decode = |s: Stored| {
            let bytes = bincode::encode_to_vec(s, c).unwrap();
            bincode::decode_from_slice::<LexicalIndex, _>(&bytes, c)
                .unwrap_err()
                .to_string()
        };
        let two = || vec![(0, "a".to_string()), (0, "b".to_string())];
        // Longer than the term before it; inside a character.
        let e = decode(stored(
            vec![(0, "ab".into()), (3, "c".into())],
            vec![0, 0],
            vec![1, 1],
        ));
        assert!(e.contains("shared prefix out of range"), "{e}");
        let e = decode(stored(
            vec![(0, "é".into()), (1, "t".into())],
            vec![0, 0],
            vec![1, 1],
        ));
        assert!(e.contains("shared prefix out of range"), "{e}");
        // Fewer postings than the frequencies count, more, a varint cut short or too long.
        for (gaps, tfs) in [
            (vec![0], vec![1, 1]),
            (vec![0, 1, 2], vec![1, 1]),
            (vec![0, 0x81], vec![1, 1]),
            (vec![0, 0x81, 0x81, 0x81, 0x81, 0x81, 1], vec![1, 1]),
        ] {
            let e = decode(stored(two(), gaps, tfs));
            assert!(e.contains("postings streams do not match"), "{e}");
        }
        // A hostile frequency stops at the streams' end.
        let e = decode((two(), vec![1, u32::MAX], vec![0, 1], vec![1, 1], vec![]));
        assert!(e.contains("postings streams do not match"), "{e}");
    }

    #[test]
    fn the_streams_regroup_the_same_varints() {
        // Two terms: (gap 3, tf 1), (gap 200 in two bytes, tf 2); then (gap 1, tf 130).
        let postings = vec![3, 1, 0xc8, 0x01, 2, 1, 0x82, 0x01];
        let idx = LexicalIndex {
            terms: vec!["a".into(), "b".into()],
            df: vec![2, 1],
            offsets: vec![0, 5, 8],
            postings: postings.clone(),
            doc_len: vec![1; 300],
            blocks: vec![],
        };
        let c = bincode::config::standard();
        let bytes = bincode::encode_to_vec(&idx, c).unwrap();
        type Stored = (Vec<(u32, String)>, Vec<u32>, Vec<u8>, Vec<u8>, Vec<u32>);
        let (_, _, gaps, tfs, _): Stored = bincode::decode_from_slice(&bytes, c).unwrap().0;
        assert_eq!(gaps, vec![3, 0xc8, 0x01, 1]);
        assert_eq!(tfs, vec![1, 2, 0x82, 0x01]);
        assert_eq!(round_trip(&idx), idx);
        let pairs: Vec<_> = idx.postings(0).chain(idx.postings(1)).flatten().collect();
        assert_eq!(pairs, vec![(3, 1), (203, 2), (1, 130)]);
    }
}
