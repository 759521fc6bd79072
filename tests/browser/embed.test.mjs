// The <chsr-search> element in a host page (www/embed/): a locked scope never shows a result
// outside it and never downloads what it could not show (the engine enforces the lock: nothing is
// filtered in JavaScript); "show the whole section" and "copy as context" ask the engine for the
// results shown without searching again; shadow DOM; French by attribute.
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
  // On the study page this query widens to College (W2); the locked embed must not, and says so.
  const list = await embedSearch(page, sel, 'bremsstrahlung');
  assert.deepEqual(list, []);
  assert.match(await page.textContent(`${sel} .status`), /Rien dans le programme de ce cours \(\d[\d\s]* documents\) ne correspond à ces mots, et la recherche n’a pas été élargie/);
  assert.ok(shards.every((u) => /physics--high-school\./.test(u)), shards.join(', '));
  assert.deepEqual(errors, []);
  await context.close();
});

test('a chapter lock: in-chapter results only; the engine never widens to other chapters', async () => {
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
  // Locked to the answers of chapter 3, which has none: unlocked, the engine would widen to other
  // chapters; locked, it does not, and the status says the course kept it within its scope.
  await add('ch3', { chapter: '3', 'doc-type': 'solution' });
  await page.waitForSelector('#ch3[data-state="ready"]');
  list = await embedSearch(page, '#ch3', 'force');
  assert.deepEqual(list, [], 'nothing from other chapters');
  assert.match(await page.textContent('#ch3 .status'), /Nothing in this course’s scope \(\d+ documents\) matches these words, and the search was not widened/);
  assert.equal(await page.isVisible('#ch3 .tools button.secondary'), false, 'no context to copy');
  assert.deepEqual(errors, []);
  await context.close();
});

// Counts calls of the Wasm index's methods in the page (the module instance the element uses).
function countEngineCalls(page) {
  return page.evaluate(async () => {
    const { ChsrIndex } = await import(new URL('../pkg/chsr.js', document.baseURI).href);
    window.__engineCalls = {};
    for (const m of ['search', 'toContext', 'section', 'contextFor', 'facets', 'validateScope']) {
      const orig = ChsrIndex.prototype[m];
      ChsrIndex.prototype[m] = function counted(...args) {
        window.__engineCalls[m] = (window.__engineCalls[m] || 0) + 1;
        (window.__engineScopes ||= []).push({ m, scope: JSON.parse(JSON.stringify(args.find((a) => a && typeof a === 'object' && !Array.isArray(a)) || null)) });
        const out = orig.apply(this, args);
        if (m === 'section') window.__lastSection = JSON.parse(JSON.stringify(out));
        return out;
      };
    }
  });
}

test('a locked chapter: the engine keeps every result, section and context inside it (event data, not only the DOM)', async () => {
  const { page, context, errors } = await openHost();
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
  await countEngineCalls(page);
  const query = 'magnetic field of a current in a wire';
  // Unlocked, chapter 5 of college physics (friction, drag, elasticity) is the wrong place: the
  // engine widens to the chapters that hold the answer.
  const unlocked = await page.evaluate(async (q) => {
    const { ChsrClient } = await import(new URL('../chsr-client.js', document.baseURI).href);
    const client = await ChsrClient.open(new URL('../shards/manifest.json', document.baseURI).href);
    const resp = await client.search(q, { subject: 'physics', level: 'college', chapter: '5' }, { k: 8, text: false });
    return resp.results.map((h) => h.chapter);
  }, query);
  assert.ok(unlocked.some((c) => c !== '5'), `the unlocked search widens: ${unlocked}`);
  await page.evaluate(() => { window.__engineScopes = []; }); // from here on, the element's calls only
  await page.evaluate(() => {
    const e = document.createElement('chsr-search');
    e.id = 'ch5';
    for (const [k, v] of Object.entries({ manifest: '../shards/manifest.json', subject: 'physics', level: 'college', chapter: '5', lang: 'en' })) e.setAttribute(k, v);
    e.addEventListener('chsr-results', (ev) => { (window.__ch5 ||= []).push(JSON.parse(JSON.stringify(ev.detail))); });
    document.querySelector('main').append(e);
  });
  await page.waitForSelector('#ch5[data-state="ready"]');
  // No picker for a locked field.
  assert.equal(await page.$('#ch5 >> select[id$="-chapter"]'), null);
  assert.equal(await page.$('#ch5 >> select[id$="-level"]'), null);
  const list = await embedSearch(page, '#ch5', query);
  const events = await page.evaluate(() => window.__ch5);
  assert.ok(events.length > 0);
  for (const d of events) {
    assert.deepEqual(d.scope, { subject: 'physics', level: 'college', chapter: '5', lock: ['subject', 'level', 'chapter'] });
    assert.equal(d.shown, d.results.length);
    for (const h of d.results) assert.equal(h.chapter, '5', `${h.id} is outside the locked chapter`);
    assert.ok(!d.trace.relaxation || !d.trace.relaxation.steps.some((st) => st.dropped.includes('chapter')), 'the chapter was never dropped');
  }
  const last = events[events.length - 1];
  assert.ok(last.results.length > 0, 'chapter 5 has passages with these words');
  assert.deepEqual(list.map((c) => c.id), last.results.map((h) => h.id));
  // Every engine call of the element carried the lock.
  const calls = await page.evaluate(() => window.__engineScopes.filter((c) => c.scope && c.scope.chapter === '5'));
  assert.ok(calls.length > 0 && calls.every((c) => c.m === 'validateScope' || (c.scope.lock || []).includes('chapter')), JSON.stringify(calls.slice(0, 3)));
  // "Show the whole section" and "Copy as context" ask the engine for the results shown: no search.
  const before = await page.evaluate(() => ({ ...window.__engineCalls }));
  await page.click('#ch5 >> li.card:first-child button.show-section');
  await page.waitForSelector('#ch5 >> li.card:first-child .section-panel[data-loaded="true"]');
  const section = await page.evaluate(() => window.__lastSection);
  assert.equal(section.id, last.results[0].id);
  assert.deepEqual(section.pending_text, [], 'the section shown has all its text');
  assert.ok(section.chunks.length > 0 && section.chunks.every((c) => c.chapter === '5'), 'the section stays in the chapter');
  await page.click('#ch5 >> .tools button.secondary');
  await page.waitForFunction(() => document.querySelector('#ch5').shadowRoot.querySelector('.copy-status').textContent.length > 0);
  const after = await page.evaluate(() => ({ ...window.__engineCalls }));
  assert.equal(after.search || 0, before.search || 0, 'no second search');
  assert.equal(after.toContext || 0, before.toContext || 0, 'no search for the context');
  // Once, or twice when the first answer named the rest of the section's text parts to load.
  const sectionCalls = (after.section || 0) - (before.section || 0);
  assert.ok(sectionCalls === 1 || sectionCalls === 2, `section calls: ${sectionCalls}`);
  assert.equal((after.contextFor || 0) - (before.contextFor || 0), 1);
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  assert.equal((copied.match(/^\[DOCUMENT \d+\]$/gm) || []).length, last.results.length);
  assert.ok(last.results.every((h) => copied.includes(`id: ${h.id}\n`)));
  assert.match(await page.textContent('#ch5 >> .copy-status'), new RegExp(`Copied ${last.results.length} documents`));
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
  // The English strings are fetched first (a page downloads only the languages it shows).
  await page.waitForFunction(() => document.querySelector('#course-search').t.lang === 'en');
  assert.match(await page.textContent(`${sel} .notice[id$="-cut"]`), /it had 20,000 characters, only the first 16,384 are kept/);
  await embedSearch(page, sel, 'specific heat');
  assert.equal(await page.isVisible(`${sel} .notice[id$="-cut"]`), false);
  assert.deepEqual(errors, []);
  await context.close();
});

test('keywords only by default (the lexical module); the dense attribute adds the meaning search after the first result', async () => {
  const sel = '#course-search';
  const watch = (page) => {
    const asked = [];
    page.on('request', (r) => { if (/\.(chsr[mv]|wasm)$/.test(new URL(r.url()).pathname)) asked.push(new URL(r.url()).pathname); });
    return asked;
  };
  {
    const { page, context, errors } = await openHost();
    const asked = watch(page);
    assert.ok((await embedSearch(page, sel, 'specific heat')).length > 0);
    assert.deepEqual(asked, [], 'no model or vectors without the attribute');
    const modules = await page.evaluate(() => performance.getEntriesByType('resource').map((e) => new URL(e.name).pathname).filter((p) => p.endsWith('.wasm')));
    assert.deepEqual([...new Set(modules)], ['/pkg/chsr_lexical_bg.wasm'], 'the lexical module only');
    assert.deepEqual(errors, []);
    await context.close();
  }
  // The author's element has the attribute (it chooses the module the page runs: the one with
  // the dense path).
  const context = await browser.newContext({ locale: 'en-GB' });
  await context.addInitScript(() => {
    new MutationObserver((records, mo) => {
      const el = document.querySelector('#course-search');
      if (el) { el.setAttribute('dense', ''); mo.disconnect(); }
    }).observe(document, { childList: true, subtree: true });
  });
  const page = await context.newPage();
  const errors = watchErrors(page);
  const asked = watch(page);
  await page.goto(`${server.url}embed/`);
  await page.waitForSelector('#course-search[data-state="ready"]', { timeout: 30_000 });
  assert.equal(await page.evaluate(() => document.querySelector('#course-search').hasAttribute('dense')), true);
  const list = await embedSearch(page, sel, 'specific heat');
  assert.ok(list.length > 0);
  for (const c of list) assert.deepEqual([c.subject, c.level], ['physics', 'high_school'], c.id);
  assert.ok(asked.includes('/pkg/chsr_bg.wasm'), `the module with the dense path: ${asked.join(', ')}`);
  assert.ok(asked.some((p) => /\/model\.[0-9a-f]{16}\.chsrm$/.test(p)), asked.join(', '));
  // The locked level's vectors only.
  const vectors = asked.filter((p) => p.endsWith('.chsrv'));
  assert.equal(vectors.length, 1, vectors.join(', '));
  assert.match(vectors[0], /physics--high-school\./);
  assert.deepEqual(errors, []);
  await context.close();
});
