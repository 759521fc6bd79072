// Smoke test for the browser stack: playwright-core drives Debian's /usr/bin/chromium (never a
// downloaded browser), reads a heading, and injects axe-core and runs it. Exit 0 = ok, 1 = failure.
//   node tests/browser/smoke.mjs
import { createRequire } from 'node:module';
import { chromium } from 'playwright-core';

const require = createRequire(import.meta.url);
const CHROMIUM_PATH = process.env.CHSR_CHROMIUM || '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage',
  '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync',
];

let browser;
let passed = 0;
let failed = 0;
const check = (ok, what) => {
  console.log(`${ok ? 'ok' : 'FAIL'} - ${what}`);
  if (ok) passed++; else failed++;
};

try {
  browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, timeout: 60_000 });
  const page = await browser.newPage();
  await page.goto('data:text/html,<!doctype html><html lang="en"><title>smoke</title><main><h1>ok</h1></main></html>');
  const h1 = await page.textContent('h1');
  check(h1 === 'ok', `heading text is "ok" (got ${JSON.stringify(h1)})`);

  await page.addScriptTag({ path: require.resolve('axe-core/axe.min.js') });
  const result = await page.evaluate(() => window.axe.run());
  check(result && typeof result === 'object' && Array.isArray(result.violations) && Array.isArray(result.passes),
    `axe.run() returned a result object (${result?.passes?.length} passes, ${result?.violations?.length} violations, axe ${result?.testEngine?.version})`);
} catch (err) {
  check(false, `browser stack: ${err && err.stack || err}`);
} finally {
  if (browser) await browser.close();
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed || passed === 0 ? 1 : 0);
