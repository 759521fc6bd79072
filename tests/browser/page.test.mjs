// The study page in real headless Chromium: scoped search answers from the right shard only.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, openStudyPage, search } from './harness.mjs';

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

test('an empty gate is explained in words', async () => {
  const { page } = await openStudyPage(browser, server.url);
  const cards = await search(page, 'zzzyyqqq', { subject: 'chemistry', level: 'college' });
  assert.equal(cards.length, 0);
  const status = await page.textContent('#status');
  assert.match(status, /No document in your scope/);
  await page.close();
});
