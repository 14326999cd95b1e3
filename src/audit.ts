import { createHash } from 'node:crypto';
import path from 'node:path';
import { structuredPatch } from 'diff';
import { STATE_FOLDER } from './vault/files/state.js';
import { looksBinary } from './vault/files/confine.js';
import { isNotFound, writeFileAtomic } from './vault/files/fs.js';
import { readRegularFile } from './vault/files/regular-file.js';
import type { Transform, UpdateResult } from './vault/files/update.js';
import type { Vault } from './vault/files/vault.js';

/**
 * The external-write audit (docs/design.md §3 step 6). Every write a tool makes to a file other
 * than this meeting's summary and context notes goes through here: the content before the
 * run's first write is remembered, the latest content kept, and at the end of the run one
 * diff per file — reduced to the changed lines — is appended to the context note so that a
 * person can see (and undo) what the agent changed in their vault.
 */

interface Entry {
  /** Content before the run's first write; undefined when the file did not exist. */
  before: string | undefined;
  /** Content after the last write; undefined when the file was moved away. */
  after: string | undefined;
  /**
   * Each write's own change: the content it was applied to and the content it wrote. A
   * person's edits between two writes are in neither, so the audit shows the agent's alone.
   */
  writes: { before: string | undefined; after: string | undefined }[];
  /** Where the file went (identity deletion into `.trash/`). */
  movedTo?: string;
}

/** Lines of unchanged context around each change: enough to place it, not the whole file. */
const CONTEXT_LINES = 1;

/** One audited file as the journal keeps it: enough to report its change after a crash. */
interface JournalEntry {
  version: 1;
  /** Vault-relative. */
  file: string;
  before: string | null;
  /** Vault-relative trash path once a move is done; null while it is under way. */
  movedTo?: string | null;
}

/**
 * Where a meeting's audit journal lives: `<vault>/.meeting-assistant/audit/<key>/`, keyed by
 * the context note the section is appended to.
 */
export function auditJournalFolder(vault: Vault, contextPath: string): string {
  const key = createHash('sha1').update(vault.rel(contextPath)).digest('hex').slice(0, 16);
  return path.join(vault.root, STATE_FOLDER, 'audit', key);
}

export interface AuditOptions {
  excluded: string[];
  /**
   * A folder for the write-ahead journal: each file's content before the run's first write is
   * saved there before that write, so a run killed before its audit was appended still gets
   * its changes reported by the run that resumes the meeting (see `resume`).
   */
  journal?: string;
}

export class Audit {
  private readonly entries = new Map<string, Entry>();
  /**
   * Files an interrupted earlier attempt of this meeting changed (taken over by `resume`): their
   * content before it and when this run began, and how many of its appends this run skipped.
   */
  private readonly resumed = new Map<string, { before: string; atResume: string; skipped: Map<string, number> }>();
  private readonly excluded: Set<string>;
  private readonly journal: string | undefined;

  constructor(
    private readonly vault: Vault,
    options: AuditOptions,
  ) {
    this.excluded = new Set(options.excluded.map((p) => path.resolve(p)));
    this.journal = options.journal;
  }

  private isExcluded(absPath: string): boolean {
    return this.excluded.has(path.resolve(absPath));
  }

  /** Replace the file with `content` (see `update`). */
  async write(absPath: string, content: string): Promise<void> {
    await this.update(absPath, () => content);
  }

  /**
   * Applies `transform` through the vault (to the file as it is on disk, re-applied when a
   * person writes it meanwhile), recording the change unless the file is excluded.
   */
  async update(absPath: string, transform: Transform): Promise<UpdateResult> {
    const file = path.resolve(absPath);
    if (this.isExcluded(file)) return this.vault.update(file, transform);
    const entry = this.entries.get(file);
    if (!entry) await this.journalEntry(file, { before: await this.vault.readIfExists(file) });
    const result = await this.vault.update(file, transform);
    if (!result.changed) return result;
    const write = { before: result.before, after: result.after };
    if (entry) {
      entry.after = result.after;
      entry.writes.push(write);
    } else {
      this.entries.set(file, { before: result.before, after: result.after, writes: [write] });
    }
    return result;
  }

  /** Move a file (identity deletion), recorded under its old path with where it went. */
  async move(fromAbs: string, toAbs: string): Promise<void> {
    const from = path.resolve(fromAbs);
    const to = path.resolve(toAbs);
    const before = await this.beforeOf(from);
    await this.journalEntry(from, { before, movedTo: null });
    await this.vault.fs.mkdir(path.dirname(to), { recursive: true });
    await this.vault.fs.rename(from, to);
    await this.journalEntry(from, { before, movedTo: to });
    this.recordMove(from, to, before);
  }

  /** Move a file into the vault's `.trash/` (Obsidian's convention); returns where it went. */
  async moveToTrash(absPath: string): Promise<string> {
    const from = path.resolve(absPath);
    const before = await this.beforeOf(from);
    await this.journalEntry(from, { before, movedTo: null });
    const to = await this.vault.moveToTrash(from);
    await this.journalEntry(from, { before, movedTo: to });
    this.recordMove(from, to, before);
    return to;
  }

  private journalFile(file: string): string {
    return path.join(this.journal!, `${createHash('sha1').update(this.vault.rel(file)).digest('hex').slice(0, 16)}.json`);
  }

  /** Saves a file's entry before the change it describes is made (a no-op without a journal). */
  private async journalEntry(file: string, entry: { before: string | undefined; movedTo?: string | null }): Promise<void> {
    if (!this.journal || this.isExcluded(file)) return;
    const saved: JournalEntry = {
      version: 1,
      file: this.vault.rel(file),
      before: entry.before ?? null,
      ...(entry.movedTo !== undefined && { movedTo: entry.movedTo === null ? null : this.vault.rel(entry.movedTo) }),
    };
    await this.vault.fs.mkdir(this.journal, { recursive: true, mode: 0o700 });
    await writeFileAtomic(this.vault.fs, this.journalFile(file), JSON.stringify(saved));
  }

  /**
   * At the start of a run: when the previous run of this meeting was interrupted (`interrupted`:
   * its context note was still `summarizing`), take over its journal, so the changes it made
   * are reported with this run's, each file from its content before the first run touched it.
   * Otherwise a journal left over (a crash right after a finished run's audit) is stale: dropped.
   * Returns how many files were taken over.
   */
  async resume(interrupted: boolean): Promise<number> {
    if (!this.journal) return 0;
    if (!interrupted) {
      await this.clearJournal();
      return 0;
    }
    let names: string[];
    try {
      names = (await this.vault.fs.readdir(this.journal, { withFileTypes: true })).filter((e) => e.isFile() && e.name.endsWith('.json')).map((e) => e.name);
    } catch (err) {
      if (isNotFound(err)) return 0;
      throw err;
    }
    let taken = 0;
    for (const name of names) {
      let saved: JournalEntry;
      try {
        saved = JSON.parse(Buffer.from(await this.vault.fs.readFile(path.join(this.journal, name))).toString('utf8')) as JournalEntry;
      } catch {
        continue;
      }
      if (saved?.version !== 1 || typeof saved.file !== 'string') continue;
      const file = this.vault.abs(saved.file);
      if (!this.vault.contains(file) || this.isExcluded(file) || this.entries.has(file)) continue;
      const before = typeof saved.before === 'string' ? saved.before : undefined;
      const after = await this.vault.readIfExists(file);
      if (saved.movedTo !== undefined && after === undefined) {
        // A move that was done (or done just before the crash, its target not yet noted).
        const to = saved.movedTo ? this.vault.abs(saved.movedTo) : path.join(this.vault.root, '.trash', saved.file);
        this.entries.set(file, { before, after: undefined, writes: [], movedTo: to });
      } else {
        this.entries.set(file, { before, after, writes: [{ before, after }] });
        if (after !== undefined && after !== before) this.resumed.set(file, { before: before ?? '', atResume: after, skipped: new Map() });
      }
      taken++;
    }
    return taken;
  }

  /**
   * Whether appending `content` to the file would repeat an append the interrupted earlier
   * attempt of this meeting already made (docs/design.md §3 step 4): the text occurs more
   * often in the file as this run found it than before that attempt, beyond the repeats this
   * run already skipped. After SIGKILLs, 20 of 30 appended lines appeared twice (issue #24).
   * True means: do not append, the line is there; each call that answers true uses up one.
   */
  alreadyAppended(absPath: string, content: string): boolean {
    const record = this.resumed.get(path.resolve(absPath));
    const block = normalizeBlock(content);
    if (!record || block === '') return false;
    const skipped = record.skipped.get(block) ?? 0;
    const added = occurrences(normalizeBlock(record.atResume), block) - occurrences(normalizeBlock(record.before), block);
    if (added <= skipped) return false;
    record.skipped.set(block, skipped + 1);
    return true;
  }

  /**
   * For the resumed run's first message: the external writes the interrupted attempt already
   * made, as diffs ('' when there were none), so the agent does not make them again.
   */
  resumedNotice(maxLines = 60): string {
    if (this.resumed.size === 0) return '';
    const lines: string[] = [
      'An earlier run of this meeting was interrupted (the daemon stopped or crashed) after it had already changed these files. ' +
        'Those changes are in place: do not make them again (an identical append is skipped). The changes:',
    ];
    let budget = maxLines;
    for (const [file, record] of this.resumed) {
      lines.push(`- ${this.vault.rel(file)}`);
      const hunks = diffHunks(record.before, record.atResume);
      const shown = hunks.slice(0, Math.max(0, budget));
      budget -= shown.length;
      if (shown.length > 0) {
        const fence = fenceFor(shown);
        lines.push(`${fence}diff`, ...shown, ...(shown.length < hunks.length ? ['… (more changes; read the file)'] : []), fence);
      }
    }
    return lines.join('\n');
  }

  /** Forget the journal: called once the audit section is in the context note. */
  async clearJournal(): Promise<void> {
    if (!this.journal) return;
    await this.vault.fs.rm(this.journal, { recursive: true, force: true });
  }

  private async beforeOf(file: string): Promise<string | undefined> {
    const entry = this.entries.get(file);
    if (entry) return entry.before;
    const bytes = await readRegularFile(this.vault.fs, file, this.vault.maxFileBytes, this.vault.rel(file));
    if (bytes === undefined) return undefined;
    return looksBinary(bytes) ? `(binary file, ${bytes.length} bytes)\n` : Buffer.from(bytes).toString('utf8');
  }

  private recordMove(from: string, to: string, before: string | undefined): void {
    if (this.isExcluded(from)) return;
    const writes = this.entries.get(from)?.writes ?? [];
    this.entries.set(from, { before, after: undefined, writes, movedTo: to });
  }

  /** Nothing to report: no recorded file ended up different from how the run found it. */
  get isEmpty(): boolean {
    for (const entry of this.entries.values()) if (changed(entry)) return false;
    return true;
  }

  /** Vault-relative paths of the files with recorded changes, in the order first written. */
  get files(): string[] {
    return [...this.entries].filter(([, e]) => changed(e)).map(([file]) => this.vault.rel(file));
  }

  /** The `## External changes` section for the context note; '' when there is nothing to report. */
  render(now: Date): string {
    const sections: string[] = [];
    for (const [file, entry] of this.entries) {
      if (!changed(entry)) continue;
      const lines: string[] = [`### ${this.vault.rel(file)}`];
      if (entry.movedTo !== undefined) lines.push(`Moved to \`${this.vault.rel(entry.movedTo)}\`.`);
      for (const [before, after] of ownChanges(entry)) {
        if (before === after) continue;
        const hunks = diffHunks(before ?? '', after ?? '');
        if (hunks.length === 0) continue;
        const fence = fenceFor(hunks);
        lines.push(`${fence}diff`, ...hunks, fence);
      }
      sections.push(lines.join('\n'));
    }
    if (sections.length === 0) return '';
    return `## External changes (${now.toISOString()})\n\n${sections.join('\n\n')}\n`;
  }
}

/** An append's text as lines, line endings and surrounding blank lines aside. */
function normalizeBlock(text: string): string {
  return text.replace(/\r\n/g, '\n').replace(/^\n+|\s+$/g, '');
}

/**
 * How often `block` stands in `text` as whole lines: a new line that is only part of one the
 * crashed attempt wrote ("- Budget: 9000" within "- Budget: 9000 EUR approved") is not a repeat.
 */
function occurrences(text: string, block: string): number {
  let n = 0;
  for (let at = text.indexOf(block); at >= 0; at = text.indexOf(block, at + 1)) {
    const startsLine = at === 0 || text[at - 1] === '\n';
    const endsLine = /^[ \t]*(\n|$)/.test(text.slice(at + block.length, at + block.length + 256));
    if (startsLine && endsLine) {
      n++;
      at += block.length - 1;
    }
  }
  return n;
}

function changed(entry: Entry): boolean {
  return entry.movedTo !== undefined || ownChanges(entry).some(([before, after]) => before !== after);
}

/**
 * The agent's changes to one file as before/after pairs: consecutive writes with nothing
 * between them compose into one; a person's edit between two writes starts a new pair, so
 * their lines never show as the agent's. A moved file ends with its last content removed.
 */
function ownChanges(entry: Entry): [string | undefined, string | undefined][] {
  const pairs: [string | undefined, string | undefined][] = [];
  for (const write of entry.writes) {
    const last = pairs[pairs.length - 1];
    if (last && last[1] === write.before) last[1] = write.after;
    else pairs.push([write.before, write.after]);
  }
  if (entry.movedTo !== undefined && pairs.length === 0) pairs.push([entry.before, undefined]);
  return pairs;
}

/** A final line ending is not a change worth a line of its own in the audit. */
function withFinalNewline(text: string): string {
  return text === '' || text.endsWith('\n') ? text : `${text}\n`;
}

/**
 * Unified hunks (`@@` lines, context, `-`, `+`) without the `---`/`+++` header lines: a file
 * rewritten whole with one line changed shows one removed and one added line.
 */
export function diffHunks(before: string, after: string): string[] {
  const patch = structuredPatch('a', 'b', withFinalNewline(before), withFinalNewline(after), undefined, undefined, {
    context: CONTEXT_LINES,
    stripTrailingCr: true,
  });
  const out: string[] = [];
  for (const hunk of patch.hunks) {
    // As `diff -u` and jsdiff's formatPatch print it: an empty side starts at line 0.
    const oldStart = hunk.oldLines === 0 ? hunk.oldStart - 1 : hunk.oldStart;
    const newStart = hunk.newLines === 0 ? hunk.newStart - 1 : hunk.newStart;
    out.push(`@@ -${oldStart},${hunk.oldLines} +${newStart},${hunk.newLines} @@`);
    out.push(...hunk.lines.filter((l) => !l.startsWith('\\')));
  }
  return out;
}

/** A fence longer than any backtick run in the diff, so file content cannot close it. */
function fenceFor(lines: string[]): string {
  let longest = 0;
  for (const line of lines) for (const run of line.match(/`+/g) ?? []) longest = Math.max(longest, run.length);
  return '`'.repeat(Math.max(3, longest + 1));
}
