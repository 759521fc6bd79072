// Scope picking, facet counts, the URL round trip (shareable links, back/forward), search as you
// type, and unknown scope values in a link.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, openStudyPage, search, searchSeq, waitSearch, cards, watchErrors } from './harness.mjs';

let server;
let browser;
before(async () => { server = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.stop(); });

const optionTexts = (page, id) => page.$$eval(`#${id} option`, (o) => o.map((x) => x.textContent));

test('pickers show facet counts from the manifest and narrow with the subject', async () => {
  const { page, errors } = await openStudyPage(browser, server.url);
  const subjects = await optionTexts(page, 'subject');
  assert.ok(subjects.some((s) => /^Physics \(9,263\)$/.test(s)), subjects.join(' | '));
  await page.selectOption('#subject', 'physics');
  const levels = await optionTexts(page, 'level');
  assert.deepEqual(levels.slice(1).sort(), ['College (7,089)', 'High school (2,174)']);
  await page.selectOption('#level', 'high_school');
  const chapters = await optionTexts(page, 'chapter');
  assert.ok(chapters.includes('Chapter 2 (92)'), chapters.join(' | '));
  // NSI-only facets (paper) are hidden for physics.
  assert.equal(await page.isVisible('#paper'), false);
  assert.deepEqual(errors, []);
  await page.close();
});

test('the scope and query go into the URL; a shared link restores them; back and forward work', async () => {
  const { page, errors } = await openStudyPage(browser, server.url);
  const first = await search(page, 'specific heat', { subject: 'physics', level: 'high_school' });
  assert.ok(first.length > 0);
  let url = new URL(page.url());
  assert.equal(url.searchParams.get('q'), 'specific heat');
  assert.equal(url.searchParams.get('subject'), 'physics');
  assert.equal(url.searchParams.get('level'), 'high_school');

  // Narrow to a chapter: a new history entry.
  let seq = await searchSeq(page);
  await page.selectOption('#chapter', '14');
  await waitSearch(page, seq);
  const narrowed = await cards(page);
  url = new URL(page.url());
  assert.equal(url.searchParams.get('chapter'), '14');
  // In-scope cards are from chapter 14; any other card was added by widening (another chapter
  // matches much better) and says so.
  assert.ok(narrowed.length > 0);
  assert.ok(narrowed.filter((c) => c.inScope).every((c) => c.text.includes('Chapter 14')), 'every in-scope card is from chapter 14');
  assert.ok(narrowed.filter((c) => !c.inScope).every((c) => c.leakage === 'cross_topic' && c.label), 'widened cards are labelled');

  // The same link in a fresh page gives the same pickers and the same results.
  const shared = await openStudyPage(browser, page.url());
  await shared.page.waitForFunction(() => window.__chsrDone > 0 && window.__chsrDone === window.__chsrSeq && !document.body.dataset.pending);
  assert.equal(await shared.page.inputValue('#q'), 'specific heat');
  assert.equal(await shared.page.inputValue('#subject'), 'physics');
  assert.equal(await shared.page.inputValue('#level'), 'high_school');
  assert.equal(await shared.page.inputValue('#chapter'), '14');
  assert.deepEqual((await cards(shared.page)).map((c) => c.id), narrowed.map((c) => c.id));
  await shared.page.close();

  // Back: the chapter is gone again, results as before; forward: back to chapter 14.
  seq = await searchSeq(page);
  await page.goBack();
  await waitSearch(page, seq);
  assert.equal(await page.inputValue('#chapter'), '');
  assert.deepEqual((await cards(page)).map((c) => c.id), first.map((c) => c.id));
  seq = await searchSeq(page);
  await page.goForward();
  await waitSearch(page, seq);
  assert.equal(await page.inputValue('#chapter'), '14');
  assert.deepEqual((await cards(page)).map((c) => c.id), narrowed.map((c) => c.id));
  assert.deepEqual(errors, []);
  await page.close();
});

test('search as you type: while the shards download the page waits for a pause; once they are in, every keystroke searches', async () => {
  // The shard is held until the typing is over (whatever the page starts downloading on its own
  // when idle): the page cannot search yet, so it waits for a pause instead of one search per key.
  const context = await browser.newContext();
  const page = await context.newPage();
  const errors = watchErrors(page);
  let release;
  const held = new Promise((r) => { release = r; });
  await page.route('**/*.chsr', async (route) => { await held; await route.continue(); });
  await page.goto(`${server.url}?subject=physics&level=high_school`);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 30_000 });
  const seq = await searchSeq(page);
  await page.type('#q', 'kinetic energy', { delay: 20 });
  release();
  await waitSearch(page, seq, 'kinetic energy');
  assert.ok((await searchSeq(page)) - seq <= 2, `searches started: ${(await searchSeq(page)) - seq}`);
  const list = await cards(page);
  assert.ok(list.length > 0);
  assert.ok(list.every((c) => c.subject === 'physics' && c.level === 'high_school'));
  assert.equal(new URL(page.url()).searchParams.get('q'), 'kinetic energy');
  // Warm: each keystroke searches, and what is shown is the answer to the last one.
  await page.unroute('**/*.chsr');
  const warm = await searchSeq(page);
  await page.type('#q', ' formula', { delay: 40 });
  await page.waitForFunction((n) => window.__chsrSeq >= n && window.__chsrDone === window.__chsrSeq, warm + 8);
  // (One more when the vectors land meanwhile and the page upgrades the results.)
  assert.ok((await searchSeq(page)) - warm >= 8, `one search per key: ${(await searchSeq(page)) - warm}`);
  const after = await cards(page);
  assert.ok(after.length > 0);
  await page.waitForFunction(() => new URL(window.location.href).searchParams.get('q') === 'kinetic energy formula');
  assert.deepEqual(errors, []);
  await context.close();
});

test('a link with an unknown subject says so and keeps the rest of the scope', async () => {
  const { page } = await openStudyPage(browser, `${server.url}?subject=biology&level=high_school&q=cell`);
  await page.waitForFunction(() => window.__chsrDone > 0 && window.__chsrDone === window.__chsrSeq && !document.body.dataset.pending);
  // The notice stays with the results of the rest of the scope.
  assert.ok((await cards(page)).every((c) => c.level === 'high_school'));
  const alert = await page.textContent('#scope-notice');
  assert.match(alert, /subject “biology”, which this library does not have/);
  assert.match(alert, /Physics/);
  assert.equal(await page.inputValue('#subject'), '');
  assert.equal(await page.inputValue('#level'), 'high_school');
  await page.close();
});

test('keyboard: "/" focuses the search box, Enter searches, Tab reaches the scope pickers', async () => {
  const { page } = await openStudyPage(browser, `${server.url}?subject=physics&level=high_school`);
  await page.click('h1');
  await page.keyboard.press('/');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'q');
  await page.keyboard.type('momentum');
  const seq = await searchSeq(page);
  await page.keyboard.press('Enter');
  await waitSearch(page, seq);
  assert.ok((await cards(page)).length > 0);
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'go');
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'subject');
  await page.close();
});

test('Enter on an empty box browses the chosen subject; without a subject it does nothing', async () => {
  const { page, errors } = await openStudyPage(browser, server.url);
  let seq = await searchSeq(page);
  await page.press('#q', 'Enter');
  await waitSearch(page, seq);
  assert.equal((await cards(page)).length, 0);
  assert.match(await page.textContent('#status'), /Type words to search your scope/);
  const list = await search(page, '', { subject: 'physics', level: 'high_school', chapter: '3' });
  assert.ok(list.length > 0);
  assert.ok(list.every((c) => c.text.includes('Chapter 3')));
  assert.match(await page.textContent('#status'), /Browsing your scope \(56 documents\)/);
  assert.deepEqual(errors, []);
  await page.close();
});

test('on a 390×844 phone the scope is a one-line summary and the first result starts on the first screen', async () => {
  const phone = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, locale: 'en-GB' };
  const { page, errors } = await openStudyPage(browser, `${server.url}?subject=physics&level=high_school`, phone);
  // Closed: one line saying the scope, no picker on the screen.
  assert.equal(await page.$eval('#scope-panel', (d) => d.open), false);
  assert.equal(await page.textContent('#scope-panel > summary'), 'Your scope: Physics · High school');
  assert.ok((await page.$eval('#scope-panel > summary', (s) => s.getBoundingClientRect().height)) < 60, 'the summary is one line');
  assert.equal(await page.isVisible('#subject'), false);
  const top = () => page.$eval('#results > li.card', (c) => c.getBoundingClientRect().top + window.scrollY);
  await page.fill('#q', 'specific heat');
  let seq = await searchSeq(page);
  await page.press('#q', 'Enter');
  await waitSearch(page, seq);
  assert.ok((await cards(page)).length > 0);
  const first = await top();
  assert.ok(first < 844, `the first result starts at ${first} px, below the first screen`);
  // With the panel open it started near 600 px: now in the upper part of the screen, with room
  // for its title and snippet.
  assert.ok(first < 0.6 * 844, `the first result starts at ${first} px`);
  // The summary opens the pickers; a search submitted from there closes it again.
  await page.click('#scope-panel > summary');
  assert.equal(await page.isVisible('#subject'), true);
  seq = await searchSeq(page);
  await page.selectOption('#chapter', '11');
  await waitSearch(page, seq);
  assert.equal(await page.textContent('#scope-panel > summary'), 'Your scope: Physics · High school · Chapter 11');
  seq = await searchSeq(page);
  await page.click('#go');
  await waitSearch(page, seq);
  assert.equal(await page.$eval('#scope-panel', (d) => d.open), false);
  assert.ok((await top()) < 844, `after picking a chapter the first result starts at ${await top()} px`);
  // On a wide screen the panel is open with no summary line, as before.
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.waitForFunction(() => document.querySelector('#scope-panel').open);
  assert.equal(await page.isVisible('#scope-panel > summary'), false);
  assert.equal(await page.isVisible('#subject'), true);
  assert.deepEqual(errors, []);
  await page.close();
});
