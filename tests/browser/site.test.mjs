// `chsr index` as a teacher uses it: a copy of a published course site (real MkDocs Material pages,
// tests/fixtures/sites) gets the bundle beside it, and is served as it would be hosted. From the
// bundle's own search page a French question finds the right section of the right level, and the
// result opens the course page at that section; a première-locked box on a course page never
// shows (or downloads) terminale material.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, serve, launch, watchErrors } from './harness.mjs';

let dir;
let server;
let browser;

const CONFIG = `
[site]
title = "NSI : rechercher dans le cours"
credits = "Cours de Gilles Lassus, CC BY-SA 4.0"
lang = "fr"

[[source]]
path = "nsi-premiere"
subject = "informatique (NSI)"
level = "premiere"
lang = "fr"
exclude = ["**/sommaire/**"]
chapter = { path = '/(\\d+\\.\\d+)_' }

[[source]]
path = "nsi-terminale"
subject = "informatique (NSI)"
level = "terminale"
lang = "fr"
chapter = { path = '/(\\d+\\.\\d+)_' }
`;

// A page of the course with the two lines a teacher adds (locked to première).
const HOST = `<!doctype html><html lang="fr"><head><meta charset="utf-8"><title>Révisions</title>
<script type="module" src="chsr/chsr-search.js"></script></head>
<body><h1>Révisions de première</h1>
<chsr-search id="box" manifest="chsr/shards/manifest.json" subject="informatique (NSI)" level="premiere" lang="fr"></chsr-search>
</body></html>`;

before(async () => {
  const cli = `${ROOT}target/release/chsr`;
  if (!existsSync(cli) || !existsSync(`${ROOT}www/pkg/chsr_bg.wasm`)) throw new Error('run scripts/build-site first');
  dir = mkdtempSync(join(tmpdir(), 'chsr-course-'));
  for (const s of ['nsi-premiere', 'nsi-terminale']) cpSync(`${ROOT}tests/fixtures/sites/${s}`, join(dir, s), { recursive: true });
  writeFileSync(join(dir, 'chsr.toml'), CONFIG);
  execFileSync(cli, ['index', '--config', join(dir, 'chsr.toml'), '--out', join(dir, 'chsr'), '--pkg', `${ROOT}www/pkg`], { stdio: 'ignore' });
  writeFileSync(join(dir, 'revisions.html'), HOST);
  server = await serve(dir);
  browser = await launch();
});
after(async () => {
  await browser?.close();
  await server?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function boxSearch(page, sel, query) {
  const n = Number(await page.getAttribute(sel, 'data-searches') || 0);
  await page.fill(`${sel} input[type="search"]`, query);
  await page.press(`${sel} input[type="search"]`, 'Enter');
  await page.waitForFunction(([s, k]) => Number(document.querySelector(s).dataset.searches || 0) > k
    && document.querySelector(s).dataset.state !== 'searching', [sel, n]);
  return page.$$eval(`${sel} >> li.card`, (l) => l.map((c) => ({ id: c.dataset.id, level: c.dataset.level })));
}

test('the bundle page: a French question finds the right section of the right level, and opens it at its anchor', async () => {
  const context = await browser.newContext({ locale: 'fr-FR' });
  const page = await context.newPage();
  const errors = watchErrors(page);
  const requested = [];
  page.on('request', (r) => requested.push(new URL(r.url()).pathname));
  await page.goto(`${server.url}chsr/`);
  assert.equal(await page.title(), 'NSI : rechercher dans le cours');
  assert.match(await page.textContent('footer'), /Gilles Lassus/);
  assert.doesNotMatch(await page.textContent('body'), /OpenCERB/);
  const sel = 'chsr-search';
  await page.waitForSelector(`${sel}[data-state="ready"]`, { timeout: 30_000 });
  await page.selectOption(`${sel} select[id$="-level"]`, 'premiere');
  const cards = await boxSearch(page, sel, "Qu'est-ce qu'un invariant de boucle dans le tri par insertion ?");
  assert.ok(cards.length > 0, 'no result');
  assert.ok(cards.every((c) => c.level === 'premiere'), JSON.stringify(cards));
  assert.match(cards[0].id, /4\.3_Tri_par_insertion\/cours/);
  // The page preloads the element's modules, its styles, its language's strings and the Wasm
  // module so that they download together: each is used, so fetched once (a preload the element
  // did not use, e.g. fetched with other credentials, would be fetched a second time).
  const html = await (await page.request.get(`${server.url}chsr/`)).text();
  const preloaded = [...html.matchAll(/<link rel="(?:modulepreload|preload)" href="([^"]+)"/g)].map((m) => m[1]);
  assert.ok(preloaded.includes('chsr-client.js') && preloaded.includes('pkg/chsr_lexical_bg.wasm'), html);
  for (const f of preloaded) {
    assert.equal(requested.filter((p) => p === `/chsr/${f}`).length, 1, `${f}: ${JSON.stringify(requested)}`);
  }
  // The card's title links to the course page at the section's anchor, and following it lands there.
  // The search page itself runs under its strict policy without an error (the course page it
  // opens next loads CDN scripts the test server's policy refuses: not ours to check).
  assert.deepEqual(errors.filter((e) => !/Failed to load resource/.test(e)), []);
  const link = page.locator(`${sel} >> li.card >> a[href]`).first();
  const href = await link.getAttribute('href');
  assert.match(href, /nsi-premiere\/T4_Algorithmique\/4\.3_Tri_par_insertion\/cours\/#[\w-]+$/);
  // (the course page's own CDN scripts and fonts are unreachable here: wait for the navigation, not its load)
  await Promise.all([page.waitForURL(/4\.3_Tri_par_insertion\/cours\/#/, { waitUntil: 'commit' }), link.click()]);
  await page.waitForLoadState('domcontentloaded');
  const hash = decodeURIComponent(new URL(page.url()).hash.slice(1));
  assert.ok(await page.evaluate((id) => document.getElementById(id) !== null, hash), `no element #${hash} on the page`);
  await context.close();
});

test('the bundle ships the browser modules without comments or indentation, and the same code', () => {
  // esbuild (scripts/node_modules, which scripts/setup installs) minifies a module to the same
  // bytes whatever its comments and blanks: any other change to the code would show.
  const esbuild = createRequire(`${ROOT}scripts/package.json`)('esbuild');
  const min = (code) => esbuild.transformSync(code, { minify: true, format: 'esm', loader: 'js' }).code;
  const files = [...readdirSync(join(dir, 'chsr')).filter((f) => f.endsWith('.js')), 'pkg/chsr.js'];
  assert.ok(files.includes('chsr-search.js') && files.includes('chsr-client.js'), files.join(' '));
  for (const f of files) {
    const source = readFileSync(`${ROOT}www/${f}`, 'utf8');
    const shipped = readFileSync(join(dir, 'chsr', f), 'utf8');
    assert.ok(shipped.length < source.length, `${f} is not smaller`);
    assert.doesNotMatch(shipped, /^\s*\/\//m, `${f} keeps a comment line`);
    assert.equal(min(shipped), min(source), `${f}: the shipped module is not the same code`);
  }
});

test('a première-locked box on a course page never shows or downloads terminale material', async () => {
  const context = await browser.newContext({ locale: 'fr-FR' });
  const page = await context.newPage();
  const shards = [];
  page.on('request', (r) => { if (/\.chsrv?$/.test(r.url())) shards.push(r.url()); });
  await page.goto(`${server.url}revisions.html`);
  await page.waitForSelector('#box[data-state="ready"]', { timeout: 30_000 });
  // Recursion and trees are terminale chapters: the box stays in première all the same.
  for (const q of ['fonction récursive qui s\'appelle elle-même', 'arbre binaire de recherche', 'variables']) {
    const cards = await boxSearch(page, '#box', q);
    assert.ok(cards.every((c) => c.level === 'premiere'), `${q}: ${JSON.stringify(cards)}`);
  }
  const manifest = await (await page.request.get(`${server.url}chsr/shards/manifest.json`)).json();
  const terminale = manifest.shards.filter((s) => s.level === 'terminale').map((s) => s.file);
  assert.ok(terminale.length > 0);
  assert.ok(!shards.some((u) => terminale.some((f) => u.endsWith(f))), `downloaded ${shards}`);
  await context.close();
});
