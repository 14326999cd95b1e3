import { describe, expect, test } from 'vitest';
import { CLAIM_KEYS } from '../../../src/vault/notes/claims.js';
import type { Fs } from '../../../src/vault/files/fs.js';
import { HeadCache } from '../../../src/vault/scan/head-cache.js';
import { BrokenMeetingError, resolveMeeting } from '../../../src/vault/notes/meeting.js';
import { memoryVault } from '../../helpers/memfs.js';
import { VaultListing } from '../../../src/vault/scan/vault-listing.js';
import type { Vault } from '../../../src/vault/files/vault.js';

/**
 * docs/design.md §1 (no two meetings share a summary or a context note), as a run start checks
 * it (§3 step 1): from the other meeting notes' heads, remembered between runs, read again only
 * when a note changed, and without walking the folders of other kinds inside `Meetings`.
 */

const meeting = (name: string, extra = '') => `---\ntitle: ${name}\ntranscript: "[[Meetings/Transcripts/${name}]]"\n${extra}---\nnotes\n`;
const transcript = (name: string) => `---\nmeeting: "[[Meetings/${name}]]"\nstate: finished\n---\n[00:00:01] A: hi\n`;

function vaultOf(others: number) {
  const files: Record<string, string> = { 'Meetings/New.md': meeting('New'), 'Meetings/Transcripts/New.md': transcript('New') };
  for (let i = 0; i < others; i++) {
    const name = `Old ${i}`;
    files[`Meetings/${name}.md`] = meeting(name, `summary: "[[Meetings/Summaries/${name}]]"\ncontext: "[[Meetings/Context/${name}]]"\n`);
    files[`Meetings/Transcripts/${name}.md`] = transcript(name);
    files[`Meetings/Summaries/${name}.md`] = `---\nmeeting: "[[Meetings/${name}]]"\nstatus: done\n---\n## Summary\n`;
  }
  return memoryVault(files);
}

/** The paths `fs.readdir` is asked for from now on. */
function listedFolders(fs: Fs): string[] {
  const listed: string[] = [];
  const original = fs.readdir.bind(fs) as (...args: unknown[]) => Promise<unknown>;
  (fs as unknown as { readdir: unknown }).readdir = (dir: string, ...rest: unknown[]) => {
    listed.push(dir);
    return original(dir, ...rest);
  };
  return listed;
}

describe('the other meeting notes, as a run start looks at them', () => {
  test('a second run start reads none of them again; one changed meanwhile is read, and its new claim found', async () => {
    const vault = vaultOf(30);
    const heads = new HeadCache(vault, CLAIM_KEYS);
    await resolveMeeting(vault, '/vault/Meetings/New.md', { writeBack: false, meetingHeads: heads });
    expect(heads.stats.read).toBe(30);

    heads.resetStats();
    await resolveMeeting(vault, '/vault/Meetings/New.md', { writeBack: false, meetingHeads: heads });
    expect(heads.stats.read).toBe(0);

    // The attack: another meeting note is edited to name this meeting's summary while the cache holds its old head.
    await vault.write('/vault/Meetings/Old 7.md', meeting('Old 7', 'summary: "[[Meetings/Summaries/New]]"\n'));
    heads.resetStats();
    const err = await resolveMeeting(vault, '/vault/Meetings/New.md', { writeBack: false, meetingHeads: heads }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BrokenMeetingError);
    expect((err as Error).message).toContain('the summary note Meetings/Summaries/New.md belongs to another meeting, Meetings/Old 7.md');
    expect(heads.stats.read).toBe(1);
  });

  test('a meeting note that cannot be parsed claims nothing and does not stop the check of the others', async () => {
    const vault = vaultOf(3);
    await vault.write('/vault/Meetings/Broken.md', '---\ntitle: [unclosed\n---\n');
    await vault.write('/vault/Meetings/Old 2.md', meeting('Old 2', 'context: "[[Meetings/Context/New]]"\n'));
    const err = await resolveMeeting(vault, '/vault/Meetings/New.md', { writeBack: false }).catch((e: unknown) => e);
    expect((err as Error).message).toContain('the context note Meetings/Context/New.md belongs to another meeting, Meetings/Old 2.md');
  });

  test('the claim check lists the meeting notes without entering the transcripts, summaries or context folders', async () => {
    const vault = vaultOf(3);
    await vault.write('/vault/Meetings/Team/Planning.md', meeting('Planning', 'summary: "[[Meetings/Summaries/New]]"\n'));
    // A summary without a meeting link: the other meeting notes say whose it is (and the link resolves without a walk of the vault).
    await vault.write('/vault/Meetings/Summaries/New.md', '## Summary\n');
    expect((await vault.listNotesOf('Meetings')).map((p) => vault.rel(p))).toEqual(['Meetings/New.md', 'Meetings/Old 0.md', 'Meetings/Old 1.md', 'Meetings/Old 2.md', 'Meetings/Team/Planning.md']);
    const listed = listedFolders(vault.fs);
    // A meeting note in a plain subfolder of Meetings is still looked at.
    const err = await resolveMeeting(vault, '/vault/Meetings/New.md', { writeBack: false }).catch((e: unknown) => e);
    expect((err as Error).message).toContain('belongs to another meeting, Meetings/Team/Planning.md');
    expect(listed).toEqual(['/vault/Meetings', '/vault/Meetings/Team']);
  });

  test('a new meeting whose two notes are still to be created costs one walk of the vault, not one per link', async () => {
    const vault = vaultOf(2);
    await vault.write('/vault/Meetings/New.md', meeting('New', 'summary: "[[Meetings/Summaries/New]]"\ncontext: "[[Meetings/Context/New]]"\n'));
    const listed = listedFolders(vault.fs);
    await resolveMeeting(vault, '/vault/Meetings/New.md', { writeBack: false });
    // The walks of the whole vault: each lists the root once.
    expect(listed.filter((dir) => dir === '/vault')).toHaveLength(1);
  });

  test('with the listing the run caches keep, a second run start reads no folder again; a claim and a note made meanwhile are still found', async () => {
    const vault = vaultOf(30);
    await vault.write('/vault/Meetings/New.md', meeting('New', 'summary: "[[Meetings/Summaries/New]]"\ncontext: "[[Meetings/Context/New]]"\n'));
    await lastChangedAMinuteAgo(vault, '/vault');
    const heads = new HeadCache(vault, CLAIM_KEYS);
    // Looked at a minute after the folders' change times too (utimes cannot set those back): none is racy.
    const listing = new VaultListing(vault, { now: () => Date.now() + 60_000 });
    const first = await resolveMeeting(vault, '/vault/Meetings/New.md', { writeBack: false, meetingHeads: heads, listing });
    expect(vault.rel(first.contextPath)).toBe('Meetings/Context/New.md');

    const listed = listedFolders(vault.fs);
    await resolveMeeting(vault, '/vault/Meetings/New.md', { writeBack: false, meetingHeads: heads, listing });
    expect(listed).toEqual([]);

    // A note the context link now names (Obsidian resolves a path by its end, docs/design.md §1), made after the first look.
    await vault.write('/vault/Archive/Meetings/Context/New.md', '---\nstate: finished\nmeeting: "[[Meetings/New]]"\n---\n');
    const moved = await resolveMeeting(vault, '/vault/Meetings/New.md', { writeBack: false, meetingHeads: heads, listing });
    expect(vault.rel(moved.contextPath)).toBe('Archive/Meetings/Context/New.md');
    await vault.fs.rm('/vault/Archive', { recursive: true });

    // The attack: another meeting note edited to claim this meeting's summary, and a new one claiming its context.
    await vault.write('/vault/Meetings/Old 7.md', meeting('Old 7', 'summary: "[[Meetings/Summaries/New]]"\n'));
    let err = await resolveMeeting(vault, '/vault/Meetings/New.md', { writeBack: false, meetingHeads: heads, listing }).catch((e: unknown) => e);
    expect((err as Error).message).toContain('the summary note Meetings/Summaries/New.md belongs to another meeting, Meetings/Old 7.md');
    await vault.write('/vault/Meetings/Old 7.md', meeting('Old 7'));
    await vault.write('/vault/Meetings/Team/Late.md', meeting('Late', 'context: "[[Meetings/Context/New]]"\n'));
    err = await resolveMeeting(vault, '/vault/Meetings/New.md', { writeBack: false, meetingHeads: heads, listing }).catch((e: unknown) => e);
    expect((err as Error).message).toContain('the context note Meetings/Context/New.md belongs to another meeting, Meetings/Team/Late.md');
  });
});

/** Every folder below `dir` last changed a minute ago, as in a vault at rest: none is racy (vault-listing.ts). */
async function lastChangedAMinuteAgo(vault: Vault, dir: string): Promise<void> {
  const old = (Date.now() - 60_000) / 1000;
  await (vault.fs as unknown as { utimes(p: string, a: number, m: number): Promise<void> }).utimes(dir, old, old);
  for (const entry of await vault.fs.readdir(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) await lastChangedAMinuteAgo(vault, `${dir}/${entry.name}`);
  }
}
