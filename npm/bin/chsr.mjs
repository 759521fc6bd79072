#!/usr/bin/env node
// `chsr index` without a Rust toolchain: the Rust indexer compiled to Wasm (lib/indexer/), driven
// from Node. This file does only what the native CLI does with the operating system — parse the
// command line, walk folders, read and write files, time the steps — in the same order as
// `src/index/run.rs`; reading pages, chunking, building the shards, the bundle's page and the
// report are the Rust core's, so the shards and manifest are byte for byte those of
// `chsr index` (scripts/test-npm checks it). The dense path (`--model`) is native only: built in
// Wasm, its vector files come out different from the native ones (floating point), while the
// lexical shards are the same bytes.

import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const VERSION = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version;

const HELP = `chsr ${VERSION} (npm): index a course site into a search bundle, in Node (no Rust needed)

Usage: chsr index [OPTIONS] --out <OUT>

What to index (one of):
      --config <CONFIG>      Site configuration (TOML: [[source]] path, subject, level, lang, rules; [site] texts)
      --site <SITE>          One built site (a folder of HTML pages), instead of a config
      --markdown <MARKDOWN>  One folder of Markdown sources (YAML front matter), instead of a config
With --site or --markdown:
      --subject <SUBJECT>    Subject of every page
      --level <LEVEL>        Level of every page
      --lang <LANG>          Language of the pages (default: each page's <html lang>)
      --doc-type <DOC_TYPE>  Document type of course text (default textbook_section)
      --url <URL>            Where the site is served (default: relative to the bundle)
Output:
      --out <OUT>            The bundle folder (e.g. SITE/chsr): shards/, the search page and its files
      --emit-chunks <FILE>   Also write the chunks as JSONL (the \`chsr build\` input format)
      --report <FILE>        Write the build report (.json for JSON, otherwise Markdown)
      --skip-unscoped        Leave out pages without subject, level or language instead of failing
      --pkg <PKG>            The Wasm package folder to copy into the bundle (default: $CHSR_PKG,
                             else this package's pkg/)
      --model <MODEL>        Not here: the dense path (a .chsrm model) is in the native CLI only
                             (cargo install, then chsr index --model …); shards are lexical
  -h, --help                 Print help
  -V, --version              Print version

The same command as the Rust CLI's \`chsr index\`, with byte-identical shards and manifest.
Guide: https://www.npmjs.com/package/chsr (README), docs/indexing.md in the repository.`;

/** Options taking a value, by flag, and the name they are stored under. */
const VALUE_FLAGS = {
  '--config': 'config',
  '--site': 'site',
  '--markdown': 'markdown',
  '--subject': 'subject',
  '--level': 'level',
  '--lang': 'lang',
  '--doc-type': 'docType',
  '--url': 'url',
  '--out': 'out',
  '--emit-chunks': 'emitChunks',
  '--report': 'report',
  '--model': 'model',
  '--pkg': 'pkg',
};
/** Flags that cannot be used together (as the native CLI's). */
const CONFLICTS = [
  ['config', 'site'],
  ['config', 'markdown'],
  ['site', 'markdown'],
];

/** An error printed as one `error: …` line, with an exit status (1; 2 for usage errors). */
class CliError extends Error {
  constructor(message, status = 1) {
    super(message);
    this.status = status;
  }
}

const usage = (m) => new CliError(`${m} (chsr index --help)`, 2);

/** Parses `index …`'s arguments into `{opts, skipUnscoped}`, or returns 'help' / 'version'. */
function parseArgs(argv) {
  if (argv.length === 0 || argv[0] === '-h' || argv[0] === '--help' || argv[0] === 'help') return 'help';
  if (argv[0] === '-V' || argv[0] === '--version') return 'version';
  if (argv[0] !== 'index') {
    throw usage(
      `unrecognized subcommand '${argv[0]}': the npm package runs \`chsr index\` only; ` +
        'build, search, verify and eval are in the Rust CLI (cargo install --path .)',
    );
  }
  const opts = {};
  let skipUnscoped = false;
  for (let i = 1; i < argv.length; i++) {
    let arg = argv[i];
    let value;
    if (arg === '-h' || arg === '--help') return 'help';
    if (arg === '-V' || arg === '--version') return 'version';
    if (arg === '--skip-unscoped') {
      skipUnscoped = true;
      continue;
    }
    const eq = arg.indexOf('=');
    if (arg.startsWith('--') && eq > 0) {
      value = arg.slice(eq + 1);
      arg = arg.slice(0, eq);
    }
    const name = VALUE_FLAGS[arg];
    if (!name) throw usage(`unexpected argument '${arg}' found`);
    if (value === undefined) {
      if (i + 1 >= argv.length) throw usage(`a value is required for '${arg} <${name.toUpperCase()}>' but none was supplied`);
      value = argv[++i];
    }
    if (name in opts) throw usage(`the argument '${arg}' cannot be used multiple times`);
    opts[name] = value;
  }
  for (const [a, b] of CONFLICTS) {
    if (a in opts && b in opts) throw usage(`the argument '--${a}' cannot be used with '--${b}'`);
  }
  if (!('out' in opts)) throw usage('the following required arguments were not provided: --out <OUT>');
  if ('model' in opts) {
    throw new CliError(
      `--model ${opts.model}: the dense path is built by the native CLI only (cargo install --path ., then chsr index --model …); ` +
        'without --model the npm package writes the same lexical shards as chsr index',
    );
  }
  return { opts, skipUnscoped };
}

/** `dir` joined with `name` as Rust's `Path::join` writes it (messages name paths the same way). */
const join = (dir, name) => (dir === '' || dir.endsWith('/') ? dir + name : `${dir}/${name}`);

/**
 * The system's message of a Node I/O error as Rust words it (`No such file or directory (os error
 * 2)`), from Node's (`ENOENT: no such file or directory, open 'x'`).
 */
function osMessage(e) {
  const m = /^[A-Z0-9_]+: ([^,]+)/.exec(e && e.message ? e.message : '');
  if (!m || typeof e.errno !== 'number') return e && e.message ? e.message : String(e);
  return `${m[1][0].toUpperCase()}${m[1].slice(1)} (os error ${Math.abs(e.errno)})`;
}

/** An I/O error naming the path, as the native CLI's. */
const ioError = (p, e) => new CliError(`${p}: ${osMessage(e)}`);

function isDir(p) {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}

function isFile(p) {
  try {
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}

/** UTF-8 byte order, as Rust sorts file names. */
const byBytes = (a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b));

/**
 * Every page file under `dir` with one of `exts`, as sorted `/`-separated relative paths:
 * `list_pages` in src/index/mod.rs (entries by name, `.`-names left out, folders followed when
 * `walks(rel)`: the indexer's `walksFolder`).
 */
function listPages(dir, exts, walks) {
  const out = [];
  const walk = (d, rel) => {
    let names;
    try {
      names = fs.readdirSync(d);
    } catch (e) {
      throw ioError(d, e);
    }
    names.sort(byBytes);
    for (const name of names) {
      if (name.startsWith('.')) continue;
      const p = join(d, name);
      const r = rel === '' ? name : `${rel}/${name}`;
      if (isDir(p)) {
        if (walks(r)) walk(p, r);
      }
      else if (exts.some((x) => name.toLowerCase().endsWith(x))) out.push(r);
    }
  };
  walk(dir, '');
  return out;
}

/**
 * Creates folder `p` and its parents, as Rust's `create_dir_all` (not `{ recursive: true }`, which
 * can loop forever where a folder cannot be made, e.g. under /proc).
 */
function mkdirAll(p) {
  const make = () => {
    try {
      fs.mkdirSync(p);
      return true;
    } catch (e) {
      if (e.code === 'EEXIST' && isDir(p)) return true;
      if (e.code !== 'ENOENT') throw e;
      return false;
    }
  };
  if (p === '' || make()) return;
  const parent = path.dirname(p);
  if (parent === p) return;
  mkdirAll(parent);
  if (!make()) fs.mkdirSync(p);
}

function mkdirs(p) {
  try {
    mkdirAll(p);
  } catch (e) {
    throw ioError(p, e);
  }
}

function writeFile(p, bytes) {
  const parent = path.dirname(p);
  if (parent !== p) mkdirs(parent);
  try {
    fs.writeFileSync(p, bytes);
  } catch (e) {
    throw ioError(p, e);
  }
}

function readFile(p, encoding) {
  try {
    return fs.readFileSync(p, encoding);
  } catch (e) {
    throw ioError(p, e);
  }
}

/** `build::write_output`: every file through a temporary name, the manifest last, stale ones removed. */
function writeOutput(ix, dir) {
  try {
    mkdirAll(dir);
    const keep = new Set();
    for (const f of ix.outputFiles()) {
      const tmp = join(dir, `.${f}.tmp`);
      fs.writeFileSync(tmp, ix.outputFile(f));
      fs.renameSync(tmp, join(dir, f));
      keep.add(f);
    }
    const tmp = join(dir, '.manifest.json.tmp');
    fs.writeFileSync(tmp, ix.manifestJson());
    fs.renameSync(tmp, join(dir, 'manifest.json'));
    for (const name of fs.readdirSync(dir)) {
      const ours = ['.chsr', '.chsrv', '.chsrm', '.chsrt', '.chsrx', '.chsrl', '.chsri'].some((x) => name.endsWith(x));
      if (ours && !keep.has(name)) fs.rmSync(join(dir, name));
    }
  } catch (e) {
    if (e instanceof CliError) throw e;
    throw ioError(dir, e);
  }
}

/** The Wasm indexer (CommonJS, as wasm-bindgen writes it for Node). */
function loadIndexer() {
  const require = createRequire(import.meta.url);
  return require('../lib/indexer/chsr_indexer.cjs');
}

const seconds = (from) => (performance.now() - from) / 1000;

/** `chsr index`: src/index/run.rs, step by step. */
function index({ opts, skipUnscoped }) {
  const w = loadIndexer();
  // A file's bytes (the configuration, a generator's, a file a page includes): Rust decodes them.
  const readConfig = (file) => {
    try {
      return fs.readFileSync(file);
    } catch (e) {
      throw new Error(osMessage(e));
    }
  };
  const args = {};
  for (const k of ['config', 'site', 'markdown', 'subject', 'level', 'lang', 'docType', 'url']) {
    if (k in opts) args[k] = opts[k];
  }
  const ix = new w.ChsrIndexer(args, readConfig, skipUnscoped);
  const out = opts.out;
  const t0 = performance.now();
  mkdirs(out);
  const sources = ix.sources();
  const pages = sources.map((s, i) => {
    if (!isDir(s.path)) ix.checkPages(i, false, []);
    return ix.checkPages(i, true, listPages(s.path, s.extensions, (r) => ix.walksFolder(i, r)));
  });
  sources.forEach((s, i) => {
    let url = ix.configuredUrl(i);
    if (url === undefined) {
      const real = (p) => {
        try {
          return fs.realpathSync(p);
        } catch (e) {
          throw ioError(p, e);
        }
      };
      url = w.relativeUrl(real(out), real(s.path));
    }
    ix.setBaseUrl(i, url);
  });
  sources.forEach((s, i) => {
    for (const rel of pages[i]) {
      const bytes = ix.wants(i, rel) ? readFile(join(s.path, rel)) : undefined;
      ix.addPage(i, rel, bytes);
    }
  });
  const tRead = seconds(t0);
  const reportJson = opts.report !== undefined && w.reportIsJson(opts.report);
  if (ix.chunkCount() === 0) {
    if (opts.report !== undefined) writeFile(opts.report, ix.reportText(reportJson));
    throw new CliError(ix.nothingIndexedError(opts.report !== undefined));
  }
  const t1 = performance.now();
  ix.build(undefined, '');
  const tBuild = seconds(t1);
  const t2 = performance.now();
  const shardsDir = join(out, 'shards');
  if (fs.existsSync(shardsDir)) {
    try {
      fs.rmSync(shardsDir, { recursive: true });
    } catch (e) {
      throw ioError(shardsDir, e);
    }
  }
  writeOutput(ix, shardsDir);
  const isPkg = (d) => w.pkgFiles(false).every((f) => isFile(join(d, f)));
  let pkg;
  if (opts.pkg !== undefined) {
    if (!isPkg(opts.pkg)) throw new CliError(w.notAPkg(opts.pkg));
    pkg = opts.pkg;
  } else {
    pkg = [process.env.CHSR_PKG, path.join(ROOT, 'pkg')].find((d) => d && isPkg(d));
  }
  if (pkg === undefined) {
    ix.addWarning(
      `no Wasm package found (looked in $CHSR_PKG and in ${path.join(ROOT, 'pkg')}): the bundle has no pkg/ ` +
        'and its page cannot search until pkg/chsr.js, pkg/chsr_lexical_bg.wasm, pkg/chsr_bg.wasm and pkg/chsr_scalar_bg.wasm are added; reinstall the package or pass --pkg DIR',
    );
  }
  const written = [];
  // JavaScript modules go out compacted (w.shippedText), as the CLI writes them.
  const shipped = (name, src) => (name.endsWith('.js') ? w.shippedText(name, readFile(src, 'utf8')) : readFile(src));
  for (const { name, text } of ix.bundleFiles()) {
    writeFile(join(out, name), text ?? shipped(name, path.join(ROOT, name)));
    written.push(name);
  }
  if (pkg !== undefined) {
    for (const f of w.pkgFiles(true)) {
      const src = join(pkg, f);
      if (!isFile(src)) continue;
      writeFile(join(join(out, 'pkg'), f), shipped(f, src));
      written.push(`pkg/${f}`);
    }
  }
  if (opts.emitChunks !== undefined) writeFile(opts.emitChunks, ix.chunksJsonl());
  const tWrite = seconds(t2);
  ix.finish(
    written,
    { '1 read pages': tRead, '2 build shards': tBuild, '3 write': tWrite, total: seconds(t0) },
    false,
  );
  if (opts.report !== undefined) writeFile(opts.report, ix.reportText(reportJson));
  for (const line of ix.summary(out, opts.report !== undefined)) process.stderr.write(`${line}\n`);
}

function main(argv) {
  try {
    const parsed = parseArgs(argv);
    if (parsed === 'help') {
      process.stdout.write(`${HELP}\n`);
      return 0;
    }
    if (parsed === 'version') {
      process.stdout.write(`chsr ${VERSION}\n`);
      return 0;
    }
    index(parsed);
    return 0;
  } catch (e) {
    // The Wasm core throws Errors carrying the native CLI's messages.
    process.stderr.write(`error: ${e && e.message ? e.message : e}\n`);
    return e instanceof CliError ? e.status : 1;
  }
}

process.exitCode = main(process.argv.slice(2));
