// DOM builders shared by the study page (app.js) and the embed (chsr-search.js): result cards,
// the "why" panels, status and error sentences.
// Corpus text and metadata are only ever inserted as text nodes (textContent, createTextNode);
// nothing here parses HTML or writes a style attribute (strict CSP). The one URL taken from corpus
// data, a card's link to its course page, is used only when it is http(s) (see safeHref).
import { richText, snippetNodes } from './render.js';

/** Creates an element; `attrs` are attributes (`class` → className, booleans toggle), children are nodes or text. */
export function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') e.className = v;
    else if (k === 'hidden') e.hidden = Boolean(v);
    else e.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat()) {
    if (c === undefined || c === null || c === false) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

/** The engine reads a query's first 16 KiB of UTF-8 (src/analysis.rs: MAX_QUERY_BYTES, bound_query). */
export const MAX_QUERY_BYTES = 16 * 1024;

/**
 * Cuts a search box's value as the engine would read it: its first MAX_QUERY_BYTES bytes of UTF-8,
 * on a character boundary. Returns null when it fits, else `{total, kept, text}` (`total`, `kept`:
 * characters before and after; `text`: the value kept), so the page can say what was cut.
 */
export function boundInput(input) {
  const value = input.value;
  if (value.length * 3 <= MAX_QUERY_BYTES) return null; // at most 3 bytes per UTF-16 unit
  const bytes = new TextEncoder().encode(value);
  if (bytes.length <= MAX_QUERY_BYTES) return null;
  let end = MAX_QUERY_BYTES;
  while (end > 0 && (bytes[end] & 0xc0) === 0x80) end--; // not inside a character
  const text = new TextDecoder().decode(bytes.subarray(0, end));
  input.value = text;
  return { total: [...value].length, kept: [...text].length, text };
}

/** "Physics · High school" for a subject and a level (either may be missing). */
export function placeLabel(t, subject, level) {
  return [t.value('subject', subject), t.value('level', level)].filter(Boolean).join(' · ');
}

/** What a manifest entry is, in words: "Physics · High school", or the embedding model. */
export function entryLabel(t, entry) {
  if (!entry) return t('error.libraryIndex');
  if (entry.kind === 'terms') return t('terms.what');
  if (!entry.subject) return t('model.what');
  const place = placeLabel(t, entry.subject, entry.level);
  if (entry.textOf) return t('text.of', { what: place });
  if (entry.postingsOf) return t('postings.of', { what: place });
  return entry.vectorsOf ? t('vectors.of', { what: place }) : place;
}

/** The options of a scope picker: "Any…", then each value of the engine's facet with its count. */
export function pickerOptions(t, facet) {
  const f = facet.field;
  const any = f === 'subject' ? t('scope.anySubject') : f === 'level' ? t('scope.anyLevel') : t('scope.any');
  return [el('option', { value: '' }, any), ...facet.values.map(({ value, count }) => el('option', { value },
    t('facet.count', { label: f === 'chapter' ? t('card.chapter', { chapter: value }) : t.value(f, value), n: t.num(count) })))];
}

/** Whether a picker is offered for a facet: not locked, and a choice to make (or one made). */
export function pickerOffered(facet) {
  return Boolean(facet) && !facet.locked && (facet.values.length >= 2 || facet.selected !== undefined);
}

/** A scope in words: "Physics · High school · Chapter 2". */
export function scopeLabel(t, scope) {
  const parts = [];
  if (scope.subject) parts.push(t.value('subject', scope.subject));
  if (scope.level) parts.push(t.value('level', scope.level));
  for (const [f, v] of Object.entries(scope)) {
    if (f === 'subject' || f === 'level' || f === 'lock' || v === undefined || v === '') continue;
    parts.push(`${t.field(f)} ${t.value(f, v)}`);
  }
  return parts.join(' · ') || t('query.scopeNone');
}

/** The leakage label of a widened result, in words (null when in scope). */
export function leakageText(t, hit) {
  switch (hit.leakage) {
    case 'in_scope': return null;
    case 'cross_topic': {
      const where = hit.chapter ? t('leak.chapter', { chapter: hit.chapter }) : (hit.section_title || hit.chapter_title || cardTitle(t, hit));
      return t('leak.cross_topic', { where });
    }
    case 'cross_level': return t('leak.cross_level', { level: t.value('level', hit.level) });
    case 'fallback': return t('leak.fallback', { subject: t.value('subject', hit.subject), level: t.value('level', hit.level) });
    default: return t('leak.ungated', { subject: t.value('subject', hit.subject), level: t.value('level', hit.level) });
  }
}

/**
 * A card's title in words: "Page title › Section" when the chunk names its page, else "Chapter
 * title › Section"; without either, the label ("Table 4.1"), else the document type with the exam,
 * year, paper and question ("Answer / mark scheme · 2023 · Q12.1"); the id only when nothing else
 * is known.
 */
export function cardTitle(t, hit) {
  const path = (parts) => parts.filter((p, i) => p && parts.indexOf(p) === i).join(' › ');
  const section = hit.section_title || hit.subsection;
  if (hit.title) return path([hit.title, section]);
  const titled = path([hit.chapter_title, section]);
  if (titled) return titled;
  if (hit.label) return hit.label;
  const words = [
    t.value('doc_type', hit.doc_type), hit.exam, hit.year, hit.paper,
    hit.question_number && t('card.question', { n: hit.question_number }),
    !hit.question_number && hit.chapter && t('card.chapter', { chapter: hit.chapter }),
  ].filter(Boolean);
  return words.join(' · ') || hit.id;
}

/**
 * The link of a card: `url` resolved against `base`, when it is http: or https: (a relative URL
 * resolves to one); null for anything else (javascript:, data:, blob:, file:, malformed). The
 * scheme is checked after the browser's own parsing, so blanks, tabs or case tricks in the
 * scheme cannot slip through.
 */
export function safeHref(url, base) {
  if (typeof url !== 'string' || !url.trim()) return null;
  let u;
  try {
    u = new URL(url, base);
  } catch {
    return null;
  }
  return u.protocol === 'http:' || u.protocol === 'https:' ? u.href : null;
}

function titleNode(t, hit, opts) {
  const text = cardTitle(t, hit);
  const href = safeHref(hit.url, opts.urlBase || document.baseURI);
  if (!href) return el('h3', { class: 'card-title' }, text);
  const blank = opts.linkTarget === '_blank';
  return el('h3', { class: 'card-title' }, el('a', {
    class: 'card-link', href, target: opts.linkTarget || null, rel: blank ? 'noopener noreferrer' : null,
  }, text, blank && el('span', { class: 'visually-hidden' }, ` ${t('card.newTab')}`)));
}

function row(dl, term, ...desc) {
  dl.append(el('dt', {}, term), el('dd', {}, ...desc));
}

/** "Why this result": ranks, fused score, rerank adjustments, scope. */
export function whyResult(t, hit, trace) {
  return el('details', { class: 'why' }, el('summary', {}, t('why.result')), whyList(t, hit, trace));
}

// The list inside "why this result".
function whyList(t, hit, trace) {
  const dl = el('dl', { class: 'why-list' });
  row(dl, t('why.rank'), `#${hit.rank}`);
  row(dl, t('why.bm25'), hit.bm25_rank ? `#${hit.bm25_rank}` : t('why.notRanked'));
  const denseOff = trace && trace.dense_candidates === 0 && (!trace.dense_plans || trace.dense_plans.length === 0);
  row(dl, t('why.dense'), hit.dense_rank ? `#${hit.dense_rank}` : denseOff ? t('why.noDense', { reason: denseReason(t, trace) }) : t('why.notRanked'));
  row(dl, t('why.fused'), t.score(hit.fused_score));
  const adj = hit.adjustments || [];
  row(dl, t('why.adjust'), adj.length === 0 ? t('why.noAdjust')
    : el('ul', { class: 'plain' }, adj.map((a) => el('li', {}, `${a.delta >= 0 ? '+' : '−'}${t.score(Math.abs(a.delta))} · ${t.reason(a.reason)}`))));
  row(dl, t('why.final'), t.score(hit.score));
  row(dl, t('why.scope'), leakageText(t, hit) || t('why.inScope'));
  row(dl, t('why.id'), el('code', {}, hit.id));
  return dl;
}

/**
 * A `<details>` whose body `build()` makes the first time it opens (a click on its summary, the
 * keyboard, `open` set by a script, find in page): closed panels cost nothing to render.
 * `lazy.stale(details)` drops the body (it is made again at the next opening, or at once when the
 * panel is open); `lazy.open(details)` makes it and opens the panel.
 */
export const lazy = {
  details(attrs, summary, build) {
    const d = el('details', attrs, summary);
    LAZY.set(d, { build, made: false });
    // The body is made before the panel opens (click runs before the toggle), so that it is never
    // painted empty; `toggle` covers the other ways a panel opens.
    summary.addEventListener('click', () => { if (!d.open) lazy.fill(d); });
    d.addEventListener('toggle', () => { if (d.open) lazy.fill(d); });
    return d;
  },
  fill(d) {
    const s = LAZY.get(d);
    if (!s || s.made) return;
    s.made = true;
    const body = s.build();
    if (body) d.append(body);
  },
  stale(d, build) {
    const s = LAZY.get(d);
    if (build) s.build = build;
    s.made = false;
    while (d.lastChild && d.lastChild !== d.firstChild) d.lastChild.remove();
    if (d.open) lazy.fill(d);
  },
  open(d) {
    lazy.fill(d);
    d.open = true;
  },
};
const LAZY = new WeakMap();

// Why the dense path did not run, from the engine's notes (known ones in the interface language).
function denseReason(t, trace) {
  const notes = (trace && trace.notes) || [];
  if (notes.some((n) => /no embedding model/.test(n))) return t('query.denseNoModel');
  if (notes.some((n) => /no query term occurs/.test(n))) return t('query.denseOov');
  if (trace && trace.dense_path === false) return t('query.denseOff');
  const n = notes.find((x) => /dense|vector|model/i.test(x));
  return n || t('query.denseNoModel');
}

// The state of a card on the page (by its <li>): the hit and options it shows, its parts.
const CARDS = new WeakMap();

// What the fixed part of a card (data attributes, leakage label, title, link, badges, source) is
// made of: the language, the options, and everything in the hit but what a search changes (rank,
// scores, snippet).
const PER_SEARCH = new Set(['rank', 'bm25_rank', 'dense_rank', 'fused_score', 'score', 'adjustments', 'snippet', 'text']);
function cardOpts(t, opts) {
  return `${t.lang} ${opts.idPrefix || 'r'} ${opts.linkTarget || ''} ${opts.urlBase || document.baseURI}`;
}
function sameCard(st, t, hit, opts) {
  if (st.optsKey !== cardOpts(t, opts)) return false;
  const a = st.hit;
  // Every fixed field of either hit, the same in both (optional per-search fields, such as an
  // absent `dense_rank`, do not count).
  let n = 0;
  for (const k in hit) {
    if (PER_SEARCH.has(k)) continue;
    n += 1;
    if (a[k] === hit[k]) continue;
    if (!(k in a) || typeof hit[k] !== 'object' || JSON.stringify(a[k]) !== JSON.stringify(hit[k])) return false;
  }
  for (const k in a) if (!PER_SEARCH.has(k)) n -= 1;
  return n === 0;
}

/**
 * A result card. `opts.idPrefix` keeps element ids unique; `opts.loadSection(hit)` resolves to
 * the hit with `expanded` filled (section expansion); `opts.trace` feeds "why this result";
 * `opts.urlBase` resolves relative course-page URLs (default: the page's base URL);
 * `opts.linkTarget` is the title link's target (default: none, the same tab).
 */
export function card(t, hit, opts = {}) {
  const widened = hit.leakage !== 'in_scope';
  const badges = el('p', { class: 'badges' },
    el('span', { class: 'badge subject' }, t.value('subject', hit.subject)),
    el('span', { class: 'badge level' }, t.value('level', hit.level)),
    el('span', { class: 'badge doctype' }, t.value('doc_type', hit.doc_type)),
    hit.chapter && el('span', { class: 'badge' }, t('card.chapter', { chapter: hit.chapter })),
    hit.question_number && el('span', { class: 'badge' }, t('card.question', { n: hit.question_number })),
    hit.exam && el('span', { class: 'badge' }, hit.exam),
    hit.year && el('span', { class: 'badge' }, hit.year),
    hit.paper && el('span', { class: 'badge' }, hit.paper));
  const li = el('li', {
    class: widened ? 'card widened' : 'card',
    'data-id': hit.id, 'data-subject': hit.subject, 'data-level': hit.level,
    'data-leakage': hit.leakage, 'data-in-scope': String(hit.in_scope),
  });
  const st = { optsKey: cardOpts(t, opts), hit, opts, gen: 0 };
  CARDS.set(li, st);
  st.snippetKey = JSON.stringify(hit.snippet || []);
  st.snippet = el('div', { class: 'snippet' }, snippetNodes(hit.snippet || []));
  if (widened) li.append(el('p', { class: 'leak-label' }, el('span', { class: 'leak-icon', 'aria-hidden': 'true' }, '↗'), ' ', leakageText(t, hit)));
  li.append(titleNode(t, hit, opts), badges, st.snippet,
    el('p', { class: 'source' }, [hit.source, hit.label].filter(Boolean).join(' · ')));
  const panelId = `${opts.idPrefix || 'r'}-section-${hit.rank}`;
  const panel = el('div', { class: 'section-panel', id: panelId, hidden: true, role: 'region', 'aria-label': t('card.sectionTitle') });
  const btn = el('button', { type: 'button', class: 'link-button show-section', 'aria-expanded': 'false', 'aria-controls': panelId }, t('card.showSection'));
  st.panel = panel;
  st.btn = btn;
  btn.addEventListener('click', async () => {
    if (!panel.hidden) {
      panel.hidden = true;
      btn.setAttribute('aria-expanded', 'false');
      btn.textContent = t('card.showSection');
      return;
    }
    panel.hidden = false;
    btn.setAttribute('aria-expanded', 'true');
    btn.textContent = t('card.hideSection');
    if (panel.dataset.loaded) return;
    // The hit and the search it came from as the card shows them now (a card is kept across searches).
    const { hit: shown, opts: o, gen } = st;
    panel.replaceChildren(el('p', { class: 'muted' }, t('card.sectionLoading')));
    try {
      const full = o.loadSection ? await o.loadSection(shown) : shown;
      if (gen !== st.gen) return;
      const expanded = (full && full.expanded) || [];
      panel.replaceChildren(
        el('h4', {}, t('card.sectionTitle')),
        el('div', { class: 'full-text' }, richText((full && full.text) || shown.text)),
        el('p', { class: 'muted' }, expanded.length ? t('card.sectionMore', { n: expanded.length }) : t('card.sectionNone')),
        ...expanded.map((x) => el('div', { class: 'expanded', 'data-id': x.id },
          el('p', { class: 'expanded-meta' }, `${t.value('doc_type', x.doc_type)} · ${x.id}`),
          el('div', { class: 'full-text' }, richText(x.text)))));
      panel.dataset.loaded = 'true';
    } catch (e) {
      if (gen !== st.gen) return;
      panel.replaceChildren(el('p', { class: 'error-inline' }, t('error.search', { detail: (e && e.message) || e })));
    }
  });
  // "Why this result" is made when it is opened (most never are).
  st.why = lazy.details({ class: 'why' }, el('summary', {}, t('why.result')), () => whyList(t, st.hit, st.opts.trace));
  li.append(el('div', { class: 'card-actions' }, btn), panel, st.why);
  return li;
}

// A card kept for another search: its snippet, rank and "why" follow the new hit; its section
// panel closes (its passages depended on the results shown); its "why" panel stays open when
// `keepOpen`, else closes, as a new card's would be.
function updateCard(li, st, t, hit, opts, keepOpen) {
  st.hit = hit;
  st.opts = opts;
  st.optsKey = cardOpts(t, opts);
  st.gen += 1;
  const snippetKey = JSON.stringify(hit.snippet || []);
  if (snippetKey !== st.snippetKey) {
    st.snippetKey = snippetKey;
    st.snippet.replaceChildren(...snippetNodes(hit.snippet || []));
  }
  const panelId = `${opts.idPrefix || 'r'}-section-${hit.rank}`;
  if (st.panel.id !== panelId) {
    st.panel.id = panelId;
    st.btn.setAttribute('aria-controls', panelId);
  }
  if (!st.panel.hidden || st.panel.dataset.loaded) {
    st.panel.hidden = true;
    st.btn.setAttribute('aria-expanded', 'false');
    st.btn.textContent = t('card.showSection');
    delete st.panel.dataset.loaded;
    st.panel.replaceChildren();
  }
  if (st.why.open && !keepOpen) st.why.open = false;
  lazy.stale(st.why);
}

/**
 * Shows `hits` as the cards of `list` (in order), keeping the card (the DOM node) of a result
 * already shown when only what a search changes differs (rank, scores, snippet): unchanged cards
 * are neither rebuilt nor moved, so the browser lays out and paints only what changed. `open`:
 * ids whose "why this result" panel stays (or is) open. `opts` as for `card`.
 */
export function renderCards(list, t, hits, opts = {}, { open = null } = {}) {
  const old = new Map();
  for (const li of list.children) {
    const st = CARDS.get(li);
    if (st && !old.has(st.hit.id)) old.set(st.hit.id, li);
  }
  const next = hits.map((hit) => {
    const li = old.get(hit.id);
    const st = li && CARDS.get(li);
    const keepOpen = Boolean(open && open.has(hit.id));
    if (st && sameCard(st, t, hit, opts)) {
      old.delete(hit.id);
      updateCard(li, st, t, hit, opts, keepOpen);
      return li;
    }
    const c = card(t, hit, opts);
    if (keepOpen) lazy.open(CARDS.get(c).why);
    return c;
  });
  const kept = new Set(next);
  for (const c of [...list.childNodes]) if (!kept.has(c)) c.remove();
  let at = list.firstChild;
  for (const c of next) {
    if (c === at) at = at.nextSibling;
    else list.insertBefore(c, at);
  }
}

/**
 * Whether a lock kept the search from widening: the engine marks a relaxation step that a locked
 * field kept from running although the evidence asked for it (`blocked_by_lock`).
 */
export function lockStoppedWidening(trace) {
  const r = trace && trace.relaxation;
  return Boolean(r && !r.widened && r.steps.some((s) => s.blocked_by_lock));
}

/** Whether the engine found the scope's own evidence for the query weak (`trace.weak_evidence`). */
export function weakEvidence(trace) {
  return Boolean(trace && trace.weak_evidence && trace.weak_evidence.weak && !trace.browse);
}

/**
 * The sentence under the search box after a search (`hits`: the results shown; `locked`: the
 * scope has locked fields, set by the course).
 */
export function statusText(t, trace, n, hits = null, { locked = false } = {}) {
  const admissible = t.num(trace.admissible);
  if (n === 0 && locked && lockStoppedWidening(trace)) return t('status.lockedStopped', { admissible });
  // The engine's verdict (trace.weak_evidence): nothing in the scope matches well. An empty scope,
  // a lock that kept a better match out, and a query none of whose words the scope holds with
  // nothing found keep their own, more precise sentences.
  const w = trace.weak_evidence;
  if (weakEvidence(trace) && trace.admissible > 0 && !(locked && lockStoppedWidening(trace)) && (n > 0 || w.known_terms > 0)) {
    if (n === 0) return t('status.weakNone', { admissible });
    const ms = t.ms(trace.timings.total_ms);
    const outside = hits ? hits.filter((h) => h.leakage !== 'in_scope').length : 0;
    if (outside === n) return t('status.weakWidened', { n: t.num(n), ms });
    if (outside > 0) return t('status.weakSome', { outside: t.num(outside), inside: t.num(n - outside), ms });
    return t('status.weakOnly', { n: t.num(n), ms });
  }
  if (n === 0) return trace.admissible === 0 ? t('status.noneInScope') : t('status.noMatch', { admissible });
  if (trace.browse) return t('status.browse', { admissible });
  const ms = t.ms(trace.timings.total_ms);
  if (locked && lockStoppedWidening(trace)) {
    return t(weakEvidence(trace) ? 'status.weakLocked' : 'status.lockedBetterOutside', { n: t.num(n), admissible, ms });
  }
  const outside = hits ? hits.filter((h) => h.leakage !== 'in_scope').length : 0;
  if (outside === n && trace.admissible === 0) return t('status.widenedEmpty', { n: t.num(n), ms });
  if (outside === n) return t('status.widenedOnly', { admissible, n: t.num(n), ms });
  if (outside > 0) return t('status.widenedSome', { n: t.num(n), inside: t.num(n - outside), outside: t.num(outside), ms });
  return n === 1 ? t('status.result1', { admissible, ms }) : t('status.results', { n: t.num(n), admissible, ms });
}

/** The banner shown when relaxation widened the scope (null otherwise). */
export function widenedText(t, trace) {
  const r = trace.relaxation;
  if (!r || !r.widened) return null;
  const steps = r.steps.filter((s) => s.dropped.length > 0)
    .map((s) => t('widened.dropped', { fields: t.list(s.dropped.map((f) => (f === '*' ? '*' : t.field(f).toLowerCase()))) }));
  return t('widened.banner', { steps: t.list(steps) });
}

/**
 * "How this search worked": the gate plan, dense plan, relaxation trace, hints, notes.
 * `extra.pending`: manifest entries the vector path still waits for (the results will be updated);
 * `extra.upgraded`: those it waited for when these results were first shown (keywords only).
 */
export function whyQuery(t, trace, extra = {}) {
  const pending = extra.pending || [];
  const upgraded = extra.upgraded || [];
  const what = (entries) => t.list(entries.map((e) => entryLabel(t, e)));
  const dl = el('dl', { class: 'why-list' });
  row(dl, t('query.variant'), t('query.variantValue', { variant: trace.variant, gating: t(`gating.${trace.gating}`) }));
  row(dl, t('query.scope'), scopeLabel(t, trace.scope || {}));
  row(dl, t('query.shards'), trace.shards.length ? el('ul', { class: 'plain' }, trace.shards.map((s) => el('li', {}, el('code', {}, s)))) : '—');
  row(dl, t('query.admissible'), t('query.admissibleValue', { admissible: t.num(trace.admissible), pool: t.num(trace.pool_chunks) }));
  if (trace.browse) row(dl, t('query.terms'), t('query.browse'));
  else row(dl, t('query.terms'), trace.query_terms.join(', ') || '—');
  if (trace.expansion && trace.expansion.length) row(dl, t('query.expansion'), trace.expansion.join(', '));
  if (trace.hints_applied.length) row(dl, t('query.hints'), trace.hints_applied.join(', '));
  if (trace.conflicts.length) row(dl, t('query.conflicts'), trace.conflicts.join('; '));
  const plans = trace.dense_plans || [];
  row(dl, t('query.dense'), plans.length
    ? el('ul', { class: 'plain' }, plans.map((p, i) => el('li', {}, `${trace.shards[i] ? `${trace.shards[i]}: ` : ''}${t(`plan.${p}`)}`)))
    : pending.length ? el('span', { class: 'dense-pending' }, t('query.densePending', { what: what(pending) }))
      : t('query.denseNone', { reason: denseReason(t, trace) }));
  if (upgraded.length) row(dl, t('query.update'), el('span', { class: 'dense-upgraded' }, t('query.upgradedValue', { what: what(upgraded) })));
  row(dl, t('query.candidates'), t('query.candidatesValue', { lex: t.num(trace.lexical_candidates), dense: t.num(trace.dense_candidates) }));
  if (trace.duplicates && trace.duplicates.length) {
    row(dl, t('query.duplicates'), el('ul', { class: 'plain' }, trace.duplicates.map((d) => el('li', {}, `${d.id} ≈ ${d.of}`))));
  }
  const r = trace.relaxation;
  if (!r) row(dl, t('query.relax'), t('relax.none'));
  else {
    const steps = r.steps.map((s) => el('li', { class: 'relax-step', 'data-step': s.step },
      s.dropped.length
        ? t('relax.stepRan', {
          step: s.step, fields: t.list(s.dropped.map((f) => (f === '*' ? '*' : t.field(f).toLowerCase()))),
          added: t.num(s.added), scope: scopeLabel(t, s.scope || {}),
        })
        : t('relax.stepSkipped', { step: s.step, note: s.note.replace(/^(skipped|blocked|not run): /, '') })));
    row(dl, t('query.relax'), el('span', { class: 'relax-case', 'data-case': r.case }, t(`relax.${r.case}`)),
      steps.length ? el('ul', { class: 'plain' }, steps) : null,
      r.pending_shards.length ? el('p', {}, t('relax.pending', { files: r.pending_shards.join(', ') })) : null);
  }
  const w = trace.weak_evidence;
  if (w) {
    row(dl, t('query.evidence'), el('span', { class: 'weak-evidence', 'data-weak': String(w.weak) },
      t(w.weak ? 'evidence.weak' : 'evidence.good', {
        coverage: t.num(Math.round(w.coverage * 100)), matched: t.num(w.matched_terms), terms: t.num(w.query_terms),
      }), w.dropped > 0 ? ` ${t('evidence.dropped', { n: t.num(w.dropped) })}` : ''));
  }
  const tm = trace.timings;
  row(dl, t('query.timings'), t('query.timingsValue', { total: t.ms(tm.total_ms), gate: t.ms(tm.gate_ms), lex: t.ms(tm.lexical_ms), fusion: t.ms(tm.fusion_ms) }));
  if (trace.notes.length) row(dl, t('query.notes'), el('ul', { class: 'plain notes' }, trace.notes.map((n) => el('li', { lang: 'en' }, n))));
  return dl;
}

/**
 * A scope value the library does not have (`{field, value, valid}`, from the engine's details),
 * in words: a link's (left out of the scope) or, `locked`, the course author's.
 */
export function scopeErrorText(t, { field, value, valid }, { locked = false } = {}) {
  return t(locked ? 'error.scopeLocked' : 'error.scope', {
    field: t.field(field).toLowerCase(), value, valid: t.list(valid.map((v) => t.value(field, v))),
  });
}

/** The student-facing sentence for a ChsrError (see chsr-client.js CODES). */
export function errorText(t, err, { locked = false } = {}) {
  const what = entryLabel(t, err && err.entry);
  const detail = (err && err.message) || String(err);
  switch (err && err.code) {
    case 'engine': return t('error.engine', { detail });
    case 'manifest': return t('error.manifest', { detail });
    case 'offline': return t('error.offline', { what });
    case 'network': return navigator.onLine === false ? t('error.offline', { what }) : t('error.network', { what });
    case 'http': return t('error.http', { what, status: err.status });
    case 'interrupted': return t('error.interrupted', {
      what,
      received: err.received !== undefined ? t.size(err.received) : '?',
      expected: err.expected ? t.size(err.expected) : '?',
    });
    case 'integrity': return t('error.integrity', { what });
    case 'scope': {
      const d = (err && err.details) || {};
      if (d.field && d.value !== undefined && Array.isArray(d.valid)) return scopeErrorText(t, d, { locked });
      return t('error.search', { detail });
    }
    default: return t('error.search', { detail });
  }
}

/** Copies text to the clipboard; false when the browser refuses (the caller shows it instead). */
export async function copyText(text) {
  try {
    if (navigator.clipboard && window.isSecureContext) {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch {
    // Permission denied or no user activation: fall through.
  }
  return false;
}
