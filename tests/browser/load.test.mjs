// What the page downloads before its first result, and what it loads after. By default the search
// is keywords only (the engine's default: the vectors add no measured ranking gain), so neither
// the model nor a shard's vectors are ever fetched. With `?dense=1` the first search runs on the
// keyword path while the embedding model is not there; the model is requested only once the
// results are on screen, and when it lands the same search runs again (hybrid) in place.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { serve, launch, cards, copySite, watchErrors, searchSeq, waitSearch, ROOT } from './harness.mjs';
import { siteHandler } from '../../scripts/serve.mjs';

let server;
let browser;
const dirs = [];
const servers = [];
before(async () => { server = await serve(); browser = await launch(); });
/** A served copy of the site for one test (removed after the file's tests). */
async function ownCopy() {
  const dir = copySite();
  dirs.push(dir);
  const own = await serve(dir);
  servers.push(own);
  return { dir, own };
}
after(async () => {
  await browser?.close();
  await server?.stop();
  for (const s of servers) await s.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

test('by default the page searches by keywords and never downloads the model or the vectors', async () => {
  const context = await browser.newContext({ locale: 'en-GB', serviceWorkers: 'block' });
  const page = await context.newPage();
  const errors = watchErrors(page);
  const asked = [];
  page.on('request', (r) => { if (/\.chsr[mv]$/.test(new URL(r.url()).pathname)) asked.push(r.url()); });
  await page.goto(`${server.url}?q=specific+heat&subject=physics&level=high_school`);
  await page.waitForFunction(() => window.__chsrDone > 0 && window.__chsrDone === window.__chsrSeq && !document.body.dataset.pending);
  assert.ok((await cards(page)).length > 0, 'keyword results');
  const trace = await page.evaluate(() => window.__chsrLast.trace);
  assert.equal(trace.dense_path, false);
  assert.deepEqual(trace.dense_plans, []);
  assert.equal(await page.isVisible('#model-notice'), false, 'no warning: keywords only is the default, not a failure');
  await page.click('#why-query summary');
  assert.match(await page.textContent('#why-query'), /Vector search plan\s*not run \(keywords only: the meaning search is not switched on here\)/);
  // Another search: still nothing of the dense path.
  await page.fill('#q', 'latent heat of fusion');
  const seq = await searchSeq(page);
  await page.press('#q', 'Enter');
  await waitSearch(page, seq);
  assert.ok((await cards(page)).length > 0);
  assert.deepEqual(asked, [], 'no model or vectors requested');
  assert.equal(new URL(page.url()).searchParams.get('dense'), null);
  assert.deepEqual(errors, []);
  await context.close();
});

test('the first result comes before the model is requested; the results upgrade when it lands', async () => {
  // The service worker is kept out: the test holds the model's request itself.
  const context = await browser.newContext({ locale: 'en-GB', serviceWorkers: 'block' });
  const page = await context.newPage();
  const errors = watchErrors(page);
  let release;
  const gate = new Promise((r) => { release = r; });
  let cardsWhenRequested = null;
  let requested;
  const modelRequested = new Promise((r) => { requested = r; });
  await page.route('**/*.chsrm', async (route) => {
    cardsWhenRequested = await page.evaluate(() => document.querySelectorAll('#results > li.card').length);
    requested();
    await gate;
    await route.continue();
  });
  await page.goto(`${server.url}?q=specific+heat&subject=physics&level=high_school&dense=1`);
  await modelRequested;
  assert.ok(cardsWhenRequested > 0, 'results were on screen before the model was requested');
  // Keyword results, and the panel says the vector path is pending.
  assert.equal(await page.evaluate(() => document.body.dataset.pending), 'dense model');
  const first = await cards(page);
  const lexical = await page.evaluate(() => window.__chsrLast.trace);
  assert.deepEqual(lexical.dense_plans, []);
  assert.ok(lexical.notes.some((n) => /no embedding model/.test(n)), lexical.notes.join(' | '));
  await page.click('#why-query summary');
  assert.match(await page.textContent('#why-query'), /Vector search plan\s*pending: waiting for .*the meaning-search model; the results will be updated once downloaded/);
  // A "why this result" panel opened now stays open through the upgrade.
  await page.click('#results > li.card:first-child .why summary');
  const openId = first[0].id;
  const seq = await page.evaluate(() => window.__chsrSeq);
  const [url, history] = [page.url(), await page.evaluate(() => window.history.length)];

  release();
  await page.waitForFunction((n) => window.__chsrSeq > n && window.__chsrDone === window.__chsrSeq && !document.body.dataset.pending, seq);
  const hybrid = await page.evaluate(() => window.__chsrLast.trace);
  assert.ok(hybrid.dense_plans.length > 0, 'the vector path ran');
  const why = await page.textContent('#why-query');
  assert.match(why, /Vector search plan\s*physics--high-school/);
  assert.match(why, /Updated\s*first shown with keywords only while waiting for .*the meaning-search model, then searched again/);
  assert.equal(await page.isVisible('#why-query .why-list'), true, 'the panel stayed open');
  const after = await cards(page);
  assert.ok(after.length > 0);
  if (after.some((c) => c.id === openId)) {
    assert.equal(await page.$eval(`#results > li.card[data-id="${openId}"] > details.why`, (d) => d.open), true);
  }
  // The upgrade changed neither the URL nor the history.
  assert.equal(page.url(), url);
  assert.equal(await page.evaluate(() => window.history.length), history);
  assert.deepEqual(errors, []);
  await context.close();
});

test('shards and the model are cached as immutable: a second visit downloads only the manifest', async () => {
  // The HTTP cache alone (no service worker): a page opened again in the same browser.
  const context = await browser.newContext({ locale: 'en-GB', serviceWorkers: 'block' });
  const headers = new Map();
  context.on('response', (r) => {
    const path = new URL(r.url()).pathname;
    if (/(\.chsr[mv]?|manifest\.json)$/.test(path)) headers.set(path.replace(/^.*\//, ''), r.headers()['cache-control']);
  });
  const visit = async () => {
    const page = await context.newPage();
    await page.goto(`${server.url}?q=specific+heat&subject=physics&level=high_school&dense=1`);
    await page.waitForFunction(() => window.__chsrDone > 0 && window.__chsrDone === window.__chsrSeq && !document.body.dataset.pending);
    const list = await cards(page);
    assert.ok(list.length > 0);
    await page.close();
    return list;
  };
  const before = server.requests.length;
  const first = await visit();
  const firstGets = server.requests.slice(before);
  // The shard, its dense part, the model.
  assert.equal(firstGets.filter((r) => /\.chsr[mv]? 200$/.test(r)).length, 3, firstGets.join(', '));
  assert.match(headers.get('manifest.json'), /no-cache/);
  for (const [name, cc] of headers) if (name !== 'manifest.json') assert.equal(cc, 'public, max-age=31536000, immutable', name);
  const mid = server.requests.length;
  const second = await visit();
  const secondGets = server.requests.slice(mid);
  assert.deepEqual(secondGets.filter((r) => /\.chsr[mv]? /.test(r)), [], 'no shard, dense part or model request');
  assert.ok(secondGets.some((r) => /^GET \/shards\/manifest\.json (200|304)$/.test(r)), 'the manifest is revalidated');
  assert.deepEqual(second.map((c) => c.id), first.map((c) => c.id));
  await context.close();
});

test('a damaged copy in the HTTP cache is replaced: the retry bypasses the cache', async () => {
  const { dir, own } = await ownCopy();
  const name = readdirSync(join(dir, 'shards')).find((f) => /^physics--high-school\..*\.chsr$/.test(f));
  const good = readFileSync(join(dir, 'shards', name));
  const bad = Buffer.from(good);
  bad[bad.length - 10] ^= 0xff;
  writeFileSync(join(dir, 'shards', name), bad);
  const context = await browser.newContext({ locale: 'en-GB', serviceWorkers: 'block' });
  const url = `${own.url}?q=specific+heat&subject=physics&level=high_school&dense=1`;
  // The server sends a damaged shard (twice): the browser now caches it (immutable).
  let page = await context.newPage();
  await page.goto(url);
  await page.waitForFunction(() => /integrity check twice/.test(document.getElementById('error').textContent));
  // The browser's cache commits a response on its own schedule: wait until the damaged copy is
  // readable from it, so that the next page's first try surely meets it.
  await page.waitForFunction(async (n) => {
    const r = await fetch(`shards/${n}`, { cache: 'only-if-cached', mode: 'same-origin' }).catch(() => null);
    return Boolean(r && r.ok);
  }, name, { polling: 100, timeout: 10_000 });
  await page.close();
  // The server is fixed. The first try takes the cached damaged copy, the retry reloads it.
  writeFileSync(join(dir, 'shards', name), good);
  const mark = own.requests.length;
  page = await context.newPage();
  await page.goto(url);
  await page.waitForFunction(() => window.__chsrDone > 0 && window.__chsrDone === window.__chsrSeq && !document.body.dataset.pending);
  assert.ok((await cards(page)).length > 0);
  assert.equal(await page.isVisible('#error'), false);
  const gets = own.requests.slice(mark).filter((r) => r.includes(name));
  // Two fetches in the page: the cached copy (nothing transferred), then the reload.
  const entries = await page.evaluate((n) => performance.getEntriesByType('resource').filter((e) => e.name.endsWith(n)).map((e) => e.transferSize), name);
  assert.deepEqual(gets, [`GET /shards/${name} 200`], `one download, the retry (transfer sizes in the page: ${entries})`);
  assert.equal(entries.length, 2, `transfer sizes: ${entries}; server: ${gets}`);
  assert.equal(entries[0], 0, 'the first try came from the HTTP cache');
  assert.ok(entries[1] > 0, 'the retry went to the server');
  await context.close();
});

test('compressed responses (brotli, gzip) pass the byte-count and integrity checks', async () => {
  for (const encoding of ['br', 'gzip']) {
    const context = await browser.newContext({ locale: 'en-GB', serviceWorkers: 'block', extraHTTPHeaders: { 'accept-encoding': encoding } });
    const page = await context.newPage();
    const errors = watchErrors(page);
    const seen = new Map();
    page.on('response', async (r) => {
      if (/\.(chsr[mv]?|wasm)$/.test(r.url())) seen.set(new URL(r.url()).pathname.replace(/^.*\//, ''), { enc: r.headers()['content-encoding'], length: Number(r.headers()['content-length']) });
    });
    await page.goto(`${server.url}?q=specific+heat&subject=physics&level=high_school&dense=1`);
    await page.waitForFunction(() => window.__chsrDone > 0 && window.__chsrDone === window.__chsrSeq && !document.body.dataset.pending);
    assert.ok((await cards(page)).length > 0);
    assert.equal(await page.isVisible('#error'), false);
    assert.equal(await page.isVisible('#model-notice'), false);
    assert.ok((await page.evaluate(() => window.__chsrLast.trace.dense_plans.length)) > 0, 'the model loaded');
    const manifest = await page.evaluate(() => fetch('shards/manifest.json').then((r) => r.json()));
    const shard = manifest.shards.find((s) => s.subject === 'physics' && s.level === 'high_school');
    for (const entry of [shard, shard.dense, manifest.model]) {
      const got = seen.get(entry.file);
      assert.ok(got, entry.file);
      assert.equal(got.enc, encoding, `${entry.file} sent ${encoding}-encoded`);
      assert.ok(got.length < entry.bytes, `${entry.file}: ${got.length} bytes on the wire for ${entry.bytes}`);
    }
    assert.equal(seen.get('chsr_bg.wasm').enc, encoding);
    assert.deepEqual(errors, []);
    await context.close();
  }
});

test('the server never sends a stale compressed copy', async () => {
  const { dir, own } = await ownCopy();
  writeFileSync(join(dir, 'style.css'), `${readFileSync(join(dir, 'style.css'), 'utf8')}\n/* changed after the build */\n`);
  for (const encoding of ['br', 'gzip']) {
    const res = await fetch(`${own.url}style.css`, { headers: { 'accept-encoding': encoding } });
    // The stale copy is skipped: gzip made on the fly, or the file as it is.
    assert.equal(res.headers.get('content-encoding'), encoding === 'gzip' ? 'gzip' : null);
    assert.equal(await res.text(), readFileSync(join(dir, 'style.css'), 'utf8'));
  }
  const res = await fetch(`${own.url}app.js`, { headers: { 'accept-encoding': 'br' } });
  assert.equal(res.headers.get('content-encoding'), 'br', 'a fresh copy is used');
  assert.equal(await res.text(), readFileSync(join(dir, 'app.js'), 'utf8'));
});

test('files are hashed with WebCrypto when it is there, and by the module when it is not; parts by the module', async () => {
  for (const webCrypto of [true, false]) {
    const context = await browser.newContext({ locale: 'en-GB', serviceWorkers: 'block' });
    await context.addInitScript((keep) => {
      window.__digests = 0;
      // Every file counted below: more than the 250 resource entries a page keeps by default.
      performance.setResourceTimingBufferSize(100_000);
      if (!keep) {
        Object.defineProperty(window.crypto, 'subtle', { get: () => undefined });
        return;
      }
      const digest = window.crypto.subtle.digest.bind(window.crypto.subtle);
      window.crypto.subtle.digest = (...args) => { window.__digests += 1; return digest(...args); };
    }, webCrypto);
    const page = await context.newPage();
    const errors = watchErrors(page);
    await page.goto(`${server.url}?q=specific+heat&subject=physics&level=high_school&dense=1`);
    await page.waitForFunction(() => window.__chsrDone > 0 && window.__chsrDone === window.__chsrSeq && !document.body.dataset.pending);
    assert.ok((await cards(page)).length > 0);
    assert.ok((await page.evaluate(() => window.__chsrLast.trace.dense_plans.length)) > 0, 'hybrid after the upgrade');
    // The shard, its dense part, its part list and the model: one digest each with WebCrypto,
    // none without. The postings parts and the text parts (the query's and the results', then
    // the rest of the collection's, in the background) none either way: the module checks each
    // against its part list's Merkle roots, hashing it itself (format v12).
    await page.waitForFunction(() => window.__chsrTextReadyAt);
    const texts = await page.evaluate(() => performance.getEntriesByType('resource').filter((e) => e.name.endsWith('.chsrx')).length);
    const postings = await page.evaluate(() => performance.getEntriesByType('resource').filter((e) => e.name.endsWith('.chsri')).length);
    assert.ok(texts > 0, 'the results\' text parts were fetched');
    assert.ok(postings > 0, 'the query\'s postings parts were fetched');
    assert.equal(await page.evaluate(() => window.__digests), webCrypto ? 4 : 0);
    assert.deepEqual(errors, []);
    await context.close();
  }
});

test('over HTTP/1.1 files beyond six in flight are asked without cookies (six more connections); a host that wants its cookies gets them', async () => {
  // The site as scripts/serve.mjs serves it (HTTP/1.1), in a server that notes whether each
  // request of a content-hashed file came with the page's cookie and, as an LMS behind a login
  // would, refuses those without it when `login` is set.
  let login = false;
  const seen = []; // {file, cookie, status}
  const handler = siteHandler(join(ROOT, 'www'));
  const own = createServer((req, res) => {
    const path = new URL(req.url, 'http://localhost').pathname;
    if (/\.[0-9a-f]{16}\.chsr[a-z]?$/.test(path)) {
      const cookie = /(^|;\s*)session=s1(;|$)/.test(req.headers.cookie || '');
      const refused = login && !cookie;
      seen.push({ file: path, cookie, status: refused ? 403 : 200 });
      if (refused) { res.writeHead(403).end(); return; }
    }
    handler(req, res, path).catch((e) => res.writeHead(500).end(String(e)));
  });
  await new Promise((ok) => own.listen(0, '127.0.0.1', ok));
  const origin = `http://127.0.0.1:${own.address().port}`;
  const visit = async (query) => {
    // No service worker: the page's own requests, each reaching the server.
    const context = await browser.newContext({ locale: 'en-GB', serviceWorkers: 'block' });
    await context.addCookies([{ name: 'session', value: 's1', url: origin }]);
    const page = await context.newPage();
    const errors = watchErrors(page);
    await page.goto(`${origin}/?${new URLSearchParams({ q: query, subject: 'physics', level: 'high_school' })}`);
    await page.waitForFunction(() => window.__chsrDone > 0 && window.__chsrDone === window.__chsrSeq && !document.body.dataset.pending);
    return { context, page, errors, ids: (await cards(page)).map((c) => c.id) };
  };
  // A pasted question: its shard, part list and a dozen postings parts asked at once.
  const LONG = 'A kettle heats 1.5 kg of water from 20 degrees to boiling: find the energy, the power of the '
    + 'element, the specific heat capacity, the latent heat of vaporisation, the efficiency and the current';
  try {
    const open = await visit(LONG);
    assert.ok(open.ids.length > 0, 'results');
    // The second lane opens only once six downloads are in flight with cookies: never for the
    // shard and its part list (asked alone, two at once), then for postings parts past six.
    // (Which of the six and the rest reaches the server first is the connections' race.)
    const withCookie = seen.filter((r) => r.cookie).length;
    assert.ok(seen.length > 2 && seen[0].cookie && seen[1].cookie, `shard and part list with cookies: ${JSON.stringify(seen)}`);
    assert.ok(withCookie >= 6 && withCookie < seen.length, `six with cookies, then some without: ${JSON.stringify(seen)}`);
    assert.deepEqual(open.errors, []);
    await open.context.close();

    login = true;
    seen.length = 0;
    const locked = await visit(LONG);
    assert.deepEqual(locked.ids, open.ids, 'the same results when the host wants its cookies');
    const refused = seen.filter((r) => r.status === 403);
    assert.ok(refused.length > 0, 'a request without cookies was refused');
    for (const r of refused) assert.ok(seen.some((x) => x.file === r.file && x.cookie), `${r.file} asked again with its cookies`);
    // The second lane is closed for this host: a new search's files all go with cookies.
    const mark = seen.length;
    await locked.page.fill('#q', 'electromagnetic induction in a transformer coil');
    const seq = await searchSeq(locked.page);
    await locked.page.press('#q', 'Enter');
    await waitSearch(locked.page, seq);
    assert.ok((await cards(locked.page)).length > 0);
    const later = seen.slice(mark);
    assert.ok(later.length > 0, 'the new search downloads files');
    assert.deepEqual(later.filter((r) => !r.cookie), [], 'no request without cookies after a refusal');
    await locked.context.close();
  } finally {
    await new Promise((ok) => own.close(ok));
  }
});
