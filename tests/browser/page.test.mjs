// The study page in real headless Chromium: scoped search answers from the right shard only.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, openStudyPage, search, searchSeq, waitSearch } from './harness.mjs';

let server;
let browser;
before(async () => { server = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); server?.stop(); });

test('chemistry/college: "specific heat" answers from Chemistry 2e only', async () => {
  const { page, errors } = await openStudyPage(browser, server.url);
  const cards = await search(page, 'specific heat', { subject: 'chemistry', level: 'college' });
  assert.ok(cards.length >= 5, `expected results, got ${cards.length}`);
  for (const c of cards) {
    assert.equal(c.subject, 'chemistry', c.id);
    assert.equal(c.level, 'college', c.id);
    assert.ok(c.id.startsWith('chem2e:'), c.id);
  }
  const marks = await page.$$eval('#results mark', (m) => m.map((x) => x.textContent.toLowerCase()));
  assert.ok(marks.some((m) => m.includes('specific heat')), `highlights: ${marks.slice(0, 5)}`);
  assert.deepEqual(errors, []);
  await page.close();
});

test('physics/high_school: no chemistry comes through', async () => {
  const { page, errors } = await openStudyPage(browser, server.url);
  await search(page, 'specific heat', { subject: 'chemistry', level: 'college' });
  const cards = await search(page, 'specific heat', { subject: 'physics', level: 'high_school' });
  assert.ok(cards.length >= 5);
  for (const c of cards) {
    assert.equal(c.subject, 'physics', c.id);
    assert.equal(c.level, 'high_school', c.id);
    assert.ok(c.id.startsWith('phys-hs:'), c.id);
  }
  assert.deepEqual(errors, []);
  await page.close();
});

test('only the shard of the scope is downloaded', async () => {
  const { page } = await openStudyPage(browser, server.url);
  const shardRequests = [];
  page.on('request', (r) => { if (r.url().endsWith('.chsr')) shardRequests.push(r.url()); });
  await search(page, 'specific heat', { subject: 'physics', level: 'high_school' });
  assert.equal(shardRequests.length, 1, shardRequests.join(', '));
  assert.match(shardRequests[0], /physics--high-school\.[0-9a-f]{16}\.chsr$/);
  await page.close();
});

test('before the first result, of the shard\'s index and text only its part list, the postings of the query\'s terms and the text holding the results (and their sections) are downloaded; the rest follows, each part once', async () => {
  const { page } = await openStudyPage(browser, server.url);
  const texts = [];
  const postings = [];
  const lists = [];
  page.on('request', (r) => {
    if (r.url().endsWith('.chsrx')) texts.push({ url: r.url() });
    if (r.url().endsWith('.chsri')) postings.push({ url: r.url() });
    if (r.url().endsWith('.chsrl')) lists.push(r.url());
  });
  const cards = await search(page, 'specific heat', { subject: 'physics', level: 'high_school' });
  assert.ok(cards.length > 0);
  const firstAt = await page.evaluate(() => window.__chsrFirstResultAt);
  const manifest = await page.evaluate(async () => (await fetch('shards/manifest.json')).json());
  const shard = manifest.shards.find((s) => s.subject === 'physics' && s.level === 'high_school');
  // The manifest names the shard's part list only; the list names the parts.
  assert.equal(shard.text, undefined);
  assert.deepEqual(lists.map((u) => u.replace(/^.*\//, '')), [shard.part_list.file], 'the scope\'s part list, once');
  const list = await page.evaluate(async (f) => (await fetch(`shards/${f}`)).json(), shard.part_list.file);
  assert.equal(list.shard_sha256, shard.sha256);
  assert.equal(list.text.bytes.length, shard.part_list.text_parts);
  assert.equal(list.postings.bytes.length, shard.part_list.postings_parts);
  assert.ok(list.postings.bytes.length > 1, 'the collection\'s postings are in parts');
  // Part i, counting the text parts first, is <stem>.<i>.<key>.chsrx or .chsri (format v14).
  const named = (n, from, ext) => Array.from({ length: n }, (_, i) => `${list.stem}.${from + i}.${list.key}.${ext}`);
  const index = new Set(named(list.postings.bytes.length, list.text.bytes.length, 'chsri'));
  // What the page asked for before its first result, by the page's own clock (resource timing).
  const askedBefore = (ext) => page.evaluate(([e, at]) => performance.getEntriesByType('resource')
    .filter((r) => r.name.endsWith(e) && performance.timeOrigin + r.startTime <= at).map((r) => r.name), [ext, firstAt]);
  const postingsBefore = (await askedBefore('.chsri')).map((u) => u.replace(/^.*\//, ''));
  assert.ok(postingsBefore.length > 0 && postingsBefore.length < index.size, `${postingsBefore.length} of ${index.size} postings parts`);
  assert.ok(postingsBefore.every((f) => index.has(f)));
  const parts = new Set(named(list.text.bytes.length, 0, 'chsrx'));
  const before = await askedBefore('.chsrx');
  assert.ok(before.length > 0 && before.length <= 12, `${before.length} of ${parts.size} text parts: ${before.join(', ')}`);
  // Then, in the background, the rest of the collection's text: every part, each once.
  await page.waitForFunction(() => window.__chsrTextReadyAt);
  const all = texts.map((t) => t.url.replace(/^.*\//, ''));
  assert.ok(all.every((f) => parts.has(f)), 'only the scope\'s own text parts');
  assert.equal(new Set(all).size, all.length, 'each part once');
  assert.equal(all.length, parts.size);
  const allPostings = postings.map((t) => t.url.replace(/^.*\//, ''));
  assert.equal(new Set(allPostings).size, allPostings.length, 'each postings part once');
  assert.deepEqual(new Set(allPostings), index, 'then every postings part of the collection');
  // Every card shows its snippet (the text arrived before the results were painted).
  const empty = await page.$$eval('.card', (els) => els.filter((e) => !e.querySelector('.snippet') || !e.querySelector('.snippet').textContent.trim()).length);
  assert.equal(empty, 0);
  await page.close();
});

test('an empty gate is explained in words', async () => {
  const { page } = await openStudyPage(browser, server.url);
  const cards = await search(page, 'zzzyyqqq', { subject: 'chemistry', level: 'college' });
  assert.equal(cards.length, 0);
  const status = await page.textContent('#status');
  assert.match(status, /No document in your scope/);
  await page.close();
});

// A pasted question is kept up to what the engine reads (16 KiB of UTF-8, src/analysis.rs), not
// cut at an arbitrary length; longer, it is cut in the box and a notice says so.
test('a long pasted question is kept up to the engine limit; a longer one is cut with a notice', async () => {
  const { page, errors } = await openStudyPage(browser, `${server.url}?subject=physics&level=high_school`, { locale: 'en-GB' });
  const words = 'the heat needed to warm water depends on its mass and on the temperature change ';
  const long = `${words.repeat(40).slice(0, 2990)} calorimeter`;
  assert.equal(long.length, 3002);
  let seq = await searchSeq(page);
  await page.fill('#q', long);
  await waitSearch(page, seq);
  assert.equal((await page.inputValue('#q')).length, 3002, 'not cut at 2,000 characters');
  assert.equal(await page.isVisible('#q-cut'), false);
  // The end of the question was searched.
  const terms = await page.evaluate(() => window.__chsrLast.trace.query_terms);
  assert.ok(terms.some((x) => x.startsWith('calorim')), terms.join(' '));

  // 20,000 characters: cut to the engine's 16,384 bytes, and said so.
  seq = await searchSeq(page);
  await page.fill('#q', 'x'.repeat(20_000));
  await waitSearch(page, seq);
  assert.equal((await page.inputValue('#q')).length, 16_384);
  assert.equal(await page.isVisible('#q-cut'), true);
  assert.equal(await page.textContent('#q-cut'),
    'Your question is too long for the search, which reads at most 16 KB of text: it had 20,000 characters, only the first 16,384 are kept.');
  assert.equal(await page.evaluate(() => window.__chsrLast.trace.truncated), false, 'the engine had nothing more to cut');
  // The limit is in bytes: 2-byte characters are kept up to 8,192.
  await page.fill('#q', 'é'.repeat(9_000));
  assert.equal((await page.inputValue('#q')).length, 8_192);
  assert.match(await page.textContent('#q-cut'), /it had 9,000 characters, only the first 8,192 are kept/);
  // The notice follows the language, stays while the box holds part of the kept text, goes with a new question.
  await page.click('[data-ui-lang="fr"]');
  await page.waitForSelector('html[lang="fr"]'); // once the French strings are in
  assert.match(await page.textContent('#q-cut'), /elle avait 9\s000 caractères, seuls les 8\s192 premiers sont gardés/);
  await page.press('#q', 'Backspace');
  assert.equal(await page.isVisible('#q-cut'), true);
  await page.fill('#q', 'chaleur massique');
  assert.equal(await page.isVisible('#q-cut'), false);
  assert.deepEqual(errors, []);
  await page.close();
});
