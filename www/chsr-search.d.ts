// TypeScript types of the <chsr-search> element (www/chsr-search.js).
import type { Scope } from './chsr-client.js';

export interface ChsrResultsDetail {
  query: string;
  /** The scope searched: the locked attributes plus the student's picks. */
  scope: Scope;
  /** Results shown. */
  shown: number;
  /** Widened results dropped because they left a locked field. */
  hidden: number;
}

export class ChsrSearchElement extends HTMLElement {
  /** The scope fixed by the attributes (subject, level, doc-type, chapter, year, paper, exam, content-lang). */
  readonly lock: Scope;
  /** Results per search (attribute `k`, 1–50, default 8). */
  readonly k: number;
}

declare global {
  interface HTMLElementTagNameMap { 'chsr-search': ChsrSearchElement }
  interface HTMLElementEventMap { 'chsr-results': CustomEvent<ChsrResultsDetail> }
}
