// The TypeScript declarations (www/chsr-client.d.ts, www/chsr-search.d.ts) against the real
// modules, in Node (scripts/test runs it after `tsc --noEmit -p tests/types`):
//   * every value the .d.ts export exists in the module's runtime exports with the declared kind
//     (function, class, const), and every runtime export is declared;
//   * every method, accessor and property declared on a class exists at runtime (prototype,
//     statics, a constructed instance), takes no more parameters than declared, and every public
//     one at runtime is declared (internals are listed below, by name);
//   * tests/types/usage.ts names every declared export, member and field;
//   * the JSON the engine really returns (a served copy of www/: the manifest, searches that
//     widen, expand, browse, cut a long query, with the dense path, the progress callbacks) is
//     checked by the TypeScript compiler against the declared interfaces (`satisfies`, strict:
//     a missing field, an undeclared one, a null where none is declared all fail), and the
//     scope fields and options the engine accepts are those declared.
// Run: node --test tests/types/declarations.test.mjs (needs www/pkg and www/shards: scripts/build-site).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve } from '../browser/harness.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const HERE = fileURLToPath(new URL('.', import.meta.url));
const ts = createRequire(`${ROOT}tests/browser/package.json`)('typescript');

// Runtime members that are not part of the API (called by the class itself or the browser).
const INTERNAL = {
  ChsrClient: {
    proto: ['loadEnhancement', 'loadEntry', 'loadNamed', 'inBackground', 'wakeBackground'],
    instance: ['pending', 'enhanceErrors', 'shardLoads', 'foreground', 'background', 'backgroundWaiting'],
    statics: [],
  },
  ChsrError: { proto: [], instance: ['name', 'message', 'stack', 'cause'], statics: [] },
  ChsrSearchElement: {
    proto: ['connectedCallback', 'attributeChangedCallback', 'build', 'retranslate', 'checkQueryLength', 'setStatus', 'setError', 'start',
      'readLink', 'linkFields', 'setLinkNotice', 'linkLater', 'pickersInput', 'renderPickers', 'currentChoice', 'search', 'clearResults', 'render', 'copyContext'],
    instance: [],
    statics: [],
  },
};

// ------------------------------------------------------------------ reading the declarations

const nameOf = (n) => (n && (ts.isIdentifier(n) || ts.isStringLiteral(n) || ts.isPrivateIdentifier(n)) ? n.text : null);
const has = (node, kind) => (ts.getModifiers?.(node) ?? node.modifiers ?? []).some((m) => m.kind === kind);

/** The exports of a .d.ts: {values: Map name → {kind, params?, members?}, types: Set, fields: Set}. */
function readDeclarations(file) {
  const src = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022, true);
  const values = new Map();
  const types = new Set();
  const fields = new Set(); // every property and method name declared anywhere (types included)
  const walk = (n) => {
    if ((ts.isPropertySignature(n) || ts.isMethodSignature(n) || ts.isPropertyDeclaration(n) || ts.isMethodDeclaration(n)
      || ts.isGetAccessorDeclaration(n)) && nameOf(n.name)) fields.add(nameOf(n.name));
    ts.forEachChild(n, walk);
  };
  for (const st of src.statements) {
    if (ts.isModuleDeclaration(st)) { walk(st); continue; } // declare global: interface maps
    walk(st);
    if (!has(st, ts.SyntaxKind.ExportKeyword)) continue;
    if (ts.isInterfaceDeclaration(st) || ts.isTypeAliasDeclaration(st)) {
      types.add(st.name.text);
    } else if (ts.isFunctionDeclaration(st)) {
      const prev = values.get(st.name.text);
      values.set(st.name.text, { kind: 'function', params: Math.max(prev ? prev.params : 0, st.parameters.length) });
    } else if (ts.isVariableStatement(st)) {
      for (const d of st.declarationList.declarations) values.set(d.name.text, { kind: 'const' });
    } else if (ts.isClassDeclaration(st)) {
      const members = [];
      for (const m of st.members) {
        const isStatic = has(m, ts.SyntaxKind.StaticKeyword);
        if (ts.isConstructorDeclaration(m)) members.push({ name: 'constructor', what: 'constructor', params: m.parameters.length });
        else if (ts.isMethodDeclaration(m)) members.push({ name: nameOf(m.name), what: 'method', isStatic, params: m.parameters.length });
        else if (ts.isPropertyDeclaration(m)) {
          members.push({ name: nameOf(m.name), what: 'property', isStatic, optional: Boolean(m.questionToken), readonly: has(m, ts.SyntaxKind.ReadonlyKeyword) });
        } else if (ts.isGetAccessorDeclaration(m)) members.push({ name: nameOf(m.name), what: 'property', isStatic, optional: false, readonly: true });
      }
      values.set(st.name.text, { kind: 'class', members });
    } else {
      assert.fail(`${file}: an export the test does not know how to check: ${ts.SyntaxKind[st.kind]}`);
    }
  }
  return { values, types, fields, src };
}

// ------------------------------------------------------------------ the runtime modules

/** Imports the two modules in Node: the element module needs HTMLElement and customElements. */
async function runtimeModules() {
  globalThis.HTMLElement ??= class HTMLElement {};
  globalThis.customElements ??= { get: () => undefined, define: () => {} };
  const client = await import(`${ROOT}www/chsr-client.js`);
  const element = await import(`${ROOT}www/chsr-search.js`);
  return { client, element };
}

const isClass = (f) => typeof f === 'function' && /^class[\s{]/.test(Function.prototype.toString.call(f));
const kindOf = (v) => (isClass(v) ? 'class' : typeof v === 'function' ? 'function' : 'const');

function findDescriptor(proto, name) {
  for (let p = proto; p && p !== Object.prototype && p !== Error.prototype && p !== globalThis.HTMLElement.prototype; p = Object.getPrototypeOf(p)) {
    const d = Object.getOwnPropertyDescriptor(p, name);
    if (d) return d;
  }
  return undefined;
}

/** An instance to look for declared properties on (constructors that only assign fields). */
function instanceOf(name, Cls) {
  if (name === 'ChsrClient') return new Cls({}, 'http://example.org/shards/');
  if (name === 'ChsrError') return new Cls('search', 'a message');
  return Object.create(Cls.prototype); // ChsrSearchElement: its constructor needs a real element
}

function compareClass(problems, name, decl, Cls) {
  const internal = INTERNAL[name] || { proto: [], instance: [], statics: [] };
  const inst = instanceOf(name, Cls);
  const declared = new Set(decl.members.map((m) => `${m.isStatic ? 'static ' : ''}${m.name}`));
  for (const m of decl.members) {
    const where = `${name}${m.isStatic ? '.' : '#'}${m.name}`;
    if (m.what === 'constructor') {
      if (Cls.length > m.params) problems.push(`${name}: the constructor takes ${Cls.length} parameters, ${m.params} declared`);
    } else if (m.what === 'method') {
      const fn = m.isStatic ? Cls[m.name] : findDescriptor(Cls.prototype, m.name)?.value;
      if (typeof fn !== 'function') problems.push(`${where}: declared as a method, not a function at runtime`);
      else if (fn.length > m.params) problems.push(`${where}: takes ${fn.length} parameters at runtime, ${m.params} declared`);
    } else if (m.isStatic) {
      if (!(m.name in Cls)) problems.push(`${where}: declared static property missing at runtime`);
      else if (typeof Cls[m.name] === 'function') problems.push(`${where}: declared as a property, a function at runtime`);
    } else {
      const d = findDescriptor(Cls.prototype, m.name);
      if (d && typeof d.value === 'function') problems.push(`${where}: declared as a property, a method at runtime`);
      else if (d && d.get && !d.set && !m.readonly) problems.push(`${where}: a getter without setter at runtime, declared writable (add readonly)`);
      else if (!d && !m.optional && !Object.prototype.hasOwnProperty.call(inst, m.name)) problems.push(`${where}: declared property missing at runtime`);
    }
  }
  // The other way: what the runtime class offers is declared, or known internal.
  for (const key of Object.getOwnPropertyNames(Cls.prototype)) {
    if (key === 'constructor' || declared.has(key)) continue;
    if (!internal.proto.includes(key)) problems.push(`${name}#${key}: exists at runtime, not declared in the .d.ts (declare it, or list it as internal in this test)`);
  }
  for (const key of Object.getOwnPropertyNames(Cls)) {
    if (['length', 'name', 'prototype'].includes(key) || declared.has(`static ${key}`)) continue;
    if (!internal.statics.includes(key)) problems.push(`${name}.${key}: static at runtime, not declared in the .d.ts`);
  }
  for (const key of Object.getOwnPropertyNames(inst)) {
    if (declared.has(key)) continue;
    if (!internal.instance.includes(key)) problems.push(`${name}: instance property ${key} exists at runtime, not declared in the .d.ts`);
  }
  for (const key of internal.proto) if (!findDescriptor(Cls.prototype, key)) problems.push(`${name}#${key}: listed as internal in this test, gone at runtime (remove it from INTERNAL)`);
}

function compareModule(label, decls, mod) {
  const problems = [];
  for (const [name, d] of decls.values) {
    if (!(name in mod)) { problems.push(`${label}: ${name} is declared, not exported at runtime`); continue; }
    const kind = kindOf(mod[name]);
    if (kind !== d.kind) { problems.push(`${label}: ${name} is declared as a ${d.kind}, a ${kind} at runtime`); continue; }
    if (d.kind === 'function' && mod[name].length > d.params) problems.push(`${label}: ${name} takes ${mod[name].length} parameters at runtime, ${d.params} declared`);
    if (d.kind === 'class') compareClass(problems, name, d, mod[name]);
  }
  for (const name of Object.keys(mod)) {
    if (!decls.values.has(name)) problems.push(`${label}: ${name} is exported at runtime, not declared in the .d.ts`);
  }
  return problems;
}

const CLIENT_DTS = `${ROOT}www/chsr-client.d.ts`;
const ELEMENT_DTS = `${ROOT}www/chsr-search.d.ts`;

test('the .d.ts declare exactly the runtime exports, with their kinds and class members', async () => {
  const { client, element } = await runtimeModules();
  const problems = [
    ...compareModule('chsr-client', readDeclarations(CLIENT_DTS), client),
    ...compareModule('chsr-search', readDeclarations(ELEMENT_DTS), element),
  ];
  assert.deepEqual(problems, []);
});

test('the element attributes declared are those the element reads', async () => {
  const { element } = await runtimeModules();
  const { src } = readDeclarations(ELEMENT_DTS);
  const alias = src.statements.find((s) => ts.isTypeAliasDeclaration(s) && s.name.text === 'ChsrSearchAttribute');
  const declared = alias.type.types.map((t) => t.literal.text).sort();
  const observed = element.ChsrSearchElement.observedAttributes;
  const source = readFileSync(`${ROOT}www/chsr-search.js`, 'utf8');
  // Observed attributes, plus those read when rendering or searching (getAttribute('…'),
  // hasAttribute('…')).
  const read = [...source.matchAll(/(?:get|has)Attribute\('([a-z-]+)'\)/g)].map((m) => m[1]);
  assert.deepEqual(declared, [...new Set([...observed, ...read])].sort());
  assert.ok(observed.every((a) => declared.includes(a)));
});

test('tests/types/usage.ts uses every declared export, member and field', () => {
  const usage = ts.createSourceFile('usage.ts', readFileSync(`${HERE}usage.ts`, 'utf8'), ts.ScriptTarget.ES2022, true);
  const seen = new Set();
  const walk = (n) => {
    if (ts.isIdentifier(n) || ts.isStringLiteral(n)) seen.add(n.text);
    ts.forEachChild(n, walk);
  };
  walk(usage);
  const missing = [];
  for (const file of [CLIENT_DTS, ELEMENT_DTS]) {
    const d = readDeclarations(file);
    const names = [...d.values.keys(), ...d.types, ...d.fields,
      ...[...d.values.values()].flatMap((v) => (v.members || []).map((m) => m.name).filter((n) => n !== 'constructor'))];
    for (const n of names) if (!seen.has(n)) missing.push(`${file.slice(ROOT.length)}: ${n}`);
  }
  assert.deepEqual(missing, [], 'usage.ts does not use these declarations');
});

// ------------------------------------------------------------------ real values, checked by tsc

let server;
before(async () => { server = await serve(); });
after(async () => { await server?.stop(); });

/** A client in Node over the served demo site (a stand-in `document` for the base URL). */
async function openClient() {
  globalThis.document ??= { baseURI: server.url, querySelectorAll: () => [] };
  const { client: mod } = await runtimeModules();
  const client = await mod.ChsrClient.open(`${server.url}shards/manifest.json`, { wasmUrl: `${server.url}pkg/chsr_bg.wasm` });
  return { mod, client };
}

/** Type-checks `body` (TypeScript) with tests/types/tsconfig.json's options; returns the diagnostics. */
function typeCheck(body) {
  const dir = mkdtempSync(join(tmpdir(), 'chsr-types-'));
  try {
    const file = join(dir, 'values.ts');
    writeFileSync(file, body);
    const config = ts.getParsedCommandLineOfConfigFile(`${HERE}tsconfig.json`, {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d) => assert.fail(String(d.messageText)) });
    const program = ts.createProgram([file], config.options);
    return ts.getPreEmitDiagnostics(program).map((d) => {
      const msg = ts.flattenDiagnosticMessageText(d.messageText, '\n');
      if (!d.file) return msg;
      const { line } = d.file.getLineAndCharacterOfPosition(d.start);
      const text = d.file.text.split('\n')[line] || '';
      return `${d.file.fileName === file ? 'values.ts' : d.file.fileName}:${line + 1}: ${msg}\n    ${text.trim().slice(0, 300)}`;
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const literal = (v) => JSON.stringify(v, null, 1);

test('what the engine returns satisfies the declared types (tsc over real values)', { timeout: 180_000 }, async () => {
  const { mod, client } = await openClient();
  // The progress calls, one of each (before the download; bytes received) per file.
  const calls = new Map();
  const progress = (entry, info) => {
    const key = `${entry.file} ${info ? Object.keys(info) : ''}`;
    if (!calls.has(key) && !(info && info.retry)) calls.set(key, info ? { entry, info } : { entry });
  };
  const hs = { subject: 'physics', level: 'high_school' };
  const responses = [];
  const needed = client.shardsNeeded(hs, { k: 5 });
  // The first search with the dense path asked for (F is lexical-only by default): lexical while
  // the dense parts and the model are pending, with the progress calls.
  responses.push(await client.search('specific heat capacity of water', hs, { k: 5, text: false, dense: true }, progress));
  const pending = responses[0].pending;
  assert.ok(pending.length > 0, 'the first search leaves enhancement files pending');
  assert.equal(await client.enhance(progress), true);
  // With the dense path; expansion; a chapter scope that widens (W1); browsing; a cut query.
  responses.push(await client.search('what is kinetic energy', hs, { k: 5, expand_chars: 1500, dense: true }, progress, { enhanced: true }));
  responses.push(await client.search('force', { ...hs, doc_type: 'solution', chapter: '3' }, { k: 5, text: false }));
  responses.push(await client.search('', { ...hs, chapter: 3 }, { k: 3, text: false }));
  // runSearch is the engine's call alone: the postings of the query's terms are loaded first.
  await client.loadPostingsFor('momentum '.repeat(2000), { k: 2, text: false, trigger: 'paper' }, progress);
  responses.push(client.runSearch('momentum '.repeat(2000), hs, { k: 2, text: false, trigger: 'paper' }));
  // A level with no match: W2 loads the other level (another shard) and searches again.
  responses.push(await client.search('bremsstrahlung', hs, { k: 5, text: false }, progress));
  assert.ok(responses.some((r) => r.trace.relaxation && r.trace.relaxation.widened), 'a search widened');
  assert.ok(responses.some((r) => r.results.some((h) => h.expanded)), 'a search expanded a section');
  assert.ok(responses.some((r) => r.trace.truncated), 'a query was cut');
  assert.ok(responses.some((r) => r.results.some((h) => h.dense_rank)), 'the dense path ran');
  // A locked chapter: the trace's scopes carry the lock.
  const locked = { ...hs, chapter: '3', doc_type: 'solution', lock: ['chapter', 'doc_type'] };
  responses.push(await client.search('force', locked, { k: 5, text: false }));
  // What the pickers, the scope checks, "show the whole section" and "copy as context" get.
  const facets = [client.facets(hs), client.facets(locked), client.facets({})];
  const checks = [client.validateScope(hs), client.validateScope({ subject: 'biology' }), client.validateScope({ chapter: 3, lock: ['level'] })];
  assert.deepEqual(checks.map((c) => c.ok), [true, false, false]);
  const shown = responses[1].results;
  const sections = [client.section(shown[0].id, hs), client.section('no-such-id', hs)];
  assert.ok(sections[0] && sections[0].chunks.some((c) => c.id === shown[0].id));
  assert.equal(sections[1], null);
  const context = client.contextFor(shown.map((h) => h.id), hs);
  assert.ok(context.context.startsWith('[DOCUMENT 1]') && context.withheld === 0);
  const body = `import type { Context, Enhancement, Facet, Manifest, Progress, ScopeCheck, SearchResponse, Section, ShardEntry } from 'chsr';
export const manifest = ${literal(client.manifest())} satisfies Manifest;
export const needed = ${literal(needed)} satisfies ShardEntry[];
export const loaded = ${literal(client.loadedShards())} satisfies ShardEntry[];
export const pending = ${literal(pending)} satisfies Enhancement[];
export const progress = ${literal([...calls.values()])} satisfies Array<{ entry: Parameters<Progress>[0]; info?: Parameters<Progress>[1] }>;
export const responses = ${literal(responses)} satisfies SearchResponse[];
export const facets = ${literal(facets)} satisfies Facet[][];
export const checks = ${literal(checks)} satisfies ScopeCheck[];
export const sections = ${literal(sections)} satisfies Array<Section | null>;
export const context = ${literal(context)} satisfies Context;
`;
  assert.deepEqual(typeCheck(body), []);
  // Errors: ChsrError with a declared code, the engine's code and its details.
  const cases = [
    [{ colour: 'red' }, {}, 'scope', 'scope.unknown_field'], [{ subject: 'biology' }, {}, 'scope', 'scope.unknown_value'],
    [{ chapter: 2, lock: 'level' }, {}, 'scope', 'scope.bad_value'], [hs, { k: 0 }, 'search', 'search.option'],
  ];
  const errors = [];
  for (const [scope, options, code, engineCode] of cases) {
    const e = await client.search('energy', scope, options).then(() => null, (x) => x);
    assert.ok(e instanceof mod.ChsrError, String(e));
    assert.equal(e.code, code, e.message);
    assert.equal(e.engineCode, engineCode, e.message);
    assert.ok(mod.CODES.includes(e.code));
    errors.push({ engineCode: e.engineCode, details: e.details });
  }
  assert.deepEqual(errors[1].details.valid, client.manifest().shards.map((s) => s.subject).filter((v, i, a) => a.indexOf(v) === i).sort());
  // The engine's codes map without reading a message.
  const coded = (c) => Object.assign(new Error('whatever the message says'), { code: c, details: { field: 'x' } });
  assert.deepEqual(['scope.unknown_value', 'load.integrity', 'load.format', 'load.mismatch', 'load.model', 'manifest', 'load.io', 'input']
    .map((c) => mod.engineError(coded(c)).code), ['scope', 'integrity', 'integrity', 'integrity', 'integrity', 'manifest', 'search', 'search']);
  assert.deepEqual(typeCheck(`import type { ChsrError } from 'chsr';
export const errors = ${literal(errors)} satisfies Array<Pick<ChsrError, 'engineCode' | 'details'>>;
`), []);
});

test('the scope fields and search options the engine accepts are those declared', async () => {
  const { client } = await openClient();
  const d = readDeclarations(CLIENT_DTS);
  const keysOf = (name) => {
    const i = d.src.statements.find((s) => ts.isInterfaceDeclaration(s) && s.name.text === name);
    return i.members.map((m) => nameOf(m.name)).sort();
  };
  // The engine names the valid ones when given an unknown one (its details); `lock` names some of them.
  const e1 = await client.search('energy', { colour: 'red' }).then(() => null, (x) => x);
  const fields = [...e1.details.valid].sort();
  assert.deepEqual(keysOf('Scope'), [...fields, 'lock'].sort(), e1.message);
  const field = d.src.statements.find((s) => ts.isTypeAliasDeclaration(s) && s.name.text === 'ScopeField');
  assert.deepEqual(field.type.types.map((t) => t.literal.text).sort(), fields);
  const e2 = await client.search('energy', { subject: 'physics', level: 'high_school' }, { colour: 1 }).then(() => null, (x) => x);
  const options = /valid: (.*)$/s.exec(e2.message)[1].split(/,\s*/).map((s) => s.trim()).sort();
  assert.deepEqual(keysOf('SearchOptions'), options, e2.message);
});
