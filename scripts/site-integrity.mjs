// Subresource Integrity for the site's pages (called by scripts/site-version.mjs, so by
// scripts/build-site and by the page tests' stampSite).
//
// Each page template `DIR/**/index.template.html` becomes `index.html` next to it, with:
//   - `integrity="sha384-…"` on every local `<script src>` (the entry modules and the classic
//     guard.js) and `<link rel="stylesheet" href>`;
//   - an import map `<script type="importmap">{"integrity": {...}}</script>` before the first
//     script, naming the sha384 of every module the entry modules import statically (followed
//     through the whole graph: `import … from './x.js'`, `export … from`, `import './x.js'`) and
//     of every file a module locates with `new URL('file', import.meta.url)` (the Wasm modules
//     `pkg/chsr_lexical_bg.wasm`, `pkg/chsr_bg.wasm` and `pkg/chsr_scalar_bg.wasm`, which
//     chsr-client.js fetches with that integrity), and of every module they import when needed
//     (`import('./x.js')`: the interface strings of each language, i18n-en.js and i18n-fr.js);
//   - the import map's `'sha256-…'` added to `script-src` of the page's CSP `<meta>` (an import
//     map is an inline script; the policy keeps refusing every other inline script);
//   - after the import map, `<link rel="modulepreload">` for every module of that graph, and `<link rel="preload" as="fetch">` for the assets it locates (the lexical Wasm module;
//     not the two with the dense path, which only pages asking for it fetch),
//     each with its integrity: the browser fetches the whole graph and the module at once instead
//     of discovering them one import level at a time (a round trip per level: on a slow phone
//     link, 150 ms each before the first result).
// A browser refuses a module or stylesheet whose bytes differ from the digest; guard.js then shows
// a plain error instead of a page that never starts.
//
// Bundles first: a module script with `data-bundle="OUT.js"` (the study page's app.js) is replaced
// by OUT.js, written next to the page: esbuild (scripts/package.json) bundles the entry's whole
// static module graph, the Wasm glue pkg/chsr.js included, into one minified module (the study
// page's scripts went from 9 files and 49 kB brotli to 2 files and 27 kB, fetched before the
// first result of every first visit), and the stamping below then treats OUT.js as the entry. The
// sources stay as they are: the embed page and hosts load chsr-search.js and its modules
// unbundled, and `chsr index` ships those.
//   import { stampPages } from './site-integrity.mjs';
//   const { pages, integrity, csp } = stampPages('www');
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, posix, relative, sep } from 'node:path';

export const TEMPLATE = 'index.template.html';
const TAG = /<(script|link)\b[^>]*>/gi;
const STATIC_IMPORT = /(?:^|[;\n}])\s*(?:import|export)\s+(?:[\w*{}\s,$]+?\s+from\s+)?['"]([^'"]+)['"]/g;
const ASSET_URL = /new\s+URL\(\s*['"]([^'"]+)['"]\s*,\s*import\.meta\.url\s*\)/g;
// A module loaded when needed (`import('./x.js')`, a string literal): the interface strings of one
// language (i18n.js). Its digest goes in the import map, which covers dynamic imports too, but it
// gets no preload (a page needs one of them, chosen at run time), and a bundle leaves it a file of
// its own.
const DYNAMIC_IMPORT = /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;

// The Wasm modules with the dense path are fetched only by pages that ask for it (chsr-client.js
// picks the module; the default is the lexical one): they have their digests in the import map
// but no preload (every other page would download one for nothing).
const NOT_PRELOADED = /(^|[/\\])chsr(_scalar)?_bg\.wasm$/;

const sha = (alg, bytes) => `${alg}-${createHash(alg).update(bytes).digest('base64')}`;
const isLocal = (url) => !/^[a-z][a-z0-9+.-]*:|^\/\//i.test(url);
const attr = (tag, name) => {
  const m = tag.match(new RegExp(`\\s${name}\\s*=\\s*("([^"]*)"|'([^']*)')`, 'i'));
  return m ? (m[2] ?? m[3]) : null;
};

/** Every file below `d` (absolute paths, sorted, dot-files and dot-folders skipped). */
export function walk(d) {
  const out = [];
  for (const name of readdirSync(d).sort()) {
    if (name.startsWith('.')) continue;
    const p = join(d, name);
    if (statSync(p).isDirectory()) out.push(...walk(p));
    else out.push(p);
  }
  return out;
}

/**
 * Writes `out`: the module `entry` with its static imports bundled and minified (esbuild, ES
 * module output, UTF-8 kept as is). Deterministic: the same sources give the same bytes.
 */
function bundle(entry, out) {
  // The modules it loads when needed stay files of their own: their import paths are kept as
  // written, so they must be written in a module in the bundle's own folder.
  const lazy = moduleGraph(entry).dynamic;
  for (const { spec, from } of lazy) {
    if (dirname(from) !== dirname(out)) {
      throw new Error(`${from}: import('${spec}') is not in the folder of the bundle ${out}; a bundle keeps the path as written`);
    }
  }
  let esbuild;
  try {
    esbuild = createRequire(import.meta.url)('esbuild');
  } catch (e) {
    throw new Error(`bundling ${entry} needs esbuild: run scripts/setup (npm ci in scripts/) (${e.message})`);
  }
  esbuild.buildSync({
    entryPoints: [entry],
    outfile: out,
    bundle: true,
    format: 'esm',
    minify: true,
    charset: 'utf8',
    legalComments: 'none',
    logLevel: 'error',
    external: [...new Set(lazy.map((d) => d.spec))],
  });
}

/**
 * Files (absolute paths) of the static module graph from `entry`, the assets its modules locate,
 * and the modules they import when needed (`lazy`: those graphs too, less the static one;
 * `dynamic`: each such import as written, `{spec, from}`).
 */
function moduleGraph(entry) {
  const walkFrom = (roots, skip) => {
    const modules = new Set();
    const assets = new Set();
    const dynamic = [];
    const todo = [...roots];
    while (todo.length) {
      const file = todo.pop();
      if (modules.has(file) || skip.has(file)) continue;
      if (!existsSync(file)) throw new Error(`${file}: imported but missing (run scripts/build-site)`);
      modules.add(file);
      const src = readFileSync(file, 'utf8');
      for (const m of src.matchAll(STATIC_IMPORT)) {
        if (isLocal(m[1]) && /^\.{0,2}\//.test(m[1])) todo.push(join(dirname(file), m[1]));
      }
      for (const m of src.matchAll(ASSET_URL)) {
        const asset = join(dirname(file), m[1]);
        if (isLocal(m[1]) && existsSync(asset) && statSync(asset).isFile()) assets.add(asset);
      }
      for (const m of src.matchAll(DYNAMIC_IMPORT)) {
        if (isLocal(m[1]) && /^\.{0,2}\//.test(m[1])) dynamic.push({ spec: m[1], from: file });
      }
    }
    return { modules, assets, dynamic };
  };
  const { modules, assets, dynamic } = walkFrom([entry], new Set());
  const later = walkFrom(dynamic.map((d) => join(dirname(d.from), d.spec)), modules);
  for (const a of later.assets) assets.add(a);
  return { modules, assets, lazy: later.modules, dynamic };
}

// The URL of `file` relative to the page in `pageDir`, as an import map key ("./x.js", "../x.js").
function keyFor(pageDir, file) {
  const rel = relative(pageDir, file).split(sep).join(posix.sep);
  return rel.startsWith('../') ? rel : `./${rel}`;
}

/**
 * Stamps every page template under `dir`. Returns the pages written, the sha384 of every stamped
 * file (paths relative to `dir`), and the site-wide policy (the pages' policy with every import
 * map hash) for hosts that send one header for the whole site.
 */
export function stampPages(dir) {
  const pages = [];
  const integrity = {};
  const hashes = new Set();
  let policy = null;
  for (const template of walk(dir).filter((f) => f.endsWith(`${sep}${TEMPLATE}`) || f === TEMPLATE)) {
    const pageDir = dirname(template);
    let html = readFileSync(template, 'utf8');
    html = html.replace(TAG, (tag, name) => {
      const out = name.toLowerCase() === 'script' ? attr(tag, 'data-bundle') : null;
      if (out === null) return tag;
      const src = attr(tag, 'src');
      if (attr(tag, 'type') !== 'module' || !src || !isLocal(src) || !/^[\w.-]+\.js$/.test(out)) {
        throw new Error(`${template}: ${tag}: data-bundle needs a local module script and a file name ending in .js`);
      }
      bundle(join(pageDir, src), join(pageDir, out));
      return tag.replace(/\sdata-bundle\s*=\s*("[^"]*"|'[^']*')/i, '').replace(/(\ssrc\s*=\s*)("[^"]*"|'[^']*')/i, `$1"${out}"`);
    });
    const digest = (file) => {
      const v = sha('sha384', readFileSync(file));
      integrity[relative(dir, file).split(sep).join(posix.sep)] = v;
      return v;
    };
    const map = {};
    const preloads = [];
    html = html.replace(TAG, (tag, name) => {
      const url = name.toLowerCase() === 'script' ? attr(tag, 'src') : attr(tag, 'href');
      const isStyle = name.toLowerCase() === 'link' && /stylesheet/i.test(attr(tag, 'rel') || '');
      if (!url || !isLocal(url) || url.startsWith('data:') || (name.toLowerCase() === 'link' && !isStyle)) return tag;
      if (attr(tag, 'integrity') !== null) throw new Error(`${template}: ${tag} already has an integrity attribute`);
      const file = join(pageDir, url);
      const stamped = tag.replace(/\s*>$/, ` integrity="${digest(file)}">`);
      if (attr(tag, 'type') === 'module') {
        const { modules, assets, lazy } = moduleGraph(file);
        for (const f of [...modules, ...lazy, ...assets]) map[keyFor(pageDir, f)] = digest(f);
        // Sorted, so the page's bytes do not depend on the graph walk's order.
        // The entry too: a module script after a classic one was seen fetched only once that
        // one had run.
        for (const f of [...modules].sort()) {
          preloads.push(`<link rel="modulepreload" href="${keyFor(pageDir, f)}" integrity="${digest(f)}">`);
        }
        for (const f of [...assets].sort().filter((a) => !NOT_PRELOADED.test(a))) {
          // Matches the module's own fetch (chsr-client.js: a CORS-mode Request with this integrity).
          preloads.push(`<link rel="preload" href="${keyFor(pageDir, f)}" as="fetch" crossorigin="anonymous" integrity="${digest(f)}">`);
        }
      }
      return stamped;
    });
    const sorted = Object.fromEntries(Object.entries(map).sort(([a], [b]) => a.localeCompare(b)));
    const json = JSON.stringify({ integrity: sorted }, null, 1).replace(/\n\s*/g, ' ');
    const hash = sha('sha256', json);
    hashes.add(hash);
    const at = html.search(/<script\b/i);
    if (at < 0) throw new Error(`${template}: no script to protect`);
    const indent = html.slice(html.lastIndexOf('\n', at) + 1, at);
    const links = [...new Set(preloads)].map((l) => `${l}\n${indent}`).join('');
    html = `${html.slice(0, at)}<script type="importmap">${json}</script>\n${indent}${links}${html.slice(at)}`;
    let found = false;
    html = html.replace(/(<meta\s+http-equiv="Content-Security-Policy"\s+content=")([^"]*)(")/i, (all, a, csp, b) => {
      found = true;
      policy = csp;
      return `${a}${withHashes(csp, [hash])}${b}`;
    });
    if (!found) throw new Error(`${template}: no Content-Security-Policy <meta> to add the import map's hash to`);
    const out = join(pageDir, 'index.html');
    writeFileSync(out, html);
    pages.push(relative(dir, out).split(sep).join(posix.sep));
  }
  return { pages, integrity, csp: policy ? withHashes(policy, [...hashes].sort()) : null };
}

/** `csp` with `'hash'` sources added to `script-src`. */
export function withHashes(csp, hashes) {
  return csp.replace(/script-src ([^;]*)/, (all, sources) => `script-src ${sources.trim()} ${hashes.map((h) => `'${h}'`).join(' ')}`);
}
