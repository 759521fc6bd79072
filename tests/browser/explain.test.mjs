// Widened results are labelled in words and look different; the "why" panels (per result and per
// query) are hidden by default and hold the ranks, scores, gate plan and relaxation trace; section
// expansion and copying as context for an assistant.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, openStudyPage, search, cards } from './harness.mjs';

let server;
let browser;
before(async () => { server = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.stop(); });

test('W1: a chapter with nothing to offer is dropped, and every widened card says so in words', async () => {
  const { page, errors } = await openStudyPage(browser, server.url);
  // The high-school book has answers for a few chapters only, none for chapter 3.
  const list = await search(page, 'force', { subject: 'physics', level: 'high_school', doc_type: 'solution', chapter: '3' });
  assert.ok(list.length > 0);
  for (const c of list) {
    assert.equal(c.leakage, 'cross_topic', c.id);
    assert.equal(c.inScope, false, c.id);
    assert.match(c.label, /From another part of the course \(chapter \d+\): outside your scope/, c.id);
    assert.equal(c.subject, 'physics');
    assert.equal(c.level, 'high_school');
    assert.match(c.text, /Answer \/ mark scheme/, 'the document type is kept');
  }
  assert.match(await page.textContent('#widened'), /the search was widened \(dropped chapter\)/);
  assert.match(await page.textContent('#status'), /Your scope holds no document: \d+ results from a wider search/);
  // Visually distinct: a widened card is not styled like an in-scope one.
  const border = await page.$eval('#results > li.card.widened', (e) => getComputedStyle(e).borderStyle);
  assert.equal(border, 'dashed');
  assert.deepEqual(errors, []);
  await page.close();
});

test('W2: with nothing at the chosen level, results from another level are labelled with that level', async () => {
  const { page, errors } = await openStudyPage(browser, server.url);
  const list = await search(page, 'bremsstrahlung', { subject: 'physics', level: 'high_school' });
  assert.ok(list.length > 0);
  for (const c of list) {
    assert.equal(c.leakage, 'cross_level', c.id);
    assert.equal(c.level, 'college', c.id);
    assert.match(c.label, /From College: outside your scope/);
  }
  await page.click('#why-query summary');
  const why = await page.textContent('#why-query');
  assert.match(why, /(nothing at your level matches|another level matches much better), so widening was tried/);
  assert.match(why, /W1: skipped \(the scope has no topic, chapter or section to drop\)/);
  assert.match(why, /W2: dropped level, searched Physics: \d+ new results/);
  assert.deepEqual(errors, []);
  await page.close();
});

test('why panels: hidden by default, one click away, with ranks, scores, plan and trace', async () => {
  const { page, errors } = await openStudyPage(browser, server.url);
  await search(page, 'specific heat', { subject: 'physics', level: 'high_school' });
  // Hidden by default.
  assert.equal(await page.isVisible('#why-query .why-list'), false);
  assert.equal(await page.isVisible('#results > li.card:first-child .why .why-list'), false);
  // Per query.
  await page.click('#why-query summary');
  assert.equal(await page.isVisible('#why-query .why-list'), true);
  const q = await page.textContent('#why-query');
  assert.match(q, /variant F, scope applied: before ranking \(gate\)/);
  assert.match(q, /physics--high-school\.[0-9a-f]{16}\.chsr/);
  assert.match(q, /2,174 of 2,174/);
  assert.match(q, /Vector search plan\s*not run \(keywords only: the meaning search is not switched on here\)/);
  assert.match(q, /not needed: your scope matches this well/);
  assert.match(q, /specif, heat/);
  // Per result.
  const first = '#results > li.card:first-child';
  await page.click(`${first} .why summary`);
  const r = await page.textContent(`${first} .why`);
  assert.match(r, /Keyword rank \(BM25\)#\d+/);
  assert.match(r, /Meaning rank \(vector search\)not used: keywords only/);
  assert.match(r, /Fused score \(reciprocal rank fusion\)0\.\d{4}/);
  assert.match(r, /Rerank adjustments/);
  assert.match(r, /Final score0\.\d{4}/);
  assert.match(r, /inside your scope/);
  // Adjustments are listed with their sign and reason somewhere in the list.
  const adjustments = await page.$$eval('#results .why', (d) => d.map((x) => x.textContent).join('\n'));
  assert.match(adjustments, /\+0\.\d{4} · same section as the top result/);
  assert.deepEqual(errors, []);
  await page.close();
});

test('"Show the whole section" adds the rest of the section as text; keyboard operable', async () => {
  const { page, errors } = await openStudyPage(browser, server.url);
  const list = await search(page, 'specific heat', { subject: 'physics', level: 'high_school' });
  // The section comes from the engine's `section` for the result shown: no second search (the
  // page's own count of finished searches does not move; the bundled page's engine object is
  // not reachable from here: tests/text_parts.rs counts the engine's calls).
  const searches = await page.evaluate(() => window.__chsrSearches);
  const first = '#results > li.card:first-child';
  const button = `${first} button.show-section`;
  assert.equal(await page.getAttribute(button, 'aria-expanded'), 'false');
  await page.focus(button);
  await page.keyboard.press('Enter');
  await page.waitForSelector(`${first} .section-panel[data-loaded="true"]`);
  assert.equal(await page.getAttribute(button, 'aria-expanded'), 'true');
  const panel = await page.textContent(`${first} .section-panel`);
  assert.match(panel, /The whole passage and the rest of its section/);
  assert.match(panel, /more passages from this section|No other passage of this section/);
  const expandedIds = await page.$$eval(`${first} .section-panel .expanded`, (e) => e.map((x) => x.dataset.id));
  const shown = new Set(list.map((c) => c.id));
  assert.ok(expandedIds.every((id) => !shown.has(id)), 'passages already in the results are not repeated');
  assert.equal(await page.evaluate(() => window.__chsrSearches), searches, 'no search ran for the section');
  await page.keyboard.press('Enter');
  assert.equal(await page.isVisible(`${first} .section-panel`), false);
  assert.deepEqual(errors, []);
  await page.close();
});

test('copy as context: [DOCUMENT N] packaging to the clipboard, or shown for manual copy', async () => {
  const { page, context, errors } = await openStudyPage(browser, server.url);
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
  const list = await search(page, 'specific heat', { subject: 'physics', level: 'high_school' });
  const searches = await page.evaluate(() => window.__chsrSearches);
  await page.click('#copy-context');
  await page.waitForFunction(() => document.getElementById('copy-status').textContent.length > 0);
  assert.match(await page.textContent('#copy-status'), new RegExp(`Copied ${list.length} documents`));
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  assert.ok(copied.startsWith('[DOCUMENT 1]\nid: '), copied.slice(0, 80));
  assert.ok(copied.includes(`[/DOCUMENT ${list.length}]`));
  assert.ok(copied.includes(`id: ${list[0].id}\n`));
  assert.equal(await page.evaluate(() => window.__chsrSearches), searches, 'the context is of the results shown: no search');
  // A browser that refuses the clipboard: the text is shown, selected, for Ctrl+C.
  await page.evaluate(() => { navigator.clipboard.writeText = () => Promise.reject(new Error('denied')); });
  await page.click('#copy-context');
  await page.waitForSelector('#copy-fallback:not([hidden])');
  assert.ok((await page.inputValue('#copy-text')).startsWith('[DOCUMENT 1]'));
  assert.equal(await page.evaluate(() => document.activeElement.id), 'copy-text');
  assert.deepEqual(errors, []);
  await page.close();
});
