import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { parseNote } from '../../src/vault/format/frontmatter.js';
import { meetingOfRequest, summarizingModel } from './daemon-helpers.js';
import type { RecordedRequest, Step } from './scripted-server.js';

/**
 * Shared pieces of the fault suite (test/faults): the tally each file keeps of the cases it
 * survived, a scripted model that picks a fault per meeting, and whole-vault checks
 * (snapshots, "every note parses, nothing half-written").
 */

/**
 * Cases run and survived in one test file. A case survives when its body returns without
 * throwing; the file's last test asserts that every case ran and survived and prints the
 * one-line summary (`fault suite: endpoint faults 14/14 survived`).
 */
export class FaultTally {
  private readonly ran = new Set<string>();
  private readonly survived = new Set<string>();

  constructor(readonly area: string) {}

  async check<T>(name: string, body: () => T | Promise<T>): Promise<T> {
    if (this.ran.has(name)) throw new Error(`fault case named twice: ${name}`);
    this.ran.add(name);
    const result = await body();
    this.survived.add(name);
    return result;
  }

  get runCount(): number {
    return this.ran.size;
  }

  get survivedCount(): number {
    return this.survived.size;
  }

  /** Cases that ran and did not survive. */
  get lost(): string[] {
    return [...this.ran].filter((name) => !this.survived.has(name));
  }

  summary(): string {
    return `fault suite: ${this.area} ${this.survivedCount}/${this.runCount} survived`;
  }
}

/**
 * A model for many meetings at once: `plan(meeting, n, req)` may answer the n-th (0-based)
 * model request of a meeting with a fault; anything it leaves undefined is answered like a
 * model that writes the summary and says it is done. Requests are counted per meeting.
 */
export function perMeetingModel(plan: (meeting: string, n: number, req: RecordedRequest) => Step | undefined): {
  step: Step;
  counts: Map<string, number>;
} {
  const counts = new Map<string, number>();
  const fallback = summarizingModel();
  const step: Step = {
    handler: (req) => {
      const meeting = meetingOfRequest(req) ?? '(unknown)';
      const n = counts.get(meeting) ?? 0;
      counts.set(meeting, n + 1);
      return plan(meeting, n, req) ?? fallback;
    },
  };
  return { step, counts };
}

/** Every file below `dir` (relative path → sha1 of its bytes); `.meeting-assistant` state skipped when asked. */
export function snapshotDir(dir: string, options: { skip?: (rel: string) => boolean } = {}): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string, rel: string) => {
    for (const name of readdirSync(d)) {
      const full = path.join(d, name);
      const r = rel ? `${rel}/${name}` : name;
      if (options.skip?.(r)) continue;
      const st = statSync(full, { throwIfNoEntry: false });
      if (!st) continue;
      if (st.isDirectory()) walk(full, r);
      else out.set(r, createHash('sha1').update(readFileSync(full)).digest('hex'));
    }
  };
  if (existsSync(dir)) walk(dir, '');
  return out;
}

/** Differences between two snapshots, for a readable assertion (`[]` when equal). */
export function snapshotDiff(before: Map<string, string>, after: Map<string, string>): string[] {
  const out: string[] = [];
  for (const [file, hash] of before) {
    if (!after.has(file)) out.push(`removed ${file}`);
    else if (after.get(file) !== hash) out.push(`changed ${file}`);
  }
  for (const file of after.keys()) if (!before.has(file)) out.push(`added ${file}`);
  return out.sort();
}

export interface VaultHealth {
  /** Leftover temporary files of atomic writes. */
  temps: string[];
  /** Markdown notes whose frontmatter does not parse (other than the ones expected broken). */
  unparsable: string[];
}

/** "No half-written note": no `*.ma-tmp` left, every Markdown note's frontmatter parses. */
export function vaultHealth(vault: string, expectedBroken: string[] = []): VaultHealth {
  const temps: string[] = [];
  const unparsable: string[] = [];
  const walk = (d: string, rel: string) => {
    for (const name of readdirSync(d)) {
      const full = path.join(d, name);
      const r = rel ? `${rel}/${name}` : name;
      const st = statSync(full, { throwIfNoEntry: false });
      if (!st) continue;
      if (st.isDirectory()) walk(full, r);
      else if (name.endsWith('.ma-tmp')) temps.push(r);
      else if (name.endsWith('.md') && !expectedBroken.includes(r)) {
        try {
          parseNote(readFileSync(full, 'utf8'), r);
        } catch {
          unparsable.push(r);
        }
      }
    }
  };
  walk(vault, '');
  return { temps, unparsable };
}

/** How many `## External changes (...)` sections a context note has. */
export function auditSections(text: string): number {
  return text.match(/^## External changes \(/gm)?.length ?? 0;
}
