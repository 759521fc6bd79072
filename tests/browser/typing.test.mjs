// Search as you type keeps the cards of results already shown (issue 18: keystroke → results
// painted): a kept card is the same DOM node; the list always shows what the engine answered for
// the latest search (order, snippets, ranks, "why"); a kept card's panels behave as a new card's.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, openStudyPage, searchSeq, waitSearch, watchErrors } from './harness.mjs';

let server;
let browser;
before(async () => { server = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.stop(); });

// The cards shown (id, rendered snippet, section panel id) and the same built afresh from the
// engine's latest response, with the page's own renderer.
function shownAndAnswered(page) {
  return page.evaluate(async () => {
    const { snippetNodes } = await import(new URL('render.js', document.baseURI).href);
    const html = (nodes) => { const d = document.createElement('div'); d.append(...nodes); return d.innerHTML; };
    return {
      shown: [...document.querySelectorAll('#results > li.card')].map((c) => ({
        id: c.dataset.id, snippet: c.querySelector('.snippet').innerHTML, panel: c.querySelector('.section-panel').id,
      })),
      answered: window.__chsrLast.results.map((h) => ({ id: h.id, snippet: html(snippetNodes(h.snippet || [])), panel: `r-section-${h.rank}` })),
    };
  });
}

// Types `text` at the end of the box and waits for the search of the whole box to be shown.
async function typeAndWait(page, text) {
  const seq = await searchSeq(page);
  await page.focus('#q');
  await page.keyboard.press('End');
  await page.type('#q', text, { delay: 10 });
  await waitSearch(page, seq, await page.inputValue('#q'));
}

test('typing keeps the cards of results still shown; the list always matches the engine', async () => {
  const { page, errors } = await openStudyPage(browser, `${server.url}?subject=physics&level=high_school`);
  await typeAndWait(page, 'kinetic energ');
  let { shown, answered } = await shownAndAnswered(page);
  assert.ok(shown.length > 1);
  assert.deepEqual(shown, answered);
  // Mark the nodes; open every card's "why", and the first card's section.
  const first = await page.evaluate(() => {
    for (const c of document.querySelectorAll('#results > li.card')) c.__was = c.dataset.id;
    return document.querySelector('#results > li.card').dataset.id;
  });
  for (const s of await page.$$('#results > li.card .why summary')) await s.click();
  const firstSel = `#results > li.card[data-id="${first}"]`;
  assert.match(await page.textContent(`${firstSel} .why`), /Rank#1(?!\d)/);
  await page.click(`${firstSel} button.show-section`);
  await page.waitForSelector(`${firstSel} .section-panel[data-loaded="true"]`);

  await typeAndWait(page, 'y');
  ({ shown, answered } = await shownAndAnswered(page));
  assert.deepEqual(shown, answered, 'the cards are the engine\'s answer to "kinetic energy"');
  const nodes = await page.$$eval('#results > li.card', (l) => l.map((c) => ({
    id: c.dataset.id, was: c.__was, open: c.querySelector(':scope > details.why').open,
    section: c.querySelector('button.show-section').getAttribute('aria-expanded'), loaded: Boolean(c.querySelector('.section-panel').dataset.loaded),
  })));
  const kept = nodes.filter((n) => n.was === n.id);
  assert.ok(kept.length > 0, 'some cards were kept');
  assert.ok(nodes.every((n) => n.was === undefined || n.was === n.id), 'a kept node shows the same chunk');
  // A new search: every panel is closed, as on a new card; opened again, a kept card's panels
  // show this search (its rank now, its section against the results now shown).
  assert.deepEqual(nodes.filter((n) => n.open || n.section !== 'false' || n.loaded), []);
  const k = kept[kept.length - 1];
  const kSel = `#results > li.card[data-id="${k.id}"]`;
  await page.click(`${kSel} .why summary`);
  assert.match(await page.textContent(`${kSel} .why`), new RegExp(`Rank#${nodes.indexOf(k) + 1}(?!\\d)`));
  await page.click(`${kSel} button.show-section`);
  await page.waitForSelector(`${kSel} .section-panel[data-loaded="true"]`);
  const shownIds = new Set(nodes.map((n) => n.id));
  const expanded = await page.$$eval(`${kSel} .section-panel .expanded`, (e) => e.map((x) => x.dataset.id));
  assert.ok(expanded.every((id) => !shownIds.has(id)), 'the section leaves out the results now shown');

  // Another question altogether: every card follows the engine; none keeps another chunk's node.
  await page.fill('#q', '');
  await typeAndWait(page, 'ohm law resistance');
  ({ shown, answered } = await shownAndAnswered(page));
  assert.deepEqual(shown, answered);
  assert.ok(await page.$$eval('#results > li.card', (l) => l.every((c) => c.__was === undefined || c.__was === c.dataset.id)));
  // The query panel shows this search once opened.
  await page.click('#why-query summary');
  assert.match(await page.textContent('#why-query'), /ohm, law, resist/);
  assert.deepEqual(errors, []);
  await page.close();
});

test('the embed keeps its cards too; an open "why" panel stays open and follows the new search', async () => {
  const context = await browser.newContext({ locale: 'en-GB' });
  const page = await context.newPage();
  const errors = watchErrors(page);
  await page.goto(`${server.url}embed/`);
  await page.waitForSelector('#course-search[data-state="ready"]', { timeout: 30_000 });
  const sel = '#course-search';
  await page.evaluate((s) => {
    window.__events = [];
    document.querySelector(s).addEventListener('chsr-results', (e) => window.__events.push(e.detail));
  }, sel);
  // Over once the element shows the search of the whole box (as harness.mjs's waitSearch with a query).
  const settle = (n) => page.waitForFunction(([s, k]) => {
    const e = document.querySelector(s);
    const last = window.__events[window.__events.length - 1];
    return Number(e.dataset.searches || 0) > k && e.dataset.state === 'done' && !e.dataset.pending
      && Boolean(last) && last.query === e.shadowRoot.querySelector('input[type="search"]').value;
  }, [sel, n], { timeout: 30_000 });
  const shown = () => page.$$eval(`${sel} >> li.card`, (l) => l.map((c) => c.dataset.id));
  const lastEvent = () => page.evaluate(() => window.__events[window.__events.length - 1].results.map((h) => h.id));
  let n = Number(await page.getAttribute(sel, 'data-searches') || 0);
  await page.type(`${sel} input[type="search"]`, 'specific hea', { delay: 10 });
  await settle(n);
  assert.deepEqual(await shown(), await lastEvent());
  assert.ok((await shown()).length > 1);
  await page.evaluate((s) => { for (const c of document.querySelector(s).shadowRoot.querySelectorAll('li.card')) c.__was = c.dataset.id; }, sel);
  for (const s of await page.$$(`${sel} >> li.card .why summary`)) await s.click();
  n = Number(await page.getAttribute(sel, 'data-searches') || 0);
  await page.focus(`${sel} input[type="search"]`);
  await page.keyboard.press('End');
  await page.type(`${sel} input[type="search"]`, 't', { delay: 10 });
  assert.equal(await page.inputValue(`${sel} input[type="search"]`), 'specific heat');
  await settle(n);
  assert.deepEqual(await shown(), await lastEvent());
  const cards = await page.evaluate((s) => [...document.querySelector(s).shadowRoot.querySelectorAll('li.card')].map((c) => ({
    id: c.dataset.id, was: c.__was, open: c.querySelector(':scope > details.why').open, why: c.querySelector(':scope > details.why').textContent,
  })), sel);
  assert.ok(cards.every((c) => c.was === undefined || c.was === c.id), 'a kept node shows the same chunk');
  const kept = cards.filter((c) => c.was === c.id);
  assert.ok(kept.length > 0, 'some cards were kept');
  // The embed keeps open "why" panels open (as it did when it rebuilt its cards); they show this search.
  for (const c of kept) {
    assert.equal(c.open, true, `${c.id}: open "why" stays open`);
    assert.match(c.why, new RegExp(`Rang#${cards.indexOf(c) + 1}(?!\\d)`));
  }
  assert.deepEqual(errors, []);
  await context.close();
});

// After the first result the page downloads the rest of the scope's postings and text in the
// background (so that typing never waits for a download). A keystroke's own part must not queue
// behind them: over HTTP/1.1 a browser opens six connections to a host, so the background keeps
// at most four parts in flight and starts none while a search waits for its own.
test('the background download holds at most four parts at once; a search typed meanwhile is answered before it ends', async () => {
  const { page, errors } = await openStudyPage(browser, server.url);
  // Every part takes 40 ms more to arrive, so that the background lasts seconds (physics high
  // school: about 370 parts).
  await page.route(/\.chsr[ix]$/, async (route) => { await new Promise((ok) => setTimeout(ok, 40)); await route.continue(); });
  let inFlight = 0;
  let most = 0;
  let watching = false;
  const isPart = (r) => /\.chsr[ix]$/.test(r.url());
  page.on('request', (r) => { if (isPart(r)) { inFlight++; if (watching) most = Math.max(most, inFlight); } });
  const done = (r) => { if (isPart(r)) inFlight--; };
  page.on('requestfinished', done);
  page.on('requestfailed', done);
  let seq = await searchSeq(page);
  await page.goto(`${server.url}?q=${encodeURIComponent('specific heat')}&subject=physics&level=high_school`);
  await waitSearch(page, seq);
  // The background, alone.
  watching = true;
  await page.waitForTimeout(400);
  watching = false;
  assert.ok(most > 0 && most <= 4, `${most} parts in flight at once in the background`);
  assert.equal(await page.evaluate(() => window.__chsrTextReadyAt), undefined, 'the background still downloads');
  // A new question typed now needs postings parts of its own: answered while the background
  // still downloads.
  seq = await searchSeq(page);
  await page.fill('#q', 'momentum conservation collision');
  await waitSearch(page, seq, 'momentum conservation collision');
  assert.ok((await page.$$('#results > li.card')).length > 0);
  assert.equal(await page.evaluate(() => window.__chsrTextReadyAt), undefined, 'answered before the background ended');
  // And the background still completes.
  await page.waitForFunction(() => window.__chsrTextReadyAt, null, { timeout: 60_000 });
  assert.deepEqual(errors, []);
  await page.close();
});
