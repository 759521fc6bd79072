//! What a search runs: the variants of the ablation, their stages and the options of a call.

use super::SearchError;
use crate::dense::DenseConfig;
use crate::format::json::quote;
use crate::format::Manifest;
use crate::fusion::DEFAULT_RRF_K;
use crate::gate::Gating;
use crate::relax::{Trigger, DEFAULT_LEVEL_RATIO, DEFAULT_MIX_RATIO, DEFAULT_WIDEN_RATIO};
use crate::rerank::RerankConfig;
use crate::snippet::SNIPPET_CHARS;
use serde::Serialize;

/// Default weight of the dense list in the fusion (BM25 weighs 1): measured on the OpenCERB dev
/// split with the bundled static model (docs/benchmark.md, "Section coverage": the dense path).
pub const DEFAULT_DENSE_WEIGHT: f64 = 0.1;

/// Default weight of a chunk's section in its BM25 score (variants D and E): chosen by two-fold
/// cross-validation on the OpenCERB dev split (docs/benchmark.md, "Section evidence").
pub const DEFAULT_SECTION_WEIGHT: f64 = 0.8;

/// Default [`SearchOptions::section_doc`] (with [`DEFAULT_SECTION_WEIGHT`]): chosen together by
/// two-fold cross-validation (fold 1 chose 0.8 / 0.5, fold 2 0.85 / 0.5; `docs/benchmark.md`,
/// "Section documents").
pub const DEFAULT_SECTION_DOC: f64 = 0.5;

/// Default of [`SearchOptions::answers_coverage`]: a pasted statement holds its own exercise
/// whole, a neighbour's rarely. On the two NSI course sites (159 dev queries, `chsr index`) any
/// value from 0.8 to 0.9 gives F nDCG@8 0.697 (0.675 without the list; 0.95: 0.694); on OpenCERB
/// dev, whose mark-scheme questions are withheld from the corpus, 0.85 and above change no list
/// (0.8: nDCG@8 0.705 → 0.703). The higher end of the plateau (docs/benchmark.md).
pub const DEFAULT_ANSWERS_COVERAGE: f64 = 0.9;

/// Default [`SearchOptions::section_idf`]: chosen by two-fold cross-validation over 0–1 (fold 1
/// chose 0.75, fold 2 0.9; `docs/benchmark.md`, "Section IDF").
pub const DEFAULT_SECTION_IDF: f64 = 0.75;

/// Largest `k` a search accepts.
pub const MAX_K: usize = 200;

/// The pipeline variants of the ablation: the seed paper's A–E exactly, and chsr's own best, F.
///
/// The paper's ladder: A dense only (gated); B hybrid ungated; B+ hybrid filtered after
/// retrieval; C plain reciprocal rank fusion (k = 60, equal weights) of the two gated paths;
/// D = C + the metadata-aware rerank and near-duplicate removal; E = D + query understanding
/// (intents, cross-language expansion, the query's metadata as rerank evidence) and the paper's
/// four-case relaxation trigger. F = E + what chsr adds, each step measured in
/// `bench/quality/report.md`: section evidence in BM25, the exercise and other-answer priors,
/// section coverage, label lists, query hints as hard scope constraints and the evidence
/// trigger, lexical-only: its dense list (weighted 0.1; the `dense` option switches it on,
/// `F+dense` in `chsr eval`) adds no nDCG@8 on OpenCERB dev, so by default nothing of the dense
/// path is downloaded. F is the default of the page, the embed and the CLI.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum Variant {
    /// Dense only, gated.
    A,
    /// Hybrid (BM25 + dense, RRF), ungated: every shard is searched.
    B,
    /// Hybrid, post-filtered: retrieve ungated, then drop out-of-scope results.
    #[serde(rename = "B+")]
    BPlus,
    /// Hybrid, gated.
    C,
    /// C + deterministic rerank and near-duplicate removal.
    D,
    /// D + query understanding, cross-language expansion and the paper's scope relaxation.
    E,
    /// chsr's best: E + section evidence, priors, coverage, label lists, hard hints, the
    /// evidence trigger; lexical-only (the `dense` option adds its dense list, weighted 0.1).
    #[default]
    F,
}

/// Which stages a search runs (what a [`Variant`] switches on).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Stages {
    /// BM25 path.
    pub lexical: bool,
    /// Dense path.
    pub dense: bool,
    /// How the scope is applied.
    pub gating: Gating,
    /// Section evidence in the BM25 list (each chunk's score blended with its section's best).
    pub sections: bool,
    /// Metadata-aware rerank and dedup.
    pub rerank: bool,
    /// Query understanding (hints, intents, language).
    pub understand: bool,
    /// Hints read from the query become hard scope constraints when they admit something
    /// (otherwise every hint is soft rerank evidence).
    pub hints: bool,
    /// A label the query names ("Table 4.1") adds the chunks carrying it as a fused list.
    pub labels: bool,
    /// Corrections are also found by their question: the admissible chunks that answer an
    /// exercise of their shard, ranked by that exercise's BM25 score, form a fused list.
    pub answers: bool,
    /// Progressive scope relaxation.
    pub relax: bool,
}

impl Variant {
    /// Every variant, in ablation order.
    pub const ALL: [Variant; 7] = [
        Variant::A,
        Variant::B,
        Variant::BPlus,
        Variant::C,
        Variant::D,
        Variant::E,
        Variant::F,
    ];

    /// Parses `A`, `B`, `B+` (or `Bplus`), `C`, `D`, `E` (case-insensitive).
    pub fn parse(s: &str) -> Option<Variant> {
        Some(match s.trim().to_ascii_uppercase().as_str() {
            "A" => Variant::A,
            "B" => Variant::B,
            "B+" | "BPLUS" | "B_PLUS" => Variant::BPlus,
            "C" => Variant::C,
            "D" => Variant::D,
            "E" => Variant::E,
            "F" => Variant::F,
            _ => return None,
        })
    }

    /// The variant's name (`B+` for [`Variant::BPlus`]).
    pub fn name(self) -> &'static str {
        match self {
            Variant::A => "A",
            Variant::B => "B",
            Variant::BPlus => "B+",
            Variant::C => "C",
            Variant::D => "D",
            Variant::E => "E",
            Variant::F => "F",
        }
    }

    /// The stages the variant runs.
    pub fn stages(self) -> Stages {
        let base = Stages {
            lexical: true,
            dense: true,
            gating: Gating::Gated,
            sections: false,
            rerank: false,
            understand: false,
            hints: false,
            labels: false,
            answers: false,
            relax: false,
        };
        match self {
            Variant::A => Stages {
                lexical: false,
                ..base
            },
            Variant::B => Stages {
                gating: Gating::Ungated,
                ..base
            },
            Variant::BPlus => Stages {
                gating: Gating::PostFiltered,
                ..base
            },
            Variant::C => base,
            Variant::D => Stages {
                rerank: true,
                ..base
            },
            Variant::E => Stages {
                rerank: true,
                understand: true,
                relax: true,
                ..base
            },
            Variant::F => Stages {
                dense: false,
                sections: true,
                rerank: true,
                understand: true,
                hints: true,
                labels: true,
                answers: true,
                relax: true,
                ..base
            },
        }
    }
}

/// Options of a search.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchOptions {
    /// Number of results wanted (1..=[`MAX_K`]).
    pub k: usize,
    /// The stages to run (from a [`Variant`] by default).
    pub stages: Stages,
    /// The variant the stages came from (reported in the trace).
    pub variant: Variant,
    /// RRF constant (default 60).
    pub rrf_k: f64,
    /// Rank window of each retrieval list before fusion (at least `k`).
    pub window: usize,
    /// Snippet length in characters.
    pub snippet_chars: usize,
    /// Relaxation: what decides to widen ([`Trigger`]; evidence by default).
    pub trigger: Trigger,
    /// Relaxation, paper trigger: with no subject in the scope, widen when fewer results than
    /// this (case 4).
    pub k_min: usize,
    /// Relaxation, evidence trigger: W1 widens when the best section it would add scores more
    /// than this many times the best section in scope ([`crate::relax::fires`]).
    pub widen_ratio: f64,
    /// Relaxation, evidence trigger: W1 widens with in-scope and widened results alternating
    /// when the ratio of best sections lies above this and at most `widen_ratio` (ambiguous
    /// evidence); at or above `widen_ratio` there is no such band.
    pub mix_ratio: f64,
    /// Relaxation, evidence trigger: W2 widens when the best section of another level scores
    /// more than this many times the best section at the requested level.
    pub level_ratio: f64,
    /// Relaxation: allow the last-resort unfiltered lexical fallback (W3).
    pub allow_fallback: bool,
    /// Section expansion: character budget per result (0 = off).
    pub expand_chars: usize,
    /// Return each result's full text (`Hit::text`); a page that shows snippets and fetches the
    /// text on demand sets it off and saves copying every text into JavaScript.
    pub text: bool,
    /// Dense plan thresholds.
    pub dense: DenseConfig,
    /// Reranker weights.
    pub rerank: RerankConfig,
    /// Record the per-stage candidate lists in the trace (used by `explain`).
    pub probe: bool,
    /// Weight of the dense list in the fusion (the BM25 list weighs 1).
    pub dense_weight: f64,
    /// Weight of a chunk's section in its BM25 score, from 0 (the chunk alone) to 1 (its
    /// section's best chunk), when the stages include [`Stages::sections`].
    pub section_weight: f64,
    /// Weight of section IDF in a query term's BM25 IDF, from 0 (BM25's IDF over chunks) to 1
    /// (the IDF over sections; [`crate::bm25`]), when the stages include [`Stages::sections`].
    pub section_idf: f64,
    /// Share of a section's own BM25 score (its admitted chunks read as one document;
    /// [`crate::bm25::score_sections`]) in its evidence, from 0 (its best chunk only) to 1, when
    /// the stages include [`Stages::sections`].
    pub section_doc: f64,
    /// The answers list ([`Stages::answers`]): the share of a query's IDF an exercise must hold
    /// ([`crate::bm25::coverage`]) for its corrections to be found by it, 0–1.
    pub answers_coverage: f64,
    /// A query vector from the caller, for shards built with vectors brought with the corpus.
    pub query_vector: Option<Vec<f32>>,
    /// The model id of `query_vector` (must equal the corpus vectors' model).
    pub vector_model: Option<String>,
}

impl SearchOptions {
    /// Options for a variant: its stages, and for the paper's variants (A–E) the paper's
    /// settings — equal fusion weights, the paper's rerank ([`RerankConfig::paper`]) and
    /// relaxation trigger; F keeps chsr's tuned defaults.
    pub fn for_variant(v: Variant) -> SearchOptions {
        let chsr = SearchOptions::default();
        if v == Variant::F {
            return chsr;
        }
        SearchOptions {
            stages: v.stages(),
            variant: v,
            dense_weight: 1.0,
            rerank: RerankConfig::paper(),
            trigger: Trigger::Paper,
            ..chsr
        }
    }

    /// The section-IDF weight BM25 uses: [`SearchOptions::section_idf`] when the stages include
    /// section evidence, else 0 (the paper's variants score with BM25's IDF).
    pub fn section_idf(&self) -> f64 {
        if self.stages.sections {
            self.section_idf
        } else {
            0.0
        }
    }

    /// Reads options from a JSON object such as `{"k": 8, "variant": "D"}` (the JS API's
    /// options); absent fields keep their defaults, unknown fields are an error. `gating`
    /// overrides the variant's gating.
    pub fn from_json(value: &serde_json::Value) -> Result<SearchOptions, SearchError> {
        let mut o = SearchOptions::default();
        let obj = match value {
            serde_json::Value::Null => return Ok(o),
            serde_json::Value::Object(m) => m,
            _ => return Err(SearchError::Option("options must be an object".into())),
        };
        if let Some(v) = obj.get("variant") {
            let name = v.as_str().unwrap_or("");
            let var = Variant::parse(name).ok_or_else(|| {
                SearchError::Option(format!(
                    "unknown variant {}; valid: A, B, B+, C, D, E, F",
                    crate::format::json::to_text(v)
                ))
            })?;
            o = SearchOptions::for_variant(var);
        }
        for (key, v) in obj {
            match key.as_str() {
                "variant" => {}
                "gating" => {
                    o.stages.gating = v.as_str().and_then(Gating::parse).ok_or_else(|| {
                        SearchError::Option(
                            "gating must be \"gated\", \"ungated\" or \"post_filtered\"".into(),
                        )
                    })?
                }
                "trigger" => {
                    o.trigger = v.as_str().and_then(Trigger::parse).ok_or_else(|| {
                        SearchError::Option("trigger must be \"paper\" or \"evidence\"".into())
                    })?
                }
                "query_vector" => {
                    let arr = v
                        .as_array()
                        .filter(|a| !a.is_empty() && a.len() <= 4096)
                        .ok_or_else(|| {
                            SearchError::Option(
                                "query_vector must be an array of 1 to 4096 numbers".into(),
                            )
                        })?;
                    let mut q = Vec::with_capacity(arr.len());
                    for x in arr {
                        q.push(x.as_f64().filter(|f| f.is_finite()).ok_or_else(|| {
                            SearchError::Option(
                                "query_vector components must be finite numbers".into(),
                            )
                        })? as f32);
                    }
                    o.query_vector = Some(q);
                }
                "vector_model" => {
                    o.vector_model = Some(
                        v.as_str()
                            .ok_or_else(|| {
                                SearchError::Option("vector_model must be a string".into())
                            })?
                            .to_string(),
                    )
                }
                other => o.set_scalar(other, v)?,
            }
        }
        // A caller who brings a query vector asks for the dense path (unless it says otherwise).
        if o.query_vector.is_some() && !obj.contains_key("dense") {
            o.stages.dense = true;
        }
        Ok(o)
    }

    /// Sets the integer, number or boolean option `key` from `v`, checked against its range;
    /// an unknown key is an error listing the valid ones. One table of the options and their
    /// bounds (rather than a check written out per option), so the browser's module reads them
    /// with one copy of each check and message.
    fn set_scalar(&mut self, key: &str, v: &serde_json::Value) -> Result<(), SearchError> {
        /// Where an option goes and what it accepts (integer and number bounds inclusive).
        enum Slot<'a> {
            Uint(&'a mut usize, u64, u64),
            Number(&'a mut f64, u32, u32),
            Bool(&'a mut bool),
        }
        let slot = match key {
            "k" => Slot::Uint(&mut self.k, 1, MAX_K as u64),
            "dense" => Slot::Bool(&mut self.stages.dense),
            "rrf_k" => Slot::Number(&mut self.rrf_k, 0, 1000),
            "window" => Slot::Uint(&mut self.window, 1, 1000),
            "snippet_chars" => Slot::Uint(&mut self.snippet_chars, 16, 4000),
            "k_min" => Slot::Uint(&mut self.k_min, 0, MAX_K as u64),
            "widen_ratio" => Slot::Number(&mut self.widen_ratio, 0, 1000),
            "mix_ratio" => Slot::Number(&mut self.mix_ratio, 0, 1000),
            "level_ratio" => Slot::Number(&mut self.level_ratio, 0, 1000),
            "allow_fallback" => Slot::Bool(&mut self.allow_fallback),
            "expand_chars" => Slot::Uint(&mut self.expand_chars, 0, 100_000),
            "text" => Slot::Bool(&mut self.text),
            "dense_weight" => Slot::Number(&mut self.dense_weight, 0, 10),
            "section_weight" => Slot::Number(&mut self.section_weight, 0, 1),
            "section_doc" => Slot::Number(&mut self.section_doc, 0, 1),
            "section_idf" => Slot::Number(&mut self.section_idf, 0, 1),
            "exact_max" => Slot::Uint(&mut self.dense.exact_max, 0, u32::MAX as u64),
            "exact_fraction" => Slot::Number(&mut self.dense.exact_fraction, 0, 1),
            other => {
                return Err(SearchError::Option(format!(
                    "unknown option {}; valid: k, variant, dense, gating, rrf_k, window, snippet_chars, trigger, k_min, \
                     widen_ratio, mix_ratio, level_ratio, allow_fallback, expand_chars, text, dense_weight, section_weight, section_idf, section_doc, exact_max, exact_fraction, \
                     query_vector, vector_model",
                    quote(other)
                )))
            }
        };
        let bad = |what: String| SearchError::Option(format!("{key} must be {what}"));
        match slot {
            Slot::Uint(to, lo, hi) => {
                *to = v
                    .as_u64()
                    .filter(|n| (lo..=hi).contains(n))
                    .ok_or_else(|| bad(format!("an integer from {lo} to {hi}")))?
                    as usize
            }
            // Integer bounds: the message prints them as written.
            Slot::Number(to, lo, hi) => {
                *to = v
                    .as_f64()
                    .filter(|x| (lo as f64..=hi as f64).contains(x))
                    .ok_or_else(|| bad(format!("a number from {lo} to {hi}")))?
            }
            Slot::Bool(to) => *to = v.as_bool().ok_or_else(|| bad("true or false".into()))?,
        }
        Ok(())
    }

    /// Checks a caller's query vector against the manifest's corpus vectors (dimensions, model).
    pub fn check_query_vector(&self, manifest: &Manifest) -> Result<(), SearchError> {
        let Some(q) = &self.query_vector else {
            return Ok(());
        };
        let spec = manifest.query_vectors.as_ref().ok_or_else(|| {
            SearchError::Option(
                "query_vector given, but these shards embed queries with their own model: omit it"
                    .into(),
            )
        })?;
        if q.len() != spec.dims as usize {
            return Err(SearchError::Option(format!(
                "query_vector has {} dimensions; the shards' vectors ({}) have {}",
                q.len(),
                spec.model_id,
                spec.dims
            )));
        }
        match &self.vector_model {
            Some(m) if m == &spec.model_id => Ok(()),
            Some(m) => Err(SearchError::Option(format!(
                "query_vector comes from model {}; the shards' vectors come from {}",
                quote(m),
                quote(&spec.model_id)
            ))),
            None => Err(SearchError::Option(format!(
                "vector_model is required with query_vector (the shards use {})",
                quote(&spec.model_id)
            ))),
        }
    }

    /// The rank window of each list (at least `k`).
    pub(crate) fn window(&self) -> usize {
        self.window.max(self.k)
    }
}

impl Default for SearchOptions {
    fn default() -> Self {
        SearchOptions {
            k: 8,
            stages: Variant::F.stages(),
            variant: Variant::F,
            rrf_k: DEFAULT_RRF_K,
            window: 50,
            snippet_chars: SNIPPET_CHARS,
            trigger: Trigger::default(),
            k_min: 1,
            widen_ratio: DEFAULT_WIDEN_RATIO,
            mix_ratio: DEFAULT_MIX_RATIO,
            level_ratio: DEFAULT_LEVEL_RATIO,
            allow_fallback: false,
            expand_chars: 0,
            text: true,
            dense: DenseConfig::default(),
            rerank: RerankConfig::default(),
            probe: false,
            dense_weight: DEFAULT_DENSE_WEIGHT,
            section_weight: DEFAULT_SECTION_WEIGHT,
            section_idf: DEFAULT_SECTION_IDF,
            section_doc: DEFAULT_SECTION_DOC,
            answers_coverage: DEFAULT_ANSWERS_COVERAGE,
            query_vector: None,
            vector_model: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn message(v: serde_json::Value) -> String {
        SearchOptions::from_json(&v).unwrap_err().to_string()
    }

    #[test]
    fn options_are_read_within_their_bounds_and_a_bad_one_is_named() {
        let o = SearchOptions::from_json(&json!({
            "variant": "D", "k": 5, "dense": false, "section_weight": 0.5, "exact_max": 10,
            "allow_fallback": true, "snippet_chars": 16, "rrf_k": 1000,
        }))
        .unwrap();
        assert_eq!((o.variant, o.k, o.stages.dense), (Variant::D, 5, false));
        assert_eq!((o.section_weight, o.dense.exact_max), (0.5, 10));
        assert_eq!(
            (o.allow_fallback, o.snippet_chars, o.rrf_k),
            (true, 16, 1000.0)
        );
        for (bad, says) in [
            (json!({"k": 0}), "k must be an integer from 1 to 200"),
            (json!({"k": 2.5}), "k must be an integer from 1 to 200"),
            (
                json!({"snippet_chars": 15}),
                "snippet_chars must be an integer from 16 to 4000",
            ),
            (
                json!({"rrf_k": -1}),
                "rrf_k must be a number from 0 to 1000",
            ),
            (
                json!({"section_idf": "1"}),
                "section_idf must be a number from 0 to 1",
            ),
            (json!({"dense": 1}), "dense must be true or false"),
            (json!({"gating": "open"}), "gating must be \"gated\""),
            (json!({"kk": 1}), "unknown option \"kk\"; valid: k, variant"),
            (json!({"variant": "G"}), "unknown variant \"G\""),
        ] {
            let m = message(bad.clone());
            assert!(m.contains(says), "{bad}: {m}");
        }
    }
}
