//! The `chsr` command-line tool: build shards, search them, verify an output folder.
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
    use chsr::build::{build, write_output, BuildOptions};
    use chsr::corpus::{check_visibility, read_files};
    use chsr::format::Field;
    use chsr::library::{Gating, Library, SearchOptions};
    use chsr::scope::Scope;
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
            /// Corpus files (JSONL).
            #[arg(required = true)]
            corpus: Vec<PathBuf>,
        },
        /// Search a shard folder.
        Search(SearchArgs),
        /// Check every shard of a folder against its manifest.
        Verify {
            /// Folder holding manifest.json and the shards.
            dir: PathBuf,
        },
        /// Distil the static embedding model from a BERT sentence transformer (scripts/fetch-minilm).
        #[cfg(feature = "distill")]
        Distill(distill_cli::DistillArgs),
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
        /// gated (default), ungated or post_filtered.
        #[arg(long, default_value = "gated")]
        gating: String,
        /// Print one JSON object {"results": [...], "trace": {...}}.
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
    }

    impl ScopeArgs {
        fn scope(&self) -> Scope {
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
            s
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
                corpus,
            } => {
                let t0 = std::time::Instant::now();
                let chunks = read_files(&corpus).map_err(|e| e.to_string())?;
                check_visibility(&chunks, private).map_err(|e| e.to_string())?;
                if chunks.is_empty() {
                    return Err("the corpus is empty: no chunk to index".into());
                }
                let output = build(&chunks, &BuildOptions { k1, b });
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
            Cmd::Search(a) => search(a),
            Cmd::Verify { dir } => verify(&dir),
            #[cfg(feature = "distill")]
            Cmd::Distill(a) => distill_cli::run(a),
        }
    }

    fn search(a: SearchArgs) -> Result<(), String> {
        let gating = Gating::parse(&a.gating).ok_or_else(|| {
            format!(
                "unknown --gating {:?}; valid: gated, ungated, post_filtered",
                a.gating
            )
        })?;
        let scope = a.scope.scope();
        let mut lib = Library::open_dir(&a.shards).map_err(|e| e.to_string())?;
        scope.validate(lib.manifest()).map_err(|e| e.to_string())?;
        lib.load_needed_from_dir(&a.shards, &scope, gating)
            .map_err(|e| e.to_string())?;
        let opts = SearchOptions {
            k: a.k,
            gating,
            ..Default::default()
        };
        let resp = lib
            .search(&a.query, &scope, &opts)
            .map_err(|e| e.to_string())?;
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
            println!(
                "{:>3}. {:8.3}  {}  [{} / {} / {}]\n     {}",
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

    fn verify(dir: &std::path::Path) -> Result<(), String> {
        let mut lib = Library::open_dir(dir).map_err(|e| e.to_string())?;
        let entries = lib.manifest().shards.clone();
        let mut errors = Vec::new();
        for e in &entries {
            let path = dir.join(&e.file);
            match std::fs::read(&path) {
                Err(err) => errors.push(format!("{}: missing or unreadable: {err}", e.file)),
                Ok(bytes) => match lib.load_shard(&e.file, &bytes) {
                    Ok(()) => println!("ok  {} ({} chunks, {} bytes)", e.file, e.chunks, e.bytes),
                    Err(err) => errors.push(err.to_string()),
                },
            }
        }
        if errors.is_empty() {
            println!("{} shards verified", entries.len());
            Ok(())
        } else {
            for e in &errors {
                println!("BAD {e}");
            }
            Err(format!(
                "{} of {} shards failed verification",
                errors.len(),
                entries.len()
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
            /// Token weighting: zipf, sif-rank, sif-corpus (needs --vocab) or uniform.
            #[arg(long, default_value = "zipf")]
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
            let weighting = WeightingChoice::parse(&a.weighting, a.sif_a).ok_or_else(|| {
                format!(
                    "unknown --weighting {:?}; valid: zipf, sif-rank, sif-corpus, uniform",
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
