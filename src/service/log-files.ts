import { watch } from 'node:fs';
import { open, readdir, stat } from 'node:fs/promises';
import path from 'node:path';

/**
 * Reading the daemon's log files for `meeting-assistant logs`: pino-roll's numbered files
 * (`Logging.File` = `dir/meeting-assistant.log` is written as `dir/meeting-assistant.<n>.log`,
 * the highest number being the current one), or launchd's single StandardOutPath file.
 */

export interface RolledName {
  dir: string;
  stem: string;
  /** With its dot, or '' when pino-roll writes no extension. */
  ext: string;
}

/** How pino-roll names the files of `file` (its sanitizeFile rule: the last extension is kept, default `.log`). */
export function rolledName(file: string): RolledName {
  const dir = path.dirname(file);
  const name = path.basename(file);
  if (!name.includes('.')) return { dir, stem: name, ext: '.log' };
  const dot = name.lastIndexOf('.');
  const ext = name.slice(dot + 1);
  return { dir, stem: name.slice(0, dot), ext: ext.length > 1 ? `.${ext}` : '' };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The rotated files of `file`, oldest first (by number). */
export async function rolledFiles(file: string): Promise<string[]> {
  const { dir, stem, ext } = rolledName(file);
  const pattern = new RegExp(`^${escapeRegExp(stem)}\\.(\\d+)${escapeRegExp(ext)}$`);
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return [];
  }
  return names
    .map((n) => ({ n, m: pattern.exec(n) }))
    .filter((x): x is { n: string; m: RegExpExecArray } => x.m !== null)
    .sort((a, b) => Number(a.m[1]) - Number(b.m[1]))
    .map((x) => path.join(dir, x.n));
}

/** The file pino-roll writes now; the plain file when it was never rotated (launchd's log). */
export async function currentLogFile(file: string): Promise<string | undefined> {
  const rolled = await rolledFiles(file);
  if (rolled.length > 0) return rolled[rolled.length - 1];
  try {
    return (await stat(file)).isFile() ? file : undefined;
  } catch {
    return undefined;
  }
}

/** Read `file` from byte `offset` to its end. */
async function readFrom(file: string, offset: number): Promise<{ text: string; end: number }> {
  const handle = await open(file, 'r');
  try {
    const { size } = await handle.stat();
    const from = size < offset ? 0 : offset; // truncated: start over
    const length = size - from;
    if (length <= 0) return { text: '', end: from };
    const buffer = Buffer.alloc(length);
    const { bytesRead } = await handle.read(buffer, 0, length, from);
    return { text: buffer.subarray(0, bytesRead).toString('utf8'), end: from + bytesRead };
  } finally {
    await handle.close();
  }
}

/** The last `count` lines of a file (the whole file when it has fewer), and the size read. */
export async function tailLines(file: string, count: number): Promise<{ lines: string[]; end: number }> {
  const { text, end } = await readFrom(file, 0);
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return { lines: Number.isFinite(count) ? lines.slice(-count) : lines, end };
}

export interface FollowOptions {
  /** The configured log file (pino-roll's base name), or launchd's file. */
  file: string;
  /** The file being read and how far, as `tailLines` left it; undefined when none exists yet. */
  start: { file: string; offset: number } | undefined;
  onLine(line: string): void;
  signal: AbortSignal;
}

/**
 * Print lines as they are appended, following pino-roll to the next numbered file, until
 * the signal aborts. Driven by file-system events on the folder, not by polling.
 */
export async function followLog(options: FollowOptions): Promise<void> {
  const dir = path.dirname(options.file);
  let current = options.start;
  let partial = '';
  let draining: Promise<void> = Promise.resolve();
  let again = false;

  const emitText = (text: string) => {
    const parts = (partial + text).split('\n');
    partial = parts.pop() ?? '';
    for (const line of parts) options.onLine(line);
  };

  const drainOnce = async () => {
    if (current) {
      try {
        const { text, end } = await readFrom(current.file, current.offset);
        current.offset = end;
        emitText(text);
      } catch {
        // Removed between the event and the read (old files are deleted after a roll).
      }
    }
    const latest = await currentLogFile(options.file);
    if (latest && latest !== current?.file) {
      if (partial) options.onLine(partial);
      partial = '';
      current = { file: latest, offset: 0 };
      const { text, end } = await readFrom(latest, 0);
      current.offset = end;
      emitText(text);
    }
  };

  const drain = () => {
    // Events come in bursts; one drain at a time, and one more if events arrived meanwhile.
    if (again) return;
    again = true;
    draining = draining.then(async () => {
      again = false;
      await drainOnce().catch(() => undefined);
    });
  };

  if (options.signal.aborted) return;
  await new Promise<void>((resolve, reject) => {
    const watcher = watch(dir, { signal: options.signal });
    watcher.on('change', drain);
    watcher.on('error', (err: NodeJS.ErrnoException) => (err.name === 'AbortError' ? resolve() : reject(err)));
    watcher.on('close', () => resolve());
    // Whatever was written between the first read and the watch starting.
    drain();
  });
  await draining;
  if (partial) options.onLine(partial);
}
