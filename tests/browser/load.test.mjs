// What the page downloads before its first result, and what it loads after: the first search runs
// on the keyword path while the embedding model is not there; the model is requested only once
// the results are on screen, and when it lands the same search runs again (hybrid) in place.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, cards, watchErrors } from './harness.mjs';

let server;
let browser;
before(async () => { server = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.stop(); });

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
  await page.goto(`${server.url}?q=specific+heat&subject=physics&level=high_school`);
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
