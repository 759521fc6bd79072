//! Near-duplicate pairs as files store them: in the shard, or, when they are heavy, in the text
//! part of each pair's chunk (format v13).
//!
//! The reranker removes a result that nearly duplicates a better-ranked one it keeps
//! ([`crate::rerank::dedup`]): it reads the pairs of the candidates it ranks, never the other
//! chunks'. Yet a shard held every chunk's pairs, so a first visit downloaded them all before its
//! first result: 77 kB brotli of physics college's 477 kB a question at 250k chunks, where the
//! synthetic copies are each other's near-duplicates (`docs/performance.md`, session 34). Since
//! format v13 a shard whose pairs weigh more than `build::PAIRS_INLINE_BYTES` (48 KiB as the
//! shard writes them: what grows with a subject leaves the shard) leaves them to its text
//! parts, each pair stored on both sides (with the text of each chunk, which a search fetches
//! for the results it shows): a
//! search reads the pairs of the chunks whose text is loaded, and removes a candidate when
//! either side of its pair with a kept result is loaded (`rerank::duplicate_of`). The results
//! a page shows are then the same as with every pair known: each shown result's own pairs are
//! loaded with its text, so it is shown only if no kept result above it duplicates it, and a
//! candidate removed with some pairs known is removed with all of them (the client searches
//! again until its results' text is loaded, [`crate::search::SearchResponse::pending_text`]).
//! Lighter pairs stay in the shard: a result giving way to a near-duplicate's neighbour costs a
//! page one more round, which an exam bank whose exercises recur across sessions pays often
//! (the indexed NSI terminale site: 42 of its 115 dev questions).
//!
//! Both places write the same stream ([`write_pairs`]): the count, each pair's chunk as a gap
//! from the one before (from the part's first chunk in a text part), the other chunk as its
//! position in the shard plus one or 0 for another shard's (whose ids follow, in order), then
//! the table of the similarities (a few dozen Jaccard ratios, as `f64` bits) and an index into
//! it per pair (format v8).

use super::dictionary::usize_len;
use super::{ChunkRecord, NearDuplicate};
use bincode::de::Decoder;
use bincode::enc::Encoder;
use bincode::error::{DecodeError, EncodeError};
use bincode::{Decode, Encode};

/// The other chunk of a pair as stored.
#[derive(Clone, Debug, PartialEq)]
pub enum Other {
    /// A chunk of the same shard, by position.
    Here(u32),
    /// A chunk of another shard, by id.
    Elsewhere(String),
}

/// A near-duplicate pair as a file stores it (its chunk by position in the shard).
#[derive(Clone, Debug, PartialEq)]
pub struct StoredPair {
    /// Position of the chunk in its shard.
    pub chunk: u32,
    /// The other chunk.
    pub other: Other,
    /// Jaccard similarity of their word sets.
    pub similarity: f64,
}

/// `pairs` (sorted by chunk, as the builder makes them) with the other chunk by position when
/// it is one of `chunks` (the shard's).
pub fn stored<'a>(
    pairs: impl IntoIterator<Item = &'a NearDuplicate>,
    chunks: &[ChunkRecord],
) -> Vec<StoredPair> {
    let here = positions(chunks);
    pairs
        .into_iter()
        .map(|p| StoredPair {
            chunk: p.chunk,
            other: here
                .get(p.of.as_str())
                .map_or_else(|| Other::Elsewhere(p.of.clone()), |&o| Other::Here(o)),
            similarity: p.similarity,
        })
        .collect()
}

/// The positions of a shard's chunks by id.
fn positions(chunks: &[ChunkRecord]) -> std::collections::HashMap<&str, u32> {
    chunks
        .iter()
        .enumerate()
        .map(|(i, c)| (c.id.as_str(), i as u32))
        .collect()
}

/// `pairs` as the reranker reads them, the other chunks' ids from `chunks` (the shard's), in
/// their order; `None` when one names a position past the shard's chunks.
pub fn resolved(pairs: Vec<StoredPair>, chunks: &[ChunkRecord]) -> Option<Vec<NearDuplicate>> {
    let mut out = Vec::with_capacity(pairs.len());
    for p in pairs {
        let of = match p.other {
            Other::Elsewhere(id) => id,
            Other::Here(o) => chunks.get(o as usize)?.id.clone(),
        };
        out.push(NearDuplicate {
            chunk: p.chunk,
            of,
            similarity: p.similarity,
        });
    }
    Some(out)
}

/// Writes `pairs` (sorted by chunk, none before `base`) as the module's doc says.
pub(super) fn write_pairs<E: Encoder>(
    pairs: &[StoredPair],
    base: u32,
    encoder: &mut E,
) -> Result<(), EncodeError> {
    (pairs.len() as u64).encode(encoder)?;
    let mut prev = base;
    for p in pairs {
        let gap = p.chunk.checked_sub(prev).ok_or(EncodeError::Other(
            "near-duplicate pairs not sorted by chunk",
        ))?;
        gap.encode(encoder)?;
        prev = p.chunk;
    }
    for p in pairs {
        match p.other {
            Other::Here(o) => o
                .checked_add(1)
                .ok_or(EncodeError::Other("near-duplicate chunk past u32"))?,
            Other::Elsewhere(_) => 0,
        }
        .encode(encoder)?;
    }
    let elsewhere: Vec<&str> = pairs
        .iter()
        .filter_map(|p| match &p.other {
            Other::Elsewhere(id) => Some(id.as_str()),
            Other::Here(_) => None,
        })
        .collect();
    elsewhere.encode(encoder)?;
    let mut table: Vec<f64> = pairs.iter().map(|p| p.similarity).collect();
    table.sort_by(f64::total_cmp);
    table.dedup_by(|a, b| a.total_cmp(b).is_eq());
    // As their bits: the decoder reads `u64`s already.
    table
        .iter()
        .map(|x| x.to_bits())
        .collect::<Vec<u64>>()
        .encode(encoder)?;
    for p in pairs {
        let i = table
            .binary_search_by(|x| x.total_cmp(&p.similarity))
            .expect("every similarity is in the table");
        (i as u32).encode(encoder)?;
    }
    Ok(())
}

/// Reads what [`write_pairs`] writes; refuses a chunk past `u32`, a similarity past the table,
/// or ids from other shards that are not one per pair naming one. Positions are the caller's to
/// check.
pub(super) fn read_pairs<C, D: Decoder<Context = C>>(
    decoder: &mut D,
    base: u32,
) -> Result<Vec<StoredPair>, DecodeError> {
    let n = usize_len(decoder)?;
    decoder.claim_container_read::<NearDuplicate>(n.saturating_mul(2))?;
    let mut at = base;
    let mut chunk = Vec::with_capacity(n);
    for _ in 0..n {
        at = at
            .checked_add(u32::decode(decoder)?)
            .ok_or(DecodeError::Other("near-duplicate chunk past u32"))?;
        chunk.push(at);
    }
    let mut refs = Vec::with_capacity(n);
    for _ in 0..n {
        refs.push(u32::decode(decoder)?);
    }
    let mut elsewhere = Vec::<String>::decode(decoder)?.into_iter();
    let table: Vec<f64> = Vec::<u64>::decode(decoder)?
        .into_iter()
        .map(f64::from_bits)
        .collect();
    let mut pairs = Vec::with_capacity(n);
    for (chunk, r) in chunk.into_iter().zip(refs) {
        let similarity = *table
            .get(u32::decode(decoder)? as usize)
            .ok_or(DecodeError::Other(
                "near-duplicate pair: a similarity past the table",
            ))?;
        let other = match r {
            0 => Other::Elsewhere(elsewhere.next().ok_or(DecodeError::Other(
                "near-duplicate pairs: fewer ids from other shards than pairs naming one",
            ))?),
            r => Other::Here(r - 1),
        };
        pairs.push(StoredPair {
            chunk,
            other,
            similarity,
        });
    }
    if elsewhere.next().is_some() {
        return Err(DecodeError::Other(
            "near-duplicate pairs: more ids from other shards than pairs naming one",
        ));
    }
    Ok(pairs)
}

/// Writes a shard's near-duplicate pairs (sorted by chunk then other id, as the builder makes
/// them; format v11): a pair within the shard once, from its earlier chunk ([`decode_duplicates`]
/// adds the other side), which halves the pairs of a shard whose near-duplicates are its own
/// (physics college's shard 25.6 → 23.0 kB brotli); a pair with another shard's chunk as it is.
/// Refuses pairs within the shard that are not symmetric (the reader could not give them back
/// as they were).
pub(super) fn encode_duplicates<E: Encoder>(
    pairs: &[NearDuplicate],
    chunks: &[ChunkRecord],
    encoder: &mut E,
) -> Result<(), EncodeError> {
    write_pairs(&shard_side(stored(pairs, chunks))?, 0, encoder)
}

/// The pairs of `all` (a shard's, [`stored`]) that its shard writes: a pair within the shard
/// from its earlier chunk only; refuses such pairs when not stored on both sides.
fn shard_side(all: Vec<StoredPair>) -> Result<Vec<StoredPair>, EncodeError> {
    let within: std::collections::HashSet<(u32, u32, u64)> = all
        .iter()
        .filter_map(|p| match p.other {
            Other::Here(o) => Some((p.chunk, o, p.similarity.to_bits())),
            Other::Elsewhere(_) => None,
        })
        .collect();
    if within.iter().any(|&(a, b, s)| !within.contains(&(b, a, s))) {
        return Err(EncodeError::Other(
            "near-duplicate pairs within a shard must be stored on both sides",
        ));
    }
    Ok(all
        .into_iter()
        .filter(|p| !matches!(p.other, Other::Here(o) if o <= p.chunk))
        .collect())
}

/// The bytes a shard writes for its pairs `all` ([`stored`]; uncompressed, as
/// [`encode_duplicates`] writes them), or `None` when they cannot be written in a shard (not
/// symmetric, not sorted).
pub fn shard_bytes(all: &[StoredPair]) -> Option<usize> {
    struct Written(Vec<StoredPair>);
    impl Encode for Written {
        fn encode<E: Encoder>(&self, encoder: &mut E) -> Result<(), EncodeError> {
            write_pairs(&self.0, 0, encoder)
        }
    }
    let written = Written(shard_side(all.to_vec()).ok()?);
    let mut size = bincode::enc::write::SizeWriter::default();
    bincode::encode_into_writer(written, &mut size, bincode::config::standard()).ok()?;
    Some(size.bytes_written)
}

/// Reads the pairs [`encode_duplicates`] writes, the other chunks' ids from `chunks` (the
/// shard's, decoded before them), and gives back both sides of each pair within the shard,
/// sorted by chunk then other id as the builder stores them; refuses a position past the shard
/// or not after the pair's chunk, and what [`read_pairs`] refuses.
pub(super) fn decode_duplicates<C, D: Decoder<Context = C>>(
    decoder: &mut D,
    chunks: &[ChunkRecord],
) -> Result<Vec<NearDuplicate>, DecodeError> {
    let written = read_pairs(decoder, 0)?;
    let id = |i: u32| {
        chunks
            .get(i as usize)
            .map(|c| c.id.clone())
            .ok_or(DecodeError::Other(
                "near-duplicate pair: a chunk past the shard's end",
            ))
    };
    let mut pairs = Vec::with_capacity(written.len() * 2);
    for p in written {
        if p.chunk as usize >= chunks.len() {
            return Err(DecodeError::Other(
                "near-duplicate pair: a chunk past the shard's end",
            ));
        }
        let of = match p.other {
            Other::Elsewhere(of) => of,
            Other::Here(o) if o <= p.chunk => {
                return Err(DecodeError::Other(
                    "near-duplicate pair within the shard not written from its earlier chunk",
                ))
            }
            Other::Here(o) => {
                // The other side, which the writer left out.
                pairs.push(NearDuplicate {
                    chunk: o,
                    of: id(p.chunk)?,
                    similarity: p.similarity,
                });
                id(o)?
            }
        };
        pairs.push(NearDuplicate {
            chunk: p.chunk,
            of,
            similarity: p.similarity,
        });
    }
    pairs.sort_unstable_by(|x, y| (x.chunk, &x.of).cmp(&(y.chunk, &y.of)));
    Ok(pairs)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(i: usize) -> ChunkRecord {
        ChunkRecord {
            id: format!("id-{i}"),
            ..ChunkRecord::default()
        }
    }

    #[test]
    fn near_duplicates_name_this_shards_chunks_by_position_and_bad_references_are_refused() {
        let chunks: Vec<ChunkRecord> = (0..3).map(record).collect();
        let c = bincode::config::standard();
        struct Pairs<'a>(&'a [NearDuplicate], &'a [ChunkRecord]);
        impl Encode for Pairs<'_> {
            fn encode<E: Encoder>(&self, encoder: &mut E) -> Result<(), EncodeError> {
                encode_duplicates(self.0, self.1, encoder)
            }
        }
        let decode = |b: &[u8]| {
            let mut d =
                bincode::de::DecoderImpl::new(bincode::de::read::SliceReader::new(b), c, ());
            decode_duplicates(&mut d, &chunks)
        };
        let pair = |chunk: u32, of: &str, similarity: f64| NearDuplicate {
            chunk,
            of: of.into(),
            similarity,
        };
        // Each pair within the shard on both sides, as the builder stores them.
        let pairs = [
            pair(0, "id-2", 0.8),
            pair(1, "id-2", 1.0),
            pair(1, "zz-other-shard", 0.8),
            pair(2, "id-0", 0.8),
            pair(2, "id-1", 1.0),
        ];
        let bytes = bincode::encode_to_vec(Pairs(&pairs, &chunks), c).unwrap();
        assert_eq!(decode(&bytes).unwrap(), pairs);
        // Written once each, from the earlier chunk: 0-2, 1-2 and the other shard's.
        assert_eq!(bytes[0], 3);
        // A pair within the shard stored on one side only cannot be given back as it was.
        let one_sided = [pair(0, "id-2", 0.8)];
        assert!(bincode::encode_to_vec(Pairs(&one_sided, &chunks), c).is_err());
        let other_similarity = [pair(0, "id-2", 0.8), pair(2, "id-0", 1.0)];
        assert!(bincode::encode_to_vec(Pairs(&other_similarity, &chunks), c).is_err());
        // By hand: the count, the chunk gaps, the references (position + 1, or 0: an id from
        // another shard), those ids, the similarity table, an index into it per pair.
        let stream = |refs: &[u32], elsewhere: &[&str], sims: &[u32]| {
            let mut v = bincode::encode_to_vec(refs.len() as u64, c).unwrap();
            for _ in refs {
                v.extend(bincode::encode_to_vec(0u32, c).unwrap());
            }
            for r in refs {
                v.extend(bincode::encode_to_vec(r, c).unwrap());
            }
            v.extend(bincode::encode_to_vec(elsewhere, c).unwrap());
            v.extend(bincode::encode_to_vec(vec![0.8f64.to_bits(), 1f64.to_bits()], c).unwrap());
            for s in sims {
                v.extend(bincode::encode_to_vec(s, c).unwrap());
            }
            v
        };
        // Read back with the other side of the pair within the shard, sorted by chunk then id.
        assert_eq!(
            decode(&stream(&[3, 0], &["elsewhere"], &[1, 0])).unwrap(),
            [
                pair(0, "elsewhere", 0.8),
                pair(0, "id-2", 1.0),
                pair(2, "id-0", 1.0)
            ]
        );
        for (bad, why) in [
            (stream(&[4], &[], &[0]), "a chunk past the shard's end"),
            (stream(&[1], &[], &[2]), "a similarity past the table"),
            (stream(&[0], &[], &[0]), "fewer ids from other shards"),
            (stream(&[2], &["extra"], &[0]), "more ids from other shards"),
            (
                stream(&[1], &[], &[0]),
                "not written from its earlier chunk",
            ),
        ] {
            match decode(&bad) {
                Err(DecodeError::Other(m)) => assert!(m.contains(why), "{m}"),
                other => panic!("{why}: {other:?}"),
            }
        }
        // Pairs out of order are refused when written.
        let unsorted = [pair(2, "id-0", 0.8), pair(1, "id-2", 1.0)];
        assert!(bincode::encode_to_vec(Pairs(&unsorted, &chunks), c).is_err());
    }
}
