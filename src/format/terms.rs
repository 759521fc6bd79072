//! The per-shard term summary of the manifest: a Bloom filter of the shard's analysed terms.
//!
//! A reader decides from the manifest alone, before fetching a shard, whether a query could
//! match in it: a shard whose lexicon holds none of the query's terms scores nothing on BM25
//! and gives nothing to the dense path either (which skips a shard knowing no query term), so a
//! widening step that would load it only to find nothing skips it instead. A Bloom filter has
//! no false negatives: a shard the filter rules out cannot match; one it lets through matches
//! or is a false positive (a wasted download, as without the filter).
//!
//! **Sizing.** For `n` distinct terms and the design false-positive rate
//! [`TERM_FILTER_FP_RATE`] (1 %), `m = ⌈−n·ln p / ln²2⌉` bits rounded up to a whole byte (9.6
//! bits per term) and `k = round(m/n · ln 2)` hash functions (7). Bits are set by double
//! hashing (Kirsch–Mitzenmacher): `h1`, `h2` from FNV-1a 64 of the term's UTF-8 bytes and a
//! SplitMix64 finaliser of it, probe `i` at `(h1 + i·h2) mod m`. Nothing depends on a seed, the
//! platform or hash-map order, so the same lexicon gives the same bytes (builds stay
//! byte-identical). The bit array is stored base64 (standard alphabet, padded), bit `j` in byte
//! `j / 8` at `1 << (j % 8)`.
//!
//! **Where they are.** Only a widening step reads the filters (W2 asking for another level's
//! shards, W3 for every shard within the locks), so they are not in the manifest that every
//! first visit downloads: `chsr build` writes them, as raw bit arrays, to one file of their own
//! (`terms.<16 hex>.chsrt`, [`TermFiltersFile`], framed like the other files and named in the
//! manifest's `terms`), which a reader fetches only when a widening step asks for it.
//!
//! **Compatibility.** A manifest may still carry a filter per shard inline (`shards[].terms`,
//! base64, as written before the filters had their own file); it reads as before. A manifest
//! with neither (written before the filter existed) reads too, and every shard is then assumed
//! to possibly match. A filter that does not decode (wrong length, bad base64) is treated the
//! same way, so it can only cost a download, never hide a shard.

use super::frame::FrameKind;
use super::{FormatError, FORMAT_VERSION, MAX_PAYLOAD};
use bincode::{Decode, Encode};
use serde::{Deserialize, Serialize};

/// The design false-positive rate of a shard's term filter.
pub const TERM_FILTER_FP_RATE: f64 = 0.01;

/// A Bloom filter of a shard's analysed terms, as listed in the manifest.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TermFilter {
    /// Distinct terms inserted.
    pub terms: u64,
    /// Bits in the filter (`m`).
    pub bits: u64,
    /// Hash functions (`k`).
    pub hashes: u32,
    /// The bit array, base64 (standard alphabet, padded).
    pub filter: String,
}

fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The `k` bit positions of `term` in a filter of `m` bits.
fn probes(term: &str, m: u64, k: u32) -> impl Iterator<Item = u64> {
    let h1 = fnv1a(term.as_bytes());
    let h2 = mix(h1) | 1;
    (0..u64::from(k)).map(move |i| h1.wrapping_add(i.wrapping_mul(h2)) % m)
}

/// The Bloom filter of `terms` (distinct) sized for a false-positive rate `p`: (terms, bits `m`,
/// hashes `k`, the bit array).
fn bit_array<'a>(
    terms: impl ExactSizeIterator<Item = &'a str>,
    p: f64,
) -> (u64, u64, u32, Vec<u8>) {
    let n = terms.len().max(1) as f64;
    let ln2 = std::f64::consts::LN_2;
    let bits = ((-n * p.ln() / (ln2 * ln2)).ceil() as u64)
        .max(8)
        .div_ceil(8)
        * 8;
    let hashes = ((bits as f64 / n) * ln2).round().clamp(1.0, 16.0) as u32;
    let mut bytes = vec![0u8; (bits / 8) as usize];
    let count = terms.len() as u64;
    for t in terms {
        for j in probes(t, bits, hashes) {
            bytes[(j / 8) as usize] |= 1 << (j % 8);
        }
    }
    (count, bits, hashes, bytes)
}

impl TermFilter {
    /// The filter of `terms` (distinct), sized for [`TERM_FILTER_FP_RATE`].
    pub fn build<'a>(terms: impl ExactSizeIterator<Item = &'a str>) -> TermFilter {
        TermFilter::with_rate(terms, TERM_FILTER_FP_RATE)
    }

    /// The filter of `terms` (distinct), sized for a false-positive rate `p`.
    pub fn with_rate<'a>(terms: impl ExactSizeIterator<Item = &'a str>, p: f64) -> TermFilter {
        let (count, bits, hashes, bytes) = bit_array(terms, p);
        TermFilter {
            terms: count,
            bits,
            hashes,
            filter: base64_encode(&bytes),
        }
    }

    /// The decoded bit array, or `None` when the filter is malformed (then it rules nothing out).
    pub fn decode(&self) -> Option<DecodedFilter> {
        DecodedFilter::new(self.bits, self.hashes, base64_decode(&self.filter)?)
    }
}

/// One shard's filter in the term-filter file: the bit array stored as raw bytes.
#[derive(Clone, Debug, PartialEq, Eq, Encode, Decode)]
pub struct ShardTermFilter {
    /// The shard's file name, as in the manifest.
    pub file: String,
    /// Distinct terms inserted.
    pub terms: u64,
    /// Bits in the filter (`m`).
    pub bits: u64,
    /// Hash functions (`k`).
    pub hashes: u32,
    /// The bit array (bit `j` in byte `j / 8` at `1 << (j % 8)`).
    pub bytes: Vec<u8>,
}

impl ShardTermFilter {
    /// The filter of `terms` (distinct) for the shard stored in `file`.
    pub fn build<'a>(file: &str, terms: impl ExactSizeIterator<Item = &'a str>) -> ShardTermFilter {
        let (count, bits, hashes, bytes) = bit_array(terms, TERM_FILTER_FP_RATE);
        ShardTermFilter {
            file: file.to_string(),
            terms: count,
            bits,
            hashes,
            bytes,
        }
    }

    /// The bit array ready for lookups, or `None` when the filter is malformed.
    pub fn decode(&self) -> Option<DecodedFilter> {
        DecodedFilter::new(self.bits, self.hashes, self.bytes.clone())
    }
}

/// The payload of the term-filter file (`terms.<16 hex>.chsrt`): the filter of every shard a
/// widening step could load, in manifest order.
#[derive(Clone, Debug, PartialEq, Eq, Encode, Decode)]
pub struct TermFiltersFile {
    /// One filter per shard that has one.
    pub filters: Vec<ShardTermFilter>,
}

/// Magic bytes opening the term-filter file.
pub const TERMS_MAGIC: &[u8; 8] = b"CHSRTERM";

const TERMS_FRAME: FrameKind = FrameKind {
    magic: TERMS_MAGIC,
    version: FORMAT_VERSION,
    max_payload: MAX_PAYLOAD,
};

/// Encodes the term-filter file (the frame every chsr file shares; bincode 2 payload).
pub fn encode_term_filters(f: &TermFiltersFile) -> Vec<u8> {
    TERMS_FRAME.encode(f)
}

/// Checks and decodes the term-filter file (`checksum`: verify the payload's SHA-256; a caller
/// that matched the whole file against the manifest's digest may skip it).
pub fn decode_term_filters(bytes: &[u8], checksum: bool) -> Result<TermFiltersFile, FormatError> {
    TERMS_FRAME.decode(bytes, checksum)
}

/// A term filter's bit array, ready for lookups.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DecodedFilter {
    bits: u64,
    hashes: u32,
    bytes: Vec<u8>,
}

impl DecodedFilter {
    /// A filter of `bits` bits and `hashes` hash functions over `bytes`, or `None` when they do
    /// not fit together.
    fn new(bits: u64, hashes: u32, bytes: Vec<u8>) -> Option<DecodedFilter> {
        (bits > 0 && bits.div_ceil(8) == bytes.len() as u64 && (1..=64).contains(&hashes))
            .then_some(DecodedFilter {
                bits,
                hashes,
                bytes,
            })
    }

    /// Whether `term` may be in the shard (`false`: it certainly is not).
    pub fn may_contain(&self, term: &str) -> bool {
        probes(term, self.bits, self.hashes)
            .all(|j| self.bytes[(j / 8) as usize] & (1 << (j % 8)) != 0)
    }
}

const B64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

fn base64_encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for c in bytes.chunks(3) {
        let n = (u32::from(c[0]) << 16)
            | (u32::from(*c.get(1).unwrap_or(&0)) << 8)
            | u32::from(*c.get(2).unwrap_or(&0));
        for (i, shift) in [18, 12, 6, 0].into_iter().enumerate() {
            if i <= c.len() {
                out.push(B64[((n >> shift) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

fn base64_decode(s: &str) -> Option<Vec<u8>> {
    let s = s.as_bytes();
    if !s.len().is_multiple_of(4) {
        return None;
    }
    let val = |c: u8| B64.iter().position(|&x| x == c).map(|v| v as u32);
    let mut out = Vec::with_capacity(s.len() / 4 * 3);
    for (qi, q) in s.chunks(4).enumerate() {
        let last = qi == s.len() / 4 - 1;
        let pad = q.iter().rev().take_while(|&&c| c == b'=').count();
        if pad > 2 || (pad > 0 && !last) {
            return None;
        }
        let mut n = 0u32;
        for &c in &q[..4 - pad] {
            n = (n << 6) | val(c)?;
        }
        n <<= 6 * pad as u32;
        let bytes = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
        out.extend_from_slice(&bytes[..3 - pad]);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_round_trips() {
        for n in 0..10 {
            let b: Vec<u8> = (0..n as u8).map(|x| x.wrapping_mul(37)).collect();
            assert_eq!(base64_decode(&base64_encode(&b)).unwrap(), b);
        }
        assert_eq!(base64_encode(b"Man"), "TWFu");
        assert_eq!(base64_encode(b"Ma"), "TWE=");
        assert!(base64_decode("TW=u").is_none());
        assert!(base64_decode("TWE").is_none());
    }

    #[test]
    fn no_false_negatives_and_a_false_positive_rate_near_design() {
        let terms: Vec<String> = (0..20_000).map(|i| format!("term{i}")).collect();
        let f = TermFilter::build(terms.iter().map(String::as_str));
        assert_eq!(f.hashes, 7);
        assert!(
            (9.5..9.7).contains(&(f.bits as f64 / 20_000.0)),
            "{}",
            f.bits
        );
        let d = f.decode().unwrap();
        assert!(terms.iter().all(|t| d.may_contain(t)));
        let probes = 100_000;
        let fp = (0..probes)
            .filter(|i| d.may_contain(&format!("other{i}")))
            .count() as f64
            / probes as f64;
        assert!(fp < 0.015, "false-positive rate {fp}");
        assert!(fp > 0.005, "false-positive rate {fp} suspiciously low");
    }

    #[test]
    fn bytes_are_deterministic_and_malformed_filters_rule_nothing_out() {
        let terms = ["alpha", "beta", "gamma"];
        let a = TermFilter::build(terms.iter().copied());
        let b = TermFilter::build(terms.iter().copied());
        assert_eq!(a, b);
        let mut bad = a.clone();
        bad.bits += 64;
        assert!(bad.decode().is_none());
        bad = a.clone();
        bad.filter = "!!!!".into();
        assert!(bad.decode().is_none());
        let empty = TermFilter::build(std::iter::empty());
        assert!(!empty.decode().unwrap().may_contain("alpha"));
    }

    #[test]
    fn the_filter_file_round_trips_and_answers_as_the_inline_filter() {
        let terms = ["alpha", "beta", "gamma"];
        let inline = TermFilter::build(terms.iter().copied()).decode().unwrap();
        let file = TermFiltersFile {
            filters: vec![ShardTermFilter::build(
                "a.0123456789abcdef.chsr",
                terms.iter().copied(),
            )],
        };
        let bytes = encode_term_filters(&file);
        assert_eq!(bytes, encode_term_filters(&file), "deterministic bytes");
        let back = decode_term_filters(&bytes, true).unwrap();
        assert_eq!(back, file);
        let d = back.filters[0].decode().unwrap();
        assert_eq!(d, inline);
        for t in ["alpha", "beta", "gamma", "delta", "x"] {
            assert_eq!(d.may_contain(t), inline.may_contain(t), "{t}");
        }
        let mut bad = bytes.clone();
        *bad.last_mut().unwrap() ^= 1;
        assert_eq!(
            decode_term_filters(&bad, true),
            Err(FormatError::ChecksumMismatch)
        );
        assert_eq!(
            decode_term_filters(b"CHSRSHRDxxxx", true),
            Err(FormatError::Magic)
        );
    }
}
