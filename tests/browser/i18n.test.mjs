// The interface in French (from the browser's language, and with the switch), and the error states
// a student can meet, in plain words in both languages: failed and interrupted downloads (retried
// once, then explained), integrity failures, unknown scope.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, openStudyPage, search } from './harness.mjs';

let server;
let browser;
before(async () => { server = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.stop(); });

// Requests to shards in these tests are intercepted by the test, so the service worker is kept out.
const FR = { locale: 'fr-FR', serviceWorkers: 'block' };
const EN = { locale: 'en-GB', serviceWorkers: 'block' };

test('French from the browser language: page, pickers, results, labels and panels', async () => {
  const { page, errors } = await openStudyPage(browser, server.url, FR);
  assert.equal(await page.getAttribute('html', 'lang'), 'fr');
  assert.equal(await page.getAttribute('button[data-ui-lang="fr"]', 'aria-pressed'), 'true');
  assert.equal(await page.textContent('#go'), 'Chercher');
  assert.equal(await page.getAttribute('#q', 'placeholder'), 'Annales, corrigés, manuels…');
  assert.match(await page.textContent('#status'), /^Prêt : 15\s012 documents/);
  assert.match(await page.textContent('legend'), /Votre programme/);
  const subjects = await page.$$eval('#subject option', (o) => o.map((x) => x.textContent));
  assert.ok(subjects.some((x) => /^Physique \(9\s263\)$/.test(x)), subjects.join(' | '));
  const list = await search(page, 'force', { subject: 'physics', level: 'high_school', doc_type: 'solution', chapter: '3' });
  assert.ok(list.length > 0);
  assert.match(list[0].label, /D’une autre partie du cours \(chapitre \d+\) : hors de votre programme/);
  assert.match(await page.textContent('#widened'), /la recherche a été élargie \(chapitre retiré\(s\)\)/);
  assert.match(list[0].text, /Physique.*Lycée/);
  assert.match(await page.textContent('#results > li.card:first-child .why summary'), /Pourquoi ce résultat/);
  await page.click('#why-query summary');
  const why = await page.textContent('#why-query');
  assert.match(why, /variante F, programme appliqué : avant le classement/);
  assert.match(why, /W1 : chapitre retiré\(s\), recherche dans Physique · Lycée · Document Corrigé : \d+ nouveaux résultats/);
  assert.match(await page.textContent('#copy-context'), /Copier comme contexte pour un assistant/);
  assert.deepEqual(errors, []);
  await page.close();
});

test('the language switch changes everything on the page at once, and is kept in the URL', async () => {
  const { page, errors } = await openStudyPage(browser, server.url, FR);
  await search(page, 'specific heat', { subject: 'physics', level: 'high_school' });
  assert.match(await page.textContent('#status'), /résultats parmi 2\s174 documents/);
  await page.click('button[data-ui-lang="en"]');
  // The English strings are fetched (a page downloads only the language it shows), then the
  // whole page changes in one step.
  await page.waitForSelector('html[lang="en"]');
  assert.match(await page.textContent('#status'), /results from 2,174 documents in your scope/);
  assert.equal(await page.textContent('#go'), 'Search');
  assert.match(await page.textContent('#results > li.card:first-child'), /Physics.*High school/);
  assert.equal(new URL(page.url()).searchParams.get('ui'), 'en');
  assert.deepEqual(errors, []);
  await page.close();
});

test('a shard download that fails twice is retried once, then explained (EN and FR)', async () => {
  for (const [opts, pattern] of [
    [EN, /Could not download Physics · High school, even after a second try/],
    [FR, /Impossible de télécharger Physique · Lycée, même après un second essai/],
  ]) {
    const { page } = await openStudyPage(browser, server.url, opts);
    let tries = 0;
    await page.route('**/*.chsr', (route) => { tries += 1; route.abort('connectionreset'); });
    await search(page, 'heat', { subject: 'physics', level: 'high_school' });
    assert.equal(tries, 2, 'one retry');
    assert.match(await page.textContent('#error'), pattern);
    assert.equal(await page.isVisible('#error-retry'), true);
    // The network is back: "Try again" works.
    await page.unroute('**/*.chsr');
    await page.click('#error-retry');
    await page.waitForFunction(() => document.querySelectorAll('#results > li.card').length > 0);
    assert.equal(await page.isVisible('#error'), false);
    await page.close();
  }
});

test('a failure on the first try only is invisible: the retry succeeds', async () => {
  const { page } = await openStudyPage(browser, server.url, EN);
  let tries = 0;
  await page.route('**/*.chsr', (route) => { tries += 1; if (tries === 1) route.abort('failed'); else route.continue(); });
  const list = await search(page, 'heat', { subject: 'physics', level: 'high_school' });
  assert.equal(tries, 2);
  assert.ok(list.length > 0);
  assert.equal(await page.isVisible('#error'), false);
  await page.close();
});

test('an interrupted download and a corrupted one are told apart', async () => {
  const { page } = await openStudyPage(browser, server.url, EN);
  const manifest = await (await fetch(`${server.url}shards/manifest.json`)).json();
  const entry = manifest.shards.find((s) => s.subject === 'physics' && s.level === 'high_school');
  const bytes = Buffer.from(await (await fetch(`${server.url}shards/${entry.file}`)).arrayBuffer());
  // Truncated body (the connection dropped half-way).
  let tries = 0;
  await page.route('**/*.chsr', (route) => { tries += 1; route.fulfill({ status: 200, body: bytes.subarray(0, 1000), contentType: 'application/octet-stream' }); });
  await search(page, 'heat', { subject: 'physics', level: 'high_school' });
  assert.equal(tries, 2);
  assert.match(await page.textContent('#error'), /The download of Physics · High school was interrupted twice \(1 kB of \d[\d.]* [kM]B received\)/);
  await page.unroute('**/*.chsr');
  // Full length but flipped bytes: the SHA-256 check fails.
  const bad = Buffer.from(bytes);
  bad[bad.length - 10] ^= 0xff;
  tries = 0;
  await page.route('**/*.chsr', (route) => { tries += 1; route.fulfill({ status: 200, body: bad, contentType: 'application/octet-stream' }); });
  await page.click('#error-retry');
  await page.waitForFunction(() => /integrity/.test(document.getElementById('error').textContent));
  assert.equal(tries, 2);
  assert.match(await page.textContent('#error'), /The data for Physics · High school failed its integrity check twice/);
  await page.close();
});

test('a server error and an unreadable library index are explained in French', async () => {
  const { page } = await openStudyPage(browser, server.url, FR);
  await page.route('**/*.chsr', (route) => route.fulfill({ status: 503, body: 'busy' }));
  await search(page, 'chaleur', { subject: 'physics', level: 'high_school' });
  assert.match(await page.textContent('#error'), /Le serveur n’a pas pu fournir Physique · Lycée \(HTTP 503\), même après un second essai/);
  await page.close();
  const ctx = await browser.newContext(FR);
  const p2 = await ctx.newPage();
  await p2.route('**/manifest.json', (route) => route.fulfill({ status: 200, body: '{"format":"nope"}', contentType: 'application/json' }));
  await p2.goto(server.url);
  await p2.waitForSelector('#error:not([hidden])');
  assert.match(await p2.textContent('#error'), /L’index de la bibliothèque est illisible/);
  await ctx.close();
});

test('an unknown subject in a link is explained in French', async () => {
  const { page } = await openStudyPage(browser, `${server.url}?subject=biologie&level=high_school`, FR);
  assert.match(await page.textContent('#scope-notice'), /Ce lien demande matière « biologie », que cette bibliothèque n’a pas \(elle a : .*Physique/);
  assert.equal(await page.inputValue('#level'), 'high_school');
  await page.close();
});

test('a model that cannot be downloaded leaves keyword search working, says so, and can be retried', async () => {
  const context = await browser.newContext(EN);
  const page = await context.newPage();
  let tries = 0;
  await page.route('**/*.chsrm', (route) => { tries += 1; route.abort('connectionreset'); });
  await page.goto(`${server.url}?dense=1`);
  await page.waitForSelector('body[data-ready="true"]');
  const list = await search(page, 'specific heat', { subject: 'physics', level: 'high_school' });
  assert.equal(tries, 2, 'one retry');
  assert.ok(list.length > 0, 'keyword results');
  assert.match(await page.textContent('#model-notice'), /Results use keyword search only: Could not download the meaning-search model, even after a second try/);
  await page.click('#why-query summary');
  assert.match(await page.textContent('#why-query'), /Vector search plan\s*not run \(no embedding model loaded\)/);
  await page.unroute('**/*.chsrm');
  const seq = await page.evaluate(() => window.__chsrSeq);
  await page.click('#model-retry');
  await page.waitForFunction((n) => window.__chsrSeq > n && window.__chsrDone === window.__chsrSeq && !document.body.dataset.pending, seq);
  assert.equal(await page.isVisible('#model-notice'), false);
  assert.match(await page.textContent('#why-query'), /Vector search plan\s*physics--high-school/);
  await context.close();
});
