// Screenshots of the main states, for the closing note and for review by eye, written to
// target/screenshots/ (gitignored). Each state is also checked, so a broken state fails here too.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { serve, launch, openStudyPage, search, cards, SCREENSHOTS } from './harness.mjs';

let server;
let browser;
before(async () => {
  mkdirSync(SCREENSHOTS, { recursive: true });
  server = await serve();
  browser = await launch();
});
after(async () => { await browser?.close(); await server?.stop(); });

const DESKTOP = { viewport: { width: 1280, height: 900 }, locale: 'en-GB' };
const shot = (page, name, opts = {}) => page.screenshot({ path: `${SCREENSHOTS}/${name}.png`, ...opts });

test('screenshots: study page states (desktop)', async () => {
  const { page } = await openStudyPage(browser, server.url, DESKTOP);
  await shot(page, '01-ready');

  await search(page, 'specific heat', { subject: 'physics', level: 'high_school' });
  await page.waitForSelector('#offline-current.saved', { timeout: 30_000 });
  await page.click('#why-query summary');
  await page.click('#results > li.card:first-child .why summary');
  await shot(page, '02-results-why-panels', { fullPage: true });

  await page.click('#why-query summary');
  await page.click('#results > li.card:first-child button.show-section');
  await page.waitForSelector('#results > li.card:first-child .section-panel[data-loaded="true"]');
  await page.$eval('#results > li.card:first-child', (e) => e.scrollIntoView());
  await shot(page, '03-section-expanded');

  // A scope with nothing in it (chapter 3 has no answers) comes from a link: once the shards are
  // loaded the pickers only offer values the rest of the scope has.
  await page.goto(`${server.url}?q=force&subject=physics&level=high_school&doc_type=solution&chapter=3`);
  await page.waitForFunction(() => window.__chsrDone > 0 && window.__chsrDone === window.__chsrSeq && !document.body.dataset.pending);
  const w1 = await cards(page);
  assert.ok(w1.length > 0 && w1.every((c) => c.leakage === 'cross_topic'));
  await shot(page, '04-widened-other-chapter');

  await page.selectOption('#chapter', '');
  await page.selectOption('#doc_type', '');
  const w2 = await search(page, 'bremsstrahlung', {});
  assert.ok(w2.every((c) => c.leakage === 'cross_level'));
  await page.click('#why-query summary');
  await shot(page, '05-widened-other-level-trace');

  await page.click('#offline summary');
  await page.$eval('#offline', (e) => e.scrollIntoView());
  await shot(page, '06-offline-state');
  await page.close();
});

test('screenshots: French, phone, error state', async () => {
  const fr = await openStudyPage(browser, server.url, { ...DESKTOP, locale: 'fr-FR' });
  await search(fr.page, 'énergie cinétique', { subject: 'physics', level: 'high_school' });
  await fr.page.click('#results > li.card:first-child .why summary');
  await shot(fr.page, '07-french');
  await fr.page.close();

  const phone = await openStudyPage(browser, server.url, {
    viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true, locale: 'fr-FR',
  });
  await search(phone.page, 'force', { subject: 'physics', level: 'high_school', doc_type: 'solution', chapter: '3' });
  await shot(phone.page, '08-phone-widened');
  await phone.page.close();

  const err = await openStudyPage(browser, server.url, { ...DESKTOP, serviceWorkers: 'block' });
  await err.page.route('**/*.chsr', (route) => route.abort('connectionreset'));
  await search(err.page, 'heat', { subject: 'chemistry', level: 'college' });
  assert.equal(await err.page.isVisible('#error'), true);
  await shot(err.page, '09-download-error');
  await err.page.close();
});

test('screenshots: the embed in a host page', async () => {
  const context = await browser.newContext({ viewport: { width: 1100, height: 1000 }, locale: 'en-GB' });
  const page = await context.newPage();
  await page.goto(`${server.url}embed/`);
  await page.waitForSelector('#course-search[data-state="ready"]');
  await page.fill('#course-search input[type="search"]', 'énergie cinétique');
  await page.press('#course-search input[type="search"]', 'Enter');
  await page.waitForSelector('#course-search[data-state="done"]');
  await shot(page, '10-embed-locked-fr');
  await context.close();
});
