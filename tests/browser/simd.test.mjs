// The three Wasm modules (scripts/build-wasm). A page without the dense path (the default) runs
// the lexical module (`pkg/chsr_lexical_bg.wasm`, built without the dense path) and fetches no
// other; it finds exactly what the whole engine finds for a keyword search, and refuses the
// model. A page with the dense path (`?dense=1`) runs the SIMD build (`pkg/chsr_bg.wasm`) where
// WebAssembly has SIMD; a browser without SIMD (Safari before 16.4: simulated by a
// WebAssembly.validate that refuses SIMD) loads `pkg/chsr_scalar_bg.wasm`, checked against its
// import-map integrity, and never the SIMD one, and finds exactly what the SIMD build finds: the
// same results with the same scores and vector ranks, on the hybrid path (vectors and model
// loaded), over a large shard (HNSW graph) and a small one (exact scan). (The page's preload
// fetches the lexical module in every case: the price of not waiting for a script to start it.)
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

/**
 * Opens the study page (no query; `?dense=1` for the dense path), then searches SAMPLE through a
 * client opened as the page opens it: keywords only (`lexical`) and asking for the dense path
 * with the model and vectors loaded when the module has them (`hybrid`).
 */
async function run({ simd, dense }) {
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
  await page.goto(`${server.url}index.html${dense ? '?dense=1' : ''}`);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 30_000 });
  const out = await page.evaluate(async ({ sample, dense }) => {
    const { ChsrClient } = await import(new URL('chsr-client.js', document.baseURI).href);
    const client = await ChsrClient.open(new URL('shards/manifest.json', document.baseURI).href, { dense });
    const row = (q, resp) => ({
      id: q.id,
      plans: resp.trace.dense_plans,
      notes: resp.trace.notes,
      results: resp.results.map((h) => `${h.id} ${h.score} ${h.fused_score} ${h.dense_rank}`),
    });
    const lexical = [];
    const hybrid = [];
    for (const q of sample) {
      lexical.push(row(q, await client.search(q.query, q.scope, { k: 8, text: false })));
      hybrid.push(row(q, await client.search(q.query, q.scope, { k: 8, text: false, dense: true }, undefined, { enhanced: true })));
    }
    let modelRefused = null;
    try {
      client.index.loadModel(new Uint8Array(16));
    } catch (e) {
      modelRefused = e.code;
    }
    let explainRefused = null;
    try {
      client.index.explain(sample[0].query, sample[0].scope, {}, []);
    } catch (e) {
      explainRefused = e.code;
    }
    return { lexical, hybrid, modelRefused, explainRefused, modelNeeded: client.index.modelNeeded() !== null };
  }, { sample: SAMPLE, dense });
  // Who fetched each module: the page's preload (`link`) or a client (`fetch`).
  const fetchedBy = await page.evaluate(() => performance.getEntriesByType('resource')
    .filter((e) => e.name.endsWith('.wasm')).map((e) => `${new URL(e.name).pathname} ${e.initiatorType}`));
  await context.close();
  return { ...out, modules: [...new Set(modules)].sort(), fetchedBy, errors };
}

test('a page without the dense path runs the lexical module only: the same keyword results, no model, no vectors', async () => {
  const lexical = await run({ simd: true, dense: false });
  const whole = await run({ simd: true, dense: true });
  assert.deepEqual(lexical.errors, []);
  assert.deepEqual(lexical.modules, ['/pkg/chsr_lexical_bg.wasm'], 'the lexical module only');
  assert.equal(lexical.modelRefused, 'load.no_dense_path', 'the lexical module refuses the model');
  assert.equal(lexical.modelNeeded, false, 'the lexical module asks for no model');
  // Nor has it the diagnostics (explain): the whole engine has them (here it may still ask
  // for files its stage-by-stage searches need, `search.not_loaded`).
  assert.equal(lexical.explainRefused, 'search.not_built');
  assert.notEqual(whole.explainRefused, 'search.not_built');
  assert.equal(whole.modelNeeded, false, 'the whole engine loaded its model');
  assert.equal(lexical.lexical.length, SAMPLE.length);
  for (const [i, row] of lexical.lexical.entries()) {
    assert.ok(row.results.length > 0, `${row.id}: results`);
    assert.deepEqual(row, whole.lexical[i], `${row.id}: the lexical module finds what the whole engine finds`);
    // Asked for the dense path, it answers by keywords and says why.
    const asked = lexical.hybrid[i];
    assert.deepEqual(asked.plans, [], `${row.id}: no vector search`);
    assert.ok(asked.notes.some((n) => /has none \(the lexical module\)/.test(n)), `${row.id}: ${asked.notes}`);
    assert.deepEqual(asked.results, row.results, `${row.id}: the keyword results`);
  }
});

test('with the dense path, browsers with WebAssembly SIMD load the SIMD module, the others the scalar one: same results and scores', async () => {
  const simd = await run({ simd: true, dense: true });
  const scalar = await run({ simd: false, dense: true });
  assert.deepEqual(simd.errors, []);
  assert.deepEqual(scalar.errors, []);
  assert.deepEqual(simd.modules, ['/pkg/chsr_bg.wasm', '/pkg/chsr_lexical_bg.wasm'], 'never the scalar module');
  assert.ok(scalar.fetchedBy.includes('/pkg/chsr_scalar_bg.wasm fetch'), `the client fetched the scalar module: ${scalar.fetchedBy}`);
  assert.ok(!scalar.modules.includes('/pkg/chsr_bg.wasm'), `the SIMD module was not fetched: ${scalar.modules}`);
  const plans = new Set(simd.hybrid.flatMap((r) => r.plans || []));
  assert.ok(plans.has('graph') && plans.has('exact'), `both dense plans ran: ${[...plans]}`);
  assert.equal(simd.hybrid.length, SAMPLE.length);
  for (const [i, row] of simd.hybrid.entries()) {
    assert.ok(row.results.length > 0, `${row.id}: results`);
    assert.deepEqual(scalar.hybrid[i], row, `${row.id}: the scalar module finds what the SIMD module finds`);
  }
});
