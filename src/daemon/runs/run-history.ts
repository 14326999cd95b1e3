import path from 'node:path';
import type { Logger } from '../../log.js';
import { readTextIfExists, writeFileAtomic } from '../../vault/files/fs.js';
import type { Vault } from '../../vault/files/vault.js';
import type { JobKind } from './queue.js';
import { STATE_FOLDER } from '../../vault/files/state.js';

/**
 * The runs the status page lists, newest last, kept in `<vault>/.meeting-assistant/runs.jsonl`
 * (one JSON object a line) so the list survives restarts. The file is bounded: it is rewritten
 * atomically with the newest `limit` runs after each run, which for 50 short lines costs less
 * than the run's own note writes and never leaves a half-written line behind.
 */

export const RUN_HISTORY_FILE = 'runs.jsonl';
export const RUN_HISTORY_LIMIT = 50;

export interface RunRecord {
  runId: string;
  kind: JobKind;
  /** What asked for it: `transcript`, `catch-up`, `retry`, `link`, `api`, `page`. */
  trigger: string;
  /** Vault-relative meeting note (or, when it could not be found, the note the job named). */
  meeting: string;
  /** The meeting note's `title` when it has one. */
  title?: string;
  startedAt: string;
  finishedAt: string;
  status: 'done' | 'failed';
  /** One line for people when failed. */
  error?: string;
  /** Vault-relative summary note or failure report, when there is one. */
  summary?: string;
  modelRequests?: number;
}

function isRecord(value: unknown): value is RunRecord {
  const r = value as Partial<RunRecord> | null;
  return (
    typeof r === 'object' &&
    r !== null &&
    typeof r.runId === 'string' &&
    (r.kind === 'summarize' || r.kind === 'retry') &&
    typeof r.meeting === 'string' &&
    typeof r.startedAt === 'string' &&
    typeof r.finishedAt === 'string' &&
    (r.status === 'done' || r.status === 'failed')
  );
}

export class RunHistory {
  readonly #vault: Vault;
  readonly #log: Logger;
  readonly #limit: number;
  #runs: RunRecord[] = [];
  /** Writes one after another, so an older list never lands after a newer one. */
  #writes: Promise<void> = Promise.resolve();

  constructor(vault: Vault, log: Logger, limit = RUN_HISTORY_LIMIT) {
    this.#vault = vault;
    this.#log = log;
    this.#limit = limit;
  }

  get file(): string {
    return path.join(this.#vault.root, STATE_FOLDER, RUN_HISTORY_FILE);
  }

  /** Reads the file; lines that do not parse (a person's edit, a foreign tool) are skipped. */
  async load(): Promise<void> {
    const text = await readTextIfExists(this.#vault.fs, this.file).catch((err: unknown) => {
      this.#log.warn({ err, file: this.file }, 'could not read the recent runs; the status page starts with none');
      return undefined;
    });
    if (text === undefined) return;
    const runs: RunRecord[] = [];
    for (const line of text.split('\n')) {
      if (line.trim() === '') continue;
      try {
        const value: unknown = JSON.parse(line);
        if (isRecord(value)) runs.push(value);
      } catch {
        // skipped, see above
      }
    }
    this.#runs = runs.slice(-this.#limit);
  }

  /** Newest first. */
  list(): readonly RunRecord[] {
    return [...this.#runs].reverse();
  }

  /** Records a finished run and saves the list; a failed save is logged, never thrown. */
  add(record: RunRecord): Promise<void> {
    this.#runs.push(record);
    if (this.#runs.length > this.#limit) this.#runs.splice(0, this.#runs.length - this.#limit);
    const text = this.#runs.map((r) => JSON.stringify(r)).join('\n') + '\n';
    this.#writes = this.#writes.then(() => this.#save(text));
    return this.#writes;
  }

  async #save(text: string): Promise<void> {
    try {
      await this.#vault.fs.mkdir(path.dirname(this.file), { recursive: true, mode: 0o700 });
      await writeFileAtomic(this.#vault.fs, this.file, text);
    } catch (err) {
      this.#log.warn({ err, file: this.file }, 'could not save the recent runs; the status page lists them until the daemon stops');
    }
  }
}
