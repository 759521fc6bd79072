//! A fast, deterministic hasher for the lookup tables of the query path.
//!
//! The standard library's SipHash resists collision attacks and costs accordingly; the query
//! path's tables are keyed by section numbers and by the words of chunk text (the corpus, not
//! the query), and nothing iterates over them in hash order, so a multiply-rotate hash (the
//! scheme of rustc's `FxHasher`: rotate, xor a word, multiply by a 64-bit odd constant) serves
//! and is several times cheaper. It is seedless: the same keys hash the same natively and in Wasm.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// Multiply-rotate hasher; see the module documentation.
#[derive(Clone, Copy, Debug, Default)]
pub struct FastHasher(u64);

const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl FastHasher {
    #[inline]
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(SEED);
    }
}

impl Hasher for FastHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.add(u64::from_le_bytes(c.try_into().expect("8 bytes")));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut buf = [0u8; 8];
            buf[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(buf));
        }
    }
    #[inline]
    fn write_u8(&mut self, n: u8) {
        self.add(n as u64);
    }
    #[inline]
    fn write_u32(&mut self, n: u32) {
        self.add(n as u64);
    }
    #[inline]
    fn write_u64(&mut self, n: u64) {
        self.add(n);
    }
    #[inline]
    fn write_usize(&mut self, n: usize) {
        self.add(n as u64);
    }
    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
}

/// A `HashMap` with [`FastHasher`].
pub type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<FastHasher>>;

#[cfg(test)]
mod tests {
    use super::*;
    use std::hash::{BuildHasher, Hash};

    fn hash<T: Hash>(t: &T) -> u64 {
        BuildHasherDefault::<FastHasher>::default().hash_one(t)
    }

    #[test]
    fn equal_keys_hash_equal_and_near_keys_differ() {
        assert_eq!(hash(&"entropy"), hash(&"entropy"));
        assert_ne!(hash(&"entropy"), hash(&"entropie"));
        // Strings are length-prefixed by `Hash for str` (0xff terminator): "ab" + "c" ≠ "a" + "bc".
        assert_ne!(hash(&("ab", "c")), hash(&("a", "bc")));
        assert_ne!(hash(&(0usize, 1u32)), hash(&(1usize, 0u32)));
    }

    #[test]
    fn a_map_behaves_like_a_map() {
        let mut m: FastMap<(usize, u32), f32> = FastMap::default();
        for s in 0..50usize {
            for k in 0..200u32 {
                *m.entry((s, k)).or_insert(0.0) += 1.0;
            }
        }
        assert_eq!(m.len(), 10_000);
        assert_eq!(m[&(49, 199)], 1.0);
        assert!(!m.contains_key(&(50, 0)));
    }
}
