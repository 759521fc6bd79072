#!/usr/bin/env node
// Browser benchmark driver (scripts/bench-browser runs it): chsr's Wasm module and Orama, in
// the same headless Chromium (Debian's /usr/bin/chromium, never a downloaded browser), on the
// OpenCERB dev queries.
//
//   node tests/bench/run.mjs --export DIR [--repeat 3] [--limit N] [--out bench/perf/browser.json]
//                            [--skip-demo] [--skip-orama] [--only demo,typing,throttled,first,cold,warm] [--demo-rounds N]
//                            [--typing-queries N] [--typing-keys N] [--ids FILE] [--h2] [--throttled-key NAME]
//
// `--h2`: the pages and files served over HTTP/2 instead of HTTP/1.1 (tests/bench/lib.mjs), as
// most static hosts serve them; `protocol` in the results says which. `--throttled-key NAME`
// (with `--out FILE`): only the throttled first visits are written, into FILE's NAME key, its
// other keys kept (scripts/bench-browser: `throttled_h2`).
//
// `--ids FILE`: each system's result ids for every query, one JSON line per system
// ({name, queries, ids}), so that two builds (`--site`: another module, other shards) can be
// compared result by result: `python3 -c` over two such files, or `cmp` when they are identical.
//
// It serves the repository on 127.0.0.1 with cross-origin isolation (COOP/COEP), so that
// performance.now() has 5 µs resolution instead of 100 µs, and counts the bytes every phase
// receives through the DevTools protocol (Network.loadingFinished.encodedDataLength).
import { writeFile, mkdir } from 'node:fs/promises';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve, sep, dirname, relative } from 'node:path';
import { gzipSync } from 'node:zlib';
import { ROOT, PROTOCOL, serve, launch, recordKey, signalFirstResult, firstResult } from './lib.mjs';

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  return i >= 0 && args[i + 1] !== undefined ? args[i + 1] : dflt;
};
const flag = (name) => args.includes(name);
const EXPORT = resolve(opt('--export', join(ROOT, 'target/bench-perf/export')));
const REPEAT = Number(opt('--repeat', '3'));
const LIMIT = Number(opt('--limit', '0')) || undefined;
const OUT = opt('--out', null);
const THROTTLED_KEY = opt('--throttled-key', null);
const IDS_OUT = opt('--ids', null);
const VARIANTS = opt('--variants', 'A,B,B+,C,D,E,F,F+dense').split(',');
// Site whose pkg/ and shards/ the bench page uses (another Wasm build, other shards), from the root.
const SITE = opt('--site', '/www');
const SITE_DIR = join(ROOT, SITE);
// The Wasm module the warm and cold parts run (pkg/ of the site): the whole engine by default,
// since the variants include dense ones. The lexical-only variants (`--lexical-variants`, F by
// default: the engine's default variant, which pages run on `chsr_lexical_bg.wasm`) are timed
// on the lexical module, as students run them, when the site has it; `--lexical-variants ''`
// times every variant on MODULE.
const MODULE = opt('--module', 'chsr_bg.wasm');
const LEXICAL_MODULE = 'chsr_lexical_bg.wasm';
const LEXICAL_VARIANTS = new Set(opt('--lexical-variants', 'F').split(',').filter(Boolean));
const ORAMA_WEIGHTS = opt('--orama-weights', '0.5:0.5,0.2:0.8')
  .split(',').map((w) => { const [t, v] = w.split(':').map(Number); return { text: t, vector: v }; });
const ORAMA_SIMILARITY = Number(opt('--orama-similarity', '-1'));
const K = 8;
// `--only demo,typing,throttled,first,cold,warm`: run only these parts (default: all).
const ONLY_SET = opt('--only', null);
const ONLY = (part) => !ONLY_SET || ONLY_SET.split(',').includes(part);
const DEMO_ROUNDS = Number(opt('--demo-rounds', '1'));
// `--typing-keys N`: keystrokes measured per question, its last N letters or digits (3: about 120
// a scope, so that a run's p50 moves by about ±1.5 ms between runs instead of ±2.6 with one key a
// question: the wait for the next frame, uniform over 16.7 ms, is most of a key's time).
const TYPING_KEYS = Number(opt('--typing-keys', '3'));

const pct = (xs, p) => {
  const v = [...xs].sort((a, b) => a - b);
  if (!v.length) return NaN;
  return v[Math.min(v.length - 1, Math.max(0, Math.ceil((p / 100) * v.length) - 1))];
};
const median = (xs) => pct(xs, 50);
const mean = (xs) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
const gz = (buf) => gzipSync(buf, { level: 9 }).length;
const kB = (n) => (n / 1000).toFixed(1);
const f2 = (x) => (Number.isFinite(x) ? x.toFixed(2) : '-');
const f3 = (x) => (Number.isFinite(x) ? x.toFixed(3) : '-');
const log = (...a) => console.error(...a);

/** Counts the bytes Chromium receives, per URL, through the DevTools protocol. */
async function netMeter(page, { cacheDisabled = true } = {}) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.setCacheDisabled', { cacheDisabled });
  const urls = new Map();
  let entries = [];
  cdp.on('Network.requestWillBeSent', (e) => urls.set(e.requestId, e.request.url));
  cdp.on('Network.loadingFinished', (e) => {
    entries.push({ url: urls.get(e.requestId), bytes: e.encodedDataLength });
    urls.delete(e.requestId);
  });
  cdp.on('Network.loadingFailed', (e) => urls.delete(e.requestId));
  return {
    cdp,
    /** Waits until every request seen has finished (the protocol's events lag the page). */
    async take() {
      for (let i = 0; i < 200 && urls.size > 0; i++) await new Promise((r) => setTimeout(r, 25));
      await new Promise((r) => setTimeout(r, 50));
      const out = entries; entries = []; return out;
    },
    total(list) { return list.reduce((a, e) => a + e.bytes, 0); },
    async heap() {
      await cdp.send('HeapProfiler.collectGarbage');
      return (await cdp.send('Runtime.getHeapUsage')).usedSize;
    },
  };
}

/** Raw and gzip -9 sizes of files served from the repository, by URL. */
function fileSizes(list) {
  let raw = 0; let gzip = 0;
  for (const e of list) {
    const p = join(ROOT, decodeURIComponent(new URL(e.url).pathname));
    const b = readFileSync(p);
    raw += b.length; gzip += gz(b);
  }
  return { raw, gzip };
}

// ------------------------------------------------------------------ metrics (src/eval/metrics.rs)
function ndcgAt(ids, grades, k) {
  const ideal = Object.values(grades).sort((a, b) => b - a).slice(0, k);
  const idcg = ideal.reduce((s, g, r) => s + g / Math.log2(r + 2), 0);
  if (idcg === 0) return 0;
  const dcg = ids.slice(0, k).reduce((s, id, r) => s + (grades[id] || 0) / Math.log2(r + 2), 0);
  return dcg / idcg;
}
function leakage(q, sl) {
  const res = sl.slice(0, K);
  if (!res.length) return 0;
  const subj = q.scope.subject !== undefined ? String(q.scope.subject).trim() : null;
  const lev = q.scope.level !== undefined ? String(q.scope.level).trim() : null;
  return res.filter(([s, l]) => (subj !== null && s !== subj) || (lev !== null && l !== lev)).length / res.length;
}
function recallAt(ids, grades, k) {
  const denom = Math.min(Object.keys(grades).length, k);
  if (!denom) return 0;
  return new Set(ids.slice(0, k).filter((id) => id in grades)).size / denom;
}
function quality(queries, runs) {
  const nd = runs.map((r, i) => ndcgAt(r.ids, queries[i].grades, K));
  const lk = runs.map((r, i) => leakage(queries[i], r.sl));
  const rc = runs.map((r, i) => recallAt(r.ids, queries[i].grades, K));
  return { ndcg8: mean(nd), recall8: mean(rc), leak8: mean(lk), any_leak: mean(lk.map((x) => (x > 0 ? 1 : 0))) };
}
function latency(xs) {
  return { p50: pct(xs, 50), p95: pct(xs, 95), p99: pct(xs, 99), mean: mean(xs), max: Math.max(...xs) };
}
/** Per query, the median over rounds of each number; ids etc. from the first round. */
function mergeRounds(rounds) {
  return rounds[0].map((first, i) => {
    const calls = rounds.map((r) => r[i].call_ms);
    const out = { ...first, call_ms: median(calls), call_min_ms: Math.min(...calls) };
    if (first.timings) {
      out.timings = Object.fromEntries(Object.keys(first.timings).map((k) => [k, median(rounds.map((r) => r[i].timings[k]))]));
    }
    return out;
  });
}

// ------------------------------------------------------------------ main
const results = { settings: { repeat: REPEAT, limit: LIMIT || null, k: K, site: SITE }, load: loadInfo() };
function loadInfo() {
  try { return readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).map(Number); } catch { return null; }
}

const server = await serve();
const origin = server.origin;
const exportUrl = `/${relative(ROOT, EXPORT).split(sep).join('/')}`;
const browser = await launch();
results.chromium = browser.version();
results.protocol = PROTOCOL;
const queries = JSON.parse(readFileSync(join(EXPORT, 'queries.json'), 'utf8')).slice(0, LIMIT);
const manifest = JSON.parse(readFileSync(join(SITE_DIR, 'shards/manifest.json'), 'utf8'));
log(`chromium ${results.chromium}, served over ${PROTOCOL}, ${queries.length} queries, repeat ${REPEAT}, load ${results.load}`);

// Sizes of what is published.
{
  const f = (p) => readFileSync(join(SITE_DIR, p));
  const wasm = f('pkg/chsr_bg.wasm'); const js = f('pkg/chsr.js');
  results.sizes = {
    wasm: { raw: wasm.length, gzip: gz(wasm) }, js: { raw: js.length, gzip: gz(js) },
    ...(existsSync(join(SITE_DIR, 'pkg', 'chsr_lexical_bg.wasm'))
      ? { wasm_lexical: { raw: f('pkg/chsr_lexical_bg.wasm').length, gzip: gz(f('pkg/chsr_lexical_bg.wasm')) } } : {}),
    manifest: { raw: f('shards/manifest.json').length, gzip: gz(f('shards/manifest.json')) },
    model: manifest.model ? { raw: f(`shards/${manifest.model.file}`).length, gzip: gz(f(`shards/${manifest.model.file}`)) } : null,
    shards: manifest.shards.map((s) => {
      const b = f(`shards/${s.file}`);
      return { file: s.file, subject: s.subject, level: s.level, chunks: s.chunks, raw: b.length, gzip: gz(b) };
    }),
  };
}

// 1. The demo page opened from a link that names a query and a subject-level scope (the first
// search starts with the page): bytes the server sent for requests that arrived before the first
// result was rendered (the service worker's included), the time from navigation to it, and what
// follows (the results upgraded once the model lands, the service worker's install).
// Milliseconds from the end of the page's own HTML (its navigation entry's responseEnd) to the
// first result (app.js's clock stamp): the issue's "cold start after the page's HTML".
const afterHtml = (page) => page.evaluate(() => {
  const nav = performance.getEntriesByType('navigation')[0];
  return window.__chsrFirstResultAt && nav ? Math.round(window.__chsrFirstResultAt - performance.timeOrigin - nav.responseEnd) : null;
});
async function demoRun(s, q) {
  const ctx = await browser.newContext();
  await signalFirstResult(ctx);
  const page = await ctx.newPage();
  const net = await netMeter(page, { cacheDisabled: false });
  server.resetStats();
  const params = new URLSearchParams({ q: q.query, subject: s.subject, level: s.level });
  const t0 = Date.now();
  const searched = firstResult(page);
  await page.goto(`${origin}/www/index.html?${params}`);
  await searched;
  const polled = Date.now();
  // The page's own clock stamp (app.js) when it has one, else the moment its signal arrived.
  const firstAt = (await page.evaluate(() => window.__chsrFirstResultAt)) || polled;
  const htmlToFirst = await afterHtml(page);
  const n = await page.$$eval('#results > li.card', (c) => c.length);
  const trace = await page.evaluate(() => window.__chsrFirstTrace || null);
  // Then let the background work finish: the upgrade to hybrid (when the search has a dense
  // path; the default is lexical-only), the service worker's install.
  let upgradedAt = null;
  try {
    await page.waitForFunction(() => window.__chsrUpgradedAt || (window.__chsrLast && !window.__chsrLast.trace.dense_path), null, { timeout: 15_000 });
    upgradedAt = await page.evaluate(() => window.__chsrUpgradedAt || null);
  } catch { /* a page without an upgrade (the model loaded before the first result) */ }
  await page.waitForFunction(() => window.__chsrRegistered === true, null, { timeout: 30_000 }).catch(() => {});
  // The service worker saves the collection for offline use in the background (the shard, its
  // vectors and every text part): a second visit comes after it is done.
  await page.waitForSelector('#offline-current.saved', { timeout: 60_000 }).catch(() => {});
  await page.waitForTimeout(1500);
  await net.take();
  const before = server.stats.log.filter((e) => e.t <= firstAt);
  const after = server.stats.log.filter((e) => e.t > firstAt);
  const sumFirst = before.reduce((a, e) => a + e.bytes, 0);
  // A second visit in the same browser (HTTP cache and service worker in place).
  server.resetStats();
  const page2 = await ctx.newPage();
  const t2 = Date.now();
  const searched2 = firstResult(page2);
  await page2.goto(`${origin}/www/index.html?${params}`);
  await searched2;
  const polled2 = Date.now();
  const firstAt2 = (await page2.evaluate(() => window.__chsrFirstResultAt)) || polled2;
  const htmlToFirst2 = await afterHtml(page2);
  const repeat = server.stats.log.filter((e) => e.t <= firstAt2);
  // A returning student (the next day): the site's pages closed first, so the page starts in a
  // new renderer with nothing compiled in memory (a second visit while the first page is still
  // open runs in the same renderer and reuses what it compiled: session 39 measured chemistry's
  // at about 250 ms with the first page open, about 400 ms with it closed); the saved files, the
  // code the browser caches with them and the service worker in place.
  await page2.close();
  await page.close();
  const page3 = await ctx.newPage();
  const searched3 = firstResult(page3);
  await page3.goto(`${origin}/www/index.html?${params}`);
  await searched3;
  const htmlToFirst3 = await afterHtml(page3);
  const row = {
    subject: s.subject, level: s.level, query: q.id, results: n,
    repeat_bytes: repeat.reduce((a, e) => a + e.bytes, 0), repeat_requests: repeat.length, repeat_first_ms: firstAt2 - t2,
    first_ms: firstAt - t0, upgraded_ms: upgradedAt ? upgradedAt - t0 : null,
    html_to_first_ms: htmlToFirst, repeat_html_to_first_ms: htmlToFirst2, returning_html_to_first_ms: htmlToFirst3,
    lexical_first: trace ? (trace.dense_plans || []).length === 0 : null,
    served_bytes: sumFirst, served_requests: before.length, served_files: before.map((e) => `${e.path} ${e.bytes}`),
    after_bytes: after.reduce((a, e) => a + e.bytes, 0), after_files: after.map((e) => `${e.path} ${e.bytes}`),
  };
  await ctx.close();
  return row;
}
if (!flag('--skip-demo') && ONLY('demo') && SITE === '/www') {
  results.demo = [];
  for (const s of manifest.shards) {
    const q = queries.find((x) => x.scope.subject === s.subject && x.scope.level === s.level) || queries[0];
    const runs = [];
    for (let i = 0; i < DEMO_ROUNDS; i++) runs.push(await demoRun(s, q));
    const row = { ...runs[0], first_ms: median(runs.map((r) => r.first_ms)), first_ms_runs: runs.map((r) => r.first_ms),
      upgraded_ms: runs[0].upgraded_ms === null ? null : median(runs.map((r) => r.upgraded_ms)),
      served_bytes_runs: runs.map((r) => r.served_bytes) };
    row.repeat_first_ms = median(runs.map((r) => r.repeat_first_ms));
    row.html_to_first_ms = median(runs.map((r) => r.html_to_first_ms));
    row.repeat_html_to_first_ms = median(runs.map((r) => r.repeat_html_to_first_ms));
    row.returning_html_to_first_ms = median(runs.map((r) => r.returning_html_to_first_ms));
    results.demo.push(row);
    log(`demo ${s.subject}/${s.level}: ${row.results} results, server sent ${kB(row.served_bytes)} kB in ${row.served_requests} requests before the first result (${row.lexical_first ? 'lexical' : 'hybrid'}) at ${row.first_ms} ms [${row.first_ms_runs}]${row.upgraded_ms ? `, upgraded at ${row.upgraded_ms} ms` : ''}; then ${kB(row.after_bytes)} kB; second visit: ${kB(row.repeat_bytes)} kB in ${row.repeat_requests} requests, first result at ${row.repeat_first_ms} ms; after the HTML: first visit ${row.html_to_first_ms} ms, second ${row.repeat_html_to_first_ms} ms (first page open), ${row.returning_html_to_first_ms} ms (pages closed)`);
  }
}

// 1b. The page as a student types: keystroke → results painted, warm (shards and model loaded).
// For each query the box holds what comes before one of its last characters (settled), then
// that key is pressed through the DevTools protocol (`--typing-keys`); the time runs from the
// key event's timestamp to the frame after the one in which the result list changed (a rAF
// after the mutation, then a task: the frame has been painted by then).
async function typingRun(s, qs) {
  const ctx = await browser.newContext();
  const page = await ctx.newPage();
  const params = new URLSearchParams({ q: qs[0].query, subject: s.subject, level: s.level });
  await page.goto(`${origin}/www/index.html?${params}`);
  await page.waitForFunction(() => (window.__chsrSearches || 0) > 0, null, { timeout: 60_000 });
  // Warm: the model and dense parts in (the page upgrades once they land), then the rest of the
  // collection's text (loaded in the background after the upgrade).
  await page.waitForFunction(() => window.__chsrUpgradedAt || !document.body.dataset.pending, null, { timeout: 30_000 }).catch(() => {});
  await page.waitForFunction(() => window.__chsrTextReadyAt, null, { timeout: 60_000 }).catch(() => {});
  await page.evaluate(() => {
    window.__kp = [];
    window.__kdom = [];
    // A task queued while a frame's animation callbacks run runs once that frame is painted.
    const afterPaint = (fn) => { const ch = new MessageChannel(); ch.port1.onmessage = fn; ch.port2.postMessage(0); };
    // Whether we are inside a frame's animation callbacks (this loop's callback runs first).
    let inFrame = false;
    const loop = () => { inFrame = true; afterPaint(() => { inFrame = false; }); requestAnimationFrame(loop); };
    requestAnimationFrame(loop);
    const q = document.getElementById('q');
    q.addEventListener('keydown', (e) => { window.__kd = e.timeStamp; }, true);
    const answered = () => {
      const kd = window.__kd;
      if (kd == null) return;
      window.__kd = null;
      window.__kdom.push(performance.now() - kd);
      const done = () => window.__kp.push(performance.now() - kd);
      // Changed inside a frame: painted at its end; otherwise at the end of the next frame.
      if (inFrame) afterPaint(done);
      else requestAnimationFrame(() => afterPaint(done));
    };
    // The page's answer to the keystroke: the result list changed (cards kept across keystrokes
    // change in place), or the status line; or, when neither changed (the same results, the same
    // time to the tenth of a millisecond), the page rendered the response all the same: app.js
    // sets `window.__chsrLast` as its render starts, and this runs once that task's work is done,
    // as a mutation observer's callback would.
    const mo = new MutationObserver(answered);
    mo.observe(document.getElementById('results'), { childList: true, subtree: true, characterData: true });
    mo.observe(document.getElementById('status'), { childList: true, subtree: true, characterData: true });
    let last = window.__chsrLast;
    Object.defineProperty(window, '__chsrLast', {
      configurable: true, get: () => last, set: (v) => { last = v; queueMicrotask(answered); },
    });
  });
  // Downloads in flight when a key is pressed (a background download, say another level's shard
  // that a widening step asked for): what a slow key may have waited behind.
  let inFlight = 0;
  page.on('request', () => { inFlight++; });
  page.on('requestfinished', () => { inFlight--; });
  page.on('requestfailed', () => { inFlight--; });
  const keys = [];
  for (const q of qs) {
    // Ends on a letter or digit, so that the last key is a real key press (keydown, input).
    const text = q.query.slice(0, 200).replace(/[^A-Za-z0-9]+$/, '');
    if (text.length < 2) continue;
    // The question's last `TYPING_KEYS` letters and digits, each pressed with the box settled on
    // what comes before it, as a student's keys arrive once the previous one's results are shown.
    const at = [];
    for (let i = text.length - 1; i >= 1 && at.length < TYPING_KEYS; i--) if (/[A-Za-z0-9]/.test(text[i])) at.unshift(i);
    for (const i of at) {
      await page.fill('#q', text.slice(0, i));
      await page.waitForFunction(() => window.__chsrDone === window.__chsrSeq, null, { timeout: 10_000 }).catch(() => {});
      // A student's key comes at any moment of a frame; the benchmark's would come at about the
      // same moment every time (the wait above polls once a frame, then a fixed pause), and its
      // wait for the next frame would be the same for every key of a run: luck, not the page.
      // Each key is delayed by a further fraction of a frame, spread evenly (golden-ratio steps).
      const phase = ((keys.length + 1) * 0.6180339887) % 1;
      await page.waitForTimeout(50 + phase * 1000 / 60);
      const before = await page.evaluate(() => { window.__kd = null; return window.__kp.length; });
      await page.focus('#q');
      const downloading = inFlight;
      await page.keyboard.press(text[i]);
      await page.waitForFunction((n) => window.__kp.length > n, before, { timeout: 10_000 }).catch(() => {});
      const got = await page.evaluate((n) => [window.__kp[n], window.__kdom[n], window.__chsrLast && window.__chsrLast.trace.timings.total_ms], before);
      keys.push({ id: q.id, at: i, ms: got[0], dom: got[1], engine: got[2], downloading });
    }
  }
  await ctx.close();
  return {
    ms: keys.map((k) => k.ms).filter((x) => x !== undefined),
    dom: keys.map((k) => k.dom),
    engine: keys.map((k) => k.engine),
    keys,
  };
}
if (ONLY('typing') && SITE === '/www') {
  results.typing = [];
  const PER_SCOPE = Number(opt('--typing-queries', '40'));
  for (const s of manifest.shards) {
    const qs = queries.filter((x) => x.scope.subject === s.subject && x.scope.level === s.level).slice(0, PER_SCOPE);
    if (qs.length === 0) continue;
    const run = await typingRun(s, qs);
    const pct = (xs, f) => { const v = xs.filter(Number.isFinite).sort((a, b) => a - b); return v[Math.min(v.length - 1, Math.floor(f * v.length))]; };
    const row = {
      subject: s.subject, level: s.level, n: run.ms.length, p50: pct(run.ms, 0.5), p95: pct(run.ms, 0.95),
      dom_p50: pct(run.dom, 0.5), dom_p95: pct(run.dom, 0.95), engine_p50: pct(run.engine, 0.5), engine_p95: pct(run.engine, 0.95),
      // Each keystroke (query id; paint, DOM and engine ms; downloads in flight at the key), to
      // find what makes the tail.
      per_key: run.keys,
    };
    results.typing.push(row);
    log(`typing ${s.subject}/${s.level}: keystroke → paint p50 ${f2(row.p50)} ms, p95 ${f2(row.p95)} ms over ${row.n} keystrokes (results in the DOM p50 ${f2(row.dom_p50)}, engine p50 ${f2(row.engine_p50)} ms)`);
  }
}

// 1c. Cold navigation from a link on a throttled slow phone (DevTools: 1.6 Mbps down, 750 kbps
// up, 150 ms RTT, CPU slowed 4x), empty cache: navigation → first result rendered.
async function throttledRun(s, q) {
  const ctx = await browser.newContext();
  await signalFirstResult(ctx);
  const page = await ctx.newPage();
  const cdp = await ctx.newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.emulateNetworkConditions', {
    offline: false, latency: 150, downloadThroughput: (1.6 * 1024 * 1024) / 8, uploadThroughput: (750 * 1024) / 8,
  });
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
  const params = new URLSearchParams({ q: q.query, subject: s.subject, level: s.level });
  const t0 = Date.now();
  const searched = firstResult(page, 120_000);
  await page.goto(`${origin}/www/index.html?${params}`, { timeout: 120_000 });
  await searched;
  const firstAt = (await page.evaluate(() => window.__chsrFirstResultAt)) || Date.now();
  await ctx.close();
  return firstAt - t0;
}
if (ONLY('throttled') && SITE === '/www') {
  results.throttled = [];
  for (const s of manifest.shards) {
    const q = queries.find((x) => x.scope.subject === s.subject && x.scope.level === s.level) || queries[0];
    const ms = await throttledRun(s, q);
    results.throttled.push({ subject: s.subject, level: s.level, query: q.id, first_ms: ms });
    log(`throttled ${s.subject}/${s.level}: first result ${ms} ms after navigation (slow phone: 1.6 Mbps, 150 ms RTT, CPU 4x)`);
  }
}

// 2. chsr in the bench page.
const chsrCtx = await browser.newContext();
const cp = await chsrCtx.newPage();
const cnet = await netMeter(cp);
await cp.goto(`${origin}/tests/bench/bench.html`);
await cp.waitForSelector('body[data-ready="true"]');
results.cross_origin_isolated = await cp.evaluate(() => window.bench.crossOriginIsolated());
const heap0 = await cnet.heap();
await cnet.take();
results.chsr = {};
results.chsr.init = await cp.evaluate(([site, mod]) => window.bench.initChsr(site, mod), [SITE, MODULE]);
results.chsr.init.bytes = cnet.total(await cnet.take());
await cp.evaluate(() => window.bench.manifest());
await cnet.take();
// First results from a loaded module: lexical-only (no model) and hybrid, smallest and largest shard.
if (ONLY('first')) {
  const bySize = [...manifest.shards].sort((a, b) => a.bytes - b.bytes);
  results.chsr.first = [];
  for (const s of [bySize[0], bySize[bySize.length - 1]]) {
    const q = queries.find((x) => x.scope.subject === s.subject && x.scope.level === s.level) || queries[0];
    for (const lexicalOnly of [true, false]) {
      const scope = Object.fromEntries(Object.entries(q.scope).map(([k, v]) => [k, String(v)]));
      const r = await cp.evaluate(([qq, sc, lo]) => window.bench.firstResult(qq, sc, 'D', lo), [q.query, scope, lexicalOnly]);
      const list = await cnet.take();
      r.bytes = cnet.total(list); r.lexical_only = lexicalOnly; r.subject = s.subject; r.level = s.level;
      r.bytes_with_module = r.bytes + results.chsr.init.bytes;
      results.chsr.first.push(r);
      log(`first result ${s.subject}/${s.level} ${lexicalOnly ? 'lexical' : 'hybrid'}: ${kB(r.bytes_with_module)} kB with the module, ${f2(r.total_ms)} ms after init`);
    }
  }
}
if (ONLY('cold')) {
// Cold loads: every shard and the model, three times each.
results.chsr.cold = [];
for (const s of manifest.shards) {
  const runs = [];
  for (let i = 0; i < 3; i++) runs.push(await cp.evaluate((f) => window.bench.coldShard(f), s.file));
  await cnet.take();
  const row = {
    file: s.file, subject: s.subject, level: s.level, chunks: s.chunks, bytes: s.bytes,
    fetch_ms: median(runs.map((r) => r.fetch_ms)), load_ms: median(runs.map((r) => r.load_ms)),
    webcrypto_sha256_ms: median(runs.map((r) => r.webcrypto_sha256_ms)), first: runs[0],
  };
  row.total_ms = row.fetch_ms + row.load_ms;
  if (runs[0].digest_load_ms !== undefined) {
    // What chsr-client.js does when WebCrypto is there: digest in JS, then loadShardWithDigest.
    row.digest_load_ms = median(runs.map((r) => r.digest_load_ms));
    row.client_total_ms = median(runs.map((r) => r.fetch_ms + r.webcrypto_sha256_ms + r.digest_load_ms));
  }
  results.chsr.cold.push(row);
  log(`cold ${s.subject}/${s.level} (${s.chunks} chunks, ${kB(s.bytes)} kB): fetch ${f2(row.fetch_ms)} + verify/decode ${f2(row.load_ms)} ms${row.client_total_ms !== undefined ? `; with the WebCrypto digest: ${f2(row.webcrypto_sha256_ms)} + ${f2(row.digest_load_ms)} ms, total ${f2(row.client_total_ms)} ms` : ''}`);
}
if (manifest.model) {
  const runs = [];
  for (let i = 0; i < 3; i++) runs.push(await cp.evaluate(() => window.bench.coldModel()));
  await cnet.take();
  results.chsr.cold_model = {
    bytes: runs[0].bytes, fetch_ms: median(runs.map((r) => r.fetch_ms)), load_ms: median(runs.map((r) => r.load_ms)),
  };
  if (runs[0].digest_load_ms !== undefined) {
    results.chsr.cold_model.webcrypto_sha256_ms = median(runs.map((r) => r.webcrypto_sha256_ms));
    results.chsr.cold_model.digest_load_ms = median(runs.map((r) => r.digest_load_ms));
  }
  const cm = results.chsr.cold_model;
  log(`cold model (${kB(runs[0].bytes)} kB): fetch ${f2(cm.fetch_ms)} + load ${f2(cm.load_ms)} ms${cm.digest_load_ms !== undefined ? `; with the WebCrypto digest: ${f2(cm.webcrypto_sha256_ms)} + ${f2(cm.digest_load_ms)} ms` : ''}`);
}
}
await cp.close();

if (ONLY('warm')) {
// Warm setting in a fresh page: every shard and the model loaded once; memory measured there.
const cp2 = await chsrCtx.newPage();
const cnet2 = await netMeter(cp2);
await cp2.goto(`${origin}/tests/bench/bench.html`);
await cp2.waitForSelector('body[data-ready="true"]');
const chsrHeap0 = await cnet2.heap();
await cp2.evaluate(([site, mod]) => window.bench.initChsr(site, mod), [SITE, MODULE]);
await cp2.evaluate(() => window.bench.manifest());
results.chsr.load_all = await cp2.evaluate(() => window.bench.loadAll());
results.chsr.load_all.bytes = cnet2.total(await cnet2.take());
results.chsr.memory = { js_heap_baseline: chsrHeap0, js_heap_after_load: await cnet2.heap(), wasm_memory: results.chsr.load_all.wasm_memory };
log(`chsr all loaded: ${kB(results.chsr.load_all.bytes)} kB, JS heap ${kB(results.chsr.memory.js_heap_after_load)} kB, Wasm memory ${kB(results.chsr.memory.wasm_memory)} kB`);
await cp2.evaluate((u) => window.bench.loadQueries(u), `${exportUrl}/queries.json`);
// The lexical module in a page of its own (a page runs one module), loaded the same way.
let cpLex = null;
if (MODULE !== LEXICAL_MODULE && existsSync(join(SITE_DIR, 'pkg', LEXICAL_MODULE)) && VARIANTS.some((v) => LEXICAL_VARIANTS.has(v))) {
  cpLex = await chsrCtx.newPage();
  await cpLex.goto(`${origin}/tests/bench/bench.html`);
  await cpLex.waitForSelector('body[data-ready="true"]');
  await cpLex.evaluate(([site, mod]) => window.bench.initChsr(site, mod), [SITE, LEXICAL_MODULE]);
  await cpLex.evaluate(() => window.bench.manifest());
  await cpLex.evaluate(() => window.bench.loadAll());
  await cpLex.evaluate((u) => window.bench.loadQueries(u), `${exportUrl}/queries.json`);
}

// 3. Orama in its own page.
let op; let onet;
if (!flag('--skip-orama')) {
  const oCtx = await browser.newContext();
  op = await oCtx.newPage();
  onet = await netMeter(op);
  await op.goto(`${origin}/tests/bench/bench.html`);
  await op.waitForSelector('body[data-ready="true"]');
  const oHeap0 = await onet.heap();
  await onet.take();
  results.orama = { version: JSON.parse(readFileSync(join(ROOT, 'tests/bench/node_modules/@orama/orama/package.json'), 'utf8')).version };
  results.orama.init = await op.evaluate(() => window.bench.initOrama('/tests/bench/node_modules/@orama/orama/dist/browser/index.js'));
  const modList = await onet.take();
  results.orama.init.bytes = onet.total(modList);
  results.orama.init.files = modList.length;
  results.orama.init.sizes = fileSizes(modList);
  results.orama.build = await op.evaluate((u) => window.bench.buildOrama(u), exportUrl);
  const dataList = await onet.take();
  results.orama.build.bytes = onet.total(dataList);
  results.orama.build.sizes = fileSizes(dataList);
  results.orama.memory = { js_heap_baseline: oHeap0, js_heap_after_load: await onet.heap() };
  results.orama.saved = await op.evaluate(() => window.bench.oramaSaved());
  log(`orama save(): ${kB(results.orama.saved.json_chars)} kB of JSON in ${f2(results.orama.saved.save_ms)} ms`);
  log(`orama ${results.orama.version}: modules ${kB(results.orama.init.bytes)} kB (${modList.length} files), data ${kB(results.orama.build.bytes)} kB, index ${f2(results.orama.build.index_ms)} ms, JS heap ${kB(results.orama.memory.js_heap_after_load)} kB`);
  await op.evaluate((u) => window.bench.loadQueries(u), `${exportUrl}/queries.json`);
}

// 4. Warm queries: rounds alternate between systems so that a busy machine affects all alike.
const systems = VARIANTS.map((v) => ({ name: `chsr ${v}`, kind: 'chsr', variant: v,
  module: cpLex && LEXICAL_VARIANTS.has(v) ? LEXICAL_MODULE : MODULE }));
if (op) {
  for (const w of ORAMA_WEIGHTS) systems.push({ name: `orama hybrid ${w.text}/${w.vector}`, kind: 'orama', mode: 'hybrid', weights: w });
  systems.push({ name: 'orama fulltext', kind: 'orama', mode: 'fulltext' });
  systems.push({ name: 'orama vector', kind: 'orama', mode: 'vector' });
}
const rounds = new Map(systems.map((s) => [s.name, []]));
// CPU time of the renderer processes (DevTools SystemInfo, 10 ms resolution): a pass's CPU
// milliseconds per query do not grow when the machine is busy, unlike wall-clock times.
const bcdp = await browser.newBrowserCDPSession();
const rendererCpu = async () => (await bcdp.send('SystemInfo.getProcessInfo')).processInfo
  .filter((x) => x.type === 'renderer').reduce((a, x) => a + x.cpuTime, 0);
const cpu = new Map(systems.map((s) => [s.name, []]));
for (let r = 0; r < REPEAT; r++) {
  for (const s of systems) {
    const warm = r === 0;
    const t0 = Date.now();
    const c0 = await rendererCpu();
    const out = s.kind === 'chsr'
      ? await (s.module === MODULE ? cp2 : cpLex).evaluate(([v, l, w]) => window.bench.runChsr(v, 1, l, w), [s.variant, LIMIT, warm])
      : await op.evaluate(([m, wt, sim, l, w]) => window.bench.runOrama(m, wt, sim, 1, l, w), [s.mode, s.weights || null, ORAMA_SIMILARITY, LIMIT, warm]);
    const c1 = await rendererCpu();
    cpu.get(s.name).push((1000 * (c1 - c0)) / (out.length + (warm ? Math.min(60, out.length) : 0)));
    rounds.get(s.name).push(out);
    log(`round ${r + 1}/${REPEAT} ${s.name}: ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  }
}
const idLines = [];
results.systems = systems.map((s) => {
  const runs = mergeRounds(rounds.get(s.name));
  const row = { name: s.name, kind: s.kind, variant: s.variant, module: s.module, mode: s.mode, weights: s.weights, ...quality(queries, runs) };
  row.call_ms = latency(runs.map((x) => x.call_ms));
  // The fastest of the rounds per query: interference from other processes only adds time.
  row.call_min_ms = latency(runs.map((x) => x.call_min_ms));
  row.cpu_ms_per_query = median(cpu.get(s.name));
  row.wall_ms_per_query = mean(runs.map((x) => x.call_ms));
  if (s.kind === 'chsr') {
    for (const x of runs) x.timings.dense_search_ms = x.timings.dense_ms - x.timings.embed_ms;
    const keys = Object.keys(runs[0].timings);
    row.timings = Object.fromEntries(keys.map((k) => [k, latency(runs.map((x) => x.timings[k]))]));
    const plans = {};
    for (const x of runs) for (const p of x.plans || []) plans[p] = (plans[p] || 0) + 1;
    row.dense_plans = plans;
  }
  if (IDS_OUT) idLines.push(JSON.stringify({ name: s.name, queries: queries.map((q) => q.id), ids: runs.map((x) => x.ids) }));
  row.per_query = runs.map((x, i) => ({ id: queries[i].id, ms: Number(x.call_ms.toFixed(4)), min_ms: Number(x.call_min_ms.toFixed(4)), ndcg: Number(ndcgAt(x.ids, queries[i].grades, K).toFixed(4)) }));
  return row;
});
if (IDS_OUT) writeFileSync(IDS_OUT, idLines.map((l) => l + '\n').join(''));
}
results.load_after = loadInfo();
await browser.close();
server.close();

// ------------------------------------------------------------------ report
const out = [];
const p = (s = '') => out.push(s);
p(`chsr browser benchmark: Chromium ${results.chromium}, served over ${results.protocol}, ${queries.length} queries, k=${K}, ${REPEAT} rounds (per-query median), cross-origin isolated: ${results.cross_origin_isolated}`);
p(`load average before/after: ${results.load} / ${results.load_after}`);
p();
const sz = results.sizes;
p(`Wasm ${kB(sz.wasm.raw)} kB raw / ${kB(sz.wasm.gzip)} kB gzip${sz.wasm_lexical ? ` (lexical module ${kB(sz.wasm_lexical.raw)} / ${kB(sz.wasm_lexical.gzip)} kB)` : ''}; chsr.js ${kB(sz.js.raw)} / ${kB(sz.js.gzip)} kB; manifest ${kB(sz.manifest.raw)} / ${kB(sz.manifest.gzip)} kB; model ${sz.model ? `${kB(sz.model.raw)} / ${kB(sz.model.gzip)} kB` : '-'}`);
p();
p('| system | nDCG@8 | R@8 | leak@8 | p50 ms | p95 ms | p99 ms | mean ms | min-of-rounds p50 / p95 ms | CPU ms/q | gate | lexical | embed | dense search | fusion+rerank | total (Rust) | Rust p95 |');
p('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
for (const s of results.systems || []) {
  const t = s.timings || {};
  const m = (k) => (t[k] ? f3(t[k].p50) : '');
  p(`| ${s.name} | ${f3(s.ndcg8)} | ${f3(s.recall8)} | ${f3(s.leak8)} | ${f3(s.call_ms.p50)} | ${f3(s.call_ms.p95)} | ${f3(s.call_ms.p99)} | ${f3(s.wall_ms_per_query)} | ${f3(s.call_min_ms.p50)} / ${f3(s.call_min_ms.p95)} | ${f3(s.cpu_ms_per_query)} | ${m('gate_ms')} | ${m('lexical_ms')} | ${m('embed_ms')} | ${m('dense_search_ms')} | ${m('fusion_ms')} | ${m('total_ms')} | ${t.total_ms ? f3(t.total_ms.p95) : ''} |`);
}
p();
p('p50/p95/p99/mean: the JS call (search + conversion of the response to JS objects), per-query median over the rounds.');
p('min-of-rounds: per query the fastest round (other processes only add time), then p50/p95 over queries.');
p('CPU ms/q: renderer CPU time of a pass divided by its queries (median over rounds), insensitive to a busy machine.');
const lexicalRun = (results.systems || []).filter((s) => s.module === LEXICAL_MODULE).map((s) => s.name);
if (lexicalRun.length) p(`Module: ${lexicalRun.join(', ')} on pkg/${LEXICAL_MODULE} (what a page without the dense path runs), the others on pkg/${MODULE}.`);
p('Stage columns: p50 over queries of trace.timings (measured inside Rust); dense search = dense_ms - embed_ms; fusion includes rerank and dedup.');
if (results.chsr.cold) {
  p();
  p('| shard | chunks | kB | fetch ms | verify+decode ms | WebCrypto SHA-256 ms |');
  p('|---|---:|---:|---:|---:|---:|');
  for (const c of results.chsr.cold) p(`| ${c.subject}/${c.level} | ${c.chunks} | ${kB(c.bytes)} | ${f2(c.fetch_ms)} | ${f2(c.load_ms)} | ${f2(c.webcrypto_sha256_ms)} |`);
  if (results.chsr.cold.some((c) => c.digest_load_ms !== undefined)) {
    p();
    p('| shard | fetch ms | WebCrypto digest + loadShardWithDigest ms | cold load (fetch + digest + verify/decode) ms |');
    p('|---|---:|---:|---:|');
    for (const c of results.chsr.cold) p(`| ${c.subject}/${c.level} | ${f2(c.fetch_ms)} | ${f2(c.webcrypto_sha256_ms)} + ${f2(c.digest_load_ms)} | ${f2(c.client_total_ms)} |`);
  }
  if (results.chsr.cold_model) p(`| model | | ${kB(results.chsr.cold_model.bytes)} | ${f2(results.chsr.cold_model.fetch_ms)} | ${f2(results.chsr.cold_model.load_ms)} | |`);
}
{
  const c = results.chsr;
  p();
  p('| what | chsr | Orama |');
  p('|---|---:|---:|');
  const mem = (m) => (m ? `${kB(m.js_heap_after_load - m.js_heap_baseline)} kB` : '-');
  const o = results.orama;
  p(`| engine code (raw / gzip) | ${kB(sz.wasm.raw + sz.js.raw)} / ${kB(sz.wasm.gzip + sz.js.gzip)} kB | ${o ? `${kB(o.init.sizes.raw)} / ${kB(o.init.sizes.gzip)} kB (${o.init.files} files)` : '-'} |`);
  p(`| data for every scope (raw / gzip) | ${kB(sz.shards.reduce((a, x) => a + x.raw, 0) + (sz.model ? sz.model.raw : 0))} / ${kB(sz.shards.reduce((a, x) => a + x.gzip, 0) + (sz.model ? sz.model.gzip : 0))} kB | ${o ? `${kB(o.build.sizes.raw)} / ${kB(o.build.sizes.gzip)} kB` : '-'} |`);
  if (o && o.saved) p(`| Orama save() JSON | | ${kB(o.saved.json_chars)} kB |`);
  if (c.memory) p(`| JS heap after loading everything (minus the empty page) | ${mem(c.memory)} | ${mem(o && o.memory)} |`);
  if (c.memory) p(`| Wasm linear memory after loading everything | ${kB(c.memory.wasm_memory)} kB | - |`);
  if (o) p(`| index build in the page | (prebuilt shards: ${f2(c.load_all.ms)} ms to fetch and load all) | ${f2(o.build.index_ms)} ms (+ ${f2(o.build.parse_ms)} ms parse) |`);
  for (const f of c.first || []) p(`| first result, ${f.subject}/${f.level}, ${f.lexical_only ? 'lexical only' : 'hybrid'}: bytes incl. module / ms after module | ${kB(f.bytes_with_module)} kB / ${f2(f.total_ms)} ms | |`);
  for (const d of results.demo || []) p(`| demo page, ${d.subject}/${d.level}: second visit (cached) → first result ms | ${d.repeat_first_ms} ms | |`);
  for (const d of results.demo || []) p(`| demo page from a link, ${d.subject}/${d.level}: the page's own HTML received → first result ms, first visit / second visit (first page open) / returning (pages closed) | ${d.html_to_first_ms} / ${d.repeat_html_to_first_ms} / ${d.returning_html_to_first_ms ?? '-'} ms | |`);
  for (const d of results.typing || []) p(`| study page, ${d.subject}/${d.level}, warm: keystroke → results painted p50 / p95 ms (${d.n} keystrokes) | ${f2(d.p50)} / ${f2(d.p95)} ms | |`);
  for (const d of results.throttled || []) p(`| demo page from a link on a throttled slow phone (1.6 Mbps, 150 ms RTT, CPU 4x), ${d.subject}/${d.level}: first result ms | ${d.first_ms} ms | |`);
  for (const d of results.demo || []) p(`| demo page from a link, ${d.subject}/${d.level}: bytes the server sent before the first result (service worker included) / ms from navigation (${d.lexical_first ? 'lexical first' : 'hybrid'}) | ${kB(d.served_bytes)} kB / ${d.first_ms} ms | |`);
  const best = (results.systems || []).filter((x) => x.kind === 'orama' && x.mode === 'hybrid').sort((a, b) => b.ndcg8 - a.ndcg8)[0];
  const d = (results.systems || []).find((x) => x.name === 'chsr D');
  if (best && d) {
    p();
    p(`chsr D vs ${best.name}: nDCG@8 ${f3(d.ndcg8)} vs ${f3(best.ndcg8)}; p50 ${f2(d.call_ms.p50)} vs ${f2(best.call_ms.p50)} ms (${(best.call_ms.p50 / d.call_ms.p50).toFixed(1)}x); p95 ${f2(d.call_ms.p95)} vs ${f2(best.call_ms.p95)} ms (${(best.call_ms.p95 / d.call_ms.p95).toFixed(1)}x); CPU/query ${f2(d.cpu_ms_per_query)} vs ${f2(best.cpu_ms_per_query)} ms (${(best.cpu_ms_per_query / d.cpu_ms_per_query).toFixed(1)}x)`);
  }
}
console.log(out.join('\n'));
if (OUT && THROTTLED_KEY) {
  recordKey(OUT, THROTTLED_KEY, results.throttled || []);
  log(`wrote ${OUT} (${THROTTLED_KEY})`);
} else if (OUT) {
  await mkdir(dirname(resolve(OUT)), { recursive: true });
  await writeFile(OUT, `${JSON.stringify(results)}\n`);
  log(`wrote ${OUT}`);
}
