import { cutToBytes } from '../files/fs.js';

/**
 * How new meeting notes are named (docs/design.md §6 `session start`, §9 imports):
 * `<YYYY-MM-DD HHmm> <title>.md`, local time, the title made safe for a file name.
 */

/** Characters Obsidian and the common file systems do not allow in a note's name. */
const FORBIDDEN = /[\\/:*?"<>|#^[\]\u0000-\u001f\u007f]/g;

/** The title as a file name: forbidden characters become `-`, no leading/trailing dots or spaces. */
export function fileNameOfTitle(title: string): string {
  return title.replace(FORBIDDEN, '-').replace(/\s+/g, ' ').trim().replace(/[. ]+$/, '');
}

const pad = (n: number, width = 2) => String(Math.abs(n)).padStart(width, '0');

/** `2026-11-30 0900`: the local-time prefix of session note names. */
export function sessionStamp(date: Date): string {
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}${pad(date.getMinutes())}`;
}

/** Local time with its UTC offset, to the second: `2026-11-30T09:00:00+01:00`, as recorders write it. */
export function localIsoTime(date: Date): string {
  const offset = -date.getTimezoneOffset();
  const sign = offset >= 0 ? '+' : '-';
  return (
    `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}` +
    `T${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}` +
    `${sign}${pad(Math.trunc(Math.abs(offset) / 60))}:${pad(Math.abs(offset) % 60)}`
  );
}

/**
 * The most a name the daemon makes may hold (docs/design.md §9 "Limits"): 255 bytes less room
 * for what is added to it later — ` (2)` when taken, a trash copy's time stamp (25 bytes), and
 * an atomic write's temporary name beside it (29 bytes).
 */
export const MADE_NAME_MAX_BYTES = 180;

/**
 * `<YYYY-MM-DD HHmm> <title>` for a note name ending in `suffix` (`.md`), the title cut so that
 * the whole stays within MADE_NAME_MAX_BYTES: the date and the start of the title are kept.
 */
export function sessionNoteStem(date: Date, safeTitle: string, suffix = '.md'): string {
  const stamp = `${sessionStamp(date)} `;
  return stamp + cutToBytes(safeTitle, MADE_NAME_MAX_BYTES - Buffer.byteLength(stamp) - Buffer.byteLength(suffix));
}
