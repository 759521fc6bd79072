//! Writes seed inputs for every fuzz target into `fuzz/corpus/<target>/seed-*`, from the spine
//! fixture: small shards (with and without a toy dense index), manifests, fixture lines and
//! texts, golden queries. Run from `fuzz/`: `cargo run --bin seed_corpus` (scripts/fuzz does it
//! when a corpus folder is missing). The committed corpora are these seeds merged with what the
//! fuzzer found, minimised with `-merge=1`.

use chsr::corpus::parse_jsonl;
use chsr_fuzz::{build_small, payload_of, SPINE};
use std::fs;
use std::path::Path;

const GOLDEN_QUERIES: &str = include_str!("../../tests/fixtures/golden_queries.json");

fn write(target: &str, name: &str, bytes: &[u8]) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("corpus")
        .join(target);
    fs::create_dir_all(&dir).expect("corpus folder");
    fs::write(dir.join(format!("seed-{name}")), bytes).expect("seed written");
}

fn with_mode(mode: u8, rest: &[u8]) -> Vec<u8> {
    let mut v = vec![mode];
    v.extend_from_slice(rest);
    v
}

fn main() {
    let all = parse_jsonl("spine.jsonl", SPINE).expect("fixture parses");
    // Small corpora: a few chunks of each subject-level pair, texts cut short.
    let mut small = Vec::new();
    let mut per_pair: std::collections::BTreeMap<(String, String), usize> = Default::default();
    for c in &all {
        let n = per_pair
            .entry((c.record.subject.clone(), c.record.level.clone()))
            .or_default();
        if *n < 3 {
            *n += 1;
            let mut c = c.clone();
            c.record.text = c.record.text.chars().take(160).collect();
            small.push(c);
        }
    }
    for dense in [false, true] {
        let out = build_small(&small, dense);
        for (i, s) in out.shards.iter().enumerate().take(2) {
            let tag = format!("{}{i}", if dense { "dense" } else { "lex" });
            write(
                "shard_decode",
                &format!("{tag}-file"),
                &with_mode(0, &s.bytes),
            );
            write(
                "shard_decode",
                &format!("{tag}-payload"),
                &with_mode(1, payload_of(&s.bytes)),
            );
            write(
                "shard_load",
                &format!("{tag}-forged"),
                &with_mode(3, payload_of(&s.bytes)),
            );
            if let Some(part) = &s.dense_bytes {
                write("shard_decode", &format!("{tag}-part-file"), &with_mode(2, part));
                write(
                    "shard_decode",
                    &format!("{tag}-part-payload"),
                    &with_mode(3, payload_of(part)),
                );
            }
        }
        if !dense {
            write("manifest", "small", out.manifest.to_json().as_bytes());
        }
    }
    let full = chsr_fuzz::fixture();
    write("manifest", "fixture", full.0.manifest.to_json().as_bytes());
    // A small whole shard against the fixture manifest (raw mode: the SHA-256 path).
    let small_out = build_small(&small, false);
    write(
        "shard_load",
        "raw-file",
        &with_mode(0, &small_out.shards[0].bytes),
    );

    // JSONL: runs of fixture lines, a non-public chunk, a duplicate id, broken lines.
    let lines: Vec<&str> = SPINE.lines().collect();
    for (i, chunk) in lines.chunks(60).enumerate() {
        let text: Vec<&str> = chunk.iter().take(3).copied().collect();
        write("jsonl", &format!("lines{i}"), text.join("\n").as_bytes());
    }
    let first = lines[0];
    write(
        "jsonl",
        "private",
        first
            .replacen("{", "{\"visibility\": \"teachers\", ", 1)
            .as_bytes(),
    );
    write(
        "jsonl",
        "duplicate",
        format!("{first}\n{first}\n").as_bytes(),
    );
    write(
        "jsonl",
        "broken",
        format!("{}\n{{\"id\": 1}}\n[]\n", &first[..first.len() / 2]).as_bytes(),
    );

    // Analyzer: 4 parameter bytes, then text NUL query.
    let queries: Vec<String> = serde_json::from_str::<serde_json::Value>(GOLDEN_QUERIES)
        .expect("golden queries")
        .as_array()
        .expect("an array")
        .iter()
        .filter_map(|q| q["query"].as_str().map(String::from))
        .collect();
    for (i, c) in all.iter().step_by(37).enumerate() {
        let text: String = c.record.text.chars().take(400).collect();
        let q = &queries[i % queries.len()];
        let mut v = vec![i as u8 % 3, 7, 120, 0];
        v.extend_from_slice(format!("{text}\0{q}").as_bytes());
        write("analyzer", &format!("text{i}"), &v);
    }
    for (i, f) in [
        "KE = 1/2 mv² and $mv^{2}$ and \\frac{1}{2}mv^2",
        "H₂O, v₀, x¹⁰, \\alpha\\beta \\sqrt{2}",
        "L'énergie cinétique d'un système \u{202e}RTL\u{202c} مرحبا שלום 中文",
        "\u{0}\u{7}\u{1b}[31m control \r\n\t",
    ]
    .iter()
    .enumerate()
    {
        let mut v = vec![i as u8 % 3, 3, 1, 0];
        v.extend_from_slice(format!("{f}\0{f}").as_bytes());
        write("analyzer", &format!("formula{i}"), &v);
    }

    // Search: raw query bytes (the structured decoder reads them as it can).
    for (i, q) in queries.iter().enumerate().take(12) {
        write("search", &format!("q{i}"), q.as_bytes());
    }
    eprintln!("seed corpora written");
}
