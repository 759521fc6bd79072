// The page's number formatting (www/i18n.js) writes what Intl.NumberFormat writes for the two
// interface languages (it is written by hand to spare the page Intl's start-up): counts in the
// pickers and the status line, sizes in kB and MB, milliseconds and scores in "why" panels.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatNumber, hasLang, loadLang, translator } from '../../www/i18n.js';
import * as EN from '../../www/i18n-en.js';
import * as FR from '../../www/i18n-fr.js';

const LOCALES = { en: 'en-GB', fr: 'fr-FR' };

// Counts, sizes, timings and scores as the page meets them, and the awkward cases: halves at
// every rounding position, values just under a power of ten, negatives and negative zero.
function samples() {
  const xs = [0, -0, 1, 7, 999, 1000, 1001, 9999.5, 12345, 15012, 999999, 1234567.891, 0.5, 1.5, 2.5, 0.05, 0.15,
    0.25, 0.35, 1.005, 1.0005, 0.00005, 0.99995, 9.95, 99.95, 0.0001, 123.456789, -1, -0.04, -1234.5678, 1e15, 2 ** 53];
  let seed = 12345;
  const rnd = () => { seed = (seed * 1103515245 + 12345) % 2 ** 31; return seed / 2 ** 31; };
  for (let i = 0; i < 3000; i++) {
    const scale = 10 ** Math.floor(rnd() * 12 - 5);
    xs.push(rnd() * scale, Math.round(rnd() * scale * 1000) / 1000, -rnd() * scale);
  }
  return xs;
}

test('numbers are written as Intl.NumberFormat writes them, in English and in French', () => {
  for (const [lang, locale] of Object.entries(LOCALES)) {
    for (const [min, max] of [[0, 0], [0, 1], [0, 3], [1, 1], [4, 4]]) {
      const intl = new Intl.NumberFormat(locale, { minimumFractionDigits: min, maximumFractionDigits: max });
      for (const x of samples()) {
        assert.equal(formatNumber(x, lang, { min, max }), intl.format(x), `${lang} ${x} min ${min} max ${max}`);
      }
    }
  }
});

test("the translator's counts, sizes, timings and scores", async () => {
  await Promise.all([loadLang('en'), loadLang('fr')]);
  const en = translator('en');
  const fr = translator('fr');
  assert.equal(en.num(15012), '15,012');
  assert.equal(fr.num(15012), '15\u202f012');
  assert.equal(en.size(2_345_678), en('size.mb', { n: '2.3' }));
  assert.equal(fr.size(2_345_678), fr('size.mb', { n: '2,3' }));
  assert.equal(fr.size(12_345), fr('size.kb', { n: '12' }));
  assert.equal(en.ms(1.25), '1.3');
  assert.equal(fr.ms(2), '2,0');
  assert.equal(en.score(0.0163934), '0.0164');
  assert.equal(fr.score(1 / 61), '0,0164');
});

test('each language module has every string, value name and no other', () => {
  const keys = (o) => Object.keys(o).sort();
  assert.deepEqual(keys(FR.STRINGS), keys(EN.STRINGS));
  for (const field of keys(EN.VALUES)) assert.deepEqual(keys(FR.VALUES[field]), keys(EN.VALUES[field]), field);
  assert.deepEqual(keys(FR.VALUES), keys(EN.VALUES));
  for (const [key, s] of Object.entries(FR.STRINGS)) {
    const params = (x) => [...x.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
    assert.deepEqual(params(s), params(EN.STRINGS[key]), `${key}: the same {parameters}`);
  }
});

test('a translator reads empty until its language is loaded, then the strings; the rerank reasons in French', async () => {
  // A fresh instance of i18n.js: no language loaded yet.
  const fresh = await import('../../www/i18n.js?fresh');
  const t = fresh.translator('fr');
  assert.equal(fresh.hasLang('fr'), false);
  assert.equal(t('search.button'), '');
  assert.equal(t.value('doc_type', 'solution'), 'solution');
  await fresh.loadLang('fr');
  assert.ok(fresh.hasLang('fr') && !fresh.hasLang('en'), 'only the language asked for');
  assert.ok(hasLang('fr'));
  assert.equal(t('search.button'), FR.STRINGS['search.button']);
  assert.equal(t.value('doc_type', 'solution'), 'Corrigé');
  assert.equal(t.reason('same section as the top result'), 'même section que le premier résultat');
  assert.equal(translator('en').reason('same section as the top result'), 'same section as the top result');
  await assert.rejects(loadLang('de'), /no interface strings for language de/);
});
