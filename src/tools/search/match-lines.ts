/**
 * The matching a search worker thread does (search-worker-thread.ts runs it; search-worker.ts
 * talks to the threads), and the messages they exchange. Plain functions with no Node
 * dependency, so they can also be run and tested on the main thread.
 *
 * Matching is per line, as the tool promises. For speed, a pattern without lookaround is run
 * once over the whole text (flags g and m, so ^ and $ work at line ends) to find candidate
 * lines, each confirmed with the pattern on the line alone: a match the line-by-line search
 * would find is also found this way, and one that spans lines is dropped by the check.
 * Lookaround could see past a line's end, so such patterns are tested line by line.
 */

/** Longest line text sent back; longer lines are cut and end with `…`. */
const MAX_TEXT = 500;

const CARRIAGE_RETURN = 13;

/** A keyword already translated to a JavaScript regular expression. */
export interface ThreadPattern {
  source: string;
  flags: string;
  /** True when whole-text scanning finds the same lines as testing line by line (no lookaround). */
  scan: boolean;
}

/** A file's text sent to a thread under its handle; `retain` keeps it for later searches. */
export interface ThreadPut {
  h: number;
  id: string;
  text: string;
  retain: boolean;
}

/** One search request: match `order` (handles, in result order) after applying `drop` and `put`. */
export interface ThreadRequest {
  id: number;
  patterns: ThreadPattern[];
  /** Matches kept (all are counted). */
  keep: number;
  order: Int32Array;
  put: ThreadPut[];
  drop: number[];
}

/** A matching line; `i` is the file's index in the request's order. */
export interface ThreadMatch {
  i: number;
  file: string;
  line: number;
  text: string;
}

export type ThreadReply =
  | { id: number; matches: ThreadMatch[]; count: number; error?: undefined }
  | { id: number; error: string; matches?: undefined; count?: undefined };

/** The thread's first message, once its code is loaded: it answers requests from now on. */
export const THREAD_READY = 'ready';

/** A text a thread holds: what the caller calls it and its content. */
export interface HeldText {
  id: string;
  text: string;
}

interface Compiled {
  line: RegExp;
  scan: RegExp | null;
}

function compile(patterns: readonly ThreadPattern[]): Compiled[] {
  return patterns.map((p) => ({
    line: new RegExp(p.source, p.flags),
    scan: p.scan ? new RegExp(p.source, p.flags.replace(/[gmy]/g, '') + 'gm') : null,
  }));
}

/** The line from start to end (a line feed, or the end of the text); a carriage return before the line feed belongs to the line ending. */
function lineText(text: string, start: number, end: number): string {
  if (end < text.length && end > start && text.charCodeAt(end - 1) === CARRIAGE_RETURN) end--;
  return text.slice(start, end);
}

function lineEnd(text: string, from: number): number {
  const end = text.indexOf('\n', from);
  return end < 0 ? text.length : end;
}

/** Start offsets of the lines the pattern matches, ascending. */
function matchingLines(text: string, c: Compiled): number[] {
  const out: number[] = [];
  const n = text.length;
  if (c.scan) {
    const re = c.scan;
    let from = 0;
    while (from <= n) {
      re.lastIndex = from;
      const m = re.exec(text);
      if (m === null) break;
      const i = m.index;
      const start = i === 0 ? 0 : text.lastIndexOf('\n', i - 1) + 1;
      if (start === n) break; // after the final line ending: no line there
      const end = lineEnd(text, i);
      if (c.line.test(lineText(text, start, end))) out.push(start);
      from = end + 1;
    }
  } else {
    let start = 0;
    while (start < n) {
      const end = lineEnd(text, start);
      if (c.line.test(lineText(text, start, end))) out.push(start);
      start = end + 1;
    }
  }
  return out;
}

/** Adds the file's matching lines to `matches` while fewer than `keep` are there; returns how many lines matched. */
function matchFile(file: HeldText, i: number, compiled: readonly Compiled[], matches: ThreadMatch[], keep: number): number {
  const text = file.text;
  let starts: number[];
  if (compiled.length === 1) starts = matchingLines(text, compiled[0]!);
  else {
    const all = new Set<number>();
    for (const c of compiled) for (const s of matchingLines(text, c)) all.add(s);
    starts = [...all].sort((a, b) => a - b);
  }
  if (starts.length === 0 || matches.length >= keep) return starts.length;
  let lineNo = 1;
  let pos = 0;
  for (const s of starts) {
    if (matches.length >= keep) break;
    // Count the line feeds before this line, continuing from the previous one.
    for (;;) {
      const k = text.indexOf('\n', pos);
      if (k < 0 || k >= s) break;
      lineNo++;
      pos = k + 1;
    }
    const line = lineText(text, s, lineEnd(text, s));
    matches.push({ i, file: file.id, line: lineNo, text: line.length > MAX_TEXT ? line.slice(0, MAX_TEXT) + '…' : line });
  }
  return starts.length;
}

/**
 * Answer one request. `store` is what the thread keeps between requests: dropped handles
 * leave it, retained texts join it; the other texts serve this request only. Never throws:
 * a failure (an unknown handle, a pattern the engine refuses) is the reply's `error`.
 */
export function answerRequest(store: Map<number, HeldText>, msg: ThreadRequest): ThreadReply {
  try {
    for (const h of msg.drop) store.delete(h);
    const temp = new Map<number, HeldText>();
    for (const f of msg.put) (f.retain ? store : temp).set(f.h, { id: f.id, text: f.text });
    const compiled = compile(msg.patterns);
    const matches: ThreadMatch[] = [];
    let count = 0;
    for (let i = 0; i < msg.order.length; i++) {
      const h = msg.order[i]!;
      const file = temp.get(h) ?? store.get(h);
      if (file === undefined) throw new Error(`file ${h} is not in the search cache`);
      count += matchFile(file, i, compiled, matches, msg.keep);
    }
    return { id: msg.id, matches, count };
  } catch (err) {
    return { id: msg.id, error: err instanceof Error && err.message ? err.message : String(err) };
  }
}
