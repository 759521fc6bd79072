// chsr-client.js: the network side of chsr in the browser.
// It fetches the manifest and the shards a scope needs (retrying a failed, interrupted or corrupted
// download once), hashes them with WebCrypto and hands bytes and digest to the Wasm module, which
// compares the digest with the manifest's, checks the format, decodes them and runs every search. No retrieval logic lives here.
// Failures are thrown as `ChsrError` with a `code` the page turns into words (see CODES).
import init, { ChsrIndex } from './pkg/chsr.js';

let ready = null;
// The URL `ready` was started with (`wasmModuleUrl`).
let moduleUrl = null;

/**
 * Error codes: `engine` (the Wasm module did not start), `manifest` (unreadable manifest),
 * `network` (no answer), `offline` (no network and no saved copy), `http` (server error status),
 * `interrupted` (the body stopped short), `integrity` (SHA-256, checksum or format check failed),
 * `scope` (a scope value the manifest does not know), `search` (anything else from the engine).
 */
export const CODES = ['engine', 'manifest', 'network', 'offline', 'http', 'interrupted', 'integrity', 'scope', 'search'];

/**
 * A failure with a `code` (see CODES) and details: `url`, `entry`, `status`, `received`,
 * `expected`; from the engine, `engineCode` (its stable code, `scope.unknown_value`…) and
 * `details` (`{field, value, valid}` for a scope error).
 */
export class ChsrError extends Error {
  constructor(code, message, details = {}) {
    super(message);
    this.name = 'ChsrError';
    this.code = code;
    Object.assign(this, details);
  }
}

// The engine's error codes (a JS Error's `code`, src/wasm.rs) → the client's (see CODES).
const INTEGRITY_CODES = new Set(['load.integrity', 'load.format', 'load.mismatch', 'load.model']);

/**
 * Turns an engine exception into a ChsrError by the engine's stable `code` (never by its
 * message): `scope.*` → `scope`, `load.integrity|format|mismatch|model` → `integrity`, `manifest`
 * → `manifest`, anything else → `search`. The engine's own code is kept as `engineCode`, its
 * `details` (the field, the value, the valid values…) as `details`.
 */
export function engineError(e) {
  if (e instanceof ChsrError) return e;
  const message = (e && e.message) || String(e);
  const engineCode = e && typeof e.code === 'string' ? e.code : undefined;
  let code = 'search';
  if (engineCode && engineCode.startsWith('scope.')) code = 'scope';
  else if (INTEGRITY_CODES.has(engineCode)) code = 'integrity';
  else if (engineCode === 'manifest') code = 'manifest';
  const details = e && e.details && typeof e.details === 'object' ? e.details : {};
  return new ChsrError(code, message, { cause: e, engineCode, details });
}

/**
 * The integrity metadata (`sha384-…`) that the document's import maps give for `url`, or null.
 * scripts/build-site lists the Wasm module there, so its download is checked like the modules.
 */
export function integrityFor(url) {
  if (typeof document === 'undefined') return null;
  for (const s of document.querySelectorAll('script[type="importmap"]')) {
    try {
      for (const [key, value] of Object.entries(JSON.parse(s.textContent).integrity || {})) {
        if (new URL(key, document.baseURI).href === url) return value;
      }
    } catch { /* not a map of ours */ }
  }
  return null;
}

// The smallest module using a SIMD instruction (`i8x16.splat`, `i8x16.popcnt`): it validates
// exactly where WebAssembly has SIMD (every current browser; not Safari before 16.4).
const SIMD_PROBE = new Uint8Array([
  0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 10, 1, 8, 0, 65, 0, 253, 15, 253, 98, 11,
]);

/** Whether this runtime's WebAssembly has SIMD (then the SIMD build of the module is loaded). */
export function wasmSimd() {
  try {
    return typeof WebAssembly === 'object' && WebAssembly.validate(SIMD_PROBE);
  } catch {
    return false;
  }
}

/**
 * The Wasm module's file name in the package's `pkg/` for this runtime: without the dense path
 * (the default: the default variant is lexical-only) `chsr_lexical_bg.wasm`, the engine without
 * the model and vector code (22 kB brotli smaller); with `{dense: true}` the whole engine,
 * `chsr_bg.wasm` built with WebAssembly SIMD, or `chsr_scalar_bg.wasm` where WebAssembly has no
 * SIMD (same results: the SIMD code is an exact integer dot product).
 */
export function wasmModuleFile({ dense = false } = {}) {
  if (!dense) return 'chsr_lexical_bg.wasm';
  return wasmSimd() ? 'chsr_bg.wasm' : 'chsr_scalar_bg.wasm';
}

// The package's modules next to this file, each spelled out: scripts/site-integrity.mjs finds
// them here and lists their digests.
const MODULE_URLS = {
  'chsr_lexical_bg.wasm': new URL('./pkg/chsr_lexical_bg.wasm', import.meta.url),
  'chsr_bg.wasm': new URL('./pkg/chsr_bg.wasm', import.meta.url),
  'chsr_scalar_bg.wasm': new URL('./pkg/chsr_scalar_bg.wasm', import.meta.url),
};

/**
 * Initialises the Wasm module once (checked against its import-map integrity, if any). Without
 * `wasmUrl`, the package's module next to this file ([`wasmModuleFile`]: `{dense: true}` for the
 * one with the dense path). A page runs one module: the first call chooses it; a later call
 * asking for another gets the one running (without the dense path, a search's trace says the
 * vector path is not in this module).
 */
export function initWasm(wasmUrl, { dense = false } = {}) {
  if (!ready) {
    const base = typeof document === 'undefined' ? import.meta.url : document.baseURI;
    const url = new URL(wasmUrl || MODULE_URLS[wasmModuleFile({ dense })], base).href;
    const integrity = integrityFor(url);
    moduleUrl = url;
    ready = init({ module_or_path: integrity ? new Request(url, { integrity }) : url }).catch((e) => {
      ready = null;
      moduleUrl = null;
      const why = integrity && e instanceof TypeError
        ? `${url} could not be downloaded or failed its integrity check (${e.message})`
        : (e && e.message) || e;
      throw new ChsrError('engine', `the WebAssembly module did not start: ${why}`, { cause: e, url });
    });
  }
  return ready;
}

/** The URL of the Wasm module this page runs (or is starting), null before `initWasm`. */
export function wasmModuleUrl() {
  return moduleUrl;
}

function indexFromManifest(text) {
  try {
    return ChsrIndex.fromManifest(text);
  } catch (e) {
    const err = engineError(e);
    err.code = 'manifest';
    throw err;
  }
}

// Background downloads (`prefetchText`) in flight at once: fewer than the six connections a
// browser opens to a host over HTTP/1.1, so that a search's own part always finds one.
const BACKGROUND_LOADS = 4;

const isOffline = () => typeof navigator !== 'undefined' && navigator.onLine === false;

// Shard and model files are named by their content (`name.<16 hex>.ext`): a cached copy never
// goes stale, so they are fetched with the default cache mode (served `immutable`).
const CONTENT_HASHED = /\.[0-9a-f]{16}\.[a-z0-9]+$/;

// A second lane over HTTP/1.1. A browser opens six connections a host over HTTP/1.1, so a long
// question's postings parts (36 for some pasted exam questions) then its results' text parts
// arrive six at a time, a round trip each round (150 ms on a slow phone). Chromium and Firefox
// keep the requests sent without credentials on connections of their own, six more. Over
// HTTP/1.1, once six of this client's downloads from a host are in flight, a further
// content-hashed file (public, its bytes named by their digest, which no cookie changes) is
// asked with `credentials: 'omit'` while fewer are in flight that way, so up to twelve travel at
// once; a question whose files fit in six connections never opens the second lane's
// connections (on a real link a new one costs a round trip before its first request). Over HTTP/2 and HTTP/3 (one
// connection carries every request) or where resource timing does not say the protocol, every
// request goes as before. A host that refuses a file sent without its
// cookies (an LMS behind a login: an error status, a redirect, bytes that fail their check) gets
// them on the retry, and on every request after it: its second lane is closed.
const CONNECTIONS = 6;
const lanes = new Map(); // origin → Lanes

/**
 * The protocol resource timing reports for `origin` ('http/1.1', 'h2', 'h3'; '' when it hides it:
 * another origin without `Timing-Allow-Origin`, a response from a service worker): the page's
 * navigation when it is that origin's, else that origin's latest file (such as the manifest);
 * null when no entry names that origin yet.
 */
function protocolOf(origin) {
  if (typeof performance === 'undefined' || typeof performance.getEntriesByType !== 'function') return null;
  for (const type of ['navigation', 'resource']) {
    const entries = performance.getEntriesByType(type);
    for (let i = entries.length - 1; i >= 0; i--) {
      if (entries[i].name.startsWith(`${origin}/`)) return entries[i].nextHopProtocol || '';
    }
  }
  return null;
}

/** One host's downloads in flight, with credentials (`busy[0]`) and without (`busy[1]`). */
class Lanes {
  constructor(open) {
    this.open = open;
    this.busy = [0, 0];
  }

  /** Takes a lane for a content-hashed file's download; true: the second (no credentials). */
  take() {
    const [first, second] = this.busy;
    const anonymous = this.open && first >= CONNECTIONS && second < first;
    this.busy[anonymous ? 1 : 0]++;
    return anonymous;
  }

  release(anonymous) {
    this.busy[anonymous ? 1 : 0]--;
  }
}

/**
 * The lanes of `url`'s host, decided once, at its first download that timing can tell about
 * (`protocolOf`; the second lane open only over HTTP/1.1), or null while no entry names the host.
 */
function lanesOf(url) {
  const { origin } = new URL(url);
  let l = lanes.get(origin);
  if (!l) {
    const protocol = protocolOf(origin);
    if (protocol === null) return null;
    l = new Lanes(protocol === 'http/1.1');
    lanes.set(origin, l);
  }
  return l;
}

/** A request on the second lane failed: this host's files all go with credentials from now on. */
function closeSecondLane(url) {
  const l = lanes.get(new URL(url).origin);
  if (l) l.open = false;
}

// One download: `{body, saved, anonymous}`. The first try revalidates with the server (`no-cache`), or for a
// content-hashed file takes its saved copy (`saved(url)`, when the page keeps one: the Response, or
// null), else uses the HTTP cache as is (`default`); the retry bypasses every cache (`reload`), so a
// stale or damaged saved copy is replaced. `saved` in the answer: the body is the saved copy;
// `anonymous`: it was downloaded on the second lane (sent without credentials, above).
// `expected` is the byte count the manifest announces: a shorter body is an interrupted download.
// The count is of decoded bytes: with `Content-Encoding` (gzip, br) the browser decodes the body
// before the reader sees it, and Content-Length is not used.
async function fetchOnce(url, as, attempt, { expected, onBytes, priority, saved } = {}) {
  const hashed = CONTENT_HASHED.test(new URL(url).pathname);
  if (attempt === 0 && hashed && saved) {
    let res = null;
    try { res = await saved(url); } catch { res = null; } // No saved copy to read: downloaded.
    if (res && res.ok) return { body: await readBody(res, url, as, expected, onBytes), saved: true, anonymous: false };
  }
  // The lanes count downloads until their last byte (a connection is busy until then).
  const host = attempt === 0 && hashed ? lanesOf(url) : null;
  const anonymous = host !== null && host.take();
  try {
    const first = hashed ? 'default' : 'no-cache';
    const init = { cache: attempt === 0 ? first : 'reload', priority };
    if (anonymous) init.credentials = 'omit';
    let res;
    try {
      res = await fetch(url, init);
    } catch (e) {
      if (anonymous) closeSecondLane(url);
      throw new ChsrError(isOffline() ? 'offline' : 'network', `no answer for ${url}: ${(e && e.message) || e}`, { url, cause: e });
    }
    if (anonymous && (!res.ok || res.redirected)) {
      closeSecondLane(url);
      throw new ChsrError('http', `HTTP ${res.status}${res.redirected ? ' (redirected)' : ''} for ${url} sent without credentials`, { url, status: res.status });
    }
    if (!res.ok) throw new ChsrError('http', `HTTP ${res.status} for ${url}`, { url, status: res.status });
    return { body: await readBody(res, url, as, expected, onBytes), saved: false, anonymous };
  } finally {
    if (host) host.release(anonymous);
  }
}

// A response's body: text (`as` 'text'), else bytes, read as they arrive (`onBytes`), at least
// `expected` of them.
async function readBody(res, url, as, expected, onBytes) {
  if (as === 'text') {
    try {
      return await res.text();
    } catch (e) {
      throw new ChsrError('interrupted', `the download of ${url} stopped: ${(e && e.message) || e}`, { url, cause: e });
    }
  }
  const parts = [];
  let received = 0;
  try {
    if (res.body && res.body.getReader) {
      const reader = res.body.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        parts.push(value);
        received += value.length;
        if (onBytes) onBytes(received, expected);
      }
    } else {
      const buf = new Uint8Array(await res.arrayBuffer());
      parts.push(buf);
      received = buf.length;
    }
  } catch (e) {
    throw new ChsrError('interrupted', `the download of ${url} stopped after ${received} bytes`, { url, received, expected, cause: e });
  }
  if (expected && received < expected) {
    throw new ChsrError('interrupted', `${url}: received ${received} of ${expected} bytes`, { url, received, expected });
  }
  const bytes = new Uint8Array(received);
  let at = 0;
  for (const p of parts) { bytes.set(p, at); at += p.length; }
  return bytes;
}

// Downloads (and, with `check(body, saved)`, verifies) a file, retrying once whatever went wrong
// (a saved copy that fails its check included: the retry downloads it); the second failure is
// thrown, with `attempts: 2`. `priority`: the Fetch Priority hint (`'low'` for background
// downloads), where the browser takes it; `saved`: as for `fetchOnce`.
async function fetchWithRetry(url, as, { expected, onBytes, onRetry, check, priority, saved } = {}) {
  let lastError;
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const { body, saved: fromSaved, anonymous } = await fetchOnce(url, as, attempt, { expected, onBytes, priority, saved });
      if (check) {
        try {
          await check(body, fromSaved);
        } catch (e) {
          if (anonymous) closeSecondLane(url);
          throw e;
        }
      }
      return body;
    } catch (e) {
      // The module's checks throw coded errors (`load.integrity`…); anything else failed a check too.
      if (e instanceof ChsrError) lastError = e;
      else if (e && typeof e.code === 'string') { lastError = engineError(e); lastError.url = url; }
      else lastError = new ChsrError('integrity', (e && e.message) || String(e), { url, cause: e });
      if (attempt === 0 && onRetry) onRetry(lastError);
    }
  }
  lastError.attempts = 2;
  lastError.message = `download failed twice: ${lastError.message}`;
  throw lastError;
}

/**
 * The SHA-256 of `bytes` as 64 hex digits, from WebCrypto (several times faster than hashing in
 * Wasm); null where WebCrypto is missing (an insecure context, an old runtime): the module then
 * hashes the file itself.
 */
export async function sha256Hex(bytes) {
  const subtle = globalThis.crypto && globalThis.crypto.subtle;
  if (!subtle || typeof subtle.digest !== 'function') return null;
  try {
    const d = new Uint8Array(await subtle.digest('SHA-256', bytes));
    let hex = '';
    for (const b of d) hex += (b < 16 ? '0' : '') + b.toString(16);
    return hex;
  } catch {
    return null;
  }
}

/**
 * Files that make results better but are not needed for the first one: the client searches
 * without them (the lexical path; the trace says the vector path did not run) and loads them
 * after the first result (`ChsrClient.enhance`), then the page searches again. Each kind lists the
 * manifest entries the index still needs (`needed(index, client)`) and loads one verified file
 * (`load(index, entry, bytes, digest)`, `digest`: the file's SHA-256 from WebCrypto, or null, then
 * the module hashes it); a new kind is one more entry here.
 */
export const ENHANCEMENTS = [
  {
    // The vectors of the loaded shards (`*.chsrv`, one file per shard).
    kind: 'dense',
    needed: (index, client) => {
      const parts = index.denseNeeded();
      if (parts.length === 0) return [];
      const shards = client.manifest().shards;
      return parts.map((part) => {
        const shard = shards.find((s) => s.dense && s.dense.file === part.file) || {};
        return { ...part, subject: shard.subject, level: shard.level, vectorsOf: shard.file };
      });
    },
    load: (index, entry, bytes, digest) => (digest && index.loadDenseWithDigest
      ? index.loadDenseWithDigest(entry.file, bytes, digest) : index.loadDense(entry.file, bytes)),
  },
  {
    // The embedding model (queries to vectors).
    kind: 'model',
    needed: (index) => { const e = index.modelNeeded(); return e ? [e] : []; },
    load: (index, entry, bytes, digest) => {
      if (!index.modelNeeded()) return;
      if (digest && index.loadModelWithDigest) index.loadModelWithDigest(bytes, digest);
      else index.loadModel(bytes);
    },
  },
];

/** A text part the module names (`textNeeded`) as a download's progress entry. */
const textProgressEntry = (t) => ({ ...t.part, kind: 'text', subject: t.subject, level: t.level, textOf: t.shard });
/** A postings part the module names (`postingsRemaining`) as a download's progress entry. */
const postingsProgressEntry = (t) => ({ ...t.part, kind: 'postings', subject: t.subject, level: t.level, postingsOf: t.shard });

/**
 * The postings parts a search of `query` needs, named by the engine once the shards' part lists
 * (`lists`, their loads) are in, and their downloads started: the loads (none when a list
 * failed: the parts are named again after the shard).
 */
async function postingsFromLists(client, lists, query, options, onProgress) {
  const listed = await Promise.allSettled(lists);
  if (!listed.every((r) => r.status === 'fulfilled')) return [];
  let wanted;
  try {
    wanted = new Set(client.index.postingsNeeded(String(query ?? ''), options));
  } catch (e) {
    throw engineError(e);
  }
  return client.postingsEntries(wanted).map((entry) => client.loadPostings(entry, onProgress));
}

/** A chsr index bound to a manifest URL. */
export class ChsrClient {
  constructor(index, baseUrl) {
    this.index = index;
    this.baseUrl = baseUrl;
    this.pending = new Map();
    /** Downloads a search is waiting for (`loadFiles` in flight): background loads start none meanwhile. */
    this.foreground = 0;
    /** Background downloads in flight (at most `BACKGROUND_LOADS`), and the lanes waiting for a turn. */
    this.background = 0;
    this.backgroundWaiting = [];
    /** Shard file → its load (settled, never rejecting): what a postings part waits for. */
    this.shardLoads = new Map();
    /** Enhancement files that could not be loaded: file → ChsrError (cleared by a retry). */
    this.enhanceErrors = new Map();
    /** The manifest's model entry once its download started; `modelError`: why it could not be loaded. */
    this.modelEntry = null;
    this.modelError = null;
    /** Why the last dense part could not be loaded (searches then stay lexical for that shard). */
    this.denseError = null;
    /** Optional hook `(entry, info)` for the downloads of enhancement files, the model's included (`info` as for shards). */
    this.onModelProgress = null;
    /** Optional hook `(entry, bytes)`, called with each shard's (and the model's) bytes once they passed the checks. */
    this.onShardBytes = null;
    /**
     * Optional hook `(url) => Promise<Response | null>`: the saved copy of a content-hashed file
     * (the page's offline copy), tried before the network; null when there is none. Its bytes
     * pass the same checks, are not handed to `onShardBytes` again, and one that fails them is
     * downloaded again.
     */
    this.savedResponse = null;
  }

  /**
   * Fetches `manifest.json` at `manifestUrl` and creates a client (nothing else is downloaded).
   * `dense: true` starts the module with the dense path (the model and the vectors download after
   * the first result of a search that asks for them); without it, the smaller lexical module.
   */
  static async open(manifestUrl, { wasmUrl, dense = false } = {}) {
    const url = new URL(manifestUrl, document.baseURI);
    // The manifest downloads while the module compiles (one round trip instead of two before
    // the first shard can be asked for); a failure of either is the one reported.
    const [, text] = await Promise.all([initWasm(wasmUrl, { dense }), fetchWithRetry(url.href, 'text')]);
    return new ChsrClient(indexFromManifest(text), new URL('.', url).href);
  }

  /** Enhancement files the index still needs and that did not fail: [{kind, entry}]. */
  enhancementsPending() {
    const out = [];
    for (const e of ENHANCEMENTS) {
      for (const entry of e.needed(this.index, this)) {
        if (!this.enhanceErrors.has(entry.file)) out.push({ kind: e.kind, entry });
      }
    }
    return out;
  }

  /**
   * Downloads and loads every pending enhancement file (the loaded shards' dense parts, the
   * model), in parallel, each once and retried once like a shard. Resolves (never rejects) when
   * they are done, to whether any was loaded; failures are kept (`modelError`, `denseError`) and
   * the lexical path goes on. `onProgress(entry, info)` as for shards.
   */
  async enhance(onProgress) {
    const done = await Promise.all(this.enhancementsPending().map(({ kind, entry }) => {
      const e = ENHANCEMENTS.find((x) => x.kind === kind);
      return this.loadEnhancement(e, entry, onProgress);
    }));
    return done.some(Boolean);
  }

  async loadEnhancement(kind, entry, onProgress) {
    if (kind.kind === 'model') this.modelEntry = entry;
    const progress = (e, info) => {
      if (onProgress) onProgress(e, info);
      if (this.onModelProgress) this.onModelProgress(e, info);
    };
    try {
      await this.loadEntry(entry, (bytes, digest) => kind.load(this.index, entry, bytes, digest), progress);
      if (kind.kind === 'model') this.modelError = null;
      else this.denseError = null;
      return true;
    } catch (e) {
      this.enhanceErrors.set(entry.file, e);
      if (kind.kind === 'model') this.modelError = e;
      else this.denseError = e;
      return false;
    }
  }

  /**
   * Loads, in the background, the parts of the loaded shards that are not loaded yet — the
   * postings of the terms no query has asked for, then the text — so that the next searches (a
   * student typing) need no download. Results never change when a part arrives (a search asks
   * for the postings of its own terms first; the ranking reads no text), so nothing needs
   * searching again. Once per set of loaded shards; resolves (never rejects) to the number of
   * parts loaded; a part that fails is left to the search that needs it.
   */
  async prefetchText() {
    const loaded = this.loadedShards().map((s) => s.file).join(' ');
    if (loaded === this.textPrefetchedFor) return 0;
    this.textPrefetchedFor = loaded;
    const postings = this.index.postingsRemaining().map(postingsProgressEntry);
    const index = await this.inBackground(postings, (entry) => this.loadPostings(entry, null, 'low'));
    const entries = this.index.textNeeded().map(textProgressEntry);
    const text = await this.inBackground(entries, (entry) => this.loadText(entry, null, 'low'));
    return index + text;
  }

  /**
   * Runs `load(entry)` for each entry, at most `BACKGROUND_LOADS` downloads at a time across
   * every background run (another shard's may still be going), each started only
   * while no search waits for a download of its own: a keystroke's postings part is then asked
   * at once instead of after a whole shard's worth of background parts (a browser opens six
   * connections to a host over HTTP/1.1, and every part passes the page's service worker).
   * Resolves (never rejects) to the number loaded.
   */
  async inBackground(entries, load) {
    let next = 0;
    let loaded = 0;
    const lane = async () => {
      while (next < entries.length) {
        const entry = entries[next++];
        // A part already asked (by a search, or by an earlier background run, possibly while
        // this lane waited) takes no turn: its download is under way.
        const asked = () => this.pending.has(entry.file);
        while (!asked() && (this.foreground > 0 || this.background >= BACKGROUND_LOADS)) {
          await new Promise((ok) => this.backgroundWaiting.push(ok));
        }
        const turn = !asked();
        if (turn) this.background++;
        loaded += await load(entry).then(() => 1, () => 0);
        if (turn) {
          this.background--;
          this.wakeBackground();
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(BACKGROUND_LOADS, entries.length) }, lane));
    return loaded;
  }

  /** Lets the waiting background lanes check again whether they may start a download. */
  wakeBackground() {
    for (const ok of this.backgroundWaiting.splice(0)) ok();
  }

  /**
   * The postings parts named in `files` (a Set) that the loaded part lists name and that are
   * not loaded yet, as progress entries of their shards.
   */
  postingsEntries(files) {
    return this.index.postingsRemaining().filter((t) => files.has(t.part.file)).map(postingsProgressEntry);
  }

  /**
   * Loads one postings part (`postingsEntries`), after its shard's part list. `priority`: the
   * Fetch Priority hint (`'low'` in the background).
   */
  loadPostings(entry, onProgress, priority) {
    return this.loadEntry(entry, async (bytes) => {
      // A part downloads alongside its shard (named by the part list, which arrives first); it
      // is attached once the shard is in.
      const shard = this.shardLoads.get(entry.postingsOf);
      if (shard) await shard;
      this.index.loadPostings(entry.file, bytes);
    }, onProgress, priority, false);
  }

  /**
   * Loads the postings parts a search of `query` needs (its terms' postings in the loaded
   * shards: the engine names them), in parallel; at most two rounds (a part list first, should
   * one be missing, then the parts it names).
   */
  async loadPostingsFor(query, options, onProgress) {
    for (let round = 0; round < 2; round++) {
      let needed;
      try {
        needed = this.index.postingsNeeded(String(query ?? ''), options);
      } catch (e) {
        throw engineError(e);
      }
      if (needed.length === 0) return;
      await this.loadFiles(needed, onProgress);
    }
  }

  /**
   * The text parts named in `files` (a Set) that the loaded part lists name and that are not
   * loaded yet, as progress entries of their shards.
   */
  textEntries(files) {
    return this.index.textNeeded().filter((t) => files.has(t.part.file)).map(textProgressEntry);
  }

  /** Loads one text part (`textEntries`), after its shard's part list (`priority` as for postings). */
  loadText(entry, onProgress, priority) {
    return this.loadEntry(entry, (bytes) => this.index.loadText(entry.file, bytes), onProgress, priority, false);
  }

  /**
   * Loads the part list of the manifest shard `shard` (it names the shard's postings and text
   * parts), after `shardLoaded` when given; the engine also takes a list before its shard, and
   * attaches it when the shard arrives.
   */
  loadPartList(shard, shardLoaded, onProgress) {
    const entry = { ...shard.part_list, kind: 'text', subject: shard.subject, level: shard.level, textOf: shard.file };
    return this.loadEntry(entry, async (bytes, digest) => {
      if (shardLoaded) await shardLoaded;
      this.index.loadPartList(entry.file, bytes, digest || undefined);
    }, onProgress);
  }

  /** Loads the embedding model now (the dense path); resolves to its entry, null without one. */
  async loadModel() {
    await this.enhance();
    if (this.modelError) throw this.modelError;
    return this.modelEntry;
  }

  /** Forgets the enhancement failures (the model's, the dense parts') and downloads those files again. */
  retryEnhancements(onProgress) {
    this.enhanceErrors.clear();
    this.modelError = null;
    this.denseError = null;
    return this.enhance(onProgress);
  }

  /** Downloads the model again after a failure (see `retryEnhancements`). */
  retryModel() {
    return this.retryEnhancements();
  }

  /** The manifest as a plain object (the same object at every call: read it, do not change it). */
  manifest() {
    // Converted from the module once: the manifest does not change while the client lives, and
    // every search reads it.
    if (!this.manifestCache) this.manifestCache = this.index.manifest();
    return this.manifestCache;
  }

  /**
   * Every shard a search with this scope reads, loaded or not (the engine decides); with a
   * `query`, only those it could match (the manifest's per-shard term summary).
   */
  shardsFor(scope, options, query) {
    try {
      return query === undefined ? this.index.shardsFor(scope, options) : this.index.shardsFor(scope, options, String(query));
    } catch (e) {
      throw engineError(e);
    }
  }

  /** Shards the scope needs that are not loaded yet: [{file, bytes, subject, level, ...}]. */
  shardsNeeded(scope, options) {
    try {
      return this.index.shardsNeeded(scope, options);
    } catch (e) {
      throw engineError(e);
    }
  }

  /** The absolute URL of a file named in the manifest (a shard, the model). */
  fileUrl(file) {
    return new URL(file, this.baseUrl).href;
  }

  /**
   * Loads the shards a search needs. `onProgress(entry, info)` is called before each download
   * (`info` undefined), then as bytes arrive (`{received, expected}`) and before a retry
   * (`{retry: error}`).
   */
  async ensureLoaded(scope, options, onProgress, query) {
    await this.loadFiles(this.shardsNeeded(scope, options).map((e) => e.file), onProgress, query, options);
  }

  /**
   * Loads the files named in `files` (shards, the term-filter file, part lists, postings and text
   * parts). With a `query`, the postings parts its terms need in those shards download with them:
   * each shard's part list comes first (a small file), the engine names the parts from it, and
   * they are fetched while the shard still downloads.
   */
  async loadFiles(files, onProgress, query, options) {
    // A search waits for these: background loads (`inBackground`) start none meanwhile.
    this.foreground++;
    try {
      await this.loadNamed(files, onProgress, query, options);
    } finally {
      if (--this.foreground === 0) this.wakeBackground();
    }
  }

  /** `loadFiles`'s work, the foreground count aside. */
  async loadNamed(files, onProgress, query, options) {
    const m = this.manifest();
    // The term-filter file (named in `pending_shards` by a widening step that needs it first).
    if (m.terms && files.includes(m.terms.file) && !this.index.isLoaded(m.terms.file)) {
      const entry = { ...m.terms, kind: 'terms' };
      await this.loadEntry(entry, (bytes, digest) => this.index.loadTerms(bytes, digest || undefined), onProgress);
    }
    const entries = m.shards.filter((s) => files.includes(s.file));
    // Each shard's part list downloads with it (the engine holds a list that arrives first);
    // then the postings parts the query needs, named from the lists and fetched while the shards
    // still download. A shard is decoded once those are asked for: one that arrives before its
    // list (both from a cache, on a second visit) would otherwise hold the main thread first.
    const lists = entries.filter((e) => e.part_list && !this.index.isLoaded(e.part_list.file))
      .map((e) => this.loadPartList(e, null, onProgress));
    const asking = query !== undefined && lists.length > 0
      ? postingsFromLists(this, lists, query, options, onProgress) : Promise.resolve([]);
    const asked = asking.catch(() => {});
    const shards = entries.map((entry) => {
      const p = this.loadEntry(entry, async (bytes, digest) => {
        await asked;
        return digest && this.index.loadShardWithDigest
          ? this.index.loadShardWithDigest(entry.file, bytes, digest) : this.index.loadShard(entry.file, bytes);
      }, onProgress);
      this.shardLoads.set(entry.file, p.catch(() => {}));
      return p;
    });
    // A failed shard is the error reported.
    const early = await asking;
    for (const p of [...lists, ...early]) p.catch(() => {});
    await Promise.all(shards);
    await Promise.all([...lists, ...early]);
    // Part lists named in a response's `pending_text` (a shard loaded without its list).
    await Promise.all(m.shards.filter((s) => s.part_list && files.includes(s.part_list.file) && this.index.isLoaded(s.file))
      .map((s) => this.loadPartList(s, null, onProgress)));
    // Postings parts (named by `postingsNeeded`) and text parts (named in a response's
    // `pending_text`): small, fetched in parallel, each after its shard's part list (loaded
    // above or earlier).
    const named = new Set(files);
    await Promise.all([
      ...this.postingsEntries(named).map((entry) => this.loadPostings(entry, onProgress)),
      ...this.textEntries(named).map((entry) => this.loadText(entry, onProgress)),
    ]);
  }

  // One manifest file (`entry`: {file, bytes, ...}), fetched once even when several searches ask
  // for it, retried once, then handed to `load` (which throws when the module's checks fail),
  // with WebCrypto's digest of the bytes unless `hashed` is false (a shard's parts: the module
  // checks them against their part list's Merkle roots, hashing them itself).
  async loadEntry(entry, load, onProgress, priority, hashed = true) {
    if (!this.pending.has(entry.file)) {
      if (onProgress) onProgress(entry);
      const p = fetchWithRetry(this.fileUrl(entry.file), 'bytes', {
        expected: entry.bytes,
        priority,
        saved: this.savedResponse,
        onBytes: onProgress && ((received, expected) => onProgress(entry, { received, expected })),
        onRetry: onProgress && ((error) => onProgress(entry, { retry: error })),
        // The module checks the manifest SHA-256 (against WebCrypto's digest of the bytes when
        // there is one, else hashing them itself), the file's magic and version; decodes.
        check: async (bytes, fromSaved) => {
          const digest = hashed ? await sha256Hex(bytes) : null;
          if (!this.index.isLoaded(entry.file)) await load(bytes, digest);
          if (this.onShardBytes && !fromSaved) {
            // Verified bytes, for whoever keeps them (the page's offline cache); never fatal.
            try { this.onShardBytes(entry, bytes); } catch (e) { console.warn('chsr: onShardBytes:', e); }
          }
        },
      }).catch((e) => {
        e.entry = entry;
        throw e;
      });
      this.pending.set(entry.file, p);
      p.catch(() => this.pending.delete(entry.file));
    }
    await this.pending.get(entry.file);
  }

  /**
   * Loads the shards the search needs, then searches: {results, trace, pending}. When scope
   * relaxation wants shards that are not loaded yet (another level of the subject), they are
   * fetched (after the term-filter file, when the engine asks for it first to know which) and
   * the search runs once more — unless `{widen: false}` is passed as the last argument
   * (a locked embed never downloads what it could not show: only the term filters, when the
   * engine asks for them). Enhancement files (the model) are not
   * waited for unless `{enhanced: true}` is passed: `pending` lists those still to come
   * ([{kind, entry}]), and the caller calls `enhance()` after showing the results and searches
   * again when it resolves.
   */
  async search(query, scope, options, onProgress, { widen = true, enhanced = false } = {}) {
    await this.ensureLoaded(scope, options, onProgress, query);
    await this.loadPostingsFor(query, options, onProgress);
    if (enhanced) await this.enhance(onProgress);
    let resp = this.runSearch(query, scope, options);
    // A widening step may first ask for the term filters, then for the shards they let through:
    // at most two more rounds, and never for files already loaded. Without widening only the
    // term filters are fetched (they show nothing; a locked level asks for them to say whether
    // the lock kept a better match out).
    const terms = this.manifest().terms;
    for (let round = 0; round < 2; round++) {
      const asked = resp.trace.relaxation ? resp.trace.relaxation.pending_shards : [];
      const pending = widen ? asked : asked.filter((f) => terms && f === terms.file);
      if (pending.length === 0 || pending.every((f) => this.index.isLoaded(f))) break;
      await this.loadFiles(pending, onProgress, query, options);
      // The shards just loaded need the postings of the query's terms too.
      await this.loadPostingsFor(query, options, onProgress);
      resp = this.runSearch(query, scope, options);
    }
    // The results' display text (their snippets, sections and context): the engine names the
    // text parts it lacks, only parts not loaded. They may also bring their chunks' near-duplicate
    // pairs, so a result may then give way to the next candidate, whose part the engine names
    // with the results'; a further round when more than one gives way (every round loads a part
    // not loaded before, so this ends).
    for (let round = 0; round < 8; round++) {
      const pending = (resp.pending_text || []).filter((f) => !this.index.isLoaded(f));
      if (pending.length === 0) break;
      await this.loadFiles(pending, onProgress);
      resp = this.runSearch(query, scope, options);
    }
    // No vector path (browsing, or no query term in the searched shards: gibberish): nothing
    // more to download.
    resp.pending = resp.trace.browse || !resp.trace.dense_path ? [] : this.enhancementsPending();
    return resp;
  }

  runSearch(query, scope, options) {
    try {
      return this.index.search(query, scope, options);
    } catch (e) {
      throw engineError(e);
    }
  }

  /**
   * The same search's results packaged as `[DOCUMENT N]` context for an assistant (with their
   * sections when `options.expand_chars` is set). Call after `search` with the same arguments.
   */
  toContext(query, scope, options) {
    try {
      return this.index.toContext(query, scope, options);
    } catch (e) {
      throw engineError(e);
    }
  }

  /**
   * The scope pickers' values: `[{field, values: [{value, count}], selected?, locked, exact}]`
   * for subject, level, doc_type, chapter, year, paper, exam and lang, counts narrowed by the
   * rest of the scope (chunk-exact once its shards are loaded, `exact`), the scope's own value
   * always listed. A picker for a `locked` field is not offered.
   */
  facets(scope) {
    try {
      return this.index.facets(scope);
    } catch (e) {
      throw engineError(e);
    }
  }

  /** Checks a scope against the manifest: `{ok: true}` or `{ok: false, code, message, details: {field, value, valid}}`. */
  validateScope(scope) {
    try {
      return this.index.validateScope(scope);
    } catch (e) {
      throw engineError(e);
    }
  }

  /**
   * The whole section of a shown result, re-gated against the scope it was searched with (locks
   * included): `{id, chunks: [{id, subject, level, doc_type, lang, chapter?, section?, year?,
   * paper?, text}], withheld}` in reading order, or null when the chunk is not loaded or lies
   * outside the scope. No search runs.
   */
  section(id, scope) {
    try {
      return this.index.section(id, scope) || null;
    } catch (e) {
      throw engineError(e);
    }
  }

  /**
   * `[DOCUMENT N]` context for the results shown (`ids`, in order) without searching again:
   * `{context, withheld}` (`withheld`: ids not loaded or outside the scope, left out).
   */
  contextFor(ids, scope) {
    try {
      return this.index.contextFor(ids, scope);
    } catch (e) {
      throw engineError(e);
    }
  }

  /** Manifest entries of the shards loaded in this page. */
  loadedShards() {
    return this.manifest().shards.filter((s) => this.index.isLoaded(s.file));
  }

  /**
   * The files of a manifest shard entry: the shard, its dense part (if any; unless `{dense:
   * false}`), its part list (if any; unless `{text: false}`). Its postings and text parts are
   * named in the list: `partFiles`.
   */
  static shardFiles(entry, { text = true, dense = true } = {}) {
    return [entry.file, ...(dense && entry.dense ? [entry.dense.file] : []), ...(text && entry.part_list ? [entry.part_list.file] : [])];
  }

  /**
   * The postings and text parts of a manifest shard entry (file names), read from its part
   * list: `list` (a parsed part-list file) when given, else the list fetched (from the HTTP
   * cache when the page loaded it). Empty for a shard that has everything inside it.
   */
  async partFiles(entry, list) {
    if (!entry.part_list) return [];
    return ChsrClient.partListFiles(list || JSON.parse(await fetchWithRetry(this.fileUrl(entry.part_list.file), 'text')));
  }

  /**
   * The file names of the parts a parsed part list names, its postings parts then its text
   * parts. A list gives each field of its parts as an array and their names as a rule (format
   * v14, `part_file` in `src/format/parts.rs`): part `i`, counting the text parts first, is
   * `<stem>.<i>.<key>.chsrx` (text) or `.chsri` (postings). The service worker applies the same rule.
   */
  static partListFiles(list) {
    const text = list.text.bytes.length;
    const name = (i, ext) => `${list.stem}.${i}.${list.key}.${ext}`;
    return [...list.postings.bytes.map((_, j) => name(text + j, 'chsri')), ...list.text.bytes.map((_, i) => name(i, 'chsrx'))];
  }
}
