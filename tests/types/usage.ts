// The chsr JavaScript API as an integrator uses it, from TypeScript: compiled (never run) against
// www/chsr-client.d.ts and www/chsr-search.d.ts by `tsc --noEmit -p tests/types` (scripts/test).
// Every declared export and member is used here (tests/types/declarations.test.mjs checks that,
// and that the declarations match the modules' runtime exports): a declaration that is removed
// or changes shape breaks this file. "chsr" and "chsr/element" are the npm package's entry points
// (mapped to www/ in tsconfig.json).
import {
  CODES, ChsrClient, ChsrError, ENHANCEMENTS, engineError, initWasm, integrityFor, sha256Hex, wasmModuleFile, wasmModuleUrl, wasmSimd,
} from 'chsr';
import type {
  Adjustment, Context, EngineErrorCode, Enhancement, ErrorCode, ErrorDetails, Evidence, Expanded, Facet, Gating, Hit, Leakage,
  Manifest, ModelEntry, PartEntry, PartProgressEntry, TextEntry, ListedPart, PartList, PartListEntry, PartListProgressEntry, PostingsEntry, PostingsProgressEntry, TextProgressEntry, Progress, RelaxStep, Relaxation, Scope, ScopeCheck, ScopeField,
  SearchOptions, SearchResponse, Section, Segment, ShardEntry, TermFilter, Trace, Trigger, Understanding, Variant,
  WeakEvidence,
} from 'chsr';
import { ChsrSearchElement } from 'chsr/element';
import type { ChsrResultsDetail, ChsrSearchAttribute } from 'chsr/element';
import { ChsrIndex } from 'chsr/pkg/chsr.js';

// ------------------------------------------------------------------ the client

/** Every search option, at a valid value. */
const allOptions: Required<SearchOptions> = {
  k: 8,
  variant: 'F',
  dense: false,
  gating: 'gated',
  rrf_k: 60,
  window: 50,
  dense_weight: 0.1,
  section_weight: 0.8,
  section_idf: 0.75,
  section_doc: 0.5,
  snippet_chars: 280,
  trigger: 'evidence',
  k_min: 1,
  widen_ratio: 2,
  mix_ratio: 1.5,
  level_ratio: 4,
  allow_fallback: false,
  expand_chars: 0,
  text: true,
  exact_max: 2048,
  exact_fraction: 0.25,
  query_vector: [0.1, 0.2],
  vector_model: 'model-id',
};

/** Every scope field. */
const fullScope: Required<Scope> = {
  subject: 'physics',
  level: 'high_school',
  doc_type: 'exercise',
  source: 'phys-hs',
  chapter: 2,
  section: '2.1',
  section_key: 'phys-hs:2.1',
  topic: 'energy',
  year: 2024,
  exam: 'bac',
  paper: '1',
  question_number: 3,
  lang: 'en',
  lock: ['subject', 'level', 'chapter'],
};
const lockedFields: ScopeField[] = ['chapter', 'level'];
const lockedScope: Scope = { subject: 'physics', level: 'college', chapter: '5', lock: lockedFields };
const lockedAsText: Scope = { subject: 'physics', chapter: 5, lock: 'subject,chapter' };

const variants: Variant[] = ['A', 'B', 'B+', 'C', 'D', 'E', 'F'];
const gatings: Gating[] = ['gated', 'ungated', 'post_filtered'];
const triggers: Trigger[] = ['paper', 'evidence'];
const leakages: Leakage[] = ['in_scope', 'cross_topic', 'cross_level', 'fallback', 'ungated'];

function describeEntry(entry: ShardEntry | PartProgressEntry | TextProgressEntry | PartListProgressEntry | PostingsProgressEntry | ModelEntry): string {
  // A shard or a dense or text part has a subject; the model has an id and dims.
  if ('id' in entry) return `model ${entry.id} (${entry.dims} dims, ${entry.bytes} bytes, ${entry.sha256})`;
  if ('vectorsOf' in entry) return `vectors of ${entry.vectorsOf} (${entry.subject}/${entry.level}, ${entry.file})`;
  if ('postingsOf' in entry) {
    const part: PostingsProgressEntry = entry;
    const p: PostingsEntry = part;
    return `${part.kind} of ${part.postingsOf} terms ${p.first}+${p.terms} from ${p.first_term} (${part.subject}/${part.level}, ${p.file})`;
  }
  if ('textOf' in entry && 'first' in entry) {
    const part: TextProgressEntry = entry;
    return `${part.kind} of ${part.textOf} chunks ${part.first}+${part.chunks} (${part.subject}/${part.level}, ${part.file})`;
  }
  if ('textOf' in entry) {
    const list: PartListProgressEntry = entry;
    return `${list.kind} list of ${list.textOf}: ${list.text_parts} + ${list.postings_parts} parts, ${list.text_bytes + list.postings_bytes} bytes (${list.subject}/${list.level}, ${list.file})`;
  }
  const dense: PartEntry | undefined = entry.dense;
  const textList: PartListEntry | undefined = entry.part_list;
  if (textList) console.log(`${textList.file} ${textList.sha256} ${textList.bytes}: ${textList.text_parts} text parts, ${textList.text_bytes} bytes; ${textList.postings_parts} postings parts, ${textList.postings_bytes} bytes`);
  const facets: Record<string, Record<string, number>> = entry.facets;
  const terms: TermFilter | undefined = entry.terms;
  const filter = terms ? ` filter of ${terms.terms} terms: ${terms.bits} bits, ${terms.hashes} hashes, ${terms.filter.length} chars` : '';
  return `${entry.subject}/${entry.level}: ${entry.file} ${entry.chunks} chunks ${Object.keys(facets).length} facets${dense ? ` + ${dense.file} ${dense.sha256} ${dense.bytes}` : ''}${filter}`;
}

const progress: Progress = (entry, info) => {
  const what = describeEntry(entry);
  if (!info) console.log(`downloading ${what}`);
  else if ('retry' in info) console.log(`retrying ${what}: ${info.retry.code}`);
  else console.log(`${what}: ${info.received}/${info.expected}`);
};

function describeError(e: unknown): string {
  if (!(e instanceof ChsrError)) return String(e);
  const code: ErrorCode = e.code;
  const known: boolean = CODES.includes(code);
  const where = [e.url, e.entry && describeEntry(e.entry), e.status, e.received, e.expected, e.attempts]
    .filter((x) => x !== undefined).join(' ');
  // An engine error keeps the engine's code and details: a scope error names the valid values.
  const engine: EngineErrorCode | undefined = e.engineCode;
  const details: ErrorDetails | undefined = e.details;
  if (engine === 'scope.unknown_value' && details) {
    const valid: string[] = details.valid ?? [];
    return `${details.field} ${details.value} is not one of ${valid.join(', ')}`;
  }
  if (engine === 'scope.bad_value' && details) return `${details.field}: ${details.reason}`;
  switch (code) {
    case 'engine': case 'manifest': case 'network': case 'offline': case 'http':
    case 'interrupted': case 'integrity': case 'scope': case 'search':
      return `${e.name} ${code} (${known}): ${e.message} ${where}`;
    default: {
      const never: never = code;
      return never;
    }
  }
}

function readHit(hit: Hit): string {
  const id: string = hit.id;
  const rank: number = hit.rank;
  const score: number = hit.score + hit.fused_score;
  const place: string = [hit.subject, hit.level, hit.doc_type, hit.lang].join('/');
  const optional: Array<string | undefined> = [
    hit.source, hit.chapter, hit.chapter_title, hit.section, hit.section_title, hit.section_key,
    hit.question_number, hit.year, hit.exam, hit.paper, hit.label, hit.subsection, hit.url, hit.title,
  ];
  const inScope: boolean = hit.in_scope;
  const leakage: Leakage = hit.leakage;
  const ranks: Array<number | undefined> = [hit.bm25_rank, hit.dense_rank];
  const adjustments: Adjustment[] = hit.adjustments;
  const why = adjustments.map((a) => `${a.reason} ${a.delta}`).join(', ');
  // Snippet pieces go in as text, matches marked.
  const snippet = hit.snippet.map((s: Segment) => (s.hit ? `[${s.text}]` : s.text)).join('');
  const text: string = hit.text;
  const expanded: Expanded[] = hit.expanded ?? [];
  const more = expanded.map(readExpanded).join('; ');
  const withheld: number = hit.withheld ?? 0;
  return `${rank}. ${id} ${score} ${place} ${optional.join(' ')} ${inScope} ${leakages.includes(leakage)} ${ranks} ${why} ${snippet} ${text} ${more} ${withheld}`;
}

/** A section chunk carries its scope fields (what a lock is checked against). */
function readExpanded(x: Expanded): string {
  const place: string = [x.subject, x.level, x.doc_type, x.lang].join('/');
  const optional: Array<string | undefined> = [x.chapter, x.section, x.year, x.paper];
  return `${x.id} ${place} ${optional.join(' ')} ${x.text.length}`;
}

function readRelaxation(r: Relaxation): string {
  const trigger: Trigger = r.trigger;
  const steps = r.steps.map((s: RelaxStep) => `${s.step} dropped ${s.dropped.join('+')} scope ${JSON.stringify(s.scope)} added ${s.added}: ${s.note}${s.blocked_by_lock ? " (a lock kept it)" : ""}`);
  const ev: Evidence | undefined = r.evidence;
  const evidence = ev ? [ev.ratio, ev.mix_ratio, ev.level_ratio, ev.label, ev.in_scope, ev.cross_topic, ev.level, ev.cross_level] : [];
  return `${trigger} ${r.case} ${r.widened} ${steps.join('; ')} pending ${r.pending_shards.join(',')} ${evidence}`;
}

function readTrace(trace: Trace): string {
  const u: Understanding | undefined = trace.understanding;
  const understood = u ? [u.lang, JSON.stringify(u.hints), u.wants_doc_type ?? '-', u.definition, u.label ?? '-', u.short] : [];
  const gating: Gating = trace.gating;
  const requested: Scope = trace.requested_scope;
  const applied: Scope = trace.scope;
  const counts: number[] = [trace.pool_chunks, trace.admissible, trace.max_query_terms, trace.lexical_candidates, trace.dense_candidates, trace.post_filtered_out];
  const flags: boolean[] = [trace.truncated, trace.browse, trace.dense_path];
  const lists: string[][] = [trace.shards, trace.query_terms, trace.hints_applied, trace.conflicts, trace.expansion, trace.notes];
  const plans = trace.dense_plans.map((p) => (p === 'exact' || p === 'graph' || p === 'graph_then_exact' ? p : p satisfies never));
  const dups = trace.duplicates.map((d) => `${d.id}≈${d.of} (${d.similarity})`);
  const { gate_ms, lexical_ms, embed_ms, dense_ms, fusion_ms, total_ms } = trace.timings;
  const relax = trace.relaxation ? readRelaxation(trace.relaxation) : `no relaxation, ${trace.withheld ?? 0} withheld`;
  const w: WeakEvidence | undefined = trace.weak_evidence;
  const weak = w ? `${w.weak ? 'weak' : 'good'} (${w.reason ?? '-'}): ${w.coverage} ${w.matched_terms}/${w.query_terms} known ${w.known_terms} dropped ${w.dropped}` : '';
  return [trace.variant, gatings.includes(gating), JSON.stringify(requested), JSON.stringify(applied), counts, flags, lists,
    plans, dups, gate_ms + lexical_ms + embed_ms + dense_ms + fusion_ms, total_ms, understood, relax, weak].join(' ');
}

function readManifest(m: Manifest): string {
  const format: 'chsr-manifest' = m.format;
  const versions = [m.format_version, m.analyzer_version, m.chunks];
  const shards = m.shards.map(describeEntry);
  const model: ModelEntry | undefined = m.model;
  const vectors = m.query_vectors ? `${m.query_vectors.model_id} ${m.query_vectors.dims}` : 'no query vectors';
  return `${format} ${versions} ${m.corpus_sha256} ${shards.join('; ')} ${model ? describeEntry(model) : 'no model'} ${vectors}`;
}

async function integrate(): Promise<void> {
  // The Wasm module, checked against the page's import map when it lists it.
  const integrity: string | null = integrityFor(new URL('pkg/chsr_bg.wasm', document.baseURI).href);
  await initWasm(integrity ? undefined : new URL('https://example.org/chsr/pkg/chsr_bg.wasm'));
  await initWasm('https://example.org/chsr/pkg/chsr_bg.wasm');
  const simd: boolean = wasmSimd();
  const file: 'chsr_lexical_bg.wasm' | 'chsr_bg.wasm' | 'chsr_scalar_bg.wasm' = wasmModuleFile({ dense: true });
  await initWasm(new URL(`pkg/${file}`, document.baseURI));
  await initWasm(undefined, { dense: true });
  if (simd && file !== 'chsr_bg.wasm') throw new Error('a runtime with SIMD loads the SIMD module');
  if (wasmModuleFile() !== 'chsr_lexical_bg.wasm') throw new Error('without the dense path, the lexical module');
  const running: string | null = wasmModuleUrl();
  console.log(running);

  const client: ChsrClient = await ChsrClient.open('https://example.org/chsr/shards/manifest.json', { wasmUrl: 'https://example.org/chsr/pkg/chsr_bg.wasm', dense: true });
  const index: ChsrIndex = client.index;
  const base: string = client.baseUrl;
  // Hooks: the verified bytes (for an offline cache), the enhancement downloads.
  client.onShardBytes = (entry, bytes: Uint8Array) => console.log(describeEntry(entry), bytes.byteLength);
  client.onShardBytes = null;
  client.savedResponse = (url: string) => caches.match(url).then((res) => res ?? null);
  client.savedResponse = null;
  client.onModelProgress = progress;
  client.onModelProgress = null;

  const manifest: Manifest = client.manifest();
  console.log(readManifest(manifest), base);
  const scope: Scope = { subject: 'physics', level: 'high_school', chapter: 2 };
  const options: SearchOptions = { k: 5, variant: 'E', text: false, expand_chars: 2000 };
  const needed: ShardEntry[] = client.shardsNeeded(scope, options);
  const used: ShardEntry[] = client.shardsFor(scope, options);
  const couldMatch: ShardEntry[] = client.shardsFor(scope, options, 'specific heat');
  console.log(couldMatch.length);
  for (const entry of [...needed, ...used]) {
    const files: string[] = ChsrClient.shardFiles(entry);
    const withoutText: string[] = ChsrClient.shardFiles(entry, { text: false });
    const parts: string[] = await client.partFiles(entry);
    const listed: PartList = { format: 'chsr-part-list', format_version: 14, subject: entry.subject, level: entry.level, shard_sha256: entry.sha256, depth: 0, roots: '0'.repeat(32), stem: 'chemistry--college', key: '0'.repeat(16), text: { bytes: [], chunks: [] }, postings: { bytes: [], terms: [], first_term: [] } };
    const none: string[] = await client.partFiles(entry, listed);
    const named: string[] = ChsrClient.partListFiles(listed);
    console.log(files.map((f) => client.fileUrl(f)), withoutText.length, parts.length, none.length, named.length);
  }
  await client.ensureLoaded(scope, options, progress);
  await client.loadFiles(needed.map((e) => e.file), progress);
  const loaded: ShardEntry[] = client.loadedShards();

  let resp: SearchResponse;
  try {
    resp = await client.search('specific heat', scope, options, progress, { widen: true, enhanced: false });
    resp = await client.search('specific heat', scope);
    resp = await client.search('specific heat', fullScope, allOptions, undefined, { widen: false });
  } catch (e) {
    console.log(describeError(e));
    return;
  }
  const pendingText: string[] = resp.pending_text;
  console.log(pendingText.length);
  for (const hit of resp.results) console.log(readHit(hit));
  console.log(readTrace(resp.trace), loaded.length);

  // The vector path comes after the first results: load what it needs, then search again.
  const pending: Enhancement[] = resp.pending ?? [];
  for (const p of pending) {
    if (p.kind === 'dense') console.log(describeEntry(p.entry));
    else console.log(p.entry.id, p.entry.dims);
  }
  if (pending.length > 0 && (await client.enhance(progress))) {
    const again: SearchResponse = client.runSearch('specific heat', scope, options);
    console.log(again.results.length, again.pending === undefined);
  }
  const stillPending: Enhancement[] = client.enhancementsPending();
  if (client.modelError || client.denseError) {
    console.log(describeError(client.modelError ?? client.denseError), client.modelEntry?.file);
    const retried: boolean = await client.retryEnhancements(progress);
    const model: boolean = await client.retryModel();
    console.log(retried, model, stillPending.length);
  }
  const model: ModelEntry | null = await client.loadModel();
  const prefetched: number = await client.prefetchText();
  const parts: TextProgressEntry[] = client.textEntries(new Set(resp.pending_text));
  for (const part of parts) await client.loadText(part, progress);
  for (const shard of client.loadedShards()) await client.loadPartList(shard, null, progress);
  await client.loadPostingsFor('specific heat', options, progress);
  const postings: PostingsProgressEntry[] = client.postingsEntries(new Set(['x.chsri']));
  for (const part of postings) await client.loadPostings(part, progress);
  const textParts: TextEntry[] = parts;
  const listedParts: ListedPart[] = [...textParts, ...postings];
  console.log(listedParts.map((p) => `${p.file} ${p.bytes}`).join(','));
  console.log(textParts.map((t) => `${t.file} ${t.first} ${t.chunks} ${t.bytes}`).join(','));
  console.log(prefetched, parts.length);
  console.log(model?.id);

  // Context for an assistant, after a search with the same arguments.
  const context: string = client.toContext('specific heat', scope, options);
  console.log(context.split('\n').length);

  // Rust decides, JS renders: pickers, scope checks, a section, context for the results shown.
  const facets: Facet[] = client.facets(lockedScope);
  for (const f of facets) {
    if (f.locked) continue; // no picker for a locked field
    const choices = f.values.map(({ value, count }) => `${value} (${count})`);
    console.log(f.field satisfies Facet['field'], f.selected ?? '-', f.exact, choices.join(', '));
  }
  const check: ScopeCheck = client.validateScope(lockedAsText);
  if (!check.ok) {
    const code: EngineErrorCode = check.code;
    console.log(code, check.message, check.details.field, check.details.value, (check.details.valid ?? []).join(', '));
  }
  const first = resp.results[0];
  const section: Section | null = first ? client.section(first.id, scope) : null;
  if (section) console.log(section.id, section.chunks.map(readExpanded).join('\n'), section.withheld, section.pending_text.join(","));
  const packed: Context = client.contextFor(resp.results.map((h) => h.id), scope);
  console.log(packed.context.length, packed.withheld);

  // The enhancement kinds, driven by hand (what `enhance` does).
  for (const kind of ENHANCEMENTS) {
    for (const entry of kind.needed(index, client)) {
      const bytes = new Uint8Array(await (await fetch(client.fileUrl(entry.file))).arrayBuffer());
      const digest: string | null = await sha256Hex(bytes);
      kind.load(index, entry, bytes, digest);
      kind.load(index, entry, bytes);
      console.log(kind.kind satisfies 'dense' | 'model');
    }
  }

  // A client over an index built by hand (the manifest text from anywhere).
  const text = await (await fetch('https://example.org/chsr/shards/manifest.json')).text();
  const own = new ChsrClient(ChsrIndex.fromManifest(text), 'https://example.org/chsr/shards/');
  console.log(own.loadedShards().length);

  // Errors: every failure is a ChsrError with a code.
  const err = new ChsrError('http', 'HTTP 404 for x', { url: 'https://example.org/x', status: 404 });
  const wrapped: ChsrError = engineError(new Error('unknown scope field "colour"'));
  const withCause = new ChsrError('integrity', 'bad bytes', { cause: wrapped, received: 10, expected: 20 });
  console.log(describeError(err), describeError(wrapped), describeError(withCause), withCause.cause, describeError(engineError('anything')));
  const codes: ErrorCode[] = CODES;
  console.log(codes.join(', '), variants, triggers);
}

// ------------------------------------------------------------------ the element

function embed(): void {
  const box = document.createElement('chsr-search');
  const attributes: Record<ChsrSearchAttribute, string> = {
    manifest: 'https://example.org/chsr/shards/manifest.json',
    lang: 'fr',
    k: '5',
    dense: '',
    'link-target': '_self',
    'sync-url': '',
    subject: 'physics',
    level: 'high_school',
    'doc-type': 'exercise',
    chapter: '2',
    year: '2024',
    paper: '1',
    exam: 'bac',
    'content-lang': 'fr',
  };
  for (const [name, value] of Object.entries(attributes)) box.setAttribute(name, value);
  document.body.append(box);
  const el: ChsrSearchElement | null = document.querySelector('chsr-search');
  if (el instanceof ChsrSearchElement) {
    const lock: Scope = el.lock;
    const searched: Scope = el.scope;
    const k: number = el.k;
    const observed: ChsrSearchAttribute[] = ChsrSearchElement.observedAttributes;
    console.log(lock.subject, searched.lock, k, observed.length, el.dataset.state);
  }
  box.addEventListener('chsr-results', (ev) => {
    const detail: ChsrResultsDetail = ev.detail;
    const searched: Scope = detail.scope;
    const results: Hit[] = detail.results;
    const trace: Trace = detail.trace;
    console.log(detail.query, searched.subject, detail.shown, results.every((h) => h.chapter === searched.chapter), trace.withheld);
  });
  document.addEventListener('chsr-results', (ev) => console.log(ev.detail.shown));
  customElements.whenDefined('chsr-search').then(() => console.log(customElements.get('chsr-search') === ChsrSearchElement));
}

void integrate();
embed();
