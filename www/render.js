// Corpus text → DOM: the Markdown-ish conventions of the chunks (fenced code, pipe tables,
// paragraphs, list items, headings, **strong**, *em*, `code`) for "Show the whole section" and
// the snippets of result cards.
// Corpus text is hostile input: every node is built with createElement and text nodes, never by
// parsing HTML; no attribute takes corpus text except a code block's language class, and only
// after a whitelist. Markup that does not parse (a lone `**`, an unclosed backtick) stays text,
// except in snippets, where the window may have cut its other half off.

const FENCE = /^([ \t]*)(`{3,}|~{3,})(.*)$/;
const HEADING = /^[ \t]{0,3}(#{1,6})[ \t\u00a0]+/;
const LIST_ITEM = /^[ \t]*([-*+]|(\d{1,3})[.)])[ \t]+(?=\S)/;
const TABLE_SEP = /^[ \t]*\|?[ \t]*:?-+:?[ \t]*(\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$/;
const LANG = /^[\w+#.-]{1,24}$/;
// A line that reads like program text (only to tell where a text cut inside a code block starts).
const CODE_LINE = /^\s*(>>>|\.\.\.\s|def\s|class\s|return\b|import\s|from\s\S+\simport\b|(for|while|if|elif|with)\s.*:$|else\s*:|try\s*:|except\b|print\(|[\w.[\]]+\s*(=|\+=|-=|\*=|\/=)\s*\S)|[;{}]\s*$|\)\s*:\s*$|^( {4,}|\t)\S/;
const ESCAPABLE = new Set(['\\', '`', '*', '_', '|', '$', '#', '[', ']']);
const WORD = /[\p{L}\p{N}]/u;
const SPACE = /\s/;
const MAX_NESTING = 4;

/**
 * `text` as DOM nodes (an array): fenced code blocks as `<pre><code>` with their whitespace kept,
 * pipe tables as `<table>`, paragraphs (split by blank lines, line breaks kept), list items,
 * headings and inline strong, emphasis and code.
 */
export function richText(text) {
  const src = String(text ?? '');
  return renderBlocks(new Source(src, [], false), parseBlocks(src, lines(src, 0, src.length), false));
}

/**
 * A snippet (`[{text, hit}]`, verbatim substrings of the chunk with the query's matches marked)
 * as DOM nodes: the same rendering as `richText`, with `<mark>` around the matches. A snippet is a
 * window of the text: it may start inside a code block (its fence line is outside the window), so
 * a closing fence with no opening one makes the lines before it code; the engine's "…" at either
 * end of a cut window are kept as text outside the blocks.
 */
export function snippetNodes(segments) {
  let src = '';
  const marks = [];
  for (const seg of segments || []) {
    const text = String(seg.text ?? '');
    if (seg.hit && text) marks.push([src.length, src.length + text.length]);
    src += text;
  }
  let a = 0;
  let b = src.length;
  const lead = src.startsWith('…');
  if (lead) a = 1;
  const trail = b > a && src.endsWith('…');
  if (trail) b -= 1;
  const nodes = renderBlocks(new Source(src, marks, true), parseBlocks(src, lines(src, a, b), lead));
  if (lead) edge(nodes, 'prepend');
  if (trail) edge(nodes, 'append');
  return nodes;
}

// The "…" of a cut window: inside the first/last paragraph, else as its own line.
function edge(nodes, where) {
  const at = where === 'prepend' ? nodes[0] : nodes[nodes.length - 1];
  if (at && at.classList.contains('rt-p')) at[where]('…');
  else if (where === 'prepend') nodes.unshift(textBlock('…'));
  else nodes.push(textBlock('…'));
}

function textBlock(text) {
  const p = document.createElement('p');
  p.className = 'rt-p';
  p.textContent = text;
  return p;
}

// The text with its highlighted ranges; `lenient`: a snippet (unmatched `**`, `__` and backtick
// runs, cut off by the window, are dropped rather than shown).
class Source {
  constructor(src, marks, lenient) {
    this.src = src;
    this.marks = marks;
    this.lenient = lenient;
  }

  /** Appends src[s, e) to `parent` as text, inside `<mark>` where it overlaps a match. */
  text(parent, s, e) {
    let at = s;
    for (const [ms, me] of this.marks) {
      if (me <= at || ms >= e) continue;
      if (ms > at) parent.append(this.src.slice(at, ms));
      const m = document.createElement('mark');
      m.textContent = this.src.slice(Math.max(ms, at), Math.min(me, e));
      parent.append(m);
      at = Math.min(me, e);
    }
    if (at < e) parent.append(this.src.slice(at, e));
  }
}

// Lines of src[a, b) as {s, e} ranges (e before the newline).
function lines(src, a, b) {
  const out = [];
  let s = a;
  for (;;) {
    const nl = src.indexOf('\n', s);
    if (nl === -1 || nl >= b) {
      out.push({ s, e: b });
      return out;
    }
    out.push({ s, e: nl > s && src[nl - 1] === '\r' ? nl - 1 : nl });
    s = nl + 1;
  }
}

const lineText = (src, l) => src.slice(l.s, l.e);
const blank = (src, l) => !lineText(src, l).trim();

function fenceOf(src, l) {
  const m = FENCE.exec(lineText(src, l));
  if (!m) return null;
  // A backtick fence's info string has no backtick (```a``` starting a line is inline code).
  if (m[2][0] === '`' && m[3].includes('`')) return null;
  return { indent: m[1].length, ch: m[2][0], len: m[2].length, info: m[3].trim() };
}

const closes = (f, open) => f && f.ch === open.ch && f.len >= open.len && f.info === '';

// A line without up to `n` leading blanks (the fence's own indentation, for code under a list
// item or an admonition).
function dedent(src, l, n) {
  let s = l.s;
  while (s < l.e && s - l.s < n && (src[s] === ' ' || src[s] === '\t')) s += 1;
  return { s, e: l.e };
}

function codeScore(src, ls) {
  const full = ls.filter((l) => !blank(src, l));
  return full.length ? full.filter((l) => CODE_LINE.test(lineText(src, l))).length / full.length : 0;
}

// The index of a first fence line that closes a code block opened before the text (-1 when it
// opens one, or there is none): a snippet is a window that can start inside a block, and a chunk
// too can start inside one (the chunker cut a long block). Only an opening fence carries a
// language, so the first fence with one fixes the parity of those before it; with none, in a
// window (`cut`), the side that reads more like code is the inside.
function leadingCloser(src, ls, cut) {
  const fences = [];
  ls.forEach((l, i) => { const f = fenceOf(src, l); if (f) fences.push([i, f]); });
  if (!fences.length) return -1;
  const k = fences.findIndex(([, f]) => f.info !== '');
  if (k === 0) return -1;
  if (k > 0) return k % 2 === 1 ? fences[0][0] : -1;
  if (!cut) return -1;
  const first = fences[0][0];
  const next = fences[1] ? fences[1][0] : ls.length;
  return codeScore(src, ls.slice(0, first)) > codeScore(src, ls.slice(first + 1, next)) ? first : -1;
}

function splitCells(src, l) {
  let s = l.s;
  let e = l.e;
  while (s < e && SPACE.test(src[s])) s += 1;
  while (e > s && SPACE.test(src[e - 1])) e -= 1;
  if (src[s] === '|') s += 1;
  if (e > s && src[e - 1] === '|' && src[e - 2] !== '\\') e -= 1;
  const cells = [];
  let start = s;
  for (let i = s; i <= e; i += 1) {
    if (i === e || (src[i] === '|' && src[i - 1] !== '\\')) {
      let cs = start;
      let ce = i;
      while (cs < ce && SPACE.test(src[cs])) cs += 1;
      while (ce > cs && SPACE.test(src[ce - 1])) ce -= 1;
      cells.push({ s: cs, e: ce });
      start = i + 1;
    }
  }
  return cells;
}

const isRow = (src, l) => /^\s*\|.*\|/.test(lineText(src, l));
const hasPipe = (src, l) => lineText(src, l).includes('|');
const isSep = (src, l) => hasPipe(src, l) && TABLE_SEP.test(lineText(src, l));

// A table starting at line i: {block, next} or null. A header when a separator row follows the
// first row; without one, at least two rows that start with a pipe.
function tableAt(src, ls, i) {
  const headed = i + 1 < ls.length && hasPipe(src, ls[i]) && !isSep(src, ls[i]) && isSep(src, ls[i + 1]);
  if (!headed && !(i + 1 < ls.length && isRow(src, ls[i]) && isRow(src, ls[i + 1]))) return null;
  const rows = [];
  let j = headed ? i + 2 : i;
  while (j < ls.length && (headed ? hasPipe(src, ls[j]) && !blank(src, ls[j]) : isRow(src, ls[j]))) {
    if (!isSep(src, ls[j])) rows.push(splitCells(src, ls[j]));
    j += 1;
  }
  return { block: { type: 'table', header: headed ? splitCells(src, ls[i]) : null, rows }, next: j };
}

// Whether line i begins a block other than a paragraph (so it ends the paragraph before it).
const startsBlock = (src, ls, i) => fenceOf(src, ls[i]) || HEADING.test(lineText(src, ls[i]))
  || LIST_ITEM.test(lineText(src, ls[i])) || tableAt(src, ls, i);

function parseBlocks(src, ls, cut) {
  const blocks = [];
  let i = 0;
  const closer = leadingCloser(src, ls, cut);
  if (closer >= 0) {
    // A whole chunk starts with its heading line ("Fonctions — 5.2 …"), then the cut block.
    if (!cut && closer > 0 && !CODE_LINE.test(lineText(src, ls[0]))) {
      blocks.push({ type: 'p', lines: [ls[0]] });
      i = 1;
    }
    const f = fenceOf(src, ls[closer]);
    const body = ls.slice(i, closer).map((l) => dedent(src, l, f.indent));
    while (body.length && blank(src, body[0])) body.shift();
    if (body.length) blocks.push({ type: 'code', info: '', lines: body });
    i = closer + 1;
  }
  while (i < ls.length) {
    const l = ls[i];
    const t = lineText(src, l);
    if (!t.trim()) { i += 1; continue; }
    const f = fenceOf(src, l);
    if (f) {
      const body = [];
      let j = i + 1;
      while (j < ls.length && !closes(fenceOf(src, ls[j]), f)) body.push(dedent(src, ls[j], f.indent)), j += 1;
      // Blank lines before the closing fence (or the end of a cut window) only pad the block.
      while (body.length && blank(src, body[body.length - 1])) body.pop();
      blocks.push({ type: 'code', info: f.info.split(/\s/)[0], lines: body });
      i = j + 1;
      continue;
    }
    const h = HEADING.exec(t);
    if (h) {
      // Without a closing run of #s ("## Title ##"), which needs a blank before it ("# C#" stays).
      const tail = /([ \t]+#+)?[ \t]*$/.exec(t.slice(h[0].length));
      blocks.push({ type: 'heading', line: { s: l.s + h[0].length, e: l.e - tail[0].length } });
      i += 1;
      continue;
    }
    const table = tableAt(src, ls, i);
    if (table) {
      blocks.push(table.block);
      i = table.next;
      continue;
    }
    const item = LIST_ITEM.exec(t);
    if (item) {
      i = parseList(src, ls, i, blocks);
      continue;
    }
    const para = [l];
    i += 1;
    while (i < ls.length && !blank(src, ls[i]) && !startsBlock(src, ls, i)) para.push(ls[i]), i += 1;
    blocks.push({ type: 'p', lines: para });
  }
  return blocks;
}

// List items from line i (bulleted or numbered; items separated by blank lines stay one list;
// continuation lines join their item). Returns the next line.
function parseList(src, ls, i, blocks) {
  const first = LIST_ITEM.exec(lineText(src, ls[i]));
  const ordered = Boolean(first[2]);
  const list = { type: 'list', ordered, start: ordered ? Number(first[2]) : 1, items: [] };
  blocks.push(list);
  while (i < ls.length) {
    const m = LIST_ITEM.exec(lineText(src, ls[i]));
    if (!m || Boolean(m[2]) !== ordered) break;
    const item = [{ s: ls[i].s + m[0].length, e: ls[i].e }];
    list.items.push(item);
    i += 1;
    while (i < ls.length && !blank(src, ls[i]) && !startsBlock(src, ls, i)) {
      const l = ls[i];
      let s = l.s;
      while (s < l.e && SPACE.test(src[s])) s += 1;
      item.push({ s, e: l.e });
      i += 1;
    }
    let j = i;
    while (j < ls.length && blank(src, ls[j])) j += 1;
    const next = j < ls.length && LIST_ITEM.exec(lineText(src, ls[j]));
    if (!next || Boolean(next[2]) !== ordered) return i;
    i = j;
  }
  return i;
}

function make(tag, className) {
  const e = document.createElement(tag);
  if (className) e.className = className;
  return e;
}

// Inline content of several lines, with a <br> between them.
function inlineLines(out, parent, ls) {
  ls.forEach((l, k) => {
    if (k > 0) parent.append(make('br'));
    inline(out, parent, l.s, l.e);
  });
  return parent;
}

function renderBlocks(out, blocks) {
  return blocks.map((b) => {
    switch (b.type) {
      case 'code': {
        const pre = make('pre', 'rt-code');
        const code = make('code', LANG.test(b.info) ? `language-${b.info.toLowerCase()}` : '');
        b.lines.forEach((l, k) => {
          if (k > 0) code.append('\n');
          out.text(code, l.s, l.e);
        });
        pre.append(code);
        return pre;
      }
      case 'heading': {
        const p = make('p', 'rt-h');
        p.append(inline(out, make('strong'), b.line.s, b.line.e));
        return p;
      }
      case 'table': {
        const table = make('table', 'rt-table');
        if (b.header) {
          const tr = make('tr');
          for (const c of b.header) {
            const th = make('th');
            th.setAttribute('scope', 'col');
            tr.append(inline(out, th, c.s, c.e));
          }
          table.append(make('thead'));
          table.tHead.append(tr);
        }
        const body = make('tbody');
        for (const row of b.rows) {
          const tr = make('tr');
          for (const c of row) tr.append(inline(out, make('td'), c.s, c.e));
          body.append(tr);
        }
        table.append(body);
        return table;
      }
      case 'list': {
        const list = make(b.ordered ? 'ol' : 'ul', 'rt-list');
        if (b.ordered && b.start !== 1) list.setAttribute('start', String(b.start));
        for (const item of b.items) list.append(inlineLines(out, make('li'), item));
        return list;
      }
      default:
        return inlineLines(out, make('p', 'rt-p'), b.lines);
    }
  });
}

// The length of the run of `ch` at i.
function run(src, i, e, ch) {
  let j = i;
  while (j < e && src[j] === ch) j += 1;
  return j - i;
}

// The end of the code span opened by the backtick run at i (the index after its closing run), or -1.
function codeSpanEnd(src, i, e) {
  const n = run(src, i, e, '`');
  for (let j = i + n; j < e;) {
    if (src[j] !== '`') { j += 1; continue; }
    const m = run(src, j, e, '`');
    if (m === n) return j + m;
    j += m;
  }
  return -1;
}

// The end of the $…$ span at i (pandoc's rule: no blank inside either dollar, no digit after the
// closing one, so "$40 … $1,300" is money), or -1.
function mathEnd(src, i, e) {
  if (src[i + 1] === '$' || i + 1 >= e || SPACE.test(src[i + 1])) return -1;
  for (let j = i + 1; j < e; j += 1) {
    if (src[j] === '\\') { j += 1; continue; }
    if (src[j] === '$') return !SPACE.test(src[j - 1]) && !/\d/.test(src[j + 1] || '') ? j + 1 : -1;
  }
  return -1;
}

const isWord = (c) => c !== undefined && WORD.test(c);
const isSpace = (c) => c === undefined || SPACE.test(c);

// Whether `d` (`**`, `__` or `*`) at i opens emphasis: 'tight' (`**x**`), 'loose' (`** x **`, as
// some course pages write it: only for `**` after a blank or at the start), or false.
function opens(src, i, d) {
  const after = src[i + d.length];
  if (d === '**' && isSpace(after) && after !== undefined && !isSpace(src[i + 3]) && isSpace(src[i - 1])) return 'loose';
  if (isSpace(after) || (d === '*' && after === '*')) return false;
  return d !== '**' && isWord(src[i - 1]) ? false : 'tight';
}

function closesAt(src, i, d) {
  const before = src[i - 1];
  if (isSpace(before) || (d === '*' && (before === '*' || src[i + 1] === '*'))) return false;
  return !(d !== '**' && isWord(src[i + d.length]));
}

// The closing delimiter of emphasis opened at i, skipping code and math spans; -1 if none. A loose
// `** x **` closes at the next `**` only, after a letter and before a blank or punctuation
// (so "2 ** 3 ** 4" stays text).
function closerOf(src, i, e, d, how) {
  for (let j = i + d.length; j < e; j += 1) {
    const c = src[j];
    if (c === '\\') { j += 1; continue; }
    if (c === '`') {
      const end = codeSpanEnd(src, j, e);
      j = end === -1 ? j + run(src, j, e, '`') - 1 : end - 1;
      continue;
    }
    if (c === '$') {
      const end = mathEnd(src, j, e);
      if (end !== -1) j = end - 1;
      continue;
    }
    if (how === 'loose' && src.startsWith('**', j)) {
      const ok = !isWord(src[j + 2]) && src[j + 2] !== '*' && /\p{L}/u.test(src.slice(i + 2, j));
      return ok ? j : -1;
    }
    if (src.startsWith(d, j) && (d !== '*' || src[j + 1] !== '*') && closesAt(src, j, d)) {
      // Content besides the delimiter's own character ("_____" is a blank to fill in).
      if (/[^\s*_]/.test(src.slice(i + d.length, j))) return j;
    }
    if (d === '*' && c === '*') j += run(src, j, e, '*') - 1;
  }
  return -1;
}

/**
 * Appends src[a, b) to `parent` with inline strong, emphasis and code; returns `parent`. A
 * delimiter whose closer was not found is not searched again (hostile text full of `*` stays
 * linear), and emphasis nests at most MAX_NESTING deep.
 */
function inline(out, parent, a, b, depth = 0) {
  const { src } = out;
  const unclosed = new Set();
  let from = a;
  const flush = (to) => { if (to > from) out.text(parent, from, to); };
  for (let i = a; i < b;) {
    const c = src[i];
    if (c === '\\' && ESCAPABLE.has(src[i + 1]) && i + 1 < b) {
      flush(i);
      from = i + 1;
      i += 2;
      continue;
    }
    if (c === '`') {
      const n = run(src, i, b, '`');
      const end = codeSpanEnd(src, i, b);
      if (end === -1) {
        if (out.lenient && n >= 2) { flush(i); from = i + n; }
        i += n;
        continue;
      }
      flush(i);
      let s = i + n;
      let e = end - n;
      // One blank on each side is padding (`` `x` `` shows `x`).
      if (e - s >= 2 && src[s] === ' ' && src[e - 1] === ' ' && src.slice(s, e).trim()) { s += 1; e -= 1; }
      const code = make('code');
      out.text(code, s, e);
      parent.append(code);
      from = end;
      i = end;
      continue;
    }
    if (c === '$') {
      const end = mathEnd(src, i, b);
      i = end === -1 ? i + 1 : end;
      continue;
    }
    if (c === '*' || c === '_') {
      const n = run(src, i, b, c);
      // Longer runs are not markup ("_____" is a blank to fill in, "****" a rule).
      const d = n > 3 ? null : n >= 2 ? c + c : c === '*' ? '*' : null;
      const how = d && depth < MAX_NESTING && opens(src, i, d);
      if (how && (how === 'loose' || !unclosed.has(d))) {
        const j = closerOf(src, i, b, d, how);
        if (j === -1) { if (how === 'tight') unclosed.add(d); } else {
          flush(i);
          parent.append(inline(out, make(d.length === 2 ? 'strong' : 'em'), i + d.length, j, depth + 1));
          from = j + d.length;
          i = from;
          continue;
        }
      }
      if (out.lenient && n === 2) { flush(i); from = i + n; }
      i += n;
      continue;
    }
    i += 1;
  }
  flush(b);
  return parent;
}
