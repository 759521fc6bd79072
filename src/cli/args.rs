//! The clap interface of `chsr`: the commands, their flags and help text.
//!
//! Shared flag groups ([`RelaxArgs`], [`ScopeArgs`]) also turn themselves into search options
//! and a scope; everything else is done by the command modules beside this one.

use chsr::format::Field;
use chsr::scope::Scope;
use chsr::search::SearchOptions;
use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;

#[derive(Parser)]
#[command(
    name = "chsr",
    version,
    about = "Curriculum-gated hybrid retrieval: build and query shards"
)]
pub(super) struct Cli {
    #[command(subcommand)]
    pub(super) cmd: Cmd,
}

// Parsed once per run: the size difference between variants does not matter.
#[allow(clippy::large_enum_variant)]
#[derive(Subcommand)]
pub(super) enum Cmd {
    /// Build one shard per (subject, level) and manifest.json from JSONL corpora.
    Build {
        /// Output folder (e.g. www/shards).
        #[arg(long)]
        out: PathBuf,
        /// BM25 k1.
        #[arg(long, default_value_t = 1.2)]
        k1: f32,
        /// BM25 b.
        #[arg(long, default_value_t = 0.75)]
        b: f32,
        /// Accept chunks whose visibility is not public (the output must not be published).
        #[arg(long)]
        private: bool,
        /// Static embedding model (.chsrm): adds a dense index (HNSW) to every shard and
        /// publishes the model next to the shards for query embedding in the browser.
        #[arg(long)]
        model: Option<PathBuf>,
        /// HNSW ef_search (fixed in the graph).
        #[arg(long, default_value_t = 128)]
        ef_search: usize,
        /// Corpus files (JSONL).
        #[arg(required = true)]
        corpus: Vec<PathBuf>,
    },
    /// Index a course site (built HTML, or Markdown sources): chunks with curriculum
    /// metadata, shards, and a self-contained search bundle (page, element, Wasm package).
    Index(Box<IndexArgs>),
    /// Search a shard folder.
    Search(Box<SearchArgs>),
    /// Explain, stage by stage, where expected chunks were lost (or found) by a search.
    Explain(Box<ExplainArgs>),
    /// Check every shard of a folder against its manifest.
    Verify {
        /// Folder holding manifest.json and the shards.
        dir: PathBuf,
    },
    /// Evaluate variants on an OpenCERB-format query set: P/R/nDCG, leakage, contamination,
    /// exact-scope success, latency, per slice, paired bootstrap, consistency judge.
    Eval(EvalArgs),
    /// Distil the static embedding model from a BERT sentence transformer (scripts/fetch-minilm).
    #[cfg(feature = "distill")]
    Distill(super::distill::DistillArgs),
    /// Train a distilled model's token vectors on the transformer's sentence embeddings of the
    /// corpus's own texts (tokenlearn; a measuring tool, see docs/benchmark.md).
    #[cfg(feature = "distill")]
    Tokenlearn(super::distill::TokenlearnArgs),
}

#[derive(Args)]
pub(super) struct EvalArgs {
    /// Folder holding manifest.json and the shards (every shard is loaded once).
    #[arg(long)]
    pub(super) shards: PathBuf,
    /// Query set (OpenCERB JSONL: id, slice, query, scope, relevant_grades, …).
    #[arg(long)]
    pub(super) queries: PathBuf,
    /// Comma-separated variants, in pipeline order (default: all available).
    #[arg(long)]
    pub(super) variants: Option<String>,
    /// Cut-off K.
    #[arg(short = 'k', long = "k", default_value_t = 8)]
    pub(super) k: usize,
    /// Bootstrap pairs FROM:TO, comma-separated (default: consecutive variants).
    #[arg(long)]
    pub(super) pairs: Option<String>,
    /// Bootstrap resamples.
    #[arg(long, default_value_t = chsr::eval::stats::BOOTSTRAP_RESAMPLES)]
    pub(super) resamples: usize,
    /// Bootstrap seed.
    #[arg(long, default_value_t = chsr::eval::stats::BOOTSTRAP_SEED)]
    pub(super) seed: u64,
    /// Write the JSON report here.
    #[arg(long)]
    pub(super) json: Option<PathBuf>,
    /// Write the markdown report here.
    #[arg(long)]
    pub(super) report: Option<PathBuf>,
    /// Write the SVG charts into this folder.
    #[arg(long)]
    pub(super) charts: Option<PathBuf>,
    /// Timed calls per search; a query's latency is their median.
    #[arg(long, default_value_t = 1)]
    pub(super) repeat: usize,
    /// Write one JSON line per (variant, query) here: returned ids and per-query metrics.
    #[arg(long)]
    pub(super) runs: Option<PathBuf>,
    /// Also measure section expansion with this budget (characters per result, as `search
    /// --expand`): each query is searched once more, untimed, and the report gives the section
    /// and label R@K of the expanded context and the words it adds (0: not measured).
    #[arg(long, default_value_t = 0)]
    pub(super) expand: usize,
    #[command(flatten)]
    pub(super) relax: RelaxArgs,
}

/// Relaxation settings (variant E), shared by `search` and `eval`.
#[derive(Args)]
pub(super) struct RelaxArgs {
    /// Relaxation trigger: `evidence` (default: widen when what a step adds is clearly
    /// stronger lexical evidence than the scope holds) or `paper` (the four-case trigger).
    #[arg(long)]
    pub(super) trigger: Option<String>,
    /// Paper trigger: with no subject in the scope, widen below this many results (case 4);
    /// widening steps continue while fewer than this many results are found.
    #[arg(long)]
    pub(super) k_min: Option<usize>,
    /// Evidence trigger: widen when the best chunk a step would add scores more than this
    /// many times the best chunk in scope.
    #[arg(long)]
    pub(super) widen_ratio: Option<f64>,
    /// Evidence trigger: between this ratio and --widen-ratio, widen with in-scope and
    /// widened results alternating.
    #[arg(long)]
    pub(super) mix_ratio: Option<f64>,
    /// Evidence trigger: widen to the subject's other levels when their best section scores
    /// more than this many times the best section at the requested level.
    #[arg(long)]
    pub(super) level_ratio: Option<f64>,
    /// Allow the unfiltered lexical fallback (W3) when relaxation finds nothing.
    #[arg(long)]
    pub(super) allow_fallback: bool,
}

impl RelaxArgs {
    /// Sets the options these flags name (the others keep the variant's defaults).
    pub(super) fn apply(&self, o: &mut SearchOptions) -> Result<(), String> {
        if let Some(t) = &self.trigger {
            o.trigger = chsr::relax::Trigger::parse(t)
                .ok_or_else(|| format!("unknown --trigger {t:?}; valid: evidence, paper"))?;
        }
        if let Some(k) = self.k_min {
            if k > chsr::search::MAX_K {
                return Err(format!(
                    "--k-min must be at most {}, got {k}",
                    chsr::search::MAX_K
                ));
            }
            o.k_min = k;
        }
        if let Some(r) = self.widen_ratio {
            if !(0.0..=1000.0).contains(&r) {
                return Err(format!("--widen-ratio must be from 0 to 1000, got {r}"));
            }
            o.widen_ratio = r;
        }
        if let Some(r) = self.mix_ratio {
            if !(0.0..=1000.0).contains(&r) {
                return Err(format!("--mix-ratio must be from 0 to 1000, got {r}"));
            }
            o.mix_ratio = r;
        }
        if let Some(r) = self.level_ratio {
            if !(0.0..=1000.0).contains(&r) {
                return Err(format!("--level-ratio must be from 0 to 1000, got {r}"));
            }
            o.level_ratio = r;
        }
        o.allow_fallback |= self.allow_fallback;
        Ok(())
    }
}

#[derive(Args)]
pub(super) struct IndexArgs {
    /// Site configuration (TOML: [[source]] path, subject, level, lang, rules; [site] texts).
    #[arg(long, conflicts_with_all = ["site", "markdown"])]
    pub(super) config: Option<PathBuf>,
    /// One built site (a folder of HTML pages), instead of a config.
    #[arg(long, conflicts_with = "markdown")]
    pub(super) site: Option<PathBuf>,
    /// One folder of Markdown sources (YAML front matter), instead of a config.
    #[arg(long)]
    pub(super) markdown: Option<PathBuf>,
    /// Subject of every page (with --site/--markdown).
    #[arg(long)]
    pub(super) subject: Option<String>,
    /// Level of every page (with --site/--markdown).
    #[arg(long)]
    pub(super) level: Option<String>,
    /// Language of the pages (with --site/--markdown; default: each page's <html lang>).
    #[arg(long)]
    pub(super) lang: Option<String>,
    /// Document type of course text (with --site/--markdown; default textbook_section).
    #[arg(long = "doc-type")]
    pub(super) doc_type: Option<String>,
    /// Where the site is served (with --site/--markdown; default: relative to the bundle).
    #[arg(long)]
    pub(super) url: Option<String>,
    /// The bundle folder (e.g. SITE/chsr): shards/, the search page and its files.
    #[arg(long)]
    pub(super) out: PathBuf,
    /// Also write the chunks as JSONL (the `chsr build` input format).
    #[arg(long = "emit-chunks")]
    pub(super) emit_chunks: Option<PathBuf>,
    /// Write the build report (.json for JSON, otherwise Markdown).
    #[arg(long)]
    pub(super) report: Option<PathBuf>,
    /// Leave out pages without subject, level or language instead of failing.
    #[arg(long = "skip-unscoped")]
    pub(super) skip_unscoped: bool,
    /// Static embedding model (.chsrm) for the dense path (default: lexical shards only).
    /// Native only: the npm package's `chsr index` writes lexical shards.
    #[arg(long)]
    pub(super) model: Option<PathBuf>,
    /// The Wasm package folder to copy into the bundle (default: $CHSR_PKG, then beside the
    /// binary, then the checkout it was built in, then node_modules/chsr/pkg: the npm package).
    #[arg(long)]
    pub(super) pkg: Option<PathBuf>,
}

#[derive(Args)]
pub(super) struct SearchArgs {
    /// Folder holding manifest.json and the shards.
    #[arg(long)]
    pub(super) shards: PathBuf,
    #[command(flatten)]
    pub(super) scope: ScopeArgs,
    /// Number of results.
    #[arg(short = 'k', long = "k", default_value_t = 8)]
    pub(super) k: usize,
    /// Pipeline variant: A (dense only), B (hybrid, ungated), B+ (post-filtered), C (hybrid,
    /// gated, plain RRF), D (C + rerank), E (D + understanding + the paper's relaxation) or F
    /// (chsr's best: E + section evidence, priors, labels, hints, the evidence trigger).
    #[arg(long, default_value = "F")]
    pub(super) variant: String,
    /// Override the variant's gating: gated, ungated or post_filtered.
    #[arg(long)]
    pub(super) gating: Option<String>,
    /// Switch the dense path on (`--dense`; F is lexical-only by default: its vectors add no
    /// nDCG@8 on OpenCERB dev, docs/benchmark.md) or off (`--dense false`) for any variant.
    #[arg(long, num_args = 0..=1, default_missing_value = "true")]
    pub(super) dense: Option<bool>,
    /// Section expansion: add each result's section within this many characters.
    #[arg(long, default_value_t = 0)]
    pub(super) expand: usize,
    #[command(flatten)]
    pub(super) relax: RelaxArgs,
    /// Print the results as [DOCUMENT N] context for a language model.
    #[arg(long)]
    pub(super) context: bool,
    /// Print one JSON object {"results": [...], "trace": {...}}.
    #[arg(long)]
    pub(super) json: bool,
    /// The query.
    pub(super) query: String,
}

#[derive(Args)]
pub(super) struct ExplainArgs {
    /// Folder holding manifest.json and the shards.
    #[arg(long)]
    pub(super) shards: PathBuf,
    #[command(flatten)]
    pub(super) scope: ScopeArgs,
    /// Expected chunk ids (comma-separated or repeated).
    #[arg(long, value_delimiter = ',', required = true)]
    pub(super) expect: Vec<String>,
    /// Number of results (the cut).
    #[arg(short = 'k', long = "k", default_value_t = 8)]
    pub(super) k: usize,
    /// Pipeline variant (A, B, B+, C, D, E).
    #[arg(long, default_value = "F")]
    pub(super) variant: String,
    /// Turn the dense path on or off (see `chsr search --dense`).
    #[arg(long, num_args = 0..=1, default_missing_value = "true")]
    pub(super) dense: Option<bool>,
    /// Print the explanation as JSON.
    #[arg(long)]
    pub(super) json: bool,
    /// The query.
    pub(super) query: String,
}

/// Scope flags shared by the commands that search.
#[derive(Args, Clone, Default)]
pub(super) struct ScopeArgs {
    /// Subject.
    #[arg(long)]
    subject: Option<String>,
    /// Level.
    #[arg(long)]
    level: Option<String>,
    /// Document type.
    #[arg(long = "doc-type")]
    doc_type: Option<String>,
    /// Chapter.
    #[arg(long)]
    chapter: Option<String>,
    /// Section.
    #[arg(long)]
    section: Option<String>,
    /// Topic.
    #[arg(long)]
    topic: Option<String>,
    /// Exam year.
    #[arg(long)]
    year: Option<String>,
    /// Exam name.
    #[arg(long)]
    exam: Option<String>,
    /// Exam paper.
    #[arg(long)]
    paper: Option<String>,
    /// Question number.
    #[arg(long)]
    question: Option<String>,
    /// Language of the chunks.
    #[arg(long)]
    lang: Option<String>,
    /// Lock scope fields (comma-separated, e.g. `--chapter 5 --lock chapter`): relaxation
    /// never drops them, and expansion and context never leave them.
    #[arg(long, value_name = "FIELD[,FIELD]")]
    lock: Option<String>,
}

impl ScopeArgs {
    pub(super) fn scope(&self) -> Result<Scope, String> {
        let mut s = Scope::new();
        for (f, v) in [
            (Field::Subject, &self.subject),
            (Field::Level, &self.level),
            (Field::DocType, &self.doc_type),
            (Field::Chapter, &self.chapter),
            (Field::Section, &self.section),
            (Field::Topic, &self.topic),
            (Field::Year, &self.year),
            (Field::Exam, &self.exam),
            (Field::Paper, &self.paper),
            (Field::QuestionNumber, &self.question),
            (Field::Lang, &self.lang),
        ] {
            if let Some(v) = v {
                s.set(f, v.clone());
            }
        }
        if let Some(lock) = &self.lock {
            for name in lock.split(',').map(str::trim).filter(|n| !n.is_empty()) {
                let f = Field::parse(name).ok_or_else(|| {
                    format!(
                        "--lock: unknown field {name:?}; valid: {}",
                        Field::ALL.map(|f| f.name()).join(", ")
                    )
                })?;
                s = s.lock(f);
            }
            s.check_locks().map_err(|e| format!("--lock: {e}"))?;
        }
        Ok(s)
    }
}
