//! Facets: the values a scope picker offers, with counts narrowed by the current scope.
//!
//! The page and the embed render pickers from this; they never compute counts or decide which
//! values exist. Subject and level are counted from the manifest (chunks per shard). Any other
//! field is counted over the chunks of the scope's loaded shards that the scope *without that
//! field* admits (so choosing a year narrows the chapters, and the year picker still offers the
//! other years); while a shard the scope needs is not loaded, its manifest facet counts stand in.

use super::Library;
use crate::expand::natural_cmp;
use crate::format::Field;
use crate::gate::{self, Gating};
use crate::scope::Scope;
use serde::Serialize;
use std::collections::BTreeMap;

/// The fields a picker may offer, in display order.
pub const PICKABLE: [Field; 8] = [
    Field::Subject,
    Field::Level,
    Field::DocType,
    Field::Chapter,
    Field::Year,
    Field::Paper,
    Field::Exam,
    Field::Lang,
];

/// One value of a facet.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FacetValue {
    /// The value.
    pub value: String,
    /// Chunks with that value within the rest of the scope.
    pub count: u64,
}

/// The values of one field.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Facet {
    /// The field name.
    pub field: String,
    /// Values in natural order (years newest first); the scope's own value is always listed,
    /// with count 0 when nothing has it.
    pub values: Vec<FacetValue>,
    /// The scope's value, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub selected: Option<String>,
    /// Whether the scope locks the field (a picker for it is not offered).
    pub locked: bool,
    /// Whether the counts come from chunks (loaded shards) rather than the manifest.
    pub exact: bool,
}

/// Adds a run of `run.1` chunks with the value `run.0` to `counts` (none: nothing).
fn flush(counts: &mut BTreeMap<String, u64>, run: (&str, u64)) {
    if run.1 > 0 {
        *counts.entry(run.0.to_string()).or_default() += run.1;
    }
}

impl Library {
    /// The facets of [`PICKABLE`] fields for a picker showing `scope` (see the module docs).
    pub fn facets(&self, scope: &Scope) -> Vec<Facet> {
        PICKABLE.iter().map(|&f| self.facet(scope, f)).collect()
    }

    fn facet(&self, scope: &Scope, field: Field) -> Facet {
        let mut rest = scope.clone();
        rest.fields.remove(&field);
        let mut counts: BTreeMap<String, u64> = BTreeMap::new();
        let shards = self.shard_indices(&rest, Gating::Gated);
        let mut exact = false;
        match field {
            Field::Subject | Field::Level => {
                for &i in &shards {
                    let e = &self.manifest.shards[i];
                    let v = if field == Field::Subject {
                        &e.subject
                    } else {
                        &e.level
                    };
                    *counts.entry(v.clone()).or_default() += e.chunks;
                }
            }
            _ if shards.iter().all(|&i| self.shards[i].is_some()) => {
                exact = true;
                for &i in &shards {
                    let s = self.shards[i].as_ref().expect("checked loaded");
                    let p = &s.payload;
                    // The shard's subject and level decided once (a scope of those alone admits
                    // the whole shard without a test per chunk); neighbouring chunks mostly share
                    // a value (a chapter, a doc type), counted as one run.
                    let admitted = gate::gate_shard(&rest, &p.subject, &p.level, &p.chunks);
                    let mut run: (&str, u64) = ("", 0);
                    for (d, c) in p.chunks.iter().enumerate() {
                        let Some(v) = c.get(field).map(str::trim).filter(|v| !v.is_empty()) else {
                            continue;
                        };
                        if !admitted.contains(d) {
                            continue;
                        }
                        if v != run.0 {
                            flush(&mut counts, run);
                            run = (v, 0);
                        }
                        run.1 += 1;
                    }
                    flush(&mut counts, run);
                }
            }
            _ => {
                for &i in &shards {
                    if let Some(m) = self.manifest.shards[i].facets.get(field.name()) {
                        for (v, n) in m {
                            *counts.entry(v.clone()).or_default() += n;
                        }
                    }
                }
            }
        }
        let selected = scope.get(field).map(str::to_string);
        if let Some(v) = &selected {
            counts.entry(v.clone()).or_default();
        }
        let mut values: Vec<FacetValue> = counts
            .into_iter()
            .map(|(value, count)| FacetValue { value, count })
            .collect();
        // Insertion sort: facet lists are short, and a library sort instantiated for them costs
        // about 7 kB of Wasm (measured with twiggy).
        for i in 1..values.len() {
            let mut j = i;
            while j > 0 && {
                let (a, b) = (&values[j - 1].value, &values[j].value);
                let o = natural_cmp(a, b);
                if field == Field::Year {
                    o == std::cmp::Ordering::Less
                } else {
                    o == std::cmp::Ordering::Greater
                }
            } {
                values.swap(j - 1, j);
                j -= 1;
            }
        }
        Facet {
            field: field.name().to_string(),
            values,
            selected,
            locked: scope.is_locked(field),
            exact,
        }
    }
}
