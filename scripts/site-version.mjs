#!/usr/bin/env node
// Writes DIR/build.json for the service worker (www/sw.js):
//   {"build": "<16 hex>", "files": [...], "manifests": [...]}
// `files` are the site's files the worker saves on install (the pages, scripts, styles, the Wasm
// module and every manifest.json), relative to DIR; `build` is a SHA-256 over their paths and
// bytes, so any change to the page, the module or the data gives a new build id and a new cache.
// Shards (`*.chsr`), their vectors (`*.chsrv`), part lists (`*.chsrl`), postings (`*.chsri`) and text (`*.chsrx`), the embedding model (`*.chsrm`) and the term filters (`*.chsrt`) have content-hashed names pinned by the
// manifest: they are saved as they are used (the page hands their verified bytes to the worker),
// and a new build carries over those its manifests still name.
// First the pages are stamped with Subresource Integrity (scripts/site-integrity.mjs: each
// `index.template.html` becomes `index.html`); build.json also lists those digests (`integrity`,
// paths relative to DIR: for hosts and LMS pages that load chsr-search.js) and the site-wide
// Content-Security-Policy with the import maps' hashes (`csp`).
//   node scripts/site-version.mjs [DIR]   (default: www)
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stampPages, TEMPLATE, walk } from './site-integrity.mjs';

const here = fileURLToPath(new URL('.', import.meta.url));
const dir = process.argv[2] || join(here, '..', 'www');
const SKIP = new Set(['build.json', 'sw.js']);


const { integrity, csp } = stampPages(dir);
const all = walk(dir)
  .map((p) => relative(dir, p).split(sep).join('/'))
  .filter((f) => !f.endsWith(TEMPLATE));
const manifests = all.filter((f) => f.endsWith('/manifest.json') || f === 'manifest.json');
// `.br`/`.gz`: the compressed copies scripts/precompress.mjs writes for the server (not site files).
const files = all.filter((f) => !SKIP.has(f) && !/\.(chsr|chsrv|chsrl|chsri|chsrx|chsrm|chsrt|d\.ts|br|gz)$/.test(f));
const hash = createHash('sha256');
for (const f of files) {
  hash.update(f);
  hash.update('\0');
  hash.update(readFileSync(join(dir, f)));
}
// Shards are named by their content: the manifest (hashed above) pins them.
const build = hash.digest('hex').slice(0, 16);
// Directory URLs of the pages, so a navigation to "./" or "embed/" finds its page offline.
const dirs = files.filter((f) => f.endsWith('index.html')).map((f) => f.slice(0, -'index.html'.length) || './');
writeFileSync(join(dir, 'build.json'), `${JSON.stringify({ build, files: [...dirs, ...files], manifests, integrity, csp }, null, 1)}\n`);
console.log(`build ${build}: ${files.length} files to keep offline (${manifests.length} manifest(s))`);
