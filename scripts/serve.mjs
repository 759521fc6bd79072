#!/usr/bin/env node
// A tiny static file server for the study site (no dependencies), bound to 127.0.0.1.
//   node scripts/serve.mjs [--root www] [--port 8080] [--log]   (--log: print "GET /path STATUS" per request)
// Prints "chsr: serving <root> at http://127.0.0.1:<port>/" once listening (port 0 = any free port).
// Sends the site's Content-Security-Policy as a header (the policy the README documents; for a
// page, the policy of its own <meta>, which holds its import map's hash), allows
// cross-origin reads (the <chsr-search> embed is loaded from other sites' pages), and refuses paths
// outside the root.
import { createServer } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  return i >= 0 && args[i + 1] ? args[i + 1] : dflt;
};
const here = fileURLToPath(new URL('.', import.meta.url));
const root = resolve(opt('--root', join(here, '..', 'www')));
const port = Number(opt('--port', process.env.PORT || '8080'));
const log = args.includes('--log');
const TYPES = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8', '.json': 'application/json; charset=utf-8', '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml', '.png': 'image/png', '.webmanifest': 'application/manifest+json', '.txt': 'text/plain; charset=utf-8',
  '.md': 'text/plain; charset=utf-8',
};
export const CSP = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; img-src 'self' data:; " +
  "connect-src 'self'; worker-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'";

const server = createServer(async (req, res) => {
  if (log) res.on('finish', () => console.log(`${req.method} ${req.url} ${res.statusCode}`));
  try {
    const url = new URL(req.url, 'http://localhost');
    let path = normalize(decodeURIComponent(url.pathname));
    if (path.endsWith('/')) path += 'index.html';
    const file = resolve(join(root, path));
    if (file !== root && !file.startsWith(root + sep)) { res.writeHead(403).end('forbidden'); return; }
    const st = await stat(file).catch(() => null);
    if (!st || !st.isFile()) { res.writeHead(404, { 'content-type': 'text/plain' }).end('not found'); return; }
    const body = await readFile(file);
    const meta = extname(file) === '.html'
      && String(body).match(/<meta\s+http-equiv="Content-Security-Policy"\s+content="([^"]*)"/i);
    res.writeHead(200, {
      'content-type': TYPES[extname(file)] || 'application/octet-stream',
      'content-length': body.length,
      'cache-control': 'no-cache',
      'content-security-policy': meta ? meta[1] : CSP,
      'x-content-type-options': 'nosniff',
      'access-control-allow-origin': '*',
      'referrer-policy': 'no-referrer',
    });
    res.end(req.method === 'HEAD' ? undefined : body);
  } catch (e) {
    res.writeHead(500).end(String(e));
  }
});
server.listen(port, '127.0.0.1', () => {
  console.log(`chsr: serving ${root} at http://127.0.0.1:${server.address().port}/`);
});
