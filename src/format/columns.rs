//! How a shard's payload is written (format v5): its chunk metadata and its near-duplicate pairs
//! (written by [`super::pairs`]) by column rather than record by record. Every chunk of a shard repeats the same few values in
//! each field (its doc types, chapters, section titles, ids that share a prefix), which a
//! compressor finds when a field's values are together and misses when 27 fields interleave.
//! Measured on the demo (brotli 11, the chunk metadata alone): physics college 47.9 → 32.9 kB,
//! chemistry 26.9 → 20.1 kB. Since format v8 the ids come first, front-coded (shard order keeps
//! a book's ids together, and each shares most of its bytes with the one before it): the whole
//! shard, brotli, physics college 49.0 → 41.4 kB, chemistry 27.6 → 22.6, physics high school
//! 14.9 → 12.3 (a first visit downloads it before the first result); the `answers` ids too.
//! Since format v9 every other column but the text is the table of its distinct values and an
//! index per chunk ([`encode_dict`]): the repeats were most of a shard's bytes once unpacked,
//! which a returning student's browser reads from its cache, hashes and copies into the module
//! before the first result (physics college 1,382 → 312 kB, chemistry 796 → 176 kB; brotli
//! 38.5 → 35.7 and 21.2 → 20.3 kB, NSI within ±0.5 kB).
//! In memory nothing changes: `Vec<ChunkRecord>`, `Vec<NearDuplicate>`.

use super::dictionary::{decode_front, encode_front, usize_len};
use super::pairs::{decode_duplicates, encode_duplicates};
use super::{ChunkDisplay, ChunkRecord, ShardPayload};
use bincode::de::Decoder;
use bincode::enc::Encoder;
use bincode::error::{DecodeError, EncodeError};
use bincode::{Decode, Encode};

/// Whether `v` is its type's default (an `@elsewhere` field a record may not hold).
fn is_default<T: Default + PartialEq>(v: &T) -> bool {
    *v == T::default()
}

/// Writes `n` then each named field of every record, one field after the other, and reads them
/// back the same way; a `@front` field (a string) first, front-coded ([`encode_front`]), then a
/// `@front_some` one (an optional string: whether each record has one, then those front-coded;
/// the ids a solution answers, `cp2e:2.3:exercise:4`). The records are rebuilt with a struct
/// literal of the named fields: a field added to the struct and not here does not compile (it
/// would be silently dropped otherwise). An `@elsewhere` field (one the shard leaves to another
/// file: a chunk's display text and display-only metadata, in its text part) is not written at
/// all and reads back as its default (empty, `None`); a record that holds one is refused, not
/// silently cut.
macro_rules! by_column {
    ($encode:ident, $decode:ident, $ty:ident {
        $(@front $ff:ident;)? $(@front_some $fo:ident;)? $(@elsewhere $fz:ident;)*
        $($f:ident),* $(,)?
    }) => {
        fn $encode<E: Encoder>(records: &[$ty], encoder: &mut E) -> Result<(), EncodeError> {
            if records.iter().any(|r| false $(|| !is_default(&r.$fz))*) {
                return Err(EncodeError::Other(
                    "a record holds a field its columns leave out (a chunk's display text and \
                     display-only metadata go to its text part: ChunkRecord::take_display)",
                ));
            }
            (records.len() as u64).encode(encoder)?;
            $( encode_front(records.iter().map(|r| r.$ff.as_str()), encoder)?; )?
            $(
                for r in records { u32::from(r.$fo.is_some()).encode(encoder)?; }
                encode_front(records.iter().filter_map(|r| r.$fo.as_deref()), encoder)?;
            )?
            $( encode_dict(records.iter().map(|r| &r.$f), encoder)?; )*
            Ok(())
        }

        fn $decode<C, D: Decoder<Context = C>>(decoder: &mut D) -> Result<Vec<$ty>, DecodeError> {
            let n = usize_len(decoder)?;
            decoder.claim_container_read::<$ty>(n)?;
            $( let mut $ff = decode_front(n, decoder)?.into_iter(); )?
            $(
                let mut $fo = {
                    // 1 where a record has a value (a `u32`: the decoder reads those already).
                    let mut some = Vec::with_capacity(n);
                    for _ in 0..n {
                        match u32::decode(decoder)? {
                            0 => some.push(false),
                            1 => some.push(true),
                            _ => return Err(DecodeError::Other("presence flag not 0 or 1")),
                        }
                    }
                    let mut values = decode_front(some.iter().filter(|&&s| s).count(), decoder)?
                        .into_iter();
                    let mut column = Vec::with_capacity(n);
                    for s in some {
                        column.push(if s { values.next() } else { None });
                    }
                    column.into_iter()
                };
            )?
            // Each column into its own vector, then the records in one pass (27 passes over
            // the records themselves cost more than the decoding, measured).
            $( let mut $f = decode_dict(n, decoder)?.into_iter(); )*
            let mut records = Vec::with_capacity(n);
            for _ in 0..n {
                records.push($ty {
                    $($ff: $ff.next().expect("n values per column"),)?
                    $($fo: $fo.next().expect("n values per column"),)?
                    $($fz: Default::default(),)*
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
        @front_some answers;
        // The display text and display-only metadata travel in the text parts (format v10,
        // `ChunkDisplay`).
        @elsewhere text;
        @elsewhere chapter_title;
        @elsewhere section_title;
        @elsewhere subsection;
        @elsewhere exercise_group;
        @elsewhere exercise_number;
        @elsewhere session;
        @elsewhere centre;
        @elsewhere path;
        @elsewhere url;
        @elsewhere title;
        subject,
        level,
        lang,
        doc_type,
        source,
        chapter,
        section,
        section_key,
        topic,
        year,
        exam,
        paper,
        question_number,
        label,
    }
);

/// Writes the display-only metadata of a text part's chunks by column (format v10), as a shard
/// writes its chunks' metadata: the count, then each of the [`ChunkDisplay::FIELDS`] fields as
/// a table and an index per chunk. Field by field in a loop (rather than `by_column!`'s one
/// statement per field), so that the reader in the browser's module stays small.
pub(super) fn encode_display<E: Encoder>(
    display: &[ChunkDisplay],
    encoder: &mut E,
) -> Result<(), EncodeError> {
    (display.len() as u64).encode(encoder)?;
    for k in 0..ChunkDisplay::FIELDS {
        encode_dict(display.iter().map(|d| d.field(k)), encoder)?;
    }
    Ok(())
}

/// Reads what [`encode_display`] wrote.
pub(super) fn decode_display<C, D: Decoder<Context = C>>(
    decoder: &mut D,
) -> Result<Vec<ChunkDisplay>, DecodeError> {
    let n = usize_len(decoder)?;
    decoder.claim_container_read::<ChunkDisplay>(n)?;
    let mut display: Vec<ChunkDisplay> = (0..n).map(|_| ChunkDisplay::default()).collect();
    for k in 0..ChunkDisplay::FIELDS {
        let column: Vec<Option<String>> = decode_dict(n, decoder)?;
        for (d, v) in display.iter_mut().zip(column) {
            *d.field_mut(k) = v;
        }
    }
    Ok(display)
}

/// Writes a column (format v9) as the table of its distinct values, in the order they first
/// appear, then each record's value as its index in the table. A shard's chunks repeat a few
/// values per field (its chapters, section titles, doc types, pages): physics college's chunk
/// metadata, 1.35 MB written value by value, is mostly those repeats, which a compressor removes
/// from the download but a reader still copies, checks as UTF-8 and hashes.
fn encode_dict<'a, T, E>(
    values: impl Iterator<Item = &'a T>,
    encoder: &mut E,
) -> Result<(), EncodeError>
where
    T: Encode + Eq + std::hash::Hash + 'a,
    E: Encoder,
{
    let mut table: Vec<&T> = Vec::new();
    let mut at: std::collections::HashMap<&T, u32> = std::collections::HashMap::new();
    let mut index = Vec::new();
    for v in values {
        let i = *at.entry(v).or_insert_with(|| {
            table.push(v);
            table.len() as u32 - 1
        });
        index.push(i);
    }
    (table.len() as u64).encode(encoder)?;
    for v in table {
        v.encode(encoder)?;
    }
    for i in index {
        i.encode(encoder)?;
    }
    Ok(())
}

/// Reads `n` values [`encode_dict`] wrote. Only its one encoding of a column is accepted: every
/// index within the table, each table entry first used in table order (a value's first use is
/// the next entry), and every entry used, so a shard's bytes stay a function of its chunks.
fn decode_dict<C, T, D>(n: usize, decoder: &mut D) -> Result<Vec<T>, DecodeError>
where
    T: Decode<C> + Clone,
    D: Decoder<Context = C>,
{
    let m = usize_len(decoder)?;
    if m > n {
        return Err(DecodeError::Other(
            "a column's table has more values than records",
        ));
    }
    decoder.claim_container_read::<T>(m)?;
    let mut table = Vec::with_capacity(m);
    for _ in 0..m {
        table.push(T::decode(decoder)?);
    }
    let mut seen = 0usize;
    let mut column = Vec::with_capacity(n);
    for _ in 0..n {
        let i = u32::decode(decoder)? as usize;
        if i > seen || i >= m {
            return Err(DecodeError::Other(
                "a column's index past the table or before its value's first use",
            ));
        }
        seen += usize::from(i == seen);
        column.push(table[i].clone());
    }
    if seen != m {
        return Err(DecodeError::Other(
            "a column's table holds a value no record uses",
        ));
    }
    Ok(column)
}

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
        encode_duplicates(&self.near_duplicates, &self.chunks, encoder)?;
        self.text_blocks.encode(encoder)?;
        self.postings_blocks.encode(encoder)?;
        self.postings_block_bytes.encode(encoder)
    }
}

impl<C> Decode<C> for ShardPayload {
    fn decode<D: Decoder<Context = C>>(decoder: &mut D) -> Result<Self, DecodeError> {
        let params = Decode::decode(decoder)?;
        let subject = Decode::decode(decoder)?;
        let level = Decode::decode(decoder)?;
        let chunks = decode_chunks(decoder)?;
        let lexical = Decode::decode(decoder)?;
        let dense = Decode::decode(decoder)?;
        let near_duplicates = decode_duplicates(decoder, &chunks)?;
        Ok(ShardPayload {
            params,
            subject,
            level,
            chunks,
            lexical,
            dense,
            near_duplicates,
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
    use crate::format::{BuildParams, LexicalIndex, NearDuplicate};

    /// A record whose every field a shard keeps holds its own value: a field written or read
    /// in the wrong column, or not at all, cannot round-trip. Its display text and display-only
    /// metadata are in its text part ([`with_display`] has them too).
    fn record(i: usize) -> ChunkRecord {
        let mut r = with_display(i);
        r.take_display();
        r
    }

    /// [`record`] with its display text and metadata, as the builder reads it from a corpus.
    fn with_display(i: usize) -> ChunkRecord {
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
                    of: "id-0".into(),
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
        // A chunk that still holds display-only metadata is refused, not written without it.
        let mut kept = payload.clone();
        kept.chunks[1] = with_display(1);
        let refused = bincode::encode_to_vec(&kept, c).unwrap_err().to_string();
        assert!(refused.contains("take_display"), "{refused}");
    }

    #[test]
    fn metadata_columns_are_tables_of_their_values_and_only_that_encoding_is_read() {
        let c = bincode::config::standard();
        let column = |values: &[Option<&str>]| {
            let owned: Vec<Option<String>> = values.iter().map(|v| v.map(String::from)).collect();
            struct Column<'a>(&'a [Option<String>]);
            impl Encode for Column<'_> {
                fn encode<E: Encoder>(&self, encoder: &mut E) -> Result<(), EncodeError> {
                    encode_dict(self.0.iter(), encoder)
                }
            }
            bincode::encode_to_vec(Column(&owned), c).unwrap()
        };
        let decode = |b: &[u8], n: usize| {
            let mut d =
                bincode::de::DecoderImpl::new(bincode::de::read::SliceReader::new(b), c, ());
            decode_dict::<(), Option<String>, _>(n, &mut d)
        };
        let values = [
            Some("Kinematics"),
            None,
            Some("Kinematics"),
            Some("Forces"),
            None,
        ];
        let bytes = column(&values);
        // The table (3 values, first-use order: "Kinematics", none, "Forces"), then an index
        // per record.
        let mut expected = vec![3, 1, 10];
        expected.extend(b"Kinematics");
        expected.extend([0, 1, 6]);
        expected.extend(b"Forces");
        expected.extend([0, 1, 0, 2, 1]);
        assert_eq!(bytes, expected);
        let back: Vec<Option<String>> = values.iter().map(|v| v.map(String::from)).collect();
        assert_eq!(decode(&bytes, 5).unwrap(), back);
        // Any other encoding of the same column is refused, by what is wrong with it.
        let table_len = bytes.len() - 5; // the five indices end the column
        for (index, why) in [
            ([0, 1, 0, 3, 1], "past the table"),
            ([0, 2, 0, 1, 1], "before its value's first use"),
            ([0, 1, 0, 1, 1], "no record uses"),
        ] {
            let mut bad = bytes.clone();
            bad[table_len..].copy_from_slice(&index);
            match decode(&bad, 5) {
                Err(DecodeError::Other(m)) => assert!(m.contains(why), "{why}: {m}"),
                other => panic!("{why}: {other:?}"),
            }
        }
        let mut bigger = bytes.clone();
        bigger[0] = 6;
        assert!(
            matches!(decode(&bigger, 5), Err(DecodeError::Other(m)) if m.contains("more values than records"))
        );
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
