// The study page: scope pickers from the manifest facets, search, result cards.
// Corpus text is only ever inserted with textContent / text nodes, never as HTML.
import { ChsrClient } from './chsr-client.js';

const $ = (id) => document.getElementById(id);
const FACETS = ['doc_type', 'chapter', 'year', 'paper'];
const LABELS = {
  doc_type: {
    textbook_section: 'Textbook', exercise: 'Exercise', solution: 'Answer / mark scheme',
    worked_example: 'Worked example', summary: 'Summary', glossary: 'Glossary', table: 'Table',
    key_equations: 'Key equations', past_paper_question: 'Past paper question',
  },
};
let client = null;
let manifest = null;

function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'class') e.className = v;
    else e.setAttribute(k, v);
  }
  for (const c of children) e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return e;
}

function setOptions(select, values, anyLabel, current) {
  select.replaceChildren(el('option', { value: '' }, anyLabel));
  for (const [value, label] of values) select.append(el('option', { value }, label));
  select.value = values.some(([v]) => v === current) ? current : '';
}

function naturalSort(a, b) {
  return a.localeCompare(b, undefined, { numeric: true });
}

function shardsInScope() {
  const subject = $('subject').value;
  const level = $('level').value;
  return manifest.shards.filter((s) => (!subject || s.subject === subject) && (!level || s.level === level));
}

function refreshPickers() {
  const subject = $('subject').value;
  const levels = [...new Set(manifest.shards.filter((s) => !subject || s.subject === subject).map((s) => s.level))].sort();
  setOptions($('level'), levels.map((l) => [l, l]), 'Any level', $('level').value);
  const shards = shardsInScope();
  for (const f of FACETS) {
    const counts = new Map();
    for (const s of shards) for (const [v, n] of Object.entries(s.facets[f] || {})) counts.set(v, (counts.get(v) || 0) + n);
    const values = [...counts.keys()].sort(naturalSort).map((v) => [v, `${(LABELS[f] && LABELS[f][v]) || v} (${counts.get(v)})`]);
    setOptions($(f), values, 'Any', $(f).value);
    $(f).closest('label').hidden = values.length === 0;
  }
}

function currentScope() {
  const scope = {};
  for (const f of ['subject', 'level', ...FACETS]) if ($(f).value) scope[f] = $(f).value;
  return scope;
}

function card(hit) {
  const badges = el('p', { class: 'badges' },
    el('span', { class: 'badge subject' }, hit.subject),
    el('span', { class: 'badge level' }, hit.level),
    el('span', { class: 'badge doctype' }, (LABELS.doc_type[hit.doc_type]) || hit.doc_type));
  if (hit.chapter) badges.append(el('span', { class: 'badge' }, `Chapter ${hit.chapter}`));
  if (hit.question_number) badges.append(el('span', { class: 'badge' }, `Q${hit.question_number}`));
  if (hit.year) badges.append(el('span', { class: 'badge' }, hit.year));
  if (hit.paper) badges.append(el('span', { class: 'badge' }, hit.paper));
  const title = [hit.chapter_title, hit.section_title].filter(Boolean).join(' › ') || hit.label || hit.id;
  const snippet = el('p', { class: 'snippet' });
  for (const seg of hit.snippet) snippet.append(seg.hit ? el('mark', {}, seg.text) : document.createTextNode(seg.text));
  return el('li', { class: 'card', 'data-id': hit.id, 'data-subject': hit.subject, 'data-level': hit.level },
    el('h2', { class: 'card-title' }, title), badges, snippet,
    el('p', { class: 'source' }, `${hit.source || ''} · ${hit.id}`));
}

let seq = 0;
async function runSearch() {
  if (!client) return;
  const my = ++seq;
  const query = $('q').value;
  const scope = currentScope();
  const results = $('results');
  try {
    const { results: hits, trace } = await client.search(query, scope, { k: 10 }, (entry) => {
      if (my === seq) $('status').textContent = `Downloading ${entry.subject} · ${entry.level} (${Math.round(entry.bytes / 1024)} kB)…`;
      document.body.classList.add('loading');
    });
    if (my !== seq) return;
    results.replaceChildren(...hits.map(card));
    if (hits.length === 0) {
      const why = trace.admissible === 0
        ? 'Nothing in the library matches this scope: widen it (for example, choose "Any" for chapter or year).'
        : `No document in your scope (${trace.admissible} documents) contains these words. Try other words.`;
      $('status').textContent = why;
    } else {
      const where = trace.browse ? 'Browsing' : `${hits.length} results`;
      $('status').textContent = `${where} from ${trace.admissible} documents in scope · ${trace.timings.total_ms.toFixed(1)} ms`;
    }
  } catch (e) {
    if (my !== seq) return;
    results.replaceChildren();
    $('status').textContent = `Error: ${e.message || e}`;
  } finally {
    document.body.classList.remove('loading');
    window.__chsrSearches = (window.__chsrSearches || 0) + 1;
  }
}

async function main() {
  try {
    client = await ChsrClient.open('shards/manifest.json');
  } catch (e) {
    $('status').textContent = `Could not start the search engine: ${e.message || e}`;
    return;
  }
  manifest = client.manifest();
  const subjects = [...new Set(manifest.shards.map((s) => s.subject))].sort();
  setOptions($('subject'), subjects.map((s) => [s, s]), 'Any subject', '');
  refreshPickers();
  $('status').textContent = `Ready: ${manifest.chunks} documents in ${manifest.shards.length} subject-level shards. Pick your scope and search.`;
  $('search-form').addEventListener('submit', (ev) => { ev.preventDefault(); runSearch(); });
  for (const id of ['subject', 'level', ...FACETS]) {
    $(id).addEventListener('change', () => { refreshPickers(); if ($('q').value.trim()) runSearch(); });
  }
  document.body.dataset.ready = 'true';
}

main();
