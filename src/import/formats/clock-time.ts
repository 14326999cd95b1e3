/**
 * Time stamps as transcript files write them: `01:02:03.456`, `1:02:03,456` (SubRip),
 * `0:00:05.120` (Teams: unpadded hours), `02:03.456` (WebVTT without hours), `1:02`. Seconds,
 * or undefined when `text` is no time.
 */
export function parseClock(text: string): number | undefined {
  const m = /^(?:(\d{1,3}):)?(\d{1,2}):(\d{2})(?:[.,](\d{1,3}))?$/.exec(text.trim());
  if (!m) return undefined;
  const [, h, mm, ss, frac] = m;
  const minutes = Number(mm);
  const seconds = Number(ss);
  if (seconds >= 60 || (h !== undefined && minutes >= 60)) return undefined;
  return Number(h ?? 0) * 3600 + minutes * 60 + seconds + (frac ? Number(frac.padEnd(3, '0')) / 1000 : 0);
}
