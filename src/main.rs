//! The `chsr` command-line tool: build shards, search them, verify an output folder, evaluate.
//!
//! Errors are printed as one line (`error: …`) with exit status 1 (2 for usage errors); no panic
//! backtrace reaches the user.

#[cfg(target_arch = "wasm32")]
fn main() {}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    std::process::exit(cli::run());
}

#[cfg(not(target_arch = "wasm32"))]
mod cli {
    use chsr::build::{build, build_with_model_file, write_output, BuildOptions};
    use chsr::corpus::{check_visibility, read_corpus};
    use chsr::format::Field;
    use chsr::scope::Scope;
    use chsr::search::{Gating, Library, SearchOptions, Variant};
    use clap::{Args, Parser, Subcommand};
    use std::path::PathBuf;

    #[derive(Parser)]
    #[command(
        name = "chsr",
        version,
        about = "Curriculum-gated hybrid retrieval: build and query shards"
    )]
    struct Cli {
        #[command(subcommand)]
        cmd: Cmd,
    }

    // Parsed once per run: the size difference between variants does not matter.
    #[allow(clippy::large_enum_variant)]
    #[derive(Subcommand)]
    enum Cmd {
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
        Distill(distill_cli::DistillArgs),
    }

    #[derive(Args)]
    struct EvalArgs {
        /// Folder holding manifest.json and the shards (every shard is loaded once).
        #[arg(long)]
        shards: PathBuf,
        /// Query set (OpenCERB JSONL: id, slice, query, scope, relevant_grades, …).
        #[arg(long)]
        queries: PathBuf,
        /// Comma-separated variants, in pipeline order (default: all available).
        #[arg(long)]
        variants: Option<String>,
        /// Cut-off K.
        #[arg(short = 'k', long = "k", default_value_t = 8)]
        k: usize,
        /// Bootstrap pairs FROM:TO, comma-separated (default: consecutive variants).
        #[arg(long)]
        pairs: Option<String>,
        /// Bootstrap resamples.
        #[arg(long, default_value_t = chsr::eval::stats::BOOTSTRAP_RESAMPLES)]
        resamples: usize,
        /// Bootstrap seed.
        #[arg(long, default_value_t = chsr::eval::stats::BOOTSTRAP_SEED)]
        seed: u64,
        /// Write the JSON report here.
        #[arg(long)]
        json: Option<PathBuf>,
        /// Write the markdown report here.
        #[arg(long)]
        report: Option<PathBuf>,
        /// Write the SVG charts into this folder.
        #[arg(long)]
        charts: Option<PathBuf>,
        /// Timed calls per search; a query's latency is their median.
        #[arg(long, default_value_t = 1)]
        repeat: usize,
        /// Write one JSON line per (variant, query) here: returned ids and per-query metrics.
        #[arg(long)]
        runs: Option<PathBuf>,
        #[command(flatten)]
        relax: RelaxArgs,
    }

    /// Relaxation settings (variant E), shared by `search` and `eval`.
    #[derive(Args)]
    struct RelaxArgs {
        /// Relaxation trigger: `evidence` (default: widen when what a step adds is clearly
        /// stronger lexical evidence than the scope holds) or `paper` (the four-case trigger).
        #[arg(long)]
        trigger: Option<String>,
        /// Paper trigger: with no subject in the scope, widen below this many results.
        #[arg(long)]
        k_min: Option<usize>,
        /// Evidence trigger: widen when the best chunk a step would add scores more than this
        /// many times the best chunk in scope.
        #[arg(long)]
        widen_ratio: Option<f64>,
        /// Evidence trigger: between this ratio and --widen-ratio, widen with in-scope and
        /// widened results alternating.
        #[arg(long)]
        mix_ratio: Option<f64>,
        /// Evidence trigger: widen to the subject's other levels when their best section scores
        /// more than this many times the best section at the requested level.
        #[arg(long)]
        level_ratio: Option<f64>,
        /// Allow the unfiltered lexical fallback (W3) when relaxation finds nothing.
        #[arg(long)]
        allow_fallback: bool,
    }

    impl RelaxArgs {
        /// Sets the options these flags name (the others keep the variant's defaults).
        fn apply(&self, o: &mut SearchOptions) -> Result<(), String> {
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
    struct IndexArgs {
        /// Site configuration (TOML: [[source]] path, subject, level, lang, rules; [site] texts).
        #[arg(long, conflicts_with_all = ["site", "markdown"])]
        config: Option<PathBuf>,
        /// One built site (a folder of HTML pages), instead of a config.
        #[arg(long, conflicts_with = "markdown")]
        site: Option<PathBuf>,
        /// One folder of Markdown sources (YAML front matter), instead of a config.
        #[arg(long)]
        markdown: Option<PathBuf>,
        /// Subject of every page (with --site/--markdown).
        #[arg(long)]
        subject: Option<String>,
        /// Level of every page (with --site/--markdown).
        #[arg(long)]
        level: Option<String>,
        /// Language of the pages (with --site/--markdown; default: each page's <html lang>).
        #[arg(long)]
        lang: Option<String>,
        /// Document type of course text (with --site/--markdown; default textbook_section).
        #[arg(long = "doc-type")]
        doc_type: Option<String>,
        /// Where the site is served (with --site/--markdown; default: relative to the bundle).
        #[arg(long)]
        url: Option<String>,
        /// The bundle folder (e.g. SITE/chsr): shards/, the search page and its files.
        #[arg(long)]
        out: PathBuf,
        /// Also write the chunks as JSONL (the `chsr build` input format).
        #[arg(long = "emit-chunks")]
        emit_chunks: Option<PathBuf>,
        /// Write the build report (.json for JSON, otherwise Markdown).
        #[arg(long)]
        report: Option<PathBuf>,
        /// Leave out pages without subject, level or language instead of failing.
        #[arg(long = "skip-unscoped")]
        skip_unscoped: bool,
        /// Static embedding model (.chsrm) for the dense path (default: lexical shards only).
        /// Native only: the npm package's `chsr index` writes lexical shards.
        #[arg(long)]
        model: Option<PathBuf>,
        /// The Wasm package folder to copy into the bundle (default: $CHSR_PKG, then beside the
        /// binary, then the checkout it was built in, then node_modules/chsr/pkg: the npm package).
        #[arg(long)]
        pkg: Option<PathBuf>,
    }

    fn index(a: IndexArgs) -> Result<(), String> {
        use chsr::index::config::{Args, Config};
        use chsr::index::run::{run, RunOptions};
        use chsr::index::IndexError;
        let args = Args {
            config: a.config.clone(),
            site: a.site.clone(),
            markdown: a.markdown.clone(),
            subject: a.subject.clone(),
            level: a.level.clone(),
            lang: a.lang.clone(),
            doc_type: a.doc_type.clone(),
            url: a.url.clone(),
        };
        let read = |p: &std::path::Path| {
            std::fs::read_to_string(p).map_err(|e| IndexError::Io {
                path: p.display().to_string(),
                message: e.to_string(),
            })
        };
        let cfg: Config = args.config(read).map_err(|e| e.to_string())?;
        let report = run(
            &cfg,
            &RunOptions {
                out: a.out.clone(),
                emit_chunks: a.emit_chunks.clone(),
                report: a.report.clone(),
                skip_unscoped: a.skip_unscoped,
                model: a.model.clone(),
                pkg: a.pkg.clone(),
            },
        )
        .map_err(|e| e.to_string())?;
        let out = a.out.display().to_string();
        for line in report.summary(&out, a.report.is_some()) {
            eprintln!("{line}");
        }
        Ok(())
    }

    #[derive(Args)]
    struct SearchArgs {
        /// Folder holding manifest.json and the shards.
        #[arg(long)]
        shards: PathBuf,
        #[command(flatten)]
        scope: ScopeArgs,
        /// Number of results.
        #[arg(short = 'k', long = "k", default_value_t = 8)]
        k: usize,
        /// Pipeline variant: A (dense only), B (hybrid, ungated), B+ (post-filtered), C (hybrid,
        /// gated), D (C + rerank), E (D + query understanding + relaxation).
        #[arg(long, default_value = "F")]
        variant: String,
        /// Override the variant's gating: gated, ungated or post_filtered.
        #[arg(long)]
        gating: Option<String>,
        /// Section expansion: add each result's section within this many characters.
        #[arg(long, default_value_t = 0)]
        expand: usize,
        #[command(flatten)]
        relax: RelaxArgs,
        /// Print the results as [DOCUMENT N] context for a language model.
        #[arg(long)]
        context: bool,
        /// Print one JSON object {"results": [...], "trace": {...}}.
        #[arg(long)]
        json: bool,
        /// The query.
        query: String,
    }

    #[derive(Args)]
    struct ExplainArgs {
        /// Folder holding manifest.json and the shards.
        #[arg(long)]
        shards: PathBuf,
        #[command(flatten)]
        scope: ScopeArgs,
        /// Expected chunk ids (comma-separated or repeated).
        #[arg(long, value_delimiter = ',', required = true)]
        expect: Vec<String>,
        /// Number of results (the cut).
        #[arg(short = 'k', long = "k", default_value_t = 8)]
        k: usize,
        /// Pipeline variant (A, B, B+, C, D, E).
        #[arg(long, default_value = "F")]
        variant: String,
        /// Print the explanation as JSON.
        #[arg(long)]
        json: bool,
        /// The query.
        query: String,
    }

    /// Scope flags shared by the commands that search.
    #[derive(Args, Clone, Default)]
    pub struct ScopeArgs {
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
        fn scope(&self) -> Result<Scope, String> {
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

    pub fn run() -> i32 {
        let cli = match Cli::try_parse() {
            Ok(c) => c,
            Err(e) => {
                let code = if e.use_stderr() { 2 } else { 0 };
                let _ = e.print();
                return code;
            }
        };
        match dispatch(cli.cmd) {
            Ok(()) => 0,
            Err(msg) => {
                eprintln!("error: {msg}");
                1
            }
        }
    }

    fn dispatch(cmd: Cmd) -> Result<(), String> {
        match cmd {
            Cmd::Build {
                out,
                k1,
                b,
                private,
                model,
                ef_search,
                corpus,
            } => {
                let t0 = std::time::Instant::now();
                let read = read_corpus(&corpus).map_err(|e| e.to_string())?;
                for w in &read.warnings {
                    eprintln!("{}: {w}", w.level());
                }
                let chunks = read.chunks;
                check_visibility(&chunks, private).map_err(|e| e.to_string())?;
                let byo = chsr::corpus::check_vectors(&chunks).map_err(|e| e.to_string())?;
                if let (Some((id, _)), Some(_)) = (&byo, &model) {
                    return Err(format!(
                        "the corpus brings its own vectors (model {id:?}) and --model would replace them: use one or the other"
                    ));
                }
                if chunks.is_empty() {
                    return Err("the corpus is empty: no chunk to index".into());
                }
                let opts = BuildOptions {
                    k1,
                    b,
                    ef_search,
                    ..Default::default()
                };
                let output = match &model {
                    None => build(&chunks, &opts),
                    Some(path) => {
                        let bytes =
                            std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
                        build_with_model_file(&chunks, &opts, &bytes)
                            .map_err(|e| format!("{}: {e}", path.display()))?
                    }
                };
                for w in &output.warnings {
                    eprintln!("{}: {w}", w.level());
                }
                write_output(&output, &out).map_err(|e| format!("{}: {e}", out.display()))?;
                let secs = t0.elapsed().as_secs_f64();
                for s in &output.shards {
                    eprintln!(
                        "  {:<28} {:<14} {:>6} chunks {:>10} bytes  {}",
                        s.entry.subject, s.entry.level, s.entry.chunks, s.entry.bytes, s.entry.file
                    );
                }
                eprintln!(
                    "built {} shards from {} chunks in {:.2}s ({:.0} chunks/s) into {}",
                    output.shards.len(),
                    chunks.len(),
                    secs,
                    chunks.len() as f64 / secs.max(1e-9),
                    out.display()
                );
                Ok(())
            }
            Cmd::Index(a) => index(*a),
            Cmd::Search(a) => search(*a),
            Cmd::Verify { dir } => verify(&dir),
            Cmd::Explain(a) => explain(*a),
            Cmd::Eval(a) => eval(a),
            #[cfg(feature = "distill")]
            Cmd::Distill(a) => distill_cli::run(a),
        }
    }

    fn eval(a: EvalArgs) -> Result<(), String> {
        use chsr::eval::{self, report, svg, EvalSettings};
        if a.k == 0 || a.k > chsr::search::MAX_K {
            return Err(format!(
                "-k must be between 1 and {}, got {}",
                chsr::search::MAX_K,
                a.k
            ));
        }
        let mut systems = match &a.variants {
            Some(list) => eval::parse_systems(list, a.k)?,
            None => eval::all_systems(a.k),
        };
        for s in systems.iter_mut() {
            a.relax.apply(&mut s.opts)?;
        }
        let pairs = a
            .pairs
            .as_deref()
            .map(|p| eval::parse_pairs(p, &systems))
            .transpose()?;
        let bytes = std::fs::read(&a.queries)
            .map_err(|e| format!("{}: cannot read: {e}", a.queries.display()))?;
        let query_sha256 = chsr::format::sha256_hex(&bytes);
        let text = String::from_utf8(bytes)
            .map_err(|_| format!("{}: not valid UTF-8", a.queries.display()))?;
        let queries = eval::queries::parse_queries(&a.queries.display().to_string(), &text)
            .map_err(|e| e.to_string())?;
        let t0 = std::time::Instant::now();
        let mut lib = Library::open_dir(&a.shards).map_err(|e| e.to_string())?;
        lib.load_needed_from_dir(&a.shards, &Scope::new(), Gating::Ungated)
            .map_err(|e| e.to_string())?;
        lib.load_model_from_dir(&a.shards)
            .map_err(|e| e.to_string())?;
        if !lib.has_model() {
            eprintln!("note: the shards have no embedding model: variant A returns nothing and B-E are lexical only");
        }
        let t_load = t0.elapsed().as_secs_f64();
        for note in eval::check_scopes(&lib, &queries)? {
            eprintln!("note: {note}");
        }
        let runs =
            eval::run_systems(&lib, &queries, &systems, a.repeat).map_err(|e| e.to_string())?;
        let t_run = t0.elapsed().as_secs_f64() - t_load;
        let settings = EvalSettings {
            k: a.k,
            pairs,
            resamples: a.resamples,
            seed: a.seed,
            repeat: a.repeat,
            query_file: a
                .queries
                .file_name()
                .map(|n| n.to_string_lossy().to_string())
                .unwrap_or_default(),
            query_sha256,
        };
        let rep = eval::summarise(&lib, &queries, &runs, &settings);
        let mut links = report::ChartLinks::default();
        if let Some(dir) = &a.charts {
            std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
            for (name, svg) in [
                ("leakage_recall.svg", svg::leakage_recall(&rep)),
                ("slice_recall.svg", svg::slice_recall(&rep)),
                ("stage_attribution.svg", svg::stage_attribution(&rep)),
                ("outcomes.svg", svg::outcomes(&rep)),
            ] {
                let path = dir.join(name);
                std::fs::write(&path, svg).map_err(|e| format!("{}: {e}", path.display()))?;
                let link = a
                    .report
                    .as_deref()
                    .map(|r| relative_link(r, &path))
                    .unwrap_or_else(|| name.to_string());
                let slot = match name {
                    "leakage_recall.svg" => &mut links.scatter,
                    "slice_recall.svg" => &mut links.slices,
                    "stage_attribution.svg" => &mut links.attribution,
                    _ => &mut links.outcomes,
                };
                *slot = Some(link);
            }
        }
        if let Some(path) = &a.json {
            write_file(path, &report::to_json(&rep))?;
        }
        if let Some(path) = &a.runs {
            write_file(path, &report::runs_jsonl(&queries, &runs))?;
        }
        if let Some(path) = &a.report {
            write_file(path, &report::to_markdown(&rep, &links))?;
        }
        println!(
            "{:<10} {:>6} {:>6} {:>6} {:>6} {:>8} {:>6} {:>6} {:>9} {:>9}",
            "variant", "P", "R", "nDCG", "leak", "any-leak", "contam", "ESS", "p50 ms", "p95 ms"
        );
        for v in &rep.variants {
            let o = &v.overall;
            println!(
                "{:<10} {:>6.3} {:>6.3} {:>6.3} {:>6.3} {:>8.3} {:>6} {:>6.3} {:>9.3} {:>9.3}",
                v.name,
                o.precision,
                o.recall,
                o.ndcg,
                o.leakage,
                o.any_leak_rate,
                o.contamination
                    .map(|c| format!("{c:.3}"))
                    .unwrap_or_else(|| "-".into()),
                o.ess,
                o.latency_ms_p50,
                o.latency_ms_p95
            );
        }
        for p in &rep.bootstrap.pairs {
            let m = &p.metrics;
            println!(
                "{} -> {}: dR {:+.3} (p {:.3})  dnDCG {:+.3} (p {:.3})  dleak {:+.3} (p {:.3})  dESS {:+.3} (p {:.3})",
                p.from,
                p.to,
                m.recall.mean_diff,
                m.recall.p_value,
                m.ndcg.mean_diff,
                m.ndcg.p_value,
                m.leakage.mean_diff,
                m.leakage.p_value,
                m.ess.mean_diff,
                m.ess.p_value
            );
        }
        for v in &rep.variants {
            let t = &v.taxonomy.overall;
            let a = &t.attribution;
            let shares = a
                .shares
                .as_ref()
                .map(|sh| {
                    sh.iter()
                        .filter(|(_, x)| **x > 0.0)
                        .map(|(s, x)| format!("{} {x:.3}", s.name()))
                        .collect::<Vec<_>>()
                        .join(", ")
                })
                .unwrap_or_else(|| "-".into());
            let oc = &t.outcomes;
            println!(
                "{}: {} of {} queries miss, lost at: {shares}; outcomes: {}",
                v.name,
                a.queries,
                oc.n,
                chsr::eval::taxonomy::Outcome::ALL
                    .iter()
                    .map(|o| format!("{} {}", o.name(), oc.counts[o]))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
        for v in rep
            .variants
            .iter()
            .filter(|v| v.overall.relaxation.widened > 0.0)
        {
            let x = &v.overall.relaxation;
            println!(
                "{}: relaxation widened {:.3} of the queries (needlessly {:.3}), outside@{} {:.3}, \
                 labels correct {}",
                v.name,
                x.widened,
                x.needless,
                a.k,
                x.outside,
                x.labels_correct
                    .map(|c| format!("{c:.3}"))
                    .unwrap_or_else(|| "-".into())
            );
        }
        let t_explain: f64 = runs.iter().map(|r| r.explain_secs).sum();
        eprintln!(
            "evaluated {} queries x {} variants at k={} (shards loaded in {:.2}s, searches in {:.2}s, \
             of which {:.2}s explaining the misses)",
            queries.len(),
            systems.len(),
            a.k,
            t_load,
            t_run,
            t_explain
        );
        Ok(())
    }

    fn write_file(path: &std::path::Path, text: &str) -> Result<(), String> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        }
        std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))
    }

    /// The path of `target` relative to the folder of `from` (a file), with `/` separators; the
    /// file name alone when the folders cannot be resolved.
    fn relative_link(from: &std::path::Path, target: &std::path::Path) -> String {
        let name = target
            .file_name()
            .map(|n| n.to_string_lossy().to_string())
            .unwrap_or_default();
        let resolve = |p: &std::path::Path| {
            let p = if p.as_os_str().is_empty() {
                std::path::Path::new(".")
            } else {
                p
            };
            std::fs::create_dir_all(p).ok()?;
            p.canonicalize().ok()
        };
        let (Some(a), Some(b)) = (
            from.parent().and_then(resolve),
            target.parent().and_then(resolve),
        ) else {
            return name;
        };
        let a: Vec<_> = a.components().collect();
        let b: Vec<_> = b.components().collect();
        let common = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
        let mut parts: Vec<String> = vec!["..".to_string(); a.len() - common];
        parts.extend(
            b[common..]
                .iter()
                .map(|c| c.as_os_str().to_string_lossy().to_string()),
        );
        parts.push(name);
        parts.join("/")
    }

    /// The `--variant` value, or an error listing the valid ones.
    fn variant_arg(v: &str) -> Result<Variant, String> {
        Variant::parse(v)
            .ok_or_else(|| format!("unknown --variant {v:?}; valid: A, B, B+, C, D, E"))
    }

    fn search(a: SearchArgs) -> Result<(), String> {
        let mut opts = SearchOptions::for_variant(variant_arg(&a.variant)?);
        if let Some(g) = &a.gating {
            opts.stages.gating = Gating::parse(g).ok_or_else(|| {
                format!("unknown --gating {g:?}; valid: gated, ungated, post_filtered")
            })?;
        }
        opts.k = a.k;
        opts.expand_chars = a.expand;
        a.relax.apply(&mut opts)?;
        let scope = a.scope.scope()?;
        let mut lib = Library::open_dir(&a.shards).map_err(|e| e.to_string())?;
        scope.validate(lib.manifest()).map_err(|e| e.to_string())?;
        lib.load_needed_from_dir(&a.shards, &scope, opts.stages.gating)
            .map_err(|e| e.to_string())?;
        if opts.stages.relax {
            // Relaxation may widen to the subject's other levels: load them too.
            let mut wide = scope.clone();
            wide.relax(Field::Level);
            lib.load_needed_from_dir(&a.shards, &wide, Gating::Gated)
                .map_err(|e| e.to_string())?;
        }
        lib.load_model_from_dir(&a.shards)
            .map_err(|e| e.to_string())?;
        let resp = lib
            .search(&a.query, &scope, &opts)
            .map_err(|e| e.to_string())?;
        if a.context {
            print!("{}", lib.to_context(&resp));
            return Ok(());
        }
        if a.json {
            println!(
                "{}",
                serde_json::to_string(&resp).map_err(|e| e.to_string())?
            );
            return Ok(());
        }
        println!(
            "{} results | scope {} | {} of {} chunks admissible | {:.2} ms",
            resp.results.len(),
            scope,
            resp.trace.admissible,
            resp.trace.pool_chunks,
            resp.trace.timings.total_ms
        );
        for h in &resp.results {
            let snippet: String = h.snippet.iter().map(|s| s.text.as_str()).collect();
            let label = match h.leakage {
                chsr::search::Leakage::InScope => String::new(),
                other => format!(
                    "  ({})",
                    serde_json::to_string(&other)
                        .unwrap_or_default()
                        .trim_matches('"')
                ),
            };
            println!(
                "{:>3}. {:.4}  {}  [{} / {} / {}]{label}\n     {}",
                h.rank,
                h.score,
                h.id,
                h.subject,
                h.level,
                h.doc_type,
                snippet.replace('\n', " ")
            );
        }
        for n in &resp.trace.notes {
            println!("note: {n}");
        }
        Ok(())
    }

    fn explain(a: ExplainArgs) -> Result<(), String> {
        let mut opts = SearchOptions::for_variant(variant_arg(&a.variant)?);
        opts.k = a.k;
        let scope = a.scope.scope()?;
        let mut lib = Library::open_dir(&a.shards).map_err(|e| e.to_string())?;
        scope.validate(lib.manifest()).map_err(|e| e.to_string())?;
        // Every shard is loaded so that a chunk outside the scope can still be located.
        lib.load_needed_from_dir(&a.shards, &Scope::new(), Gating::Ungated)
            .map_err(|e| e.to_string())?;
        lib.load_model_from_dir(&a.shards)
            .map_err(|e| e.to_string())?;
        let ex = chsr::explain::explain(&lib, &a.query, &scope, &opts, &a.expect)
            .map_err(|e| e.to_string())?;
        if a.json {
            println!("{}", serde_json::to_string(&ex).map_err(|e| e.to_string())?);
            return Ok(());
        }
        println!(
            "variant {} | scope {} | {} results | {} of {} chunks admissible",
            opts.variant.name(),
            scope,
            ex.response.results.len(),
            ex.response.trace.admissible,
            ex.response.trace.pool_chunks
        );
        let r = |x: Option<usize>| x.map_or("-".to_string(), |v| v.to_string());
        for c in &ex.chunks {
            println!(
                "{:<16} {}  [gate {} | bm25 {} | dense {} | fused {} | final {}]\n                 {}",
                c.verdict,
                c.id,
                if c.admitted { "ok".to_string() } else { format!("excluded by {}", c.excluded_by.as_deref().unwrap_or("?")) },
                r(c.bm25_rank),
                r(c.dense_rank),
                r(c.fused_rank),
                r(c.final_rank),
                c.explanation
            );
        }
        Ok(())
    }

    fn verify(dir: &std::path::Path) -> Result<(), String> {
        let mut lib = Library::open_dir(dir).map_err(|e| e.to_string())?;
        let entries = lib.manifest().shards.clone();
        let mut errors = Vec::new();
        let mut files = entries.len();
        for e in &entries {
            let path = dir.join(&e.file);
            match std::fs::read(&path) {
                Err(err) => errors.push(format!(
                    "{}: {}",
                    e.file,
                    chsr::search::missing_shard_message(&err)
                )),
                Ok(bytes) => match lib.load_shard(&e.file, &bytes) {
                    Ok(()) => println!("ok  {} ({} chunks, {} bytes)", e.file, e.chunks, e.bytes),
                    Err(err) => errors.push(err.to_string()),
                },
            }
            // Its dense part, if any (checked against the shard it belongs to).
            if let Some(d) = &e.dense {
                files += 1;
                match std::fs::read(dir.join(&d.file)) {
                    Err(err) => errors.push(format!(
                        "{} (vectors of {}): {}",
                        d.file,
                        e.file,
                        chsr::search::missing_shard_message(&err)
                    )),
                    Ok(_) if !lib.is_loaded(&e.file) => errors.push(format!(
                        "{} (vectors of {}): not checked, its shard is bad",
                        d.file, e.file
                    )),
                    Ok(bytes) => match lib.load_dense(&d.file, &bytes) {
                        Ok(()) => {
                            println!("ok  {} (vectors of {}, {} bytes)", d.file, e.file, d.bytes)
                        }
                        Err(err) => errors.push(err.to_string()),
                    },
                }
            }
        }
        // The embedding model the manifest lists, if any: present, the right file, decodable.
        let model = lib.manifest().model.clone();
        if let Some(m) = &model {
            match std::fs::read(dir.join(&m.file)) {
                Err(err) => errors.push(format!(
                    "{} (embedding model): {}",
                    m.file,
                    chsr::search::missing_shard_message(&err)
                )),
                Ok(bytes) => match lib.load_model(&bytes) {
                    Ok(()) => println!(
                        "ok  {} (embedding model {}, {} bytes)",
                        m.file, m.id, m.bytes
                    ),
                    Err(err) => errors.push(err.to_string()),
                },
            }
        }
        let parts = files - entries.len();
        let mut what = format!("{} shards", entries.len());
        if parts > 0 {
            what += &format!(", {parts} dense parts");
        }
        if model.is_some() {
            what += " and the embedding model";
        }
        if errors.is_empty() {
            println!("{what} verified");
            Ok(())
        } else {
            for e in &errors {
                eprintln!("BAD {e}");
            }
            Err(format!(
                "{} of {} files failed verification",
                errors.len(),
                files + usize::from(model.is_some())
            ))
        }
    }

    #[cfg(feature = "distill")]
    mod distill_cli {
        use chsr::distill::{distill, DistillOptions, WeightingChoice, DEFAULT_SOURCE_MODEL};
        use chsr::format::model::Quantization;
        use chsr::format::sha256_hex;
        use clap::Args;
        use std::path::PathBuf;

        #[derive(Args)]
        pub struct DistillArgs {
            /// Folder with config.json, vocab.txt, model.safetensors (tokenizer.json is checked).
            #[arg(long)]
            model_dir: PathBuf,
            /// Output model file.
            #[arg(long)]
            out: PathBuf,
            /// Dimensions kept by the PCA.
            #[arg(long, default_value_t = 256)]
            dims: usize,
            /// Corpora (JSONL): keep only the tokens they use (plus --common); none = full vocabulary.
            #[arg(long, num_args = 1..)]
            vocab: Vec<PathBuf>,
            /// With --vocab: also keep the first N ordinary tokens of the vocabulary (by id).
            #[arg(long, default_value_t = 5000)]
            common: usize,
            /// Vector storage: int8 (per-row scale) or f16.
            #[arg(long, default_value = "int8")]
            quant: String,
            /// Token weighting: sif-corpus (needs --vocab), sif-rank, zipf, uniform; auto = sif-corpus
            /// with --vocab, else sif-rank.
            #[arg(long, default_value = "auto")]
            weighting: String,
            /// SIF constant a.
            #[arg(long, default_value_t = 1e-4)]
            sif_a: f32,
            /// Source model id recorded in the file.
            #[arg(long, default_value = DEFAULT_SOURCE_MODEL)]
            source_model: String,
            /// Sequences per forward batch.
            #[arg(long, default_value_t = 512)]
            batch: usize,
            /// Reuse (or create) a cache of the forward pass (for parameter sweeps).
            #[arg(long, hide = true)]
            forward_cache: Option<PathBuf>,
        }

        pub fn run(a: DistillArgs) -> Result<(), String> {
            let quantization = Quantization::parse(&a.quant)
                .ok_or_else(|| format!("unknown --quant {:?}; valid: int8, f16", a.quant))?;
            let name = match a.weighting.as_str() {
                "auto" if a.vocab.is_empty() => "sif-rank",
                "auto" => "sif-corpus",
                other => other,
            };
            let weighting = WeightingChoice::parse(name, a.sif_a).ok_or_else(|| {
                format!(
                    "unknown --weighting {:?}; valid: auto, sif-corpus, sif-rank, zipf, uniform",
                    a.weighting
                )
            })?;
            let mut opts = DistillOptions::new(a.model_dir);
            opts.dims = a.dims;
            opts.vocab_corpora = a.vocab;
            opts.common_tokens = a.common;
            opts.quantization = quantization;
            opts.weighting = weighting;
            opts.source_model = a.source_model;
            opts.batch_size = a.batch;
            opts.forward_cache = a.forward_cache;
            let (bytes, r) = distill(&opts).map_err(|e| e.to_string())?;
            std::fs::write(&a.out, &bytes).map_err(|e| format!("{}: {e}", a.out.display()))?;
            eprintln!(
                "distilled {} of {} tokens ({} ordinary) to D={} {}: explained variance {:.3}",
                r.kept,
                r.vocab_size,
                r.ordinary,
                opts.dims,
                quantization.name(),
                r.explained_variance
            );
            eprintln!(
                "time: forward {:.1}s{}, corpus {:.1}s, pca {:.1}s, total {:.1}s",
                r.forward_secs,
                if r.cached { " (cached)" } else { "" },
                r.corpus_secs,
                r.pca_secs,
                r.total_secs
            );
            println!(
                "{}  {} bytes  sha256 {}",
                a.out.display(),
                bytes.len(),
                sha256_hex(&bytes)
            );
            Ok(())
        }
    }
}
