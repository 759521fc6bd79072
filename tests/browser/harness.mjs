// Shared harness for the page tests: serve www/ on 127.0.0.1 with scripts/serve.mjs and drive
// Debian's /usr/bin/chromium with playwright-core (never a downloaded browser).
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { before, after } from 'node:test';
import { chromium } from 'playwright-core';

export const require = createRequire(import.meta.url);
export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CHROMIUM_PATH = process.env.CHSR_CHROMIUM || '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage',
  '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync',
];

/**
 * Starts the static server on a free port; resolves to {url, stop, requests}: `requests` lists the
 * paths the server answered ("GET /path 200"), in order.
 */
export function serve(root = `${ROOT}www`) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [`${ROOT}scripts/serve.mjs`, '--root', root, '--port', '0', '--log'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    const requests = [];
    let url = null;
    child.stdout.on('data', (d) => {
      out += d;
      const lines = out.split('\n');
      out = lines.pop();
      for (const line of lines) {
        const m = line.match(/at (http:\/\/127\.0\.0\.1:\d+\/)/);
        if (m && !url) {
          url = m[1];
          resolveServer();
        } else if (/^[A-Z]+ \//.test(line)) {
          requests.push(line);
        }
      }
    });
    const resolveServer = () => resolve({
      url,
      requests,
      // Resolves once the server process is gone (a real network cut for the offline test).
      stop: () => new Promise((done) => {
        if (child.exitCode !== null || child.signalCode !== null) { done(); return; }
        child.once('exit', () => done());
        child.kill();
      }),
    });
    child.on('exit', (code) => reject(new Error(`server exited (${code}): ${out}`)));
  });
}

/** Launches headless Chromium. */
export function launch() {
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, timeout: 60_000 });
}

/**
 * Opens the study page in a fresh browser context and waits until the engine is ready. Collects
 * page errors and console errors (CSP violations are reported there) in `errors`.
 */
export async function openStudyPage(browser, url, contextOptions = {}) {
  const context = await browser.newContext(contextOptions);
  const page = await context.newPage();
  const errors = watchErrors(page);
  await page.goto(url);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 30_000 });
  page.once('close', () => context.close().catch(() => {}));
  return { page, errors, context };
}

/** Collects page errors and console errors of a page. */
export function watchErrors(page) {
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  return errors;
}

/**
 * Waits until the search started after `beforeSeq` (or a later one) has finished and its results
 * are final: not waiting for enhancement files (the model), whose arrival searches again. With
 * `query`, the search shown must be that query's: keys typed on a busy machine can pause long
 * enough to start a prefix's search, which may end while the last key's still waits for the pause.
 */
export async function waitSearch(page, beforeSeq, query = null) {
  await page.waitForFunction(([n, q]) => (window.__chsrSeq || 0) > n && window.__chsrDone === window.__chsrSeq
    && !document.body.dataset.pending && (q === null || window.__chsrQuery === q), [beforeSeq, query], { timeout: 30_000 });
}

/** The current search sequence number of the study page. */
export function searchSeq(page) {
  return page.evaluate(() => window.__chsrSeq || 0);
}

/** The result cards' data on the study page. */
export function cards(page, root = '#results') {
  return page.$$eval(`${root} > li.card`, (list) => list.map((c) => ({
    id: c.dataset.id, subject: c.dataset.subject, level: c.dataset.level, leakage: c.dataset.leakage,
    inScope: c.dataset.inScope === 'true', text: c.textContent,
    label: c.querySelector('.leak-label') ? c.querySelector('.leak-label').textContent : null,
  })));
}

/**
 * Picks a scope (other pickers keep their values; the scope panel opened if closed), types a
 * query, submits, waits for that search and returns the result cards' data. The query box is
 * emptied first so that picking does not start searches of intermediate scopes.
 */
export async function search(page, query, scope) {
  await page.fill('#q', '');
  // On a phone the scope panel is a closed one-line summary: open it, as a student would.
  if (Object.keys(scope).length > 0 && await page.$('#scope-panel:not([open])')) await page.click('#scope-panel > summary');
  for (const [field, value] of Object.entries(scope)) {
    await page.selectOption(`#${field}`, value);
  }
  await page.fill('#q', query);
  const before = await searchSeq(page);
  await page.press('#q', 'Enter');
  await waitSearch(page, before);
  return cards(page);
}

/** Runs axe-core on the page; returns the violations of serious or critical impact. */
export async function axeViolations(page, options = {}) {
  if (!(await page.evaluate(() => typeof window.axe !== 'undefined'))) {
    // Not addScriptTag: the page's CSP (rightly) refuses inline scripts; code evaluated by the
    // test driver is exempt, so axe is evaluated into the page instead.
    await page.evaluate(readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8'));
  }
  const result = await page.evaluate((opts) => window.axe.run(document, opts), options);
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.impact} ${v.id}: ${v.help} — ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(' | ')}`);
}

/** A copy of www/ in a fresh temporary folder (shards included unless `shards: false`). */
export function copySite({ shards = true } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'chsr-site-'));
  cpSync(`${ROOT}www`, dir, {
    recursive: true,
    filter: (src) => shards || !src.includes(`${sep}www${sep}shards`),
  });
  return dir;
}

/** Rewrites a site's build.json (after changing its files), as scripts/build-site does. */
export function stampSite(dir) {
  execFileSync(process.execPath, [`${ROOT}scripts/site-version.mjs`, dir], { stdio: 'ignore' });
  return JSON.parse(readFileSync(join(dir, 'build.json'), 'utf8')).build;
}

/** Builds shards from JSONL records with the release CLI into `dir/shards`. */
export function buildShards(dir, records) {
  const cli = `${ROOT}target/release/chsr`;
  if (!existsSync(cli)) throw new Error('target/release/chsr is missing: run scripts/build-site first');
  const jsonl = join(dir, 'corpus.jsonl');
  writeFileSync(jsonl, records.map((r) => JSON.stringify(r)).join('\n') + '\n');
  rmSync(join(dir, 'shards'), { recursive: true, force: true });
  execFileSync(cli, ['build', '--out', join(dir, 'shards'), jsonl], { stdio: 'ignore' });
  rmSync(jsonl);
}

/**
 * A served copy of the site for the tests of one file: before them, copies www/ (with shards
 * built from `records` instead of the demo's, when given), stamps it, serves it and launches
 * Chromium; after them, closes both and removes the copy. Returns `{ dir, server, browser }`,
 * filled in by the `before` hook.
 */
export function servedCopy({ records = null } = {}) {
  const site = { dir: null, server: null, browser: null };
  before(async () => {
    site.dir = copySite({ shards: !records });
    if (records) buildShards(site.dir, records);
    stampSite(site.dir);
    site.server = await serve(site.dir);
    site.browser = await launch();
  });
  after(async () => {
    await site.browser?.close();
    await site.server?.stop();
    if (site.dir) rmSync(site.dir, { recursive: true, force: true });
  });
  return site;
}

/** Where the screenshot test writes (gitignored: under target/). */
export const SCREENSHOTS = `${ROOT}target/screenshots`;
