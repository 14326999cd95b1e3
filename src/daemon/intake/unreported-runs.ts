import { createHash } from 'node:crypto';
import path from 'node:path';
import type { Logger } from '../../log.js';
import { isNotFound, writeFileAtomic } from '../../vault/files/fs.js';
import { STATE_FOLDER } from '../../vault/files/state.js';
import type { Vault } from '../../vault/files/vault.js';
import type { Job } from '../runs/queue.js';

/**
 * Runs whose failure report could not be written (docs/design.md §3 step 4), kept until the
 * next catch-up runs them again: in memory, and in `<vault>/.meeting-assistant/unreported/`
 * so that a restart in between does not forget them (best effort: the disk may be the very
 * thing that is full; then the memory is all there is until the daemon stops).
 */

const FOLDER = 'unreported';

interface Saved {
  version: 1;
  /** Vault-relative paths, so a moved vault still finds them. */
  key: string;
  kind: Job['kind'];
  target: string;
}

export class UnreportedRuns {
  readonly #jobs = new Map<string, Job>();
  #loaded = false;

  constructor(
    private readonly vault: Vault,
    private readonly log: Logger,
  ) {}

  #file(key: string): string {
    const id = createHash('sha1').update(this.vault.rel(key)).digest('hex').slice(0, 16);
    return path.join(this.vault.root, STATE_FOLDER, FOLDER, `${id}.json`);
  }

  /** Remember a job to run again; saved to the state folder when the disk allows. */
  async add(job: Job): Promise<void> {
    this.#jobs.set(job.key, job);
    const saved: Saved = { version: 1, key: this.vault.rel(job.key), kind: job.kind, target: this.vault.rel(job.target) };
    try {
      await this.vault.fs.mkdir(path.dirname(this.#file(job.key)), { recursive: true, mode: 0o700 });
      await writeFileAtomic(this.vault.fs, this.#file(job.key), JSON.stringify(saved));
    } catch (err) {
      this.log.warn({ err, meeting: this.vault.rel(job.key) }, 'could not save the meeting to run again after a restart; it is kept until the daemon stops');
    }
  }

  /** Every job to run again (those saved by an earlier daemon too), each taken once. */
  async take(): Promise<Job[]> {
    if (!this.#loaded) {
      this.#loaded = true;
      for (const job of await this.#readSaved()) if (!this.#jobs.has(job.key)) this.#jobs.set(job.key, job);
    }
    return [...this.#jobs.values()];
  }

  /** The job is enqueued (or its meeting done): forgotten here and on disk. */
  async forget(key: string): Promise<void> {
    this.#jobs.delete(key);
    await this.vault.fs.rm(this.#file(key), { force: true }).catch(() => undefined);
  }

  async #readSaved(): Promise<Job[]> {
    const folder = path.join(this.vault.root, STATE_FOLDER, FOLDER);
    let names: string[];
    try {
      names = (await this.vault.fs.readdir(folder, { withFileTypes: true })).filter((e) => e.isFile() && e.name.endsWith('.json')).map((e) => e.name);
    } catch (err) {
      if (!isNotFound(err)) this.log.warn({ err }, 'could not read the meetings saved to run again');
      return [];
    }
    const jobs: Job[] = [];
    for (const name of names) {
      try {
        const saved = JSON.parse(Buffer.from(await this.vault.fs.readFile(path.join(folder, name))).toString('utf8')) as Saved;
        if (saved?.version !== 1 || typeof saved.key !== 'string' || typeof saved.target !== 'string') continue;
        if (saved.kind !== 'summarize' && saved.kind !== 'retry') continue;
        const key = this.vault.abs(saved.key);
        const target = this.vault.abs(saved.target);
        if (!this.vault.contains(key) || !this.vault.contains(target)) continue;
        jobs.push({ key, kind: saved.kind, target, trigger: 'catch-up' });
      } catch {
        // A half-written or foreign file: not a job.
      }
    }
    return jobs;
  }
}
