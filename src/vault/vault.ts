import path from 'node:path';
import type { FolderKey, VaultLayout } from '../config.js';
import { type Fs, readText, readTextIfExists, statIfExists, walkFiles, writeFileAtomic } from './fs.js';

/** Called after every write the daemon makes, so the watcher can ignore its own writes. */
export type WriteListener = (absPath: string, content: string) => void;

/** The most specific configured folder wins, so nested defaults (Meetings/Transcripts) work. */
export type NoteKind = 'meeting' | 'transcript' | 'summary' | 'context' | 'project' | 'identity' | 'template';

const KIND_OF_FOLDER: Record<FolderKey, NoteKind> = {
  Meetings: 'meeting',
  Transcripts: 'transcript',
  Summaries: 'summary',
  Context: 'context',
  Projects: 'project',
  Identities: 'identity',
  // Summary templates are never meeting notes, even when the folder lies inside `Meetings`.
  Templates: 'template',
};

export const TRASH_FOLDER = '.trash';

/**
 * One vault: a filesystem, the configured layout, and the rules every module shares
 * (vault-relative paths, atomic writes, the trash). Everything below the daemon gets one
 * of these instead of reaching for `node:fs`.
 */
export class Vault {
  private readonly writeListeners: WriteListener[] = [];

  constructor(
    readonly fs: Fs,
    readonly layout: VaultLayout,
  ) {}

  get root(): string {
    return this.layout.root;
  }

  onWrite(listener: WriteListener): void {
    this.writeListeners.push(listener);
  }

  /** Absolute path of a vault-relative one (or an absolute one, normalised). */
  abs(relOrAbs: string): string {
    return path.resolve(this.root, relOrAbs);
  }

  /** Vault-relative path with forward slashes. */
  rel(absPath: string): string {
    return path.relative(this.root, path.resolve(this.root, absPath)).split(path.sep).join('/');
  }

  /** True when `absPath` is the folder itself or lies below it (lexically). */
  static isInside(folder: string, absPath: string): boolean {
    const r = path.relative(folder, absPath);
    return r === '' || (!r.startsWith('..') && !path.isAbsolute(r));
  }

  /** True when `absPath` lies below the folder (the folder itself is not below it). */
  static isBelow(folder: string, absPath: string): boolean {
    return path.resolve(absPath) !== path.resolve(folder) && Vault.isInside(folder, absPath);
  }

  /** The folders of `folders` that lie in no other one of them: watching or walking those covers all. */
  static outermost(folders: readonly string[]): string[] {
    const unique = [...new Set(folders.map((f) => path.resolve(f)))];
    return unique.filter((folder) => !unique.some((other) => Vault.isBelow(other, folder)));
  }

  contains(absPath: string): boolean {
    return Vault.isInside(this.root, path.resolve(this.root, absPath));
  }

  /** Which configured folder a Markdown file belongs to: the most specific one containing it (the glossary and dictionary belong to none). */
  kindOf(absPath: string): NoteKind | undefined {
    const file = path.resolve(this.root, absPath);
    // The glossary and dictionary live inside `Meetings` by default but are no meeting notes.
    if (file === this.layout.files.glossary || file === this.layout.files.dictionary) return undefined;
    let best: { kind: NoteKind; depth: number } | undefined;
    for (const [key, folder] of Object.entries(this.layout.folders) as [FolderKey, string][]) {
      if (file === folder || !Vault.isInside(folder, file)) continue;
      const depth = folder.split(path.sep).length;
      if (!best || depth > best.depth) best = { kind: KIND_OF_FOLDER[key], depth };
    }
    return best?.kind;
  }

  async read(absPath: string): Promise<string> {
    return readText(this.fs, absPath);
  }

  async readIfExists(absPath: string): Promise<string | undefined> {
    return readTextIfExists(this.fs, absPath);
  }

  async exists(absPath: string): Promise<boolean> {
    return (await statIfExists(this.fs, absPath)) !== undefined;
  }

  /** Atomic write (temp file, fsync, rename), creating folders; listeners learn of it. */
  async write(absPath: string, content: string): Promise<void> {
    await writeFileAtomic(this.fs, absPath, content);
    for (const listener of this.writeListeners) listener(absPath, content);
  }

  /** Where `absPath` goes in `.trash/`: its vault-relative path, made unique when taken. */
  private async trashPathFor(absPath: string): Promise<string> {
    const rel = this.contains(absPath) ? this.rel(absPath) : path.basename(absPath);
    const target = path.join(this.root, TRASH_FOLDER, rel);
    if (!(await this.exists(target))) return target;
    const ext = path.extname(target);
    const stem = target.slice(0, target.length - ext.length);
    const stamp = new Date().toISOString().replace(/[:.]/g, '-');
    for (let i = 0; ; i++) {
      const candidate = `${stem} ${stamp}${i ? `-${i}` : ''}${ext}`;
      if (!(await this.exists(candidate))) return candidate;
    }
  }

  /** Copy a file into `.trash/` (before it is replaced); returns the trash path. */
  async copyToTrash(absPath: string): Promise<string> {
    const target = await this.trashPathFor(absPath);
    await this.fs.mkdir(path.dirname(target), { recursive: true });
    await this.fs.copyFile(absPath, target);
    return target;
  }

  /** Move a file into `.trash/` (Obsidian's convention: nothing is destroyed); returns the trash path. */
  async moveToTrash(absPath: string): Promise<string> {
    const target = await this.trashPathFor(absPath);
    await this.fs.mkdir(path.dirname(target), { recursive: true });
    await this.fs.rename(absPath, target);
    return target;
  }

  /** All Markdown files below `folder` (absolute paths, sorted), skipping dot-folders. */
  async listMarkdown(folder: string): Promise<string[]> {
    const out: string[] = [];
    await walkFiles(this.fs, folder, { skip: (name) => name.startsWith('.') }, ({ abs, entry }) => {
      if (entry.isFile() && entry.name.toLowerCase().endsWith('.md')) out.push(abs);
    });
    return out.sort();
  }
}
