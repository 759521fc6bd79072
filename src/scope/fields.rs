//! A scope's constraints and locks by [`Field`], in canonical field order: one slot per field
//! instead of a `BTreeMap` / `BTreeSet`.
//!
//! A scope holds at most 13 fields. The ordered maps gave the browser's module a B-tree's
//! insertion, removal and rebalancing code for these two key types alone (about 8.5 kB of Wasm);
//! [`FieldMap`] and [`FieldSet`] behave as those maps did where the engine uses them (iteration
//! in [`Field::ALL`]'s order, equality, ordering, `Debug` and serde as a map), with an array and a
//! bit set.

use crate::format::Field;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::collections::BTreeMap;
use std::fmt;

const N: usize = Field::ALL.len();
// A FieldSet holds its fields as the bits of a u16.
const _: () = assert!(N <= 16);

/// A field's slot: its place in [`Field::ALL`] (the declaration order, which `Ord` follows).
fn slot(f: Field) -> usize {
    f as usize
}

/// A value per field (a scope's constraints).
#[derive(Clone, Default, PartialEq, Eq, Hash)]
pub struct FieldMap {
    slots: [Option<String>; N],
}

impl FieldMap {
    /// The value of `f`.
    pub fn get(&self, f: &Field) -> Option<&String> {
        self.slots[slot(*f)].as_ref()
    }

    /// Sets `f` to `v`; the previous value.
    pub fn insert(&mut self, f: Field, v: String) -> Option<String> {
        self.slots[slot(f)].replace(v)
    }

    /// Clears `f`; its value.
    pub fn remove(&mut self, f: &Field) -> Option<String> {
        self.slots[slot(*f)].take()
    }

    /// Whether `f` has a value.
    pub fn contains_key(&self, f: &Field) -> bool {
        self.slots[slot(*f)].is_some()
    }

    /// Whether no field has a value.
    pub fn is_empty(&self) -> bool {
        self.slots.iter().all(Option::is_none)
    }

    /// How many fields have a value.
    pub fn len(&self) -> usize {
        self.slots.iter().filter(|s| s.is_some()).count()
    }

    /// The fields with a value and their values, in canonical field order.
    pub fn iter(&self) -> Iter<'_> {
        Iter { map: self, next: 0 }
    }
}

/// [`FieldMap::iter`]'s iterator.
pub struct Iter<'a> {
    map: &'a FieldMap,
    next: usize,
}

impl<'a> Iterator for Iter<'a> {
    type Item = (&'a Field, &'a String);
    fn next(&mut self) -> Option<Self::Item> {
        while self.next < N {
            let i = self.next;
            self.next += 1;
            if let Some(v) = &self.map.slots[i] {
                return Some((&Field::ALL[i], v));
            }
        }
        None
    }
}

impl<'a> IntoIterator for &'a FieldMap {
    type Item = (&'a Field, &'a String);
    type IntoIter = Iter<'a>;
    fn into_iter(self) -> Iter<'a> {
        self.iter()
    }
}

impl PartialOrd for FieldMap {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for FieldMap {
    /// As a `BTreeMap<Field, String>` orders: its entries compared in order.
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.iter().cmp(other.iter())
    }
}

impl fmt::Debug for FieldMap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl FromIterator<(Field, String)> for FieldMap {
    fn from_iter<I: IntoIterator<Item = (Field, String)>>(iter: I) -> Self {
        let mut m = FieldMap::default();
        for (f, v) in iter {
            m.insert(f, v);
        }
        m
    }
}

impl Serialize for FieldMap {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.iter())
    }
}

impl<'de> Deserialize<'de> for FieldMap {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(BTreeMap::<Field, String>::deserialize(d)?
            .into_iter()
            .collect())
    }
}

/// A set of fields (a scope's locks).
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FieldSet {
    bits: u16,
}

impl FieldSet {
    /// Adds `f`; whether it was absent.
    pub fn insert(&mut self, f: Field) -> bool {
        let absent = !self.contains(&f);
        self.bits |= 1 << slot(f);
        absent
    }

    /// Removes `f`; whether it was present.
    pub fn remove(&mut self, f: &Field) -> bool {
        let present = self.contains(f);
        self.bits &= !(1 << slot(*f));
        present
    }

    /// Whether `f` is in the set.
    pub fn contains(&self, f: &Field) -> bool {
        self.bits & (1 << slot(*f)) != 0
    }

    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.bits == 0
    }

    /// Empties the set.
    pub fn clear(&mut self) {
        self.bits = 0;
    }

    /// The fields in the set, in canonical field order.
    pub fn iter(&self) -> impl Iterator<Item = &'static Field> + '_ {
        Field::ALL.iter().filter(|f| self.contains(f))
    }
}

impl fmt::Debug for FieldSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    #[test]
    fn the_slots_follow_the_fields_order() {
        for (i, f) in Field::ALL.iter().enumerate() {
            assert_eq!(slot(*f), i, "{f:?}");
        }
    }

    /// Every operation, on every field, against the ordered map and set the types replace.
    #[test]
    fn they_behave_as_the_ordered_map_and_set() {
        let mut seed = 7u64;
        let mut next = move || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) as usize
        };
        let (mut m, mut bm) = (FieldMap::default(), BTreeMap::new());
        let (mut s, mut bs) = (FieldSet::default(), BTreeSet::new());
        let mut maps = Vec::new();
        for _ in 0..2000 {
            let f = Field::ALL[next() % N];
            let v = format!("v{}", next() % 3);
            match next() % 3 {
                0 => assert_eq!(m.insert(f, v.clone()), bm.insert(f, v)),
                1 => assert_eq!(m.remove(&f), bm.remove(&f)),
                _ => assert_eq!(m.get(&f), bm.get(&f)),
            }
            match next() % 3 {
                0 => assert_eq!(s.insert(f), bs.insert(f)),
                1 => assert_eq!(s.remove(&f), bs.remove(&f)),
                _ => assert_eq!(s.contains(&f), bs.contains(&f)),
            }
            assert!(m.iter().eq(bm.iter()));
            assert_eq!((m.len(), m.is_empty()), (bm.len(), bm.is_empty()));
            assert!(s.iter().eq(bs.iter()));
            assert_eq!(format!("{m:?} {s:?}"), format!("{bm:?} {bs:?}"));
            assert_eq!(
                serde_json::to_string(&m).unwrap(),
                serde_json::to_string(&bm).unwrap()
            );
            maps.push((m.clone(), bm.clone()));
        }
        for (a, ba) in maps.iter().step_by(37) {
            for (b, bb) in maps.iter().step_by(41) {
                assert_eq!(a.cmp(b), ba.cmp(bb));
                assert_eq!(a == b, ba == bb);
            }
        }
        let back: FieldMap = serde_json::from_str(&serde_json::to_string(&bm).unwrap()).unwrap();
        assert_eq!(back, m);
    }
}
