// Offline after the first visit (service worker), and cache replacement on redeploy. Each test
// serves its own copy of www/ so that it can cut the network (stop the server) or redeploy.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, rmSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { serve, launch, copySite, stampSite, search, cards, searchSeq, waitSearch, watchErrors } from './harness.mjs';

let browser;
const dirs = [];
const servers = [];
before(async () => { browser = await launch(); });
after(async () => {
  await browser?.close();
  for (const s of servers) await s.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function site() {
  const dir = copySite();
  dirs.push(dir);
  const build = stampSite(dir);
  const server = await serve(dir);
  servers.push(server);
  return { dir, build, server };
}

// `holdWorker`: the page's request for build.json (which registers the worker) waits until the
// first search is done, so the shard is downloaded before any worker exists (the first-visit race).
async function firstVisit(url, { holdWorker = false, dense = true } = {}) {
  const context = await browser.newContext({ locale: 'en-GB' });
  const page = await context.newPage();
  const errors = watchErrors(page);
  let release = () => {};
  let passed = null;
  if (holdWorker) {
    const gate = new Promise((r) => { release = r; });
    let done;
    passed = new Promise((r) => { done = r; });
    await page.route('**/build.json', async (route) => { await gate; await route.continue(); done(); });
  }
  await page.goto(`${url}?subject=physics&level=high_school${dense ? '&dense=1' : ''}`);
  await page.waitForSelector('body[data-ready="true"]');
  const list = await search(page, 'specific heat', {});
  assert.ok(list.length > 0);
  if (holdWorker) {
    assert.equal(await page.evaluate(() => navigator.serviceWorker.controller), null);
    release();
    await passed;
    // While a route is set, Chromium's fetches bypass the service worker: remove it.
    await page.unroute('**/build.json');
  }
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null, null, { timeout: 30_000 });
  // The collection used is saved, and the page says so next to the scope and in the list.
  await page.waitForSelector('#offline-current.saved', { timeout: 30_000 });
  assert.match(await page.textContent('#offline-current'), /Physics · High school: available offline/);
  return { context, page, errors, list };
}

const cacheNames = (page) => page.evaluate(() => caches.keys());

test('keywords only (the default): collections are saved for offline use without vectors or model', async () => {
  const { server } = await site();
  const { context, page, errors } = await firstVisit(server.url, { dense: false });
  // Another collection, saved by its button.
  await page.click('#offline summary');
  await page.click('#offline li[data-file^="chemistry--college"] button');
  await page.waitForSelector('#offline li[data-file^="chemistry--college"].saved', { timeout: 60_000 });
  const asked = server.requests.filter((r) => /\.chsr[mv] /.test(r));
  assert.deepEqual(asked, [], 'no vectors and no model requested');
  assert.ok(!server.requests.some((r) => /chsr(_scalar)?_bg\.wasm /.test(r)), 'no module with the dense path requested');
  assert.ok(server.requests.some((r) => /chemistry--college\.[0-9a-f]{16}\.chsr 200$/.test(r)), 'the other shard was saved');
  assert.deepEqual(errors, []);
  await context.close();
});

test('after one visit, a reload with the network cut still searches', async () => {
  const { build, server } = await site();
  const { context, page, list } = await firstVisit(server.url, { holdWorker: true });
  assert.deepEqual(await cacheNames(page), [`chsr-${build}`]);
  // The shard and the model were downloaded once each, before the worker existed: the page handed
  // their verified bytes to the worker instead of letting it download them again.
  const shardGets = server.requests.filter((r) => /\.chsrm? /.test(r));
  assert.equal(shardGets.length, 2, shardGets.join(', '));
  assert.equal(shardGets.filter((r) => /\/model\.[0-9a-f]{16}\.chsrm /.test(r)).length, 1, 'the model once');
  await page.click('#offline summary');
  assert.match(await page.textContent('#offline'), /1 of 5 collections available offline/);
  assert.match(await page.textContent('#offline li[data-file^="physics--high-school"]'), /Available offline/);
  assert.match(await page.textContent('#offline li[data-file^="chemistry--college"]'), /Not on this device yet/);

  // Cut the network for real: the server is gone and the browser is offline.
  await server.stop();
  await context.setOffline(true);
  const response = await page.reload();
  assert.ok(response.fromServiceWorker(), 'the page comes from the service worker');
  await page.waitForSelector('body[data-ready="true"]');
  await page.waitForFunction(() => window.__chsrDone > 0 && window.__chsrDone === window.__chsrSeq && !document.body.dataset.pending);
  assert.deepEqual((await cards(page)).map((c) => c.id), list.map((c) => c.id));
  const seq = await searchSeq(page);
  await page.fill('#q', 'kinetic energy');
  await page.press('#q', 'Enter');
  await waitSearch(page, seq);
  assert.ok((await cards(page)).length > 0);
  // A collection never used is not there: the page says why in words.
  await search(page, 'heat', { subject: 'chemistry', level: 'college' });
  assert.match(await page.textContent('#error'), /You are offline and Chemistry · College has not been saved on this device yet/);
  await context.close();
});

test('a returning visit starts from the saved build: the server is asked nothing before the first result', async () => {
  const { server } = await site();
  const { context, page, list } = await firstVisit(server.url);
  server.requests.length = 0;
  const response = await page.goto(`${server.url}?q=specific+heat&subject=physics&level=high_school&dense=1`);
  assert.ok(response.fromServiceWorker());
  await page.waitForFunction(() => window.__chsrDone > 0 && window.__chsrDone === window.__chsrSeq && !document.body.dataset.pending);
  assert.deepEqual((await cards(page)).map((c) => c.id), list.map((c) => c.id));
  // The page, its scripts, the module, the manifest and the shard came from the worker's cache;
  // only the update check (build.json, sw.js) may have gone out.
  const asked = server.requests.filter((r) => !/\/(build\.json|sw\.js)(\?\S*)? /.test(r));
  assert.deepEqual(asked, []);
  // The collection's files (content-hashed: the shard, its part list, postings and text parts)
  // were read by the page from its saved copies, not asked of the worker, which answers from the
  // same cache several times slower: no request for them at all.
  const viaWorker = await page.evaluate(() => performance.getEntriesByType('resource')
    .map((e) => new URL(e.name).pathname).filter((p) => /\.[0-9a-f]{16}\.chsr[a-z]?$/.test(p)));
  assert.deepEqual(viaWorker, []);
  await context.close();
});

test('a saved copy that fails its check is downloaded again, and the saved copy is mended', async () => {
  const { dir, build, server } = await site();
  const { context, page, list } = await firstVisit(server.url, { dense: false });
  // Every saved text part of the collection damaged (a disk error, a tampered cache).
  const damaged = await page.evaluate(async (name) => {
    const cache = await caches.open(name);
    const urls = (await cache.keys()).map((r) => r.url).filter((u) => /physics--high-school\.\d+\.[0-9a-f]{16}\.chsrx$/.test(u));
    for (const u of urls) await cache.put(u, new Response(new Uint8Array([1, 2, 3, 4]), { headers: { 'Content-Type': 'application/octet-stream' } }));
    return urls;
  }, `chsr-${build}`);
  assert.ok(damaged.length > 1, 'the collection has text parts');
  server.requests.length = 0;
  const errors = watchErrors(page);
  await page.goto(`${server.url}?q=specific+heat&subject=physics&level=high_school`);
  await page.waitForFunction(() => window.__chsrDone > 0 && window.__chsrDone === window.__chsrSeq && !document.body.dataset.pending);
  assert.deepEqual((await cards(page)).map((c) => c.id), list.map((c) => c.id));
  assert.equal(await page.isVisible('#error'), false);
  // The parts the results needed were downloaded again, and their saved copies replaced.
  const again = server.requests.filter((r) => /\.chsrx 200$/.test(r)).map((r) => r.split(' ')[1]);
  assert.ok(again.length > 0, 'the damaged parts were downloaded again');
  const sizes = await page.evaluate(async ({ name, paths }) => {
    const cache = await caches.open(name);
    return Promise.all(paths.map(async (p) => (await (await cache.match(new URL(p, location.href).href)).arrayBuffer()).byteLength));
  }, { name: `chsr-${build}`, paths: again });
  for (const [i, p] of again.entries()) assert.equal(sizes[i], readFileSync(join(dir, p.replace(/^\//, ''))).length, p);
  assert.deepEqual(errors, []);
  await context.close();
});

test('a redeploy installs the new build beside the old one, then replaces it in one step', async () => {
  const { dir, build, server } = await site();
  const { context, page } = await firstVisit(server.url);
  const shardUrl = await page.evaluate(() => [...performance.getEntriesByType('resource')].map((e) => e.name).find((n) => n.endsWith('.chsr')));

  // A broken deploy (a listed file is missing): the install fails, nothing changes.
  const broken = JSON.parse(readFileSync(join(dir, 'build.json'), 'utf8'));
  writeFileSync(join(dir, 'build.json'), JSON.stringify({ ...broken, build: 'badbadbadbadbad0', files: [...broken.files, 'missing.js'] }));
  await page.reload();
  await page.waitForSelector('body[data-ready="true"]');
  // The failed install is over once its worker is gone and its partial cache deleted.
  await page.waitForFunction(async (good) => {
    if (!window.__chsrRegistered) return false;
    const reg = await navigator.serviceWorker.getRegistration();
    const names = await caches.keys();
    return reg && reg.installing === null && reg.waiting === null && names.length === 1 && names[0] === good;
  }, `chsr-${build}`, { timeout: 15_000 });
  assert.equal(await page.isVisible('#update'), false);
  assert.match(await page.evaluate(() => navigator.serviceWorker.controller.scriptURL), new RegExp(`build=${build}$`));

  // A good deploy: a changed style sheet gives a new build id.
  appendFileSync(join(dir, 'style.css'), '\n/* redeployed */\n');
  const build2 = stampSite(dir);
  assert.notEqual(build2, build);
  await page.reload();
  await page.waitForSelector('#update:not([hidden])', { timeout: 30_000 });
  // Both caches exist while the new build waits; the new one is complete, shard carried over.
  assert.deepEqual((await cacheNames(page)).sort(), [`chsr-${build}`, `chsr-${build2}`].sort());
  assert.equal(await page.evaluate(async ([name, url]) => Boolean(await (await caches.open(name)).match(url)), [`chsr-${build2}`, shardUrl]), true);
  const modelUrl = shardUrl.replace(/[^/]+$/, JSON.parse(readFileSync(join(dir, 'shards', 'manifest.json'), 'utf8')).model.file);
  assert.equal(await page.evaluate(async ([name, url]) => Boolean(await (await caches.open(name)).match(url)), [`chsr-${build2}`, modelUrl]), true, 'model carried over');
  // So is every postings and text part the old build saved (the worker reads their names from
  // the part lists): a redeploy does not download a student's saved collection again.
  const parts = await page.evaluate(async ([old, next]) => {
    const [a, b] = [await caches.open(old), await caches.open(next)];
    const urls = (await a.keys()).map((r) => r.url).filter((u) => /\.(chsri|chsrx)$/.test(u));
    const missing = [];
    for (const u of urls) if (!(await b.match(u))) missing.push(u.replace(/^.*\//, ''));
    return { saved: urls.length, missing };
  }, [`chsr-${build}`, `chsr-${build2}`]);
  assert.ok(parts.saved > 0, 'the first visit saved its collection\'s parts');
  assert.deepEqual(parts.missing, [], 'every saved part carried over');
  // "Reload" switches to it; the old cache is gone.
  await Promise.all([page.waitForEvent('load'), page.click('#update-reload')]);
  await page.waitForSelector('body[data-ready="true"]');
  await page.waitForFunction((b) => navigator.serviceWorker.controller && navigator.serviceWorker.controller.scriptURL.endsWith(`build=${b}`), build2);
  assert.deepEqual(await cacheNames(page), [`chsr-${build2}`]);
  await page.waitForSelector('#offline-current.saved');
  await context.close();
});

test('the service worker is registered after the first result, and its install does not download the page again', async () => {
  const { build, server } = await site();
  const context = await browser.newContext({ locale: 'en-GB' });
  const page = await context.newPage();
  const errors = watchErrors(page);
  let cardsAtRegistration = null;
  page.on('request', (r) => {
    if (/\/build\.json$/.test(r.url()) && cardsAtRegistration === null) {
      cardsAtRegistration = page.evaluate(() => document.querySelectorAll('#results > li.card').length);
    }
  });
  await page.goto(`${server.url}?q=specific+heat&subject=physics&level=high_school&dense=1`);
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null, null, { timeout: 30_000 });
  assert.ok(cardsAtRegistration, 'build.json was requested');
  assert.ok((await cardsAtRegistration) > 0, 'results were on screen before the worker was registered');
  assert.deepEqual(await cacheNames(page), [`chsr-${build}`]);
  // Every file the page loaded was sent once: the install revalidated it (304), and the worker got
  // the shard's and the model's verified bytes from the page.
  await page.waitForSelector('#offline-current.saved', { timeout: 30_000 });
  const sent = server.requests.filter((r) => / 200$/.test(r)).map((r) => r.split(' ')[1].replace(/\?.*$/, ''));
  // The page (with the dense path: `dense=1`) runs chsr_bg.wasm; its preload fetched the lexical
  // module, which the install saves with the build.
  for (const f of ['/pkg/chsr_bg.wasm', '/pkg/chsr_lexical_bg.wasm', '/app.js', '/shards/manifest.json']) {
    assert.equal(sent.filter((p) => p === f).length, 1, `${f} sent once: ${server.requests.join(', ')}`);
  }
  assert.ok(server.requests.some((r) => /^GET \/pkg\/chsr_lexical_bg\.wasm 304$/.test(r)), 'the install revalidated the lexical module');
  assert.equal(sent.filter((p) => p === '/pkg/chsr_scalar_bg.wasm').length, 0, 'the scalar module is never fetched');
  assert.equal(sent.filter((p) => /\.chsr[mv]?$/.test(p)).length, 3, 'the shard, its dense part and the model once each');
  // The cache is complete: the lexical module (the install) and the module the page runs (handed
  // over with its data files), as the page got them.
  const cached = await page.evaluate(async (name) => {
    const cache = await caches.open(name);
    const size = async (f) => {
      const res = await cache.match(new URL(f, document.baseURI).href);
      return res ? (await res.arrayBuffer()).byteLength : 0;
    };
    return { lexical: await size('pkg/chsr_lexical_bg.wasm'), dense: await size('pkg/chsr_bg.wasm'), scalar: await size('pkg/chsr_scalar_bg.wasm') };
  }, `chsr-${build}`);
  assert.ok(cached.lexical > 100_000 && cached.dense > 100_000, `modules cached (${JSON.stringify(cached)})`);
  assert.equal(cached.scalar, 0, 'the module this browser does not run is not saved');
  assert.deepEqual(errors, []);
  await context.close();
});
