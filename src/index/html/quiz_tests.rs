//! Tests of the HTML reader on quizzes and collapsible blocks: a multiple-choice question whose
//! choices and correction are tabs under its title, a task list's checkboxes, a collapsible
//! block's summary, which titles it, and the headings that name exercises and corrections.
use super::*;

fn read(html: &str) -> PageText {
    Reader::new(&Structure::default()).read(html, &[], false)
}

/// A question of a French NSI course's QCM (MkDocs Material, pymdownx `tasklist` and `tabbed`):
/// an admonition titled by the question, its choices in a "Réponses" tab and the same choices
/// in a "Correction" tab with the right one checked.
const QCM: &str = r##"<article class="md-content__inner"><h1>C4 Architecture</h1><h2 id="qcm">QCM</h2>
    <div class="admonition fabquestion"><p class="admonition-title"><strong>1.</strong> Lequel n'est pas un périphérique d'entrée ?</p>
    <div class="tabbed-set tabbed-alternate" data-tabs="1:2"><input checked="checked" id="__tabbed_1_1" name="__tabbed_1" type="radio" /><input id="__tabbed_1_2" name="__tabbed_1" type="radio" />
    <div class="tabbed-labels"><label for="__tabbed_1_1">Réponses</label><label for="__tabbed_1_2">Correction</label></div>
    <div class="tabbed-content"><div class="tabbed-block"><ul class="task-list">
    <li class="task-list-item"><label class="task-list-control"><input type="checkbox"/><span class="task-list-indicator"></span></label> a) Souris</li>
    <li class="task-list-item"><label class="task-list-control"><input type="checkbox"/><span class="task-list-indicator"></span></label> b) Écran</li></ul></div>
    <div class="tabbed-block"><ul class="task-list">
    <li class="task-list-item"><label class="task-list-control"><input type="checkbox"/><span class="task-list-indicator"></span></label> a) <del>Souris</del></li>
    <li class="task-list-item"><label class="task-list-control"><input type="checkbox" checked/><span class="task-list-indicator"></span></label> b) <mark>Écran</mark></li></ul></div>
    </div></div></div></article>"##;

#[test]
fn a_quiz_question_is_an_exercise_with_its_choices_and_its_correction() {
    let p = read(QCM);
    let texts: Vec<&str> = p.blocks.iter().map(|b| b.text.as_str()).collect();
    assert_eq!(
        texts,
        [
            "- [ ] a) Souris",
            "- [ ] b) Écran",
            "- [ ] a) Souris",
            "- [x] b) Écran"
        ]
    );
    let ctx = |i: usize| &p.ctxs[p.blocks[i].ctx];
    // The question is the exercise's title, its choices its text.
    assert_eq!(ctx(0).role, Role::Exercise);
    assert_eq!(
        ctx(0).label.as_deref(),
        Some("1. Lequel n'est pas un périphérique d'entrée")
    );
    assert_eq!(ctx(1).unit, ctx(0).unit);
    // The checked choice is the correction, which answers the question.
    assert_eq!(
        (ctx(3).role, ctx(3).answers, ctx(3).label.as_deref()),
        (Role::Solution, ctx(0).unit, Some("Correction"))
    );
}

#[test]
fn a_titled_block_is_an_exercise_only_when_it_holds_its_correction() {
    // Without the correction tab, the same block is a titled note: its title a bold line.
    let note = read(
        r##"<article><h2>QCM</h2><div class="admonition fabquestion"><p class="admonition-title">Lequel ?</p>
        <p>Une souris, un écran.</p></div></article>"##,
    );
    let texts: Vec<&str> = note.blocks.iter().map(|b| b.text.as_str()).collect();
    assert_eq!(texts, ["**Lequel**", "Une souris, un écran."]);
    assert!(note.ctxs.iter().all(|c| c.role == Role::Prose));
    // A collapsible correction under it makes it one too.
    let p = read(
        r##"<article><div class="admonition note"><p class="admonition-title">Écrire la fonction somme</p>
        <p>Elle renvoie a + b.</p><details class="success"><summary>Solution</summary><p>return a + b</p></details></div></article>"##,
    );
    let of = |t: &str| &p.ctxs[p.blocks.iter().find(|b| b.text.contains(t)).unwrap().ctx];
    assert_eq!(of("Elle renvoie").role, Role::Exercise);
    assert_eq!(of("return").answers, of("Elle renvoie").unit);
}

#[test]
fn a_tab_of_choices_is_a_correction_when_no_tab_checks_any() {
    // Two tabs of unchecked boxes only: nothing tells choices from a correction, and the
    // label is taken at its word.
    let p = read(&QCM.replace(" checked/>", "/>"));
    let last = &p.ctxs[p.blocks[3].ctx];
    assert_eq!(last.role, Role::Solution);
    let first = &p.ctxs[p.blocks[0].ctx];
    assert_eq!(
        (first.role, first.label.as_deref()),
        (Role::Solution, Some("Réponses"))
    );
}

#[test]
fn a_task_list_reads_its_checkboxes_as_markdown_writes_them() {
    // GitHub's and markdown-it's task lists: the box is the item's first element, or the
    // first in its paragraph when the list is loose.
    let p = read(
        r##"<main><ul class="contains-task-list"><li class="task-list-item"><input type="checkbox" class="task-list-item-checkbox" disabled checked> Lire le cours</li>
        <li class="task-list-item"><p><input type="checkbox" disabled> Faire l'exercice 2</p></li>
        <li>Une case <input type="checkbox"> au milieu</li></ul></main>"##,
    );
    let texts: Vec<&str> = p.blocks.iter().map(|b| b.text.as_str()).collect();
    assert_eq!(
        texts,
        [
            "- [x] Lire le cours",
            "- [ ] Faire l'exercice 2",
            "- Une case au milieu"
        ]
    );
}

#[test]
fn a_collapsible_blocks_summary_titles_it_and_a_toggle_is_no_text() {
    let p = read(
        r##"<article><h2>Exercice 3</h2><p>Trier la liste.</p>
        <details class="tip"><summary>Correction Q1</summary><pre><code>sorted(t)</code></pre></details>
        <details class="hide below-input"><summary aria-label="Toggle hidden content">
        <span class="collapsed">Show code cell output</span><span class="expanded">Hide code cell output</span>
        </summary><pre><code>[1, 2, 3]</code></pre></details></article>"##,
    );
    let texts: Vec<&str> = p.blocks.iter().map(|b| b.text.as_str()).collect();
    // The correction is labelled by its summary (which its text opens with, as the page shows
    // it); Jupyter Book's toggle for a hidden output is no text at all.
    assert_eq!(
        texts,
        [
            "Trier la liste.",
            "Correction Q1",
            "```\nsorted(t)\n```",
            "```\n[1, 2, 3]\n```"
        ]
    );
    let correction = &p.ctxs[p.blocks[2].ctx];
    assert_eq!(
        (correction.role, correction.label.as_deref()),
        (Role::Solution, Some("Correction Q1"))
    );
}

#[test]
fn a_correction_heading_says_what_it_corrects_not_any_noun() {
    // "Solution to Exercise 1" and "Correction de l'exercice 2" are corrections; a physics
    // course's chapter "Solutions to Maxwell's Equations" is course text.
    let role = |h: &str| {
        let p = read(&format!(
            "<main><h2>Exercise 1</h2><p>Solve it.</p><h2>{h}</h2><p>Body.</p></main>"
        ));
        p.ctxs[p.blocks[1].ctx].role
    };
    assert_eq!(role("Solution to Exercise 1"), Role::Solution);
    assert_eq!(role("Correction de l'exercice 1"), Role::Solution);
    assert_eq!(role("Solutions to 3.1"), Role::Solution);
    assert_eq!(role("Correction du sujet 0 version A"), Role::Solution);
    assert_eq!(role("Solutions to Homework 2"), Role::Solution);
    assert_eq!(role("Solutions to Maxwell’s Equations"), Role::Prose);
    assert_eq!(role("22. Solutions to the Wave Equation"), Role::Prose);
}

#[test]
fn org_modes_source_blocks_keep_their_language() {
    let p = read(
        r#"<div id="content"><div class="org-src-container"><pre class="src src-php">class Carro { }</pre></div></div>"#,
    );
    assert_eq!(p.blocks[0].text, "```php\nclass Carro { }\n```");
}

#[test]
fn inside_an_exercise_a_titled_part_with_its_correction_stays_that_exercises() {
    // An exercise whose questions are titled blocks, each with its correction: one exercise,
    // every correction answering it, each question's title a bold line of its statement.
    let p = read(
        r##"<article><div class="admonition example"><p class="admonition-title">Exercice 2</p>
        <p>Soit une pile.</p><div class="admonition note"><p class="admonition-title">Partie A</p>
        <p>Empiler 3.</p><details class="success"><summary>Correction</summary><p>p.empiler(3)</p></details></div></div></article>"##,
    );
    let of = |t: &str| &p.ctxs[p.blocks.iter().find(|b| b.text.contains(t)).unwrap().ctx];
    let ex = of("Soit une pile");
    assert_eq!(ex.role, Role::Exercise);
    assert_eq!(of("Empiler 3").unit, ex.unit);
    assert!(p.blocks.iter().any(|b| b.text == "**Partie A**"));
    assert_eq!(of("p.empiler").answers, ex.unit);
}

#[test]
fn under_a_correction_title_an_exercise_heading_heads_its_correction() {
    // A French NSI course's exam corrections: the page is titled "22-NSIJ1G11 : Corrigé" (or
    // "Corrigé sujet 01"), each exercise's correction under an "Exercice N" heading.
    for title in ["22-NSIJ1G11 : Corrigé", "Corrigé sujet 01 - Année : 2022"] {
        let p = read(&format!(
            "<article><h1>{title}</h1><p>Année 2022.</p><h2>Exercice 1</h2><p>a. La clé primaire.</p></article>"
        ));
        let ctx = &p.ctxs[p.blocks[1].ctx];
        assert_eq!(
            (ctx.role, ctx.label.as_deref()),
            (Role::Solution, Some("Exercice 1")),
            "{title}"
        );
    }
    // A chapter on error-correcting codes stays course text, its exercises exercises.
    let p = read(
        "<article><h1>Détection et correction d'erreurs</h1><p>Un bit de parité.</p><h2>Exercice 1</h2><p>Calculer.</p></article>",
    );
    assert_eq!(p.ctxs[p.blocks[0].ctx].role, Role::Prose);
    assert_eq!(p.ctxs[p.blocks[1].ctx].role, Role::Exercise);
}

#[test]
fn what_a_heading_names_may_follow_a_course_code_or_a_parts_name() {
    // A Quarto module's solutions page, titled after the module's code.
    let p = read(
        "<main><h1>MATH5824 - Solutions to Exercises 1</h1><h4>Exercise 1.1</h4><p>Start from the RSS.</p></main>",
    );
    assert_eq!(p.ctxs[p.blocks[0].ctx].role, Role::Solution);
    // An activity about an algorithm's correctness is an activity, whatever follows its name.
    let p = read(
        "<main><h2>Activité 4 : Correction d'un algorithme</h2><p>Fiche d'activité.</p></main>",
    );
    assert_eq!(p.ctxs[p.blocks[0].ctx].role, Role::Exercise);
    // "Correction d'un algorithme" alone is a topic (its correctness), not a correction: a
    // letter is an item's label only on its own ("Correction a").
    let p = read("<main><h2>Correction d'un algorithme</h2><p>Un variant de boucle.</p></main>");
    assert_eq!(p.ctxs[p.blocks[0].ctx].role, Role::Prose);
    let p = read("<main><h2>Exercice 2</h2><p>a.</p><h3>Correction b</h3><p>Oui.</p></main>");
    assert_eq!(p.ctxs[p.blocks[1].ctx].role, Role::Solution);
}
