// The interface languages, English and French, and the few formatting helpers the page and the
// embed share. Each language's strings are a module of their own (i18n-en.js, i18n-fr.js), which
// `loadLang` imports when a page first shows that language: a student downloads the strings of
// the language they read only (3 kB brotli, instead of 6 kB for both inside the page's bundle,
// before the first result). The one string shown when a language's module cannot be loaded is here.
// Strings are plain text: they are inserted with textContent, never parsed as HTML.

export const LANGS = ['en', 'fr'];

// The language modules, each spelled out: scripts/site-integrity.mjs finds them (integrity in the
// import map, no preload) and the page's bundle keeps them as files of their own.
const MODULES = {
  en: () => import('./i18n-en.js'),
  fr: () => import('./i18n-fr.js'),
};

// What a page says when it cannot load its language's strings (as guard.js says for a script).
const UNLOADED = {
  en: 'The search could not start: a file of this site could not be loaded or does not match the published version. Reload the page; if this persists, the site is being updated or a file was altered.',
  fr: 'La recherche n’a pas pu démarrer : un fichier du site n’a pas pu être chargé ou ne correspond pas à la version publiée. Rechargez la page ; si le problème persiste, le site est en cours de mise à jour ou un fichier a été modifié.',
};

const loaded = {};
const loading = {};

/**
 * Loads the strings of `lang` ('en' or 'fr') once: resolves when `translator(lang)` has them. A
 * failed load (network, integrity) rejects, and the next call tries again.
 */
export function loadLang(lang) {
  if (loaded[lang]) return Promise.resolve();
  if (!MODULES[lang]) return Promise.reject(new Error(`no interface strings for language ${lang}`));
  loading[lang] ??= MODULES[lang]().then(
    (m) => { loaded[lang] = m; },
    (e) => { delete loading[lang]; throw e; },
  );
  return loading[lang];
}

/**
 * Waits for every promise of `work` (a start's downloads, one of them `loadLang`) to settle and
 * returns the first rejected one in `work`'s order (`{status, reason}`), or null if none failed.
 * Unlike `Promise.all`, a failure that comes before the language's strings does not decide the
 * message alone: the caller shows it once the strings have come (or failed) too.
 */
export async function firstFailure(work) {
  return (await Promise.allSettled(work)).find((r) => r.status === 'rejected') || null;
}

/** Whether the strings of `lang` are loaded. */
export function hasLang(lang) {
  return Boolean(loaded[lang]);
}

/** The message for a language whose strings could not be loaded. */
export function unloadedText(lang) {
  return UNLOADED[lang] || UNLOADED.en;
}

/** The interface language: an explicit choice if valid, else the browser's, else English. */
export function pickLang(explicit, browserLangs = navigator.languages || [navigator.language]) {
  const norm = (l) => String(l || '').toLowerCase().split(/[-_]/)[0];
  if (LANGS.includes(norm(explicit))) return norm(explicit);
  for (const l of browserLangs) if (LANGS.includes(norm(l))) return norm(l);
  return 'en';
}

// Numbers as `Intl.NumberFormat` writes them for the two interface languages (en-GB: `12,345.6`;
// fr-FR: `12 345,6` with a narrow no-break space), written by hand: the first Intl formatter a
// page makes loads the locale data, 11–23 ms measured in Chromium, and the pickers' counts are
// on the way to the first result. `tests/browser/format.test.mjs` holds it to Intl's output.
const SEPARATORS = { en: [',', '.'], fr: ['\u202f', ','] };

/**
 * `x` with at least `min` and at most `max` fraction digits, digits grouped by three, in the
 * separators of `lang` ('en' or 'fr'). As Intl, it rounds the shortest decimal that reads back
 * as `x` (what `String(x)` writes: 0.15, not 0.1499…), half away from zero.
 */
export function formatNumber(x, lang, { min = 0, max = 0 } = {}) {
  if (!Number.isFinite(x)) return String(x);
  const [group, decimal] = SEPARATORS[lang] || SEPARATORS.en;
  // The shortest round-trip digits and where the decimal point falls among them.
  const m = /^(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/.exec(String(Math.abs(x)));
  let digits = m[1] + (m[2] || '');
  let point = m[1].length + (m[3] ? Number(m[3]) : 0);
  if (point <= 0) { digits = '0'.repeat(1 - point) + digits; point = 1; }
  if (point > digits.length) digits += '0'.repeat(point - digits.length);
  // Keep `max` fraction digits, rounding half up on the decimal digits.
  let kept = digits.slice(0, point + max);
  if (digits.length > point + max && digits[point + max] >= '5') {
    const d = kept.split('');
    let i = d.length - 1;
    while (i >= 0 && d[i] === '9') d[i--] = '0';
    if (i < 0) { d.unshift('1'); point += 1; } else d[i] = String(Number(d[i]) + 1);
    kept = d.join('');
  }
  const int = kept.slice(0, point).replace(/^0+(?=\d)/, '');
  let frac = kept.slice(point).padEnd(min, '0');
  while (frac.length > min && frac.endsWith('0')) frac = frac.slice(0, -1);
  const sign = x < 0 || Object.is(x, -0) ? '-' : '';
  return `${sign}${int.replace(/\B(?=(\d{3})+(?!\d))/g, group)}${frac ? decimal + frac : ''}`;
}

/**
 * A translator for one language: `t(key, params)`, plus value labels and number formats. Until
 * `loadLang(lang)` has resolved every string reads as empty (the caller shows them once it has).
 */
export function translator(lang) {
  const none = { STRINGS: {}, VALUES: {}, REASONS: [] };
  const strings = () => loaded[lang] || none;
  const t = (key, params = {}) => {
    const s = strings().STRINGS[key] ?? (loaded[lang] ? key : '');
    return s.replace(/\{(\w+)\}/g, (_, k) => (k in params ? String(params[k]) : `{${k}}`));
  };
  t.lang = lang;
  t.num = (n) => formatNumber(n, lang, { max: 3 });
  t.value = (field, v) => {
    if (v === undefined || v === null || v === '') return '';
    const values = strings().VALUES;
    return (values[field] && values[field][v]) || String(v);
  };
  t.field = (f) => t(`field.${f}`);
  t.size = (bytes) => (bytes >= 1e6
    ? t('size.mb', { n: formatNumber(bytes / 1e6, lang, { max: 1 }) })
    : t('size.kb', { n: t.num(Math.max(1, Math.round(bytes / 1e3))) }));
  t.ms = (x) => formatNumber(x, lang, { min: 1, max: 1 });
  t.score = (x) => formatNumber(x, lang, { min: 4, max: 4 });
  t.reason = (r) => {
    for (const [re, f] of strings().REASONS) {
      const m = re.exec(r);
      if (m) return f(m, t.value);
    }
    return r;
  };
  t.list = (items) => items.join(', ');
  return t;
}
