//! Tests of the HTML reader on the Carpentries' lesson templates: the Workbench (sandpaper and
//! varnish, every Carpentries lesson since 2023) and the older Jekyll "styles" template.
use super::*;

fn read(html: &str) -> PageText {
    Reader::new(&Structure::default()).read(html, &[], false)
}

/// The block holding `t` and the context it was read in.
fn of<'a>(p: &'a PageText, t: &str) -> &'a Ctx {
    let b = p.blocks.iter().find(|b| b.text.contains(t));
    &p.ctxs[b.unwrap_or_else(|| panic!("no block holds {t:?}")).ctx]
}

/// What the Workbench writes for an episode (python-novice-inflammation's `05-loop.html`,
/// shortened): the overview card, code blocks labelled by their language, a challenge callout
/// and its solution in a Bootstrap accordion after it, a hint in another.
const WORKBENCH: &str = r##"<html lang="en"><body><nav>Episodes</nav>
<main id="main-content" class="main-content"><div class="container lesson-content">
<h1>Repeating Actions with Loops</h1>
<p>Last updated on 2025-05-22 |
<a href="https://github.com/swcarpentry/python-novice-inflammation/edit/main/episodes/05-loop.md" class="external-link">Edit this page <i data-feather="edit"></i></a></p>
<div class="overview card"><h2 class="card-header">Overview</h2><div class="row g-0">
<div class="col-md-4"><div class="card-body"><div class="inner"><h3 class="card-title">Questions</h3>
<ul><li>How can I do the same operations on many different values?</li></ul></div></div></div>
<div class="col-md-8"><div class="card-body"><div class="inner bordered"><h3 class="card-title">Objectives</h3>
<ul><li>Explain what a for loop does.</li></ul></div></div></div></div></div>
<p>In the episode about visualizing data, we wrote Python code that plots values.</p>
<div class="codewrapper sourceCode" id="cb1"><h3 class="code-label">PYTHON<i data-feather="chevron-left"></i></h3>
<pre class="sourceCode python"><code>odds = [1, 3, 5, 7]</code></pre></div>
<div id="from-1-to-n" class="callout challenge"><div class="callout-square"><i class="callout-icon"></i></div>
<span class="callout-header">Challenge</span>
<div id="from-1-to-n" class="callout-inner"><h3 class="callout-title">From 1 to N</h3>
<div class="callout-content"><p>Using range, write a loop that prints the first 3 natural numbers.</p></div></div></div>
<div id="accordionHint1" class="accordion hint-accordion accordion-flush"><div class="accordion-item">
<button class="accordion-button collapsed" type="button" data-bs-toggle="collapse"><h4 class="accordion-header" id="headingHint1">Give me a hint</h4></button>
<div id="collapseHint1" class="accordion-collapse collapse"><div class="accordion-body"><p>range takes a start and a stop.</p></div></div></div></div>
<div id="accordionSolution1" class="accordion challenge-accordion accordion-flush"><div class="accordion-item">
<button class="accordion-button solution-button collapsed" type="button" data-bs-toggle="collapse"><h4 class="accordion-header" id="headingSolution1"> Show me the solution </h4></button>
<div id="collapseSolution1" class="accordion-collapse collapse"><div class="accordion-body">
<div class="codewrapper sourceCode" id="cb2"><h3 class="code-label">PYTHON</h3>
<pre class="sourceCode python"><code>for number in range(1, 4):
    print(number)</code></pre></div></div></div></div></div>
<p>len is much faster than any function we could write ourselves.</p>
</div></main></body></html>"##;

#[test]
fn a_workbench_challenge_is_an_exercise_and_its_accordion_solution_answers_it() {
    let p = read(WORKBENCH);
    let ex = of(&p, "Using range");
    assert_eq!(
        (ex.role, ex.label.as_deref()),
        (Role::Exercise, Some("From 1 to N"))
    );
    let sol = of(&p, "for number in range(1, 4)");
    assert_eq!((sol.role, sol.answers), (Role::Solution, ex.unit));
    // A result opens at the challenge, or at the accordion that holds the solution.
    assert_eq!(
        (ex.anchor.as_deref(), sol.anchor.as_deref()),
        (Some("from-1-to-n"), Some("accordionSolution1"))
    );
    // A hint is course text, its title kept in bold; a button's title is no heading.
    let hint = of(&p, "range takes a start");
    assert_eq!(hint.role, Role::Prose);
    assert!(p.blocks.iter().any(|b| b.text == "**Give me a hint**"));
    let texts: Vec<&str> = p.blocks.iter().map(|b| b.text.as_str()).collect();
    assert!(
        !texts
            .iter()
            .any(|t| t.contains("Challenge") || t.contains("Show me")),
        "{texts:?}"
    );
}

#[test]
fn a_workbench_code_label_and_its_overview_card_head_nothing() {
    let p = read(WORKBENCH);
    let heads =
        |t: &str| -> Vec<String> { of(&p, t).headings.iter().map(|h| h.text.clone()).collect() };
    // The card's own headings head its lists only.
    assert_eq!(
        heads("Explain what"),
        ["Repeating Actions with Loops", "Overview", "Objectives"]
    );
    for t in ["In the episode about", "odds = [1", "len is much faster"] {
        assert_eq!(heads(t), ["Repeating Actions with Loops"], "{t}");
    }
    assert!(!p.blocks.iter().any(|b| b.text.contains("PYTHON")));
    // Nor is the episode's date and link to its editor any text.
    assert!(!p
        .blocks
        .iter()
        .any(|b| b.text.contains("Last updated") || b.text.contains("Edit this page")));
}

#[test]
fn an_older_carpentries_challenge_blockquote_holds_its_solution() {
    // The "styles" template (Jekyll, kramdown's `{: .challenge}` and `{: .solution}`).
    let p = read(
        r##"<html><body><div class="container"><article>
        <h1 class="maintitle">Repeating Actions with Loops</h1>
        <p>We can call the loop variable anything we like.</p>
        <blockquote class="challenge"><h2 id="from-1-to-n">From 1 to N</h2>
        <p>Write a loop that prints the first 3 natural numbers.</p>
        <blockquote class="solution"><h2 id="solution">Solution</h2>
        <pre><code>for number in range(1, 4):
    print(number)</code></pre></blockquote></blockquote>
        <p>len is much faster.</p>
        <blockquote><p>A quotation stays course text.</p></blockquote>
        </article></div></body></html>"##,
    );
    let ex = of(&p, "Write a loop");
    assert_eq!(
        (ex.role, ex.label.as_deref()),
        (Role::Exercise, Some("From 1 to N"))
    );
    let sol = of(&p, "for number in range(1, 4)");
    assert_eq!((sol.role, sol.answers), (Role::Solution, ex.unit));
    for t in ["len is much faster", "A quotation"] {
        let c = of(&p, t);
        assert_eq!(c.role, Role::Prose, "{t}");
        let heads: Vec<&str> = c.headings.iter().map(|h| h.text.as_str()).collect();
        assert_eq!(heads, ["Repeating Actions with Loops"], "{t}");
    }
}

#[test]
fn a_button_that_asks_for_the_correction_titles_one() {
    let s = Structure::default();
    for title in [
        "Show me the solution",
        "Show solution",
        "See the answer",
        "Reveal answer",
        "Voir la correction",
        "Afficher le corrigé",
        "Voir une solution",
    ] {
        assert!(s.solution.is_match(title), "{title}");
    }
    for title in [
        "Show me the way",
        "See also",
        "Voir le cours",
        "Showcase of solutions",
    ] {
        assert!(!s.solution.is_match(title), "{title}");
    }
}

#[test]
fn a_workbench_episodes_questions_block_is_course_text() {
    // Its Markdown sources open each episode with `:::: questions` (read as an admonition of
    // that kind): the lesson's guiding questions, not an exercise; a challenge still is one.
    let p = read(
        r##"<main><h1>Loops</h1><div class="admonition questions"><p class="admonition-title">questions</p>
        <ul><li>How can I do the same operations on many different values?</li></ul></div>
        <div class="admonition challenge"><p class="admonition-title">challenge</p><p>Print 1 to 3.</p></div></main>"##,
    );
    assert_eq!(of(&p, "same operations").role, Role::Prose);
    assert_eq!(of(&p, "Print 1 to 3").role, Role::Exercise);
}
