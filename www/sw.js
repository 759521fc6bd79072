// The service worker: the study site keeps working offline after the first visit.
//
// One cache per build, named `chsr-<build>`; the build id comes from the registration URL
// (`sw.js?build=<id>`, read by offline.js from `build.json`, which `scripts/site-version.mjs` writes
// with the list of the page's files; the page registers once its first result is shown). Installing a build fills its cache completely — the page,
// the Wasm module, the manifest, and every data file (shard and its parts, model) of the old cache that the new
// manifest still names — before it may activate; activating deletes the other builds' caches. A
// page is therefore always served from one consistent build, and a redeploy replaces the cache in
// one step (of the Wasm modules, the lexical one; a page with the dense path adds its own). Shards and the model are saved as the page uses them: it hands over their verified
// bytes (`cache-bytes`), or names files for the worker to fetch (`cache-urls`).
//
// Requests:
//   content-hashed data (`name.<16 hex>.ext`: shards `.chsr`, their vectors `.chsrv`, their part lists `.chsrl`, postings `.chsri` and text `.chsrx`, the model `.chsrm`,
//     the term filters `.chsrt`) — cache first (the name is the
//     content), else the network, then saved; `cache: 'reload'` requests (a retry after an integrity
//     failure) always go to the network and replace the saved copy;
//   other data files next to a manifest (an unhashed model) — network first, saved, cache fallback;
//   the build's own files (page, scripts, styles, Wasm module, manifests: what install saved) — cache
//     first: they were saved together, so a returning student's page starts from one consistent
//     build without a round trip per file (a redeploy is found by build.json, below, and offered
//     by the page's "new version" notice; `cache: 'reload'` requests still go to the network);
//   everything else of this origin (build.json, sw.js, files no build lists) — network first
//     without saving (so a half-deployed site never mixes into a build's cache), cache fallback.
/* eslint-env serviceworker */

const BUILD = new URL(self.location.href).searchParams.get('build') || 'dev';
const CACHE = `chsr-${BUILD}`;
const HASHED = /\.[0-9a-f]{16}\.[a-z0-9]+$/;
const DATA_EXT = /\.(chsr|chsrv|chsrl|chsri|chsrx|chsrm|chsrt|bin|onnx)$/;

const scopeUrl = (path) => new URL(path, self.registration.scope).href;

// The build has three Wasm modules (scripts/build-wasm): the lexical one, which every page
// without the dense path runs, is saved with the build; the two with the dense path (SIMD and
// scalar) are saved only by a page running one (it names it with its data files, `cache-urls`).
const NOT_PRECACHED = /(^|\/)chsr(_scalar)?_bg\.wasm$/;

// The file names of the parts a parsed part list names: part `i`, counting its text parts
// first, is `<stem>.<i>.<key>.chsrx` (text) or `.chsri` (postings) (format v14; the rule of
// `ChsrClient.partListFiles`, which a classic worker cannot import). A list of another format
// names nothing here: its parts are fetched again.
const partListFiles = (list) => {
  if (!list.text || !Array.isArray(list.text.bytes) || !list.postings || !Array.isArray(list.postings.bytes)) return [];
  const text = list.text.bytes.length;
  const name = (i, ext) => `${list.stem}.${i}.${list.key}.${ext}`;
  return [...list.postings.bytes.map((_, j) => name(text + j, 'chsri')), ...list.text.bytes.map((_, i) => name(i, 'chsrx'))];
};

async function precache() {
  const res = await fetch(scopeUrl('build.json'), { cache: 'no-cache' });
  if (!res.ok) throw new Error(`build.json: HTTP ${res.status}`);
  const build = await res.clone().json();
  if (build.build !== BUILD) throw new Error(`build.json names build ${build.build}, not ${BUILD}`);
  const cache = await caches.open(CACHE);
  // addAll is all or nothing: a failed file fails the install and the old build stays in charge.
  // `no-cache` revalidates with the server: a file the page already loaded (the Wasm module, the
  // scripts) comes from the HTTP cache after a 304, not downloaded twice; a changed one is fetched.
  const files = build.files.filter((f) => !NOT_PRECACHED.test(f));
  await cache.addAll(files.map((f) => new Request(scopeUrl(f), { cache: 'no-cache' })));
  await cache.put(scopeUrl('build.json'), res);
  // Data files the old caches hold and the new manifests still name are carried over.
  const wanted = new Set();
  for (const m of build.manifests || []) {
    const man = await cache.match(scopeUrl(m));
    if (!man) continue;
    const json = await man.json();
    const base = new URL('.', scopeUrl(m));
    for (const s of json.shards || []) {
      wanted.add(new URL(s.file, base).href);
      if (s.dense && s.dense.file) wanted.add(new URL(s.dense.file, base).href);
      if (s.part_list && s.part_list.file) {
        // The postings and text parts are named in the shard's part list (a JSON file), when a cache holds it.
        const url = new URL(s.part_list.file, base).href;
        wanted.add(url);
        const saved = await caches.match(url);
        const list = saved ? await saved.json().catch(() => null) : null;
        for (const f of list ? partListFiles(list) : []) wanted.add(new URL(f, base).href);
      }
    }
    const model = json.model && (typeof json.model === 'string' ? json.model : json.model.file);
    if (model) wanted.add(new URL(model, base).href);
    if (json.terms && json.terms.file) wanted.add(new URL(json.terms.file, base).href);
  }
  for (const name of await caches.keys()) {
    if (!name.startsWith('chsr-') || name === CACHE) continue;
    const old = await caches.open(name);
    for (const req of await old.keys()) {
      if (wanted.has(req.url) && !(await cache.match(req))) {
        const r = await old.match(req);
        if (r) await cache.put(req, r);
      }
    }
  }
}

self.addEventListener('install', (event) => {
  // A failed install leaves no half-filled cache behind; the previous build stays in charge.
  event.waitUntil(precache().catch(async (e) => {
    await caches.delete(CACHE);
    throw e;
  }));
});

self.addEventListener('activate', (event) => {
  event.waitUntil((async () => {
    for (const name of await caches.keys()) {
      if (name.startsWith('chsr-') && name !== CACHE) await caches.delete(name);
    }
    await self.clients.claim();
  })());
});

// Messages that write the cache are handled one after the other, so that a file handed over as
// bytes is in the cache before a later "cache these URLs" looks for it.
let queue = Promise.resolve();
const inTurn = (job) => {
  queue = queue.then(job, job);
  return queue;
};

self.addEventListener('message', (event) => {
  const msg = event.data || {};
  if (msg.type === 'skip-waiting') self.skipWaiting();
  if (msg.type === 'cache-bytes' && typeof msg.url === 'string' && msg.bytes instanceof Uint8Array) {
    // A content-hashed file the page downloaded and verified (SHA-256 against the manifest).
    event.waitUntil(inTurn(async () => {
      const url = new URL(msg.url);
      if (url.origin !== self.location.origin || !HASHED.test(url.pathname)) return;
      const cache = await caches.open(CACHE);
      if (!(await cache.match(url.href))) {
        await cache.put(url.href, new Response(msg.bytes, {
          headers: { 'content-type': 'application/octet-stream', 'content-length': String(msg.bytes.length) },
        }));
      }
      if (event.source) event.source.postMessage({ type: 'cached', urls: [url.href], build: BUILD });
    }));
  }
  if (msg.type === 'cache-urls' && Array.isArray(msg.urls)) {
    // The page names data files it loaded (possibly before this worker controlled it), and the
    // Wasm module it runs when that is not the one saved with the build.
    event.waitUntil(inTurn(async () => {
      const cache = await caches.open(CACHE);
      const done = [];
      const urls = msg.urls.filter((url) => new URL(url).origin === self.location.origin);
      // A collection is a shard and its many small text parts: four downloads at a time.
      const next = async () => {
        for (let url = urls.shift(); url !== undefined; url = urls.shift()) {
          try {
            if (!(await cache.match(url))) {
              const res = await fetch(url);
              if (!res.ok) continue;
              await cache.put(url, res);
            }
            done.push(url);
          } catch {
            // Offline or failed: the page keeps showing "not on this device yet".
          }
        }
      };
      await Promise.all([next(), next(), next(), next()]);
      if (event.source) event.source.postMessage({ type: 'cached', urls: done, build: BUILD });
    }));
  }
});

async function cacheFirst(request) {
  const cache = await caches.open(CACHE);
  if (request.cache !== 'reload' && request.cache !== 'no-store') {
    const hit = await cache.match(request);
    if (hit) return hit;
  }
  const res = await fetch(request);
  if (res.ok && res.status === 200) await cache.put(request, res.clone());
  return res;
}

async function buildFirst(request) {
  if (request.cache !== 'reload' && request.cache !== 'no-store') {
    const cache = await caches.open(CACHE);
    // A page opened with a query string (`index.html?q=…`) is the page this build saved.
    const hit = await cache.match(request, { ignoreSearch: request.mode === 'navigate' });
    if (hit) return hit;
  }
  return networkFirst(request, false);
}

async function networkFirst(request, save) {
  const cache = await caches.open(CACHE);
  try {
    const res = await fetch(request);
    if (save && res.ok && res.status === 200) await cache.put(request, res.clone());
    return res;
  } catch (e) {
    const hit = await cache.match(request, { ignoreSearch: true });
    if (hit) return hit;
    if (request.mode === 'navigate') {
      // A page of the site opened offline (any query string): its cached copy.
      const url = new URL(request.url);
      const page = await cache.match(url.pathname.endsWith('/') ? `${url.origin}${url.pathname}` : url.href, { ignoreSearch: true });
      if (page) return page;
    }
    throw e;
  }
}

self.addEventListener('fetch', (event) => {
  const { request } = event;
  if (request.method !== 'GET') return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (HASHED.test(url.pathname)) {
    event.respondWith(cacheFirst(request));
  } else if (DATA_EXT.test(url.pathname)) {
    event.respondWith(networkFirst(request, true));
  } else if (/\/(build\.json|sw\.js)$/.test(url.pathname)) {
    // How a redeploy is found: always asked of the server first.
    event.respondWith(networkFirst(request, false));
  } else {
    event.respondWith(buildFirst(request));
  }
});
