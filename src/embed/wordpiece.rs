//! BERT's basic tokenizer followed by greedy longest-match WordPiece.
//!
//! The steps, in the order BERT uncased applies them:
//!
//! 1. **Clean** ([`TokenizerSpec::clean_text`]): drop U+0000, U+FFFD and control characters
//!    (general categories Cc, Cf, Co, except tab, newline and carriage return); map every
//!    whitespace character to a space.
//! 2. **CJK spacing** ([`TokenizerSpec::handle_chinese_chars`]): a space before and after every
//!    CJK ideograph, so each becomes a word of its own.
//! 3. **Accent stripping** ([`TokenizerSpec::strip_accents`]): canonical decomposition (NFD), then
//!    drop non-spacing marks (Mn): `é` → `e`.
//! 4. **Lowercase** ([`TokenizerSpec::lowercase`]): full Unicode lowercase mapping.
//! 5. **Pre-tokenisation**: split on whitespace (dropped), then on punctuation (ASCII punctuation
//!    and the Unicode P* categories), each punctuation character becoming a word of its own.
//! 6. **WordPiece**, per word: a word of more than `max_input_chars_per_word` characters is the
//!    unknown token. Otherwise take the longest vocabulary entry that prefixes the word, then the
//!    longest `##`-prefixed entry that prefixes the rest, and so on; if some rest has no match,
//!    the whole word is the unknown token.
//!
//! Character classes come from `unicode_categories`, the tables `tokenizers` itself uses, so both
//! agree character for character (the golden test checks ids on 10,000+ corpus sentences).

use crate::format::model::TokenizerSpec;
use std::collections::HashMap;
use unicode_categories::UnicodeCategories;

/// A BERT basic tokenizer + WordPiece over a fixed vocabulary.
#[derive(Clone, Debug)]
pub struct WordPiece {
    spec: TokenizerSpec,
    vocab: HashMap<String, u32>,
    unk_id: u32,
}

fn is_control(c: char) -> bool {
    !matches!(c, '\t' | '\n' | '\r') && c.is_other()
}

fn is_whitespace(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r') || c.is_whitespace()
}

fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x4E00..=0x9FFF
        | 0x3400..=0x4DBF
        | 0x20000..=0x2A6DF
        | 0x2A700..=0x2B73F
        | 0x2B740..=0x2B81F
        | 0x2B920..=0x2CEAF
        | 0xF900..=0xFAFF
        | 0x2F800..=0x2FA1F)
}

/// Whether `c` is split off as a word of its own by the pre-tokenizer.
pub fn is_punctuation(c: char) -> bool {
    c.is_ascii_punctuation() || c.is_punctuation()
}

impl WordPiece {
    /// Builds the tokenizer. Fails when the unknown token is not in the vocabulary.
    pub fn new(vocab: &[String], spec: TokenizerSpec) -> Result<WordPiece, String> {
        let map: HashMap<String, u32> = vocab
            .iter()
            .enumerate()
            .map(|(i, t)| (t.clone(), i as u32))
            .collect();
        let unk_id = *map
            .get(&spec.unk_token)
            .ok_or_else(|| format!("unknown token {:?} not in the vocabulary", spec.unk_token))?;
        Ok(WordPiece {
            spec,
            vocab: map,
            unk_id,
        })
    }

    /// The settings.
    pub fn spec(&self) -> &TokenizerSpec {
        &self.spec
    }

    /// Id of the unknown token.
    pub fn unk_id(&self) -> u32 {
        self.unk_id
    }

    /// Id of a vocabulary entry.
    pub fn token_id(&self, token: &str) -> Option<u32> {
        self.vocab.get(token).copied()
    }

    /// Steps 1–4: the normalised text.
    pub fn normalize(&self, text: &str) -> String {
        let s = &self.spec;
        let mut out = String::with_capacity(text.len() + 8);
        for c in text.chars() {
            if s.clean_text {
                if c == '\0' || c == '\u{fffd}' || is_control(c) {
                    continue;
                }
                if is_whitespace(c) {
                    out.push(' ');
                    continue;
                }
            }
            if s.handle_chinese_chars && is_cjk(c) {
                out.push(' ');
                out.push(c);
                out.push(' ');
            } else {
                out.push(c);
            }
        }
        if s.strip_accents && !out.is_ascii() {
            out = crate::unicode::strip_nonspacing(&out);
        }
        if s.lowercase {
            if out.is_ascii() {
                out.make_ascii_lowercase();
            } else {
                out = out.chars().flat_map(char::to_lowercase).collect();
            }
        }
        out
    }

    /// Step 5: the words of a normalised text.
    pub fn pre_tokenize(normalized: &str) -> Vec<&str> {
        let mut words = Vec::new();
        for w in normalized.split(char::is_whitespace) {
            let mut start = 0;
            for (i, c) in w.char_indices() {
                if is_punctuation(c) {
                    if start < i {
                        words.push(&w[start..i]);
                    }
                    let end = i + c.len_utf8();
                    words.push(&w[i..end]);
                    start = end;
                }
            }
            if start < w.len() {
                words.push(&w[start..]);
            }
        }
        words
    }

    /// Step 6: appends the ids of one word.
    pub fn encode_word(&self, word: &str, out: &mut Vec<u32>) {
        if word.chars().count() > self.spec.max_input_chars_per_word as usize {
            out.push(self.unk_id);
            return;
        }
        let first = out.len();
        let mut buf = String::with_capacity(word.len() + self.spec.continuing_subword_prefix.len());
        let mut start = 0;
        while start < word.len() {
            let mut end = word.len();
            let mut found = None;
            while start < end {
                buf.clear();
                if start > 0 {
                    buf.push_str(&self.spec.continuing_subword_prefix);
                }
                buf.push_str(&word[start..end]);
                if let Some(&id) = self.vocab.get(buf.as_str()) {
                    found = Some(id);
                    break;
                }
                end -= word[start..end]
                    .chars()
                    .next_back()
                    .map_or(1, char::len_utf8);
            }
            match found {
                Some(id) => {
                    out.push(id);
                    start = end;
                }
                None => {
                    out.truncate(first);
                    out.push(self.unk_id);
                    return;
                }
            }
        }
    }

    /// The ids of a text, without special tokens.
    pub fn encode(&self, text: &str) -> Vec<u32> {
        let norm = self.normalize(text);
        let mut out = Vec::with_capacity(norm.len() / 4 + 1);
        for w in Self::pre_tokenize(&norm) {
            self.encode_word(w, &mut out);
        }
        out
    }
}
