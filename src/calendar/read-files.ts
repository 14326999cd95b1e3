import path from 'node:path';
import { type Fs, isNotFound, readText } from '../vault/files/fs.js';
import { MeetingAssistantError } from '../errors.js';

/**
 * A `Path` source (docs/design.md §12): one `.ics` file, or a folder of them as vdirsyncer keeps
 * a CalDAV calendar (one event a file). No file larger than `maxBytes` is read, nor a folder
 * whose files add up to more.
 */

/** A calendar file or folder that cannot be read, said for people. */
export class CalendarFileError extends MeetingAssistantError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, true, options);
  }
}

/** A calendar file of a source folder: an `.ics`, not a hidden one (a sync tool's or an editor's). */
export function isCalendarFileName(name: string): boolean {
  return name.toLowerCase().endsWith('.ics') && !name.startsWith('.');
}

/** What changes when the source changes: the files' names, sizes and times. */
export async function pathSignature(fs: Fs, abs: string): Promise<string> {
  try {
    const stat = await fs.stat(abs);
    if (!stat.isDirectory()) return `${stat.size}:${stat.mtimeMs}`;
    const parts: string[] = [];
    for (const entry of await fs.readdir(abs, { withFileTypes: true })) {
      if (!isCalendarFileName(entry.name)) continue;
      const s = await fs.stat(path.join(abs, entry.name)).catch(() => undefined);
      if (s?.isFile()) parts.push(`${entry.name}:${s.size}:${s.mtimeMs}`);
    }
    return `dir:${parts.sort().join('|')}`;
  } catch (err) {
    return isNotFound(err) ? 'missing' : 'unreadable';
  }
}

export async function readCalendarPath(fs: Fs, abs: string, maxBytes: number): Promise<string[]> {
  let stat;
  try {
    stat = await fs.stat(abs);
  } catch (err) {
    throw new CalendarFileError(isNotFound(err) ? 'the file or folder does not exist' : `it cannot be read (${(err as { code?: string }).code ?? 'error'})`);
  }
  if (!stat.isDirectory()) {
    if (stat.size > maxBytes) throw new CalendarFileError(`larger than ${maxBytes} bytes (Agent.MaxFileBytes)`);
    return [await readText(fs, abs)];
  }
  const texts: string[] = [];
  let total = 0;
  const names = (await fs.readdir(abs, { withFileTypes: true }))
    .filter((e) => isCalendarFileName(e.name))
    .map((e) => e.name)
    .sort();
  for (const name of names) {
    const file = path.join(abs, name);
    const s = await fs.stat(file).catch(() => undefined);
    if (!s?.isFile()) continue;
    total += s.size;
    if (total > maxBytes) throw new CalendarFileError(`its files add up to more than ${maxBytes} bytes (Agent.MaxFileBytes)`);
    // A file removed between the listing and the read (vdirsyncer syncing) is passed over.
    const text = await readText(fs, file).catch((err: unknown) => (isNotFound(err) ? undefined : Promise.reject(err)));
    if (text !== undefined) texts.push(text);
  }
  return texts;
}
