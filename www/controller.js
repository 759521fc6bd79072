// The search controller shared by the study page (app.js) and the embed (chsr-search.js): the
// client's lifecycle, a search (the shards the scope needs, relaxation's extra shards, then the
// dense parts and the model after the first result and the same search again), the pickers'
// facets, scope checking, "show the whole section" and "copy as context" for the results shown.
// Rust decides (chsr-client.js wraps the Wasm index): which shards, which facet values and counts,
// which scope values are valid, what a lock admits. The views only render what this returns and
// turn its errors (ChsrError codes) into words; nothing here filters results.
import { ChsrClient, wasmModuleUrl } from './chsr-client.js';
import { keepOffline, keepOfflineBytes, savedResponse } from './offline.js';

const clients = new Map();

/** One client per manifest URL in a page: several embeds of one library share it. */
export function openClient(manifestUrl, { wasmUrl, dense = false } = {}) {
  const key = new URL(manifestUrl, document.baseURI).href;
  if (!clients.has(key)) {
    const p = ChsrClient.open(key, { wasmUrl, dense });
    clients.set(key, p);
    p.catch(() => clients.delete(key));
  }
  return clients.get(key);
}

/**
 * `scope` with the locked values (`lock`: field → value) set and locked: the engine enforces them
 * in every search, facet, section and context (relaxation never drops them).
 */
export function withLock(scope, lock = {}) {
  const fields = Object.keys(lock);
  return fields.length ? { ...scope, ...lock, lock: fields } : { ...scope };
}

/**
 * What a link says: the query (`q`) and the scope values of `fields` in URL search parameters
 * (`params`), as written (the engine checks them: Controller.checkScope). The study page's links
 * and `<chsr-search sync-url>`'s share this form: `?q=…&subject=…&level=…`.
 */
export function linkState(params, fields) {
  const scope = {};
  for (const f of fields) if (params.get(f)) scope[f] = params.get(f);
  return { query: params.get('q') || '', scope };
}

/**
 * `params` (URLSearchParams, changed in place and returned) made to say `query` and the values
 * `scope` gives for `fields` (a field without a value is removed); other parameters are kept.
 */
export function setLinkState(params, query, scope, fields) {
  if (query) params.set('q', query);
  else params.delete('q');
  for (const f of fields) {
    if (scope[f]) params.set(f, scope[f]);
    else params.delete(f);
  }
  return params;
}

/** Whether a scope locks `field` (`lock`: an array or a comma-separated string). */
function isLocked(scope, field) {
  const lock = Array.isArray(scope.lock) ? scope.lock : String(scope.lock || '').split(',');
  return lock.map((f) => f.trim()).includes(field);
}

/**
 * A controller over one client. `hooks` (all optional) are how it reports to its view:
 * `started(seq, query)`, `progress(entry, info)` (downloads of the current search), `results(resp,
 * {upgrade})`, `cleared()` (an empty query), `error(err, retry)`, `settled(current)` (a search is
 * over; `current`: no other started since), `textReady(n)` (the rest of the loaded collections'
 * text arrived in the background: `n` parts). `options`: the search options (`k`, `text`…);
 * `offline`: hand loaded files to the service worker.
 */
export class Controller {
  constructor(hooks = {}, { options = { k: 8, text: false }, offline = false } = {}) {
    this.hooks = hooks;
    this.options = options;
    this.offline = offline;
    this.client = null;
    this.seq = 0;
    /** The search shown: {query, scope, options, resp}, or null. */
    this.last = null;
  }

  /**
   * Opens (or shares) the client of a manifest; its module has the dense path when `dense` (by
   * default, when the options ask for it).
   */
  async open(manifestUrl, { wasmUrl, dense = this.dense } = {}) {
    const client = await openClient(manifestUrl, { wasmUrl, dense });
    if (this.offline) {
      // Verified bytes go to the offline cache; a returning visit reads them back from it.
      client.onShardBytes ??= (entry, bytes) => keepOfflineBytes(client.fileUrl(entry.file), bytes);
      client.savedResponse ??= savedResponse;
    }
    this.client = client;
    return client;
  }

  manifest() {
    return this.client.manifest();
  }

  /** Why the model (the dense path) could not be loaded, if so: searches go on with keywords. */
  get modelError() {
    return this.client ? this.client.modelError : null;
  }

  /**
   * Checks a scope with the engine; drops each value it rejects. Returns `{scope, unknown:
   * [{field, value, valid}], error}` (`valid`: the values the library has for that field;
   * `error`: a failure that dropping a value does not cure, e.g. a lock without a value).
   */
  checkScope(scope) {
    const ok = { ...scope };
    const unknown = [];
    for (;;) {
      const r = this.client.validateScope(ok);
      if (r.ok) return { scope: ok, unknown, error: null };
      const d = r.details || {};
      if (!d.field || d.field === 'lock' || !(d.field in ok)) return { scope: ok, unknown, error: r };
      unknown.push({ field: d.field, value: String(ok[d.field]), valid: d.valid || [] });
      delete ok[d.field];
    }
  }

  /**
   * The pickers' facets for a scope (see ChsrClient.facets), by field name. The subject is the
   * root of the pickers: unless the level is locked, its picker lists the subjects of every level,
   * so that another subject can be chosen without clearing the level first (a level the new
   * subject lacks is then dropped by checkScope).
   */
  facets(scope) {
    const byField = new Map(this.client.facets(scope).map((f) => [f.field, f]));
    if (scope.level !== undefined && !isLocked(scope, 'level')) {
      const { level, ...rest } = scope;
      const subject = this.client.facets(rest).find((f) => f.field === 'subject');
      if (subject) byField.set('subject', subject);
    }
    return byField;
  }

  /**
   * Searches `query` within `scope` and reports through the hooks. An empty query clears, unless
   * `browse` (an explicit submit) and the scope has a subject: the scope is then browsed.
   * `upgrade`: the same search again once enhancement files (the model) arrived.
   */
  async search(query, scope, { browse = false, upgrade = false } = {}) {
    if (!this.client) return;
    const h = this.hooks;
    const my = ++this.seq;
    if (h.started) h.started(my, query);
    try {
      if (!query.trim() && !(browse && scope.subject)) {
        this.last = null;
        if (h.cleared) h.cleared();
        return;
      }
      const options = { ...this.options };
      const progress = upgrade || !h.progress ? null : (entry, info) => { if (my === this.seq) h.progress(entry, info); };
      const resp = await this.client.search(query, scope, options, progress);
      if (my !== this.seq) return;
      const before = this.last && this.last.resp;
      if (upgrade && before && before.pending.length > 0) resp.upgraded = before.pending;
      this.last = { query, scope, options, resp };
      if (h.results) h.results(resp, { upgrade });
      this.rememberLoaded();
      if (resp.pending.length > 0) {
        // The vector path comes after the first result: load what it needs, then search again
        // (unless another search has started since: it does the same).
        this.client.enhance().then(() => { if (my === this.seq) this.search(query, scope, { browse, upgrade: true }); });
      } else if (resp.results.length > 0) {
        // Then the rest of the text of the collection, so that typing never waits for it.
        this.client.prefetchText().then((n) => { if (n > 0 && h.textReady) h.textReady(n); });
      }
    } catch (e) {
      if (my !== this.seq) return;
      this.last = null;
      if (h.error) h.error(e, () => this.search(query, scope, { browse }));
    } finally {
      if (h.settled) h.settled(my === this.seq);
    }
  }

  /** Whether a search in `scope` needs no download (its shards are loaded): then it takes milliseconds. */
  warm(scope) {
    if (!this.client) return false;
    try {
      return this.client.shardsNeeded(scope, this.options).length === 0;
    } catch {
      return false;
    }
  }

  /** Drops the search in flight and the one shown (the view starts over: another manifest, lock or k). */
  cancel() {
    this.seq++;
    this.last = null;
  }

  /** Forgets the enhancement failures (the model's) and searches again. */
  retryEnhancements() {
    if (!this.client) return;
    this.client.retryEnhancements();
    if (this.last) this.search(this.last.query, this.last.scope);
  }

  /**
   * The whole section of a result shown by `last` (the search it came from), for its card:
   * resolves to `{...hit, text, expanded, withheld}`, re-gated by the engine against that
   * search's scope (locks included), without searching again. A search fetches only the text of
   * its results; the text parts the rest of the section needs (the engine names them) are
   * fetched first. Passages already among the results are not repeated under it.
   */
  async section(hit, last = this.last) {
    let s = last && this.client.section(hit.id, last.scope);
    if (s && s.pending_text.length > 0) {
      await this.client.loadFiles(s.pending_text);
      s = this.client.section(hit.id, last.scope);
    }
    if (!s) return { ...hit, expanded: [] };
    const shown = new Set(last.resp.results.map((h) => h.id));
    const own = s.chunks.find((c) => c.id === hit.id);
    const expanded = s.chunks.filter((c) => c.id !== hit.id && !shown.has(c.id));
    return { ...hit, text: own ? own.text : hit.text, expanded, withheld: s.withheld };
  }

  /**
   * The results shown by `last`, packaged as `[DOCUMENT N]` context, without searching again:
   * `{text, n, withheld}` (`n`: documents packaged; `withheld`: results the engine left out).
   */
  context(last = this.last) {
    if (!last) return null;
    const ids = last.resp.results.map((h) => h.id);
    const { context, withheld } = this.client.contextFor(ids, last.scope);
    return { text: context, n: ids.length - withheld, withheld };
  }

  /**
   * Hands the loaded shards and their loaded dense parts to the service worker (offline use): a
   * page searching by keywords only never fetches a shard's vectors, for offline use either.
   * Their text parts reach it as the page loads them (`onShardBytes`, then `prefetchText`):
   * naming them here too would download each twice. With the dense path, the module it runs too
   * (the worker saves the lexical module with the build, the others only for the pages using them).
   */
  rememberLoaded() {
    if (!this.offline || !this.client) return;
    const index = this.client.index;
    const files = this.client.loadedShards()
      .flatMap((s) => ChsrClient.shardFiles(s, { text: false, dense: Boolean(s.dense) && index.isLoaded(s.dense.file) }))
      .map((f) => this.client.fileUrl(f));
    if (this.dense && wasmModuleUrl()) files.push(wasmModuleUrl());
    keepOffline(files);
  }

  /** Whether the searches ask for the dense path (the page's `?dense=1`, the embed's `dense`). */
  get dense() {
    return this.options.dense === true;
  }
}
