import { afterEach, describe, expect, it } from 'vitest';
import { MEETING_HEADS_FILE, RunCaches } from '../../../src/tools/binding/run-caches.js';
import { resolveMeeting } from '../../../src/vault/notes/meeting.js';
import { countFsCalls, memoryVault } from '../../helpers/memfs.js';
import { tokenizerLoaded } from '../../../src/agent/window/tokens.js';

/**
 * The meeting notes' heads of the run caches (run-caches.ts): what the check that no other
 * meeting has this one's notes (docs/design.md §1) reads at a run start. Kept between runs; let
 * go at the idle release into the state folder, so that the next run process (a new RunCaches
 * on the same vault) reads only the notes that changed meanwhile; where the daemon's watcher
 * covers the meeting notes, not even a stat of those no event named.
 */

const meeting = (name: string, extra = '') => `---\ntitle: ${name}\ntranscript: "[[Meetings/Transcripts/${name}]]"\n${extra}---\nnotes\n`;

function vaultOf(others: number) {
  const files: Record<string, string> = {
    'Meetings/New.md': meeting('New'),
    'Meetings/Transcripts/New.md': '---\nstate: finished\n---\n[00:00:01] A: hi\n',
  };
  for (let i = 0; i < others; i++) files[`Meetings/Old ${i}.md`] = meeting(`Old ${i}`, `summary: "[[Meetings/Summaries/Old ${i}]]"\n`);
  return memoryVault(files);
}

let open: RunCaches[] = [];
afterEach(() => {
  for (const caches of open) caches.close();
  open = [];
});
const cachesOf = (vault: ReturnType<typeof memoryVault>) => {
  const caches = new RunCaches(vault, { searchShards: 1 });
  open.push(caches);
  return caches;
};

describe('the meeting notes’ heads across run processes', () => {
  it('a new process reads none of the unchanged meeting notes, and the one a person changed meanwhile', async () => {
    const vault = vaultOf(20);
    const first = cachesOf(vault);
    await resolveMeeting(vault, '/vault/Meetings/New.md', { writeBack: false, meetingHeads: first.meetingHeads });
    expect(first.meetingHeads.stats.read).toBe(20);
    await first.release();
    expect(await vault.readIfExists(`/vault/.meeting-assistant/${MEETING_HEADS_FILE}`)).toContain('Meetings/Old 3.md');
    // Let go: the process holds none of them any more.
    expect(first.meetingHeads.size).toBe(0);

    // Between the two processes, another meeting note comes to claim this meeting's context note.
    await vault.write('/vault/Meetings/Old 3.md', meeting('Old 3', 'context: "[[Meetings/Context/New]]"\n'));
    const second = cachesOf(vault);
    const err = await resolveMeeting(vault, '/vault/Meetings/New.md', { writeBack: false, meetingHeads: second.meetingHeads }).catch((e: unknown) => e);
    expect((err as Error).message).toContain('belongs to another meeting, Meetings/Old 3.md');
    expect(second.meetingHeads.stats.read).toBe(1);
  });

  it('a state file another program broke is no harm: every note is read again', async () => {
    const vault = vaultOf(5);
    await vault.write(`/vault/.meeting-assistant/${MEETING_HEADS_FILE}`, '{ not what we wrote');
    const caches = cachesOf(vault);
    await expect(resolveMeeting(vault, '/vault/Meetings/New.md', { writeBack: false, meetingHeads: caches.meetingHeads })).resolves.toBeDefined();
    expect(caches.meetingHeads.stats.read).toBe(5);
  });
});

describe('the meeting notes’ heads under the daemon’s watcher', () => {
  const resolveNew = (vault: ReturnType<typeof memoryVault>, caches: RunCaches) =>
    resolveMeeting(vault, '/vault/Meetings/New.md', { writeBack: false, meetingHeads: caches.meetingHeads });

  it('a warm run start stats none of them; one an event named is looked at again, and its new claim found', async () => {
    const vault = vaultOf(20);
    const caches = cachesOf(vault);
    let now = 0;
    caches.watch.trust(['/vault/Meetings'], { clock: () => new Date(now), maxTrustMs: 60_000 });
    await resolveNew(vault, caches);
    const calls = countFsCalls(vault.fs);
    await resolveNew(vault, caches);
    expect(calls.stat).toBeLessThan(10);

    // A person's edit, as the watcher reports it.
    await vault.fs.writeFile('/vault/Meetings/Old 4.md', meeting('Old 4', 'summary: "[[Meetings/Summaries/New]]"\n'));
    caches.watch.invalidate('/vault/Meetings/Old 4.md');
    caches.meetingHeads.stats.read = 0;
    const err = await resolveNew(vault, caches).catch((e: unknown) => e);
    expect((err as Error).message).toContain('belongs to another meeting, Meetings/Old 4.md');
    expect(caches.meetingHeads.stats.read).toBe(1);

    // Trust has an age: past maxTrustMs every note is checked on disk again (a missed event is found then).
    await vault.fs.writeFile('/vault/Meetings/Old 4.md', meeting('Old 4'));
    now += 60_001;
    const before = calls.stat;
    await resolveNew(vault, caches);
    expect(calls.stat - before).toBeGreaterThanOrEqual(20);
  });

  it('a note changed while its head was being read is not trusted as read: the event during the read counts', async () => {
    const vault = vaultOf(5);
    const caches = cachesOf(vault);
    caches.watch.trust(['/vault/Meetings'], { clock: () => new Date(0), maxTrustMs: 60_000 });
    // A person saves Old 2 just after its head was read: the watcher's event arrives before the read is done.
    const original = vault.fs.open.bind(vault.fs);
    let raced = false;
    (vault.fs as unknown as { open: typeof original }).open = (async (p: string, flags: number) => {
      const handle = await original(p, flags);
      if (raced || p !== '/vault/Meetings/Old 2.md') return handle;
      const close = handle.close.bind(handle);
      handle.close = async () => {
        await close();
        raced = true;
        await vault.fs.writeFile(p, meeting('Old 2', 'summary: "[[Meetings/Summaries/New]]"\n'));
        caches.watch.invalidate(p);
      };
      return handle;
    }) as typeof original;
    await resolveNew(vault, caches).catch(() => undefined);
    expect(raced).toBe(true);
    const err = await resolveNew(vault, caches).catch((e: unknown) => e);
    expect((err as Error).message).toContain('belongs to another meeting, Meetings/Old 2.md');
  });

  it('a changed note whose read failed for the system (descriptors ran out) is not vouched for by its old head', async () => {
    const vault = vaultOf(5);
    const caches = cachesOf(vault);
    caches.watch.trust(['/vault/Meetings'], { clock: () => new Date(0), maxTrustMs: 60_000 });
    await resolveNew(vault, caches);
    await vault.fs.writeFile('/vault/Meetings/Old 1.md', meeting('Old 1', 'summary: "[[Meetings/Summaries/New]]"\n'));
    caches.watch.invalidate('/vault/Meetings/Old 1.md');
    const original = vault.fs.open.bind(vault.fs);
    let failed = false;
    (vault.fs as unknown as { open: typeof original }).open = (async (p: string, flags: number) => {
      if (failed || p !== '/vault/Meetings/Old 1.md') return original(p, flags);
      failed = true;
      throw Object.assign(new Error(`EMFILE: too many open files, open '${p}'`), { code: 'EMFILE', syscall: 'open' });
    }) as typeof original;
    // This run start could not read it; the next one must, not take the head from before the change.
    await resolveNew(vault, caches).catch(() => undefined);
    expect(failed).toBe(true);
    const err = await resolveNew(vault, caches).catch((e: unknown) => e);
    expect((err as Error).message).toContain('belongs to another meeting, Meetings/Old 1.md');
  });

  it('warmed ahead of a run (a meeting being recorded): the tokenizer is loaded and the run start reads no meeting note, stats none', async () => {
    const vault = vaultOf(20);
    const caches = cachesOf(vault);
    caches.watch.trust(['/vault/Meetings'], { clock: () => new Date(0), maxTrustMs: 60_000 });
    await caches.warm();
    expect(tokenizerLoaded()).toBe(true);
    // Every meeting note, the one to be run too (it is no claimant of its own notes, but read all the same).
    expect(caches.meetingHeads.stats.read).toBe(21);
    caches.meetingHeads.stats.read = 0;
    const calls = countFsCalls(vault.fs);
    await resolveNew(vault, caches);
    expect(caches.meetingHeads.stats.read).toBe(0);
    expect(calls.stat).toBeLessThan(10);
  });

  it('a note being checked is checked once for two callers at once (the warm-up and a cold run start’s claim check)', async () => {
    const vault = vaultOf(3);
    const caches = cachesOf(vault);
    caches.watch.trust(['/vault/Meetings'], { clock: () => new Date(0), maxTrustMs: 60_000 });
    const heads = caches.meetingHeads;
    const [a, b] = await Promise.all([heads.get('/vault/Meetings/Old 1.md'), heads.get('/vault/Meetings/Old 1.md')]);
    expect(b).toBe(a);
    expect(heads.stats.checked).toBe(1);
    // Every note of a whole pass beside another pass: each stat'ed once.
    heads.stats.checked = 0;
    caches.watch.invalidate('/vault/Meetings');
    const notes = ['/vault/Meetings/New.md', '/vault/Meetings/Old 0.md', '/vault/Meetings/Old 1.md', '/vault/Meetings/Old 2.md'];
    await Promise.all([heads.warm(notes), heads.warm(notes)]);
    expect(heads.stats.checked).toBe(4);
  });

  it('a check under way when an event came is not joined: the caller after the event gets the note as changed', async () => {
    const vault = vaultOf(3);
    const caches = cachesOf(vault);
    caches.watch.trust(['/vault/Meetings'], { clock: () => new Date(0), maxTrustMs: 60_000 });
    const heads = caches.meetingHeads;
    const note = '/vault/Meetings/Old 1.md';
    const first = heads.get(note);
    await vault.fs.writeFile(note, meeting('Old 1', 'summary: "[[Meetings/Summaries/New]]"\n'));
    caches.watch.invalidate(note);
    const after = await heads.get(note);
    await first;
    expect(heads.stats.checked).toBe(2);
    expect(after).toMatchObject({ ok: true, data: { summary: '[[Meetings/Summaries/New]]' } });
  });

  it('without a watcher, a check under way is not joined: no event tells of a change made since it began (a CLI summarize, polling)', async () => {
    const vault = vaultOf(3);
    const caches = cachesOf(vault);
    const heads = caches.meetingHeads;
    const note = '/vault/Meetings/Old 1.md';
    const first = heads.get(note);
    // Another program changes the note while the first check is under way; nothing says so.
    await vault.fs.writeFile(note, meeting('Old 1', 'summary: "[[Meetings/Summaries/Old 1]]"\ncontext: "[[Meetings/Context/New]]"\n'));
    const after = await heads.get(note);
    await first;
    expect(heads.stats.checked).toBe(2);
    expect(after).toMatchObject({ ok: true, data: { context: '[[Meetings/Context/New]]' } });
  });

  it('without a watcher, every run start checks each note on disk (a stat), and reads none unchanged', async () => {
    const vault = vaultOf(20);
    const caches = cachesOf(vault);
    await resolveNew(vault, caches);
    const calls = countFsCalls(vault.fs);
    caches.meetingHeads.stats.read = 0;
    await resolveNew(vault, caches);
    expect(calls.stat).toBeGreaterThanOrEqual(20);
    expect(caches.meetingHeads.stats.read).toBe(0);
  });
});
