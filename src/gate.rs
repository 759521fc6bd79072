//! The hard curriculum gate: which chunks of a shard a scope admits, as a bitset.
//!
//! The gate runs before any scoring. Retrieval paths iterate the bitset (or test it before
//! touching a posting), so an inadmissible chunk is never scored, whatever the query.
//!
//! The gate owns its glue in the pipeline: which shards a scope needs ([`shard_choice`]), how
//! the scope is applied ([`Gating`]: before ranking, or not at all and after, for the
//! baselines), the post-filter of those baselines ([`post_filter`]) and the leakage label a
//! result carries ([`Leakage`]). Locked scope fields ([`Scope::locked`]) are enforced in every
//! gating mode: a baseline that ignores the scope still never ranks a chunk outside a lock.

use crate::format::{ChunkRecord, Field, Manifest};
use crate::scope::Scope;
use serde::Serialize;

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
        let mut words = vec![u64::MAX; len.div_ceil(64)];
        if !len.is_multiple_of(64) {
            if let Some(last) = words.last_mut() {
                *last = (1u64 << (len % 64)) - 1;
            }
        }
        Bitset { words, len }
    }

    /// Number of chunks the set ranges over.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the set ranges over no chunk at all.
    pub fn is_empty(&self) -> bool {
        self.len == 0
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

/// The gate over a shard whose chunks all have this `subject` and `level` (a decoded shard
/// guarantees it): those two constraints are decided once for the shard and only the other
/// fields are tested per chunk; a scope with no other field admits the whole shard at once.
/// Same result as [`gate`].
pub fn gate_shard(scope: &Scope, subject: &str, level: &str, chunks: &[ChunkRecord]) -> Bitset {
    let mut rest = scope.clone();
    for (field, value) in [(Field::Subject, subject), (Field::Level, level)] {
        if let Some(want) = scope.get(field) {
            if value.trim() != want {
                return Bitset::empty(chunks.len());
            }
            rest.fields.remove(&field);
        }
    }
    if rest.is_empty() {
        return Bitset::full(chunks.len());
    }
    gate(&rest, chunks)
}

/// How the scope is applied.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Gating {
    /// Hard gate before scoring (chsr's design): only admissible chunks are scored.
    #[default]
    Gated,
    /// No gate: every shard of the manifest is searched (baseline; leaks).
    Ungated,
    /// Retrieve ungated, then drop out-of-scope results (the post-filter baseline).
    PostFiltered,
}

impl Gating {
    /// Parses `gated`, `ungated` or `post_filtered`/`postfilter`.
    pub fn parse(s: &str) -> Option<Gating> {
        match s.trim().to_ascii_lowercase().replace('-', "_").as_str() {
            "gated" | "gate" => Some(Gating::Gated),
            "ungated" | "none" => Some(Gating::Ungated),
            "post_filtered" | "postfilter" | "post_filter" => Some(Gating::PostFiltered),
            _ => None,
        }
    }
}

/// The leakage label of a result: how far outside the requested scope it lies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Leakage {
    /// Inside the requested scope.
    InScope,
    /// Found after dropping the topical constraints (topic, chapter, section): W1.
    CrossTopic,
    /// Found after dropping the level: W2.
    CrossLevel,
    /// Found by the unfiltered lexical fallback: W3.
    Fallback,
    /// Outside the scope in an ungated (baseline) search.
    Ungated,
}

/// Manifest positions of the shards a search over `scope` reads: those of the scope's subject and
/// level when gated (all of them otherwise, except where a locked subject or level rules a shard
/// out: a lock holds in every gating mode).
pub fn shard_choice(manifest: &Manifest, scope: &Scope, gating: Gating) -> Vec<usize> {
    let binding = |f: Field| {
        (gating == Gating::Gated || scope.is_locked(f))
            .then(|| scope.get(f))
            .flatten()
    };
    let (subject, level) = (binding(Field::Subject), binding(Field::Level));
    manifest
        .shards
        .iter()
        .enumerate()
        .filter(|(_, s)| {
            subject.is_none_or(|v| v == s.subject) && level.is_none_or(|v| v == s.level)
        })
        .map(|(i, _)| i)
        .collect()
}

/// The gate of one shard under a gating mode: the scope's bitset when gated; otherwise every
/// chunk, except those outside a locked field.
pub fn gate_mode(
    scope: &Scope,
    gating: Gating,
    subject: &str,
    level: &str,
    chunks: &[ChunkRecord],
) -> Bitset {
    match gating {
        Gating::Gated => gate_shard(scope, subject, level, chunks),
        Gating::Ungated | Gating::PostFiltered if scope.locked.is_empty() => {
            Bitset::full(chunks.len())
        }
        Gating::Ungated | Gating::PostFiltered => {
            gate_shard(&scope.locks_only(), subject, level, chunks)
        }
    }
}

/// The post-filter of the `post_filtered` baseline: keeps the items whose chunk the scope admits
/// and returns how many it dropped.
pub fn post_filter<'c, T>(
    items: &mut Vec<T>,
    scope: &Scope,
    chunk: impl Fn(&T) -> &'c ChunkRecord,
) -> usize {
    let before = items.len();
    items.retain(|x| admits(scope, chunk(x)));
    before - items.len()
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
        for len in [0, 1, 63, 64, 65, 128] {
            let full = Bitset::full(len);
            assert_eq!(
                full.iter().collect::<Vec<_>>(),
                (0..len).collect::<Vec<_>>()
            );
        }
    }

    #[test]
    fn shard_gate_equals_the_per_chunk_gate() {
        let chunks: Vec<ChunkRecord> = (0..150)
            .map(|i| {
                let doc = ["solution", "exercise", "textbook"][i % 3];
                let chapter = (i % 4 != 0).then(|| ((i % 5) + 1).to_string());
                chunk(&format!("c{i:03}"), doc, chapter.as_deref())
            })
            .collect();
        let scopes = [
            Scope::new(),
            Scope::new().with(Field::Subject, "physics"),
            Scope::new().with(Field::Subject, "chemistry"),
            Scope::new()
                .with(Field::Subject, "physics")
                .with(Field::Level, "college"),
            Scope::new().with(Field::Level, "high_school"),
            Scope::new()
                .with(Field::Level, "college")
                .with(Field::DocType, "exercise"),
            Scope::new()
                .with(Field::Subject, "physics")
                .with(Field::Chapter, "3")
                .with(Field::DocType, "solution"),
            Scope::new()
                .with(Field::Subject, "chemistry")
                .with(Field::Chapter, "3"),
        ];
        for s in &scopes {
            let per_chunk: Vec<usize> = gate(s, &chunks).iter().collect();
            let per_shard: Vec<usize> = gate_shard(s, "physics", "college", &chunks)
                .iter()
                .collect();
            assert_eq!(per_chunk, per_shard, "scope {s:?}");
        }
    }
}
