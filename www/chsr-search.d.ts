// TypeScript types of the <chsr-search> element (www/chsr-search.js).
import type { Hit, Scope, Trace } from './chsr-client.js';

/**
 * The element's attributes: `manifest` (required), the scope attributes (each one given is
 * locked), `lang` (interface language, `en`/`fr`), `k` (results, 1–50), `dense` (present:
 * the meaning search too, its model and vectors downloaded after the first result; default:
 * keywords only), `link-target` (`_self`: results open in the same tab; default: a new tab),
 * `sync-url` (present: the box starts from the page URL's `q` and picks — `subject`, `level`,
 * `doc_type`, `chapter`, `year`, `paper`, checked by the engine, never over a locked field — and
 * the URL follows the search shown, by `history.replaceState`, other parameters kept).
 */
export type ChsrSearchAttribute =
  | 'manifest' | 'lang' | 'k' | 'dense' | 'link-target' | 'sync-url'
  | 'subject' | 'level' | 'doc-type' | 'chapter' | 'year' | 'paper' | 'exam' | 'content-lang';

export interface ChsrResultsDetail {
  query: string;
  /** The scope searched: the student's picks, the locked attributes and `lock` naming them. */
  scope: Scope;
  /** Results shown. */
  shown: number;
  /** The results shown, as the engine returned them (inside every locked field). */
  results: Hit[];
  /** What the search did (relaxation steps a lock skipped, withheld section chunks…). */
  trace: Trace;
}

/**
 * `<chsr-search>`. Its `data-state` attribute says where it is: `loading`, `ready`, `searching`,
 * `done` or `error`; `data-searches` counts the searches finished.
 */
export class ChsrSearchElement extends HTMLElement {
  /** The attributes whose change restarts the element (all but `link-target`, read at each render). */
  static readonly observedAttributes: ChsrSearchAttribute[];
  /** The scope fixed by the attributes (subject, level, doc-type, chapter, year, paper, exam, content-lang). */
  readonly lock: Scope;
  /** The scope searched: the student's picks plus the locked values, with `lock` naming the locked fields. */
  readonly scope: Scope;
  /** Results per search (attribute `k`, 1–50, default 8). */
  readonly k: number;
}

// `chsr-results` bubbles out of the shadow root (composed): listen on the element or the document.
declare global {
  interface HTMLElementTagNameMap { 'chsr-search': ChsrSearchElement }
  interface HTMLElementEventMap { 'chsr-results': CustomEvent<ChsrResultsDetail> }
  interface DocumentEventMap { 'chsr-results': CustomEvent<ChsrResultsDetail> }
}
