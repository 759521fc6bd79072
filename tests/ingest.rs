//! A new author's first corpus: what `chsr build` says about records missing fields, a Markdown
//! file given instead of JSONL, fields it does not know, and document types written in her own
//! words (`corrigé`), which must get the meaning of the canonical type.
#![cfg(not(target_arch = "wasm32"))]

use chsr::build::{build, BuildOptions};
use chsr::corpus::{parse_corpus, parse_jsonl, parse_line, FileKind, IngestError, IngestWarning};
use chsr::scope::Scope;
use chsr::search::{Library, SearchOptions, Variant};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Runs the CLI: (exit status, stdout, stderr).
fn chsr(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_chsr"))
        .args(args)
        .env_remove("RUST_BACKTRACE")
        .output()
        .expect("chsr runs");
    (
        out.status.code().expect("exit status"),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A fresh folder holding `files` (name, content).
fn folder(name: &str, files: &[(&str, &str)]) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("ingest")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for (file, text) in files {
        std::fs::write(dir.join(file), text).unwrap();
    }
    dir
}

fn build_cli(dir: &Path, file: &str) -> (i32, String) {
    let (code, _, err) = chsr(&[
        "build",
        "--out",
        dir.join("out").to_str().unwrap(),
        dir.join(file).to_str().unwrap(),
    ]);
    (code, err)
}

fn record(id: &str, doc_type: &str, text: &str) -> String {
    serde_json::json!({
        "id": id, "text": text, "subject": "informatique", "level": "terminale", "lang": "fr",
        "doc_type": doc_type, "chapter": 2,
    })
    .to_string()
}

#[test]
fn every_missing_required_field_of_a_record_is_named_in_one_error() {
    let line = r#"{"id":"a","text":"hello world"}"#;
    let e = parse_line("c.jsonl", 1, line).unwrap_err();
    let IngestError::Fields { problems, .. } = &e else {
        panic!("one error for the record, got {e:?}");
    };
    let fields: Vec<&str> = problems.iter().map(|p| p.field.as_str()).collect();
    assert_eq!(fields, ["subject", "level", "lang", "doc_type"]);
    assert_eq!(
        e.to_string(),
        "c.jsonl:1: fields `subject`, `level`, `lang`, `doc_type`: missing (required)"
    );
    // Different problems of one record are reported together too, each with its field.
    let line = r#"{"id":"a","text":"x","subject":"s","level":"l","lang":"fr","docType":"cours","chapter":[1]}"#;
    let e = parse_line("c.jsonl", 4, line).unwrap_err().to_string();
    assert!(e.starts_with("c.jsonl:4: field `doc_type`: missing"), "{e}");
    assert!(e.contains("rename it `doc_type`"), "{e}");
    assert!(
        e.contains("field `chapter`: expected a string or an integer"),
        "{e}"
    );

    // The command line says it in one run.
    let dir = folder(
        "missing",
        &[("c.jsonl", "{\"id\":\"a\",\"text\":\"hello world\"}\n")],
    );
    let (code, err) = build_cli(&dir, "c.jsonl");
    assert_eq!(code, 1);
    assert_eq!(err.lines().count(), 1, "{err}");
    for f in ["subject", "level", "lang", "doc_type", "c.jsonl:1"] {
        assert!(err.contains(f), "{f} not in {err}");
    }
}

#[test]
fn a_markdown_file_is_refused_with_the_format_expected() {
    let md = "# Les arbres binaires\n\nUn arbre est…\n";
    for name in ["notes.md", "notes.jsonl"] {
        let e = parse_corpus(name, md).unwrap_err();
        assert_eq!(
            e,
            IngestError::NotJsonl {
                file: name.into(),
                found: FileKind::Markdown
            }
        );
    }
    // Front matter, a page, a JSON array.
    let found = |name: &str, text: &str| match parse_corpus(name, text) {
        Err(IngestError::NotJsonl { found, .. }) => Some(found),
        _ => None,
    };
    assert_eq!(
        found("a.md", "---\ntitle: x\n---\n"),
        Some(FileKind::Markdown)
    );
    assert_eq!(found("a.md", "Plain prose.\n"), Some(FileKind::Markdown));
    assert_eq!(found("a.html", "<!doctype html>\n"), Some(FileKind::Html));
    assert_eq!(
        found("a.json", "[{\"id\":\"a\"}]\n"),
        Some(FileKind::JsonArray)
    );
    // A JSONL file is read whatever its name.
    let ok = record("a", "cours", "Un arbre.");
    assert_eq!(parse_corpus("a.md", &ok).unwrap().chunks.len(), 1);

    let dir = folder("markdown", &[("notes.md", md)]);
    let (code, err) = build_cli(&dir, "notes.md");
    assert_eq!(code, 1);
    for part in [
        "notes.md",
        "Markdown",
        "JSON Lines",
        "doc_type",
        "chsr index --markdown DIR",
        "chsr index --site DIR",
    ] {
        assert!(err.contains(part), "{part} not in {err}");
    }
}

#[test]
fn unknown_fields_are_reported_once_per_file_and_the_build_succeeds() {
    let lines: Vec<String> = (0..3)
        .map(|i| {
            let mut v: serde_json::Value =
                serde_json::from_str(&record(&format!("c:{i}"), "cours", "Un arbre.")).unwrap();
            v["foo"] = i.into();
            v["Topic"] = "arbres".into();
            v.to_string()
        })
        .collect();
    let text = format!(
        "{}\n{}\n",
        lines.join("\n"),
        record("c:9", "cours", "Sans extra.")
    );
    let corpus = parse_corpus("c.jsonl", &text).unwrap();
    assert_eq!(corpus.chunks.len(), 4);
    assert_eq!(
        corpus.warnings,
        [IngestWarning::UnknownFields {
            file: "c.jsonl".into(),
            fields: vec!["Topic".into(), "foo".into()],
            first_line: 1,
            lines: 3,
        }]
    );
    let w = corpus.warnings[0].to_string();
    assert!(w.contains("`Topic` (did you mean `topic`?)"), "{w}");
    assert!(w.contains("url, title"), "the known fields are listed: {w}");

    let dir = folder("unknown", &[("c.jsonl", &text)]);
    let (code, err) = build_cli(&dir, "c.jsonl");
    assert_eq!(code, 0, "{err}");
    let warnings: Vec<&str> = err
        .lines()
        .filter(|l| l.contains("unknown field"))
        .collect();
    assert_eq!(warnings.len(), 1, "{err}");
    assert!(warnings[0].starts_with("warning: "), "{err}");
    assert!(dir.join("out/manifest.json").exists());
}

#[test]
fn a_corrige_chunk_is_stored_as_a_solution_and_lifted_by_a_corrige_query() {
    let lines = [
        record(
            "nsi:ex:1",
            "exercice",
            "Exercice : écrire une fonction maximum qui renvoie le maximum d'une liste de nombres. \
             La fonction maximum parcourt la liste.",
        ),
        record(
            "nsi:cor:1",
            "Corrigé",
            "On parcourt la liste en gardant le plus grand nombre vu : maximum.",
        ),
        record(
            "nsi:cours:1",
            "cours",
            "Une liste Python se parcourt avec une boucle for.",
        ),
        record("nsi:x:1", "essai", "Dissertation sur les listes."),
        record("nsi:x:2", "essai", "Autre dissertation."),
    ];
    let chunks = parse_jsonl("nsi.jsonl", &lines.join("\n")).unwrap();
    let out = build(&chunks, &BuildOptions::default());
    let facets = &out.manifest.shards[0].facets["doc_type"];
    let types: Vec<&str> = facets.keys().map(String::as_str).collect();
    assert_eq!(types, ["essai", "exercise", "solution", "textbook_section"]);
    assert!(out.warnings.contains(&IngestWarning::DocTypeAlias {
        value: "Corrigé".into(),
        doc_type: "solution",
        chunks: 1,
    }));
    let unknown: Vec<_> = out
        .warnings
        .iter()
        .filter(|w| matches!(w, IngestWarning::UnknownDocType { .. }))
        .collect();
    assert_eq!(
        unknown,
        [&IngestWarning::UnknownDocType {
            value: "essai".into(),
            first: "nsi.jsonl:4".into(),
            chunks: 2,
        }],
        "an unknown type is kept and reported once"
    );

    let mut lib = Library::new(out.manifest.clone());
    for s in &out.shards {
        for (file, bytes) in s.files() {
            lib.load_file(file, bytes).unwrap();
        }
    }
    let r = lib
        .search(
            "corrigé fonction maximum liste",
            &Scope::new(),
            &SearchOptions::for_variant(Variant::E),
        )
        .unwrap();
    let top = &r.results[0];
    assert_eq!(top.id, "nsi:cor:1", "{:?}", r.results);
    assert_eq!(top.doc_type, "solution");
    assert!(
        top.adjustments
            .iter()
            .any(|a| a.reason == "document type solution asked for by the query"),
        "{:?}",
        top.adjustments
    );
    // The exercise matches the words better: the boost for the type asked for is what lifts
    // the correction above it.
    let exercise = r.results.iter().find(|h| h.id == "nsi:ex:1").unwrap();
    assert!(exercise.fused_score > top.fused_score);
}

#[test]
fn the_format_documentation_lists_every_field_and_the_whole_vocabulary() {
    let doc = include_str!("../docs/formats.md");
    for f in chsr::corpus::KNOWN_FIELDS {
        assert!(
            doc.contains(&format!("| `{f}` |")),
            "field {f} is not documented"
        );
    }
    let cells = |line: &str| -> Vec<String> {
        line.trim_matches('|')
            .split(" | ")
            .map(|c| c.trim().to_string())
            .collect()
    };
    let unquote = |c: &str| c.trim().trim_matches('`').to_string();
    let mut documented = Vec::new();
    // The vocabulary table: from its heading to the query-word table.
    let start = doc.find("## Document types").expect("vocabulary heading");
    let end = doc
        .find("### Words of a query")
        .expect("query words heading");
    for line in doc[start..end].lines().filter(|l| l.starts_with("| `")) {
        let c = cells(line);
        let t = chsr::doctype::DOC_TYPES
            .iter()
            .find(|t| unquote(&c[0]) == t.name)
            .unwrap_or_else(|| panic!("{} is not a canonical type", c[0]));
        documented.push(t.name);
        assert_eq!(c[1], t.meaning, "meaning of {}", t.name);
        let aliases: Vec<String> = c[2].split(", ").map(unquote).collect();
        let code: Vec<String> = t.aliases.iter().map(|a| a.to_string()).collect();
        assert_eq!(aliases, code, "aliases of {}", t.name);
    }
    assert_eq!(
        documented,
        chsr::doctype::names().collect::<Vec<_>>(),
        "one row per canonical type, in order"
    );
}
