//! Failure attribution: for an expected chunk, where along the pipeline it was lost.
//!
//! When a student does not get the right material, the fix depends on which responsibility
//! failed. [`explain`] runs the search once with the per-stage lists recorded
//! ([`crate::search::Probe`]) and, for each expected chunk, reports stage by stage:
//!
//! 1. **gate**: was it admitted? If not, which scope field excluded it (or its shard was not
//!    searched at all, for another subject or level); an ungated search admits every chunk, a
//!    post-filtered one excludes what the post-filter drops;
//! 2. **candidate recall**: its rank in the BM25 window and in the dense window (or absent from
//!    both);
//! 3. **fusion**: its rank after RRF (below the cut `k` means fusion lost it);
//! 4. **rerank / dedup**: removed as a near-duplicate, or pushed below the cut by the reranker;
//! 5. **found@N**: its final rank, and whether a relaxation step brought it in.
//!
//! The verdict is the first stage that lost it: `gate`, `candidate_recall`, `fusion`, `rerank`,
//! `dedup`, or `found@N`; `unknown` when no loaded shard holds the id.

use crate::format::ChunkRecord;
use crate::gate;
use crate::scope::Scope;
use crate::search::{Gating, Leakage, Library, SearchError, SearchOptions, SearchResponse, Shard};
use serde::Serialize;
use std::collections::{HashMap, HashSet};

/// The stage-by-stage account of one expected chunk.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ChunkVerdict {
    /// The chunk id asked about.
    pub id: String,
    /// `gate`, `candidate_recall`, `fusion`, `rerank`, `dedup`, `found@N` or `unknown`.
    pub verdict: String,
    /// Whether the gate admitted it.
    pub admitted: bool,
    /// The scope field that excluded it (`subject`/`level` when its shard was not searched).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub excluded_by: Option<String>,
    /// 1-based rank in the BM25 window.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bm25_rank: Option<usize>,
    /// 1-based rank in the dense window.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dense_rank: Option<usize>,
    /// 1-based rank after fusion.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fused_rank: Option<usize>,
    /// Removed as a near-duplicate of this chunk.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub duplicate_of: Option<String>,
    /// Final 1-based rank, if returned.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub final_rank: Option<usize>,
    /// How it was returned (`in_scope`, or the widening that brought it in).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub leakage: Option<Leakage>,
    /// One sentence saying what happened.
    pub explanation: String,
}

/// The explanation of a search for a set of expected chunks.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Explanation {
    /// The search that was explained (results and trace).
    pub response: SearchResponse,
    /// One verdict per expected chunk, in the order asked.
    pub chunks: Vec<ChunkVerdict>,
}

/// Where every chunk id of a library lives, for explaining many searches over the same library
/// (`chsr eval`); [`explain`] alone scans the loaded chunks once per call instead.
pub struct Locator<'a> {
    map: HashMap<&'a str, (&'a Shard, &'a ChunkRecord)>,
}

impl<'a> Locator<'a> {
    /// Indexes every chunk of the loaded shards by id (ids are unique; the first shard wins).
    pub fn new(lib: &'a Library) -> Locator<'a> {
        let mut map = HashMap::new();
        for s in lib.loaded() {
            for c in s.chunks() {
                map.entry(c.id.as_str()).or_insert((s, c));
            }
        }
        Locator { map }
    }
}

/// Explains where each of `expect` was lost (or found) by a search.
pub fn explain(
    lib: &Library,
    query: &str,
    scope: &Scope,
    opts: &SearchOptions,
    expect: &[String],
) -> Result<Explanation, SearchError> {
    explain_inner(lib, None, query, scope, opts, expect)
}

/// Whether this build has [`explain`] (cargo feature `explain`, on by default). The browser's
/// lexical module leaves it out (no student's search runs it): there both functions answer
/// [`SearchError::NotBuilt`], and the compiler drops the rest.
pub const BUILT: bool = cfg!(feature = "explain");

/// [`explain`] with the chunks located by a prebuilt [`Locator`] of the same library.
pub fn explain_located(
    lib: &Library,
    locator: &Locator<'_>,
    query: &str,
    scope: &Scope,
    opts: &SearchOptions,
    expect: &[String],
) -> Result<Explanation, SearchError> {
    explain_inner(lib, Some(locator), query, scope, opts, expect)
}

fn explain_inner(
    lib: &Library,
    locator: Option<&Locator<'_>>,
    query: &str,
    scope: &Scope,
    opts: &SearchOptions,
    expect: &[String],
) -> Result<Explanation, SearchError> {
    if !BUILT {
        return Err(SearchError::NotBuilt("explain"));
    }
    let mut o = opts.clone();
    o.probe = true;
    let mut response = lib.search(query, scope, &o)?;
    let probe = response.trace.probe.take().unwrap_or_default();
    let effective = Scope::from_json(&response.trace.scope).unwrap_or_else(|_| scope.clone());
    let searched: Vec<&str> = response.trace.shards.iter().map(String::as_str).collect();
    let rank_in = |list: &[String], id: &str| list.iter().position(|x| x == id).map(|p| p + 1);
    let k = opts.k;
    let located: HashMap<&str, (&Shard, &ChunkRecord)> = match locator {
        Some(l) => expect
            .iter()
            .filter_map(|id| l.map.get(id.as_str()).map(|&x| (id.as_str(), x)))
            .collect(),
        None => {
            // One pass over the loaded chunks, the searched shards first, stopping once every
            // expected id is found.
            let wanted: HashSet<&str> = expect.iter().map(String::as_str).collect();
            let mut shards: Vec<&Shard> = lib.loaded().collect();
            crate::order::sort_by_key(&mut shards, |s| !searched.contains(&s.entry.file.as_str()));
            let mut found = HashMap::new();
            'scan: for s in shards {
                for c in s.chunks() {
                    if wanted.contains(c.id.as_str()) {
                        found.entry(c.id.as_str()).or_insert((s, c));
                        if found.len() == wanted.len() {
                            break 'scan;
                        }
                    }
                }
            }
            found
        }
    };
    let chunks = expect
        .iter()
        .map(|id| {
            let found = located.get(id.as_str()).copied();
            let mut v = ChunkVerdict {
                id: id.clone(),
                verdict: String::new(),
                admitted: false,
                excluded_by: None,
                bm25_rank: rank_in(&probe.bm25, id),
                dense_rank: rank_in(&probe.dense, id),
                fused_rank: rank_in(&probe.fused, id),
                duplicate_of: response
                    .trace
                    .duplicates
                    .iter()
                    .find(|d| &d.id == id)
                    .map(|d| d.of.clone()),
                final_rank: response
                    .results
                    .iter()
                    .find(|h| &h.id == id)
                    .map(|h| h.rank),
                leakage: response
                    .results
                    .iter()
                    .find(|h| &h.id == id)
                    .map(|h| h.leakage),
                explanation: String::new(),
            };
            let Some((shard, chunk)) = found else {
                v.verdict = "unknown".into();
                v.explanation =
                    "no loaded shard holds this id (wrong id, or its shard is not loaded)".into();
                return v;
            };
            let shard_searched = searched.contains(&shard.entry.file.as_str());
            v.excluded_by = if opts.stages.gating == Gating::Ungated {
                // No gate and no post-filter: every chunk of every shard is a candidate.
                None
            } else if !shard_searched {
                Some(
                    if effective
                        .get(crate::format::Field::Subject)
                        .is_some_and(|s| s != chunk.subject)
                    {
                        "subject"
                    } else {
                        "level"
                    }
                    .to_string(),
                )
            } else {
                gate::excluded_by(&effective, chunk).map(|f| f.name().to_string())
            };
            v.admitted = v.excluded_by.is_none();
            if let Some(r) = v.final_rank {
                v.verdict = format!("found@{r}");
                v.explanation = match v.leakage {
                    Some(Leakage::InScope) | None => format!("returned at rank {r}"),
                    Some(l) => format!(
                        "returned at rank {r}, brought in by widening ({})",
                        serde_json::to_value(l)
                            .ok()
                            .and_then(|x| x.as_str().map(String::from))
                            .unwrap_or_default()
                    ),
                };
            } else if !v.admitted {
                v.verdict = "gate".into();
                v.explanation = format!(
                    "the gate excluded it: its {} does not match the scope ({})",
                    v.excluded_by.as_deref().unwrap_or("?"),
                    effective
                );
            } else if v.bm25_rank.is_none() && v.dense_rank.is_none() && v.fused_rank.is_none() {
                v.verdict = "candidate_recall".into();
                v.explanation = format!(
                    "admitted, but neither BM25 nor the dense path ranked it in its top {}",
                    opts.window.max(k)
                );
            } else if let Some(of) = &v.duplicate_of {
                v.verdict = "dedup".into();
                v.explanation = format!("removed as a near-duplicate of {of}");
            } else if v.fused_rank.is_some_and(|r| r <= k) {
                v.verdict = "rerank".into();
                v.explanation = format!(
                    "fused at rank {}, pushed below the cut of {k} by the reranker",
                    v.fused_rank.unwrap_or(0)
                );
            } else {
                v.verdict = "fusion".into();
                v.explanation = format!(
                    "retrieved (BM25 {}, dense {}), but fused at rank {} below the cut of {k}",
                    v.bm25_rank.map_or("-".to_string(), |r| r.to_string()),
                    v.dense_rank.map_or("-".to_string(), |r| r.to_string()),
                    v.fused_rank.map_or("-".to_string(), |r| r.to_string())
                );
            }
            v
        })
        .collect();
    Ok(Explanation { response, chunks })
}
