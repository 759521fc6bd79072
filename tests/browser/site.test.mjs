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

// The same box with `sync-url`: a link's query is asked at once, its picks never widen the lock.
const LINKED_HOST = HOST.replace('lang="fr"></chsr-search>', 'lang="fr" sync-url></chsr-search>');

before(async () => {
  const cli = `${ROOT}target/release/chsr`;
  if (!existsSync(cli) || !existsSync(`${ROOT}www/pkg/chsr_bg.wasm`)) throw new Error('run scripts/build-site first');
  dir = mkdtempSync(join(tmpdir(), 'chsr-course-'));
  for (const s of ['nsi-premiere', 'nsi-terminale']) cpSync(`${ROOT}tests/fixtures/sites/${s}`, join(dir, s), { recursive: true });
  writeFileSync(join(dir, 'chsr.toml'), CONFIG);
  execFileSync(cli, ['index', '--config', join(dir, 'chsr.toml'), '--out', join(dir, 'chsr'), '--pkg', `${ROOT}www/pkg`], { stdio: 'ignore' });
  writeFileSync(join(dir, 'revisions.html'), HOST);
  writeFileSync(join(dir, 'revisions-lien.html'), LINKED_HOST);
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

// Waits for the box's search count to pass `n`, then the search to be over.
async function searchedPast(page, sel, n) {
  await page.waitForFunction(([s, k]) => Number(document.querySelector(s).dataset.searches || 0) > k
    && document.querySelector(s).dataset.state !== 'searching', [sel, n], { timeout: 30_000 });
  return page.$$eval(`${sel} >> li.card`, (l) => l.map((c) => ({ id: c.dataset.id, level: c.dataset.level })));
}

test('a link to the bundle page asks its question at once, and the address follows the search shown', async () => {
  const context = await browser.newContext({ locale: 'fr-FR' });
  const page = await context.newPage();
  const errors = watchErrors(page);
  const sel = 'chsr-search';
  const q = "Qu'est-ce qu'un invariant de boucle dans le tri par insertion ?";
  // What a site's search form (`<form action=… method=get><input name=q>`) or a shared link sends;
  // the page's own parameters and anchor (`from`, `#haut`) are not the box's.
  await page.goto(`${server.url}chsr/?${new URLSearchParams({ q, level: 'premiere', from: 'menu' })}#haut`);
  const cards = await searchedPast(page, sel, 0);
  assert.equal(await page.inputValue(`${sel} input[type="search"]`), q);
  assert.equal(await page.inputValue(`${sel} select[id$="-level"]`), 'premiere');
  assert.ok(cards.length > 0 && cards.every((c) => c.level === 'premiere'), JSON.stringify(cards));
  assert.match(cards[0].id, /4\.3_Tri_par_insertion\/cours/);
  assert.equal(await page.isHidden(`${sel} p.link-notice`), true);
  // The student asks something else and picks terminale: the address says so (the link to give
  // a classmate, or what Back returns to), the page's own parameter and anchor kept.
  await page.selectOption(`${sel} select[id$="-level"]`, 'terminale');
  const again = await boxSearch(page, sel, 'arbre binaire de recherche');
  assert.ok(again.length > 0 && again.every((c) => c.level === 'terminale'), JSON.stringify(again));
  await page.waitForFunction(() => new URLSearchParams(window.location.search).get('q') === 'arbre binaire de recherche');
  const url = new URL(page.url());
  assert.equal(url.searchParams.get('level'), 'terminale');
  assert.equal(url.searchParams.get('from'), 'menu');
  assert.equal(url.hash, '#haut');
  // Reloading that address shows the same search.
  await page.reload();
  const reloaded = await searchedPast(page, sel, 0);
  assert.deepEqual(reloaded.map((c) => c.id), again.map((c) => c.id));
  assert.deepEqual(errors.filter((e) => !/Failed to load resource/.test(e)), []);
  await context.close();
});

test('a link naming a level the library lacks says so and searches without it', async () => {
  const context = await browser.newContext({ locale: 'fr-FR' });
  const page = await context.newPage();
  const sel = 'chsr-search';
  await page.goto(`${server.url}chsr/?${new URLSearchParams({ q: 'arbre binaire de recherche', level: 'seconde' })}`);
  const cards = await searchedPast(page, sel, 0);
  assert.ok(cards.length > 0, 'no result');
  assert.match(await page.textContent(`${sel} p.link-notice`), /seconde/);
  assert.equal(await page.inputValue(`${sel} select[id$="-level"]`), '');
  // The address says what is shown: no level.
  await page.waitForFunction(() => !new URLSearchParams(window.location.search).has('level'));
  // A pick is the student's answer to the notice: it goes.
  await page.selectOption(`${sel} select[id$="-level"]`, 'terminale');
  await page.waitForSelector(`${sel} p.link-notice[hidden]`, { state: 'attached' });
  await context.close();
});

test("a link never widens a box's lock, and a box without sync-url ignores the page's address", async () => {
  const context = await browser.newContext({ locale: 'fr-FR' });
  const page = await context.newPage();
  const shards = [];
  page.on('request', (r) => { if (/\.chsrv?$/.test(r.url())) shards.push(r.url()); });
  const manifest = await (await page.request.get(`${server.url}chsr/shards/manifest.json`)).json();
  const terminale = manifest.shards.filter((s) => s.level === 'terminale').map((s) => s.file);
  const link = new URLSearchParams({ q: 'arbre binaire de recherche', level: 'terminale' });
  // With sync-url: the question is asked, inside the première lock; the locked level's parameter is
  // neither read nor rewritten.
  await page.goto(`${server.url}revisions-lien.html?${link}`);
  const cards = await searchedPast(page, '#box', 0);
  assert.equal(await page.inputValue('#box input[type="search"]'), 'arbre binaire de recherche');
  assert.ok(cards.every((c) => c.level === 'premiere'), JSON.stringify(cards));
  assert.ok(!shards.some((u) => terminale.some((f) => u.endsWith(f))), `downloaded ${shards}`);
  await page.waitForTimeout(500);
  assert.equal(new URL(page.url()).searchParams.get('level'), 'terminale');
  // Without: the page's address is the host's own business.
  await page.goto(`${server.url}revisions.html?${link}`);
  await page.waitForSelector('#box[data-state="ready"]', { timeout: 30_000 });
  assert.equal(await page.inputValue('#box input[type="search"]'), '');
  assert.equal(await page.getAttribute('#box', 'data-searches'), null);
  await context.close();
});
