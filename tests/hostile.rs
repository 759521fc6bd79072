//! Hostile and broken input, and the behaviour users should see (issue 8).
//!
//! Library-level checks for hostile queries and scopes, then the command line run as a user runs
//! it (`CARGO_BIN_EXE_chsr`) on broken shard folders and corpora: exit status 1, one actionable
//! `error:` line on stderr, never a panic or backtrace. Regression tests for the bugs the fuzz
//! targets (fuzz/) and the property tests found sit at the end.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use chsr::analysis::{MAX_QUERY_BYTES, MAX_QUERY_TERMS};
use chsr::build::{write_output, BuildOutput};
use chsr::format::{Field, FORMAT_VERSION, HEADER_LEN};
use chsr::gate;
use chsr::scope::Scope;
use chsr::search::{Gating, Leakage, Library, SearchOptions, Variant};
use common::cli::*;
use common::*;

fn ids(r: &chsr::search::SearchResponse) -> Vec<&str> {
    r.results.iter().map(|h| h.id.as_str()).collect()
}

/// The chunk `id` among the loaded shards of `lib`.
fn loaded_chunk<'a>(lib: &'a Library, id: &str) -> &'a chsr::format::ChunkRecord {
    lib.loaded()
        .flat_map(|s| s.chunks())
        .find(|c| c.id == id)
        .unwrap()
}

/// Every result of a gated variant lies inside the scope.
fn assert_in_scope(lib: &Library, r: &chsr::search::SearchResponse, scope: &Scope) {
    for h in &r.results {
        let c = loaded_chunk(lib, &h.id);
        assert!(gate::admits(scope, c), "{} outside {scope}", h.id);
    }
}

// ------------------------------------------------------------------------------------ queries

#[test]
fn empty_query_browses_the_scope_in_id_order() {
    let (_, lib) = fixture();
    let scope = phys_college();
    for v in [Variant::C, Variant::D, Variant::E] {
        for q in ["", "   ", "\t\n"] {
            let r = lib.search(q, &scope, &opts(v, 5)).unwrap();
            assert!(r.trace.browse, "{v:?} {q:?}");
            assert_eq!(r.results.len(), 5);
            assert_in_scope(lib, &r, &scope);
            assert!(r
                .trace
                .notes
                .iter()
                .any(|n| n.contains("browsing the scope")));
        }
    }
    let r = lib.search("", &scope, &opts(Variant::C, 5)).unwrap();
    let mut sorted = ids(&r);
    sorted.sort_by(|a, b| chsr::expand::natural_cmp(a, b));
    assert_eq!(ids(&r), sorted, "browse is in natural id order");
}

#[test]
fn megabyte_query_is_truncated_and_still_answers() {
    let (_, lib) = fixture();
    let scope = phys_college();
    let mb = 1 << 20;
    let one_word = "heat ".repeat(mb / 5);
    let distinct: String = (0..200_000).map(|i| format!("w{i} ")).collect();
    let letter = "x".repeat(mb);
    for q in [&one_word, &distinct, &letter] {
        assert!(q.len() >= 1_000_000);
        for v in [
            Variant::B,
            Variant::BPlus,
            Variant::C,
            Variant::D,
            Variant::E,
        ] {
            let r = lib.search(q, &scope, &opts(v, 8)).unwrap();
            assert!(r.trace.truncated, "{v:?}: the trace says truncated");
            assert!(r.trace.query_terms.len() <= MAX_QUERY_TERMS);
            assert_eq!(r.trace.max_query_terms, MAX_QUERY_TERMS);
            assert!(r.results.len() <= 8);
            assert!(
                r.trace.notes.iter().any(|n| n.contains("truncated")),
                "{:?}",
                r.trace.notes
            );
        }
    }
    // The long query finds what its first words find.
    let r = lib.search(&one_word, &scope, &opts(Variant::C, 8)).unwrap();
    let short = lib.search("heat", &scope, &opts(Variant::C, 8)).unwrap();
    assert_eq!(ids(&r), ids(&short));
    // 200,000 distinct words: cut to the term limit.
    let r = lib.search(&distinct, &scope, &opts(Variant::C, 8)).unwrap();
    assert_eq!(r.trace.query_terms.len(), MAX_QUERY_TERMS);
}

#[test]
fn query_over_the_byte_limit_is_cut_on_a_character_boundary() {
    let (_, lib) = fixture();
    // Multi-byte characters straddling the limit.
    for pad in 0..4 {
        let q = format!("{}{}", "a".repeat(pad), "é".repeat(MAX_QUERY_BYTES));
        let r = lib
            .search(&q, &phys_college(), &opts(Variant::E, 3))
            .unwrap();
        assert!(r.trace.truncated);
    }
}

#[test]
fn control_characters_are_separators() {
    let (_, lib) = fixture();
    let scope = phys_college();
    let clean = lib
        .search("specific heat", &scope, &opts(Variant::C, 8))
        .unwrap();
    for q in [
        "\u{0}specific\u{7}heat\u{1b}",
        "specific\r\n\theat\u{8}",
        "\u{feff}specific\u{200b} heat\u{202e}",
    ] {
        let r = lib.search(q, &scope, &opts(Variant::C, 8)).unwrap();
        assert_eq!(r.trace.query_terms, clean.trace.query_terms, "{q:?}");
        assert_eq!(ids(&r), ids(&clean), "{q:?}");
    }
}

#[test]
fn rtl_and_mixed_scripts_are_searched_as_words() {
    let (_, lib) = fixture();
    let scope = Scope::new().with(Field::Subject, "physics");
    let q = "\u{202e}heat\u{202c} حرارة חום 热量 теплота chaleur";
    for v in [Variant::C, Variant::E] {
        let r = lib.search(q, &scope, &opts(v, 8)).unwrap();
        let terms = &r.trace.query_terms;
        assert!(terms.iter().any(|t| t == "heat"), "{terms:?}");
        assert!(terms.iter().any(|t| t == "حرارة"), "{terms:?}");
        assert!(terms.iter().any(|t| t == "热量"), "{terms:?}");
        assert!(!terms.iter().any(|t| t.contains('\u{202e}')), "{terms:?}");
        assert!(!r.results.is_empty());
        if v == Variant::C {
            assert_in_scope(lib, &r, &scope);
        }
    }
}

#[test]
fn only_stopwords_browse_in_english_and_french() {
    let (_, lib) = fixture();
    // Stopwords are those of the languages of the shards searched: English for physics, French
    // for NSI (where "the" is a word like any other).
    let physics = phys_college();
    let nsi = Scope::new()
        .with(Field::Subject, "informatique (NSI)")
        .with(Field::Level, "terminale");
    for (q, scope) in [
        ("the of and", &physics),
        ("what is the", &physics),
        ("le la les de du", &nsi),
        ("qu'est-ce que c'est", &nsi),
    ] {
        let r = lib.search(q, scope, &opts(Variant::C, 4)).unwrap();
        assert!(r.trace.browse, "{q:?}: {:?}", r.trace.query_terms);
        assert_eq!(r.results.len(), 4);
        assert_in_scope(lib, &r, scope);
    }
}

#[test]
fn formula_only_queries_meet_every_spelling() {
    let (_, lib) = fixture();
    let scope = Scope::new().with(Field::Subject, "physics");
    let a = lib.search("mv²", &scope, &opts(Variant::C, 8)).unwrap();
    let b = lib
        .search("$mv^{2}$", &scope, &opts(Variant::C, 8))
        .unwrap();
    let c = lib.search("mv^2", &scope, &opts(Variant::C, 8)).unwrap();
    assert!(a.trace.query_terms.contains(&"mv^2".to_string()));
    assert_eq!(a.trace.query_terms, b.trace.query_terms);
    assert_eq!(ids(&a), ids(&b));
    assert_eq!(ids(&a), ids(&c));
    // A formula with nothing searchable in it (only symbols) browses.
    let r = lib
        .search("= + − × ÷ ( )", &scope, &opts(Variant::C, 3))
        .unwrap();
    assert!(r.trace.browse);
    // Hostile LaTeX fragments do not break the search.
    for q in [
        "\\frac{",
        "\\frac{1}{",
        "$$$",
        "^^^__",
        "\\\\\\",
        "{{{{{{{{",
    ] {
        lib.search(q, &scope, &opts(Variant::E, 3)).unwrap();
    }
}

// ------------------------------------------------------------------------------------- scopes

#[test]
fn unknown_scope_values_are_refused_with_the_valid_ones() {
    let (_, lib) = fixture();
    let cases = [
        (
            Field::Subject,
            "chimie",
            "\"chemistry\", \"informatique (NSI)\", \"physics\"",
        ),
        (
            Field::Level,
            "lycee",
            "\"college\", \"high_school\", \"premiere\", \"terminale\"",
        ),
        (Field::DocType, "essay", "\"exercise\""),
        (Field::Lang, "de", "\"en\""),
    ];
    for (field, value, listed) in cases {
        for v in Variant::ALL {
            let e = lib
                .search("heat", &Scope::new().with(field, value), &opts(v, 3))
                .unwrap_err()
                .to_string();
            assert!(
                e.starts_with(&format!(
                    "unknown {} {value:?}; valid values: ",
                    field.name()
                )),
                "{e}"
            );
            assert!(e.contains(listed), "{e}");
        }
    }
}

// ------------------------------------------------------------------------- the command line

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

// --------------------------------------------------------- regressions found by fuzzing

/// Found by the `analyzer` fuzz target (corpus: `regression-snippet-window-ends-before-start`):
/// with a short snippet budget, a hit followed by a long run without blanks made the window end
/// move back to the blank *before* its start, and slicing the text panicked. The page can ask
/// for such short snippets (`snippet_chars` 16 to 4000).
#[test]
fn snippet_window_never_ends_before_it_starts() {
    use chsr::analysis::{Analyzer, Lang};
    use chsr::snippet::snippet;
    let a = Analyzer::new();
    let terms = a.analyze_query("heat", &[Lang::En]).terms;
    let text = "aaaaaa bbb heat-EEEEEEEEEEEEEEEEEEEEEEEEE more words here";
    for budget in [1, 16, 20, 30, 38] {
        let segs = snippet(&a, text, Lang::En, &terms, budget);
        let joined: String = segs.iter().map(|s| s.text.as_str()).collect();
        let middle = joined.trim_start_matches('…').trim_end_matches('…');
        assert!(text.contains(middle), "{budget}: {joined:?}");
        assert!(
            segs.iter().any(|s| s.hit && s.text == "heat"),
            "{budget}: {segs:?}"
        );
    }
    // The fuzzer's own input: mixed scripts, formulas and a long run of one letter.
    let text = "H₂O, v₀, x¹⁰,EEEEEEEEEEEEEEEEEEEEEEEL\u{202c} مرحШا שלום 中文";
    let terms = a
        .analyze_query(
            "L'énergke kinEEEEEEEEEEEEEEEEEEEEEEEEEEEEE \\a \\sqrt\u{7f}`x¹⁰",
            &[Lang::En, Lang::Fr],
        )
        .terms;
    let _ = snippet(&a, text, Lang::Fr, &terms, 1);
    // Through a search, with the shortest snippets the options allow.
    let (_, lib) = fixture();
    let o = SearchOptions {
        snippet_chars: 16,
        ..opts(Variant::E, 20)
    };
    lib.search("specific heat capacity", &Scope::new(), &o)
        .unwrap();
}

/// Found by the `search` fuzz target (corpus: `regression-ungated-browse-labelled-in-scope`):
/// an ungated search (B, or any variant with `gating: ungated`) labelled its out-of-scope
/// results `in_scope` — `search` reset every first-pass label — and an ungated or post-filtered
/// *browse* (empty query) neither labelled nor post-filtered them, so B+ returned chunks outside
/// the scope.
#[test]
fn ungated_results_outside_the_scope_are_labelled() {
    let (_, lib) = fixture();
    let scope = Scope::new()
        .with(Field::Source, "nsi-1re")
        .with(Field::Subject, "informatique (NSI)");
    for q in ["", "calorimeter heat released", "fonction liste"] {
        for (v, gating) in [
            (Variant::B, None),
            (Variant::BPlus, None),
            (Variant::A, Some(Gating::Ungated)),
            (Variant::C, Some(Gating::Ungated)),
            (Variant::E, Some(Gating::PostFiltered)),
        ] {
            let mut o = opts(v, 30);
            if let Some(g) = gating {
                o.stages.gating = g;
            }
            let r = lib.search(q, &scope, &o).unwrap();
            for h in &r.results {
                let c = loaded_chunk(lib, &h.id);
                let inside = gate::admits(&scope, c);
                assert_eq!(h.in_scope, inside, "{q:?} {v:?}: {}", h.id);
                let post = o.stages.gating == Gating::PostFiltered;
                if post {
                    assert!(inside, "{q:?} {v:?}: post-filtered result {} outside", h.id);
                }
                if !inside {
                    assert_eq!(h.leakage, Leakage::Ungated, "{q:?} {v:?}: {}", h.id);
                }
            }
            if v == Variant::B && q.is_empty() {
                assert!(
                    r.results.iter().any(|h| !h.in_scope),
                    "B browses every shard"
                );
            }
        }
    }
}

/// Found by review while writing the `jsonl` target's "every chunk is found by its own scope"
/// check (the fuzzer had not reached it in 150 s): scopes are trimmed but ingested metadata was
/// not, so a corpus line with `"subject": "physics "` built a shard that no scope could select
/// (its own subject was refused as unknown). Metadata is now trimmed at ingest.
#[test]
fn metadata_with_surrounding_blanks_is_trimmed_and_searchable() {
    let line = r#"{"id":" a:1 ","text":"  Heat flows.  ","subject":"physics ","level":" college","lang":"en ","doc_type":"textbook_section\t","chapter":" 4 ","exam":" BNS ","topic":"   "}"#;
    let c = chsr::corpus::parse_line("c.jsonl", 1, line)
        .unwrap()
        .unwrap();
    assert_eq!(c.record.id, " a:1 ", "ids stay verbatim");
    assert_eq!(c.record.text, "  Heat flows.  ", "text stays verbatim");
    assert_eq!(
        (
            c.record.subject.as_str(),
            c.record.level.as_str(),
            c.record.lang.as_str(),
            c.record.doc_type.as_str()
        ),
        ("physics", "college", "en", "textbook_section")
    );
    assert_eq!(c.record.chapter.as_deref(), Some("4"));
    assert_eq!(c.record.exam.as_deref(), Some("BNS"));
    assert_eq!(c.record.topic, None, "a blank optional value is absent");
    let out = chsr::build::build(&[c], &Default::default());
    let lib = library(&out);
    let scope = Scope::new()
        .with(Field::Subject, "physics")
        .with(Field::Level, "college")
        .with(Field::Exam, "BNS")
        .with(Field::Chapter, "4");
    let r = lib.search("heat", &scope, &opts(Variant::C, 3)).unwrap();
    assert_eq!(ids(&r), vec![" a:1 "]);
}

/// Found by review: with both `visibility` and `access` given, `visibility: "public"` hid a
/// non-public `access` (the builder failed open). Either one being non-public now refuses the
/// chunk (see also `cli_builder_refuses_non_public_chunks_unless_private`).
#[test]
fn visibility_and_access_fail_closed() {
    use chsr::corpus::{check_visibility, parse_jsonl};
    for extra in [
        r#""visibility":"public","access":"restricted","#,
        r#""access":"public","visibility":"restricted","#,
        r#""access":"restricted","#,
        r#""visibility":0,"#,
    ] {
        let line = LINE.replacen('{', &format!("{{{extra}"), 1);
        let chunks = parse_jsonl("c.jsonl", &line).unwrap();
        let e = check_visibility(&chunks, false).unwrap_err().to_string();
        assert!(
            e.starts_with("c.jsonl:1: chunk \"a:1\" has visibility"),
            "{extra}: {e}"
        );
        assert!(check_visibility(&chunks, true).is_ok());
    }
    let line = LINE.replacen('{', r#"{"visibility":"PUBLIC","access":"public","#, 1);
    assert!(check_visibility(&parse_jsonl("c.jsonl", &line).unwrap(), false).is_ok());
}

// ------------------------------------------------------------ forged dense indexes

/// A toy query embedder matching [`toy_embed`] (the shards' "model", identified by the SHA-256
/// of [`TOY_FILE`]).
struct Toy(String);
const TOY_FILE: &[u8] = b"toy model for hostile.rs";
fn toy_embed(text: &str) -> Vec<f32> {
    let mut v = vec![0f32; 6];
    for (i, b) in text.bytes().enumerate() {
        v[(b as usize + i) % 6] += 1.0;
    }
    let n = v.iter().map(|x| x * x).sum::<f32>().sqrt().max(1e-6);
    v.into_iter().map(|x| x / n).collect()
}
impl chsr::search::QueryEmbedder for Toy {
    fn model_sha256(&self) -> &str {
        &self.0
    }
    fn embed_query(&self, q: &str) -> Vec<f32> {
        toy_embed(q)
    }
}

/// instant-distance 0.6's serialised `HnswMap<QVec, u32>`, to forge graphs with.
#[derive(serde::Serialize, serde::Deserialize, Clone)]
struct GraphBytes {
    hnsw: HnswBytes,
    values: Vec<u32>,
}
#[derive(serde::Serialize, serde::Deserialize, Clone)]
struct HnswBytes {
    ef_search: usize,
    points: Vec<chsr::format::QVec>,
    zero: Vec<([u32; 32], [u32; 32])>,
    layers: Vec<Vec<[u32; 32]>>,
}

/// A 60-chunk physics shard with a toy dense index, its payload and decoded graph layout.
fn dense_shard() -> (BuildOutput, chsr::format::ShardPayload, GraphBytes) {
    let chunks: Vec<_> = chsr::corpus::parse_jsonl("spine.jsonl", SPINE)
        .unwrap()
        .into_iter()
        .filter(|c| c.record.subject == "physics" && c.record.level == "college")
        .take(60)
        .collect();
    let f = |t: &str| toy_embed(t);
    let e = chsr::build::Embedder {
        model_id: "toy".into(),
        file: TOY_FILE,
        dims: 6,
        embed: &f,
    };
    let out = chsr::build::build_with(&chunks, &Default::default(), Some(&e));
    // The forged shards below carry their graph inline (a layout the reader still accepts).
    let mut payload = chsr::format::decode_shard(&out.shards[0].bytes).unwrap();
    payload.dense = Some(
        chsr::format::decode_dense_part(out.shards[0].dense_bytes.as_ref().unwrap(), true)
            .unwrap()
            .index,
    );
    let bytes = &payload.dense.as_ref().unwrap().graph;
    let (g, used): (GraphBytes, usize) =
        bincode::serde::decode_from_slice(bytes, bincode::config::standard()).unwrap();
    assert_eq!(used, bytes.len());
    // The mirror is exact: re-encoding gives the very same bytes.
    assert_eq!(
        &bincode::serde::encode_to_vec(&g, bincode::config::standard()).unwrap(),
        bytes
    );
    (out, payload, g)
}

/// Loads `payload` (with `graph` as its dense graph) as the only shard of a consistent manifest
/// (what a host serving a forged folder controls), then searches through the graph.
fn load_forged(
    out: &BuildOutput,
    payload: &chsr::format::ShardPayload,
    graph: Option<&GraphBytes>,
) -> Result<Library, chsr::search::LoadError> {
    let mut p = payload.clone();
    if let Some(g) = graph {
        p.dense.as_mut().unwrap().graph =
            bincode::serde::encode_to_vec(g, bincode::config::standard()).unwrap();
    }
    let bytes = chsr::format::encode_shard(&p);
    let mut m = out.manifest.clone();
    m.shards[0].sha256 = chsr::format::sha256_hex(&bytes);
    m.shards[0].dense = None;
    let file = m.shards[0].file.clone();
    let mut lib = Library::new(m);
    lib.set_embedder(Box::new(Toy(chsr::format::sha256_hex(TOY_FILE))));
    lib.load_shard(&file, &bytes)?;
    let mut o = opts(Variant::A, 5);
    o.dense.exact_max = 0;
    o.dense.exact_fraction = 0.0;
    for q in ["heat", "temperature change of water", ""] {
        let r = lib.search(q, &phys_college(), &o).unwrap();
        assert!(r.results.len() <= 5);
    }
    Ok(lib)
}

/// Found by review of what `DenseIndex::decode_graph` checks, and targeted by the `shard_load`
/// fuzz target (which forces the graph search): the HNSW search indexes its link tables without
/// bounds checks of its own, so a forged graph whose links name missing points, or whose zero
/// layer is shorter than its points, panicked the reader (and, in the browser, aborted the Wasm
/// module). `decode_graph` now checks the link tables and refuses such shards.
#[test]
fn forged_dense_graphs_are_refused() {
    let (out, payload, g) = dense_shard();
    let lib = load_forged(&out, &payload, None).expect("the real graph loads");
    let r = lib
        .search("heat", &phys_college(), &opts(Variant::A, 5))
        .unwrap();
    assert_eq!(
        r.results.len(),
        5,
        "dense-only search works on the toy model"
    );
    let n = g.hnsw.points.len() as u32;
    // The forgeries below need an upper layer: a one-node top layer without links is valid.
    let mut g = g;
    if g.hnsw.layers.is_empty() {
        g.hnsw.layers.push(vec![[u32::MAX; 32]]);
    }
    load_forged(&out, &payload, Some(&g)).expect("a graph with a valid upper layer loads");
    let top = g.hnsw.layers.len() - 1;
    let mut forged: Vec<(&str, GraphBytes)> = Vec::new();
    let mut x = g.clone();
    x.hnsw.zero[0].0[0] = n + 7;
    forged.push(("zero-layer link past the points", x));
    let mut x = g.clone();
    x.hnsw.zero.truncate(1);
    forged.push(("zero layer shorter than the points", x));
    let mut x = g.clone();
    x.hnsw.layers[0][0][0] = x.hnsw.layers[0].len() as u32 + 3;
    forged.push(("upper-layer link past its layer", x));
    let mut x = g.clone();
    x.hnsw.layers[top].clear();
    forged.push(("empty top layer", x));
    let mut x = g.clone();
    let extra = x.hnsw.layers[0].clone();
    x.hnsw.layers[top].extend(extra.iter().cycle().take(2 * n as usize));
    forged.push(("top layer larger than the points", x));
    let mut x = g.clone();
    x.hnsw.points.push(x.hnsw.points[0].clone());
    x.hnsw.zero.push(x.hnsw.zero[0]);
    forged.push(("more points than values", x));
    for (what, x) in &forged {
        match load_forged(&out, &payload, Some(x)) {
            Err(chsr::search::LoadError::Format { error, .. }) => {
                let e = error.to_string();
                assert!(
                    e.starts_with("shard payload does not decode: dense graph"),
                    "{what}: {e}"
                );
            }
            Err(e) => panic!("{what}: unexpected error {e}"),
            Ok(_) => panic!("{what}: a forged graph was accepted"),
        }
    }
}

/// Found by review: the note for a shard whose vectors come from another model sliced the model
/// SHA-256 from the shard by bytes (`[..12]`), which panics when a forged shard puts a
/// multi-byte character there.
#[test]
fn foreign_model_note_survives_a_non_ascii_model_hash() {
    let (out, mut payload, _) = dense_shard();
    payload.dense.as_mut().unwrap().model_sha256 = "aééééééééé-not-hex".into();
    let lib = load_forged(&out, &payload, None).expect("loads; the model only differs");
    let r = lib
        .search("heat", &phys_college(), &opts(Variant::C, 5))
        .unwrap();
    assert!(
        r.trace
            .notes
            .iter()
            .any(|n| n.contains("not the loaded model")),
        "{:?}",
        r.trace.notes
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
