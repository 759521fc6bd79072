//! The Unicode facts text analysis needs: combining marks and canonical decomposition, from two
//! compact generated tables instead of the `unicode-normalization` crate.
//!
//! **Why hand-written (measured):** `unicode-normalization`'s perfect-hash tables for canonical
//! *and* compatibility decomposition, composition and combining classes were 125,743 B of the
//! 791,819 B browser module (its `Decompositions` iterator chooses the table at run time, so the
//! compatibility tables were linked although only NFD/NFC are used); brotli 268,656 → 215,261 B
//! without them. The tables here (`tables.rs`, generated from that crate by
//! `CHSR_BLESS=1 cargo test --test unicode_tables`) are the 333 mark ranges, the 2,081
//! single-step canonical decompositions (packed as three columns of LEB128 deltas, unpacked
//! once into one `u64` each), and the few compositions of two non-marks outside Hangul — about
//! 11 KB.
//!
//! **Same results:** `tests/unicode_tables.rs` compares [`fold_accents`](crate::analysis::fold_accents)'s
//! per-character path, [`strip_nonspacing`] and [`is_combining_mark`] with the crate on every code
//! point, and folding on every pair that NFC can compose, and checks that the committed tables
//! are exactly what the generator writes.

#[rustfmt::skip]
mod tables;

use std::sync::OnceLock;
pub use tables::UNICODE_VERSION;
use unicode_categories::UnicodeCategories;

const S_BASE: u32 = 0xAC00;
const L_BASE: u32 = 0x1100;
const V_BASE: u32 = 0x1161;
const T_BASE: u32 = 0x11A7;
const L_COUNT: u32 = 19;
const V_COUNT: u32 = 21;
const T_COUNT: u32 = 28;
const N_COUNT: u32 = V_COUNT * T_COUNT;
const S_COUNT: u32 = L_COUNT * N_COUNT;

/// Whether `c` is a combining mark (general category Mn, Mc or Me), as
/// `unicode_normalization::char::is_combining_mark` answers it.
pub fn is_combining_mark(c: char) -> bool {
    let u = c as u32;
    if u < 0x300 {
        return false;
    }
    tables::MARKS
        .binary_search_by(|&(lo, hi)| {
            if hi < u {
                std::cmp::Ordering::Less
            } else if lo > u {
                std::cmp::Ordering::Greater
            } else {
                std::cmp::Ordering::Equal
            }
        })
        .is_ok()
}

/// The single-step canonical decompositions, `(character << 42) | (first << 21) | second`
/// sorted by character, unpacked once from `tables::CANONICAL_PACKED` (8.6 KB in the module
/// instead of 16.6 KB, and 3.5 KB instead of 6.6 KB with brotli, which every student downloads).
fn canonical() -> &'static [u64] {
    static TABLE: OnceLock<Vec<u64>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut bytes = &tables::CANONICAL_PACKED[..];
        let mut next = || {
            let v = crate::format::read_varint(&mut bytes);
            u64::from(v.expect("the generated table holds every entry's three numbers"))
        };
        let mut table = Vec::with_capacity(tables::CANONICAL_LEN);
        let mut c = 0u64;
        for _ in 0..tables::CANONICAL_LEN {
            c += next();
            table.push(c << 42);
        }
        let mut first = 0i64;
        for e in &mut table {
            let z = next();
            first += (z >> 1) as i64 ^ -((z & 1) as i64);
            *e |= (first as u64 & 0x1F_FFFF) << 21;
        }
        for e in &mut table {
            *e |= next() & 0x1F_FFFF;
        }
        table
    })
}

/// One step of the canonical decomposition mapping of `c` (`None` when it has none).
fn decompose_step(c: char) -> Option<(char, Option<char>)> {
    let u = c as u32;
    if u < 0xC0 {
        return None;
    }
    let table = canonical();
    let i = table.binary_search_by_key(&u, |&e| (e >> 42) as u32).ok()?;
    let e = table[i];
    let first = char::from_u32(((e >> 21) & 0x1F_FFFF) as u32)?;
    let second = (e & 0x1F_FFFF) as u32;
    Some((
        first,
        (second != 0).then(|| char::from_u32(second)).flatten(),
    ))
}

/// The full canonical decomposition of one character (its NFD), Hangul syllables included,
/// handed to `out` character by character.
pub fn decompose_canonical(c: char, out: &mut impl FnMut(char)) {
    let u = c as u32;
    if (S_BASE..S_BASE + S_COUNT).contains(&u) {
        let s = u - S_BASE;
        let to_char = |x: u32| char::from_u32(x).unwrap_or(c);
        out(to_char(L_BASE + s / N_COUNT));
        out(to_char(V_BASE + (s % N_COUNT) / T_COUNT));
        if !s.is_multiple_of(T_COUNT) {
            out(to_char(T_BASE + s % T_COUNT));
        }
        return;
    }
    match decompose_step(c) {
        Some((first, second)) => {
            decompose_canonical(first, out);
            if let Some(second) = second {
                decompose_canonical(second, out);
            }
        }
        None => out(c),
    }
}

/// The canonical composition of two non-marks, as NFC applies it (Hangul L+V and LV+T, and the
/// few other pairs of starters in the tables).
pub fn compose_starters(a: char, b: char) -> Option<char> {
    let (a, b) = (a as u32, b as u32);
    if (L_BASE..L_BASE + L_COUNT).contains(&a) && (V_BASE..V_BASE + V_COUNT).contains(&b) {
        return char::from_u32(S_BASE + ((a - L_BASE) * V_COUNT + (b - V_BASE)) * T_COUNT);
    }
    if (S_BASE..S_BASE + S_COUNT).contains(&a)
        && (a - S_BASE).is_multiple_of(T_COUNT)
        && (T_BASE + 1..T_BASE + T_COUNT).contains(&b)
    {
        return char::from_u32(a + (b - T_BASE));
    }
    tables::COMPOSE_STARTERS
        .iter()
        .find(|&&(x, y, _)| x == a && y == b)
        .and_then(|&(_, _, c)| char::from_u32(c))
}

/// BERT's accent stripping: canonical decomposition, then every non-spacing mark (Mn, as
/// `unicode_categories` classes it) dropped: `é` → `e`, `한` → its three jamo.
///
/// The same as `s.nfd().filter(|c| !c.is_mark_nonspacing())` for every character and for every
/// text whose kept combining characters are in canonical order; NFD would reorder out-of-order
/// kept marks (only marks newer than `unicode_categories`' tables, which WordPiece maps to the
/// unknown token in either order).
pub fn strip_nonspacing(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        decompose_canonical(c, &mut |x| {
            if !x.is_mark_nonspacing() {
                out.push(x)
            }
        });
    }
    out
}
