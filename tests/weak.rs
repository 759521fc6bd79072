//! Weak in-scope evidence (src/search/weak.rs) and the manifest's per-shard term filters
//! (src/format/terms.rs): an out-of-syllabus question is flagged, shows no padding card and is
//! widened to the level that covers it (labelled); an in-syllabus one is not flagged; gibberish
//! asks for no shard its term filter rules out, and no model.
#![cfg(not(target_arch = "wasm32"))]

use chsr::build::{build, BuildOptions, BuildOutput};
use chsr::corpus::parse_jsonl;
use chsr::format::Field;
use chsr::scope::Scope;
use chsr::search::{Leakage, Library, SearchOptions, SearchResponse, Variant};

/// (id, level, section, text): a high-school book that never treats the Hall effect or
/// Bernoulli's equation but uses "hall", "effect" and "equation" in passing, and a college book
/// that does.
const CHUNKS: &[(&str, &str, &str, &str)] = &[
    ("hs:1:1", "high_school", "hs:1", "The photoelectric effect: light ejects electrons from a metal surface."),
    ("hs:1:2", "high_school", "hs:1", "Einstein explained the photoelectric effect with photons of energy hf."),
    ("hs:2:1", "high_school", "hs:2", "The Doppler effect changes the pitch of a passing siren."),
    ("hs:2:2", "high_school", "hs:2", "The greenhouse effect warms the planet by trapping infrared radiation."),
    ("hs:3:1", "high_school", "hs:3", "Tourists wander in the Hall of Mirrors at Versailles, a gallery of mirrors."),
    ("hs:3:2", "high_school", "hs:3", "Plane mirrors form virtual images the same size as the object."),
    ("hs:4:1", "high_school", "hs:4", "The equation of motion relates displacement, velocity and time."),
    ("hs:4:2", "high_school", "hs:4", "Newton's second law: force equals mass times acceleration."),
    ("hs:5:1", "high_school", "hs:5", "A lens focuses light; its focal length sets the image distance and the effect of magnification."),
    ("hs:5:2", "high_school", "hs:5", "Waves carry energy; frequency and wavelength set the speed of a wave."),
    ("hs:6:1", "high_school", "hs:6", "Friction opposes motion between surfaces in contact."),
    ("hs:6:2", "high_school", "hs:6", "Kinetic energy is one half of mass times speed squared."),
    ("pc:1:1", "college", "pc:1", "The Hall effect: a magnetic field across a current-carrying conductor creates the Hall voltage."),
    ("pc:1:2", "college", "pc:1", "The Hall emf measures the drift velocity of charge carriers in the Hall effect."),
    ("pc:1:3", "college", "pc:1", "Hall probes use the Hall effect to measure magnetic field strength."),
    ("pc:2:1", "college", "pc:2", "Bernoulli's equation relates pressure, speed and height in a flowing fluid."),
    ("pc:2:2", "college", "pc:2", "Bernoulli's principle: a faster fluid has a lower pressure, from Bernoulli's equation."),
    ("pc:3:1", "college", "pc:3", "Kinematics describes motion with displacement, velocity and acceleration."),
];

fn fixture() -> BuildOutput {
    let lines: Vec<String> = CHUNKS
        .iter()
        .map(|(id, level, section, text)| {
            serde_json::json!({
                "id": id, "text": text, "subject": "physics", "level": level, "lang": "en",
                "doc_type": "textbook_section", "section_key": section,
            })
            .to_string()
        })
        .collect();
    let chunks = parse_jsonl("weak.jsonl", &lines.join("\n")).unwrap();
    build(&chunks, &BuildOptions::default())
}

fn library(out: &BuildOutput, college: bool) -> Library {
    let mut lib = Library::new(out.manifest.clone());
    for s in &out.shards {
        if college || s.entry.level == "high_school" {
            for (file, bytes) in s.files() {
                lib.load_file(file, bytes).unwrap();
            }
        }
    }
    if let Some(t) = &out.terms_file {
        lib.load_terms(t).unwrap();
    }
    lib
}

fn high_school() -> Scope {
    Scope::new()
        .with(Field::Subject, "physics")
        .with(Field::Level, "high_school")
}

fn search(lib: &Library, q: &str, scope: &Scope) -> SearchResponse {
    lib.search(q, scope, &SearchOptions::for_variant(Variant::F))
        .unwrap()
}

/// The shards the relaxation asked for (not loaded yet).
fn pending(r: &SearchResponse) -> &[String] {
    &r.trace.relaxation.as_ref().unwrap().pending_shards
}

fn college_file(out: &BuildOutput) -> String {
    out.shards
        .iter()
        .find(|s| s.entry.level == "college")
        .unwrap()
        .entry
        .file
        .clone()
}

#[test]
fn an_out_of_syllabus_question_is_flagged_and_widened_without_padding() {
    let out = fixture();
    let lib = library(&out, true);
    for q in ["hall effect", "Bernoulli's equation"] {
        let r = search(&lib, q, &high_school());
        let w = r.trace.weak_evidence.as_ref().expect("F measures evidence");
        assert!(w.weak, "{q}: {w:?}");
        assert!(!r.results.is_empty(), "{q}: widened results are shown");
        assert!(
            r.results[0].leakage == Leakage::CrossLevel,
            "{q}: the college material leads, labelled: {:?}",
            r.results.iter().map(|h| &h.id).collect::<Vec<_>>()
        );
        // No padding: no in-scope card holding only a common word ("effect", "equation").
        for h in r.results.iter().filter(|h| h.in_scope) {
            assert!(
                !["hs:1:1", "hs:1:2", "hs:2:1", "hs:2:2", "hs:4:1", "hs:5:1"]
                    .contains(&h.id.as_str()),
                "{q}: padding card {}",
                h.id
            );
        }
    }
}

#[test]
fn a_locked_level_shows_no_padding_either() {
    let out = fixture();
    let lib = library(&out, true);
    let scope = high_school().lock(Field::Level);
    let r = search(&lib, "Bernoulli's equation", &scope);
    let w = r.trace.weak_evidence.clone().unwrap();
    assert!(w.weak && w.dropped > 0, "{w:?}");
    assert!(
        r.results.iter().all(|h| h.in_scope && h.id != "hs:4:1"),
        "{:?}",
        r.results.iter().map(|h| &h.id).collect::<Vec<_>>()
    );
}

#[test]
fn an_in_syllabus_question_is_not_flagged() {
    let out = fixture();
    let lib = library(&out, true);
    for q in [
        "photoelectric effect",
        "Doppler effect of a siren",
        "plane mirrors virtual images",
        "kinetic energy mass speed",
    ] {
        let r = search(&lib, q, &high_school());
        let w = r.trace.weak_evidence.as_ref().unwrap();
        assert!(!w.weak, "{q}: {w:?}");
        assert!(r.results.iter().all(|h| h.in_scope), "{q}");
        assert_eq!(w.dropped, 0);
    }
}

#[test]
fn weak_evidence_asks_for_another_level_only_when_its_term_filter_could_match() {
    let out = fixture();
    // The college shard is not loaded (a page before widening).
    let lib = library(&out, false);
    let r = search(&lib, "hall effect", &high_school());
    assert!(r.trace.weak_evidence.as_ref().unwrap().weak);
    let relax = r.trace.relaxation.as_ref().unwrap();
    assert_eq!(relax.pending_shards, vec![college_file(&out)]);
    // Gibberish: nothing in scope, nothing in the college shard's filter: nothing to load, and
    // no vector path (no model to fetch).
    let r = search(&lib, "xqzvbl frobnicatorium", &high_school());
    let w = r.trace.weak_evidence.as_ref().unwrap();
    assert!(w.weak && w.reason == "no_term_in_scope", "{w:?}");
    assert!(r.results.is_empty());
    assert!(pending(&r).is_empty());
    assert!(!r.trace.dense_path);
    // shards_for_query: only the shards whose term filter could hold a query term.
    let opts = SearchOptions::for_variant(Variant::F);
    let wide = Scope::new().with(Field::Subject, "physics");
    let files = |q: &str| -> Vec<String> {
        lib.shards_for_query(&wide, q, &opts)
            .into_iter()
            .map(|e| e.level)
            .collect()
    };
    assert_eq!(files("hall effect"), vec!["college", "high_school"]);
    assert_eq!(files("Versailles mirrors"), vec!["high_school"]);
    assert!(files("xqzvbl frobnicatorium").is_empty());
    assert_eq!(
        files(""),
        vec!["college", "high_school"],
        "no term: no filtering"
    );
}

#[test]
fn the_fallback_asks_for_every_shard_the_query_could_match() {
    let out = fixture();
    // A document type pins the request (W2 is blocked) and no high-school chunk names
    // Bernoulli: nothing in scope.
    let scope = high_school().with(Field::DocType, "textbook_section");
    let mut opts = SearchOptions::for_variant(Variant::F);
    opts.allow_fallback = true;
    let lib = library(&out, false);
    let r = lib.search("Bernoulli", &scope, &opts).unwrap();
    let relax = r.trace.relaxation.as_ref().unwrap();
    assert!(
        relax.steps.iter().any(|s| s.step == "W3"
            && s.note.contains("allow_fallback")
            && !s.note.starts_with("not run")),
        "{relax:?}"
    );
    // W3 covers every shard, not only the loaded one: the college shard is asked for.
    assert_eq!(relax.pending_shards, vec![college_file(&out)]);
    // Once it is loaded, its Bernoulli chunks come, labelled as the fallback.
    let lib = library(&out, true);
    let r = lib.search("Bernoulli", &scope, &opts).unwrap();
    assert!(pending(&r).is_empty());
    let bernoulli: Vec<_> = r
        .results
        .iter()
        .filter(|h| h.id.starts_with("pc:2"))
        .collect();
    assert!(!bernoulli.is_empty(), "{:?}", r.results);
    assert!(bernoulli.iter().all(|h| h.leakage == Leakage::Fallback));
    // Gibberish asks for nothing: no shard's filter holds its words.
    let lib = library(&out, false);
    let r = lib.search("xqzvbl frobnicatorium", &scope, &opts).unwrap();
    assert!(pending(&r).is_empty());
}

#[test]
fn every_shard_term_is_in_its_filter_and_builds_are_identical() {
    let out = fixture();
    let bytes = out
        .terms_file
        .as_ref()
        .expect("two levels: a term-filter file");
    let file = chsr::format::decode_term_filters(bytes, true).unwrap();
    assert_eq!(
        file.filters.len(),
        out.shards.len(),
        "both levels have a filter"
    );
    let mut inline = Vec::new();
    for (s, f) in out.shards.iter().zip(&file.filters) {
        assert_eq!(f.file, s.entry.file);
        assert!(s.entry.terms.is_none(), "not in the manifest any more");
        let d = f.decode().unwrap();
        let payload = chsr::format::decode_shard(&s.bytes).unwrap();
        assert_eq!(f.terms as usize, payload.lexical.terms.len());
        assert!(payload.lexical.terms.iter().all(|t| d.may_contain(t)));
        inline.push(chsr::format::TermFilter::build(
            payload.lexical.terms.iter().map(String::as_str),
        ));
    }
    let again = fixture();
    assert_eq!(again.manifest.to_json(), out.manifest.to_json());
    assert_eq!(again.terms_file, out.terms_file);
    let wide = Scope::new().with(Field::Subject, "physics");
    let opts = SearchOptions::for_variant(Variant::F);
    // A manifest without filters (an older build) still loads, and every shard may match.
    let mut m = out.manifest.clone();
    m.terms = None;
    let text = m.to_json();
    assert!(!text.contains("\"terms\""));
    let lib = Library::new(chsr::format::Manifest::from_json(&text).unwrap());
    assert!(lib.terms_loaded());
    assert_eq!(lib.shards_for_query(&wide, "xqzvbl", &opts).len(), 2);
    // One with the filters inline (as written before they had their own file) rules shards out.
    for (s, f) in m.shards.iter_mut().zip(inline) {
        s.terms = Some(f);
    }
    let lib = Library::new(chsr::format::Manifest::from_json(&m.to_json()).unwrap());
    assert!(lib.shards_for_query(&wide, "xqzvbl", &opts).is_empty());
    assert_eq!(lib.shards_for_query(&wide, "Bernoulli", &opts).len(), 1);
}
