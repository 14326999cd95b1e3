import path from 'node:path';

/**
 * What a transcript's file name says about its meeting (docs/design.md §9): the title (the
 * name without its extension and without a date or time) and, when the name carries one, the
 * start: `2026-12-02 1000`, `2026-12-02T10-00`, `20261202_1000`, `2026-12-02 10.00.30`, Zoom's
 * `GMT20261202-090000` (UTC). Other dates are local time.
 */
export interface NameFacts {
  title: string;
  start?: Date;
}

const ZOOM = /GMT(\d{4})(\d{2})(\d{2})-(\d{2})(\d{2})(\d{2})/;
const LOCAL = /(?<!\d)(\d{4})-?(\d{2})-?(\d{2})(?:[ T_-]+(\d{2})[-:.h]?(\d{2})(?:[-:.]?(\d{2}))?)?(?!\d)/;

/** Second extensions the tools add before the real one (`….transcript.vtt`, `….cc.vtt`). */
const INNER_EXTENSION = /\.(transcript|cc|captions|en|[a-z]{2}-[A-Z]{2})$/i;

export function factsOfName(fileName: string): NameFacts {
  let stem = path.basename(fileName, path.extname(fileName)).replace(INNER_EXTENSION, '');
  let start: Date | undefined;
  const zoom = ZOOM.exec(stem);
  const local = zoom ? undefined : LOCAL.exec(stem);
  if (zoom) {
    const [, y, mo, d, h, mi, s] = zoom.map(Number) as number[];
    start = new Date(Date.UTC(y!, mo! - 1, d!, h!, mi!, s!));
    stem = stem.replace(zoom[0], ' ');
  } else if (local) {
    const [y, mo, d, h, mi, s] = local.slice(1).map((v) => (v === undefined ? undefined : Number(v)));
    const date = new Date(y!, mo! - 1, d!, h ?? 0, mi ?? 0, s ?? 0);
    if (date.getMonth() === mo! - 1 && date.getDate() === d && (h ?? 0) < 24 && (mi ?? 0) < 60) {
      // A date without a time gives the day, not the start: the caller then takes the file's time.
      if (h !== undefined) start = date;
      stem = stem.replace(local[0], ' ');
    }
  }
  const title = stem.replace(/^[\s_\-–—.,]+|[\s_\-–—.,]+$/g, '').replace(/\s{2,}/g, ' ');
  return { title: title === '' ? 'Imported meeting' : title, ...(start ? { start } : {}) };
}
