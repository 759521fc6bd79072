// Hostile corpus text and metadata render as text everywhere (cards, titles, pickers, why panels,
// section expansion, the embed), and the strict Content-Security-Policy is sent and enforced.
// The hostile shards are built at test time with the release CLI into a temporary copy of www/.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { servedCopy, search, watchErrors } from './harness.mjs';

const IMG = '<img src=x onerror=alert(1)>';
const SCRIPT = '<script>alert(2)</script>';
const JS_URL = '<a href="javascript:alert(3)">click here</a>';
const HOSTILE = [
  {
    id: 'evil:1', text: `Heat capacity trap ${IMG} and ${SCRIPT} then ${JS_URL} or javascript:alert(3)`,
    subject: 'physics', level: 'college', lang: 'en', doc_type: 'textbook_section', source: 'javascript:alert(6)',
    chapter: 1, chapter_title: '<img src=x onerror=alert(4)>', section: 1, section_title: '<script>alert(5)</script>',
    section_key: 'evil:1.1', label: '<b onmouseover=alert(7)>Table 1</b>',
  },
  {
    id: 'evil:2', text: 'More heat capacity here <iframe src=javascript:alert(9)></iframe>',
    subject: 'physics', level: 'college', lang: 'en', doc_type: 'exercise', chapter: 1,
    chapter_title: '<img src=x onerror=alert(4)>', section: 1, section_title: '<script>alert(5)</script>',
    section_key: 'evil:1.1', exam: '<svg onload=alert(10)>', year: 2024, paper: '<style>body{display:none}</style>',
    question_number: '<i>1</i>',
  },
  {
    id: 'evil:3', text: 'Once more heat capacity, in the same section', subject: 'physics', level: 'college', lang: 'en',
    doc_type: 'summary', chapter: 1, section: 1, section_key: 'evil:1.1',
  },
  {
    id: 'evil:4', text: 'Heat capacity for a strange subject', subject: '<svg onload=alert(8)>',
    level: '<img src=y onerror=alert(11)>', lang: 'en', doc_type: 'textbook_section',
  },
  // Markup in a code fence and in table cells (rendered by www/render.js), a hostile page title
  // and a javascript: link.
  {
    id: 'evil:5', subject: 'physics', level: 'college', lang: 'en', doc_type: 'worked_example',
    text: `Heat capacity in code\n\`\`\`html\n    ${SCRIPT}\n    ${IMG}\n\`\`\`\n\n| heat | capacity |\n|---|---|\n| ${IMG} | **${SCRIPT}** |`,
    title: '<img src=x onerror=alert(13)>', section_title: 'Heat', url: 'javascript:alert(12)',
  },
  {
    id: 'evil:6', subject: 'physics', level: 'college', lang: 'en', doc_type: 'summary',
    text: 'Heat capacity, linked with a quote in its address', title: 'Linked', url: 'https://ok.example/x"><img src=x onerror=alert(14)>#a',
  },
  {
    id: 'evil:7', subject: 'physics', level: 'college', lang: 'en', doc_type: 'summary',
    text: 'Heat capacity behind a data link', title: 'Data', url: ' DaTa:text/html,<script>alert(15)</script>',
  },
];
const INJECTED = 'img, script:not([src]), iframe, svg, style, b, i, a[href^="javascript"], [onerror], [onload], [onmouseover]';

const site = servedCopy({ records: HOSTILE });

async function open(url) {
  const context = await site.browser.newContext({ locale: 'en-GB', serviceWorkers: 'block' });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: site.server.url });
  const page = await context.newPage();
  const errors = watchErrors(page);
  const dialogs = [];
  page.on('dialog', (d) => { dialogs.push(d.message()); d.dismiss(); });
  await page.addInitScript(() => {
    window.__csp = [];
    document.addEventListener('securitypolicyviolation', (e) => window.__csp.push(`${e.violatedDirective} ${e.blockedURI}`));
  });
  await page.goto(url);
  return { context, page, errors, dialogs };
}

test('hostile chunk text and metadata render as text on the study page', async () => {
  const { context, page, errors, dialogs } = await open(site.server.url);
  await page.waitForSelector('body[data-ready="true"]');
  // Hostile facet values are option text.
  const subjects = await page.$$eval('#subject option', (o) => o.map((x) => x.textContent));
  assert.ok(subjects.includes('<svg onload=alert(8)> (1)'), subjects.join(' | '));
  await page.selectOption('#subject', 'physics');
  const exams = await page.$$eval('#exam option', (o) => o.map((x) => x.textContent));
  assert.ok(exams.includes('<svg onload=alert(10)> (1)'), exams.join(' | '));
  const list = await search(page, 'heat capacity', { subject: 'physics', level: 'college' });
  assert.ok(list.length >= 2);
  const evil = list.find((c) => c.id === 'evil:1');
  assert.ok(evil.text.includes(IMG) && evil.text.includes(SCRIPT) && evil.text.includes('javascript:alert(3)'), evil.text);
  assert.ok(evil.text.includes('<img src=x onerror=alert(4)> › <script>alert(5)</script>'), 'title as text');
  assert.ok(evil.text.includes('javascript:alert(6)') && evil.text.includes('<b onmouseover=alert(7)>Table 1</b>'));
  // Every panel open: why this result, how the search worked, the whole section.
  await page.click('#why-query summary');
  for (const s of await page.$$('#results .why summary')) await s.click();
  for (const b of await page.$$('#results button.show-section')) await b.click();
  await page.waitForFunction(() => [...document.querySelectorAll('#results .section-panel')].every((p) => p.dataset.loaded));
  assert.ok((await page.textContent('#results')).includes('<iframe src=javascript:alert(9)></iframe>'));
  // Code fences and table cells: the markup is the text of <code> and <td>.
  const evil5 = '#results li.card[data-id="evil:5"]';
  assert.equal(await page.$eval(`${evil5} .snippet pre code`, (e) => e.textContent), `    ${SCRIPT}\n    ${IMG}`);
  assert.equal(await page.$eval(`${evil5} .full-text pre code`, (e) => e.textContent), `    ${SCRIPT}\n    ${IMG}`);
  assert.deepEqual(await page.$$eval(`${evil5} .full-text td`, (l) => l.map((x) => x.textContent)), [IMG, SCRIPT]);
  assert.equal(await page.textContent(`${evil5} .card-title`), '<img src=x onerror=alert(13)> › Heat');
  // Only an http(s) address becomes a link, and its quote cannot leave the attribute.
  assert.equal(await page.$$eval('#results li.card[data-id="evil:5"] a, #results li.card[data-id="evil:7"] a', (l) => l.length), 0);
  assert.equal(await page.getAttribute('#results li.card[data-id="evil:6"] .card-title a', 'href'), 'https://ok.example/x%22%3E%3Cimg%20src=x%20onerror=alert(14)%3E#a');
  // Hover over everything a payload could have hooked.
  for (const c of await page.$$('#results li.card')) await c.hover();
  assert.equal(await page.$$eval(`#results :is(${INJECTED}), #subject ~ :is(${INJECTED})`, (x) => x.length), 0);
  assert.equal(await page.evaluate(() => document.querySelectorAll('img, iframe, svg, body script:not([src])').length), 0);
  // Copied context is the raw text too (a string, never markup).
  await page.click('#copy-context');
  await page.waitForFunction(() => document.getElementById('copy-status').textContent.length > 0);
  assert.ok((await page.evaluate(() => navigator.clipboard.readText())).includes(IMG));
  // The hostile subject and level: scope, URL round trip, labels.
  const strange = await search(page, 'heat capacity', { subject: '<svg onload=alert(8)>', level: '<img src=y onerror=alert(11)>' });
  assert.equal(strange.length, 1);
  assert.ok(strange[0].text.includes('<svg onload=alert(8)>'));
  assert.equal(new URL(page.url()).searchParams.get('subject'), '<svg onload=alert(8)>');
  assert.deepEqual(dialogs, []);
  assert.deepEqual(await page.evaluate(() => window.__csp), []);
  assert.deepEqual(errors, []);
  await context.close();
});

test('hostile text renders as text inside the embed', async () => {
  const { context, page, errors, dialogs } = await open(`${site.server.url}embed/`);
  // The example's physics/high_school lock does not exist in this corpus: it says so.
  await page.waitForSelector('#course-search[data-state="error"]');
  await page.evaluate(() => {
    const e = document.createElement('chsr-search');
    e.id = 'evil';
    e.setAttribute('manifest', '../shards/manifest.json');
    e.setAttribute('subject', 'physics');
    e.setAttribute('level', 'college');
    e.setAttribute('lang', 'en');
    document.querySelector('main').append(e);
  });
  await page.waitForSelector('#evil[data-state="ready"]');
  await page.fill('#evil input[type="search"]', 'heat capacity');
  await page.press('#evil input[type="search"]', 'Enter');
  await page.waitForSelector('#evil[data-state="done"]');
  for (const s of await page.$$('#evil .why summary')) await s.click();
  for (const b of await page.$$('#evil button.show-section')) await b.click();
  const text = await page.evaluate(() => document.getElementById('evil').shadowRoot.textContent);
  assert.ok(text.includes(IMG) && text.includes(SCRIPT) && text.includes('<svg onload=alert(10)>'));
  assert.equal(await page.evaluate((sel) => document.getElementById('evil').shadowRoot.querySelectorAll(sel).length, INJECTED), 0);
  assert.deepEqual(dialogs, []);
  assert.deepEqual(await page.evaluate(() => window.__csp), []);
  assert.deepEqual(errors, []);
  await context.close();
});

test('the server sends the strict CSP and the browser enforces it', async () => {
  const { context, page, errors } = await open(site.server.url);
  await page.waitForSelector('body[data-ready="true"]');
  for (const path of ['', 'embed/', 'app.js', 'chsr-search.js', 'sw.js']) {
    const res = await fetch(`${site.server.url}${path}`);
    const csp = res.headers.get('content-security-policy');
    // Pages add their import map's hash (Subresource Integrity, see integrity.test.mjs).
    assert.match(csp, path.endsWith('.js') ? /script-src 'self' 'wasm-unsafe-eval';/
      : /script-src 'self' 'wasm-unsafe-eval' 'sha256-[A-Za-z0-9+/]+=*';/, path);
    assert.match(csp, /style-src 'self';/, path);
    assert.match(csp, /object-src 'none'/, path);
    assert.doesNotMatch(csp, /'unsafe-(inline|eval)'/, path);
  }
  // Injected inline script and inline style are refused. (eval cannot be checked from here: code
  // evaluated by the test driver is exempt from the page's policy.)
  const outcome = await page.evaluate(() => {
    const s = document.createElement('script');
    s.textContent = 'window.__inlineRan = true;';
    document.body.append(s);
    const p = document.createElement('p');
    p.setAttribute('style', 'color: rgb(255, 0, 0)');
    document.body.append(p);
    return { inline: Boolean(window.__inlineRan), color: getComputedStyle(p).color };
  });
  assert.deepEqual(outcome, { inline: false, color: 'rgb(29, 39, 51)' });
  const violations = await page.evaluate(() => window.__csp.map((v) => v.split(' ')[0]));
  assert.ok(violations.includes('script-src-elem') && violations.includes('style-src-attr'), violations.join(', '));
  assert.ok(errors.some((e) => /Content Security Policy/.test(e)));
  await context.close();
});
