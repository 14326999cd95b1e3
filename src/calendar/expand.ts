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
