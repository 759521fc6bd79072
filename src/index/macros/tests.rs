use super::*;

/// A teacher's `main.py` as the NSI template many French courses share writes it.
const MAIN: &str = r#"import os

def define_env(env):
    "Hook function"

    @env.macro
    def correction(bool, texte):
        if bool == False:
            return ""
        else:
            return texte

    @env.macro
    def initexo(n):
        env.variables['compteur_exo'] = n
        return ""

    env.variables['compteur_exo'] = 0
    @env.macro
    def exercice(nom = "Exercice "):
        env.variables['compteur_exo'] += 1
        return f"{nom}{ env.variables['compteur_exo']}"

    @env.macro
    def script(lang: str, nom: str) -> str:
        f = open(f"docs/{nom}")
        return f.read()

    def helper(x):
        return x
"#;

#[test]
fn the_simple_macros_of_main_py_are_read_and_the_others_are_not() {
    let m = Macros::read(MAIN);
    let names: Vec<&str> = m.macros.iter().map(|m| m.name.as_str()).collect();
    // `script` reads a file (a call outside the subset); `helper` is no macro.
    assert_eq!(names, ["correction", "initexo", "exercice"]);
    assert_eq!(m.variables.len(), 1);
    assert!(Macros::read("def other():\n    return 1\n").is_empty());
}

#[test]
fn a_hidden_correction_is_left_out_and_a_shown_one_read_as_its_text() {
    let m = Macros::read(MAIN);
    let page = "## {{ exercice() }}\n\nÉcrire `f`.\n\n{{ correction(False, \"\"\"\n??? tip \"Correction\"\n    ```python\n    def f():\n        return 1\n    ```\n\"\"\") }}\n\n## {{ exercice() }}\n\n{{correction(True, '''\nLa réponse : `2`.\n''')}}\n\nFin.\n";
    let out = m.render(page);
    assert_eq!(
        out,
        "## Exercice 1\n\nÉcrire `f`.\n\n\n\n## Exercice 2\n\n\nLa réponse : `2`.\n\n\nFin.\n"
    );
    // Counters restart on each page, and a call resets them.
    let again = m.render("{{ initexo(4) }}### {{ exercice() }}\n### {{exercice(\"Exo \")}}\n");
    assert_eq!(again, "### Exercice 5\n### Exo 6\n");
}

#[test]
fn a_call_in_a_jinja_comment_is_not_run() {
    // A teacher comments an exercise out with `{# … #}`: Jinja neither shows nor runs it, so
    // the next exercise is number 1 (it read "Exercice 2", a number the built page does not
    // show). A heading's `{#id}` is no comment.
    let m = Macros::read(MAIN);
    let page = "{{initexo(0)}}\n{#\n!!! example \"{{ exercice() }}\"\n    Ancien énoncé.\n#}\n\n!!! example \"{{ exercice() }}\"\n    Énoncé. {# note {{ exercice() }} #} Fin.\n\n## Suite {#suite}\n\n### {{ exercice() }}\n";
    assert_eq!(
        m.render(page),
        "\n{#\n!!! example \"{{ exercice() }}\"\n    Ancien énoncé.\n#}\n\n!!! example \"Exercice 1\"\n    Énoncé. {# note {{ exercice() }} #} Fin.\n\n## Suite {#suite}\n\n### Exercice 2\n"
    );
}

#[test]
fn what_cannot_be_run_is_left_as_written() {
    let m = Macros::read(MAIN);
    for page in [
        // A macro that is not read, an unknown one, a variable argument, a filter.
        "{{ script('python', 'exo.py') }}\n",
        "{{ IDE('exo1') }}\n",
        "{{ correction(montrer, \"x\") }}\n",
        "{{ page.title | upper }}\n",
        // Too many arguments, an unclosed call.
        "{{ correction(True, \"a\", \"b\") }}\n",
        "{{ correction(True, \"a\"\n\nTexte.\n",
        // A call the page ends in, without its `}}`.
        "Fin. {{ exercice()",
    ] {
        assert_eq!(m.render(page), page, "{page}");
    }
    // In a code block, a call is code.
    let code = "```jinja\n{{ correction(False, \"x\") }}\n```\n";
    assert_eq!(m.render(code), code);
}

#[test]
fn conditions_f_strings_and_escapes_as_python_reads_them() {
    let main = "def define_env(env):\n    @env.macro\n    def badge(kind, text=''):\n        \"\"\"A badge.\"\"\"\n        if kind == 'bac' and text:\n            return f\"[Bac {text}]\"\n        elif not kind:\n            return 'none'\n        elif kind is None:\n            pass\n        label = kind + ' !'\n        return str(label) + \"\\n\"\n";
    let m = Macros::read(main);
    assert_eq!(m.macros.len(), 1, "{m:?}");
    assert_eq!(m.render("{{ badge('bac', text='2023') }}"), "[Bac 2023]");
    assert_eq!(m.render("{{ badge('') }}"), "none");
    assert_eq!(m.render("{{ badge(\"TP\") }}"), "TP !\n");
    // Python's common escapes; a LaTeX command stays as written.
    assert_eq!(m.render("{{ badge(\"a\\tb\\\\frac\") }}"), "a\tb\\frac !\n");
    assert_eq!(m.render("{{ badge(\"\\frac\") }}"), "\\frac !\n");
}

#[test]
fn one_line_ifs_repetition_and_conditional_expressions_run() {
    // Another template's exercise titles: stars for the level, a counter a page may restart,
    // the title quoted for an admonition (`!!! exercice {{ exercice(False) }}`).
    let main = r#"def define_env(env):
    env.variables['n'] = 0

    @env.macro
    def exercice(var=True, niveau=None, prem=None, text =""):
        star = '*'
        if niveau is not None:
            star *= niveau
        if prem is not None : env.variables['n'] = prem
        env.variables['n'] += 1
        root = f"Exercice { env.variables['n']} {star} {text}"
        return f"""exo \"{root}\"""" if var else '\"'+root+'\"'
"#;
    let m = Macros::read(main);
    assert_eq!(m.macros.len(), 1, "{m:?}");
    let page =
        "!!! exercice {{exercice(False, prem=0)}}\n\n!!! {{ exercice(niveau=3, text='Piles') }}\n";
    assert_eq!(
        m.render(page),
        "!!! exercice \"Exercice 1 * \"\n\n!!! exo \"Exercice 2 *** Piles\"\n"
    );
    // A count that would make a page of repetitions is not run.
    assert_eq!(
        m.render("{{ exercice(niveau=100000) }}"),
        "{{ exercice(niveau=100000) }}"
    );
}

#[test]
fn a_jinja_string_in_quotes_runs_over_lines() {
    let m = Macros::read(MAIN);
    assert_eq!(
        m.render("{{ correction(True, \"\n\n```python\nx = 1\n```\n\") }}\nFin.\n"),
        "\n\n```python\nx = 1\n```\n\nFin.\n"
    );
}

proptest::proptest! {
    /// Any `main.py` made of the subset's pieces, however they fall: read and run without a
    /// panic (what cannot be run stays as written).
    #[test]
    fn any_module_reads_and_runs_without_a_panic(
        parts in proptest::collection::vec(
            "def define_env\\(env\\):\n|    @env.macro\n|    def f\\(a, b=1\\):\n|        |\n|if |elif |else:|return | is not None| : |:|f\"\"\"|\"\"\"|\\\\\"|\"|'|\\*=|\\*|\\+=|\\+| if | else |env.variables\\['n'\\]| = |a|b|0|3|\\(|\\)|\\{|\\}|é",
            0..60,
        )
    ) {
        let m = Macros::read(&parts.concat());
        for call in ["{{ f(1) }}", "{{ f('a', b=2) }}", "{{ f(True) }}x"] {
            let _ = m.render(call);
        }
    }


    /// Any page, however its braces, quotes and code fences fall: no panic, and a page whose
    /// calls name no runnable macro is unchanged (its text stays where the site shows it).
    #[test]
    fn any_page_renders_and_one_without_runnable_calls_is_unchanged(
        parts in proptest::collection::vec(
            "\\{\\{ ?|\\}\\}|\\{#|#\\}|correction\\(|exercice\\(|IDE\\(|True|False|, |\\)|\"\"\"|\"|'|\n|```\n|é|[a-z ]{0,4}|\\\\",
            0..40,
        )
    ) {
        let page: String = parts.concat();
        let m = Macros::read(MAIN);
        let shown = m.render(&page);
        if !page.contains("correction(") && !page.contains("exercice(") {
            proptest::prop_assert_eq!(shown, page);
        }
    }
}
