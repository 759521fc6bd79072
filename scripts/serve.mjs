#!/usr/bin/env node
// A tiny static file server for the study site (no dependencies), bound to 127.0.0.1.
//   node scripts/serve.mjs [--root www] [--port 8080] [--log]   (--log: print "GET /path STATUS" per request)
// Prints "chsr: serving <root> at http://127.0.0.1:<port>/" once listening (port 0 = any free port).
// Sends the site's Content-Security-Policy as a header (the policy docs/security.md documents; for a
// page, the policy of its own <meta>, which holds its import map's hash), allows
// cross-origin reads (the <chsr-search> embed is loaded from other sites' pages), and refuses paths
// outside the root. Every response has an ETag (a digest of the file) and a conditional request
// (`If-None-Match`) that matches gets 304 without a body, as a static host answers: the service
// worker's install revalidates the files the page already has instead of downloading them again.
// Compression as a static host does it: when the browser accepts it, a file is sent brotli- or
// gzip-encoded (`Content-Encoding`, `Vary: Accept-Encoding`) from the copy beside it
// (`F.br`/`F.gz`, written by scripts/precompress.mjs; a copy is used only once it has been checked
// to decode to the file's current bytes), else gzip-compressed on the fly (cached in memory) for
// text-like types. The client counts decoded bytes, which the browser hands it.
// Content-hashed data files (`name.<16 hex>.chsr|chsrv|chsrl|chsri|chsrx|chsrm|chsrt`, pinned by the manifest) are sent
// `Cache-Control: public, max-age=31536000, immutable`; everything else `no-cache`.
// `siteHandler` is also used by the browser benchmark (tests/bench/lib.mjs), so
// that the demo is measured as this server sends it.
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const TYPES = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8', '.json': 'application/json; charset=utf-8', '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml', '.png': 'image/png', '.webmanifest': 'application/manifest+json', '.txt': 'text/plain; charset=utf-8',
  '.md': 'text/plain; charset=utf-8',
};
const COMPRESSIBLE = /\.(html|js|mjs|css|json|wasm|svg|md|txt|webmanifest|chsr|chsrv|chsrl|chsri|chsrx|chsrm|chsrt)$/;
const IMMUTABLE = /\.[0-9a-f]{16}\.(chsr|chsrv|chsrl|chsri|chsrx|chsrm|chsrt)$/;
export const CSP = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; img-src 'self' data:; " +
  "connect-src 'self'; worker-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'";

/**
 * A request handler `(req, res, pathname)` serving the files under `root`; `pathname` (default: the
 * request's) is the path inside the root. `onSent({path, status, bytes, t})` is called with the
 * body bytes sent for each request (`t`: when it arrived, `Date.now()`).
 */
export function siteHandler(root, { onSent } = {}) {
  root = resolve(root);
  const etags = new Map(); // file → {mtimeMs, size, etag}
  const checked = new Map(); // `${variant}` → {key, ok}: a precompressed copy decodes to the file
  const onTheFly = new Map(); // file → {key, body}: gzip made here (no valid copy beside the file)
  let onTheFlyBytes = 0;

  // The encoded body to send for `file` (bytes `body`, ETag `etag`), or null for identity.
  async function encoded(file, body, st, accept) {
    for (const enc of ['br', 'gzip']) {
      if (!accept.has(enc)) continue;
      const variant = `${file}.${enc === 'br' ? 'br' : 'gz'}`;
      const vst = await stat(variant).catch(() => null);
      if (!vst || !vst.isFile()) continue;
      const key = `${st.mtimeMs}:${st.size}:${vst.mtimeMs}:${vst.size}`;
      let c = checked.get(variant);
      const data = await readFile(variant);
      if (!c || c.key !== key) {
        let ok = false;
        try { ok = (enc === 'br' ? brotliDecompressSync(data) : gunzipSync(data)).equals(body); } catch { ok = false; }
        c = { key, ok };
        checked.set(variant, c);
      }
      if (c.ok) return { enc, data };
    }
    if (!accept.has('gzip') || !COMPRESSIBLE.test(file) || body.length < 1024) return null;
    const key = `${st.mtimeMs}:${st.size}`;
    let c = onTheFly.get(file);
    if (!c || c.key !== key) {
      const data = gzipSync(body, { level: 6 });
      if (data.length > body.length * 0.95) return null;
      if (onTheFlyBytes > 256e6) { onTheFly.clear(); onTheFlyBytes = 0; }
      c = { key, data };
      onTheFly.set(file, c);
      onTheFlyBytes += data.length;
    }
    return { enc: 'gzip', data: c.data };
  }
  return async (req, res, pathname) => {
    const t = Date.now();
    const done = (status, bytes, path) => { if (onSent) onSent({ path, status, bytes, t }); };
    try {
      const url = new URL(req.url, 'http://localhost');
      let path = normalize(decodeURIComponent(pathname || url.pathname));
      if (path.endsWith('/')) path += 'index.html';
      const file = resolve(join(root, path));
      if (file !== root && !file.startsWith(root + sep)) { res.writeHead(403).end('forbidden'); done(403, 0, url.pathname); return; }
      const st = await stat(file).catch(() => null);
      if (!st || !st.isFile()) { res.writeHead(404, { 'content-type': 'text/plain' }).end('not found'); done(404, 0, url.pathname); return; }
      const body = await readFile(file);
      const meta = extname(file) === '.html'
        && String(body).match(/<meta\s+http-equiv="Content-Security-Policy"\s+content="([^"]*)"/i);
      let known = etags.get(file);
      if (!known || known.mtimeMs !== st.mtimeMs || known.size !== body.length) {
        known = { mtimeMs: st.mtimeMs, size: body.length, etag: `"${createHash('sha256').update(body).digest('hex').slice(0, 32)}"` };
        etags.set(file, known);
      }
      // Accept-Encoding, without the codings refused with q=0.
      const accept = new Set(String(req.headers['accept-encoding'] || '').split(',')
        .map((x) => x.trim().split(';')).filter(([, q]) => !q || !/^q=0(\.0*)?$/.test(q.trim())).map(([c]) => c.trim().toLowerCase()));
      const enc = await encoded(file, body, st, accept);
      const etag = enc ? known.etag.replace(/"$/, `-${enc.enc}"`) : known.etag;
      const headers = {
        'content-type': TYPES[extname(file)] || 'application/octet-stream',
        'cache-control': IMMUTABLE.test(file) ? 'public, max-age=31536000, immutable' : 'no-cache',
        etag,
        vary: 'Accept-Encoding',
        ...(enc ? { 'content-encoding': enc.enc } : {}),
        'content-security-policy': meta ? meta[1] : CSP,
        'x-content-type-options': 'nosniff',
        'access-control-allow-origin': '*',
        'referrer-policy': 'no-referrer',
      };
      const match = req.headers['if-none-match'];
      if (match && match.split(',').some((e) => e.trim().replace(/^W\//, '') === etag)) {
        res.writeHead(304, headers).end();
        done(304, 0, url.pathname);
        return;
      }
      const out = enc ? enc.data : body;
      res.writeHead(200, { ...headers, 'content-length': out.length });
      const head = req.method === 'HEAD';
      res.end(head ? undefined : out);
      done(200, head ? 0 : out.length, url.pathname);
    } catch (e) {
      console.error(`chsr: ${req.method} ${req.url}: ${(e && e.stack) || e}`);
      if (!res.headersSent) res.writeHead(500).end(String(e));
      else res.destroy();
    }
  };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const opt = (name, dflt) => {
    const i = args.indexOf(name);
    return i >= 0 && args[i + 1] ? args[i + 1] : dflt;
  };
  const here = fileURLToPath(new URL('.', import.meta.url));
  const root = resolve(opt('--root', join(here, '..', 'www')));
  const port = Number(opt('--port', process.env.PORT || '8080'));
  const log = args.includes('--log');
  const handle = siteHandler(root);
  const server = createServer((req, res) => {
    if (log) res.on('finish', () => console.log(`${req.method} ${req.url} ${res.statusCode}`));
    handle(req, res);
  });
  server.listen(port, '127.0.0.1', () => {
    console.log(`chsr: serving ${root} at http://127.0.0.1:${server.address().port}/`);
  });
}
