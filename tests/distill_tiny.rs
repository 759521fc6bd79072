//! The distillation pipeline on a tiny random BERT, so it cannot rot:
//! `cargo test --features distill --test distill_tiny`.
#![cfg(feature = "distill")]

use candle_core::{DType, Device};
use candle_nn::{VarBuilder, VarMap};
use candle_transformers::models::bert::{BertModel, Config};
use chsr::distill::{distill, DistillError, DistillOptions, WeightingChoice};
use chsr::embed::StaticModel;
use chsr::format::model::{decode_model, Quantization, Weighting};
use std::path::{Path, PathBuf};

const VOCAB: &[&str] = &[
    "[PAD]",
    "[unused0]",
    "[UNK]",
    "[CLS]",
    "[SEP]",
    "[MASK]",
    "the",
    "energy",
    "force",
    "##s",
    "mass",
    "light",
    "é",
    "speed",
    ".",
];

const CONFIG: &str = r#"{
  "vocab_size": 15, "hidden_size": 16, "num_hidden_layers": 2, "num_attention_heads": 4,
  "intermediate_size": 32, "hidden_act": "gelu", "hidden_dropout_prob": 0.1,
  "max_position_embeddings": 8, "type_vocab_size": 2, "initializer_range": 0.02,
  "layer_norm_eps": 1e-12, "pad_token_id": 0, "model_type": "bert"
}"#;

fn tiny_model_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("chsr-distill-tiny-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("config.json"), CONFIG).unwrap();
    std::fs::write(dir.join("vocab.txt"), VOCAB.join("\n") + "\n").unwrap();
    let config: Config = serde_json::from_str(CONFIG).unwrap();
    let varmap = VarMap::new();
    let vb = VarBuilder::from_varmap(&varmap, DType::F32, &Device::Cpu);
    BertModel::load(vb, &config).expect("random tiny BERT");
    varmap.save(dir.join("model.safetensors")).unwrap();
    let corpus = [
        r#"{"id": "a", "text": "The forces.", "subject": "physics", "level": "x", "lang": "en", "doc_type": "exercise"}"#,
        r#"{"id": "b", "text": "the energy the", "subject": "physics", "level": "x", "lang": "en", "doc_type": "exercise"}"#,
    ];
    std::fs::write(dir.join("corpus.jsonl"), corpus.join("\n") + "\n").unwrap();
    dir
}

fn opts(dir: &Path) -> DistillOptions {
    let mut o = DistillOptions::new(dir.to_path_buf());
    o.dims = 4;
    o.batch_size = 3;
    o.source_model = "test/tiny-random-bert".into();
    o
}

#[test]
fn distils_a_tiny_random_bert() {
    let dir = tiny_model_dir("full");
    let o = opts(&dir);
    let (bytes, report) = distill(&o).expect("distils");
    assert_eq!(report.vocab_size, 15);
    assert_eq!(report.ordinary, 9); // everything but the six [..] tokens
    assert_eq!(report.kept, 9);
    assert!(report.explained_variance > 0.0 && report.explained_variance <= 1.0 + 1e-9);

    let p = decode_model(&bytes).expect("decodes");
    let h = &p.header;
    assert_eq!((h.dims, h.vocab_size, h.rows), (4, 15, 9));
    assert_eq!(h.pca.input_dims, 16);
    assert_eq!(h.source_model, "test/tiny-random-bert");
    assert_eq!(p.row_ids, vec![6, 7, 8, 9, 10, 11, 12, 13, 14]);

    let m = StaticModel::from_bytes(&bytes).unwrap();
    let v = m.embed("The energy of light, at speed.");
    let n: f32 = v.iter().map(|x| x * x).sum();
    assert!((n - 1.0).abs() < 1e-5, "{v:?}");
    assert_eq!(m.embed("[CLS] [UNK] zzz"), vec![0.0; 4]);

    // Same inputs, same bytes.
    let (again, _) = distill(&o).unwrap();
    assert!(again == bytes, "distillation is not deterministic");
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn prunes_to_corpus_tokens_with_sif_and_f16() {
    let dir = tiny_model_dir("pruned");
    let mut o = opts(&dir);
    o.vocab_corpora = vec![dir.join("corpus.jsonl")];
    o.common_tokens = 1; // "the"
    o.quantization = Quantization::F16;
    o.weighting = WeightingChoice::SifCorpus(1e-2);
    let (bytes, report) = distill(&o).expect("distils");
    let p = decode_model(&bytes).unwrap();
    // the (common and in corpus), energy, force, ##s, "." (in corpus).
    assert_eq!(p.row_ids, vec![6, 7, 8, 9, 14]);
    assert_eq!(report.kept, 5);
    assert_eq!(
        p.header.pruning.corpus_files,
        vec!["corpus.jsonl".to_string()]
    );
    assert_eq!(p.header.pruning.common_tokens, 1);
    assert!(matches!(
        p.header.weighting,
        Weighting::SifCorpus {
            total_tokens: 7,
            ..
        }
    ));
    // "the" is the most frequent token: the smallest weight.
    let w: Vec<f32> = p
        .weights
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert!(w[1..].iter().all(|&x| x > w[0]), "{w:?}");
    let m = StaticModel::from_bytes(&bytes).unwrap();
    assert_eq!(m.header().quantization, Quantization::F16);
    assert!(m.has_vector(7) && !m.has_vector(10)); // mass is pruned
    assert_ne!(m.embed("energy"), vec![0.0; 4]);
    assert_eq!(m.embed("mass"), vec![0.0; 4]);
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn bad_options_and_sources_are_errors() {
    let dir = tiny_model_dir("errors");
    let mut o = opts(&dir);
    o.dims = 17;
    assert!(matches!(distill(&o), Err(DistillError::Options(_))));
    let mut o = opts(&dir);
    o.weighting = WeightingChoice::SifCorpus(1e-3);
    assert!(matches!(distill(&o), Err(DistillError::Options(_))));
    std::fs::write(dir.join("vocab.txt"), "[UNK]\n").unwrap();
    assert!(matches!(distill(&opts(&dir)), Err(DistillError::Source(_))));
    std::fs::remove_dir_all(&dir).ok();
    assert!(matches!(distill(&opts(&dir)), Err(DistillError::Io(_))));
}
