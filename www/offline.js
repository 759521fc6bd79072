// Offline support on the page side: registers the service worker for the current build, tells it
// which data files the page loaded, and answers "is this collection available offline?".
// See sw.js for the caching rules.

const listeners = new Set();
let registration = null;
let registering = null;
const handedOver = new Set(); // URLs whose bytes were given to the worker (no download needed)
const confirmed = new Set(); // `${build} ${url}`: files a worker of that build said it saved
const waiting = new Map(); // URL → verified bytes handed over before the registration started
let updateReady = null;

/** Whether this browser can keep the site offline (service workers and the Cache API). */
export function offlineSupported() {
  return typeof navigator !== 'undefined' && 'serviceWorker' in navigator && typeof caches !== 'undefined' && window.isSecureContext;
}

/** Calls `fn({type, ...})` on `cached` (files saved) and `update` (a new build is waiting). */
export function onOfflineEvent(fn) {
  listeners.add(fn);
  if (updateReady) fn({ type: 'update' });
  return () => listeners.delete(fn);
}
const emit = (ev) => { for (const fn of listeners) fn(ev); };

function watchWaiting(reg) {
  const announce = () => {
    if (reg.waiting && navigator.serviceWorker.controller) {
      updateReady = reg.waiting;
      emit({ type: 'update' });
    }
  };
  announce();
  reg.addEventListener('updatefound', () => {
    const w = reg.installing;
    if (w) w.addEventListener('statechange', () => { if (w.state === 'installed') announce(); });
  });
}

/**
 * Registers `sw.js` (next to `siteBase`) for the build named in `build.json`. Resolves to the
 * registration, or null when unsupported or when the site has no build.json (a dev checkout).
 */
export function registerOffline(siteBase = document.baseURI) {
  if (!offlineSupported()) return Promise.resolve(null);
  if (!registering) registering = register(siteBase);
  return registering;
}

async function register(siteBase) {
  try {
    const res = await fetch(new URL('build.json', siteBase), { cache: 'no-cache' });
    if (!res.ok) return null;
    const { build } = await res.json();
    if (!/^[0-9a-f]{8,64}$/.test(build)) return null;
    navigator.serviceWorker.addEventListener('message', (ev) => {
      if (ev.data && ev.data.type === 'cached') {
        for (const u of ev.data.urls || []) confirmed.add(`${ev.data.build} ${u}`);
        emit({ type: 'cached', urls: ev.data.urls });
      }
    });
    navigator.serviceWorker.addEventListener('controllerchange', () => emit({ type: 'cached', urls: [] }));
    const scope = new URL('./', siteBase).href;
    try {
      registration = await navigator.serviceWorker.register(new URL(`sw.js?build=${build}`, siteBase), { scope });
    } catch (e) {
      // Offline with a new build id, say: the worker already installed keeps serving.
      registration = (await navigator.serviceWorker.getRegistration(scope)) || null;
      if (!registration) throw e;
    }
    watchWaiting(registration);
    return registration;
  } catch (e) {
    console.warn('chsr: offline support unavailable:', e && e.message);
    return null;
  } finally {
    // Bytes the page verified before it registered the worker (the first result comes first).
    const held = [...waiting];
    waiting.clear();
    for (const [url, bytes] of held) {
      handedOver.delete(url);
      keepOfflineBytes(url, bytes);
    }
  }
}

/** Activates a waiting build and reloads the page. */
export function applyUpdate() {
  if (!updateReady) return;
  navigator.serviceWorker.addEventListener('controllerchange', () => window.location.reload(), { once: true });
  updateReady.postMessage({ type: 'skip-waiting' });
}

/** Asks the service worker to save these absolute URLs (no-op without one). */
export async function keepOffline(urls) {
  urls = urls.filter((u) => !handedOver.has(u));
  if (!offlineSupported() || !registration || urls.length === 0) return;
  const reg = await navigator.serviceWorker.ready;
  const worker = reg.active;
  if (!worker) return;
  // Files this worker's build said it saved are not asked for again (the page asks after every
  // search; each answer makes it check its offline list).
  const build = new URL(worker.scriptURL).searchParams.get('build') || 'dev';
  urls = urls.filter((u) => !confirmed.has(`${build} ${u}`));
  if (urls.length) worker.postMessage({ type: 'cache-urls', urls });
}

/**
 * Hands verified bytes of a content-hashed file (a shard the page just downloaded) to the service
 * worker, so that it saves them without downloading them a second time (on the first visit the
 * page downloads before the worker controls it). The buffer is transferred, not copied. Bytes
 * handed over before `registerOffline` was called are held until the registration is done.
 */
export async function keepOfflineBytes(url, bytes) {
  if (!offlineSupported()) return;
  handedOver.add(url);
  if (!registering) {
    waiting.set(url, bytes);
    return;
  }
  if (!(await registering)) {
    handedOver.delete(url);
    return;
  }
  const reg = await navigator.serviceWorker.ready;
  if (reg.active) reg.active.postMessage({ type: 'cache-bytes', url, bytes }, [bytes.buffer]);
}

/** Whether `registerOffline` was called (the page calls it after its first result). */
export function registrationStarted() {
  return registering !== null;
}

/**
 * The saved copy of a content-hashed file (`url`, absolute) as a Response, or null: read from the
 * Cache API by the page itself once a service worker controls it (a returning visit), not asked
 * of the worker, which answers from the same cache several times slower (session 39, a saved
 * chemistry collection: 24 postings parts answered in 6 ms instead of 37, and 0.4 ms of the main
 * thread to ask instead of 7 to 11).
 */
export function savedResponse(url) {
  if (!offlineSupported() || !navigator.serviceWorker.controller) return Promise.resolve(null);
  return caches.match(url).then((res) => res || null, () => null);
}

const savedLists = new Map(); // URL → parsed copy (content-hashed files never change)

/**
 * The saved copy of a content-hashed JSON file (a shard's part list), parsed; null when none is
 * saved. Read from the cache once: the offline list asks at every refresh.
 */
export async function savedJson(url) {
  if (!offlineSupported()) return null;
  if (savedLists.has(url)) return savedLists.get(url);
  try {
    const res = await caches.match(url);
    const json = res ? await res.json() : null;
    if (json) savedLists.set(url, json);
    return json;
  } catch {
    return null; // Storage unavailable (private mode), or not JSON: not saved.
  }
}

/** For each URL, whether a saved copy exists: Map(url → boolean). */
export async function savedCopies(urls) {
  const out = new Map();
  for (const u of urls) out.set(u, false);
  if (!offlineSupported() || !((registration && registration.active) || navigator.serviceWorker.controller)) return out;
  // A collection is a shard and hundreds of text parts: files the active worker said it saved
  // are not looked up again. (No `caches.open` here: it would create a cache that a failed
  // install has just deleted.)
  const worker = (registration && registration.active) || navigator.serviceWorker.controller;
  const build = worker ? new URL(worker.scriptURL).searchParams.get('build') || 'dev' : null;
  for (const u of urls) {
    if (build && confirmed.has(`${build} ${u}`)) {
      out.set(u, true);
      continue;
    }
    try {
      out.set(u, Boolean(await caches.match(u)));
    } catch {
      // Storage unavailable (private mode): not saved.
    }
  }
  return out;
}
