// Page side of the browser benchmark (tests/bench/run.mjs drives it through window.bench).
// Everything is imported lazily, so that the network bytes of each phase are the phase's own.
// Paths are absolute from the server root (the repository): /www/pkg, /www/shards, the export
// of `cargo bench --bench perf -- export` and Orama's browser build.

const now = () => performance.now();
const state = { chsr: null, wasm: null, index: null, data: null, orama: null, db: null };

async function fetchBytes(url) {
  const res = await fetch(url, { cache: 'no-store' });
  if (!res.ok) throw new Error(`HTTP ${res.status} for ${url}`);
  return new Uint8Array(await res.arrayBuffer());
}
async function fetchText(url) {
  const res = await fetch(url, { cache: 'no-store' });
  if (!res.ok) throw new Error(`HTTP ${res.status} for ${url}`);
  return res.text();
}

function median(xs) {
  const v = [...xs].sort((a, b) => a - b);
  return v.length ? v[Math.floor(v.length / 2)] : NaN;
}

/** The scope of a dev query as the Wasm API takes it (values as trimmed strings). */
function scopeOf(q) {
  const s = {};
  for (const [k, v] of Object.entries(q.scope || {})) s[k] = String(v).trim();
  return s;
}

const bench = {
  crossOriginIsolated: () => globalThis.crossOriginIsolated === true,

  /** Imports chsr.js and instantiates the Wasm module `module` of pkg/ (the whole engine by default). */
  async initChsr(base, module = 'chsr_bg.wasm') {
    const t0 = now();
    state.chsr = await import(`${base}/pkg/chsr.js`);
    const t1 = now();
    state.wasm = await state.chsr.default({ module_or_path: `${base}/pkg/${module}` });
    const t2 = now();
    state.base = base;
    return { import_ms: t1 - t0, instantiate_ms: t2 - t1, wasm_memory: state.wasm.memory.buffer.byteLength };
  },

  async manifest() {
    state.manifestText = await fetchText(`${state.base}/shards/manifest.json`);
    return JSON.parse(state.manifestText);
  },

  wasmMemory: () => state.wasm.memory.buffer.byteLength,

  /** Cold load of one shard into a fresh index: fetch, then verify + decode (loadShard). */
  async coldShard(file) {
    const index = state.chsr.ChsrIndex.fromManifest(state.manifestText);
    const t0 = now();
    const bytes = await fetchBytes(`${state.base}/shards/${file}`);
    const t1 = now();
    index.loadShard(file, bytes);
    const t2 = now();
    // SHA-256 of the same bytes with WebCrypto, to compare with the Wasm verification.
    const t3 = now();
    const digest = await crypto.subtle.digest('SHA-256', bytes);
    const t4 = now();
    index.free();
    const out = { bytes: bytes.length, fetch_ms: t1 - t0, load_ms: t2 - t1, webcrypto_sha256_ms: t4 - t3 };
    if (state.chsr.ChsrIndex.prototype.loadShardWithDigest) {
      // The client's path: the digest from WebCrypto handed to the module, which does not hash.
      const hex = Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, '0')).join('');
      const index2 = state.chsr.ChsrIndex.fromManifest(state.manifestText);
      const t5 = now();
      index2.loadShardWithDigest(file, bytes, hex);
      out.digest_load_ms = now() - t5;
      index2.free();
    }
    return out;
  },

  /** Cold load of the embedding model into a fresh index. */
  async coldModel() {
    const index = state.chsr.ChsrIndex.fromManifest(state.manifestText);
    const entry = index.modelNeeded();
    const t0 = now();
    const bytes = await fetchBytes(`${state.base}/shards/${entry.file}`);
    const t1 = now();
    index.loadModel(bytes);
    const t2 = now();
    index.free();
    const out = { bytes: bytes.length, fetch_ms: t1 - t0, load_ms: t2 - t1 };
    if (state.chsr.ChsrIndex.prototype.loadModelWithDigest) {
      const index2 = state.chsr.ChsrIndex.fromManifest(state.manifestText);
      const t3 = now();
      const d = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
      const hex = Array.from(d, (b) => b.toString(16).padStart(2, '0')).join('');
      const t4 = now();
      index2.loadModelWithDigest(bytes, hex);
      out.webcrypto_sha256_ms = t4 - t3;
      out.digest_load_ms = now() - t4;
      index2.free();
    }
    return out;
  },

  /**
   * The first result from nothing loaded but the module: manifest, the scope's shards (and their
   * dense parts and the model unless lexicalOnly), then one search. Times each step.
   */
  async firstResult(query, scope, variant, lexicalOnly) {
    const t0 = now();
    const text = await fetchText(`${state.base}/shards/manifest.json`);
    const index = state.chsr.ChsrIndex.fromManifest(text);
    const need = index.shardsNeeded(scope, { variant });
    const t1 = now();
    const model = !lexicalOnly && index.modelNeeded();
    const parts = lexicalOnly ? [] : need.filter((e) => e.dense).map((e) => e.dense);
    const [shards, partBytes, modelBytes] = await Promise.all([
      Promise.all(need.map((e) => fetchBytes(`${state.base}/shards/${e.file}`))),
      Promise.all(parts.map((d) => fetchBytes(`${state.base}/shards/${d.file}`))),
      model ? fetchBytes(`${state.base}/shards/${model.file}`) : null,
    ]);
    // Each shard's part list comes with it; then the postings parts of the query's terms, which
    // only the loaded shard and its list can name: a second round of fetches, after loading.
    const lists = need.filter((e) => e.part_list);
    const listBytes = await Promise.all(lists.map((e) => fetchBytes(`${state.base}/shards/${e.part_list.file}`)));
    const t2 = now();
    need.forEach((e, i) => index.loadShard(e.file, shards[i]));
    lists.forEach((e, i) => index.loadPartList(e.part_list.file, listBytes[i]));
    const t2b = now();
    const postings = index.postingsNeeded(query, { k: 8, variant });
    const postingsBytes = await Promise.all(postings.map((f) => fetchBytes(`${state.base}/shards/${f}`)));
    const t2c = now();
    postings.forEach((f, i) => index.loadPostings(f, postingsBytes[i]));
    parts.forEach((d, i) => index.loadDense(d.file, partBytes[i]));
    if (modelBytes) index.loadModel(modelBytes);
    const t3 = now();
    const resp = index.search(query, scope, { k: 8, variant });
    const t4 = now();
    index.free();
    return {
      shards: need.map((e) => e.file), results: resp.results.length,
      manifest_ms: t1 - t0, fetch_ms: (t2 - t1) + (t2c - t2b), load_ms: (t2b - t2) + (t3 - t2c), search_ms: t4 - t3, total_ms: t4 - t0,
    };
  },

  /** Loads every shard, its dense part and the model into one index (the warm-query setting). */
  async loadAll() {
    const m = JSON.parse(state.manifestText);
    state.index = state.chsr.ChsrIndex.fromManifest(state.manifestText);
    const t0 = now();
    for (const e of m.shards) {
      state.index.loadShard(e.file, await fetchBytes(`${state.base}/shards/${e.file}`));
      if (e.part_list) state.index.loadPartList(e.part_list.file, await fetchBytes(`${state.base}/shards/${e.part_list.file}`));
    }
    // The dense parts the module asks for (none for the lexical module).
    for (const p of state.index.denseNeeded()) {
      state.index.loadDense(p.file, await fetchBytes(`${state.base}/shards/${p.file}`));
    }
    // Every postings part (a warm index has them all; the page loads them after its first result).
    for (const t of state.index.postingsRemaining()) {
      state.index.loadPostings(t.part.file, await fetchBytes(`${state.base}/shards/${t.part.file}`));
    }
    const entry = state.index.modelNeeded();
    if (entry) state.index.loadModel(await fetchBytes(`${state.base}/shards/${entry.file}`));
    return { ms: now() - t0, wasm_memory: state.wasm.memory.buffer.byteLength };
  },

  async loadQueries(url) {
    state.queries = JSON.parse(await fetchText(url));
    for (const q of state.queries) q.vector = new Float32Array(q.vector);
    return state.queries.length;
  },

  /**
   * Runs the queries through one variant: a warm-up pass, then `repeat` timed passes. Per
   * query: the median JS call time (search + conversion of the response to JS), the median of
   * each trace timing, the returned ids and their subject/level.
   */
  runChsr(variant, repeat, limit, warmup) {
    const qs = state.queries.slice(0, limit || state.queries.length);
    // `D-lexical`: a variant with its dense path switched off; `F+dense`: switched on.
    const opts = variant.endsWith('-lexical') ? { k: 8, variant: variant.slice(0, -8), dense: false }
      : variant.endsWith('+dense') ? { k: 8, variant: variant.slice(0, -6), dense: true } : { k: 8, variant };
    if (warmup) for (const q of qs.slice(0, 60)) state.index.search(q.query, scopeOf(q), opts);
    const out = qs.map(() => ({ call: [], t: {} }));
    for (let r = 0; r < repeat; r++) {
      qs.forEach((q, i) => {
        const t0 = now();
        const resp = state.index.search(q.query, scopeOf(q), opts);
        const dt = now() - t0;
        const o = out[i];
        o.call.push(dt);
        for (const [k, v] of Object.entries(resp.trace.timings)) (o.t[k] ||= []).push(v);
        if (r === 0) {
          o.ids = resp.results.map((h) => h.id);
          o.sl = resp.results.map((h) => [h.subject, h.level]);
          o.plans = resp.trace.dense_plans;
          o.admissible = resp.trace.admissible;
        }
      });
    }
    return out.map((o) => ({
      ids: o.ids, sl: o.sl, plans: o.plans, admissible: o.admissible,
      call_ms: median(o.call),
      timings: Object.fromEntries(Object.entries(o.t).map(([k, v]) => [k, median(v)])),
    }));
  },

  /** Imports Orama's browser build. */
  async initOrama(url) {
    const t0 = now();
    state.orama = await import(url);
    return { import_ms: now() - t0 };
  },

  /**
   * Builds the Orama database from the exported chunks and vectors: `text` full-text indexed
   * (English tokenizer with stemming and chsr's English stopwords), the scope fields as enums,
   * the stored int8 vectors dequantised to float32.
   */
  async buildOrama(exportBase) {
    const t0 = now();
    const [docsText, vec, stop] = await Promise.all([
      fetchText(`${exportBase}/docs.json`), fetchBytes(`${exportBase}/vectors.bin`), fetchText(`${exportBase}/stopwords.json`),
    ]);
    const t1 = now();
    const docs = JSON.parse(docsText);
    const dims = (vec.length / docs.length) - 4;
    const dv = new DataView(vec.buffer, vec.byteOffset, vec.byteLength);
    const i8 = new Int8Array(vec.buffer, vec.byteOffset, vec.byteLength);
    docs.forEach((d, i) => {
      const off = i * (dims + 4);
      const scale = dv.getFloat32(off, true);
      const v = new Array(dims);
      for (let j = 0; j < dims; j++) v[j] = scale * i8[off + 4 + j];
      d.embedding = v;
    });
    const t2 = now();
    const { create, insertMultiple } = state.orama;
    const schema = { text: 'string', embedding: `vector[${dims}]` };
    for (const f of ['subject', 'level', 'lang', 'doc_type', 'source', 'chapter', 'section', 'section_key', 'topic',
      'year', 'exam', 'paper', 'question_number']) schema[f] = 'enum';
    state.db = create({
      schema,
      components: { tokenizer: { language: 'english', stemming: true, stopWords: JSON.parse(stop) } },
    });
    await insertMultiple(state.db, docs, 1000);
    const t3 = now();
    return { docs: docs.length, dims, fetch_ms: t1 - t0, parse_ms: t2 - t1, index_ms: t3 - t2 };
  },

  /** Size (characters of JSON) of Orama's own serialisation of the database, and its time. */
  oramaSaved() {
    const t0 = now();
    const raw = state.orama.save(state.db);
    const s = JSON.stringify(raw);
    return { json_chars: s.length, save_ms: now() - t0 };
  },

  /**
   * Runs the queries through Orama: `mode` hybrid, fulltext or vector; the scope as `where`
   * equality on the enum fields; the query vector from the same model; k = 8.
   */
  runOrama(mode, weights, similarity, repeat, limit, warmup) {
    const qs = state.queries.slice(0, limit || state.queries.length);
    const { search } = state.orama;
    const params = (q) => {
      const where = {};
      for (const [k, v] of Object.entries(scopeOf(q))) where[k] = { eq: v };
      const p = { term: q.query, where, limit: 8, mode };
      if (mode !== 'fulltext') {
        p.vector = { value: q.vector, property: 'embedding' };
        p.similarity = similarity;
      }
      if (mode === 'vector') delete p.term;
      if (mode === 'hybrid') p.hybridWeights = weights;
      return p;
    };
    const ps = qs.map(params);
    if (warmup) for (const p of ps.slice(0, 60)) search(state.db, p);
    const out = qs.map(() => ({ call: [] }));
    for (let r = 0; r < repeat; r++) {
      ps.forEach((p, i) => {
        const t0 = now();
        const res = search(state.db, p);
        const dt = now() - t0;
        out[i].call.push(dt);
        if (r === 0) {
          out[i].ids = res.hits.map((h) => h.id);
          out[i].sl = res.hits.map((h) => [h.document.subject, h.document.level]);
        }
      });
    }
    return out.map((o) => ({ ids: o.ids, sl: o.sl, call_ms: median(o.call) }));
  },
};

window.bench = bench;
document.body.dataset.ready = 'true';
