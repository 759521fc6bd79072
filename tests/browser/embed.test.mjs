// The <chsr-search> element in a host page (www/embed/): a locked scope never shows a result
// outside it and never downloads what it could not show; shadow DOM; French by attribute.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, watchErrors } from './harness.mjs';

let server;
let browser;
before(async () => { server = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.stop(); });

async function openHost() {
  const context = await browser.newContext({ locale: 'en-GB' });
  const page = await context.newPage();
  const errors = watchErrors(page);
  const shards = [];
  page.on('request', (r) => { if (r.url().endsWith('.chsr')) shards.push(r.url()); });
  await page.goto(`${server.url}embed/`);
  await page.waitForSelector('#course-search[data-state="ready"]', { timeout: 30_000 });
  return { page, context, errors, shards };
}

async function embedSearch(page, sel, query) {
  const n = Number(await page.getAttribute(sel, 'data-searches') || 0);
  await page.fill(`${sel} input[type="search"]`, query);
  await page.press(`${sel} input[type="search"]`, 'Enter');
  // Settled: not waiting for the model any more (its arrival searches again).
  await page.waitForFunction(([s, k]) => Number(document.querySelector(s).dataset.searches || 0) > k && document.querySelector(s).dataset.state !== 'searching'
    && !document.querySelector(s).dataset.pending, [sel, n]);
  return page.$$eval(`${sel} >> li.card`, (l) => l.map((c) => ({ id: c.dataset.id, subject: c.dataset.subject, level: c.dataset.level, leakage: c.dataset.leakage })));
}

test('locked to physics/high_school: in-scope results only, in French, no way to widen', async () => {
  const { page, context, errors, shards } = await openHost();
  const sel = '#course-search';
  // The element renders in a shadow root, in the language of its lang attribute.
  assert.equal(await page.evaluate(() => document.querySelector('#course-search').shadowRoot !== null), true);
  assert.equal(await page.textContent(`${sel} button[type="submit"]`), 'Chercher');
  assert.match(await page.textContent(`${sel} .locked`), /Recherche limitée à Physique · Lycée \(fixé par votre cours\)/);
  // No subject or level picker: the lock cannot be changed.
  assert.equal(await page.$(`${sel} select[id$="-subject"]`), null);
  assert.equal(await page.$(`${sel} select[id$="-level"]`), null);
  const list = await embedSearch(page, sel, 'specific heat');
  assert.ok(list.length > 0);
  for (const c of list) assert.deepEqual([c.subject, c.level], ['physics', 'high_school'], c.id);
  // The host page's styles do not reach the cards: they are styled by the shadow sheet.
  assert.equal(await page.$eval(`${sel} >> li.card`, (e) => getComputedStyle(e).borderRadius), '8px');
  assert.equal(await page.evaluate(() => document.querySelectorAll('li.card').length), 0, 'no card in the light DOM');
  // Only the locked level's shard was downloaded.
  assert.equal(shards.length, 1);
  assert.match(shards[0], /physics--high-school\./);
  assert.deepEqual(errors, []);
  await context.close();
});

test('a query that would widen to another level shows nothing outside the lock', async () => {
  const { page, context, errors, shards } = await openHost();
  const sel = '#course-search';
  // On the study page this query widens to College (W2); the locked embed must not.
  const list = await embedSearch(page, sel, 'bremsstrahlung');
  assert.deepEqual(list, []);
  assert.match(await page.textContent(`${sel} .status`), /Aucun document de votre programme/);
  assert.ok(shards.every((u) => /physics--high-school\./.test(u)), shards.join(', '));
  assert.deepEqual(errors, []);
  await context.close();
});

test('a chapter lock: in-chapter results only; widened results from other chapters are never shown', async () => {
  const { page, context, errors } = await openHost();
  const add = (id, attrs) => page.evaluate(([i, a]) => {
    const e = document.createElement('chsr-search');
    e.id = i;
    for (const [k, v] of Object.entries(a)) e.setAttribute(k, v);
    document.querySelector('main').append(e);
  }, [id, { manifest: '../shards/manifest.json', subject: 'physics', level: 'high_school', lang: 'en', ...attrs }]);
  await add('ch2', { chapter: '2' });
  await page.waitForSelector('#ch2[data-state="ready"]');
  let list = await embedSearch(page, '#ch2', 'velocity');
  assert.ok(list.length > 0);
  for (const c of list) assert.equal(c.leakage, 'in_scope', c.id);
  const chapters = await page.$$eval('#ch2 >> li.card .badge', (b) => b.map((x) => x.textContent).filter((x) => /^Chapter/.test(x)));
  assert.ok(chapters.length > 0 && chapters.every((c) => c === 'Chapter 2'), chapters.join(', '));
  // Locked to the answers of chapter 3, which has none: the engine widens to other chapters.
  await add('ch3', { chapter: '3', 'doc-type': 'solution' });
  await page.waitForSelector('#ch3[data-state="ready"]');
  list = await embedSearch(page, '#ch3', 'force');
  assert.deepEqual(list, [], 'the engine widened to other chapters; none of it may show');
  assert.match(await page.textContent('#ch3 .status'), /Nothing in this course’s scope matches these words \(\d+ results from outside it are not shown\)/);
  assert.equal(await page.isVisible('#ch3 .tools button.secondary'), false, 'no context copy of hidden results');
  assert.deepEqual(errors, []);
  await context.close();
});

test('an unlocked field gets a picker with counts; a wrong lock is reported to the author', async () => {
  const { page, context } = await openHost();
  const chapters = await page.$$eval('#course-search >> select[id$="-chapter"] option', (o) => o.map((x) => x.textContent));
  assert.ok(chapters.includes('Chapitre 2 (92)'), chapters.join(' | '));
  await page.evaluate(() => {
    const e = document.createElement('chsr-search');
    e.id = 'bad';
    e.setAttribute('manifest', '../shards/manifest.json');
    e.setAttribute('subject', 'biology');
    e.setAttribute('lang', 'en');
    document.querySelector('main').append(e);
  });
  await page.waitForSelector('#bad[data-state="error"]');
  assert.match(await page.textContent('#bad .error'), /This search is set to subject “biology”, which the library does not have .*Ask the course author/);
  assert.equal(await page.isDisabled('#bad input[type="search"]'), true);
  await context.close();
});

test('a long question is kept up to the engine limit; a longer one is cut with a notice (in the element’s language)', async () => {
  const { page, context, errors } = await openHost();
  const sel = '#course-search';
  const long = `${'la chaleur nécessaire pour chauffer l’eau dépend de sa masse '.repeat(60).slice(0, 2990)} calorimètre`;
  await embedSearch(page, sel, long);
  assert.equal((await page.inputValue(`${sel} input[type="search"]`)).length, long.length, 'not cut at 2,000 characters');
  assert.equal(await page.isVisible(`${sel} .notice[id$="-cut"]`), false);
  await embedSearch(page, sel, 'x'.repeat(20_000));
  assert.equal((await page.inputValue(`${sel} input[type="search"]`)).length, 16_384);
  // (French groups digits with a narrow no-break space.)
  assert.match(await page.textContent(`${sel} .notice[id$="-cut"]`),
    /^Votre question est trop longue pour la recherche, qui lit au plus 16 Ko de texte : elle avait 20\s000 caractères, seuls les 16\s384 premiers sont gardés\.$/);
  await page.evaluate(() => document.querySelector('#course-search').setAttribute('lang', 'en'));
  assert.match(await page.textContent(`${sel} .notice[id$="-cut"]`), /it had 20,000 characters, only the first 16,384 are kept/);
  await embedSearch(page, sel, 'specific heat');
  assert.equal(await page.isVisible(`${sel} .notice[id$="-cut"]`), false);
  assert.deepEqual(errors, []);
  await context.close();
});
