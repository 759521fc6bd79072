#!/usr/bin/env node
// A site indexed with `chsr index`, measured as a student uses its search page (issue 18: "sites
// indexed with `chsr index` get the same budgets"). The bundle (its `index.html` with the
// <chsr-search> element, the element's modules, the Wasm package, the shards) is served as
// scripts/serve.mjs serves a static site (brotli copies beside the files, caching headers); per
// level of the bundle's manifest, in a new browser context (empty cache):
//   the page is opened; once the element says it is ready, the student picks the level, types the
//   level's first OpenCERB dev query (the rule of the demo: the scope's first query) and presses
//   Enter; the result is the element's first `chsr-results` event.
// Prints and records, per level: the bytes the server sent before the first result (`served_bytes`,
// the page included: what `demo[].served_bytes` counts for the study page), the requests, the
// time from the page's HTML to the element being ready (`html_to_ready_ms`), from Enter to the
// first result (`enter_to_first_ms`), and the same two on the throttled slow phone of run.mjs
// (1.6 Mbps, 150 ms RTT, CPU 4x).
// Then the same student from a link (`index.html?q=…&level=…`, the element's `sync-url`: what a
// shared search or a site's own search form opens): the time from the page's HTML to the first
// result (`link_html_to_first_ms`, the measure of the demo's `html_to_first_ms`), the bytes sent
// before it (`link_served_bytes`), and the time throttled (`throttled_link_html_to_first_ms`).
//
//   node tests/bench/site-bundle.mjs --bundle DIR [--queries FILE] [--out FILE] [--key sites] [--rounds N] [--h2]
//
// `--out FILE`: the results go into FILE's `sites` key (`--key NAME`: another key; FILE is created if missing, its other keys
// kept): scripts/bench-browser records them in bench/perf/browser.json. `--h2`: served over
// HTTP/2 (tests/bench/lib.mjs), each row's `protocol` says which.
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ROOT, PROTOCOL, listen, launch, recordKey, signalFirstResult, firstResult } from './lib.mjs';
import { siteHandler } from '../../scripts/serve.mjs';

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  return i >= 0 && args[i + 1] !== undefined ? args[i + 1] : dflt;
};
const BUNDLE = opt('--bundle', null);
if (!BUNDLE || !existsSync(join(BUNDLE, 'index.html'))) {
  console.error('usage: node tests/bench/site-bundle.mjs --bundle DIR [--queries FILE] [--out FILE] [--rounds N]  (DIR: the output of `chsr index`, with index.html)');
  process.exit(2);
}
const QUERIES = opt('--queries', join(ROOT, 'tests/data/opencerb/dev/queries.jsonl'));
const OUT = opt('--out', null);
const KEY = opt('--key', 'sites');
const ROUNDS = Number(opt('--rounds', '3'));
const queries = readFileSync(QUERIES, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
const manifest = JSON.parse(readFileSync(join(BUNDLE, 'shards/manifest.json'), 'utf8'));

const log = [];
const handler = siteHandler(resolve(BUNDLE), { onSent: ({ path, bytes, t }) => log.push({ path, bytes, t }) });
const server = await listen((req, res) => handler(req, res, new URL(req.url, 'http://localhost').pathname).catch((e) => res.writeHead(500).end(String(e))));
const origin = server.origin;
const browser = await launch();
const median = (xs) => { const v = [...xs].sort((a, b) => a - b); return v[Math.floor(v.length / 2)]; };

/** A new browser context (empty cache) and page, on the slow phone when `throttle`. */
async function open(throttle) {
  const ctx = await browser.newContext();
  const page = await ctx.newPage();
  if (throttle) {
    const cdp = await ctx.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false, latency: 150, downloadThroughput: (1.6 * 1024 * 1024) / 8, uploadThroughput: (750 * 1024) / 8,
    });
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
  }
  return { ctx, page };
}

/** What the server sent up to `t` (Date.now() clock). */
function sentBefore(t) {
  const before = log.filter((e) => e.t <= t);
  return {
    served_bytes: before.reduce((a, e) => a + e.bytes, 0), served_requests: before.length,
    served_files: before.map((e) => `${e.path} ${e.bytes}`),
  };
}

/** One student: open the page, pick the level, type the query, Enter; what it took. */
async function run(shard, q, throttle) {
  const { ctx, page } = await open(throttle);
  log.length = 0;
  await page.goto(`${origin}/index.html`);
  await page.waitForSelector('chsr-search[data-state="ready"]', { timeout: 60_000 });
  const readyAt = await page.evaluate(() => performance.now() - performance.getEntriesByType('navigation')[0].responseEnd);
  await page.selectOption('chsr-search select[id$="-level"]', shard.level);
  await page.fill('chsr-search input[type="search"]', q.query);
  await page.evaluate(() => {
    window.__first = new Promise((ok) => document.addEventListener('chsr-results', () => ok(Date.now()), { once: true }));
  });
  const enter = Date.now();
  await page.press('chsr-search input[type="search"]', 'Enter');
  const firstAt = await page.evaluate(() => window.__first);
  const shown = await page.$$eval('chsr-search li.card', (l) => l.length);
  await ctx.close();
  return { html_to_ready_ms: Math.round(readyAt), enter_to_first_ms: firstAt - enter, results: shown, ...sentBefore(firstAt) };
}

/** One student from a link naming the query and the level: from the page's HTML to the first result. */
async function runLink(shard, q, throttle) {
  const { ctx, page } = await open(throttle);
  // Listening before any script of the page runs.
  await signalFirstResult(page);
  log.length = 0;
  const shown1 = firstResult(page);
  await page.goto(`${origin}/index.html?${new URLSearchParams({ q: q.query, level: shard.level })}`);
  await shown1;
  const first = await page.evaluate(() => window.__benchFirstResult);
  const html = await page.evaluate(() => performance.getEntriesByType('navigation')[0].responseEnd);
  const shown = await page.$$eval('chsr-search li.card', (l) => l.length);
  await ctx.close();
  return { html_to_first_ms: Math.round(first.at - html), results: shown, ...sentBefore(first.now) };
}

const rows = [];
for (const shard of manifest.shards) {
  const q = queries.find((x) => x.scope.subject === shard.subject && x.scope.level === shard.level);
  if (!q) continue;
  const runs = [];
  for (let i = 0; i < ROUNDS; i++) runs.push(await run(shard, q, false));
  const slow = [];
  for (let i = 0; i < ROUNDS; i++) slow.push(await run(shard, q, true));
  const linked = [];
  for (let i = 0; i < ROUNDS; i++) linked.push(await runLink(shard, q, false));
  const slowLinked = [];
  for (let i = 0; i < ROUNDS; i++) slowLinked.push(await runLink(shard, q, true));
  const row = {
    subject: shard.subject, level: shard.level, query: q.id, protocol: PROTOCOL, results: runs[0].results,
    served_bytes: runs[0].served_bytes, served_requests: runs[0].served_requests, served_files: runs[0].served_files,
    html_to_ready_ms: median(runs.map((r) => r.html_to_ready_ms)), enter_to_first_ms: median(runs.map((r) => r.enter_to_first_ms)),
    throttled_html_to_ready_ms: median(slow.map((r) => r.html_to_ready_ms)), throttled_enter_to_first_ms: median(slow.map((r) => r.enter_to_first_ms)),
    link_results: linked[0].results, link_served_bytes: linked[0].served_bytes, link_served_requests: linked[0].served_requests,
    link_html_to_first_ms: median(linked.map((r) => r.html_to_first_ms)), link_html_to_first_ms_runs: linked.map((r) => r.html_to_first_ms),
    throttled_link_html_to_first_ms: median(slowLinked.map((r) => r.html_to_first_ms)),
  };
  rows.push(row);
  if (args.includes('--files')) for (const f of row.served_files) console.log(`    ${f}`);
  console.log(`site bundle ${row.subject}/${row.level} (${q.id}, ${PROTOCOL}): ${(row.served_bytes / 1000).toFixed(1)} kB in ${row.served_requests} requests before the first result (${row.results} results); HTML → ready ${row.html_to_ready_ms} ms, Enter → first result ${row.enter_to_first_ms} ms; throttled slow phone: HTML → ready ${row.throttled_html_to_ready_ms} ms, Enter → first result ${row.throttled_enter_to_first_ms} ms`);
  console.log(`    from a link (?q=…&level=${row.level}): ${(row.link_served_bytes / 1000).toFixed(1)} kB in ${row.link_served_requests} requests before the first result (${row.link_results} results); HTML → first result ${row.link_html_to_first_ms} ms [${row.link_html_to_first_ms_runs.join(', ')}]; throttled ${row.throttled_link_html_to_first_ms} ms`);
}
await browser.close();
server.close();
if (OUT) {
  recordKey(OUT, KEY, rows);
  console.log(`wrote ${OUT} (${KEY})`);
}
