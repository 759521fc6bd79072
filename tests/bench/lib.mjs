// Shared by the browser benchmark scripts: a static server for the repository with
// cross-origin isolation, and Debian's Chromium through playwright-core.
import { createServer } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { siteHandler } from '../../scripts/serve.mjs';

export const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));

const TYPES = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8', '.json': 'application/json; charset=utf-8', '.wasm': 'application/wasm',
};
/** Serves the repository on 127.0.0.1 (a free port), with COOP/COEP so that timers have 5 µs
 * resolution; resolves to the server, whose `stats` count the body bytes it sent. The study site
 * (`/www/…`) is served by scripts/serve.mjs's handler instead (its headers, caching and
 * compression), so that the demo is measured as that server sends it. */
export function serve() {
  // Body bytes sent, over every request (page, workers, service worker): what crossed the wire.
  // `log` entries: {path, bytes, t} with `t` the request's arrival (Date.now()).
  const stats = { bytes: 0, requests: 0, log: [] };
  const site = siteHandler(join(ROOT, 'www'), {
    onSent: ({ path, bytes, t }) => {
      stats.bytes += bytes;
      stats.requests += 1;
      stats.log.push({ path, bytes, t });
    },
  });
  const server = createServer(async (req, res) => {
    try {
      const url = new URL(req.url, 'http://localhost');
      if (url.pathname.startsWith('/www/')) { await site(req, res, url.pathname.slice('/www'.length)); return; }
      let path = normalize(decodeURIComponent(url.pathname));
      if (path.endsWith('/')) path += 'index.html';
      const file = resolve(join(ROOT, path));
      if (file !== ROOT && !file.startsWith(ROOT + sep)) { res.writeHead(403).end(); return; }
      const st = await stat(file).catch(() => null);
      if (!st || !st.isFile()) { res.writeHead(404).end('not found'); return; }
      const body = await readFile(file);
      res.writeHead(200, {
        'content-type': TYPES[extname(file)] || 'application/octet-stream',
        'content-length': body.length,
        'cache-control': 'no-cache',
        'cross-origin-opener-policy': 'same-origin',
        'cross-origin-embedder-policy': 'require-corp',
        'cross-origin-resource-policy': 'same-origin',
      });
      res.end(body);
      stats.bytes += body.length;
      stats.requests += 1;
      stats.log.push({ path: url.pathname, bytes: body.length, t: Date.now() });
    } catch (e) {
      res.writeHead(500).end(String(e));
    }
  });
  server.stats = stats;
  server.resetStats = () => { stats.bytes = 0; stats.requests = 0; stats.log = []; };
  return new Promise((ok) => server.listen(0, '127.0.0.1', () => ok(server)));
}

// Chromium flags of the page tests (tests/browser/harness.mjs).
const CHROMIUM_ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage',
  '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync',
];

/** Launches Debian's headless Chromium (never a downloaded browser). */
export function launch() {
  return chromium.launch({ executablePath: process.env.CHSR_CHROMIUM || '/usr/bin/chromium', args: CHROMIUM_ARGS, timeout: 60_000 });
}

// Waiting for a page's first result without running anything in the page before it. Playwright's
// `waitForFunction` and `evaluate` first inject its own script into the page (13-20 ms of the
// renderer's main thread on this machine, one task), which right after `goto` lands in the middle
// of the start-up being measured. Instead, a few lines added before the page's own scripts log a
// console message when the page signals its first result, and the DevTools protocol reports it
// without touching the page.
const FIRST_RESULT = '__chsr_bench_first_result__';

/**
 * Makes every page of `ctx` log {@link FIRST_RESULT} at its first result: the study page's first
 * finished search (app.js counts them in `window.__chsrSearches`), or a `<chsr-search>` element's
 * first `chsr-results` event; the page's clocks at that moment are kept in
 * `window.__benchFirstResult` (`{at: performance.now(), now: Date.now()}`). `target`: a browser
 * context, or one page.
 */
export async function signalFirstResult(target) {
  await target.addInitScript((msg) => {
    let said = false;
    const say = () => {
      if (said) return;
      said = true;
      window.__benchFirstResult = { at: performance.now(), now: Date.now() };
      console.debug(msg);
    };
    let n;
    Object.defineProperty(window, '__chsrSearches', {
      configurable: true,
      get: () => n,
      set: (v) => { n = v; if (v > 0) say(); },
    });
    document.addEventListener('chsr-results', say, { once: true });
  }, FIRST_RESULT);
}

/** Resolves at `page`'s first result (see {@link signalFirstResult}); call it before `goto`. */
export function firstResult(page, timeout = 60_000) {
  return page.waitForEvent('console', { predicate: (m) => m.text() === FIRST_RESULT, timeout });
}
