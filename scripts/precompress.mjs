#!/usr/bin/env node
// Writes a brotli (`F.br`) and a gzip (`F.gz`) copy beside each file of the site that compresses,
// as a static host serves them (scripts/serve.mjs does, when the browser accepts the encoding):
// the page, scripts, styles, the Wasm module, the manifest, the shards and the model. The output
// depends only on the input bytes (gzip with no name and mtime 0), so builds stay reproducible.
// A copy that would not save at least 5% is not written; stale copies (of files gone or no longer
// worth it) are removed. Brotli quality 11 for files up to 4 MB, 9 above (quality 11 takes ~30 s
// on a 9 MB shard for 8% less; on the demo's 1.0 and 1.7 MB shards, 0.7 and 1.1 s for 12% less:
// chemistry 76.9 -> 68.0 kB, physics college 103.4 -> 91.4 kB, both fetched before a first result).
//   node scripts/precompress.mjs [DIR]   (default: www)
import { readFileSync, unlinkSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { walk } from './site-integrity.mjs';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

const here = fileURLToPath(new URL('.', import.meta.url));
const dir = process.argv[2] || join(here, '..', 'www');
const SKIP = /\.(br|gz|png|jpe?g|webp|woff2?)$/;
const VARIANTS = /\.(br|gz)$/;
// The largest file compressed at brotli's best quality.
const MAX_Q11 = 4_000_000;


const all = walk(dir);
let raw = 0; let br = 0; let gz = 0; let n = 0;
for (const file of all.filter((f) => !SKIP.test(f))) {
  const body = readFileSync(file);
  const variants = {
    br: brotliCompressSync(body, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: body.length <= MAX_Q11 ? 11 : 9,
        [constants.BROTLI_PARAM_SIZE_HINT]: body.length,
        [constants.BROTLI_PARAM_LGWIN]: 24,
      },
    }),
    gz: gzipSync(body, { level: 9 }),
  };
  for (const [ext, out] of Object.entries(variants)) {
    const target = `${file}.${ext}`;
    if (out.length <= body.length * 0.95) {
      writeFileSync(target, out);
    } else if (existsSync(target)) {
      unlinkSync(target);
    }
  }
  raw += body.length; br += Math.min(variants.br.length, body.length); gz += Math.min(variants.gz.length, body.length); n += 1;
}
// Copies whose file is gone (an old shard name).
for (const v of all.filter((f) => VARIANTS.test(f))) {
  if (!existsSync(v.replace(VARIANTS, ''))) unlinkSync(v);
}
const MB = (x) => (x / 1e6).toFixed(2);
console.log(`precompressed ${n} files: ${MB(raw)} MB raw, ${MB(br)} MB brotli, ${MB(gz)} MB gzip`);
