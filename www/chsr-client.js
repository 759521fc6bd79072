// chsr-client.js: the network side of chsr in the browser.
// It fetches the manifest and the shards a scope needs (retrying a failed download once) and
// hands the bytes to the Wasm module, which verifies their SHA-256 and checksum, decodes them and
// runs every search. No retrieval logic lives here.
import init, { ChsrIndex } from './pkg/chsr.js';

let ready = null;

/** Initialises the Wasm module once. */
export function initWasm(wasmUrl) {
  if (!ready) ready = init(wasmUrl ? { module_or_path: wasmUrl } : undefined);
  return ready;
}

async function fetchWithRetry(url, as) {
  let lastError;
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const res = await fetch(url, { cache: 'no-cache' });
      if (!res.ok) throw new Error(`HTTP ${res.status} for ${url}`);
      return as === 'text' ? await res.text() : new Uint8Array(await res.arrayBuffer());
    } catch (e) {
      lastError = e;
    }
  }
  throw new Error(`download failed twice: ${lastError && lastError.message}`);
}

/** A chsr index bound to a manifest URL. */
export class ChsrClient {
  constructor(index, baseUrl) {
    this.index = index;
    this.baseUrl = baseUrl;
    this.pending = new Map();
  }

  /** Fetches `manifest.json` at `manifestUrl` and creates a client. */
  static async open(manifestUrl, { wasmUrl } = {}) {
    await initWasm(wasmUrl);
    const url = new URL(manifestUrl, document.baseURI);
    const text = await fetchWithRetry(url.href, 'text');
    const client = new ChsrClient(ChsrIndex.fromManifest(text), new URL('.', url).href);
    client.modelReady = client.loadModel();
    return client;
  }

  /** Fetches and loads the embedding model the manifest names (dense path), once. */
  async loadModel() {
    const entry = this.index.modelNeeded();
    if (!entry) return null;
    const bytes = await fetchWithRetry(new URL(entry.file, this.baseUrl).href, 'bytes');
    if (!this.index.modelNeeded()) return entry;
    this.index.loadModel(bytes);
    return entry;
  }

  /** The manifest as a plain object. */
  manifest() {
    return this.index.manifest();
  }

  /** Shards the scope needs that are not loaded yet: [{file, bytes, subject, level, ...}]. */
  shardsNeeded(scope, options) {
    return this.index.shardsNeeded(scope, options);
  }

  /** Loads the shards a search needs; `onProgress(entry)` is called before each download. */
  async ensureLoaded(scope, options, onProgress) {
    await this.loadFiles(this.shardsNeeded(scope, options).map((e) => e.file), onProgress);
  }

  async loadFiles(files, onProgress) {
    const entries = this.manifest().shards.filter((s) => files.includes(s.file));
    for (const entry of entries) {
      if (!this.pending.has(entry.file)) {
        if (onProgress) onProgress(entry);
        const p = fetchWithRetry(new URL(entry.file, this.baseUrl).href, 'bytes').then((bytes) => {
          if (!this.index.isLoaded(entry.file)) this.index.loadShard(entry.file, bytes);
        });
        this.pending.set(entry.file, p);
        p.catch(() => this.pending.delete(entry.file));
      }
      await this.pending.get(entry.file);
    }
  }

  /**
   * Loads what is needed, then searches: {results, trace}. When scope relaxation wants shards
   * that are not loaded yet (another level of the subject), they are fetched and the search runs
   * once more.
   */
  async search(query, scope, options, onProgress) {
    await this.ensureLoaded(scope, options, onProgress);
    if (this.modelReady) await this.modelReady;
    let resp = this.index.search(query, scope, options);
    const pending = resp.trace.relaxation ? resp.trace.relaxation.pending_shards : [];
    if (pending.length > 0) {
      await this.loadFiles(pending, onProgress);
      resp = this.index.search(query, scope, options);
    }
    return resp;
  }
}
