// Accessibility audit with axe-core in the real browser: no violation of serious or critical
// impact in the main states of the study page (desktop and phone, EN and FR) and of the embed.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, openStudyPage, search, axeViolations } from './harness.mjs';

let server;
let browser;
before(async () => { server = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.stop(); });

test('study page: ready, results with every panel open, widened results', async () => {
  const { page } = await openStudyPage(browser, server.url, { locale: 'en-GB' });
  assert.deepEqual(await axeViolations(page), [], 'ready');
  await search(page, 'specific heat', { subject: 'physics', level: 'high_school' });
  await page.click('#why-query summary');
  await page.click('#results > li.card:first-child .why summary');
  await page.click('#results > li.card:first-child button.show-section');
  await page.waitForSelector('#results > li.card:first-child .section-panel[data-loaded="true"]');
  await page.click('#offline summary');
  assert.deepEqual(await axeViolations(page), [], 'results');
  // A scope with nothing in it (chapter 3 has no answers): the pickers only offer values the rest
  // of the scope has, so it comes from a link, as it would in practice.
  await page.goto(`${server.url}?q=force&subject=physics&level=high_school&doc_type=solution&chapter=3`);
  await page.waitForFunction(() => window.__chsrDone > 0 && window.__chsrDone === window.__chsrSeq && !document.body.dataset.pending);
  assert.ok(await page.$('#results > li.card.widened'));
  assert.deepEqual(await axeViolations(page), [], 'widened');
  await page.close();
});

test('study page in French on a phone, with a notice shown', async () => {
  const { page } = await openStudyPage(browser, `${server.url}?subject=biologie`, {
    locale: 'fr-FR', viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true,
  });
  assert.deepEqual(await axeViolations(page), [], 'scope notice');
  await search(page, 'énergie cinétique', { subject: 'physics', level: 'high_school' });
  // Readable on a phone: nothing wider than the screen.
  assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), 'no horizontal scroll');
  assert.deepEqual(await axeViolations(page), [], 'results');
  await page.close();
});

test('embed page with results', async () => {
  const context = await browser.newContext({ locale: 'en-GB' });
  const page = await context.newPage();
  await page.goto(`${server.url}embed/`);
  await page.waitForSelector('#course-search[data-state="ready"]');
  await page.fill('#course-search input[type="search"]', 'specific heat');
  await page.press('#course-search input[type="search"]', 'Enter');
  await page.waitForSelector('#course-search[data-state="done"]');
  await page.click('#course-search .why-query summary');
  await page.click('#course-search li.card .why summary');
  assert.deepEqual(await axeViolations(page), []);
  await context.close();
});
