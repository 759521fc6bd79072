// <chsr-search>: the drop-in search box for an LMS page (Moodle/Canvas HTML block, an iframe, any
// page), from a plain module script:
//
//   <script type="module" src="https://example.org/chsr/chsr-search.js"></script>
//   <chsr-search manifest="https://example.org/chsr/shards/manifest.json"
//                subject="physics" level="college" lang="fr"></chsr-search>
//
// Attributes: `manifest` (required); scope attributes `subject`, `level`, `doc-type`, `chapter`,
// `year`, `paper`, `exam`, `content-lang` — each one given is LOCKED: the student cannot change it,
// and no result outside it is ever shown (widened results that leave a locked field are dropped,
// and shards outside a locked level are never downloaded); `lang` (`en`/`fr`, the interface
// language; default: the browser's); `k` (results, default 8); `link-target="_self"` (results
// open in the same tab; default: a new tab, as an LMS page needs).
// Styles live in the shadow root (chsr-search.css next to this file); corpus text is only ever
// inserted as text. Fires `chsr-results` ({query, scope, shown, hidden}) after each search.
import { ChsrClient } from './chsr-client.js';
import { pickLang, translator } from './i18n.js';
import { el, boundInput, card, copyText, entryLabel, errorText, scopeLabel, statusText, whyQuery } from './view.js';
import { keepOffline, keepOfflineBytes, registerOffline } from './offline.js';

const SCOPE_ATTRS = {
  subject: 'subject', level: 'level', 'doc-type': 'doc_type', chapter: 'chapter',
  year: 'year', paper: 'paper', exam: 'exam', 'content-lang': 'lang',
};
const PICKABLE = ['subject', 'level', 'doc_type', 'chapter', 'year', 'paper'];
const BASE = new URL('./', import.meta.url);
const clients = new Map();
let instances = 0;

function openClient(manifestUrl) {
  const key = new URL(manifestUrl, document.baseURI).href;
  if (!clients.has(key)) {
    const p = ChsrClient.open(key, { wasmUrl: new URL('pkg/chsr_bg.wasm', BASE) });
    clients.set(key, p);
    p.catch(() => clients.delete(key));
  }
  return clients.get(key);
}

const natural = (a, b) => String(a).localeCompare(String(b), undefined, { numeric: true });

export class ChsrSearchElement extends HTMLElement {
  static get observedAttributes() {
    return ['manifest', 'lang', 'k', ...Object.keys(SCOPE_ATTRS)];
  }

  constructor() {
    super();
    this.uid = `chsr${++instances}`;
    this.seq = 0;
    this.last = null;
    this.attachShadow({ mode: 'open' });
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

  /** The scope fixed by attributes. */
  get lock() {
    const lock = {};
    for (const [attr, field] of Object.entries(SCOPE_ATTRS)) {
      const v = this.getAttribute(attr);
      if (v !== null && v.trim() !== '') lock[field] = v.trim();
    }
    return lock;
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
      why: el('details', { class: 'why why-query' }),
      whySummary: el('summary'),
      whyBody: el('div'),
      results: el('ol', { class: 'results' }),
      section: el('section', { class: 'chsr' }),
    };
    const u = this.ui;
    u.why.append(u.whySummary, u.whyBody);
    u.tools.append(u.copy, u.why);
    const form = el('form', { role: 'search', class: 'query-row' }, u.label, u.input, u.go);
    u.section.append(form, u.cutNotice, u.lockLine, u.pickers, u.error, u.modelNotice, u.status, u.tools, u.copyStatus, u.copyBox, u.results);
    root.append(el('link', { rel: 'stylesheet', href: new URL('chsr-search.css', BASE).href }), u.section);
    let timer = null;
    form.addEventListener('submit', (ev) => { ev.preventDefault(); clearTimeout(timer); this.search(true); });
    u.input.addEventListener('input', () => { this.checkQueryLength(); clearTimeout(timer); timer = setTimeout(() => this.search(false), 300); });
    u.copy.addEventListener('click', () => this.copyContext());
    this.retranslate();
  }

  retranslate() {
    this.t = translator(pickLang(this.getAttribute('lang')));
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
    if (this.errorThunk) ui.error.textContent = this.errorThunk();
    if (this.client) this.renderPickers();
    if (this.last) this.render(this.last.resp, this.last.hidden);
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
    this.ui.status.textContent = thunk();
  }

  setError(thunk) {
    this.errorThunk = thunk;
    this.ui.error.textContent = thunk ? thunk() : '';
    this.ui.error.hidden = !thunk;
    this.dataset.state = thunk ? 'error' : this.dataset.state;
  }

  async start() {
    const my = ++this.seq;
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
    if (BASE.origin === window.location.origin) {
      const register = () => { if (!this.registered) { this.registered = true; registerOffline(BASE.href); } };
      this.afterFirstSearch = register;
      if (window.requestIdleCallback) window.requestIdleCallback(() => { if (!this.dataset.searches) register(); }, { timeout: 3000 });
      else setTimeout(() => { if (!this.dataset.searches) register(); }, 1000);
    }
    try {
      this.client = await openClient(manifest);
    } catch (e) {
      if (my !== this.seq) return;
      this.setStatus(() => '');
      this.setError(() => errorText(this.t, e));
      return;
    }
    if (my !== this.seq) return;
    this.manifest = this.client.manifest();
    if (BASE.origin === window.location.origin && !this.client.onShardBytes) {
      this.client.onShardBytes = (entry, bytes) => keepOfflineBytes(this.client.fileUrl(entry.file), bytes);
    }
    // A locked value the library does not know is the author's mistake: say so, search nothing.
    for (const [field, value] of Object.entries(this.lock)) {
      const valid = this.known(field);
      if (!valid.includes(value)) {
        this.setStatus(() => '');
        this.setError(() => this.t('error.scopeLocked', {
          field: this.t.field(field).toLowerCase(), value, valid: this.t.list(valid.map((v) => this.t.value(field, v))),
        }));
        this.ui.input.disabled = true;
        return;
      }
    }
    this.ui.input.disabled = false;
    this.renderPickers();
    this.setStatus(() => this.t('status.cleared'));
    this.dataset.state = 'ready';
    if (this.ui.input.value.trim()) this.search(false);
  }

  known(field) {
    const vals = new Set();
    for (const s of this.manifest.shards) {
      if (field === 'subject' || field === 'level') vals.add(s[field]);
      else for (const v of Object.keys(s.facets[field] || {})) vals.add(v);
    }
    return [...vals].sort(natural);
  }

  /** Pickers for the fields the author left open, with counts within the lock. */
  renderPickers() {
    const { t } = this;
    const lock = this.lock;
    const keep = this.chosen || {};
    const shards = this.manifest.shards.filter((s) => (!lock.subject || s.subject === lock.subject) && (!lock.level || s.level === lock.level)
      && (!keep.subject || s.subject === keep.subject) && (!keep.level || s.level === keep.level));
    const pickers = [];
    this.selects = {};
    for (const f of PICKABLE) {
      if (lock[f]) continue;
      const counts = new Map();
      if (f === 'subject' || f === 'level') {
        for (const s of this.manifest.shards.filter((x) => (!lock.subject || x.subject === lock.subject) && (!lock.level || x.level === lock.level))) {
          counts.set(s[f], (counts.get(s[f]) || 0) + s.chunks);
        }
      } else {
        for (const s of shards) for (const [v, n] of Object.entries(s.facets[f] || {})) counts.set(v, (counts.get(v) || 0) + n);
      }
      if (counts.size < 2) continue;
      const id = `${this.uid}-${f}`;
      const select = el('select', { id },
        el('option', { value: '' }, f === 'subject' ? t('scope.anySubject') : f === 'level' ? t('scope.anyLevel') : t('scope.any')),
        [...counts.keys()].sort(natural).map((v) => el('option', { value: v },
          t('facet.count', { label: f === 'chapter' ? t('card.chapter', { chapter: v }) : t.value(f, v), n: t.num(counts.get(v)) }))));
      select.value = keep[f] && counts.has(keep[f]) ? keep[f] : '';
      select.addEventListener('change', () => {
        this.chosen = this.currentChoice();
        this.renderPickers();
        if (this.ui.input.value.trim()) this.search(true);
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

  /** Whether a result respects every locked field. */
  insideLock(hit) {
    return Object.entries(this.lock).every(([f, v]) => hit[f] !== undefined && String(hit[f]) === v);
  }

  // `upgrade`: the same search again once enhancement files (the model) arrived after its results.
  async search(explicit, { upgrade = false } = {}) {
    if (!this.client || this.ui.input.disabled) return;
    const my = ++this.seq;
    const query = this.ui.input.value;
    const lock = this.lock;
    const scope = { ...this.currentChoice(), ...lock };
    if (!query.trim() && !explicit) {
      this.last = null;
      delete this.dataset.pending;
      this.ui.results.replaceChildren();
      this.ui.tools.hidden = true;
      this.setStatus(() => this.t('status.cleared'));
      return;
    }
    const options = { k: this.k, text: false };
    this.dataset.state = 'searching';
    try {
      const resp = await this.client.search(query, scope, options, upgrade ? null : (entry, info) => {
        if (my !== this.seq) return;
        const what = entryLabel(this.t, entry);
        if (info && info.retry) this.setStatus(() => this.t('status.retrying', { what }));
        else if (!info) this.setStatus(() => this.t('status.downloading', { what, size: this.t.size(entry.bytes) }));
      }, { widen: !lock.level });
      if (my !== this.seq) return;
      // The lock is a hard boundary: widened results that leave it are never shown.
      const shown = resp.results.filter((h) => this.insideLock(h));
      const hidden = resp.results.length - shown.length;
      this.setError(null);
      const wasPending = upgrade && this.last && this.last.resp.pending.length > 0;
      this.last = { query, scope, options, resp: { ...resp, results: shown, upgraded: wasPending ? this.last.resp.pending : undefined }, hidden };
      this.render(this.last.resp, hidden);
      if (resp.pending.length > 0) {
        // The vector path comes after the first result: load what it needs, then search again.
        this.client.enhance().then(() => { if (my === this.seq) this.search(explicit, { upgrade: true }); });
      }
      if (BASE.origin === window.location.origin) keepOffline(this.client.loadedShards().map((s) => this.client.fileUrl(s.file)));
      this.dataset.state = 'done';
      this.dispatchEvent(new CustomEvent('chsr-results', { detail: { query, scope, shown: shown.length, hidden }, bubbles: true, composed: true }));
    } catch (e) {
      if (my !== this.seq) return;
      this.last = null;
      delete this.dataset.pending;
      this.ui.results.replaceChildren();
      this.ui.tools.hidden = true;
      this.setStatus(() => '');
      this.setError(() => errorText(this.t, e, { locked: Object.keys(lock).length > 0 }));
    } finally {
      this.dataset.searches = String(Number(this.dataset.searches || 0) + 1);
      if (this.afterFirstSearch) this.afterFirstSearch();
    }
  }

  render(resp, hidden) {
    const { t } = this;
    const { trace } = resp;
    const hits = resp.results;
    const loadSection = (hit) => {
      const { query, scope, options } = this.last;
      const full = this.client.runSearch(query, scope, { ...options, text: true, expand_chars: 6000 });
      return full.results.find((h) => h.id === hit.id) || hit;
    };
    const open = new Set([...this.ui.results.querySelectorAll('li.card > details.why[open]')].map((d) => d.closest('li.card').dataset.id));
    // A card's title links to its course page in a new tab. The element sits in an LMS page, often
    // in a frame (an HTML block, an LTI iframe): the same tab would open the course page inside that
    // frame, and `_top` would replace the LMS page itself (a quiz or a post in progress is lost)
    // and is refused in sandboxed frames without allow-top-navigation; a new tab leaves the LMS
    // page as it was (the link says so to screen readers). A page that is the site itself (the
    // search page `chsr index` writes) says `link-target="_self"`. Relative URLs resolve against
    // this module's folder, the search site's root, as they do on the study page next to it.
    const links = { urlBase: BASE.href, linkTarget: this.getAttribute('link-target') === '_self' ? null : '_blank' };
    this.ui.results.replaceChildren(...hits.map((h) => card(t, h, { trace, loadSection, idPrefix: this.uid, ...links })));
    // Re-rendered (an upgrade, a language switch): "why" panels that were open stay open.
    for (const c of this.ui.results.querySelectorAll('li.card')) if (open.has(c.dataset.id)) c.querySelector('details.why').open = true;
    if (resp.pending && resp.pending.length) this.dataset.pending = resp.pending.map((p) => p.kind).join(' ');
    else delete this.dataset.pending;
    this.setStatus(() => (hits.length === 0 && hidden > 0 ? t('status.lockedHidden', { hidden: t.num(hidden) }) : statusText(t, trace, hits.length, hits)));
    this.ui.whyBody.replaceChildren(whyQuery(t, trace, {
      pending: (resp.pending || []).map((p) => p.entry), upgraded: (resp.upgraded || []).map((p) => p.entry),
    }));
    this.ui.tools.hidden = false;
    // The packaged context repeats the engine's results: offered only when none was hidden.
    this.ui.copy.hidden = hits.length === 0 || hidden > 0;
    this.ui.copyStatus.textContent = '';
    this.ui.copyBox.hidden = true;
    const err = this.client.modelError;
    this.ui.modelNotice.textContent = err ? t('model.failed', { reason: errorText(t, err) }) : '';
    this.ui.modelNotice.hidden = !err;
  }

  async copyContext() {
    if (!this.last) return;
    const { query, scope, options } = this.last;
    const text = this.client.toContext(query, scope, options);
    const n = (text.match(/^\[DOCUMENT \d+\]$/gm) || []).length;
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
