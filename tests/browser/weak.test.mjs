// Weak in-scope evidence (the engine's `trace.weak_evidence`): the page and the embed say in plain
// words that nothing in the scope matches well, show widened results labelled, never pad the list,
// and gibberish downloads nothing beyond what is loaded (the manifest's per-shard term filters
// rule the other level's shard out; no vector path, so no model).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, cards, watchErrors } from './harness.mjs';

let server;
let browser;
before(async () => { server = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.stop(); });

/** Opens the page on a query (a fresh context, no service worker) and waits until it settled. */
async function visit(query, { ui } = {}) {
  const context = await browser.newContext({ locale: 'en-GB', serviceWorkers: 'block' });
  const page = await context.newPage();
  const errors = watchErrors(page);
  const files = [];
  page.on('request', (r) => { if (/\.chsr[mvt]?$/.test(r.url())) files.push(r.url()); });
  const q = new URLSearchParams({ q: query, subject: 'physics', level: 'high_school', ...(ui ? { ui } : {}) });
  await page.goto(`${server.url}?${q}`);
  await page.waitForFunction(() => window.__chsrDone > 0 && window.__chsrDone === window.__chsrSeq && !document.body.dataset.pending,
    null, { timeout: 30_000 });
  return { page, context, errors, files };
}

test('an out-of-syllabus question: the status says so, results from College are labelled, no padding', async () => {
  const { page, context, errors, files } = await visit('hall effect');
  assert.match(await page.textContent('#status'), /^Nothing in your scope matches this well: \d+ results from outside it, labelled/);
  assert.ok(await page.$('#status.weak'));
  const list = await cards(page);
  assert.ok(list.length > 0);
  for (const c of list) {
    assert.equal(c.leakage, 'cross_level', c.id);
    assert.match(c.label, /From College: outside your scope/, c.id);
  }
  // The College shard was fetched because its term filter holds the query's terms.
  assert.ok(files.some((f) => /physics--college\.[0-9a-f]+\.chsr$/.test(f)), files.join(', '));
  await page.click('#why-query summary');
  assert.match(await page.textContent('#why-query'), /Evidence in your scope\s*weak: the best result in your scope holds \d+ % of the query’s weight/);
  assert.deepEqual(errors, []);
  await context.close();
});

test('an in-syllabus question is not flagged', async () => {
  const { page, context, errors } = await visit('specific heat');
  assert.doesNotMatch(await page.textContent('#status'), /matches this well/);
  assert.equal(await page.$('#status.weak'), null);
  assert.deepEqual(errors, []);
  await context.close();
});

test('gibberish: no card, no widening banner, and no download beyond the scope\'s own shard', async () => {
  const { page, context, errors, files } = await visit('xqzvbl frobnicatorium');
  assert.match(await page.textContent('#status'), /^No document in your scope \(\d[\d,]* documents\) contains these words/);
  assert.equal(await page.isVisible('#widened'), false);
  assert.equal((await cards(page)).length, 0);
  // Only the high-school shard and the term filters (≈ 40 kB): not the College shard (its term
  // filter rules the query out), not the dense part, not the model.
  assert.equal(files.length, 2, files.join(', '));
  assert.match(files[0], /physics--high-school\.[0-9a-f]+\.chsr$/);
  assert.match(files[1], /\/terms\.[0-9a-f]{16}\.chsrt$/);
  assert.deepEqual(errors, []);
  await context.close();
});

test('in French too', async () => {
  const { page, context, errors } = await visit('hall effect', { ui: 'fr' });
  assert.match(await page.textContent('#status'), /^Rien dans votre programme ne correspond bien à cette question : \d+ résultats hors programme, signalés/);
  assert.deepEqual(errors, []);
  await context.close();
});

test('the embed says it too, and downloads nothing more', async () => {
  const context = await browser.newContext({ locale: 'en-GB' });
  const page = await context.newPage();
  const errors = watchErrors(page);
  const files = [];
  page.on('request', (r) => { if (/\.chsr[mvt]?$/.test(r.url())) files.push(r.url()); });
  await page.goto(`${server.url}embed/`);
  const sel = '#course-search';
  await page.waitForSelector(`${sel}[data-state="ready"]`, { timeout: 30_000 });
  const n = Number(await page.getAttribute(sel, 'data-searches') || 0);
  await page.fill(`${sel} input[type="search"]`, 'xqzvbl frobnicatorium');
  await page.press(`${sel} input[type="search"]`, 'Enter');
  await page.waitForFunction(([s, k]) => Number(document.querySelector(s).dataset.searches || 0) > k && document.querySelector(s).dataset.state !== 'searching'
    && !document.querySelector(s).dataset.pending, [sel, n]);
  // The host's element is in French (lang="fr").
  assert.match(await page.textContent(`${sel} >> .status`), /Aucun document de votre programme .* ne contient ces mots/);
  // The course's shard, and the term filters the engine asked for to know whether the lock kept
  // anything out (it did not: no shard holds these words); no other shard, no model.
  assert.equal(files.length, 2, files.join(', '));
  assert.match(files[1], /\/terms\.[0-9a-f]{16}\.chsrt$/);
  // An out-of-syllabus question: the lock keeps College out, and the element says the scope
  // matches weakly (no padding: tests/weak.rs).
  const m = Number(await page.getAttribute(sel, 'data-searches') || 0);
  await page.fill(`${sel} input[type="search"]`, 'hall effect');
  await page.press(`${sel} input[type="search"]`, 'Enter');
  await page.waitForFunction(([s, k]) => Number(document.querySelector(s).dataset.searches || 0) > k && document.querySelector(s).dataset.state !== 'searching'
    && !document.querySelector(s).dataset.pending, [sel, m]);
  assert.match(await page.textContent(`${sel} >> .status`), /^Rien dans le programme de ce cours ne correspond bien à cette question/);
  assert.ok(!files.some((u) => /physics--college\./.test(u)), `nothing outside the lock: ${files.join(', ')}`);
  assert.deepEqual(errors, []);
  await context.close();
});
