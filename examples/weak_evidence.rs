//! Measures the weak-evidence rule (`src/search/weak.rs`): how often variant F flags a response
//! as weak on generic out-of-syllabus probes, on `scoped_control` and on the dev queries, and
//! how many in-scope cards it stops showing. `scripts/bench-weak` runs it.
//!
//! ```text
//! cargo run --release --example weak_evidence -- SHARDS CORPUS.jsonl DEV.jsonl RELAXATION.jsonl [DUMP.tsv]
//! ```
//!
//! **Probes**, built from the corpus by one procedure (no query text is typed in): a heading
//! (section title, or chapter title where sections have none, and subsection headings without
//! their numbering) of a work at one level (or of another subject) is *out of syllabus* for a
//! scope when it has at least two analysed terms, none of them occurs in any heading of the
//! scope (its table of contents does not name the topic), and no chunk of the scope holds all
//! of them (its text never treats the topic; it may still use the words apart, as "Hall of
//! Mirrors" uses "hall"). Headings with the same analysed terms count once. Three groups: physics college titles asked in physics / high_school
//! (EN), chemistry college titles asked in physics / high_school (EN), NSI terminale titles asked
//! in NSI / première (FR). Every probe is searched with F, as the page does, with all shards
//! loaded (so W2 can compare levels).

#[cfg(target_arch = "wasm32")]
fn main() {}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    use chsr::analysis::{Analyzer, Lang};
    use chsr::scope::Scope;
    use chsr::search::{Gating, Library, SearchOptions, SearchResponse, Variant};
    use std::collections::{BTreeMap, BTreeSet};
    use std::io::Write;
    use std::path::PathBuf;

    let args: Vec<String> = std::env::args().collect();
    if args.len() < 5 {
        eprintln!("usage: weak_evidence SHARDS CORPUS.jsonl DEV.jsonl RELAXATION.jsonl [DUMP.tsv]");
        std::process::exit(2);
    }
    let dir = PathBuf::from(&args[1]);
    let mut lib = Library::open_dir(&dir).expect("manifest");
    lib.load_needed_from_dir(&dir, &Scope::new(), Gating::Ungated)
        .expect("shards");
    lib.load_model_from_dir(&dir).expect("model");
    let opts = SearchOptions::for_variant(Variant::F);
    let analyzer = Analyzer::new();

    // Probes from the corpus's tables of contents.
    let corpus = std::fs::read_to_string(&args[2]).expect("corpus");
    type Key = (String, String);
    let mut toc: BTreeMap<Key, BTreeSet<String>> = BTreeMap::new();
    let mut headings: BTreeMap<Key, BTreeSet<String>> = BTreeMap::new();
    let mut texts: BTreeMap<Key, Vec<String>> = BTreeMap::new();
    for line in corpus.lines().filter(|l| !l.trim().is_empty()) {
        let v: serde_json::Value = serde_json::from_str(line).expect("chunk");
        let s = |k: &str| v[k].as_str().unwrap_or("").trim().to_string();
        let key = (s("subject"), s("level"));
        // A section's title (its chapter's for a book whose sections have none), and the
        // subsection heading without its numbering ("3.2 (HP) Fonctionnement du TLS").
        let sub = s("subsection")
            .trim_start_matches(|c: char| c.is_ascii_digit() || c == '.' || c == ' ')
            .trim_start_matches("(HP)")
            .trim()
            .to_string();
        let title = if s("section_title").is_empty() {
            s("chapter_title")
        } else {
            s("section_title")
        };
        for t in [title, s("chapter_title"), sub] {
            if !t.is_empty() {
                toc.entry(key.clone()).or_default().insert(t.clone());
                headings.entry(key.clone()).or_default().insert(t);
            }
        }
        texts.entry(key).or_default().push(s("text"));
    }
    let groups = [
        (
            "physics college -> high_school (en)",
            ("physics", "college"),
            ("physics", "high_school"),
            Lang::En,
        ),
        (
            "chemistry college -> physics high_school (en)",
            ("chemistry", "college"),
            ("physics", "high_school"),
            Lang::En,
        ),
        (
            "NSI terminale -> premiere (fr)",
            ("informatique (NSI)", "terminale"),
            ("informatique (NSI)", "premiere"),
            Lang::Fr,
        ),
    ];
    let mut probes: Vec<(String, String, Scope)> = Vec::new();
    for (name, from, to, lang) in groups {
        let key = |p: (&str, &str)| (p.0.to_string(), p.1.to_string());
        let analyse =
            |t: &str| -> BTreeSet<String> { analyzer.analyze(t, lang).into_iter().collect() };
        let to_toc: BTreeSet<String> = toc
            .get(&key(to))
            .into_iter()
            .flatten()
            .flat_map(|t| analyse(t))
            .collect();
        let to_chunks: Vec<BTreeSet<String>> = texts
            .get(&key(to))
            .into_iter()
            .flatten()
            .map(|t| analyse(t))
            .collect();
        let mut seen = BTreeSet::new();
        for title in headings.get(&key(from)).into_iter().flatten() {
            let terms = analyse(title);
            let out_of_syllabus = terms.len() >= 2
                && terms.is_disjoint(&to_toc)
                && !to_chunks.iter().any(|c| terms.is_subset(c));
            if out_of_syllabus && seen.insert(terms.clone()) {
                let scope = Scope::new()
                    .with(chsr::format::Field::Subject, to.0)
                    .with(chsr::format::Field::Level, to.1);
                probes.push((name.to_string(), title.clone(), scope));
            }
        }
    }

    let read = |path: &str, slice: Option<&str>| -> Vec<(String, String, Scope)> {
        std::fs::read_to_string(path)
            .expect("queries")
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
            .filter(|v| slice.is_none_or(|s| v["slice"] == s))
            .map(|v| {
                (
                    v["slice"].as_str().unwrap_or("").to_string(),
                    v["query"].as_str().unwrap().to_string(),
                    Scope::from_json(&v["scope"]).unwrap(),
                )
            })
            .collect()
    };
    let dev = read(&args[3], None);
    let control = read(&args[4], Some("scoped_control"));

    let mut dump = args.get(5).map(|p| std::fs::File::create(p).expect("dump"));
    if let Some(f) = dump.as_mut() {
        writeln!(f, "set\tgroup\tweak\treason\tcoverage\tmatched\tterms\tknown\tdropped\tin_scope_shown\twidened_shown\tquery").unwrap();
    }
    let mut run = |set: &str, qs: &[(String, String, Scope)]| {
        let mut by: BTreeMap<String, [usize; 5]> = BTreeMap::new();
        for (group, query, scope) in qs {
            let r: SearchResponse = lib.search(query, scope, &opts).expect("search");
            let w = r.trace.weak_evidence.clone().unwrap_or_default();
            let inside = r.results.iter().filter(|h| h.in_scope).count();
            let outside = r.results.len() - inside;
            for g in [group.clone(), "all".to_string()] {
                let e = by.entry(g).or_default();
                e[0] += 1;
                e[1] += usize::from(w.weak);
                e[2] += w.dropped;
                e[3] += usize::from(w.weak && outside > 0);
                e[4] += usize::from(w.weak && inside > 0);
            }
            if let Some(f) = dump.as_mut() {
                writeln!(
                    f,
                    "{set}\t{group}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{inside}\t{outside}\t{}",
                    w.weak,
                    w.reason,
                    w.coverage,
                    w.matched_terms,
                    w.query_terms,
                    w.known_terms,
                    w.dropped,
                    query
                        .replace(['\t', '\n'], " ")
                        .chars()
                        .take(120)
                        .collect::<String>()
                )
                .unwrap();
            }
        }
        for (g, [n, weak, dropped, widened, inside]) in by {
            println!(
                "{set:<15} {g:<48} {n:>4} queries  flagged {:>5.1} %  ({weak})  \
                 in-scope cards dropped {dropped:>4}  flagged with widened results {widened:>3}  \
                 flagged with in-scope results left {inside:>3}",
                100.0 * weak as f64 / n.max(1) as f64
            );
        }
    };
    run("probes", &probes);
    run("scoped_control", &control);
    run("dev", &dev);
}
