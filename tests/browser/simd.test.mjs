// The two Wasm modules (scripts/build-wasm): a browser with WebAssembly SIMD loads the SIMD build
// (`pkg/chsr_bg.wasm`) and never downloads the scalar one; a browser without SIMD (Safari before
// 16.4: simulated by a WebAssembly.validate that refuses SIMD) loads `pkg/chsr_scalar_bg.wasm`,
// checked against its import-map integrity (the page's preload still downloads the SIMD module
// there: the price of not waiting for a script to start it everywhere else), and finds exactly
// what the SIMD build finds: the same
// results with the same scores and vector ranks, on the hybrid path (vectors and model loaded), over a large
// shard (HNSW graph) and a small one (exact scan).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { ROOT, serve, launch, watchErrors } from './harness.mjs';

let server;
let browser;
before(async () => { server = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.stop(); });

const queries = readFileSync(`${ROOT}tests/data/opencerb/dev/queries.jsonl`, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
const pick = (subject, level, n) => queries.filter((q) => q.scope.subject === subject && q.scope.level === level).slice(0, n)
  .map((q) => ({ id: q.id, query: q.query, scope: { subject, level } }));
const SAMPLE = [...pick('physics', 'college', 10), ...pick('informatique (NSI)', 'premiere', 6)];

/** Opens the study page (no query), then searches SAMPLE through the page's own client, hybrid. */
async function run({ simd }) {
  const context = await browser.newContext({ locale: 'en-GB', serviceWorkers: 'block' });
  if (!simd) {
    await context.addInitScript(() => {
      const validate = WebAssembly.validate;
      // A WebAssembly without SIMD: the SIMD probe (and any module using SIMD) does not validate.
      WebAssembly.validate = (bytes) => {
        const b = new Uint8Array(bytes instanceof ArrayBuffer ? bytes : bytes.buffer);
        return b.includes(253) && b.length < 64 ? false : validate(bytes);
      };
    });
  }
  const page = await context.newPage();
  const errors = watchErrors(page);
  const modules = [];
  page.on('request', (r) => { if (r.url().endsWith('.wasm')) modules.push(new URL(r.url()).pathname); });
  await page.goto(`${server.url}index.html`);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 30_000 });
  // Who fetched each module: the page's preload (`link`) or the client (`fetch`).
  const fetchedBy = await page.evaluate(() => performance.getEntriesByType('resource')
    .filter((e) => e.name.endsWith('.wasm')).map((e) => `${new URL(e.name).pathname} ${e.initiatorType}`));
  const out = await page.evaluate(async (sample) => {
    const { ChsrClient } = await import(new URL('chsr-client.js', document.baseURI).href);
    const client = await ChsrClient.open(new URL('shards/manifest.json', document.baseURI).href);
    const rows = [];
    for (const q of sample) {
      const resp = await client.search(q.query, q.scope, { k: 8, text: false, dense: true }, undefined, { enhanced: true });
      rows.push({
        id: q.id,
        plans: resp.trace.dense_plans,
        results: resp.results.map((h) => `${h.id} ${h.score} ${h.fused_score} ${h.dense_rank}`),
      });
    }
    return rows;
  }, SAMPLE);
  await context.close();
  return { out, modules, fetchedBy, errors };
}

test('browsers with WebAssembly SIMD load the SIMD module, the others the scalar one: same results and scores', async () => {
  const simd = await run({ simd: true });
  const scalar = await run({ simd: false });
  assert.deepEqual(simd.errors, []);
  assert.deepEqual(scalar.errors, []);
  assert.deepEqual([...new Set(simd.modules)], ['/pkg/chsr_bg.wasm'], 'the SIMD module only (the fallback is not preloaded)');
  assert.ok(scalar.fetchedBy.includes('/pkg/chsr_scalar_bg.wasm fetch'), `the client fetched the scalar module: ${scalar.fetchedBy}`);
  assert.ok(!scalar.fetchedBy.includes('/pkg/chsr_bg.wasm fetch'), `the client did not fetch the SIMD module: ${scalar.fetchedBy}`);
  const plans = new Set(simd.out.flatMap((r) => r.plans || []));
  assert.ok(plans.has('graph') && plans.has('exact'), `both dense plans ran: ${[...plans]}`);
  assert.equal(simd.out.length, SAMPLE.length);
  for (const [i, row] of simd.out.entries()) {
    assert.ok(row.results.length > 0, `${row.id}: results`);
    assert.deepEqual(scalar.out[i], row, `${row.id}: the scalar module finds what the SIMD module finds`);
  }
});
