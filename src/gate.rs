//! The hard curriculum gate: which chunks of a shard a scope admits, as a bitset.
//!
//! The gate runs before any scoring. Retrieval paths iterate the bitset (or test it before
//! touching a posting), so an inadmissible chunk is never scored, whatever the query.

use crate::format::{ChunkRecord, Field};
use crate::scope::Scope;

/// A fixed-size set of chunk indices.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bitset {
    words: Vec<u64>,
    len: usize,
}

impl Bitset {
    /// An empty set over `len` chunks.
    pub fn empty(len: usize) -> Bitset {
        Bitset {
            words: vec![0; len.div_ceil(64)],
            len,
        }
    }

    /// The full set over `len` chunks.
    pub fn full(len: usize) -> Bitset {
        let mut b = Bitset::empty(len);
        for i in 0..len {
            b.insert(i);
        }
        b
    }

    /// Adds chunk `i`.
    pub fn insert(&mut self, i: usize) {
        self.words[i / 64] |= 1 << (i % 64);
    }

    /// Whether chunk `i` is in the set (false when out of range).
    #[inline]
    pub fn contains(&self, i: usize) -> bool {
        i < self.len && self.words[i / 64] & (1 << (i % 64)) != 0
    }

    /// Number of chunks in the set.
    pub fn count(&self) -> usize {
        self.words.iter().map(|w| w.count_ones() as usize).sum()
    }

    /// Size of the universe.
    pub fn universe(&self) -> usize {
        self.len
    }

    /// Indices in the set, increasing.
    pub fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.len).filter(move |&i| self.contains(i))
    }
}

/// Why a chunk is outside a scope: the first field (in canonical order) that excludes it.
pub fn excluded_by(scope: &Scope, chunk: &ChunkRecord) -> Option<Field> {
    scope
        .fields
        .iter()
        .find(|(f, v)| chunk.get(**f).map(str::trim) != Some(v.as_str()))
        .map(|(f, _)| *f)
}

/// Whether `chunk` satisfies every constraint of `scope`.
pub fn admits(scope: &Scope, chunk: &ChunkRecord) -> bool {
    excluded_by(scope, chunk).is_none()
}

/// The gate over one shard's chunks: the bitset of admissible chunk indices.
pub fn gate(scope: &Scope, chunks: &[ChunkRecord]) -> Bitset {
    let mut b = Bitset::empty(chunks.len());
    for (i, c) in chunks.iter().enumerate() {
        if admits(scope, c) {
            b.insert(i);
        }
    }
    b
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chunk(id: &str, doc_type: &str, chapter: Option<&str>) -> ChunkRecord {
        ChunkRecord {
            id: id.into(),
            subject: "physics".into(),
            level: "college".into(),
            lang: "en".into(),
            doc_type: doc_type.into(),
            chapter: chapter.map(Into::into),
            ..Default::default()
        }
    }

    #[test]
    fn gate_admits_exactly_the_matching_chunks() {
        let chunks = vec![
            chunk("a", "solution", Some("4")),
            chunk("b", "exercise", Some("4")),
            chunk("c", "solution", None),
            chunk("d", "solution", Some("5")),
        ];
        let s = Scope::new()
            .with(Field::DocType, "solution")
            .with(Field::Chapter, "4");
        let g = gate(&s, &chunks);
        assert_eq!(g.iter().collect::<Vec<_>>(), vec![0]);
        assert_eq!(excluded_by(&s, &chunks[1]), Some(Field::DocType));
        assert_eq!(excluded_by(&s, &chunks[2]), Some(Field::Chapter));
        assert_eq!(gate(&Scope::new(), &chunks).count(), 4);
    }

    #[test]
    fn bitset_bounds() {
        let mut b = Bitset::empty(130);
        b.insert(129);
        assert!(b.contains(129) && !b.contains(130) && !b.contains(5000));
        assert_eq!(Bitset::full(130).count(), 130);
    }
}
