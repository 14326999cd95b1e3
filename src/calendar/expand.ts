import { readIcs } from './read-ics.js';
import { type CalendarEvent, narrowest, type Span } from './types.js';

/**
 * What one expansion is asked and answers: the texts of the sources, read for one span of time.
 * Runs in the reading thread (read-thread.ts, docs/design.md §12: a large calendar never stalls
 * the daemon's watcher or HTTP API) or in place (tests, the bench).
 */

export interface ExpandRequest {
  sources: { name: string; texts: string[] }[];
  from: number;
  to: number;
  defaultZone: string;
  me: string[];
  /** See ReadOptions.focus: the kept window passes now. */
  focus?: number;
}

export interface SourceEvents {
  name: string;
  events: CalendarEvent[];
  /** Events the texts hold (a series counted once). */
  count: number;
  /** Events or files passed over because they could not be read. */
  unreadable: number;
  /** Why nothing of it could be read; undefined when something could. */
  error?: string;
  /** Where a series had more slots than are followed: the span in which its events are whole. */
  complete?: Span;
}

export type Expand = (request: ExpandRequest) => Promise<SourceEvents[]>;

export function expandNow(request: ExpandRequest): SourceEvents[] {
  return request.sources.map(({ name, texts }) => {
    const out: SourceEvents = { name, events: [], count: 0, unreadable: 0 };
    let failed = 0;
    for (const text of texts) {
      try {
        const r = readIcs(text, { source: name, from: request.from, to: request.to, defaultZone: request.defaultZone, me: request.me, focus: request.focus });
        out.events.push(...r.events);
        if (r.complete) out.complete = narrowest(out.complete, r.complete);
        out.count += r.count;
        out.unreadable += r.unreadable;
      } catch {
        failed++;
      }
    }
    if (failed > 0 && failed === texts.length) out.error = texts.length === 1 ? 'not an iCalendar file' : 'none of its files is an iCalendar file';
    else out.unreadable += failed;
    out.events.sort((a, b) => a.start.getTime() - b.start.getTime());
    return out;
  });
}

/** The fields of an event that a series' instances share, whose text can be long (a 100,000-character agenda). */
const SHARED_TEXTS = ['description', 'title', 'location'] as const;

/**
 * Results as they cross from the reading thread to the daemon's: a structured clone copies a
 * string once for every event that holds it, so a minutely series with a long description was
 * that description 13,000 times over in the daemon's heap (1.3 GB from one invitation). Each
 * distinct text crosses once, the events name it by its index, and `unpackResults` puts the
 * one string back into every event.
 */
export interface PackedResults {
  results: SourceEvents[];
  texts: string[];
}

/** Mutates `results` (the thread's own, about to be dropped): the shared texts become indexes. */
export function packResults(results: SourceEvents[]): PackedResults {
  const texts: string[] = [];
  const index = new Map<string, number>();
  for (const r of results) {
    for (const e of r.events) {
      const packed = e as unknown as Record<string, string | number>;
      for (const field of SHARED_TEXTS) {
        const text = e[field];
        let i = index.get(text);
        if (i === undefined) index.set(text, (i = texts.push(text) - 1));
        packed[field] = i;
      }
    }
  }
  return { results, texts };
}

export function unpackResults(packed: PackedResults): SourceEvents[] {
  for (const r of packed.results) {
    for (const e of r.events) {
      const fields = e as unknown as Record<string, string | number>;
      for (const field of SHARED_TEXTS) fields[field] = packed.texts[fields[field] as number] ?? '';
    }
  }
  return packed.results;
}
