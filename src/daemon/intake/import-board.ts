import type { Clock } from '../../clock.js';

/**
 * What the inbox is doing, for the status page and `status` (docs/design.md §9): files
 * waiting to settle, waiting for their turn, being transcribed or imported, and the recent
 * outcomes. In memory: after a restart the inbox itself (files, error notes) is the record.
 */

export type ImportState = 'settling' | 'waiting' | 'transcribing' | 'importing' | 'imported' | 'duplicate' | 'failed';

export interface ImportEntry {
  /** Vault-relative path of the file as it was dropped (or the uploaded name). */
  file: string;
  state: ImportState;
  /** ISO time the entry reached this state. */
  since: string;
  /** Vault-relative meeting note, once imported (or the earlier one of a duplicate). */
  meeting?: string;
  error?: string;
  /** Vault-relative error note of a failed import. */
  failureNote?: string;
}

const RECENT = 20;
const ACTIVE: ReadonlySet<ImportState> = new Set(['settling', 'waiting', 'transcribing', 'importing']);

export class ImportBoard {
  readonly #entries = new Map<string, ImportEntry>();

  constructor(private readonly clock: Clock) {}

  set(file: string, state: ImportState, extra: Partial<Pick<ImportEntry, 'meeting' | 'error' | 'failureNote'>> = {}): void {
    this.#entries.delete(file);
    this.#entries.set(file, { file, state, since: this.clock().toISOString(), ...extra });
    this.#prune();
  }

  drop(file: string): void {
    this.#entries.delete(file);
  }

  get(file: string): ImportEntry | undefined {
    return this.#entries.get(file);
  }

  /** Active entries first (oldest first), then outcomes (newest first). */
  list(): ImportEntry[] {
    const all = [...this.#entries.values()];
    return [...all.filter((e) => ACTIVE.has(e.state)), ...all.filter((e) => !ACTIVE.has(e.state)).reverse()];
  }

  #prune(): void {
    const done = [...this.#entries.values()].filter((e) => !ACTIVE.has(e.state));
    for (const entry of done.slice(0, Math.max(0, done.length - RECENT))) this.#entries.delete(entry.file);
  }
}

export function isActiveImport(entry: ImportEntry): boolean {
  return ACTIVE.has(entry.state);
}
