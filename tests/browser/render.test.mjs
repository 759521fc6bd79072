// Cards render the chunks' Markdown-ish text (www/render.js): titles read "Page title › Section"
// and link to the course page; fenced Python keeps its indentation in the snippet and in "Show the
// whole section"; tables are tables; no fence or ** is shown; in the page and in the embed.
// The corpus is built at test time with the release CLI into a temporary copy of www/.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { servedCopy, search, watchErrors } from './harness.mjs';

const PLACE = { subject: 'informatique (NSI)', level: 'premiere', lang: 'fr' };
const CODE = 'def somme(liste):\n    total = 0\n    for x in liste:\n        if x > 0:\n            total += x\n    return total';
// Long enough that the snippet is a window cut inside the code block: its opening fence is
// outside the window, its closing fence inside.
const LONG_CODE = `${Array.from({ length: 12 }, (_, i) => `def aide_${i}(v):\n    return v + ${i}`).join('\n')}\ndef cible(n):\n    if n > 0:\n        return n\n    return -n`;
const CORPUS = [
  {
    id: 'cours:4.3:solution:1', ...PLACE, doc_type: 'solution', chapter: '4.3', section_key: 'cours:4.3',
    text: `Correction — Exercice 3 (boucles)\n\`\`\`python\n${CODE}\n\`\`\`\nLa fonction **somme** ne compte que les *positifs*.`,
    url: 'https://cours.example.org/T4/4.3/cours/#12-codage', title: 'Les boucles', section_title: 'Exercice 3',
  },
  {
    id: 'cours:4.3:textbook_section:2', ...PLACE, doc_type: 'textbook_section', chapter: '4.3', section_key: 'cours:4.3',
    text: 'Les opérateurs arithmétiques\n\n| opérateur | sens |\n|---|---|\n| `//` | quotient entier |\n| `%` | reste de la division |\n\nLe **reste** sert souvent.',
    url: '../T2/operateurs/#tableau', title: 'Opérateurs', subsection: 'Tableau récapitulatif',
  },
  {
    id: 'cours:4.4:solution:3', ...PLACE, doc_type: 'solution', chapter: '4.4',
    text: `Correction — Exercice 9\n\`\`\`python\n${LONG_CODE}\n\`\`\`\nFin du corrigé de la fonction.`,
  },
  { id: 'bns:2023:12.1:solution', ...PLACE, doc_type: 'solution', exam: 'BNS', year: 2023, question_number: '12.1', text: 'Une pile vide renvoie None.' },
];

const site = servedCopy({ records: CORPUS });

async function studyPage() {
  const context = await site.browser.newContext({ locale: 'en-GB', serviceWorkers: 'block' });
  const page = await context.newPage();
  const errors = watchErrors(page);
  await page.goto(site.server.url);
  await page.waitForSelector('body[data-ready="true"]');
  return { context, page, errors };
}

const card = (id) => `#results > li.card[data-id="${id}"]`;

test('a card reads "Page title › Section", links to the page at its anchor, and keeps Python indentation', async () => {
  const { context, page, errors } = await studyPage();
  const list = await search(page, 'somme positifs', { subject: PLACE.subject, level: PLACE.level });
  const hit = list.find((c) => c.id === 'cours:4.3:solution:1');
  assert.ok(hit, list.map((c) => c.id).join(', '));
  const sel = card(hit.id);
  assert.equal(await page.textContent(`${sel} .card-title`), 'Les boucles › Exercice 3');
  assert.equal(await page.getAttribute(`${sel} .card-title a`, 'href'), 'https://cours.example.org/T4/4.3/cours/#12-codage');
  assert.equal(await page.getAttribute(`${sel} .card-title a`, 'target'), null, 'the study page opens the course page in its own tab');
  // The snippet (the whole short chunk here): code with its indents, marks still there, markup gone.
  assert.equal(await page.$eval(`${sel} .snippet pre code`, (e) => e.textContent), CODE);
  assert.equal(await page.$eval(`${sel} .snippet pre code`, (e) => e.className), 'language-python');
  assert.equal(await page.$eval(`${sel} .snippet pre`, (e) => getComputedStyle(e).whiteSpace), 'pre-wrap');
  assert.ok((await page.$$eval(`${sel} .snippet mark`, (m) => m.map((x) => x.textContent))).some((m) => /somme/i.test(m)));
  assert.equal(await page.$eval(`${sel} .snippet strong`, (e) => e.textContent), 'somme');
  assert.equal(await page.$eval(`${sel} .snippet em`, (e) => e.textContent), 'positifs');
  // The whole section: the same code, exactly.
  await page.click(`${sel} button.show-section`);
  await page.waitForSelector(`${sel} .section-panel[data-loaded="true"]`);
  assert.equal(await page.$eval(`${sel} .section-panel .full-text pre code`, (e) => e.textContent), CODE);
  for (const c of await page.$$eval('#results > li.card', (l) => l.map((x) => x.textContent))) {
    assert.ok(!c.includes('```') && !c.includes('**'), c);
  }
  assert.deepEqual(errors, []);
  await context.close();
});

test('a snippet cut inside a code block shows code with its indents, without the fence', async () => {
  const { context, page, errors } = await studyPage();
  const list = await search(page, 'cible', { subject: PLACE.subject, level: PLACE.level });
  assert.ok(list.some((c) => c.id === 'cours:4.4:solution:3'), list.map((c) => c.id).join(', '));
  const sel = card('cours:4.4:solution:3');
  const snippet = await page.textContent(`${sel} .snippet`);
  assert.ok(snippet.startsWith('…'), snippet);
  assert.ok(!snippet.includes('```'), snippet);
  const code = await page.$eval(`${sel} .snippet pre code`, (e) => e.textContent);
  assert.ok(code.includes('def cible(n):\n    if n > 0:\n        return n\n    return -n'), code);
  assert.equal(await page.$eval(`${sel} .snippet pre code mark`, (e) => e.textContent), 'cible');
  assert.match(await page.$eval(`${sel} .snippet pre + p`, (e) => e.textContent), /^Fin du corrigé/);
  // Without a title of its own, the card is named in words (the chapter), never by its id.
  assert.equal(await page.textContent(`${sel} .card-title`), 'Answer / mark scheme · Chapter 4.4');
  assert.equal(await page.$(`${sel} .card-title a`), null, 'no url, no link');
  assert.deepEqual(errors, []);
  await context.close();
});

test('a pipe table renders as a table; a relative url resolves against the site; no raw id as a title', async () => {
  const { context, page, errors } = await studyPage();
  await search(page, 'opérateur reste', { subject: PLACE.subject, level: PLACE.level });
  const sel = card('cours:4.3:textbook_section:2');
  assert.equal(await page.textContent(`${sel} .card-title`), 'Opérateurs › Tableau récapitulatif');
  assert.equal(await page.getAttribute(`${sel} .card-title a`, 'href'), new URL('../T2/operateurs/#tableau', site.server.url).href);
  const table = (root) => page.$eval(`${sel} ${root} table`, (t) => ({
    head: [...t.querySelectorAll('thead th')].map((x) => x.textContent),
    rows: [...t.querySelectorAll('tbody tr')].map((r) => [...r.cells].map((x) => x.textContent)),
    code: [...t.querySelectorAll('td code')].map((x) => x.textContent),
  }));
  const want = { head: ['opérateur', 'sens'], rows: [['//', 'quotient entier'], ['%', 'reste de la division']], code: ['//', '%'] };
  assert.deepEqual(await table('.snippet'), want);
  await page.click(`${sel} button.show-section`);
  await page.waitForSelector(`${sel} .section-panel[data-loaded="true"]`);
  assert.deepEqual(await table('.section-panel .full-text'), want);
  assert.ok(!(await page.textContent(sel)).includes('|---|'));
  // A chunk with no title, chapter or section title: its document type, exam, year and question.
  await search(page, 'pile vide', { subject: PLACE.subject, level: PLACE.level });
  assert.equal(await page.textContent(`${card('bns:2023:12.1:solution')} .card-title`), 'Answer / mark scheme · BNS · 2023 · Q12.1');
  assert.deepEqual(errors, []);
  await context.close();
});

test('the embed renders the same, and opens the course page in a new tab', async () => {
  const context = await site.browser.newContext({ locale: 'en-GB', serviceWorkers: 'block' });
  const page = await context.newPage();
  const errors = watchErrors(page);
  await page.goto(`${site.server.url}embed/`);
  // The example's physics/high_school lock does not exist in this corpus: it says so.
  await page.waitForSelector('#course-search[data-state="error"]');
  await page.evaluate((place) => {
    const e = document.createElement('chsr-search');
    e.id = 'nsi';
    e.setAttribute('manifest', '../shards/manifest.json');
    e.setAttribute('subject', place.subject);
    e.setAttribute('level', place.level);
    e.setAttribute('lang', 'en');
    document.querySelector('main').append(e);
  }, PLACE);
  await page.waitForSelector('#nsi[data-state="ready"]');
  await page.fill('#nsi input[type="search"]', 'somme positifs');
  await page.press('#nsi input[type="search"]', 'Enter');
  await page.waitForSelector('#nsi[data-state="done"]');
  const sel = '#nsi >> li.card[data-id="cours:4.3:solution:1"]';
  const link = await page.$eval(`${sel} .card-title a`, (a) => ({
    href: a.getAttribute('href'), target: a.target, rel: a.rel, text: a.textContent,
  }));
  assert.deepEqual(link, {
    href: 'https://cours.example.org/T4/4.3/cours/#12-codage', target: '_blank', rel: 'noopener noreferrer',
    text: 'Les boucles › Exercice 3 (opens in a new tab)',
  });
  assert.equal(await page.$eval(`${sel} .snippet pre code`, (e) => e.textContent), CODE);
  // Relative URLs resolve against the embed module's folder (the site root), not the host page.
  await page.fill('#nsi input[type="search"]', 'opérateur reste');
  await page.press('#nsi input[type="search"]', 'Enter');
  await page.waitForSelector('#nsi >> li.card[data-id="cours:4.3:textbook_section:2"]');
  const rel = await page.$eval('#nsi >> li.card[data-id="cours:4.3:textbook_section:2"] .card-title a', (a) => a.getAttribute('href'));
  assert.equal(rel, new URL('../T2/operateurs/#tableau', site.server.url).href);
  assert.equal(await page.$$eval('#nsi >> li.card[data-id="cours:4.3:textbook_section:2"] .snippet table th', (t) => t.length), 2);
  assert.deepEqual(errors, []);
  await context.close();
});
