#!/usr/bin/env node
// CPU profile of chsr in headless Chromium (DevTools sampling profiler), by function self time:
// where a cold shard load, a model load and warm queries spend their time. Use a Wasm build that
// keeps its name section (scripts/bench-browser --profile builds one without wasm-opt), else the
// Wasm frames show as wasm-function[N].
//
//   node tests/bench/profile.mjs --base /target/bench-perf/prof --export DIR [--shard SUBSTRING]
//        [--variant D] [--top 25] [--out FILE.json]
import { writeFileSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { ROOT, serve, launch } from './lib.mjs';

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  return i >= 0 && args[i + 1] !== undefined ? args[i + 1] : dflt;
};
const BASE = opt('--base', '/target/bench-perf/prof');
const EXPORT = resolve(opt('--export', join(ROOT, 'target/bench-perf/export')));
const SHARD = opt('--shard', 'physics--college');
const VARIANT = opt('--variant', 'D');
const TOP = Number(opt('--top', '25'));
const OUT = opt('--out', null);

/** Self time per function name (ms) from a DevTools CPU profile. */
function selfTimes(profile) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map();
  const dt = profile.timeDeltas;
  let total = 0;
  profile.samples.forEach((id, i) => {
    const n = byId.get(id);
    const name = n.callFrame.functionName || `(anonymous ${n.callFrame.url.split('/').pop()})`;
    const ms = (dt[i] || 0) / 1000;
    self.set(name, (self.get(name) || 0) + ms);
    total += ms;
  });
  const rows = [...self.entries()].sort((a, b) => b[1] - a[1]);
  return { total, rows };
}

const server = await serve();
const origin = server.origin;
const browser = await launch();
const page = await browser.newPage();
const cdp = await page.context().newCDPSession(page);
await page.goto(`${origin}/tests/bench/bench.html`);
await page.waitForSelector('body[data-ready="true"]');
await page.evaluate((b) => window.bench.initChsr(b), BASE);
const manifest = await page.evaluate(() => window.bench.manifest());
const shard = manifest.shards.find((s) => s.file.includes(SHARD));
await cdp.send('Profiler.enable');
await cdp.send('Profiler.setSamplingInterval', { interval: 50 });

async function profiled(label, fn) {
  await cdp.send('Profiler.start');
  const r = await fn();
  const { profile } = await cdp.send('Profiler.stop');
  const { total, rows } = selfTimes(profile);
  const idle = new Set(['(idle)', '(program)', '(garbage collector)']);
  const busy = rows.filter(([n]) => !idle.has(n)).reduce((a, [, ms]) => a + ms, 0);
  console.log(`\n== ${label}: ${total.toFixed(1)} ms sampled, ${busy.toFixed(1)} ms busy`);
  for (const [name, ms] of rows.slice(0, TOP)) console.log(`${ms.toFixed(1).padStart(9)} ms ${(100 * ms / total).toFixed(1).padStart(5)}%  ${name}`);
  return { label, result: r, total_ms: total, top: rows.slice(0, TOP).map(([name, ms]) => ({ name, ms })) };
}

const report = [];
report.push(await profiled(`cold load of ${shard.subject}/${shard.level} x3 (fetch + loadShard)`, async () => {
  const out = [];
  for (let i = 0; i < 3; i++) out.push(await page.evaluate((f) => window.bench.coldShard(f), shard.file));
  return out;
}));
report.push(await profiled('model load x3', async () => {
  const out = [];
  for (let i = 0; i < 3; i++) out.push(await page.evaluate(() => window.bench.coldModel()));
  return out;
}));
await page.evaluate(() => window.bench.loadAll());
const exportUrl = `/${relative(ROOT, EXPORT).split(sep).join('/')}`;
await page.evaluate((u) => window.bench.loadQueries(u), exportUrl + '/queries.json');
await page.evaluate((v) => window.bench.runChsr(v, 1, 0, true), VARIANT);
report.push(await profiled(`warm queries, variant ${VARIANT}, 594 queries x 3`, async () => page.evaluate((v) => window.bench.runChsr(v, 3, 0, false).length, VARIANT)));
await browser.close();
server.close();
if (OUT) writeFileSync(OUT, `${JSON.stringify(report.map(({ result, ...r }) => r), null, 1)}\n`);
