// Shared by the browser benchmark scripts: a static server for the repository with
// cross-origin isolation, and Debian's Chromium through playwright-core.
//
// `--h2` (any script using `listen`/`serve` and `launch`): the files are served over HTTP/2
// (TLS with a self-signed certificate made for the run; Chromium told to accept it), as most
// static hosts serve a site (GitHub Pages, Netlify, Cloudflare Pages), instead of the HTTP/1.1
// of scripts/serve.mjs: every request of a page shares one connection instead of six, which
// changes how long the many small postings and text parts take on a slow network. The committed
// record (bench/perf/browser.json) is HTTP/1.1, the harder case.
import { createServer } from 'node:http';
import { createSecureServer } from 'node:http2';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, extname, join, normalize, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { siteHandler } from '../../scripts/serve.mjs';

export const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));

/** Whether this run serves over HTTP/2 (`--h2` on the command line). */
export const H2 = process.argv.slice(2).includes('--h2');
/** The protocol the pages are served with, as results record it. */
export const PROTOCOL = H2 ? 'h2' : 'http/1.1';

/** A throwaway self-signed certificate for 127.0.0.1 (openssl, one per process). */
let certificate = null;
function tlsCertificate() {
  if (!certificate) {
    const dir = mkdtempSync(join(tmpdir(), 'chsr-bench-tls-'));
    try {
      execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
        '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'), '-days', '2', '-subj', '/CN=127.0.0.1',
        '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: ['ignore', 'ignore', 'pipe'] });
      certificate = { key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) };
    } catch (e) {
      throw new Error(`--h2 needs a TLS certificate and openssl could not make one: ${e.stderr || e.message}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return certificate;
}

/**
 * Listens with `handler` (`(req, res)`, Node's HTTP/1.1 API, which its HTTP/2 compatibility API
 * shares) on 127.0.0.1, a free port: HTTP/1.1, or HTTP/2 over TLS with `--h2`. Resolves to the
 * server; `server.origin` is its base URL.
 */
export async function listen(handler) {
  const server = H2 ? createSecureServer({ ...tlsCertificate(), allowHTTP1: false }, handler) : createServer(handler);
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  server.origin = `${H2 ? 'https' : 'http'}://127.0.0.1:${server.address().port}`;
  return server;
}

/** Sets `key` of the JSON record `file` to `value`, keeping its other keys (the file and its
 * folder are created if missing): how a measure joins bench/perf/browser.json without rewriting
 * the rest. */
export function recordKey(file, key, value) {
  mkdirSync(dirname(resolve(file)), { recursive: true });
  const record = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : {};
  record[key] = value;
  writeFileSync(file, `${JSON.stringify(record)}\n`);
}

const TYPES = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8', '.json': 'application/json; charset=utf-8', '.wasm': 'application/wasm',
};
/** Serves the repository on 127.0.0.1 (a free port), with COOP/COEP so that timers have 5 µs
 * resolution; resolves to the server, whose `stats` count the body bytes it sent. The study site
 * (`/www/…`) is served by scripts/serve.mjs's handler instead (its headers, caching and
 * compression), so that the demo is measured as that server sends it. Over HTTP/2 with `--h2`
 * (see {@link listen}); `server.origin` is its base URL. */
export async function serve() {
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
  const handler = async (req, res) => {
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
  };
  const server = await listen(handler);
  server.stats = stats;
  server.resetStats = () => { stats.bytes = 0; stats.requests = 0; stats.log = []; };
  return server;
}

// Chromium flags of the page tests (tests/browser/harness.mjs).
const CHROMIUM_ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage',
  '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync',
];

/** Launches Debian's headless Chromium (never a downloaded browser); with `--h2`, accepting the
 * run's self-signed certificate (service workers included). */
export function launch() {
  const args = H2 ? [...CHROMIUM_ARGS, '--ignore-certificate-errors'] : CHROMIUM_ARGS;
  return chromium.launch({ executablePath: process.env.CHSR_CHROMIUM || '/usr/bin/chromium', args, timeout: 60_000 });
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
