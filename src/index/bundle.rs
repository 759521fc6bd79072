//! The bundle: everything a static host needs beside the shards, so that uploading the site with
//! this folder is the whole deployment.
//!
//! ```text
//! OUT/index.html            the search page (title, credits and licence from the config)
//! OUT/page.css              its styles
//! OUT/chsr-search.js …      the <chsr-search> element, the client and their modules (the study
//!                           site's own files, compiled into the binary; written without their
//!                           comments and indentation, [`shipped_text`])
//! OUT/pkg/chsr.js, chsr_lexical_bg.wasm, chsr_bg.wasm, chsr_scalar_bg.wasm   the Wasm package
//!                           (copied from where it was built: the lexical module the page runs,
//!                           and the two with the dense path, SIMD and scalar, for `dense` embeds)
//! OUT/shards/               exactly what `chsr build --out` writes
//! OUT/README.md             how to deploy and embed it
//! ```
//!
//! [`files`] says what goes in (I/O-free; the npm package's Node entry point writes the same
//! files, copying the [`ASSET_NAMES`] from its own copy of `www/`); `write_bundle` writes it.

use super::config::SitePage;
use super::IndexError;
#[cfg(not(target_arch = "wasm32"))]
use std::path::{Path, PathBuf};

/// The names of the browser files a bundle gets (the texts are [`ASSETS`]).
pub const ASSET_NAMES: &[&str] = &[
    "chsr-search.js",
    "chsr-search.css",
    "chsr-client.js",
    "controller.js",
    "view.js",
    "render.js",
    "i18n.js",
    "i18n-en.js",
    "i18n-fr.js",
    "offline.js",
    "guard.js",
    "chsr-client.d.ts",
    "chsr-search.d.ts",
];

/// The browser files, as in `www/` when this binary was built (native only: the npm package
/// ships the files themselves, and its Wasm indexer knows only their [`ASSET_NAMES`]).
#[cfg(not(target_arch = "wasm32"))]
pub const ASSETS: &[(&str, &str)] = &[
    ("chsr-search.js", include_str!("../../www/chsr-search.js")),
    ("chsr-search.css", include_str!("../../www/chsr-search.css")),
    ("chsr-client.js", include_str!("../../www/chsr-client.js")),
    ("controller.js", include_str!("../../www/controller.js")),
    ("view.js", include_str!("../../www/view.js")),
    ("render.js", include_str!("../../www/render.js")),
    ("i18n.js", include_str!("../../www/i18n.js")),
    ("i18n-en.js", include_str!("../../www/i18n-en.js")),
    ("i18n-fr.js", include_str!("../../www/i18n-fr.js")),
    ("offline.js", include_str!("../../www/offline.js")),
    ("guard.js", include_str!("../../www/guard.js")),
    (
        "chsr-client.d.ts",
        include_str!("../../www/chsr-client.d.ts"),
    ),
    (
        "chsr-search.d.ts",
        include_str!("../../www/chsr-search.d.ts"),
    ),
];

const PAGE_CSS: &str = "body{margin:0;font:16px/1.5 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;color:#1d2330;background:#f7f8fa}
header,main,footer{max-width:52rem;margin:0 auto;padding:1rem 1.25rem}
header h1{font-size:1.5rem;margin:.5rem 0 0}
header p{margin:.25rem 0 0;color:#4a5163}
footer{font-size:.875rem;color:#4a5163;border-top:1px solid #dde1e8}
footer p{margin:.25rem 0}
a{color:#1f5fbf}
";

/// Files of a built Wasm package that pages load (`scripts/build-wasm`): the glue, the lexical
/// module (the default), and the modules with the dense path, built with WebAssembly SIMD and
/// without it (for browsers without SIMD).
pub const PKG_FILES: &[&str] = &[
    "chsr.js",
    LEXICAL_MODULE,
    "chsr_bg.wasm",
    "chsr_scalar_bg.wasm",
];

/// The lexical module: what the bundle's page runs (its element has no `dense` attribute).
pub const LEXICAL_MODULE: &str = "chsr_lexical_bg.wasm";

/// Files of the Wasm package copied into the bundle when present: [`PKG_FILES`] and the types.
pub const PKG_COPIED: &[&str] = &[
    "chsr.js",
    LEXICAL_MODULE,
    "chsr_bg.wasm",
    "chsr_scalar_bg.wasm",
    "chsr.d.ts",
];

/// A folder holding a built Wasm package (every file of [`PKG_FILES`]), if `dir` is one.
#[cfg(not(target_arch = "wasm32"))]
pub fn is_pkg(dir: &Path) -> bool {
    PKG_FILES.iter().all(|f| dir.join(f).is_file())
}

/// The error for a `--pkg` folder that holds no Wasm package.
pub fn not_a_pkg(path: &str) -> IndexError {
    IndexError::Io {
        path: path.to_string(),
        message: "not a Wasm package folder (it needs chsr.js, chsr_lexical_bg.wasm, chsr_bg.wasm and chsr_scalar_bg.wasm: scripts/build-site builds one in pkg/, and the npm package has one in its pkg/)".into(),
    }
}

/// The modules `<chsr-search>` needs before it can start: `chsr-search.js`'s static imports, theirs,
/// and the Wasm glue. The page preloads them (`modulepreload`) with the element's styles, the
/// interface strings of its language and the lexical Wasm module, so that they download together
/// from the first round trip instead of one import level after another (four levels: the element,
/// the controller, the client, the glue; on a slow phone 150 ms or more each). A test checks the
/// list against the modules' `import` lines.
pub const PRELOADED_MODULES: &[&str] = &[
    "chsr-search.js",
    "controller.js",
    "i18n.js",
    "view.js",
    "offline.js",
    "render.js",
    "chsr-client.js",
    "pkg/chsr.js",
];

/// The page's preload hints (see [`PRELOADED_MODULES`]). The Wasm module is fetched by the glue
/// with `fetch(url)` (no integrity: the bundle has no import map), which a `crossorigin` fetch
/// preload matches; the page's element has no `dense` attribute, so it runs the lexical module.
fn preloads(lang: &str) -> String {
    let mut out = String::new();
    for m in PRELOADED_MODULES {
        out.push_str(&format!("  <link rel=\"modulepreload\" href=\"{m}\">\n"));
    }
    let strings = if lang == "fr" {
        "i18n-fr.js"
    } else {
        "i18n-en.js"
    };
    out.push_str(&format!(
        "  <link rel=\"modulepreload\" href=\"{strings}\">\n  <link rel=\"preload\" href=\"chsr-search.css\" as=\"style\">\n  <link rel=\"preload\" href=\"pkg/{LEXICAL_MODULE}\" as=\"fetch\" crossorigin>\n"
    ));
    out
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The search page's HTML. `lang` is the interface language; `sources` the works indexed.
pub fn page_html(site: &SitePage, lang: &str) -> String {
    let fr = lang == "fr";
    let title = site.title.clone().unwrap_or_else(|| {
        if fr {
            "Rechercher dans le cours".into()
        } else {
            "Search the course".into()
        }
    });
    let intro = if fr {
        "La recherche tourne entièrement dans votre navigateur : choisissez votre niveau, puis posez votre question."
    } else {
        "The search runs entirely in your browser: pick your level, then ask your question."
    };
    let mut foot = String::new();
    if let Some(c) = &site.credits {
        foot.push_str(&format!("  <p>{}</p>\n", esc(c)));
    }
    match (&site.licence, &site.licence_url) {
        (Some(l), Some(u)) if u.starts_with("https://") || u.starts_with("http://") => foot
            .push_str(&format!(
                "  <p><a href=\"{}\" rel=\"license\">{}</a></p>\n",
                esc(u),
                esc(l)
            )),
        (Some(l), _) => foot.push_str(&format!("  <p>{}</p>\n", esc(l))),
        _ => {}
    }
    foot.push_str(if fr {
        "  <p>Recherche : chsr, dans votre navigateur ; aucune question ne quitte cette page.</p>\n"
    } else {
        "  <p>Search: chsr, in your browser; no question leaves this page.</p>\n"
    });
    format!(
        "<!doctype html>
<html lang=\"{lang}\">
<head>
  <meta charset=\"utf-8\">
  <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">
  <meta http-equiv=\"Content-Security-Policy\"
        content=\"default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; img-src 'self' data:; connect-src 'self'; worker-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'\">
  <title>{t}</title>
  <link rel=\"icon\" href=\"data:,\">
  <link rel=\"stylesheet\" href=\"page.css\">
{preloads}  <script src=\"guard.js\"></script>
  <script type=\"module\" src=\"chsr-search.js\"></script>
</head>
<body>
<header>
  <h1>{t}</h1>
  <p>{intro}</p>
</header>
<main>
  <chsr-search manifest=\"shards/manifest.json\" lang=\"{lang}\" k=\"10\" link-target=\"_self\" sync-url></chsr-search>
</main>
<footer>
{foot}</footer>
</body>
</html>
",
        t = esc(&title),
        preloads = preloads(lang),
    )
}

/// The README written into the bundle.
fn readme(lang: &str) -> String {
    format!(
        "# Search bundle made by `chsr index`\n\nUpload this folder with the site (it is self-contained: the search page `index.html`, the\n`<chsr-search>` element and its modules, the Wasm package in `pkg/`, and the index in `shards/`).\nEverything runs in the visitor's browser; no server code.\n\nTo add the search box to any page of the site:\n\n```html\n<script type=\"module\" src=\"/PATH/TO/THIS/FOLDER/chsr-search.js\"></script>\n<chsr-search manifest=\"/PATH/TO/THIS/FOLDER/shards/manifest.json\" lang=\"{lang}\"></chsr-search>\n```\n\nScope attributes (`subject`, `level`, `doc-type`, `chapter`, `year`, `paper`, `exam`) lock the box to\npart of the course.\n\nA link can open the search page with a question asked: `index.html?q=QUESTION&level=LEVEL`\n(the picks `subject`, `level`, `doc_type`, `chapter`, `year`, `paper`, with the values of the index,\ne.g. a source's `level` in chsr.toml; a value the index lacks is left out, and the page says so); the\npage keeps its address in step with the search shown, so a search can be shared or bookmarked. A\nsite's own search form can send its visitors there without any script:\n\n```html\n<form action=\"/PATH/TO/THIS/FOLDER/\" method=\"get\"><input type=\"search\" name=\"q\"></form>\n```\n"
    )
}

/// The text a bundle ships for the browser file `name`: a JavaScript module without its comments
/// and indentation ([`super::compact::compact_js`]: what a site's visitors download before their
/// first result), any other file as it is. Both writers use it: `write_bundle` here, and the npm
/// package's `bin/chsr.mjs` (through the Wasm indexer's `shippedText`).
pub fn shipped_text(name: &str, text: &str) -> String {
    if name.ends_with(".js") {
        super::compact::compact_js(text)
    } else {
        text.to_string()
    }
}

/// The bundle's files besides the shards and the Wasm package, in the order they are written:
/// `(name, text)`, where `None` is one of the [`ASSET_NAMES`] (the browser file of that name).
pub fn files(site: &SitePage, lang: &str) -> Vec<(&'static str, Option<String>)> {
    let mut files: Vec<(&'static str, Option<String>)> =
        ASSET_NAMES.iter().map(|name| (*name, None)).collect();
    files.push(("page.css", Some(PAGE_CSS.to_string())));
    files.push(("index.html", Some(page_html(site, lang))));
    files.push(("README.md", Some(readme(lang))));
    files
}

#[cfg(not(target_arch = "wasm32"))]
fn write(path: &Path, bytes: &[u8]) -> Result<(), IndexError> {
    if let Some(p) = path.parent() {
        std::fs::create_dir_all(p).map_err(|e| IndexError::Io {
            path: p.display().to_string(),
            message: e.to_string(),
        })?;
    }
    std::fs::write(path, bytes).map_err(|e| IndexError::Io {
        path: path.display().to_string(),
        message: e.to_string(),
    })
}

/// Writes the page, the browser files and (when found) the Wasm package into `out`. Returns
/// the files written (relative to `out`) and the package folder used, if any.
#[cfg(not(target_arch = "wasm32"))]
pub fn write_bundle(
    out: &Path,
    site: &SitePage,
    lang: &str,
    pkg: Option<&Path>,
) -> Result<(Vec<String>, Option<PathBuf>), IndexError> {
    let mut written = Vec::new();
    for (name, text) in files(site, lang) {
        let text = match text {
            Some(t) => t,
            None => ASSETS
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, t)| shipped_text(name, t))
                .unwrap_or_default(),
        };
        write(&out.join(name), text.as_bytes())?;
        written.push(name.to_string());
    }
    let used = match pkg {
        Some(dir) => {
            for f in PKG_COPIED {
                let src = dir.join(f);
                if !src.is_file() {
                    continue;
                }
                let bytes = std::fs::read(&src).map_err(|e| IndexError::Io {
                    path: src.display().to_string(),
                    message: e.to_string(),
                })?;
                // The glue goes out compacted; the modules (not UTF-8) and types as they are.
                let bytes = match std::str::from_utf8(&bytes) {
                    Ok(text) => shipped_text(f, text).into_bytes(),
                    Err(_) => bytes,
                };
                write(&out.join("pkg").join(f), &bytes)?;
                written.push(format!("pkg/{f}"));
            }
            Some(dir.to_path_buf())
        }
        None => None,
    };
    Ok((written, used))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(not(target_arch = "wasm32"))]
    #[test]
    fn every_module_the_bundled_scripts_import_is_bundled() {
        let names: Vec<&str> = ASSETS.iter().map(|(n, _)| *n).collect();
        assert_eq!(names, ASSET_NAMES);
        for (name, _) in ASSETS.iter().filter(|(n, _)| n.ends_with(".js")) {
            for file in static_imports(name) {
                let ok = names.contains(&file.as_str()) || file.starts_with("pkg/");
                assert!(ok, "{name} imports ./{file}, which the bundle lacks");
            }
        }
    }

    /// The modules `name` imports statically (`import … from './x.js'`, also across lines).
    #[cfg(not(target_arch = "wasm32"))]
    fn static_imports(name: &str) -> Vec<String> {
        let text = ASSETS
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, t)| *t)
            .unwrap_or_else(|| panic!("{name} is not a bundled asset"));
        text.lines()
            .map(str::trim_start)
            .filter(|l| {
                l.starts_with("import ") || l.starts_with("} from ") || l.starts_with("export ")
            })
            .filter(|l| l.contains(" from ") || l.starts_with("import '"))
            .filter_map(|l| l.split(['\'', '"']).nth(1))
            .filter_map(|spec| spec.strip_prefix("./"))
            .map(str::to_string)
            .collect()
    }

    #[cfg(not(target_arch = "wasm32"))]
    #[test]
    fn the_page_preloads_exactly_the_modules_the_element_imports_before_it_starts() {
        // The static import graph of chsr-search.js (the Wasm glue ends it: pkg/ is not an asset).
        let mut graph = vec!["chsr-search.js".to_string()];
        let mut i = 0;
        while i < graph.len() {
            if !graph[i].starts_with("pkg/") {
                for m in static_imports(&graph[i].clone()) {
                    if !graph.contains(&m) {
                        graph.push(m);
                    }
                }
            }
            i += 1;
        }
        let mut want = graph.clone();
        want.sort();
        let mut listed: Vec<String> = PRELOADED_MODULES.iter().map(|m| m.to_string()).collect();
        listed.sort();
        assert_eq!(
            listed, want,
            "PRELOADED_MODULES must be chsr-search.js's static import graph"
        );
        assert!(
            graph.contains(&"view.js".to_string()),
            "a multi-line import is followed"
        );
        let fr = page_html(&SitePage::default(), "fr");
        for m in PRELOADED_MODULES.iter().chain(&["i18n-fr.js"]) {
            assert!(
                fr.contains(&format!("<link rel=\"modulepreload\" href=\"{m}\">")),
                "{m}"
            );
        }
        assert!(
            !fr.contains("i18n-en.js"),
            "only the page's language is preloaded"
        );
        assert!(fr.contains(
            "<link rel=\"preload\" href=\"pkg/chsr_lexical_bg.wasm\" as=\"fetch\" crossorigin>"
        ));
        // Preloads come before the scripts that use them.
        assert!(fr.find("modulepreload").unwrap() < fr.find("<script").unwrap());
        assert!(page_html(&SitePage::default(), "en").contains("href=\"i18n-en.js\""));
    }

    #[test]
    fn the_page_takes_its_texts_from_the_config_and_escapes_them() {
        let site = SitePage {
            title: Some("NSI <b>terminale</b>".into()),
            credits: Some("Cours de G. Lassus".into()),
            licence: Some("CC BY-SA 4.0".into()),
            licence_url: Some("javascript:alert(1)".into()),
            lang: None,
        };
        let h = page_html(&site, "fr");
        assert!(h.contains("<title>NSI &lt;b&gt;terminale&lt;/b&gt;</title>"));
        assert!(h.contains("Cours de G. Lassus") && h.contains("CC BY-SA 4.0"));
        assert!(!h.contains("javascript:"));
        assert!(!h.contains("OpenCERB"));
        assert!(h.contains("<chsr-search manifest=\"shards/manifest.json\" lang=\"fr\""));
    }

    #[test]
    fn the_asset_names_are_the_assets() {
        let names: Vec<&str> = ASSETS.iter().map(|(n, _)| *n).collect();
        assert_eq!(names, ASSET_NAMES);
        let f = files(&SitePage::default(), "en");
        assert_eq!(f.len(), ASSET_NAMES.len() + 3);
        assert!(f.iter().take(ASSET_NAMES.len()).all(|(_, t)| t.is_none()));
    }
}
