//! Hostile and broken input on the command line (issue 8), run as a user runs it
//! (`CARGO_BIN_EXE_chsr`) on broken shard folders and corpora: exit status 1, one actionable
//! `error:` line on stderr, never a panic or backtrace. The library-level checks are in
//! `tests/hostile.rs` and `tests/hostile_dense.rs`; the helpers in `tests/common/cli.rs`.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use chsr::build::write_output;
use chsr::format::{FORMAT_VERSION, HEADER_LEN};
use common::cli::*;
use common::{LINE, SPINE};

// ------------------------------------------------------------------------------ shard folders

#[test]
fn cli_verify_and_search_accept_a_good_folder() {
    let (dir, _) = shard_dir("good");
    let (code, out, _) = chsr(&["verify", s(&dir)]);
    assert_eq!(code, 0);
    let (texts, _) = text_parts(&dir);
    assert!(texts >= 5, "every shard's text is in text parts");
    assert!(
        out.contains(&format!(
            "5 shards, 5 part lists, {texts} text parts verified"
        )),
        "{out}"
    );
    let (code, out, _) = search_chem(&dir);
    assert_eq!(code, 0);
    assert!(out.starts_with("8 results"), "{out}");
}

#[test]
fn cli_truncated_shard() {
    let (dir, chem) = shard_dir("truncated");
    let bytes = std::fs::read(&chem).unwrap();
    std::fs::write(&chem, &bytes[..bytes.len() / 3]).unwrap();
    let err = assert_fails_with(
        chsr(&["verify", s(&dir)]),
        &[
            "BAD chemistry--college.",
            "shard is truncated",
            "rebuild with `chsr build`",
        ],
    );
    // The shard, its part list and its text parts, which cannot be checked without it.
    let (texts, chem_texts) = text_parts(&dir);
    assert!(err.contains("not checked, its shard is bad"), "{err}");
    assert!(
        err.contains(&format!(
            "error: {} of {} files failed verification",
            2 + chem_texts,
            10 + texts
        )),
        "{err}"
    );
    let (code, out, err) = search_chem(&dir);
    assert_eq!(code, 1);
    assert!(out.is_empty());
    assert!(
        err.starts_with("error: ") && err.contains("shard is truncated"),
        "{err}"
    );
    // A shard cut inside its header.
    std::fs::write(&chem, &bytes[..HEADER_LEN - 7]).unwrap();
    assert_fails_with(search_chem(&dir), &["shard is truncated"]);
}

#[test]
fn cli_corrupted_shard() {
    let (dir, chem) = shard_dir("corrupted");
    let mut bytes = std::fs::read(&chem).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 0x20;
    std::fs::write(&chem, &bytes).unwrap();
    assert_fails_with(
        chsr(&["verify", s(&dir)]),
        &[
            "checksum mismatch: the file is corrupted",
            "rebuild with `chsr build`",
        ],
    );
    assert_fails_with(search_chem(&dir), &["checksum mismatch"]);
    // Not a shard at all (an HTML error page saved under the shard's name).
    std::fs::write(&chem, b"<html><body>404 Not Found</body></html>").unwrap();
    assert_fails_with(search_chem(&dir), &["not a chsr shard"]);
}

#[test]
fn cli_stale_shard_fails_the_manifest_sha256() {
    // A valid shard from another build under the name the manifest lists: its own checksum is
    // right, the manifest's SHA-256 is not.
    let (dir, chem) = shard_dir("stale");
    let other = scratch("stale-other");
    let chunks = chsr::corpus::parse_jsonl("spine.jsonl", SPINE).unwrap();
    let other_out = chsr::build::build(
        &chunks,
        &chsr::build::BuildOptions {
            k1: 1.5,
            ..Default::default()
        },
    );
    write_output(&other_out, &other).unwrap();
    std::fs::copy(other.join(&other_out.manifest.shards[0].file), &chem).unwrap();
    assert_fails_with(chsr(&["verify", s(&dir)]), &["SHA-256 mismatch", "stale"]);
    assert_fails_with(search_chem(&dir), &["SHA-256 mismatch"]);
}

#[test]
fn cli_shard_of_another_format_version() {
    let (dir, chem) = shard_dir("version");
    let mut bytes = std::fs::read(&chem).unwrap();
    bytes[8..12].copy_from_slice(&(FORMAT_VERSION + 1).to_le_bytes());
    std::fs::write(&chem, &bytes).unwrap();
    let want = format!(
        "shard built by format v{}, this reader reads v{FORMAT_VERSION}: rebuild with `chsr build`",
        FORMAT_VERSION + 1
    );
    assert_fails_with(chsr(&["verify", s(&dir)]), &[&want]);
    assert_fails_with(search_chem(&dir), &[&want]);
}

#[test]
fn cli_manifest_naming_a_missing_shard() {
    let (dir, chem) = shard_dir("missing");
    std::fs::remove_file(&chem).unwrap();
    let (code, out, err) = chsr(&["verify", s(&dir)]);
    assert_eq!(code, 1);
    assert!(out.contains("ok  physics--college."), "{out}");
    assert!(err.contains("BAD chemistry--college."), "{err}");
    assert!(err.contains("listed in manifest.json but missing"), "{err}");
    assert_fails_with(
        search_chem(&dir),
        &[
            "listed in manifest.json but missing",
            "rebuild with `chsr build`",
        ],
    );
    // Shards outside the scope are not needed, so a search elsewhere still works.
    let (code, _, _) = chsr(&[
        "search",
        "--shards",
        s(&dir),
        "--subject",
        "physics",
        "--level",
        "college",
        "-k",
        "2",
        "--variant",
        "C",
        "heat",
    ]);
    assert_eq!(code, 0);
}

#[test]
fn cli_manifest_problems() {
    let (dir, _) = shard_dir("manifest");
    let path = dir.join("manifest.json");
    let good = std::fs::read_to_string(&path).unwrap();
    let written_by = format!(
        "invalid manifest: written by format v{}, this reader reads v{FORMAT_VERSION}: rebuild with `chsr build`",
        FORMAT_VERSION + 1
    );
    let cases: Vec<(String, &str)> = vec![
        (
            good.replace(
                &format!("\"format_version\": {FORMAT_VERSION}"),
                &format!("\"format_version\": {}", FORMAT_VERSION + 1),
            ),
            &written_by,
        ),
        (
            good.replace("\"analyzer_version\": 1", "\"analyzer_version\": 7"),
            "invalid manifest: shards analysed with analyzer v7, this reader uses v1",
        ),
        (
            good.replace("chsr-manifest", "something-else"),
            "invalid manifest: format is \"something-else\"",
        ),
        (good[..good.len() / 2].to_string(), "invalid manifest"),
        ("<html>404</html>".to_string(), "invalid manifest"),
        (
            good.replacen("\"file\": \"", "\"file\": \"../", 1),
            "must be a plain file name",
        ),
    ];
    for (text, want) in cases {
        std::fs::write(&path, &text).unwrap();
        for args in [
            vec!["verify", s(&dir)],
            vec!["search", "--shards", s(&dir), "heat"],
        ] {
            let (code, _, err) = chsr(&args);
            assert_eq!(code, 1, "{args:?}");
            assert!(err.starts_with("error: "), "{err}");
            assert!(err.contains("manifest.json"), "{err}");
            assert!(err.contains(want), "{want}: {err}");
        }
    }
    // No manifest at all: not a shard folder.
    std::fs::remove_file(&path).unwrap();
    assert_fails_with(
        chsr(&["verify", s(&dir)]),
        &["no manifest.json", "chsr build --out"],
    );
}

#[test]
fn cli_unknown_scope_values_list_the_valid_ones() {
    let (dir, _) = shard_dir("scope");
    for (flag, value, listed) in [
        (
            "--subject",
            "chimie",
            "valid values: \"chemistry\", \"informatique (NSI)\", \"physics\"",
        ),
        ("--level", "lycee", "\"college\", \"high_school\""),
        ("--doc-type", "essay", "\"exercise\""),
    ] {
        let (code, out, err) = chsr(&["search", "--shards", s(&dir), flag, value, "heat"]);
        assert_eq!(code, 1);
        assert!(out.is_empty());
        assert!(err.starts_with("error: unknown "), "{err}");
        assert!(err.contains(listed), "{err}");
    }
    assert_fails_with(
        chsr(&["search", "--shards", s(&dir), "-k", "0", "heat"]),
        &["k must be between 1 and 200"],
    );
}

#[test]
fn cli_hostile_queries_answer() {
    let (dir, _) = shard_dir("queries");
    for q in [
        "",
        "\u{1}\u{7}",
        "the of and",
        "$mv^{2}$",
        "حرارة chaleur 热量",
    ] {
        let (code, out, err) = chsr(&[
            "search",
            "--shards",
            s(&dir),
            "--subject",
            "physics",
            "--json",
            "-k",
            "3",
            q,
        ]);
        assert_eq!(code, 0, "{q:?}: {err}");
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert!(v["results"].as_array().unwrap().len() <= 3);
    }
}

// ------------------------------------------------------------------------------ the builder

#[test]
fn cli_builder_refuses_non_public_chunks_unless_private() {
    let dir = scratch("private");
    let line2 = LINE
        .replace("a:1", "a:2")
        .replacen('{', r#"{"visibility":"teachers","#, 1);
    let c = corpus(&dir, "c.jsonl", &format!("{LINE}\n{line2}\n"));
    let out = dir.join("out");
    assert_fails_with(
        chsr(&["build", "--out", s(&out), s(&c)]),
        &[
            "c.jsonl:2: chunk \"a:2\" has visibility \"teachers\"",
            "downloadable by anyone",
            "--private",
        ],
    );
    assert!(!out.join("manifest.json").exists(), "nothing is written");
    // `access` is read too, and either field being non-public is enough to refuse.
    let line3 = LINE.replace("a:1", "a:3").replacen(
        '{',
        r#"{"visibility":"public","access":"restricted","#,
        1,
    );
    let c2 = corpus(&dir, "c2.jsonl", &format!("{LINE}\n{line3}\n"));
    assert_fails_with(
        chsr(&["build", "--out", s(&out), s(&c2)]),
        &["c2.jsonl:2: chunk \"a:3\" has visibility \"restricted\""],
    );
    // With --private the same corpus builds.
    let (code, _, err) = chsr(&["build", "--private", "--out", s(&out), s(&c)]);
    assert_eq!(code, 0, "{err}");
    let (code, _, _) = chsr(&["verify", s(&out)]);
    assert_eq!(code, 0);
    // "public" in any case is public.
    let pub_line = LINE.replacen('{', r#"{"visibility":"Public","#, 1);
    let c3 = corpus(&dir, "c3.jsonl", &pub_line);
    let (code, _, err) = chsr(&["build", "--out", s(&out), s(&c3)]);
    assert_eq!(code, 0, "{err}");
}

#[test]
fn cli_builder_names_file_line_and_field() {
    let dir = scratch("ingest");
    let out = dir.join("out");
    let cases: Vec<(&str, String, &str)> = vec![
        (
            "missing.jsonl",
            format!(
                "{LINE}\n\n{}\n",
                LINE.replace(r#""subject":"physics","#, "")
            ),
            "missing.jsonl:3: field `subject`: missing (required)",
        ),
        (
            "type.jsonl",
            LINE.replace(r#""lang":"en""#, r#""lang":["en"]"#),
            "type.jsonl:1: field `lang`: expected a string, found an array",
        ),
        (
            "chapter.jsonl",
            LINE.replace(r#""lang":"en""#, r#""lang":"en","chapter":1.5"#),
            "chapter.jsonl:1: field `chapter`: expected a string or an integer, found a number",
        ),
        (
            "broken.jsonl",
            format!("{LINE}\n{}\n", &LINE[..40]),
            "broken.jsonl:2: not a JSON object",
        ),
        (
            "array.jsonl",
            format!("{LINE}\n[1, 2]\n"),
            "array.jsonl:2: not a JSON object: expected an object",
        ),
        (
            "records.json",
            format!("[{LINE}]\n"),
            "records.json: holds a JSON array, not JSONL",
        ),
        (
            "empty-id.jsonl",
            LINE.replace(r#""id":"a:1""#, r#""id":"  ""#),
            "empty-id.jsonl:1: field `id`: must not be empty",
        ),
        (
            "dup.jsonl",
            format!("{LINE}\n{}\n{LINE}\n", LINE.replace("a:1", "a:2")),
            "duplicate id \"a:1\" at ",
        ),
    ];
    for (name, text, want) in cases {
        let c = corpus(&dir, name, &text);
        let (code, _, err) = chsr(&["build", "--out", s(&out), s(&c)]);
        assert_eq!(code, 1, "{name}");
        assert!(err.contains(want), "{name}: {err}");
    }
    // Duplicates across files name both places.
    let a = corpus(&dir, "a.jsonl", LINE);
    let b = corpus(
        &dir,
        "b.jsonl",
        &format!("{}\n{LINE}", LINE.replace("a:1", "b:1")),
    );
    assert_fails_with(
        chsr(&["build", "--out", s(&out), s(&a), s(&b)]),
        &["b.jsonl:2 (first at ", "a.jsonl:1)"],
    );
    // Invalid UTF-8 names its line.
    let bad = dir.join("utf8.jsonl");
    let mut bytes = format!("{LINE}\n").into_bytes();
    bytes.extend_from_slice(b"{\"id\": \"\xff\xfe\"}\n");
    std::fs::write(&bad, bytes).unwrap();
    assert_fails_with(
        chsr(&["build", "--out", s(&out), s(&bad)]),
        &["utf8.jsonl:2: not a JSON object: invalid UTF-8"],
    );
    // An empty corpus is refused.
    let empty = corpus(&dir, "empty.jsonl", "\n\n");
    assert_fails_with(
        chsr(&["build", "--out", s(&out), s(&empty)]),
        &["the corpus is empty"],
    );
    // A missing file.
    assert_fails_with(
        chsr(&["build", "--out", s(&out), s(&dir.join("nope.jsonl"))]),
        &["nope.jsonl: cannot read"],
    );
}

// ------------------------------------------------------------------ the embedding model

#[test]
fn cli_model_file_missing_or_mismatched() {
    let (dir, model) = model_dir("model");
    let (code, out, err) = chsr(&["verify", s(&dir)]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("(embedding model "), "{out}");
    let (texts, _) = text_parts(&dir);
    assert!(
        out.contains(&format!(
            "5 shards, 5 dense parts, 5 part lists, {texts} text parts and the embedding model verified"
        )),
        "{out}"
    );
    // 5 shards, 5 dense parts, 5 part lists, the text parts and the model.
    let files = 16 + texts;
    // A missing or damaged dense part is named, and the rest still verifies.
    let m: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("manifest.json")).unwrap()).unwrap();
    let part = dir.join(m["shards"][0]["dense"]["file"].as_str().unwrap());
    let part_bytes = std::fs::read(&part).unwrap();
    std::fs::remove_file(&part).unwrap();
    assert_fails_with(
        chsr(&["verify", s(&dir)]),
        &[
            "(vectors of chemistry--college.",
            &format!("1 of {files} files failed verification"),
        ],
    );
    std::fs::write(&part, &part_bytes[..part_bytes.len() - 1]).unwrap();
    assert_fails_with(chsr(&["verify", s(&dir)]), &[".chsrv: shard is truncated"]);
    std::fs::write(&part, &part_bytes).unwrap();
    // Another file under the model's name (a stale copy, a truncated download).
    let bytes = std::fs::read(&model).unwrap();
    std::fs::write(&model, &bytes[..bytes.len() / 2]).unwrap();
    assert_fails_with(
        chsr(&["verify", s(&dir)]),
        &[
            "SHA-256 mismatch",
            "rebuild with `chsr build --model`",
            &format!("error: 1 of {files} files failed verification"),
        ],
    );
    let (code, out, err) = search_chem(&dir);
    assert_eq!(code, 1);
    assert!(out.is_empty());
    assert!(
        err.starts_with("error: ") && err.contains("SHA-256 mismatch"),
        "{err}"
    );
    // No model file at all.
    std::fs::remove_file(&model).unwrap();
    assert_fails_with(
        chsr(&["verify", s(&dir)]),
        &["(embedding model): listed in manifest.json but missing"],
    );
    assert_fails_with(search_chem(&dir), &["model"]);
}
