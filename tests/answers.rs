//! The answers list (`Stages::answers`): a correction found by its question. A student pastes an
//! exercise and asks for corrections; the correction is code and shares no word with the
//! statement, and the exercise itself is outside the scope.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use chsr::format::Field;
use chsr::scope::Scope;
use chsr::search::{Library, SearchOptions, Variant};

fn chunk(id: &str, doc_type: &str, text: &str, answers: Option<&str>) -> String {
    let mut c = serde_json::json!({
        "id": id, "text": text, "subject": "informatique", "level": "terminale", "lang": "fr",
        "doc_type": doc_type, "chapter": 1, "section_key": "bns-2022",
    });
    if let Some(a) = answers {
        c["answers"] = a.into();
    }
    c.to_string()
}

const SEARCH: &str = "Écrire une fonction recherche qui prend en paramètres un nombre elt et un \
                      tableau tab, et renvoie le tableau des indices de elt dans tab";

fn library() -> Library {
    let lines = [
        chunk("ex:1", "exercise", SEARCH, None),
        chunk(
            "sol:1",
            "solution",
            "def recherche(elt, t):\n    return [i for i in range(len(t)) if t[i] == elt]",
            Some("ex:1"),
        ),
        chunk(
            "ex:2",
            "exercise",
            "Écrire une fonction moyenne qui prend en paramètre un tableau de notes et renvoie \
             la moyenne des notes du tableau",
            None,
        ),
        chunk(
            "sol:2",
            "solution",
            "def moyenne(notes):\n    return sum(notes) / len(notes)",
            Some("ex:2"),
        ),
        chunk(
            "ex:3",
            "exercise",
            "Écrire une fonction maximum qui prend en paramètre un tableau de nombres et renvoie \
             le plus grand élément du tableau",
            None,
        ),
        chunk(
            "sol:3",
            "solution",
            "Correction : on parcourt le tableau et on renvoie le plus grand des éléments, \
             comme la fonction recherche parcourt le tableau des indices.",
            Some("ex:3"),
        ),
        // A correction of an exercise the site does not have.
        chunk(
            "sol:4",
            "solution",
            "Le tableau des indices se construit en parcourant le tableau.",
            None,
        ),
    ];
    common::library_from_lines("answers.jsonl", &lines)
}

fn corrections() -> Scope {
    Scope::new()
        .with(Field::Subject, "informatique")
        .with(Field::Level, "terminale")
        .with(Field::DocType, "solution")
}

fn without_answers() -> SearchOptions {
    let mut o = SearchOptions::for_variant(Variant::F);
    o.stages.answers = false;
    o
}

fn ids(lib: &Library, query: &str, opts: &SearchOptions) -> Vec<String> {
    let r = lib.search(query, &corrections(), opts).unwrap();
    for h in &r.results {
        assert_eq!(
            h.doc_type, "solution",
            "{query}: {} is outside the scope",
            h.id
        );
    }
    r.results.into_iter().map(|h| h.id).collect()
}

#[test]
fn a_pasted_exercise_finds_its_own_correction_first() {
    let lib = library();
    let f = SearchOptions::for_variant(Variant::F);
    assert!(f.stages.answers, "F finds corrections by their question");
    let with = ids(&lib, SEARCH, &f);
    assert_eq!(with.first().map(String::as_str), Some("sol:1"), "{with:?}");
    // The correction's own words do not find it: corrections that repeat the statement's words
    // come first.
    let without = ids(&lib, SEARCH, &without_answers());
    assert_ne!(
        without.first().map(String::as_str),
        Some("sol:1"),
        "{without:?}"
    );
}

#[test]
fn a_question_that_is_no_exercise_leaves_the_ranking_alone() {
    let lib = library();
    // Words of the first statement, but not the statement: no exercise holds the question whole.
    for q in ["tableau des indices", "parcourir un tableau de nombres"] {
        assert_eq!(
            ids(&lib, q, &SearchOptions::for_variant(Variant::F)),
            ids(&lib, q, &without_answers()),
            "{q}"
        );
    }
}
