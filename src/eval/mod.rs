//! `chsr eval`: the OpenCERB benchmark harness (native only).
//!
//! A *system* is a name and the [`SearchOptions`] it searches with; the harness runs every query
//! of a set through every system over one [`Library`] with all shards loaded, scores each result
//! list ([`metrics`]), aggregates overall and per slice, compares consecutive systems with a
//! paired bootstrap ([`stats`]), runs the consistency judge ([`judge`]), attributes every missed
//! relevant chunk to the stage that lost it and sorts the queries into the outcome categories
//! ([`taxonomy`]), and renders the report ([`report`]: JSON, markdown, SVG charts).
//!
//! Adding a pipeline variant is one line in [`systems::system`]: map its name to its options.

pub mod expand;
pub mod judge;
pub mod metrics;
pub mod queries;
pub mod relax;
pub mod report;
pub mod stats;
pub mod svg;
pub mod systems;
pub mod taxonomy;

pub use systems::{all_systems, consecutive_pairs, parse_pairs, parse_systems, system, System};

use crate::format::{ChunkRecord, Field};
use crate::search::{Gating, Library, SearchOptions};
use metrics::{ChunkIndex, QueryMetrics};
use queries::EvalQuery;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::time::Instant;
use taxonomy::{QueryTaxon, Stage, VariantTaxonomy};

/// Errors of an evaluation run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EvalError {
    /// A search failed for a query.
    Search {
        /// Query id.
        query: String,
        /// System name.
        system: String,
        /// The error.
        message: String,
    },
}

impl fmt::Display for EvalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EvalError::Search {
                query,
                system,
                message,
            } => write!(f, "query {query} ({system}): {message}"),
        }
    }
}

impl std::error::Error for EvalError {}

/// One query run through one system.
#[derive(Clone, Debug, PartialEq)]
pub struct QueryRun {
    /// Returned chunk ids, in rank order.
    pub ids: Vec<String>,
    /// Of those, the ids the W3 fallback found (never counted as success).
    pub fallback_ids: Vec<String>,
    /// The metrics.
    pub metrics: QueryMetrics,
    /// Relaxation metrics: outside the declared scope, labels, widening.
    pub relax: relax::RelaxMetrics,
    /// What section expansion adds (`--expand`; `None` when not measured).
    pub expand: Option<expand::ExpandMetrics>,
    /// Wall-clock time of the search call, in milliseconds.
    pub latency_ms: f64,
    /// Sum of the manifest `bytes` of the shards the search reads.
    pub shard_bytes: u64,
    /// When the query misses (fewer than min(|relevant|, K) relevant chunks in the top K): each
    /// relevant chunk missing from the top K with the stage `explain` says lost it, in id order.
    pub lost: Option<Vec<(String, Stage)>>,
}

/// Every query run through one system (same order as the query set).
#[derive(Clone, Debug)]
pub struct SystemRun {
    /// The system.
    pub system: System,
    /// One run per query.
    pub runs: Vec<QueryRun>,
    /// Seconds spent in `explain` for the failure attribution (not part of the latencies).
    pub explain_secs: f64,
}

/// Chunk id → record over every loaded shard.
pub fn chunk_index(lib: &Library) -> ChunkIndex<'_> {
    lib.loaded()
        .flat_map(|s| s.chunks().iter())
        .map(|c| (c.id.as_str(), c))
        .collect()
}

/// Runs every query through every system. Queries go in order and, for each query, every system
/// (in an order rotated by one from query to query), so that a warm cache or a busy neighbour
/// affects all systems alike. Each search is timed `repeat` times (at least once) and its latency
/// is the median of those calls, which damps the noise of a shared machine. A query that misses
/// (fewer than min(|relevant|, K) relevant chunks in its top K) is then explained once, untimed,
/// with its relevant ids ([`crate::explain::explain`], same options): each missing relevant chunk
/// gets the stage that lost it. The explained search must return the same list as the timed
/// one. Every shard a system needs must be loaded.
pub fn run_systems(
    lib: &Library,
    queries: &[EvalQuery],
    systems: &[System],
    repeat: usize,
) -> Result<Vec<SystemRun>, EvalError> {
    run_systems_expanding(lib, queries, systems, repeat, 0)
}

/// [`run_systems`], and with `expand_chars` > 0 each query is searched once more, untimed, with
/// section expansion of that budget ([`expand`]); the ranked ids must be the same.
pub fn run_systems_expanding(
    lib: &Library,
    queries: &[EvalQuery],
    systems: &[System],
    repeat: usize,
    expand_chars: usize,
) -> Result<Vec<SystemRun>, EvalError> {
    let corpus = chunk_index(lib);
    let sections = expand::section_index(&corpus);
    let locator = crate::explain::Locator::new(lib);
    let manifest = lib.manifest();
    let mut out: Vec<SystemRun> = systems
        .iter()
        .map(|s| SystemRun {
            system: s.clone(),
            runs: Vec::with_capacity(queries.len()),
            explain_secs: 0.0,
        })
        .collect();
    let m = systems.len();
    for (qi, q) in queries.iter().enumerate() {
        // Rotate the order of the systems from one query to the next, so that no system always
        // runs first (cold caches) or right after another one searched the same terms.
        for si in (0..m).map(|j| (j + qi) % m) {
            let (sys, run) = (&systems[si], &mut out[si]);
            let mut times = Vec::with_capacity(repeat.max(1));
            let mut resp = None;
            for _ in 0..repeat.max(1) {
                let t = Instant::now();
                let r = search_or_miss(lib, q, &sys.name, &sys.opts, "")?;
                times.push(t.elapsed().as_secs_f64() * 1000.0);
                resp.get_or_insert(r);
            }
            let resp = resp.expect("searched at least once");
            let latency_ms = stats::median(&times);
            // What the search downloads: the shards, and their vectors when it has a dense path.
            let shard_bytes = lib
                .shard_indices(&q.scope, sys.opts.stages.gating)
                .into_iter()
                .map(|i| {
                    let s = &manifest.shards[i];
                    let part = s.dense.as_ref().filter(|_| sys.opts.stages.dense);
                    s.bytes + part.map_or(0, |p| p.bytes)
                })
                .sum();
            let results: Vec<&ChunkRecord> = resp
                .results
                .iter()
                .map(|h| {
                    corpus
                        .get(h.id.as_str())
                        .copied()
                        .ok_or_else(|| EvalError::Search {
                            query: q.id.clone(),
                            system: sys.name.clone(),
                            message: format!("result {} is in no loaded shard", h.id),
                        })
                })
                .collect::<Result<_, _>>()?;
            let ids: Vec<String> = resp.results.iter().map(|h| h.id.clone()).collect();
            let labels: Vec<_> = resp.results.iter().map(|h| h.leakage).collect();
            let relax = relax::score(
                q,
                &results,
                &labels,
                resp.trace.relaxation.as_ref(),
                &corpus,
                sys.opts.k,
            );
            let expansion = if expand_chars > 0 {
                let opts = SearchOptions {
                    expand_chars,
                    ..sys.opts.clone()
                };
                let ex = search_or_miss(lib, q, &sys.name, &opts, "expand: ")?;
                let again: Vec<&str> = ex.results.iter().map(|h| h.id.as_str()).collect();
                if again != ids.iter().map(String::as_str).collect::<Vec<_>>() {
                    return Err(EvalError::Search {
                        query: q.id.clone(),
                        system: sys.name.clone(),
                        message: format!(
                            "the search with expansion returned {again:?}, without {ids:?}: \
                             expansion must not change the ranking"
                        ),
                    });
                }
                Some(expand::score(lib, q, &ex, &corpus, &sections, sys.opts.k))
            } else {
                None
            };
            let t = Instant::now();
            let lost = attribute(lib, &locator, q, sys, &ids)?;
            run.explain_secs += t.elapsed().as_secs_f64();
            let fallback_ids = resp
                .results
                .iter()
                .filter(|h| h.leakage == crate::gate::Leakage::Fallback)
                .map(|h| h.id.clone())
                .collect();
            run.runs.push(QueryRun {
                ids,
                fallback_ids,
                metrics: metrics::score(q, &results, &labels, &corpus, sys.opts.k),
                relax,
                expand: expansion,
                latency_ms,
                shard_bytes,
                lost,
            });
        }
    }
    Ok(out)
}

/// One search of an evaluation run. A scope value the index does not have (a site without that
/// year or paper) admits nothing: a miss (an empty response), not an abort; any other error
/// stops the run, its message prefixed with `context`.
fn search_or_miss(
    lib: &Library,
    q: &EvalQuery,
    system: &str,
    opts: &SearchOptions,
    context: &str,
) -> Result<crate::search::SearchResponse, EvalError> {
    match lib.search(&q.query, &q.scope, opts) {
        Ok(r) => Ok(r),
        Err(crate::search::SearchError::Scope(crate::scope::ScopeError::UnknownValue {
            ..
        })) => Ok(crate::search::SearchResponse::default()),
        Err(e) => Err(EvalError::Search {
            query: q.id.clone(),
            system: system.to_string(),
            message: format!("{context}{e}"),
        }),
    }
}

/// The missing relevant chunks of a query with the stage that lost each (see [`run_systems`]);
/// `None` when the query does not miss.
fn attribute(
    lib: &Library,
    locator: &crate::explain::Locator<'_>,
    q: &EvalQuery,
    sys: &System,
    ids: &[String],
) -> Result<Option<Vec<(String, Stage)>>, EvalError> {
    let k = sys.opts.k;
    let top: BTreeSet<&str> = ids.iter().take(k).map(String::as_str).collect();
    let hits = q
        .grades
        .keys()
        .filter(|id| top.contains(id.as_str()))
        .count();
    if hits >= q.grades.len().min(k) {
        return Ok(None);
    }
    let err = |message: String| EvalError::Search {
        query: q.id.clone(),
        system: sys.name.clone(),
        message,
    };
    let expect: Vec<String> = q.grades.keys().cloned().collect();
    // A scope value the index lacks admits nothing: every relevant chunk is lost at the gate.
    if let Err(crate::scope::ScopeError::UnknownValue { .. }) = q.scope.validate(lib.manifest()) {
        return Ok(Some(
            expect.into_iter().map(|id| (id, Stage::Gate)).collect(),
        ));
    }
    let ex = crate::explain::explain_located(lib, locator, &q.query, &q.scope, &sys.opts, &expect)
        .map_err(|e| err(format!("explain: {e}")))?;
    let again: Vec<&str> = ex.response.results.iter().map(|h| h.id.as_str()).collect();
    if again != ids.iter().map(String::as_str).collect::<Vec<_>>() {
        return Err(err(format!(
            "explain's search returned {again:?}, the timed search {ids:?}: the search is not \
             deterministic"
        )));
    }
    let mut lost = Vec::new();
    for v in ex.chunks {
        match (Stage::from_verdict(&v.verdict), top.contains(v.id.as_str())) {
            (Some(s), false) => lost.push((v.id, s)),
            (None, true) => {}
            (_, returned) => {
                return Err(err(format!(
                    "explain says {} for {}, which the search {} return",
                    v.verdict,
                    v.id,
                    if returned { "did" } else { "did not" }
                )))
            }
        }
    }
    Ok(Some(lost))
}

/// Metrics averaged over a set of queries.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Aggregate {
    /// Queries.
    pub n: usize,
    /// Mean P@K.
    pub precision: f64,
    /// Mean R@K.
    pub recall: f64,
    /// Mean graded nDCG@K.
    pub ndcg: f64,
    /// Mean share of leaked results.
    pub leakage: f64,
    /// Share of queries with at least one leaked result.
    pub any_leak_rate: f64,
    /// Mean contamination in the paper's sense (on topic, another question, paper or year) over
    /// the eligible queries (`null` when none is eligible).
    pub contamination: Option<f64>,
    /// Queries eligible for contamination (a relevant chunk in the loaded shards).
    pub contamination_n: usize,
    /// Mean section contamination (another section or question, for queries naming one: the
    /// measure called contamination before) over its eligible queries.
    pub section_contamination: Option<f64>,
    /// Queries eligible for section contamination.
    pub section_contamination_n: usize,
    /// Results found by the W3 fallback, per query (never counted as success).
    pub fallback: f64,
    /// Exact-scope success rate.
    pub ess: f64,
    /// Median latency (nearest rank), ms.
    pub latency_ms_p50: f64,
    /// 95th percentile latency (nearest rank), ms.
    pub latency_ms_p95: f64,
    /// Mean shard bytes read per query.
    pub bytes_per_query: f64,
    /// Mean number of results returned.
    pub returned: f64,
    /// Relaxation: widened queries, results outside the declared scope, labels.
    pub relaxation: relax::RelaxAggregate,
    /// Section expansion: what it adds to the context and what it costs (`--expand`; omitted
    /// when not measured).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expansion: Option<expand::ExpandAggregate>,
}

/// Aggregates runs (all, or a subset by index).
pub fn aggregate<'a>(runs: impl IntoIterator<Item = &'a QueryRun>) -> Aggregate {
    let runs: Vec<&QueryRun> = runs.into_iter().collect();
    let f =
        |g: &dyn Fn(&QueryRun) -> f64| stats::mean(&runs.iter().map(|r| g(r)).collect::<Vec<_>>());
    let contam: Vec<f64> = runs
        .iter()
        .filter_map(|r| r.metrics.contamination)
        .collect();
    let section: Vec<f64> = runs
        .iter()
        .filter_map(|r| r.metrics.section_contamination)
        .collect();
    let lat: Vec<f64> = runs.iter().map(|r| r.latency_ms).collect();
    Aggregate {
        n: runs.len(),
        precision: f(&|r| r.metrics.precision),
        recall: f(&|r| r.metrics.recall),
        ndcg: f(&|r| r.metrics.ndcg),
        leakage: f(&|r| r.metrics.leakage),
        any_leak_rate: f(&|r| f64::from(u8::from(r.metrics.any_leak))),
        contamination: (!contam.is_empty()).then(|| stats::mean(&contam)),
        contamination_n: contam.len(),
        section_contamination: (!section.is_empty()).then(|| stats::mean(&section)),
        section_contamination_n: section.len(),
        fallback: f(&|r| r.metrics.fallback as f64),
        ess: f(&|r| f64::from(u8::from(r.metrics.exact))),
        latency_ms_p50: stats::percentile_nearest_rank(&lat, 50.0),
        latency_ms_p95: stats::percentile_nearest_rank(&lat, 95.0),
        bytes_per_query: f(&|r| r.shard_bytes as f64),
        returned: f(&|r| r.metrics.returned as f64),
        relaxation: relax::aggregate(runs.iter().map(|r| &r.relax)),
        expansion: expand::aggregate(runs.iter().map(|r| r.expand.as_ref())),
    }
}

/// One system's results: overall and per slice.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct VariantReport {
    /// System name.
    pub name: String,
    /// Gating mode.
    pub gating: Gating,
    /// Over every query (the metric names are the top-level keys).
    #[serde(flatten)]
    pub overall: Aggregate,
    /// Per slice.
    pub slices: BTreeMap<String, Aggregate>,
    /// Failure taxonomy: stage attribution and outcome categories, overall and per slice.
    pub taxonomy: VariantTaxonomy,
}

/// Bootstrap results of one pair, per metric.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PairMetrics {
    /// R@K.
    pub recall: stats::Bootstrap,
    /// nDCG@K.
    pub ndcg: stats::Bootstrap,
    /// Leakage.
    pub leakage: stats::Bootstrap,
    /// Exact-scope success.
    pub ess: stats::Bootstrap,
}

/// A paired comparison `to − from`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PairReport {
    /// Baseline system.
    pub from: String,
    /// Compared system.
    pub to: String,
    /// Per metric.
    pub metrics: PairMetrics,
}

/// Bootstrap settings and pairs.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BootstrapReport {
    /// Resamples.
    pub resamples: usize,
    /// PRNG seed (SplitMix64).
    pub seed: u64,
    /// The pairs.
    pub pairs: Vec<PairReport>,
}

/// Where the queries came from.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct QuerySetInfo {
    /// File name (no directory).
    pub file: String,
    /// SHA-256 of the file.
    pub sha256: String,
    /// Queries.
    pub count: usize,
    /// Queries per slice.
    pub slices: BTreeMap<String, usize>,
}

/// What was searched.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CorpusInfo {
    /// Chunks in the manifest.
    pub chunks: u64,
    /// Shards.
    pub shards: usize,
    /// Total shard bytes.
    pub bytes: u64,
    /// The manifest's corpus hash.
    pub corpus_sha256: String,
    /// The embedding model of the dense path, when one is loaded (`null`: A returns nothing and
    /// B–E are lexical only).
    pub model: Option<ModelInfo>,
}

/// The embedding model the dense path used.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ModelInfo {
    /// Model id (source model and distillation parameters).
    pub id: String,
    /// SHA-256 of the model file.
    pub sha256: String,
    /// Vector dimensions.
    pub dims: u32,
}

/// The whole evaluation.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EvalReport {
    /// Cut-off.
    pub k: usize,
    /// Timed calls per search (the latency of a query is their median).
    pub latency_repeats: usize,
    /// Section expansion budget measured, in characters per result (`null`: not measured).
    pub expand_chars: Option<usize>,
    /// Query set.
    pub queries: QuerySetInfo,
    /// Corpus.
    pub corpus: CorpusInfo,
    /// Per system, in the order run.
    pub variants: Vec<VariantReport>,
    /// Paired bootstrap.
    pub bootstrap: BootstrapReport,
    /// Consistency judge.
    pub judge: judge::JudgeReport,
}

/// Settings of [`evaluate`] beyond the systems.
#[derive(Clone, Debug, PartialEq)]
pub struct EvalSettings {
    /// Cut-off K.
    pub k: usize,
    /// Bootstrap pairs (indices into the systems); consecutive ones when `None`.
    pub pairs: Option<Vec<(usize, usize)>>,
    /// Bootstrap resamples.
    pub resamples: usize,
    /// Bootstrap seed.
    pub seed: u64,
    /// Timed calls per search (the latency is their median).
    pub repeat: usize,
    /// Query file name for the report.
    pub query_file: String,
    /// SHA-256 of the query file.
    pub query_sha256: String,
    /// Section expansion budget measured (0: not measured).
    pub expand_chars: usize,
}

fn taxon(r: &QueryRun) -> QueryTaxon<'_> {
    QueryTaxon {
        metrics: &r.metrics,
        lost: r.lost.as_deref(),
    }
}

/// Summarises the runs into the report.
pub fn summarise(
    lib: &Library,
    queries: &[EvalQuery],
    runs: &[SystemRun],
    settings: &EvalSettings,
) -> EvalReport {
    let mut slice_of: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (i, q) in queries.iter().enumerate() {
        slice_of.entry(q.slice.clone()).or_default().push(i);
    }
    let variants = runs
        .iter()
        .map(|r| VariantReport {
            name: r.system.name.clone(),
            gating: r.system.opts.stages.gating,
            overall: aggregate(&r.runs),
            slices: slice_of
                .iter()
                .map(|(s, idx)| (s.clone(), aggregate(idx.iter().map(|&i| &r.runs[i]))))
                .collect(),
            taxonomy: VariantTaxonomy {
                overall: taxonomy::taxonomy(r.runs.iter().map(taxon)),
                slices: slice_of
                    .iter()
                    .map(|(s, idx)| {
                        (
                            s.clone(),
                            taxonomy::taxonomy(idx.iter().map(|&i| taxon(&r.runs[i]))),
                        )
                    })
                    .collect(),
            },
        })
        .collect();
    let pairs = settings
        .pairs
        .clone()
        .unwrap_or_else(|| consecutive_pairs(runs.len()));
    let boot = |a: &SystemRun, b: &SystemRun, g: fn(&QueryMetrics) -> f64| {
        let xa: Vec<f64> = a.runs.iter().map(|r| g(&r.metrics)).collect();
        let xb: Vec<f64> = b.runs.iter().map(|r| g(&r.metrics)).collect();
        stats::paired_bootstrap(&xa, &xb, settings.resamples, settings.seed)
    };
    let pairs = pairs
        .into_iter()
        .map(|(i, j)| {
            let (a, b) = (&runs[i], &runs[j]);
            PairReport {
                from: a.system.name.clone(),
                to: b.system.name.clone(),
                metrics: PairMetrics {
                    recall: boot(a, b, |m| m.recall),
                    ndcg: boot(a, b, |m| m.ndcg),
                    leakage: boot(a, b, |m| m.leakage),
                    ess: boot(a, b, |m| f64::from(u8::from(m.exact))),
                },
            }
        })
        .collect();
    let m = lib.manifest();
    EvalReport {
        k: settings.k,
        latency_repeats: settings.repeat.max(1),
        expand_chars: (settings.expand_chars > 0).then_some(settings.expand_chars),
        queries: QuerySetInfo {
            file: settings.query_file.clone(),
            sha256: settings.query_sha256.clone(),
            count: queries.len(),
            slices: slice_of.iter().map(|(s, v)| (s.clone(), v.len())).collect(),
        },
        corpus: CorpusInfo {
            chunks: m.chunks,
            shards: m.shards.len(),
            bytes: m.shards.iter().map(|s| s.bytes).sum(),
            corpus_sha256: m.corpus_sha256.clone(),
            model: m
                .model
                .as_ref()
                .filter(|_| lib.has_model())
                .map(|e| ModelInfo {
                    id: e.id.clone(),
                    sha256: e.sha256.clone(),
                    dims: e.dims,
                }),
        },
        variants,
        bootstrap: BootstrapReport {
            resamples: settings.resamples,
            seed: settings.seed,
            pairs,
        },
        judge: judge::judge(queries),
    }
}

/// Validates every query's scope against the manifest before anything runs, so that a bad
/// query set fails fast with the query's id and line: an unknown subject or level is an error.
/// A value the index lacks in another field (a year or paper a site does not have) admits
/// nothing: such a query is scored as a miss, and returned here as a note.
pub fn check_scopes(lib: &Library, queries: &[EvalQuery]) -> Result<Vec<String>, String> {
    let mut notes = Vec::new();
    for q in queries {
        match q.scope.validate(lib.manifest()) {
            Ok(()) => {}
            Err(crate::scope::ScopeError::UnknownValue { field, .. })
                if !matches!(field, Field::Subject | Field::Level) =>
            {
                notes.push(format!(
                    "query {} (line {}): {}: scored as a miss",
                    q.id,
                    q.line,
                    q.scope.validate(lib.manifest()).unwrap_err()
                ));
            }
            Err(e) => return Err(format!("query {} (line {}): {e}", q.id, q.line)),
        }
    }
    Ok(notes)
}
