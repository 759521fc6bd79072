//! The navigation a generator's configuration gives its Markdown pages: MkDocs' `nav`, whose
//! sections name the chapters of a course published as one page per role ("Cours",
//! "Exercices" in each chapter's section). A built site's sidebar says the same
//! ([`super::html`]'s navigation trail); read from the sources, a page gets the same trail, so
//! that `--markdown` and `--site` name its chunks alike ([`super::lessons`]).

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use yaml_rust2::{Yaml, YamlLoader};

/// Where the navigation places a page.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NavPage {
    /// The label it is listed under (`- Cours: c4c.md`), which MkDocs shows as the title of a
    /// page without a heading of its own.
    pub label: Option<String>,
    /// The labels of the sections that hold it, outermost first.
    pub trail: Vec<String>,
}

/// The pages a navigation lists, by their path in the pages' folder (`cours/piles.md`; a page
/// listed twice is placed where it is listed first).
pub type NavTrails = BTreeMap<String, NavPage>;

/// How a generator's navigation places its Markdown pages.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum SiteNav {
    /// It has none (or none chsr reads).
    #[default]
    None,
    /// The pages its configuration lists (MkDocs' `nav`).
    Listed(NavTrails),
    /// Its folders: MkDocs without a `nav` makes a section of each folder, titled by its name,
    /// and titles a page without a heading by its file's name. With the `awesome-pages` plugin
    /// (`Some`), a folder's `.pages` file may title it (`title:`), label its pages and folders
    /// (`nav: [Cours: cours.md]`), and leave pages (a `nav` without `...`) or the folder
    /// (`hide: true`) out of the navigation.
    Folders(Option<PagesFiles>),
}

/// The `.pages` files of a source's folders as they are read, each once however many pages
/// its folder holds ([`SiteNav::Folders`]). A cache: two are equal whatever they hold.
#[derive(Clone, Default)]
pub struct PagesFiles(Arc<Mutex<HashMap<String, Arc<PagesFile>>>>);

impl PartialEq for PagesFiles {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Eq for PagesFiles {}

impl std::fmt::Debug for PagesFiles {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("PagesFiles")
    }
}

impl PagesFiles {
    /// Folder `dir`'s `.pages` (`""`: the pages' folder's own), read with `read` the first time.
    fn get(&self, dir: &str, read: &dyn Fn(&str) -> Option<String>) -> Arc<PagesFile> {
        let lock = || self.0.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(file) = lock().get(dir) {
            return Arc::clone(file);
        }
        let path = match dir {
            "" => ".pages".to_string(),
            _ => format!("{dir}/.pages"),
        };
        let file = Arc::new(read(&path).map(|t| pages_file(&t)).unwrap_or_default());
        lock().insert(dir.to_string(), Arc::clone(&file));
        file
    }
}

/// What a folder's `.pages` file says ([`SiteNav::Folders`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct PagesFile {
    title: Option<String>,
    hide: bool,
    /// Labels of its pages and folders, by name.
    labels: BTreeMap<String, String>,
    /// The names its `nav` lists, when it lists only those (no `...`).
    only: Option<Vec<String>>,
}

/// A `.pages` file (YAML; what cannot be read says nothing, as a folder without one).
fn pages_file(text: &str) -> PagesFile {
    let mut out = PagesFile::default();
    let Some(doc) = YamlLoader::load_from_str(text)
        .ok()
        .and_then(|d| d.into_iter().next())
    else {
        return out;
    };
    out.title = doc["title"].as_str().map(|t| t.trim().to_string());
    out.hide = doc["hide"].as_bool() == Some(true);
    if let Yaml::Array(items) = &doc["nav"] {
        let mut names = Vec::new();
        let mut rest = false;
        for item in items {
            let (label, name) = match item {
                Yaml::String(n) => (None, n.as_str()),
                Yaml::Hash(h) => match h.iter().next() {
                    Some((Yaml::String(l), Yaml::String(n))) => (Some(l.trim()), n.as_str()),
                    _ => continue,
                },
                _ => continue,
            };
            let name = name.trim().trim_end_matches('/');
            rest |= name.starts_with("...");
            if let Some(l) = label.filter(|l| !l.is_empty()) {
                out.labels.insert(name.to_string(), l.to_string());
            }
            names.push(name.to_string());
        }
        out.only = (!rest).then_some(names);
    }
    out
}

/// Where the navigation places page `rel` (its path in the pages' folder), if it does;
/// `read(path)` gives a file of the pages' folder (a folder's `.pages`), if it is there.
pub fn place(nav: &SiteNav, rel: &str, read: &dyn Fn(&str) -> Option<String>) -> Option<NavPage> {
    match nav {
        SiteNav::None => None,
        SiteNav::Listed(pages) => pages.get(rel).cloned(),
        SiteNav::Folders(pages) => {
            let parts: Vec<&str> = rel.split('/').collect();
            let (dirs, file) = parts.split_at(parts.len() - 1);
            let files: Vec<Arc<PagesFile>> = (0..=dirs.len())
                .map(|i| match pages {
                    Some(pages) => pages.get(&dirs[..i].join("/"), read),
                    None => Arc::default(),
                })
                .collect();
            // Each name as its folder's `.pages` lists it: out of the navigation when it lists
            // others only, or when a folder above is hidden.
            let names = dirs.iter().chain(file);
            let mut trail = Vec::new();
            for (i, name) in names.enumerate() {
                let holder = &files[i];
                if holder
                    .only
                    .as_ref()
                    .is_some_and(|o| !o.iter().any(|n| n == name))
                {
                    return None;
                }
                if i < dirs.len() {
                    if files[i + 1].hide {
                        return None;
                    }
                    let own = files[i + 1].title.clone();
                    trail.push(
                        holder
                            .labels
                            .get(*name)
                            .cloned()
                            .or(own)
                            .unwrap_or_else(|| title(name)),
                    );
                }
            }
            // Its label in its folder's `nav`, else its folder's title (an index page) or its
            // file's name.
            let listed = files[dirs.len()].labels.get(file[0]).cloned();
            let label = listed.or_else(|| match super::index_file(file[0]) {
                true => trail.last().cloned(),
                false => file_title(rel),
            });
            Some(NavPage { label, trail })
        }
    }
}

/// The title MkDocs gives page `rel` when neither its navigation, its front matter nor a
/// heading names it: its file's name (`exo1_tableaux.md` → "Exo1 tableaux"); an index page,
/// its folder's (the site's own, "Home", is not a name a student searches for: none).
pub fn file_title(rel: &str) -> Option<String> {
    let (dir, file) = rel.rsplit_once('/').unwrap_or(("", rel));
    match super::index_file(file) {
        true => dir.rsplit('/').next().filter(|d| !d.is_empty()).map(title),
        false => Some(title(file.rsplit_once('.').map_or(file, |(s, _)| s))),
    }
}

/// A folder's or a file's name as MkDocs titles it: `-` and `_` as spaces, capitalised when it
/// was all lower case (`1.2_boucles` → "1.2 boucles", `listes-chainees` → "Listes chainees").
fn title(name: &str) -> String {
    let t = name.replace(['-', '_'], " ");
    if t.to_lowercase() != t {
        return t;
    }
    let mut c = t.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}

/// The pages of an `mkdocs.yml`'s `nav` block (`block`: its `nav:` line and the lines under it)
/// and their sections. A page is an item `- file.md` or `- Label: file.md`; a section is
/// `- Label:` with a list under it. Links to other sites are no pages. A block YAML cannot read
/// gives none: the navigation only names pages, and MkDocs itself reports a broken one.
pub fn mkdocs_nav(block: &str) -> NavTrails {
    let mut out = NavTrails::new();
    let Ok(docs) = YamlLoader::load_from_str(block) else {
        return out;
    };
    if let Some(Yaml::Array(items)) = docs.first().map(|d| &d["nav"]) {
        walk(items, &mut Vec::new(), &mut out);
    }
    out
}

fn walk(items: &[Yaml], trail: &mut Vec<String>, out: &mut NavTrails) {
    for item in items {
        match item {
            Yaml::String(path) => page(path, None, trail, out),
            Yaml::Hash(h) => {
                for (label, value) in h {
                    match (label.as_str(), value) {
                        (label, Yaml::String(path)) => page(path, label, trail, out),
                        (Some(label), Yaml::Array(children)) => {
                            trail.push(label.trim().to_string());
                            walk(children, trail, out);
                            trail.pop();
                        }
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }
}

fn page(path: &str, label: Option<&str>, trail: &[String], out: &mut NavTrails) {
    let path = path.trim().trim_start_matches("./");
    if !path.contains("://") && !path.is_empty() {
        out.entry(path.to_string()).or_insert_with(|| NavPage {
            label: label
                .map(|l| l.trim().to_string())
                .filter(|l| !l.is_empty()),
            trail: trail.to_vec(),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_mkdocs_nav_gives_each_page_its_sections() {
        // David Roche's Terminale NSI course, as its `mkdocs.yml` lists it.
        let nav = "nav:\n  - Accueil: index.md\n  - 'Partie 2':\n    - 'C4 : récursivité':\n      - 'Cours': 'c4c.md'\n      - 'Exercices' : ./c4e.md\n  - c99.md\n  - GitHub: https://github.com/dav74\n";
        let got = mkdocs_nav(nav);
        let trail = |p: &str| got[p].trail.clone();
        assert_eq!(trail("c4c.md"), ["Partie 2", "C4 : récursivité"]);
        assert_eq!(trail("c4e.md"), ["Partie 2", "C4 : récursivité"]);
        assert!(trail("index.md").is_empty() && trail("c99.md").is_empty());
        let label = |p: &str| got[p].label.clone();
        assert_eq!(label("c4e.md").as_deref(), Some("Exercices"));
        assert_eq!(label("c99.md"), None);
        assert_eq!(got.len(), 4, "a link to another site is no page: {got:?}");
        // Without a `nav`, MkDocs' folders are its sections.
        let folders = |rel: &str| place(&SiteNav::Folders(None), rel, &|_| None).unwrap();
        let p = folders("T1_Python/1.2_boucles/exercices.md");
        assert_eq!(p.trail, ["T1 Python", "1.2 boucles"]);
        assert_eq!(p.label.as_deref(), Some("Exercices"));
        assert_eq!(folders("arbres/index.md").label.as_deref(), Some("Arbres"));
        assert_eq!(folders("index.md").label, None);
        assert_eq!(place(&SiteNav::None, "index.md", &|_| None), None);
        // A page a `nav` does not list, or lists without a label, is titled by its file.
        assert_eq!(
            file_title("jeux/Morpion_2021.ipynb").as_deref(),
            Some("Morpion 2021")
        );
        assert_eq!(file_title("tp/index.md").as_deref(), Some("Tp"));
        // With awesome-pages, each folder's `.pages` titles it, labels its pages and folders,
        // and may leave some out of the navigation (glassus' and MMarchand's NSI sources).
        let files = |path: &str| -> Option<String> {
            let text = match path {
                ".pages" => "nav:\n  - Accueil : index.md\n  - ...\n",
                "T6_2_CoursPremiere/.pages" => "title: Cours 1ère\n",
                "T4/.pages" => {
                    "title: T4 Bases de données\nnav:\n  - 'Langage SQL': 4.2_SQL\n  - ...\n"
                }
                "T4/4.2_SQL/.pages" => "nav:\n  - Cours : cours.md\n  - exercices.md\n",
                "brouillons/.pages" => "hide: true\n",
                "bad/.pages" => "nav: [unclosed\n",
                _ => return None,
            };
            Some(text.to_string())
        };
        let nav = SiteNav::Folders(Some(PagesFiles::default()));
        let pages = |rel: &str| place(&nav, rel, &files);
        let cours = pages("T6_2_CoursPremiere/cours.md").unwrap();
        assert_eq!(cours.trail, ["Cours 1ère"]);
        assert_eq!(cours.label.as_deref(), Some("Cours"));
        let sql = pages("T4/4.2_SQL/cours.md").unwrap();
        assert_eq!(sql.trail, ["T4 Bases de données", "Langage SQL"]);
        assert_eq!(sql.label.as_deref(), Some("Cours"));
        assert_eq!(
            pages("T4/4.2_SQL/exercices.md").unwrap().label.as_deref(),
            Some("Exercices")
        );
        // A page its folder's `nav` does not list, and a hidden folder's, are not in the
        // navigation; a `.pages` YAML cannot read says nothing.
        assert_eq!(pages("T4/4.2_SQL/exercices (Copie en conflit).md"), None);
        assert_eq!(pages("brouillons/essai.md"), None);
        assert_eq!(pages("bad/page.md").unwrap().trail, ["Bad"]);
        assert_eq!(
            pages("T4/index.md").unwrap().label.as_deref(),
            Some("T4 Bases de données")
        );
        assert_eq!(pages("index.md").unwrap().label.as_deref(), Some("Accueil"));
        // What YAML cannot read names no page.
        assert!(mkdocs_nav("nav:\n  - [unclosed\n").is_empty());
    }
}
