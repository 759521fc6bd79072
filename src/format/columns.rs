//! How a shard's payload is written (format v5): its chunk metadata and its near-duplicate pairs
//! by column rather than record by record. Every chunk of a shard repeats the same few values in
//! each field (its doc types, chapters, section titles, ids that share a prefix), which a
//! compressor finds when a field's values are together and misses when 27 fields interleave.
//! Measured on the demo (brotli 11, the chunk metadata alone): physics college 47.9 → 32.9 kB,
//! chemistry 26.9 → 20.1 kB. Since format v8 the ids come first, front-coded (shard order keeps
//! a book's ids together, and each shares most of its bytes with the one before it): the whole
//! shard, brotli, physics college 49.0 → 41.4 kB, chemistry 27.6 → 22.6, physics high school
//! 14.9 → 12.3 (a first visit downloads it before the first result). In memory nothing changes: `Vec<ChunkRecord>`, `Vec<NearDuplicate>`.

use super::dictionary::{decode_front, encode_front, usize_len};
use super::{ChunkRecord, NearDuplicate, ShardPayload};
use bincode::de::Decoder;
use bincode::enc::Encoder;
use bincode::error::{DecodeError, EncodeError};
use bincode::{Decode, Encode};

/// Writes `n` then each named field of every record, one field after the other, and reads them
/// back the same way; a `@front` field (a string) first, front-coded ([`encode_front`]). The
/// records are rebuilt with a struct literal of the named fields: a field added to the struct
/// and not here does not compile (it would be silently dropped otherwise).
macro_rules! by_column {
    ($encode:ident, $decode:ident, $ty:ident { $(@front $ff:ident;)? $($f:ident),* $(,)? }) => {
        fn $encode<E: Encoder>(records: &[$ty], encoder: &mut E) -> Result<(), EncodeError> {
            (records.len() as u64).encode(encoder)?;
            $( encode_front(records.iter().map(|r| r.$ff.as_str()), encoder)?; )?
            $( for r in records { r.$f.encode(encoder)?; } )*
            Ok(())
        }

        fn $decode<C, D: Decoder<Context = C>>(decoder: &mut D) -> Result<Vec<$ty>, DecodeError> {
            let n = usize_len(decoder)?;
            decoder.claim_container_read::<$ty>(n)?;
            $( let mut $ff = decode_front(n, decoder)?.into_iter(); )?
            // Each column into its own vector, then the records in one pass (27 passes over
            // the records themselves cost more than the decoding, measured).
            $(
                let mut $f = {
                    let mut column = Vec::with_capacity(n);
                    for _ in 0..n {
                        column.push(Decode::decode(decoder)?);
                    }
                    column.into_iter()
                };
            )*
            let mut records = Vec::with_capacity(n);
            for _ in 0..n {
                records.push($ty {
                    $($ff: $ff.next().expect("n values per column"),)?
                    $($f: $f.next().expect("n values per column")),*
                });
            }
            Ok(records)
        }
    };
}

by_column!(
    encode_chunks,
    decode_chunks,
    ChunkRecord {
        @front id;
        text,
        subject,
        level,
        lang,
        doc_type,
        source,
        chapter,
        chapter_title,
        section,
        section_title,
        subsection,
        section_key,
        topic,
        year,
        exam,
        paper,
        question_number,
        exercise_group,
        exercise_number,
        session,
        centre,
        label,
        answers,
        path,
        url,
        title,
    }
);

by_column!(
    encode_duplicates,
    decode_duplicates,
    NearDuplicate {
        chunk,
        of,
        similarity
    }
);

/// The chunk metadata of `chunks` as a shard stores it (by column), alone: what it weighs in a
/// shard (`benches/perf.rs`'s size breakdown).
pub fn encoded_chunks(chunks: &[ChunkRecord]) -> Vec<u8> {
    struct Chunks<'a>(&'a [ChunkRecord]);
    impl Encode for Chunks<'_> {
        fn encode<E: Encoder>(&self, encoder: &mut E) -> Result<(), EncodeError> {
            encode_chunks(self.0, encoder)
        }
    }
    bincode::encode_to_vec(Chunks(chunks), bincode::config::standard())
        .expect("in-memory bincode encoding cannot fail")
}

impl Encode for ShardPayload {
    fn encode<E: Encoder>(&self, encoder: &mut E) -> Result<(), EncodeError> {
        self.params.encode(encoder)?;
        self.subject.encode(encoder)?;
        self.level.encode(encoder)?;
        encode_chunks(&self.chunks, encoder)?;
        self.lexical.encode(encoder)?;
        self.dense.encode(encoder)?;
        encode_duplicates(&self.near_duplicates, encoder)?;
        self.text_blocks.encode(encoder)?;
        self.postings_blocks.encode(encoder)?;
        self.postings_block_bytes.encode(encoder)
    }
}

impl<C> Decode<C> for ShardPayload {
    fn decode<D: Decoder<Context = C>>(decoder: &mut D) -> Result<Self, DecodeError> {
        Ok(ShardPayload {
            params: Decode::decode(decoder)?,
            subject: Decode::decode(decoder)?,
            level: Decode::decode(decoder)?,
            chunks: decode_chunks(decoder)?,
            lexical: Decode::decode(decoder)?,
            dense: Decode::decode(decoder)?,
            near_duplicates: decode_duplicates(decoder)?,
            text_blocks: Decode::decode(decoder)?,
            postings_blocks: Decode::decode(decoder)?,
            postings_block_bytes: Decode::decode(decoder)?,
        })
    }
}

bincode::impl_borrow_decode!(ShardPayload);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::{BuildParams, LexicalIndex};

    /// A record whose every field holds its own value: a field written or read in the wrong
    /// column, or not at all, cannot round-trip.
    fn record(i: usize) -> ChunkRecord {
        let v = |f: &str| Some(format!("{f}-{i}"));
        ChunkRecord {
            id: format!("id-{i}"),
            text: format!("text {i}"),
            subject: "physics".into(),
            level: "college".into(),
            lang: "en".into(),
            doc_type: "textbook_section".into(),
            source: v("source"),
            chapter: v("chapter"),
            chapter_title: v("chapter_title"),
            section: v("section"),
            section_title: v("section_title"),
            subsection: v("subsection"),
            section_key: v("section_key"),
            topic: v("topic"),
            year: v("year"),
            exam: v("exam"),
            paper: v("paper"),
            question_number: v("question_number"),
            exercise_group: v("exercise_group"),
            exercise_number: v("exercise_number"),
            session: v("session"),
            centre: v("centre"),
            label: v("label"),
            answers: v("answers"),
            path: v("path"),
            url: v("url"),
            title: if i.is_multiple_of(2) {
                v("title")
            } else {
                None
            },
        }
    }

    #[test]
    fn a_payload_round_trips_by_column() {
        let payload = ShardPayload {
            params: BuildParams {
                analyzer_version: 1,
                k1: 1.2,
                b: 0.75,
                builder: "test".into(),
            },
            subject: "physics".into(),
            level: "college".into(),
            chunks: (0..3).map(record).collect(),
            lexical: LexicalIndex {
                offsets: vec![0],
                doc_len: vec![1, 2, 3],
                ..Default::default()
            },
            dense: None,
            near_duplicates: vec![
                NearDuplicate {
                    chunk: 0,
                    of: "id-2".into(),
                    similarity: 0.8,
                },
                NearDuplicate {
                    chunk: 2,
                    of: "other".into(),
                    similarity: 1.0,
                },
            ],
            text_blocks: vec![],
            postings_blocks: vec![],
            postings_block_bytes: vec![],
        };
        let c = bincode::config::standard();
        let bytes = bincode::encode_to_vec(&payload, c).unwrap();
        let (back, used): (ShardPayload, usize) = bincode::decode_from_slice(&bytes, c).unwrap();
        assert_eq!(used, bytes.len());
        assert_eq!(back, payload);
        // Cut anywhere, it is an error, never a shorter payload.
        for cut in [1, bytes.len() / 3, bytes.len() - 1] {
            assert!(bincode::decode_from_slice::<ShardPayload, _>(&bytes[..cut], c).is_err());
        }
    }

    #[test]
    fn ids_are_front_coded_and_a_prefix_past_the_id_before_is_refused() {
        let chunks: Vec<ChunkRecord> = [
            "cp2e:2.3:exercise:9",
            "cp2e:2.3:exercise:10",
            "cp2e:2.3:éq",
            "x",
        ]
        .iter()
        .enumerate()
        .map(|(i, id)| ChunkRecord {
            id: id.to_string(),
            ..record(i)
        })
        .collect();
        let c = bincode::config::standard();
        struct Chunks<'a>(&'a [ChunkRecord]);
        impl Encode for Chunks<'_> {
            fn encode<E: Encoder>(&self, encoder: &mut E) -> Result<(), EncodeError> {
                encode_chunks(self.0, encoder)
            }
        }
        let bytes = bincode::encode_to_vec(Chunks(&chunks), c).unwrap();
        // The count, then the first id whole and the second as 18 shared bytes and "10".
        assert_eq!(&bytes[..3], &[4, 0, 19]);
        assert_eq!(&bytes[22..26], &[18, 2, b'1', b'0']);
        let decode = |b: &[u8]| {
            let mut d =
                bincode::de::DecoderImpl::new(bincode::de::read::SliceReader::new(b), c, ());
            decode_chunks(&mut d)
        };
        assert_eq!(decode(&bytes).unwrap(), chunks);
        // A shared prefix longer than the id before it: an error, not another id.
        let mut bad = bytes.clone();
        bad[22] = 30;
        assert!(decode(&bad).is_err());
    }
}
