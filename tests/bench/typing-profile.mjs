#!/usr/bin/env node
// Where a keystroke's time goes in the study page, warm (issue 18: keystroke → results painted):
// the same keystrokes as `run.mjs --only typing` (the dev queries of one demo scope, the box
// holding all but the last character, then the last key pressed through the DevTools protocol),
// recorded with a DevTools trace (main thread: event dispatch, script, style, layout, paint) and
// a sampling CPU profile (JavaScript self time by function).
//
//   node tests/bench/typing-profile.mjs [--export DIR] [--scope physics/high_school] [--queries 40]
//        [--ids dev-0381,dev-0382] [--top 30] [--embed]
//
// Prints per keystroke (median over keystrokes) the main thread's time by trace event, then the
// functions with the most self time over all keystrokes.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ROOT, serve, launch } from './lib.mjs';

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  return i >= 0 && args[i + 1] !== undefined ? args[i + 1] : dflt;
};
const EXPORT = resolve(opt('--export', join(ROOT, 'target/bench-perf/export')));
const [SUBJECT, LEVEL] = opt('--scope', 'physics/high_school').split('/');
const N = Number(opt('--queries', '40'));
const TOP = Number(opt('--top', '30'));

const median = (xs) => { const v = [...xs].sort((a, b) => a - b); return v.length ? v[Math.floor(v.length / 2)] : NaN; };
// `--ids`: only these queries of the scope (e.g. the slowest keys of `run.mjs --only typing`'s
// `per_key`), each keystroke's events then printed on its own as well.
const IDS = opt('--ids', '') ? new Set(opt('--ids', '').split(',')) : null;
const queries = JSON.parse(readFileSync(join(EXPORT, 'queries.json'), 'utf8'))
  .filter((q) => q.scope.subject === SUBJECT && q.scope.level === LEVEL && (!IDS || IDS.has(q.id))).slice(0, N);

const server = await serve();
const origin = server.origin;
const browser = await launch();
const ctx = await browser.newContext();
const page = await ctx.newPage();
const params = new URLSearchParams({ q: queries[0].query, subject: SUBJECT, level: LEVEL });
await page.goto(`${origin}/www/index.html?${params}`);
await page.waitForFunction(() => (window.__chsrSearches || 0) > 0, null, { timeout: 60_000 });
await page.waitForFunction(() => window.__chsrUpgradedAt || !document.body.dataset.pending, null, { timeout: 30_000 }).catch(() => {});
await page.waitForTimeout(500);
const cdp = await ctx.newCDPSession(page);

const texts = queries.map((q) => q.query.slice(0, 200).replace(/[^A-Za-z0-9]+$/, '')).filter((x) => x.length >= 2);
async function keystrokes() {
  for (const text of texts) {
    await page.fill('#q', text.slice(0, -1));
    await page.waitForFunction(() => window.__chsrDone === window.__chsrSeq, null, { timeout: 10_000 }).catch(() => {});
    await page.waitForTimeout(60);
    await page.evaluate(() => performance.mark('key'));
    await page.focus('#q');
    await page.keyboard.press(text.slice(-1));
    await page.waitForFunction(() => window.__chsrDone === window.__chsrSeq, null, { timeout: 10_000 }).catch(() => {});
    await page.waitForTimeout(60);
    await page.evaluate(() => performance.mark('end'));
  }
}

// 1. Trace: per keystroke (from the keydown dispatch to the end of the first paint after it), the
// renderer main thread's complete events by name (top level only: nested events are inside).
const events = [];
cdp.on('Tracing.dataCollected', (e) => events.push(...e.value));
const done = new Promise((ok) => cdp.once('Tracing.tracingComplete', ok));
await cdp.send('Tracing.start', {
  transferMode: 'ReportEvents',
  traceConfig: { includedCategories: ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'blink.user_timing', 'toplevel'] },
});
await keystrokes();
await cdp.send('Tracing.end');
await done;

const main = (() => {
  const t = events.find((e) => e.name === 'thread_name' && e.args && e.args.name === 'CrRendererMain'
    && events.some((x) => x.pid === e.pid && x.name === 'EventDispatch' && x.args && x.args.data && x.args.data.type === 'keydown'));
  return t && { pid: t.pid, tid: t.tid };
})();
const onMain = events.filter((e) => e.pid === main.pid && e.tid === main.tid && e.ph === 'X' && e.dur !== undefined).sort((a, b) => a.ts - b.ts);
const keydowns = onMain.filter((e) => e.name === 'EventDispatch' && e.args.data.type === 'keydown');
const per = new Map();
const spans = [];
for (const kd of keydowns) {
  // Until the end of the first Paint (or PrePaint/Layerize chain) after the results changed: take
  // the window to the end of the first 'Paint' event that starts after the input event's handlers.
  const inputEv = onMain.find((e) => e.ts >= kd.ts && e.name === 'EventDispatch' && e.args.data.type === 'input');
  if (!inputEv) continue;
  const paint = onMain.find((e) => e.ts > inputEv.ts + inputEv.dur && (e.name === 'Paint' || e.name === 'PaintImage' || e.name === 'Layerize'));
  const end = paint ? paint.ts + paint.dur : inputEv.ts + inputEv.dur;
  spans.push((end - kd.ts) / 1000);
  // Top-level events in [kd.ts, end]: those not inside another such event.
  const inWin = onMain.filter((e) => e.ts >= kd.ts && e.ts + e.dur <= end + 1);
  const top = [];
  let until = -1;
  for (const e of inWin) {
    if (e.ts + e.dur <= until) continue;
    top.push(e);
    until = e.ts + e.dur;
  }
  const sums = new Map();
  const add = (k, d) => sums.set(k, (sums.get(k) || 0) + d);
  for (const e of top) {
    const label = e.name === 'EventDispatch' ? `EventDispatch ${e.args.data.type}` : e.name;
    add(label, e.dur / 1000);
  }
  // Nested rendering work: style and layout done synchronously inside the key event.
  for (const e of inWin) {
    if (!top.includes(e) && ['UpdateLayoutTree', 'Layout', 'RecalculateStyles'].includes(e.name)) add(`(forced) ${e.name}`, e.dur / 1000);
  }
  add('(busy total)', top.reduce((a, e) => a + e.dur / 1000, 0));
  for (const [k, v] of sums) { if (!per.has(k)) per.set(k, []); per.get(k).push(v); }
  if (IDS) {
    const span = spans[spans.length - 1];
    console.log(`keystroke ${spans.length}: ${span.toFixed(2)} ms; ${[...sums].sort((a, b) => b[1] - a[1]).map(([k, v]) => `${k} ${v.toFixed(2)}`).join(', ')}`);
  }
}
console.log(`${SUBJECT}/${LEVEL}: ${spans.length} keystrokes; keydown dispatch → end of next paint: median ${median(spans).toFixed(2)} ms`);
console.log('main thread per keystroke (median over keystrokes that had the event; count):');
for (const [k, v] of [...per.entries()].sort((a, b) => median(b[1]) * b[1].length - median(a[1]) * a[1].length)) {
  console.log(`${median(v).toFixed(2).padStart(8)} ms  ${String(v.length).padStart(3)}x  ${k}`);
}

// 2. CPU profile of the same keystrokes: self time by function.
await cdp.send('Profiler.enable');
await cdp.send('Profiler.setSamplingInterval', { interval: 50 });
await cdp.send('Profiler.start');
await keystrokes();
const { profile } = await cdp.send('Profiler.stop');
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const self = new Map();
profile.samples.forEach((id, i) => {
  const n = byId.get(id);
  const f = n.callFrame;
  const name = `${f.functionName || '(anonymous)'} ${f.url ? `${f.url.split('/').pop()}:${f.lineNumber + 1}` : ''}`;
  self.set(name, (self.get(name) || 0) + (profile.timeDeltas[i] || 0) / 1000);
});
const incl = new Map();
{
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children || []) parent.set(c, n.id);
  const fname = (n) => `${n.callFrame.functionName || '(anonymous)'} ${n.callFrame.url ? `${n.callFrame.url.split('/').pop()}:${n.callFrame.lineNumber + 1}` : ''}`;
  profile.samples.forEach((id, i) => {
    const seen = new Set();
    for (let x = id; x !== undefined; x = parent.get(x)) {
      const k = fname(byId.get(x));
      if (seen.has(k)) continue;
      seen.add(k);
      incl.set(k, (incl.get(k) || 0) + (profile.timeDeltas[i] || 0) / 1000);
    }
  });
}
const idle = new Set(['(idle) ', '(program) ', '(root) ']);
const rows = [...self.entries()].filter(([n]) => !idle.has(n)).sort((a, b) => b[1] - a[1]);
console.log(`\nself time over ${texts.length} keystroke rounds (ms per round), busy functions:`);
for (const [name, ms] of rows.slice(0, TOP)) console.log(`${(ms / texts.length).toFixed(3).padStart(8)}  ${name}`);
console.log(`\ninclusive time (ms per round):`);
for (const [name, ms] of [...incl.entries()].filter(([n]) => !idle.has(n)).sort((a, b) => b[1] - a[1]).slice(0, TOP * 2)) console.log(`${(ms / texts.length).toFixed(3).padStart(8)}  ${name}`);
await browser.close();
server.close();
