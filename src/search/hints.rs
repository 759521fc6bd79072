//! Query hints (variant E): values read from the query text become scope constraints when they
//! name something the scope holds, or soft rerank evidence otherwise.

use super::{Library, Trace};
use crate::format::Field;
use crate::gate::{self, Gating};
use crate::scope::Scope;
use crate::understand::{resolve, Understanding};

impl Library {
    /// Known values of a field over the shards of `indices` (facets, or subject/level).
    fn known_values(&self, field: Field, indices: &[usize]) -> Vec<String> {
        let mut v: Vec<String> = match field {
            Field::Subject => self
                .manifest
                .shards
                .iter()
                .map(|s| s.subject.clone())
                .collect(),
            Field::Level => self
                .manifest
                .shards
                .iter()
                .map(|s| s.level.clone())
                .collect(),
            _ => indices
                .iter()
                .filter_map(|&i| self.manifest.shards[i].facets.get(field.name()))
                .flat_map(|m| m.keys().cloned())
                .collect(),
        };
        crate::order::sort(&mut v);
        v.dedup();
        v
    }

    /// Merges query-text hints into the requested scope (variant E). Returns the effective scope
    /// and the hints left as soft rerank evidence.
    pub(super) fn merge_hints(
        &self,
        requested: &Scope,
        u: &Understanding,
        trace: &mut Trace,
    ) -> (Scope, Vec<(Field, String)>) {
        let mut scope = requested.clone();
        let mut soft = Vec::new();
        for field in [Field::Subject, Field::Level] {
            let Some(h) = u.hints.get(&field) else {
                continue;
            };
            let indices = self.shard_indices(&scope, Gating::Gated);
            let Some(v) = resolve(h, &self.known_values(field, &indices)) else {
                continue;
            };
            match requested.get(field) {
                Some(r) if r != v => trace
                    .conflicts
                    .push(format!("{field}: query says {v}, scope says {r}")),
                Some(_) => {}
                None => {
                    let candidate = scope.clone().with(field, v.clone());
                    if !self.shard_indices(&candidate, Gating::Gated).is_empty() {
                        scope = candidate;
                        trace.hints_applied.push(format!("{field}={v}"));
                    }
                }
            }
        }
        for field in [
            Field::Chapter,
            Field::Exam,
            Field::Paper,
            Field::Year,
            Field::QuestionNumber,
        ] {
            let Some(h) = u.hints.get(&field) else {
                continue;
            };
            let indices = self.shard_indices(&scope, Gating::Gated);
            let value = match field {
                Field::Exam | Field::Paper | Field::Year => {
                    resolve(h, &self.known_values(field, &indices))
                }
                _ => Some(h.clone()),
            };
            let Some(v) = value else { continue };
            match requested.get(field) {
                Some(r) if r != v => trace
                    .conflicts
                    .push(format!("{field}: query says {v}, scope says {r}")),
                Some(_) => {}
                None => {
                    // A hint becomes a hard constraint only if it still admits something.
                    let candidate = scope.clone().with(field, v.clone());
                    let admits = indices
                        .iter()
                        .filter_map(|&i| self.shards[i].as_ref())
                        .any(|s| s.chunks().iter().any(|c| gate::admits(&candidate, c)));
                    if admits {
                        scope = candidate;
                        trace.hints_applied.push(format!("{field}={v}"));
                    } else {
                        soft.push((field, v));
                    }
                }
            }
        }
        (scope, soft)
    }
}
