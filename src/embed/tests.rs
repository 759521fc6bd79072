//! Hand-checked tokenizer cases, model file round trip and corruption, embedding properties.

use super::*;
use crate::format::model::{
    encode_model, f32_blob, f32_to_f16, ModelHeader, ModelPayload, PcaInfo, PruningInfo,
    Quantization, TokenizerSpec, Weighting, MODEL_FORMAT_VERSION, MODEL_HEADER_LEN,
};

const VOCAB: &[&str] = &[
    "[PAD]", "[UNK]", "[CLS]", "[SEP]", "un", "##aff", "##able", "hello", "world", "!", "cafe",
    "ca", "va", "?", "世", "界", "a", "##b", "energie", "l", "'", "x", "##x",
];

fn vocab() -> Vec<String> {
    VOCAB.iter().map(|s| s.to_string()).collect()
}

fn wp() -> WordPiece {
    WordPiece::new(&vocab(), TokenizerSpec::bert_uncased()).unwrap()
}

fn toks(text: &str) -> Vec<&'static str> {
    wp().encode(text)
        .iter()
        .map(|&i| VOCAB[i as usize])
        .collect()
}

#[test]
fn wordpiece_greedy_longest_match() {
    assert_eq!(toks("UnAffable"), ["un", "##aff", "##able"]);
    assert_eq!(toks("hello world!"), ["hello", "world", "!"]);
    // A word whose rest has no piece is one [UNK], not a partial match.
    assert_eq!(toks("unaffz hello"), ["[UNK]", "hello"]);
    assert_eq!(toks("xx"), ["x", "##x"]);
    assert_eq!(toks("ab abb"), ["a", "##b", "a", "##b", "##b"]);
}

#[test]
fn basic_tokenizer_normalises() {
    // Lowercase + accent stripping.
    assert_eq!(toks("Ça va ?"), ["ca", "va", "?"]);
    assert_eq!(toks("CAFÉ"), ["cafe"]);
    assert_eq!(toks("L'Énergie"), ["l", "'", "energie"]);
    // Punctuation is split off even inside a word.
    assert_eq!(toks("hello!world"), ["hello", "!", "world"]);
    // Control and format characters vanish; whitespace of any kind separates.
    assert_eq!(toks("hel\u{0}lo\u{200b}"), ["hello"]);
    assert_eq!(toks("hello\tworld\r\n\u{a0}!"), ["hello", "world", "!"]);
    // CJK ideographs are words of their own.
    assert_eq!(toks("世界hello"), ["世", "界", "hello"]);
    // Unknown characters.
    assert_eq!(toks("hello ☃"), ["hello", "[UNK]"]);
}

#[test]
fn overlong_words_are_unknown() {
    let longer = "x".repeat(101);
    assert_eq!(toks(&longer), ["[UNK]"]);
    assert_eq!(toks(&"x".repeat(100)).len(), 100);
}

#[test]
fn normalize_matches_bert_rules() {
    let w = wp();
    assert_eq!(w.normalize("Héllo\tWörld"), "hello world");
    assert_eq!(w.normalize("a\u{7f}b"), "ab");
    assert_eq!(w.normalize("x世y"), "x 世 y");
    assert_eq!(
        WordPiece::pre_tokenize("a,b  c."),
        vec!["a", ",", "b", "c", "."]
    );
}

/// A hand-built model over [`VOCAB`]: rows for a few ordinary tokens, D = 3.
pub(crate) fn tiny_payload(q: Quantization) -> ModelPayload {
    let row_ids: Vec<u32> = vec![4, 5, 6, 7, 8, 10, 18];
    let vecs: Vec<[f32; 3]> = vec![
        [1.0, 0.0, 0.0],
        [0.0, 1.0, 0.0],
        [0.0, 0.0, 1.0],
        [0.5, -0.25, 0.125],
        [-1.0, 2.0, 0.5],
        [0.3, 0.3, -0.3],
        [0.1, 0.9, -0.7],
    ];
    let weights: Vec<f32> = vec![1.0, 0.5, 2.0, 1.5, 1.0, 0.25, 3.0];
    let (scales, vectors) = match q {
        Quantization::Int8 => {
            let mut s = Vec::new();
            let mut d = Vec::new();
            for v in &vecs {
                let m = v.iter().fold(0f32, |m, x| m.max(x.abs()));
                s.push(m / 127.0);
                d.extend(v.iter().map(|x| ((x / (m / 127.0)).round() as i8) as u8));
            }
            (f32_blob(&s), d)
        }
        Quantization::F16 => (
            Vec::new(),
            vecs.iter()
                .flatten()
                .flat_map(|&x| f32_to_f16(x).to_le_bytes())
                .collect(),
        ),
    };
    ModelPayload {
        header: ModelHeader {
            source_model: "test/tiny".into(),
            source_sha256: "00".repeat(32),
            pooling: "hand-made".into(),
            dims: 3,
            vocab_size: VOCAB.len() as u32,
            rows: row_ids.len() as u32,
            quantization: q,
            pca: PcaInfo {
                input_dims: 3,
                output_dims: 3,
                explained_variance: 1.0,
                fitted_on: 7,
            },
            weighting: Weighting::Uniform,
            pruning: PruningInfo {
                corpus_files: vec![],
                corpus_sha256: String::new(),
                common_tokens: 0,
                kept: row_ids.len() as u32,
            },
            tokenizer: TokenizerSpec::bert_uncased(),
            builder: "test".into(),
        },
        vocab: vocab(),
        row_ids,
        weights: f32_blob(&weights),
        scales,
        vectors,
    }
}

#[test]
fn model_file_round_trips() {
    for q in [Quantization::Int8, Quantization::F16] {
        let p = tiny_payload(q);
        let bytes = encode_model(&p);
        assert_eq!(decode_model(&bytes).unwrap(), p);
        let m = StaticModel::from_bytes(&bytes).unwrap();
        assert_eq!(m.dims(), 3);
        assert_eq!(m.header().quantization, q);
        assert!(m.has_vector(4) && !m.has_vector(1) && !m.has_vector(9));
    }
}

#[test]
fn model_file_errors_are_typed() {
    let bytes = encode_model(&tiny_payload(Quantization::Int8));
    assert_eq!(
        decode_model(b"CHSRSHRD...").unwrap_err(),
        ModelFormatError::Magic
    );
    assert_eq!(decode_model(b"").unwrap_err(), ModelFormatError::Magic);
    // Every truncation is an error, never a panic.
    for cut in 0..bytes.len() {
        let e = decode_model(&bytes[..cut]).unwrap_err();
        if cut >= 8 {
            assert!(
                matches!(e, ModelFormatError::Truncated { .. }),
                "cut {cut}: {e:?}"
            );
        }
    }
    let mut v = bytes.clone();
    v[8..12].copy_from_slice(&(MODEL_FORMAT_VERSION + 1).to_le_bytes());
    assert_eq!(
        decode_model(&v).unwrap_err(),
        ModelFormatError::Version {
            found: MODEL_FORMAT_VERSION + 1,
            expected: MODEL_FORMAT_VERSION
        }
    );
    // Flipping any payload byte breaks the checksum.
    for i in (MODEL_HEADER_LEN..bytes.len()).step_by(7) {
        let mut v = bytes.clone();
        v[i] ^= 0x40;
        assert_eq!(
            decode_model(&v).unwrap_err(),
            ModelFormatError::ChecksumMismatch
        );
    }
    let mut v = bytes.clone();
    v.push(0);
    assert!(matches!(
        decode_model(&v).unwrap_err(),
        ModelFormatError::Decode(_)
    ));
    // A huge length field is refused before any allocation.
    let mut v = bytes.clone();
    v[12..20].copy_from_slice(&u64::MAX.to_le_bytes());
    assert!(matches!(
        decode_model(&v).unwrap_err(),
        ModelFormatError::Decode(_)
    ));
}

#[test]
fn inconsistent_payloads_are_decode_errors() {
    let cases: Vec<fn(&mut ModelPayload)> = vec![
        |p| p.header.dims = 0,
        |p| p.header.dims = 4,
        |p| p.header.vocab_size += 1,
        |p| p.row_ids.swap(0, 1),
        |p| *p.row_ids.last_mut().unwrap() = 99,
        |p| {
            p.weights.pop();
        },
        |p| p.scales.clear(),
        |p| {
            p.vectors.pop();
        },
        |p| p.weights[0..4].copy_from_slice(&f32::NAN.to_le_bytes()),
        |p| p.vocab[1] = "[PAD]".into(),
        |p| p.header.tokenizer.unk_token = "<unk>".into(),
    ];
    for (i, f) in cases.iter().enumerate() {
        let mut p = tiny_payload(Quantization::Int8);
        f(&mut p);
        let e = decode_model(&encode_model(&p)).unwrap_err();
        assert!(matches!(e, ModelFormatError::Decode(_)), "case {i}: {e:?}");
        assert!(StaticModel::from_payload(p).is_err(), "case {i}");
    }
    let mut p = tiny_payload(Quantization::F16);
    p.vectors[1] = 0x7c; // +inf
    assert!(matches!(
        decode_model(&encode_model(&p)),
        Err(ModelFormatError::Decode(_))
    ));
}

#[test]
fn embeddings_are_normalised_weighted_means() {
    for q in [Quantization::Int8, Quantization::F16] {
        let m = StaticModel::from_payload(tiny_payload(q)).unwrap();
        let v = m.embed("hello");
        let n: f32 = v.iter().map(|x| x * x).sum();
        assert!((n - 1.0).abs() < 1e-6, "{v:?}");
        // hello = (0.5, -0.25, 0.125) up to quantisation.
        let e = [0.5f32, -0.25, 0.125];
        let en = e.iter().map(|x| x * x).sum::<f32>().sqrt();
        for (a, b) in v.iter().zip(e) {
            assert!((a - b / en).abs() < 0.02, "{v:?}");
        }
        // un ##aff ##able: weights 1, 0.5, 2 on the three unit axes.
        let v = m.embed("unaffable");
        let n = (1.0f32 + 0.25 + 4.0).sqrt();
        for (a, b) in v.iter().zip([1.0 / n, 0.5 / n, 2.0 / n]) {
            assert!((a - b).abs() < 0.01, "{v:?}");
        }
        // Unknown and vector-less tokens only: the zero vector.
        assert_eq!(m.embed("☃ ! ?"), vec![0.0; 3]);
        assert_eq!(m.embed(""), vec![0.0; 3]);
        // Order does not matter, repetition does (it is a mean over token occurrences).
        assert_eq!(m.embed("hello world"), m.embed("world hello"));
        assert_ne!(m.embed("hello world"), m.embed("hello hello world"));
    }
}

#[test]
fn embedding_is_deterministic_bit_for_bit() {
    let m = StaticModel::from_payload(tiny_payload(Quantization::Int8)).unwrap();
    let text = "Unaffable hello, world! Café énergie xx ab";
    let a = m.embed(text);
    for _ in 0..10 {
        assert_eq!(
            a.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
            m.embed(text)
                .iter()
                .map(|x| x.to_bits())
                .collect::<Vec<_>>()
        );
    }
    // The same bits on every platform: this constant is also checked by the wasm test.
    assert_eq!(bits_digest(&a), TINY_EMBED_DIGEST, "{a:?}");
}

/// FNV-1a over the f32 bit patterns.
pub(crate) fn bits_digest(v: &[f32]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for x in v {
        for b in x.to_bits().to_le_bytes() {
            h ^= b as u64;
            h = h.wrapping_mul(0x100_0000_01b3);
        }
    }
    h
}

pub(crate) const TINY_EMBED_DIGEST: u64 = 16242146136606549824;

/// Digest of [`tiny_payload`]`(F16)`'s embedding of the same text.
pub(crate) const TINY_EMBED_DIGEST_F16: u64 = 13433782103005344995;

#[test]
fn f16_embedding_digest_is_fixed() {
    let m = StaticModel::from_payload(tiny_payload(Quantization::F16)).unwrap();
    let v = m.embed("Unaffable hello, world! Café énergie xx ab");
    assert_eq!(bits_digest(&v), TINY_EMBED_DIGEST_F16, "{v:?}");
}

/// The committed model (`data/model/`), embedded into the test binary.
const REAL_MODEL: &[u8] = include_bytes!("../../data/model/minilm-l6-static.chsrm");

/// Queries whose vectors under [`REAL_MODEL`] are pinned (EN, FR, formulas, CJK, noise).
const REAL_QUERIES: &[&str] = &[
    "What is the kinetic energy of a 2 kg mass moving at 3 m/s?",
    "Calculez l'énergie cinétique d'un solide en rotation.",
    "KE = 1/2 mv² ; F = ma ; E = mc^2",
    "photosynthesis light-dependent reactions chloroplast",
    "世界 ☃ \u{0} \t ###",
    "",
];

fn real_digest(m: &StaticModel) -> u64 {
    let all: Vec<f32> = REAL_QUERIES.iter().flat_map(|q| m.embed_query(q)).collect();
    bits_digest(&all)
}

/// Update when the committed model changes (scripts/distill-model --update).
pub(crate) const REAL_MODEL_DIGEST: u64 = 14920280476686118116;

#[test]
fn committed_model_loads_and_embeds() {
    let m = StaticModel::from_bytes(REAL_MODEL).expect("committed model decodes");
    let h = m.header();
    assert_eq!(h.source_model, "sentence-transformers/all-MiniLM-L6-v2");
    assert_eq!((h.dims, h.vocab_size), (192, 30522));
    assert_eq!(h.quantization, Quantization::Int8);
    for q in REAL_QUERIES {
        let v = m.embed_query(q);
        let n: f32 = v.iter().map(|x| x * x).sum();
        assert!(q.is_empty() || (n - 1.0).abs() < 1e-5, "{q:?}: {n}");
    }
    // Related texts are closer than unrelated ones.
    let a = m.embed("the kinetic energy of a moving object");
    let b = m.embed("energy of motion of a body");
    let c = m.embed("photosynthesis in green plants");
    assert!(
        dot(&a, &b) > dot(&a, &c) + 0.1,
        "{} vs {}",
        dot(&a, &b),
        dot(&a, &c)
    );
    assert_eq!(real_digest(&m), REAL_MODEL_DIGEST);
}

/// The same texts, models and bits in Wasm: `scripts/wasm-env wasm-pack test --node`.
#[cfg(target_arch = "wasm32")]
mod wasm {
    use super::*;
    use wasm_bindgen_test::wasm_bindgen_test;

    #[wasm_bindgen_test]
    fn tiny_models_give_the_native_bits() {
        let text = "Unaffable hello, world! Café énergie xx ab";
        let m = StaticModel::from_payload(tiny_payload(Quantization::Int8)).unwrap();
        assert_eq!(bits_digest(&m.embed(text)), TINY_EMBED_DIGEST);
        let m = StaticModel::from_payload(tiny_payload(Quantization::F16)).unwrap();
        assert_eq!(bits_digest(&m.embed(text)), TINY_EMBED_DIGEST_F16);
    }

    #[wasm_bindgen_test]
    fn committed_model_gives_the_native_bits() {
        let m = StaticModel::from_bytes(REAL_MODEL).unwrap();
        assert_eq!(real_digest(&m), REAL_MODEL_DIGEST);
    }
}

#[test]
fn queries_are_bounded() {
    let m = StaticModel::from_payload(tiny_payload(Quantization::F16)).unwrap();
    let huge = "hello ".repeat(100_000);
    let v = m.embed_query(&huge);
    assert_eq!(v, m.embed("hello"));
    let accents = "é".repeat(20_000); // cut falls inside a char
    let _ = m.embed_query(&accents);
}
