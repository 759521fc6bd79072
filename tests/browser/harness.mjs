// Shared harness for the page tests: serve www/ on 127.0.0.1 with scripts/serve.mjs and drive
// Debian's /usr/bin/chromium with playwright-core (never a downloaded browser).
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

export const require = createRequire(import.meta.url);
export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CHROMIUM_PATH = process.env.CHSR_CHROMIUM || '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage',
  '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync',
];

/** Starts the static server on a free port; resolves to {url, stop}. */
export function serve(root = `${ROOT}www`) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [`${ROOT}scripts/serve.mjs`, '--root', root, '--port', '0'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const m = out.match(/at (http:\/\/127\.0\.0\.1:\d+\/)/);
      if (m) resolve({ url: m[1], stop: () => child.kill() });
    });
    child.on('exit', (code) => reject(new Error(`server exited (${code}): ${out}`)));
  });
}

/** Launches headless Chromium. */
export function launch() {
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, timeout: 60_000 });
}

/** Opens the study page and waits until the engine is ready; collects console errors. */
export async function openStudyPage(browser, url) {
  const page = await browser.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  await page.goto(url);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 30_000 });
  return { page, errors };
}

/** Picks a scope, types a query, submits, and returns the result cards' data. */
export async function search(page, query, scope) {
  for (const [field, value] of Object.entries(scope)) {
    await page.selectOption(`#${field}`, value);
  }
  await page.fill('#q', query);
  const before = await page.evaluate(() => window.__chsrSearches || 0);
  await page.press('#q', 'Enter');
  await page.waitForFunction((n) => (window.__chsrSearches || 0) > n, before, { timeout: 30_000 });
  return page.$$eval('#results > li.card', (cards) => cards.map((c) => ({
    id: c.dataset.id, subject: c.dataset.subject, level: c.dataset.level,
    text: c.textContent,
  })));
}
