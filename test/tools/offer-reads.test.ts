import { afterEach, describe, expect, it } from 'vitest';
import { toolOffer } from '../../src/tools/offered-tools.js';
import type { Fs } from '../../src/vault/files/fs.js';
import { harness, summaryNote } from '../helpers/tool-harness.js';

/**
 * The tool offer at a run start (docs/design.md §3 step 9) decides whether the past-meeting tools
 * are offered: is there one past summary of the meeting's projects? It must not wait for the
 * index of every summary (a run may never call those tools): it reads the newest few and stops.
 */

const SUMMARIES = 60;
const nameOf = (i: number) => `Meetings/Summaries/2026-01-${String(i + 1).padStart(2, '0')} Alpha ${i}.md`;
const summaries = (status = 'done') =>
  Object.fromEntries(Array.from({ length: SUMMARIES }, (_, i) => [nameOf(i), summaryNote(`Alpha ${i}`, `2026-01-01T09:00:00+01:00`, ['Alpha'], status)]));

/** Reads of the summaries older than the newest `open` are held until `release` (a cache's build that takes long). */
function holdOldSummaries(fs: Fs, open: number) {
  const held: (() => void)[] = [];
  const newest = new Set(Array.from({ length: open }, (_, i) => `/vault/${nameOf(SUMMARIES - 1 - i)}`));
  const original = fs.readFile.bind(fs) as (...args: unknown[]) => Promise<unknown>;
  const reads: string[] = [];
  (fs as unknown as { readFile: unknown }).readFile = async (file: string, ...rest: unknown[]) => {
    if (String(file).includes('/Meetings/Summaries/')) {
      reads.push(String(file));
      if (!newest.has(String(file))) await new Promise<void>((resolve) => held.push(resolve));
    }
    return original(file, ...rest);
  };
  return { reads, release: () => held.splice(0).forEach((resolve) => resolve()) };
}

let release = () => {};
afterEach(() => release());

describe('the offer of the past-meeting tools', () => {
  it('is decided from the newest summaries while the reads of the older ones are held: it does not wait for the whole index', async () => {
    const h = harness({ files: { 'Meetings/Summaries/2026-11-23 Alpha Sync.md': null, 'Meetings/Summaries/2026-11-16 Beta Review.md': null, ...summaries() } });
    const gate = holdOldSummaries(h.fs, 16);
    release = gate.release;
    const offer = await toolOffer(h.ctx);
    expect(offer.past).toBe(true);
    expect(gate.reads.length).toBeLessThanOrEqual(16);
    expect(h.ctx.pastSummaries.size).toBeLessThanOrEqual(16);
  });

  it('is refused when no summary is in scope: failure reports and the meeting’s own summary do not count', async () => {
    const own = 'Meetings/Summaries/2026-11-30 Weekly Sync.md';
    const h = harness({
      files: {
        'Meetings/Summaries/2026-11-23 Alpha Sync.md': null,
        'Meetings/Summaries/2026-11-16 Beta Review.md': null,
        ...summaries('failed'),
        'Meetings/Summaries/2026-02-01 Gamma.md': summaryNote('Gamma', '2026-02-01T09:00:00+01:00', ['Gamma']),
        [own]: summaryNote('Weekly Sync', '2026-11-30T09:00:00+01:00', ['Alpha']),
      },
      meeting: { summaryPath: `/vault/${own}` },
    });
    expect((await toolOffer(h.ctx)).past).toBe(false);
  });

  it('uses the index once a run built it, and sees a summary written since', async () => {
    const h = harness({ files: { 'Meetings/Summaries/2026-11-23 Alpha Sync.md': null, 'Meetings/Summaries/2026-11-16 Beta Review.md': null } });
    await h.ctx.pastSummaries.all();
    expect((await toolOffer(h.ctx)).past).toBe(false);
    await h.vault.write('/vault/Meetings/Summaries/2026-11-29 Beta.md', summaryNote('Beta', '2026-11-29T09:00:00+01:00', ['beta']));
    expect((await toolOffer(h.ctx)).past).toBe(true);
  });
});
