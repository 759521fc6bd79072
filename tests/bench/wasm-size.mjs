#!/usr/bin/env node
// Where the bytes of a Wasm module go: code size per crate (from the function names of the
// name section, so use a build that keeps it, e.g. target/bench-perf/prof/pkg/chsr_bg.wasm),
// data segments, and each section's raw and gzip size.
//
//   node tests/bench/wasm-size.mjs FILE.wasm [--top 25] [--json OUT]
import { readFileSync, writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';

const args = process.argv.slice(2);
const file = args[0];
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  return i >= 0 && args[i + 1] !== undefined ? args[i + 1] : dflt;
};
const TOP = Number(opt('--top', '25'));
const buf = readFileSync(file);
const gz = (b) => gzipSync(b, { level: 9 }).length;

let pos = 8;
function uleb(b, p) {
  let v = 0; let shift = 0; let byte;
  do { byte = b[p.i++]; v += (byte & 0x7f) * 2 ** shift; shift += 7; } while (byte & 0x80);
  return v;
}
const SECTION = ['custom', 'type', 'import', 'function', 'table', 'memory', 'global', 'export', 'start', 'element', 'code', 'data', 'datacount'];
const sections = [];
while (pos < buf.length) {
  const id = buf[pos];
  const p = { i: pos + 1 };
  const size = uleb(buf, p);
  const start = p.i;
  let name = SECTION[id] || `id${id}`;
  if (id === 0) {
    const q = { i: start };
    const n = uleb(buf, q);
    name = `custom:${buf.subarray(q.i, q.i + n).toString('utf8')}`;
  }
  sections.push({ id, name, start, size, bytes: buf.subarray(start, start + size) });
  pos = start + size;
}

// Imported functions come first in the function index space.
let imported = 0;
const imp = sections.find((s) => s.id === 2);
if (imp) {
  const p = { i: 0 }; const b = imp.bytes;
  const n = uleb(b, p);
  for (let k = 0; k < n; k++) {
    const ml = uleb(b, p); p.i += ml;
    const fl = uleb(b, p); p.i += fl;
    const kind = b[p.i++];
    if (kind === 0) { uleb(b, p); imported++; } else if (kind === 1) { p.i++; const f = uleb(b, p); uleb(b, p); if (f & 1) uleb(b, p); } else if (kind === 2) { const f = uleb(b, p); uleb(b, p); if (f & 1) uleb(b, p); } else if (kind === 3) { p.i += 2; }
  }
}
// Function names.
const names = new Map();
const ns = sections.find((s) => s.name === 'custom:name');
if (ns) {
  const b = ns.bytes; const p = { i: 0 };
  const nl = uleb(b, p); p.i += nl;
  while (p.i < b.length) {
    const sub = b[p.i++]; const len = uleb(b, p); const end = p.i + len;
    if (sub === 1) {
      const n = uleb(b, p);
      for (let k = 0; k < n; k++) { const idx = uleb(b, p); const l = uleb(b, p); names.set(idx, b.subarray(p.i, p.i + l).toString('utf8')); p.i += l; }
    }
    p.i = end;
  }
}
// Function body sizes, grouped by crate.
const crate = (name) => {
  if (!name) return '(unnamed)';
  let n = name.replace(/^_ZN/, '').replace(/^</, '');
  n = n.replace(/\[[0-9a-f]+\]/g, '');
  const m = n.match(/^([A-Za-z_][A-Za-z0-9_]*)(::|$)/);
  return m ? m[1] : n.split(/[^A-Za-z0-9_]/)[0] || '(other)';
};
const byCrate = new Map();
const fns = [];
const code = sections.find((s) => s.id === 10);
if (code) {
  const b = code.bytes; const p = { i: 0 };
  const n = uleb(b, p);
  for (let k = 0; k < n; k++) {
    const size = uleb(b, p);
    const name = names.get(imported + k);
    fns.push({ name: name || `wasm-function[${imported + k}]`, size });
    const c = crate(name);
    byCrate.set(c, (byCrate.get(c) || 0) + size);
    p.i += size;
  }
}
const total = buf.length;
console.log(`${file}: ${total} bytes raw, ${gz(buf)} gzip`);
console.log('\nsection                      raw      gzip');
for (const s of sections) console.log(`${s.name.padEnd(24)} ${String(s.size).padStart(8)} ${String(gz(s.bytes)).padStart(9)}`);
const crates = [...byCrate.entries()].sort((a, b) => b[1] - a[1]);
const codeSize = code ? code.size : 0;
console.log(`\ncode by crate (${fns.length} functions, ${codeSize} bytes)`);
for (const [c, s] of crates.slice(0, TOP)) console.log(`${String(s).padStart(8)} ${(100 * s / codeSize).toFixed(1).padStart(5)}%  ${c}`);
console.log('\nlargest functions');
for (const f of [...fns].sort((a, b) => b.size - a.size).slice(0, TOP)) console.log(`${String(f.size).padStart(8)}  ${f.name.slice(0, 110)}`);
const out = opt('--json', null);
if (out) {
  writeFileSync(out, `${JSON.stringify({
    raw: total, gzip: gz(buf),
    sections: sections.map((s) => ({ name: s.name, raw: s.size, gzip: gz(s.bytes) })),
    crates: crates.map(([name, bytes]) => ({ name, bytes })),
  }, null, 1)}\n`);
}
