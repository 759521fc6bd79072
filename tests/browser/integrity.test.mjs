// Subresource Integrity (scripts/site-integrity.mjs via scripts/build-site): every page script and
// stylesheet carries its sha384, an import map gives the digests of the imported modules and of
// the Wasm module, and the policy allows that import map by its hash (no 'unsafe-inline'). A file
// served with other bytes than the build stamped is refused by the browser: none of its code
// runs, and the page shows a plain error (guard.js, or the engine error for the Wasm module).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { servedCopy, search, watchErrors } from './harness.mjs';

const site = servedCopy();

async function open(path, watch = () => {}) {
  const context = await site.browser.newContext({ locale: 'en-GB', serviceWorkers: 'block' });
  const page = await context.newPage();
  watch(page);
  const errors = watchErrors(page);
  await page.addInitScript(() => {
    window.__csp = [];
    document.addEventListener('securitypolicyviolation', (e) => window.__csp.push(`${e.violatedDirective} ${e.blockedURI}`));
  });
  await page.goto(`${site.server.url}${path}`);
  return { context, page, errors };
}

// Serves `file` (relative to the site) with other bytes while `fn` runs: a line of code that
// would mark the page if it ran. The page itself is not restamped.
async function tampered(file, fn) {
  const path = join(site.dir, file);
  const original = readFileSync(path);
  const marker = file.endsWith('.wasm')
    ? Buffer.concat([original, Buffer.from([0])])
    : Buffer.concat([original, Buffer.from('\nglobalThis.__tampered = true;\n')]);
  writeFileSync(path, marker);
  try {
    await fn();
  } finally {
    writeFileSync(path, original);
  }
}

const sha384 = (file) => `sha384-${createHash('sha384').update(readFileSync(join(site.dir, file))).digest('base64')}`;

test('the pages carry integrity for every script, module and the Wasm module, and still work', async () => {
  const scripts = [];
  const html = readFileSync(join(site.dir, 'index.html'), 'utf8');
  assert.ok(html.includes(`<script src="guard.js" integrity="${sha384('guard.js')}">`), 'guard.js');
  // The study page runs one bundle of app.js and its modules (scripts/site-integrity.mjs).
  assert.ok(html.includes(`<script type="module" src="app.bundle.js" integrity="${sha384('app.bundle.js')}">`), 'app.bundle.js');
  assert.ok(html.includes(`href="style.css" integrity="${sha384('style.css')}"`), 'style.css');
  const map = JSON.parse(html.match(/<script type="importmap">([^<]*)<\/script>/)[1]);
  for (const f of ['app.bundle.js', 'pkg/chsr_lexical_bg.wasm', 'pkg/chsr_bg.wasm', 'pkg/chsr_scalar_bg.wasm', 'i18n-en.js', 'i18n-fr.js']) {
    assert.equal(map.integrity[`./${f}`], sha384(f), f);
  }
  // Each language's strings are a module of their own, imported when the page shows that
  // language: not in the bundle, not preloaded.
  const modulePreloads = [...html.matchAll(/<link rel="modulepreload" href="([^"]+)"/g)].map((m) => m[1]);
  assert.deepEqual(modulePreloads, ['./app.bundle.js']);
  const bundled = readFileSync(join(site.dir, 'app.bundle.js'), 'utf8');
  assert.ok(!bundled.includes('Search past papers, mark schemes') && !bundled.includes('Rechercher dans les annales'), 'no strings in the bundle');
  // The module a page runs unless it asks for the dense path is preloaded; the others are not.
  const preloaded = [...html.matchAll(/<link rel="preload" href="([^"]+)"/g)].map((m) => m[1]);
  assert.deepEqual(preloaded.filter((f) => f.endsWith('.wasm')), ['./pkg/chsr_lexical_bg.wasm']);
  const embed = readFileSync(join(site.dir, 'embed', 'index.html'), 'utf8');
  assert.ok(embed.includes(`<script type="module" src="../chsr-search.js" integrity="${sha384('chsr-search.js')}">`));
  const embedMap = JSON.parse(embed.match(/<script type="importmap">([^<]*)<\/script>/)[1]);
  for (const f of ['chsr-client.js', 'controller.js', 'view.js', 'render.js', 'i18n.js', 'i18n-en.js', 'i18n-fr.js', 'offline.js', 'pkg/chsr.js', 'pkg/chsr_lexical_bg.wasm', 'pkg/chsr_bg.wasm']) {
    assert.equal(embedMap.integrity[`../${f}`], sha384(f), f);
  }
  // The import map is allowed by its hash, in the header and in the <meta>; nothing else inline.
  for (const [path, text] of [['', html], ['embed/', embed]]) {
    const mapText = text.match(/<script type="importmap">([^<]*)<\/script>/)[1];
    const hash = `'sha256-${createHash('sha256').update(mapText).digest('base64')}'`;
    const header = (await fetch(`${site.server.url}${path}`)).headers.get('content-security-policy');
    const meta = text.match(/http-equiv="Content-Security-Policy"\s+content="([^"]*)"/)[1];
    for (const csp of [header, meta]) {
      assert.ok(csp.includes(`script-src 'self' 'wasm-unsafe-eval' ${hash};`), `${path}: ${csp}`);
      assert.doesNotMatch(csp, /'unsafe-(inline|eval)'/);
    }
  }
  const build = JSON.parse(readFileSync(join(site.dir, 'build.json'), 'utf8'));
  for (const f of ['pkg/chsr_lexical_bg.wasm', 'pkg/chsr_bg.wasm', 'pkg/chsr_scalar_bg.wasm']) assert.equal(build.integrity[f], sha384(f), f);
  assert.ok(!build.files.some((f) => f.endsWith('.template.html')), 'templates are not published offline');

  const { context, page, errors } = await open('', (p) => p.on('request', (r) => scripts.push(new URL(r.url()).pathname)));
  await page.waitForSelector('body[data-ready="true"]');
  const list = await search(page, 'specific heat', { subject: 'physics', level: 'high_school' });
  assert.ok(list.length > 0);
  // One module for the page's code, the Wasm glue inside it, and the strings of the page's
  // language only: none of the sources is fetched.
  assert.deepEqual(scripts.filter((p) => p.endsWith('.js')).sort(), ['/app.bundle.js', '/guard.js', '/i18n-en.js']);
  assert.equal(await page.evaluate(() => document.body.dataset.loadError), undefined);
  assert.deepEqual(await page.evaluate(() => window.__csp), []);
  assert.deepEqual(errors, []);
  await context.close();
});

for (const file of ['app.bundle.js']) {
  test(`a tampered ${file} is refused and the page says so in plain words`, async () => {
    await tampered(file, async () => {
      const { context, page, errors } = await open('');
      await page.waitForSelector('body[data-load-error="true"]');
      assert.equal(await page.isVisible('#error'), true);
      assert.match(await page.textContent('#error-text'), /could not be loaded or does not match the published version/);
      assert.equal(await page.evaluate(() => globalThis.__tampered), undefined, 'the tampered code did not run');
      assert.equal(await page.evaluate(() => document.body.dataset.ready), undefined, 'the app did not start');
      assert.ok(errors.some((e) => /integrity/i.test(e)), errors.join('\n'));
      // "Try again" reloads (the file is still tampered: the same error).
      await Promise.all([page.waitForNavigation(), page.click('#error-retry')]);
      await page.waitForSelector('body[data-load-error="true"]');
      await context.close();
    });
  });
}

test("a tampered language module is refused: the page says so in the student's language and does not start", async () => {
  await tampered('i18n-fr.js', async () => {
    const { context, page } = await open('?ui=fr');
    await page.waitForSelector('#error:not([hidden])');
    assert.match(await page.textContent('#error-text'), /n’a pas pu démarrer : un fichier du site n’a pas pu être chargé/);
    assert.equal(await page.evaluate(() => globalThis.__tampered), undefined, 'the tampered code did not run');
    assert.equal(await page.evaluate(() => document.body.dataset.ready), undefined, 'the app did not start');
    await context.close();
  });
});

// Holds a language's strings module (`i18n-LANG.js`) back until the refused Wasm module has
// failed: the error must still be the engine's, in the page's language (not the message for
// strings that never came), whichever of the two settles first.
const stringsLate = (lang) => (page) => page.route(new RegExp(`/i18n-${lang}\\.js$`), async (route) => {
  await new Promise((r) => setTimeout(r, 600));
  await route.continue();
});

test('a tampered Wasm module is refused and the engine error is shown', async () => {
  await tampered('pkg/chsr_lexical_bg.wasm', async () => {
    for (const watch of [() => {}, stringsLate('en')]) {
      const { context, page } = await open('', watch);
      await page.waitForSelector('#error:not([hidden])');
      assert.match(await page.textContent('#error-text'), /could not start.*chsr_lexical_bg\.wasm could not be downloaded or failed its integrity check/s);
      assert.equal(await page.evaluate(() => document.body.dataset.ready), undefined);
      await context.close();
    }
  });
  // Restored: the same browser starts the page again.
  const { context, page } = await open('');
  await page.waitForSelector('body[data-ready="true"]');
  await context.close();
});

test('in the embed, a tampered Wasm module: the element shows the engine error in its language, even when the strings come after the failure', async () => {
  await tampered('pkg/chsr_lexical_bg.wasm', async () => {
    for (const watch of [() => {}, stringsLate('fr')]) {
      const { context, page } = await open('embed/?ui=fr', watch);
      await page.waitForSelector('#course-search[data-state="error"]');
      assert.match(await page.locator('#course-search .error').textContent(), /moteur de recherche n’a pas pu démarrer.*chsr_lexical_bg\.wasm could not be downloaded or failed its integrity check/s);
      await context.close();
    }
  });
});

test('in the embed, a tampered module leaves a plain error in the element', async () => {
  await tampered('chsr-client.js', async () => {
    const { context, page } = await open('embed/?ui=fr');
    await page.waitForSelector('#course-search[data-state="error"]');
    assert.match(await page.textContent('#course-search'), /n’a pas pu démarrer/);
    assert.equal(await page.evaluate(() => customElements.get('chsr-search')), undefined);
    assert.equal(await page.evaluate(() => globalThis.__tampered), undefined);
    await context.close();
  });
});
