// <chsr-search>: the drop-in search box for an LMS page (Moodle/Canvas HTML block, an iframe, any
// page), from a plain module script:
//
//   <script type="module" src="https://example.org/chsr/chsr-search.js"></script>
//   <chsr-search manifest="https://example.org/chsr/shards/manifest.json"
//                subject="physics" level="college" lang="fr"></chsr-search>
//
// Attributes: `manifest` (required); scope attributes `subject`, `level`, `doc-type`, `chapter`,
// `year`, `paper`, `exam`, `content-lang` — each one given is LOCKED: the student cannot change it,
// and the engine never returns anything outside it (the lock goes into every search, facet,
// section and context: relaxation never drops a locked field, so shards outside a locked level
// are never downloaded); `lang` (`en`/`fr`, the interface
// language; default: the browser's); `k` (results, default 8); `link-target="_self"` (results
// open in the same tab; default: a new tab, as an LMS page needs); `sync-url` (the page's URL
// carries the search: the box starts from a link's `?q=…&level=…` — the query and the picks
// `subject`, `level`, `doc_type`, `chapter`, `year`, `paper`, checked by the engine within the
// lock — and the URL follows what the box shows, so that a search can be linked, bookmarked, or
// found again with the browser's Back; the page's other parameters are left as they are).
// Styles live in the shadow root (chsr-search.css next to this file); corpus text is only ever
// inserted as text. Fires `chsr-results` ({query, scope, shown, results, trace}) after each
// search. The search itself is controller.js's, shared with the study page; this is its view.
import { Controller, linkState, setLinkState, withLock } from './controller.js';
import { firstFailure, hasLang, loadLang, pickLang, translator, unloadedText } from './i18n.js';
import {
  el, boundInput, copyText, entryLabel, errorText, lazy, pickerOffered, pickerOptions, renderCards, scopeErrorText, scopeLabel, statusText,
  whyQuery,
} from './view.js';
import { registerOffline } from './offline.js';

const SCOPE_ATTRS = {
  subject: 'subject', level: 'level', 'doc-type': 'doc_type', chapter: 'chapter',
  year: 'year', paper: 'paper', exam: 'exam', 'content-lang': 'lang',
};
const PICKABLE = ['subject', 'level', 'doc_type', 'chapter', 'year', 'paper'];
const BASE = new URL('./', import.meta.url);
let instances = 0;

export class ChsrSearchElement extends HTMLElement {
  static get observedAttributes() {
    return ['manifest', 'lang', 'k', 'dense', ...Object.keys(SCOPE_ATTRS)];
  }

  constructor() {
    super();
    this.uid = `chsr${++instances}`;
    this.starts = 0;
    this.attachShadow({ mode: 'open' });
    const offline = BASE.origin === window.location.origin; // the service worker is same-origin only
    this.ctl = new Controller({
      started: () => { this.dataset.state = 'searching'; },
      progress: (entry, info) => {
        const what = entryLabel(this.t, entry);
        if (info && info.retry) this.setStatus(() => this.t('status.retrying', { what }));
        else if (!info) this.setStatus(() => this.t('status.downloading', { what, size: this.t.size(entry.bytes) }));
      },
      cleared: () => {
        this.clearResults();
        this.setStatus(() => this.t('status.cleared'));
        this.dataset.state = 'ready';
        this.linkLater();
      },
      results: (resp) => {
        this.setError(null);
        this.render(resp);
        // The counts are exact once the scope's shards are loaded: rebuilt when a search loaded shards.
        if (this.pickersInput() !== this.pickersBuiltFor) this.renderPickers();
        this.dataset.state = 'done';
        const { query, scope } = this.ctl.last;
        const detail = { query, scope, shown: resp.results.length, results: resp.results, trace: resp.trace };
        this.dispatchEvent(new CustomEvent('chsr-results', { detail, bubbles: true, composed: true }));
        this.linkLater();
      },
      error: (e) => {
        this.clearResults();
        this.setStatus(() => '');
        this.setError(() => errorText(this.t, e, { locked: Object.keys(this.lock).length > 0 }));
      },
      settled: () => {
        this.dataset.searches = String(Number(this.dataset.searches || 0) + 1);
        if (this.afterFirstSearch) this.afterFirstSearch();
      },
    }, { offline });
  }

  connectedCallback() {
    if (!this.built) this.build();
    this.start();
  }

  attributeChangedCallback(name, oldValue, newValue) {
    if (!this.built || oldValue === newValue) return;
    if (name === 'lang') this.retranslate();
    else this.start();
  }

  /** The scope fixed by attributes (every field given is locked). */
  get lock() {
    const lock = {};
    for (const [attr, field] of Object.entries(SCOPE_ATTRS)) {
      const v = this.getAttribute(attr);
      if (v !== null && v.trim() !== '') lock[field] = v.trim();
    }
    return lock;
  }

  /** The scope searched: the student's picks, the locked values and the `lock` naming them. */
  get scope() {
    return withLock(this.currentChoice(), this.lock);
  }

  get k() {
    const k = Number(this.getAttribute('k'));
    return Number.isInteger(k) && k >= 1 && k <= 50 ? k : 8;
  }

  build() {
    this.built = true;
    this.t = translator(pickLang(this.getAttribute('lang')));
    const root = this.shadowRoot;
    const $ = (cls, tag = 'div', attrs = {}) => el(tag, { class: cls, ...attrs });
    this.ui = {
      input: el('input', { id: `${this.uid}-q`, type: 'search', autocomplete: 'off', enterkeyhint: 'search', 'aria-describedby': `${this.uid}-cut` }),
      cutNotice: $('notice', 'p', { id: `${this.uid}-cut`, role: 'status', hidden: true }),
      linkNotice: $('notice link-notice', 'p', { role: 'status', hidden: true }),
      label: el('label', { for: `${this.uid}-q`, class: 'visually-hidden' }),
      go: el('button', { type: 'submit' }),
      lockLine: $('locked', 'p'),
      pickers: $('pickers'),
      error: $('error', 'div', { role: 'alert', hidden: true }),
      status: $('status', 'p', { role: 'status', 'aria-live': 'polite' }),
      modelNotice: $('notice', 'p', { hidden: true }),
      tools: $('tools', 'div', { hidden: true }),
      copy: el('button', { type: 'button', class: 'secondary' }),
      copyStatus: $('copy-status', 'p', { role: 'status', 'aria-live': 'polite' }),
      copyBox: el('textarea', { readonly: true, rows: '8', class: 'copy-box', hidden: true }),
      whySummary: el('summary'),
      results: el('ol', { class: 'results' }),
      section: el('section', { class: 'chsr' }),
    };
    const u = this.ui;
    // "How this search worked" is made when it is opened (or at once while it is open).
    u.why = lazy.details({ class: 'why why-query' }, u.whySummary, () => null);
    u.tools.append(u.copy, u.why);
    const form = el('form', { role: 'search', class: 'query-row' }, u.label, u.input, u.go);
    u.section.append(form, u.cutNotice, u.linkNotice, u.lockLine, u.pickers, u.error, u.modelNotice, u.status, u.tools, u.copyStatus, u.copyBox, u.results);
    root.append(el('link', { rel: 'stylesheet', href: new URL('chsr-search.css', BASE).href }), u.section);
    // Search as you type as the study page does: at every keystroke once the shards are loaded,
    // else once typing pauses; the status region announces once typing pauses.
    let timer = 0;
    let quiet = 0;
    form.addEventListener('submit', (ev) => { ev.preventDefault(); clearTimeout(timer); this.search(true); });
    u.input.addEventListener('input', () => {
      this.checkQueryLength();
      u.status.setAttribute('aria-busy', 'true');
      clearTimeout(quiet);
      quiet = setTimeout(() => u.status.removeAttribute('aria-busy'), 600);
      clearTimeout(timer);
      if (this.ctl.warm(this.scope)) this.search(false);
      else timer = setTimeout(() => this.search(false), 300);
    });
    u.copy.addEventListener('click', () => this.copyContext());
    this.retranslate();
  }

  retranslate() {
    const lang = pickLang(this.getAttribute('lang'));
    // A language whose strings are not loaded yet: fetched first (start waits for the first).
    if (!hasLang(lang)) {
      loadLang(lang).then(() => this.retranslate(), () => {});
      if (this.t && hasLang(this.t.lang)) return;
    }
    this.t = translator(lang);
    const { t, ui } = this;
    ui.section.setAttribute('aria-label', t('embed.label'));
    ui.label.textContent = t('search.label');
    ui.input.placeholder = t('search.placeholder');
    ui.go.textContent = t('search.button');
    ui.copy.textContent = t('copy.button');
    ui.whySummary.textContent = t('query.why');
    ui.results.setAttribute('aria-label', t('results.label'));
    if (this.statusThunk) ui.status.textContent = this.statusThunk();
    if (this.cutThunk) ui.cutNotice.textContent = this.cutThunk();
    if (this.linkThunk) ui.linkNotice.textContent = this.linkThunk();
    if (this.errorThunk) ui.error.textContent = this.errorThunk();
    // Not while starting: start shows the pickers once the scope is checked.
    if (this.ctl.client && !this.ui.input.disabled && this.dataset.state !== 'loading') this.renderPickers();
    if (this.ctl.last) this.render(this.ctl.last.resp);
  }

  // A question longer than the engine reads is cut in the box and said so; the notice stays while
  // the box holds (a part of) the text kept.
  checkQueryLength() {
    const { input, cutNotice } = this.ui;
    const cut = boundInput(input);
    if (cut) {
      this.keptQuery = cut.text;
      this.cutThunk = () => this.t('search.cut', { total: this.t.num(cut.total), kept: this.t.num(cut.kept) });
    } else if (this.keptQuery && !(input.value && this.keptQuery.startsWith(input.value))) {
      this.keptQuery = null;
      this.cutThunk = null;
    }
    cutNotice.textContent = this.cutThunk ? this.cutThunk() : '';
    cutNotice.hidden = !this.cutThunk;
  }

  setStatus(thunk) {
    this.statusThunk = thunk;
    const text = thunk();
    if (this.ui.status.textContent !== text) this.ui.status.textContent = text;
  }

  setError(thunk) {
    this.errorThunk = thunk;
    this.ui.error.textContent = thunk ? thunk() : '';
    this.ui.error.hidden = !thunk;
    this.dataset.state = thunk ? 'error' : this.dataset.state;
  }

  async start() {
    const my = ++this.starts;
    this.ctl.cancel();
    this.setError(null);
    this.dataset.state = 'loading';
    const manifest = this.getAttribute('manifest');
    if (!manifest) {
      this.setStatus(() => '');
      this.setError(() => this.t('embed.missingManifest'));
      return;
    }
    this.setStatus(() => this.t('status.loading'));
    // Offline support (same origin only) is set up after the first search, or when the browser is idle.
    if (this.ctl.offline) {
      const register = () => { if (!this.registered) { this.registered = true; registerOffline(BASE.href); } };
      this.afterFirstSearch = register;
      if (window.requestIdleCallback) window.requestIdleCallback(() => { if (!this.dataset.searches) register(); }, { timeout: 3000 });
      else setTimeout(() => { if (!this.dataset.searches) register(); }, 1000);
    }
    // `dense`: the meaning search too (the model and the vectors download after the first result).
    this.ctl.options = { k: this.k, text: false, ...(this.hasAttribute('dense') ? { dense: true } : {}) };
    // A page runs one Wasm module, chosen when its first element starts: the one with the dense
    // path if any element of the page asks for it, else the smaller lexical one.
    const dense = this.ctl.dense || document.querySelector('chsr-search[dense]') !== null;
    // The language's strings (a small module) come while the manifest and the Wasm module do; a
    // failure is shown once both have settled, in the reader's language if its strings came.
    const failed = await firstFailure([this.ctl.open(manifest, { dense }), loadLang(this.t.lang)]);
    if (failed) {
      if (my !== this.starts) return;
      this.setStatus(() => '');
      this.setError(() => (hasLang(this.t.lang) ? errorText(this.t, failed.reason) : unloadedText(this.t.lang)));
      return;
    }
    if (my !== this.starts) return;
    this.retranslate();
    // A locked value the library does not know is the author's mistake: say so, search nothing.
    const { unknown, error } = this.ctl.checkScope(this.scope);
    if (unknown.length || error) {
      this.setStatus(() => '');
      this.setError(() => (unknown.length ? scopeErrorText(this.t, unknown[0], { locked: true }) : this.t('error.search', { detail: error.message })));
      this.ui.input.disabled = true;
      return;
    }
    this.ui.input.disabled = false;
    this.readLink();
    this.renderPickers();
    this.setStatus(() => this.t('status.cleared'));
    this.dataset.state = 'ready';
    if (this.ui.input.value.trim()) this.search(false);
  }

  // `sync-url`, once, at the first start: the query and the picks of the page's link. A locked
  // field is the author's (a link cannot change it); a picked value the library does not have
  // is left out of the scope, and the box says so.
  readLink() {
    if (!this.hasAttribute('sync-url') || this.linkRead) return;
    this.linkRead = true;
    const lock = this.lock;
    const { query, scope } = linkState(new URLSearchParams(window.location.search), this.linkFields(lock));
    const { scope: ok, unknown } = this.ctl.checkScope(withLock(scope, lock));
    this.chosen = Object.fromEntries(Object.entries(scope).filter(([f]) => f in ok));
    if (query) {
      this.ui.input.value = query;
      this.checkQueryLength();
    }
    this.setLinkNotice(unknown.length ? () => scopeErrorText(this.t, unknown[0]) : null);
  }

  /** The fields a link may set: the pickable ones the author did not lock. */
  linkFields(lock = this.lock) {
    return PICKABLE.filter((f) => !(f in lock));
  }

  setLinkNotice(thunk) {
    this.linkThunk = thunk;
    this.ui.linkNotice.textContent = thunk ? thunk() : '';
    this.ui.linkNotice.hidden = !thunk;
  }

  // `sync-url`: the page's URL says what the box shows (the query and the picks), once typing
  // pauses. Replaced, not pushed: the host page's history stays its own, and Back leaves the page
  // at the search last shown.
  linkLater() {
    if (!this.hasAttribute('sync-url')) return;
    clearTimeout(this.linkTimer);
    this.linkTimer = setTimeout(() => {
      const { pathname, search, hash } = window.location;
      const params = setLinkState(new URLSearchParams(search), this.ui.input.value.trim(), this.currentChoice(), this.linkFields());
      const s = params.toString();
      const url = `${pathname}${s ? `?${s}` : ''}${hash}`;
      if (url !== `${pathname}${search}${hash}`) window.history.replaceState(window.history.state, '', url);
    }, 300);
  }

  // What the pickers were last built from: the language, the choice, the lock and the shards loaded.
  pickersInput() {
    const { client } = this.ctl;
    const index = client && client.index;
    if (index && this.shardsOf !== client) { this.shardsOf = client; this.shards = client.manifest().shards; }
    const shards = index ? this.shards : [];
    return JSON.stringify([this.t.lang, this.chosen || {}, this.lock, shards.map((s) => (index.isLoaded(s.file) ? 1 : 0)).join('')]);
  }

  /** Pickers for the fields the author left open, with the engine's counts within the lock. */
  renderPickers() {
    const { t } = this;
    const lock = this.lock;
    this.pickersBuiltFor = this.pickersInput();
    const { scope } = this.ctl.checkScope(withLock(this.chosen || {}, lock));
    const facets = this.ctl.facets(scope);
    const pickers = [];
    this.selects = {};
    for (const f of PICKABLE) {
      const facet = facets.get(f);
      if (!pickerOffered(facet)) continue;
      const id = `${this.uid}-${f}`;
      const select = el('select', { id }, pickerOptions(t, facet));
      select.value = facet.selected || '';
      select.addEventListener('change', () => {
        this.chosen = this.currentChoice();
        this.setLinkNotice(null);
        this.renderPickers();
        if (this.ui.input.value.trim()) this.search(true);
        else this.linkLater();
      });
      this.selects[f] = select;
      pickers.push(el('label', { for: id, class: 'picker' }, el('span', {}, t.field(f)), select));
    }
    this.ui.pickers.replaceChildren(...pickers);
    this.ui.pickers.hidden = pickers.length === 0;
    this.ui.lockLine.textContent = Object.keys(lock).length ? t('scope.locked', { scope: scopeLabel(t, lock) }) : '';
    this.ui.lockLine.hidden = Object.keys(lock).length === 0;
  }

  currentChoice() {
    const c = {};
    for (const [f, s] of Object.entries(this.selects || {})) if (s.value) c[f] = s.value;
    return c;
  }

  search(explicit) {
    if (!this.ctl.client || this.ui.input.disabled) return undefined;
    return this.ctl.search(this.ui.input.value, this.scope, { browse: explicit });
  }

  clearResults() {
    delete this.dataset.pending;
    this.ui.results.replaceChildren();
    this.ui.tools.hidden = true;
  }

  render(resp) {
    const { t } = this;
    const { trace } = resp;
    const hits = resp.results;
    const shown = this.ctl.last;
    const loadSection = (hit) => this.ctl.section(hit, shown);
    const open = new Set([...this.ui.results.querySelectorAll('li.card > details.why[open]')].map((d) => d.closest('li.card').dataset.id));
    // A card's title links to its course page in a new tab. The element sits in an LMS page, often
    // in a frame (an HTML block, an LTI iframe): the same tab would open the course page inside that
    // frame, and `_top` would replace the LMS page itself (a quiz or a post in progress is lost)
    // and is refused in sandboxed frames without allow-top-navigation; a new tab leaves the LMS
    // page as it was (the link says so to screen readers). A page that is the site itself (the
    // search page `chsr index` writes) says `link-target="_self"`. Relative URLs resolve against
    // this module's folder, the search site's root, as they do on the study page next to it.
    const links = { urlBase: BASE.href, linkTarget: this.getAttribute('link-target') === '_self' ? null : '_blank' };
    // The cards of results already shown are kept (only their snippet, rank and "why" follow);
    // "why" panels that were open stay open.
    renderCards(this.ui.results, t, hits, { trace, loadSection, idPrefix: this.uid, ...links }, { open });
    if (resp.pending && resp.pending.length) this.dataset.pending = resp.pending.map((p) => p.kind).join(' ');
    else delete this.dataset.pending;
    const locked = Object.keys(this.lock).length > 0;
    this.setStatus(() => statusText(t, trace, hits.length, hits, { locked }));
    lazy.stale(this.ui.why, () => whyQuery(t, trace, {
      pending: (resp.pending || []).map((p) => p.entry), upgraded: (resp.upgraded || []).map((p) => p.entry),
    }));
    this.ui.tools.hidden = false;
    this.ui.copy.hidden = hits.length === 0;
    this.ui.copyStatus.textContent = '';
    this.ui.copyBox.hidden = true;
    const err = this.ctl.modelError;
    this.ui.modelNotice.textContent = err ? t('model.failed', { reason: errorText(t, err) }) : '';
    this.ui.modelNotice.hidden = !err;
  }

  async copyContext() {
    const packed = this.ctl.context();
    if (!packed) return;
    const { text, n } = packed;
    if (await copyText(text)) {
      this.ui.copyStatus.textContent = this.t('copy.done', { n });
    } else {
      this.ui.copyBox.value = text;
      this.ui.copyBox.hidden = false;
      this.ui.copyBox.setAttribute('aria-label', this.t('copy.label'));
      this.ui.copyStatus.textContent = this.t('copy.manual');
      this.ui.copyBox.focus();
      this.ui.copyBox.select();
    }
  }
}

if (!customElements.get('chsr-search')) customElements.define('chsr-search', ChsrSearchElement);
