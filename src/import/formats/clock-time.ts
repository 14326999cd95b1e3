/**
 * Time stamps as transcript files write them: `01:02:03.456`, `1:02:03,456` (SubRip),
 * `0:0:3.0` and `00:00:0,500` (old Teams and Stream exports, hand-edited subtitles: any field
 * unpadded), `02:03.456` (WebVTT without hours), `1:02`. Seconds, or undefined when `text` is
 * no time; `99:99:99.999` and `-00:00:01.000` are none (docs/design.md §9, Limits).
 */
export function parseClock(text: string): number | undefined {
  const m = /^(?:(\d{1,3}):)?(\d{1,2}):(\d{1,2})(?:[.,](\d{1,9}))?$/.exec(text.trim());
  if (!m) return undefined;
  const [, h, mm, ss, frac] = m;
  const minutes = Number(mm);
  const seconds = Number(ss);
  if (seconds >= 60 || (h !== undefined && minutes >= 60)) return undefined;
  return Number(h ?? 0) * 3600 + minutes * 60 + seconds + (frac ? Number(`0.${frac}`) : 0);
}

/**
 * The longest a meeting can run: a time beyond it (whisper JSON `1e308`) is no time. A note
 * never shows `NaN`, `Infinity` or a 300-digit hour (docs/design.md §9, Limits).
 */
export const LONGEST_SECONDS = 100 * 3600;

export function isPossibleTime(seconds: number | undefined): seconds is number {
  return typeof seconds === 'number' && Number.isFinite(seconds) && seconds >= 0 && seconds <= LONGEST_SECONDS;
}
