// The study page: scope pickers with facet counts, the scope and query kept in the URL, search as
// you type, result cards with "why" panels, section expansion, context copying, EN/FR, offline.
// Corpus text is only ever inserted as text (see view.js), never as HTML.
// The search itself (shards, facets, scope checks, sections, context) is controller.js's, shared
// with the embed; this file is the page's view of it: DOM, events, URL, language, offline list.
import { ChsrClient } from './chsr-client.js';
import { Controller, linkState, setLinkState } from './controller.js';
import { firstFailure, hasLang, loadLang, pickLang, translator, unloadedText } from './i18n.js';
import {
  el, boundInput, copyText, entryLabel, errorText, pickerOffered, pickerOptions, placeLabel, scopeErrorText, scopeLabel,
  renderCards, statusText, weakEvidence, whyQuery, widenedText,
} from './view.js';
import { applyUpdate, keepOffline, offlineSupported, onOfflineEvent, registerOffline, registrationStarted, savedCopies, savedJson } from './offline.js';

const $ = (id) => document.getElementById(id);
const FACETS = ['doc_type', 'chapter', 'year', 'paper', 'exam', 'lang'];
const FIELDS = ['subject', 'level', ...FACETS];
// Cards show snippets; a result's full text comes with "Show the whole section". `?dense=1` adds
// the meaning search (the engine's default is keywords only: the model and the vectors add no
// measured ranking gain for their megabytes; docs/study-page.md).
const DENSE = new URLSearchParams(window.location.search).get('dense') === '1';
const OPTIONS = { k: 10, text: false, ...(DENSE ? { dense: true } : {}) };
// Search-as-you-type's pause while the scope's shards are not loaded yet.
const DEBOUNCE_MS = 300;

// Reads empty until init's language has its strings (loadLang; start waits for them).
let t = translator('en');
let ctl = null;
let manifest = null;
let statusThunk = () => t('status.loading');
let errorThunk = null;
let noticeThunk = null;
let cutThunk = null;
let keptQuery = null; // the text kept when a question too long was cut
let retryAction = null;
let registration = null;

// ---------------------------------------------------------------- language

function uiLangFromUrl() {
  return new URLSearchParams(window.location.search).get('ui');
}

function storedLang() {
  try { return window.localStorage.getItem('chsr.ui'); } catch { return null; }
}

function applyStaticStrings() {
  // The page's HTML is written in English; another language replaces it once its strings are in.
  if (!hasLang(t.lang)) return;
  document.documentElement.lang = t.lang;
  document.title = t('app.title');
  for (const e of document.querySelectorAll('[data-i18n]')) e.textContent = t(e.dataset.i18n);
  for (const e of document.querySelectorAll('[data-i18n-placeholder]')) e.placeholder = t(e.dataset.i18nPlaceholder);
  for (const e of document.querySelectorAll('[data-i18n-aria-label]')) e.setAttribute('aria-label', t(e.dataset.i18nAriaLabel));
  for (const b of document.querySelectorAll('[data-ui-lang]')) b.setAttribute('aria-pressed', String(b.dataset.uiLang === t.lang));
}

// Loads the strings of `lang` and shows the page in it.
async function showLang(lang) {
  await loadLang(lang);
  if (t.lang === lang) setLang(lang);
}

function setLang(lang, { remember = false } = {}) {
  t = translator(lang);
  if (remember) {
    try { window.localStorage.setItem('chsr.ui', lang); } catch { /* private mode */ }
  }
  applyStaticStrings();
  if (manifest) refreshPickers();
  setStatus(statusThunk);
  if (errorThunk) showError(errorThunk, retryAction);
  if (manifest) showModelState();
  if (noticeThunk) setNotice(noticeThunk);
  if (cutThunk) setCutNotice(cutThunk);
  if (ctl && ctl.last) render(ctl.last.resp, { keep: true });
  refreshOffline();
}

// ---------------------------------------------------------------- status and errors

function setStatus(thunk) {
  statusThunk = thunk;
  $('status').classList.remove('weak');
  setText($('status'), thunk());
}

// Writes a text only when it changed (an unchanged one is neither laid out nor painted again).
function setText(e, text) {
  if (e.textContent !== text) e.textContent = text;
}

function showError(thunk, retry) {
  errorThunk = thunk;
  retryAction = retry;
  $('error-text').textContent = thunk();
  $('error-retry').hidden = !retry;
  $('error').hidden = false;
}

// A notice about the scope (a link's unknown value); it stays until the scope is changed.
function setNotice(thunk) {
  noticeThunk = thunk;
  $('scope-notice').textContent = thunk ? thunk() : '';
  $('scope-notice').hidden = !thunk;
}

// A question longer than the engine reads is cut in the box, where the student sees it, and said
// so; the notice stays while the box holds (a part of) the text kept.
function setCutNotice(thunk) {
  cutThunk = thunk;
  $('q-cut').textContent = thunk ? thunk() : '';
  $('q-cut').hidden = !thunk;
}

function checkQueryLength() {
  const cut = boundInput($('q'));
  if (cut) {
    keptQuery = cut.text;
    setCutNotice(() => t('search.cut', { total: t.num(cut.total), kept: t.num(cut.kept) }));
  } else if (keptQuery !== null && !($('q').value && keptQuery.startsWith($('q').value))) {
    keptQuery = null;
    setCutNotice(null);
  }
}

function clearError() {
  errorThunk = null;
  retryAction = null;
  $('error').hidden = true;
}

// ---------------------------------------------------------------- scope pickers

// What the pickers were last built from: the language, the selection and the shards loaded (the
// engine's facets are exact once a scope's shards are loaded, estimates from the manifest before).
let pickersBuiltFor = null;
function pickersInput(scope) {
  const loaded = manifest ? manifest.shards.map((s) => (ctl.client.index.isLoaded(s.file) ? 1 : 0)).join('') : '';
  return JSON.stringify([t.lang, scope, loaded]);
}

/** Rebuilds every picker from the engine's facets for the selection (keeping what it can). */
function refreshPickers(selection = currentScope()) {
  // A value the rest of the selection rules out (a level the new subject lacks) is dropped.
  const { scope } = ctl.checkScope(selection);
  const facets = ctl.facets(scope);
  for (const f of FIELDS) {
    const facet = facets.get(f);
    $(f).replaceChildren(...(facet ? pickerOptions(t, facet) : []));
    $(f).value = scope[f] || '';
    if (FACETS.includes(f)) $(f).closest('label').hidden = !pickerOffered(facet);
  }
  $('scope-summary').textContent = t('scope.summary', { scope: scopeLabel(t, currentScope()) });
  pickersBuiltFor = pickersInput(currentScope());
}

// The scope panel: open on wide screens; on a phone a one-line summary, closed when the page opens
// and after a search is submitted, so that the first result shows on the first screen.
const NARROW = window.matchMedia('(max-width: 36rem)');
function fitScopePanel() {
  $('scope-panel').open = !NARROW.matches;
}

function currentScope() {
  const scope = {};
  for (const f of FIELDS) if ($(f).value) scope[f] = $(f).value;
  return scope;
}

// ---------------------------------------------------------------- URL state

function urlFor(query, scope) {
  const p = setLinkState(new URLSearchParams(), query, scope, FIELDS);
  const ui = new URLSearchParams(window.location.search).get('ui');
  if (ui) p.set('ui', ui);
  if (DENSE) p.set('dense', '1');
  const s = p.toString();
  return `${window.location.pathname}${s ? `?${s}` : ''}`;
}

function syncUrl(push, scope = currentScope()) {
  const url = urlFor($('q').value.trim(), scope);
  const here = `${window.location.pathname}${window.location.search}`;
  if (url === here) return;
  if (push) window.history.pushState(null, '', url);
  else window.history.replaceState(null, '', url);
}

/**
 * Applies the URL's query and scope to the form; unknown scope values are explained. Returns the
 * query and the scope the engine accepted; `pickers: false` leaves the pickers to the caller.
 */
function applyUrl({ pickers = true } = {}) {
  const { query, scope } = linkState(new URLSearchParams(window.location.search), FIELDS);
  const { scope: ok, unknown } = ctl.checkScope(scope);
  $('q').value = query;
  checkQueryLength();
  if (pickers) refreshPickers(ok);
  if (unknown.length) {
    const u = unknown[0];
    setNotice(() => scopeErrorText(t, u));
  } else {
    setNotice(null);
  }
  return { query: $('q').value, scope: ok, unknown };
}

// ---------------------------------------------------------------- search

function progress(entry, info) {
  const what = entryLabel(t, entry);
  document.body.classList.add('loading');
  if (info && info.retry) setStatus(() => t('status.retrying', { what }));
  else if (info && info.expected) setStatus(() => t('status.downloadingPart', { what, done: t.size(info.received), size: t.size(info.expected) }));
  else setStatus(() => t('status.downloading', { what, size: t.size(entry.bytes) }));
}

function clearResults() {
  delete document.body.dataset.pending;
  $('results').replaceChildren();
  $('widened').hidden = true;
  $('query-tools').hidden = true;
  $('copy-fallback').hidden = true;
  $('copy-status').textContent = '';
}

// The controller's reports (see controller.js).
const hooks = {
  // Benchmark hook (tests/bench/run.mjs): the background text of the collection has arrived.
  textReady: () => { window.__chsrTextReadyAt = Date.now(); },
  started: (my, query) => { window.__chsrSeq = my; window.__chsrQuery = query; },
  progress,
  cleared: () => { clearResults(); setStatus(() => t('status.cleared')); },
  results: (resp, { upgrade }) => {
    clearError();
    render(resp, { keep: upgrade });
    // The counts are exact once the scope's shards are loaded: the pickers are rebuilt when a
    // search loaded shards (while typing, nothing changes for them).
    if (pickersInput(currentScope()) !== pickersBuiltFor) refreshPickers();
    showModelState();
    if (resp.upgraded && !window.__chsrUpgradedAt) window.__chsrUpgradedAt = Date.now();
  },
  error: (e, retry) => {
    clearResults();
    setStatus(() => '');
    showError(() => errorText(t, e), retry);
  },
  settled: (current) => { if (current) searchDone(); },
};

// While the student types, the address bar follows once typing pauses (a history entry update
// per keystroke costs about a millisecond).
let urlTimer = 0;
// `scope`: the scope to search when the pickers do not show it yet (the link's, at start-up).
async function runSearch({ push = false, browse = false, typing = false, scope = currentScope() } = {}) {
  if (!ctl || !ctl.client) return;
  clearTimeout(urlTimer);
  if (typing) urlTimer = setTimeout(() => syncUrl(false), 400);
  else syncUrl(push, scope);
  await ctl.search($('q').value, scope, { browse });
}

// What waits for the first search to be over (the service worker's registration, whose install
// downloads files): run once, after the first search finished, or when the browser is first idle
// if the page opened without a query and no search has started by then.
let firstResultShown = false;
const afterFirst = [];
function whenFirstResult(fn) {
  if (firstResultShown) fn();
  else afterFirst.push(fn);
}
function afterFirstResult() {
  if (firstResultShown) return;
  firstResultShown = true;
  for (const fn of afterFirst.splice(0)) fn();
}
function whenIdle(fn) {
  if (window.requestIdleCallback) window.requestIdleCallback(fn, { timeout: 3000 });
  else setTimeout(fn, 1000);
}

// Test and automation hooks: `__chsrSeq` is the latest search started (`__chsrQuery` its query),
// `__chsrDone` the latest finished while still current; `__chsrSearches` counts finished searches.
function searchDone() {
  afterFirstResult();
  document.body.classList.remove('loading');
  window.__chsrDone = ctl.seq;
  window.__chsrSearches = (window.__chsrSearches || 0) + 1;
}

// A model that could not be loaded does not stop the search (keywords only): say so, offer a retry.
function showModelState() {
  const err = ctl.modelError;
  $('model-notice-text').textContent = err ? t('model.failed', { reason: errorText(t, err) }) : '';
  $('model-notice').hidden = !err;
}

// `keep`: the same search re-rendered (upgraded): open "why" panels, shown sections and the focus
// stay where they were, so that the cards do not jump or close under the reader.
function render(resp, { keep = false } = {}) {
  const { results: hits, trace } = resp;
  // Benchmark hooks (tests/bench/run.mjs): when the first result was rendered, and the last response.
  if (!window.__chsrFirstResultAt) { window.__chsrFirstResultAt = Date.now(); window.__chsrFirstTrace = trace; }
  window.__chsrLast = resp;
  const state = keep ? cardState($('results')) : null;
  const shown = ctl.last;
  const loadSection = (hit) => ctl.section(hit, shown);
  // Card titles link to their course page in this tab (the study page is the reader's own tab).
  // The cards of results already shown are kept (only their snippet, rank and "why" follow).
  renderCards($('results'), t, hits, { trace, loadSection, idPrefix: 'r' }, { open: state && state.open });
  if (state) restoreCardState($('results'), state);
  setStatus(() => statusText(t, trace, hits.length, hits));
  $('status').classList.toggle('weak', weakEvidence(trace));
  const banner = widenedText(t, trace);
  setText($('widened'), banner || '');
  $('widened').hidden = !banner;
  // "How this search worked" is made when its panel is open, or when it is opened.
  whyQueryBody = () => whyQuery(t, trace, whyExtra(resp));
  if ($('why-query').open) fillWhyQuery();
  else if ($('why-query-body').firstChild) $('why-query-body').replaceChildren();
  $('query-tools').hidden = false;
  $('copy-context').hidden = hits.length === 0;
  if (resp.pending.length > 0) document.body.dataset.pending = resp.pending.map((p) => p.kind).join(' ');
  else delete document.body.dataset.pending;
  // The offline list changes with the shards loaded and the scope (and with the service worker's
  // reports, which refresh it themselves): not at every keystroke.
  if (offlineInput() !== offlineBuiltFor) refreshOffline();
}

let whyQueryBody = null;
function fillWhyQuery() {
  if (!whyQueryBody) return;
  $('why-query-body').replaceChildren(whyQueryBody());
  whyQueryBody = null;
}

// The entries the vector path is waiting for, or was waiting for when the results were first shown.
function whyExtra(resp) {
  return { pending: resp.pending.map((p) => p.entry), upgraded: (resp.upgraded || []).map((p) => p.entry) };
}

function cardState(list) {
  const byId = (el) => el && el.closest('li.card') && el.closest('li.card').dataset.id;
  const active = document.activeElement && list.contains(document.activeElement) ? document.activeElement : null;
  return {
    open: new Set([...list.querySelectorAll('li.card > details.why[open]')].map(byId)),
    sections: new Set([...list.querySelectorAll('li.card .show-section[aria-expanded="true"]')].map(byId)),
    focus: active && { id: byId(active), cls: active.classList.contains('show-section') ? '.show-section' : active.tagName === 'SUMMARY' ? 'details.why > summary' : null },
  };
}

// (Open "why" panels are kept by renderCards.)
function restoreCardState(list, state) {
  for (const c of list.querySelectorAll('li.card')) {
    if (state.sections.has(c.dataset.id)) c.querySelector('.show-section').click();
  }
  if (state.focus && state.focus.cls) {
    const c = [...list.querySelectorAll('li.card')].find((x) => x.dataset.id === state.focus.id);
    const target = c && c.querySelector(state.focus.cls);
    if (target) target.focus({ preventScroll: true });
  }
}

async function copyContext() {
  const packed = ctl && ctl.context();
  if (!packed) return;
  const { text, n } = packed;
  if (await copyText(text)) {
    $('copy-fallback').hidden = true;
    $('copy-status').textContent = t('copy.done', { n });
  } else {
    $('copy-text').value = text;
    $('copy-fallback').hidden = false;
    $('copy-status').textContent = t('copy.manual');
    $('copy-text').focus();
    $('copy-text').select();
  }
}

// ---------------------------------------------------------------- offline

let offlineSeq = 0;
let offlineBuiltFor = null;
function offlineInput() {
  return `${pickersInput(currentScope())} ${Boolean(registration)}`;
}
// The worker reports each file it saves (hundreds for a collection's text parts): the list is
// checked again at most every 250 ms, not once per file.
let offlineTimer = null;
function refreshOfflineSoon() {
  if (offlineTimer) return;
  offlineTimer = setTimeout(() => { offlineTimer = null; refreshOffline(); }, 250);
}
async function refreshOffline() {
  if (!manifest) return;
  offlineBuiltFor = offlineInput();
  const my = ++offlineSeq;
  const list = $('offline-list');
  // Before the registration (it waits for the first result) the list shows what is saved already.
  if (!offlineSupported() || (!registration && registrationStarted())) {
    $('offline-summary').textContent = t('offline.title');
    list.replaceChildren(el('li', {}, t('offline.unsupported')));
    $('offline-current').hidden = true;
    return;
  }
  // A collection is available offline once its shard, its part list and every postings and
  // text part the list names are saved (its vectors only make results better: without them it
  // searches by keywords). A list not read from the saved copies (none yet) names nothing: the collection
  // is not saved, even if the list is saved by the time its copy is looked up below.
  const lists = await Promise.all(manifest.shards.map((s) => (s.part_list ? savedJson(ctl.client.fileUrl(s.part_list.file)) : null)));
  const needed = manifest.shards.map((s, i) => [s.file, ...(s.part_list ? [s.part_list.file] : []),
    ...(lists[i] ? ChsrClient.partListFiles(lists[i]) : [])].map((f) => ctl.client.fileUrl(f)));
  const copies = await savedCopies(needed.flat());
  if (my !== offlineSeq) return;
  const saved = new Map(needed.map((urls, i) => [i, (!manifest.shards[i].part_list || lists[i] !== null) && urls.every((u) => copies.get(u))]));
  const n = [...saved.values()].filter(Boolean).length;
  $('offline-summary').textContent = `${t('offline.title')} · ${t('offline.summary', { n, total: manifest.shards.length })}`;
  list.replaceChildren(...manifest.shards.map((s, i) => {
    const ok = saved.get(i);
    const item = el('li', { class: ok ? 'saved' : 'not-saved', 'data-file': s.file },
      el('span', { class: 'offline-name' }, placeLabel(t, s.subject, s.level)),
      el('span', { class: 'offline-size' }, t.size(s.bytes + (s.part_list ? s.part_list.bytes + s.part_list.postings_bytes + s.part_list.text_bytes : 0))),
      el('span', { class: 'offline-state' }, el('span', { 'aria-hidden': 'true' }, ok ? '✓ ' : '○ '), ok ? t('offline.available') : t('offline.notYet')));
    if (!ok && registration) {
      const b = el('button', { type: 'button', class: 'secondary small' }, t('offline.save'));
      b.setAttribute('aria-label', `${t('offline.save')}: ${placeLabel(t, s.subject, s.level)}`);
      b.addEventListener('click', async () => {
        b.disabled = true;
        b.textContent = t('offline.saving');
        try {
          const parts = await ctl.client.partFiles(s, lists[i]);
          keepOffline([...ChsrClient.shardFiles(s, { dense: ctl.dense }), ...parts].map((f) => ctl.client.fileUrl(f)));
        } catch {
          b.disabled = false; // The part list could not be fetched (offline): try again later.
          b.textContent = t('offline.save');
        }
      });
      item.append(b);
    }
    return item;
  }));
  // The state of the collection(s) the current scope uses, next to the pickers.
  const scope = currentScope();
  const files = new Set(ctl.client.shardsFor(scope).map((s) => s.file));
  const inScope = manifest.shards.map((s, i) => [s, i]).filter(([s]) => files.has(s.file));
  const cur = $('offline-current');
  if (scope.subject && inScope.length > 0) {
    const all = inScope.every(([, i]) => saved.get(i));
    const what = placeLabel(t, scope.subject, scope.level);
    cur.textContent = all ? `✓ ${t('offline.current', { what })}` : t('offline.currentNot', { what });
    cur.classList.toggle('saved', all);
    cur.hidden = false;
  } else {
    cur.hidden = true;
  }
}

// ---------------------------------------------------------------- start

async function start() {
  clearError();
  setStatus(() => t('status.loading'));
  // The language's strings (a small module) come while the manifest and the Wasm module do. A
  // failure is shown once both have settled: in the student's language whenever its strings
  // could come, however fast the other failed.
  const failed = await firstFailure([ctl.open('shards/manifest.json'), showLang(t.lang)]);
  if (failed) {
    setStatus(() => '');
    showError(() => (hasLang(t.lang) ? errorText(t, failed.reason) : unloadedText(t.lang)), start);
    return;
  }
  manifest = ctl.manifest();
  setStatus(() => t('status.ready', { docs: t.num(manifest.chunks), shards: manifest.shards.length }));
  const { query, scope } = applyUrl({ pickers: false });
  wire();
  document.body.dataset.ready = 'true';
  // A link's search asks for its files first; the pickers are built while they download. The
  // offline list is built once that search's results are shown (`render`; on an error, once
  // the worker's registration is over): on a returning visit it looks up every saved file of
  // every collection (about 1,800 for the demo) in the storage the result's own files are read
  // from, and built beside it, it made a returning chemistry visit's first result about 10 ms
  // later (docs/performance.md, session 41).
  const first = query.trim() ? runSearch({ scope }) : null;
  refreshPickers(scope);
  if (!first) refreshOffline();
  if (first) await first;
  else whenIdle(() => { if (ctl.seq === 0) afterFirstResult(); });
}

let wired = false;
function wire() {
  if (wired) return;
  wired = true;
  // Search as you type. When the scope's shards are loaded, at every input event: a search takes
  // a few milliseconds, so the results are painted in the frame after the keystroke
  // (tests/bench/run.mjs --only typing). Otherwise once typing pauses, so that a download starts
  // (or is retried) once per pause, not per keystroke.
  let timer = 0;
  let quiet = 0;
  $('search-form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    clearTimeout(timer);
    fitScopePanel();
    runSearch({ push: true, browse: true });
  });
  $('q').addEventListener('input', () => {
    checkQueryLength();
    // Screen readers: the status region announces once typing pauses, not at every keystroke.
    $('status').setAttribute('aria-busy', 'true');
    clearTimeout(quiet);
    quiet = setTimeout(() => $('status').removeAttribute('aria-busy'), 600);
    clearTimeout(timer);
    if (ctl && ctl.warm(currentScope())) runSearch({ push: false, typing: true });
    else timer = setTimeout(() => runSearch({ push: false }), DEBOUNCE_MS);
  });
  for (const id of FIELDS) {
    $(id).addEventListener('change', () => {
      setNotice(null);
      refreshPickers();
      refreshOffline();
      if ($('q').value.trim()) runSearch({ push: true });
      else syncUrl(true);
    });
  }
  $('clear-scope').addEventListener('click', () => {
    setNotice(null);
    refreshPickers({});
    refreshOffline();
    if ($('q').value.trim()) runSearch({ push: true });
    else syncUrl(true);
  });
  window.addEventListener('popstate', () => {
    const { query } = applyUrl();
    refreshOffline();
    if (query.trim()) runSearch();
    else ctl.search('', currentScope());
  });
  $('copy-context').addEventListener('click', copyContext);
  $('copy-close').addEventListener('click', () => { $('copy-fallback').hidden = true; $('copy-context').focus(); });
  document.addEventListener('keydown', (ev) => {
    if (ev.key !== '/' || ev.ctrlKey || ev.metaKey || ev.altKey) return;
    const tag = (ev.target && ev.target.tagName) || '';
    if (/^(INPUT|TEXTAREA|SELECT)$/.test(tag) || (ev.target && ev.target.isContentEditable)) return;
    ev.preventDefault();
    $('q').focus();
    $('q').select();
  });
}

function init() {
  ctl = new Controller(hooks, { options: OPTIONS, offline: true });
  t = translator(pickLang(uiLangFromUrl() || storedLang()));
  applyStaticStrings();
  fitScopePanel();
  NARROW.addEventListener('change', fitScopePanel);
  for (const b of document.querySelectorAll('[data-ui-lang]')) {
    b.addEventListener('click', () => {
      const lang = b.dataset.uiLang;
      const p = new URLSearchParams(window.location.search);
      p.set('ui', lang);
      window.history.replaceState(null, '', `${window.location.pathname}?${p}`);
      loadLang(lang).then(() => setLang(lang, { remember: true }), () => showError(() => unloadedText(lang), () => window.location.reload()));
    });
  }
  $('why-query').querySelector('summary').addEventListener('click', () => { if (!$('why-query').open) fillWhyQuery(); });
  $('why-query').addEventListener('toggle', () => { if ($('why-query').open) fillWhyQuery(); });
  $('error-retry').addEventListener('click', () => { if (retryAction) retryAction(); });
  $('model-retry').addEventListener('click', () => ctl.retryEnhancements());
  $('update-reload').addEventListener('click', applyUpdate);
  onOfflineEvent((ev) => {
    if (ev.type === 'update') $('update').hidden = false;
    if (ev.type === 'cached') refreshOfflineSoon();
  });
  whenFirstResult(() => registerOffline().then((reg) => {
    registration = reg;
    window.__chsrRegistered = true; // test hook: the registration attempt is over (install may go on)
    refreshOffline();
    if (reg) ctl.rememberLoaded();
    if (reg) navigator.serviceWorker.ready.then(() => { ctl.rememberLoaded(); refreshOffline(); });
  }));
  start();
}

init();
