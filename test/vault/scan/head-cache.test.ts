import { describe, expect, it } from 'vitest';
import { readText } from '../../../src/vault/files/fs.js';
import { HeadCache } from '../../../src/vault/scan/head-cache.js';
import { factsFromData, readNoteHead } from '../../../src/vault/scan/note-head.js';
import { parseNote } from '../../../src/vault/format/frontmatter.js';
import { liveHeapBytes } from '../../helpers/heap.js';
import { memoryVault } from '../../helpers/memfs.js';
import { Vault } from '../../../src/vault/files/vault.js';

// What the daemon keeps for its whole life must not keep the text it was read from: V8 cuts a
// value out of a longer string as a view of it (docs/design.md §8, caches with owners).
const NOTES = 200;
const FILLER = 40_000;

function note(i: number): string {
  return `---\nstate: finished\nmeeting: "[[2026-11-30 Weekly planning ${i}]]"\ndescription: "${'x'.repeat(FILLER)}${i}"\n---\nbody ${i}\n`;
}

describe('heads kept for the life of the daemon', () => {
  it('keep the kept keys, not the frontmatter text they were parsed from', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < NOTES; i++) files[`Meetings/Transcripts/T ${i}.md`] = note(i);
    const vault = memoryVault(files);
    const heads = new HeadCache(vault, ['state', 'meeting']);
    const before = liveHeapBytes();
    for (let i = 0; i < NOTES; i++) {
      const head = await heads.get(vault.abs(`Meetings/Transcripts/T ${i}.md`));
      expect(head).toEqual({ ok: true, data: { state: 'finished', meeting: `[[2026-11-30 Weekly planning ${i}]]` } });
    }
    const kept = liveHeapBytes() - before;
    // Views of the texts would keep NOTES × FILLER = 8 MB; what is kept is a few small strings each
    // (values of 13 characters or more: V8 copies shorter ones anyway).
    expect(kept).toBeLessThan((NOTES * FILLER) / 8);
    expect(heads.size).toBe(NOTES);
  });

  it('trigger facts keep no reference to the whole note (a transcript, for the watcher)', async () => {
    const body = 'y'.repeat(2_000_000);
    const before = liveHeapBytes();
    const facts = [];
    for (let i = 0; i < 8; i++) {
      const text = `---\nstate: waiting for review ${i}\nstatus: failed\n---\n${body}${i}\n`;
      facts.push(factsFromData(parseNote(text).data));
    }
    const kept = liveHeapBytes() - before;
    expect(facts[3]).toEqual({ state: 'waiting for review 3', status: 'failed', retry: false });
    expect(kept).toBeLessThan(2_000_000);
  });

  it('a head read whole is still the note’s data', async () => {
    const vault = memoryVault({ 'Meetings/A.md': note(1) });
    const head = await readNoteHead(vault.fs, vault.abs('Meetings/A.md'));
    expect(head.data.state).toBe('finished');
    expect(head.facts).toEqual({ state: 'finished', status: undefined, retry: false });
  });
});

describe('a head looked at again, unchanged', () => {
  it('is the same data or the same parse error as when it was read, without reading the note', async () => {
    const vault = memoryVault({
      'Meetings/A.md': '---\nstate: finished\nretry: true\ncount: 3\nlist: [a, [b, c]]\nmeeting: "two\\nlines"\nnothing:\n---\nbody\n',
      'Meetings/B.md': '---\nstate: [unclosed\n---\nbody\n',
    });
    const heads = new HeadCache(vault, ['state', 'retry', 'count', 'list', 'meeting', 'nothing']);
    const a = vault.abs('Meetings/A.md');
    const b = vault.abs('Meetings/B.md');
    const first = [await heads.get(a), await heads.get(b)];
    expect(first[0]).toEqual({ ok: true, data: { state: 'finished', retry: true, count: 3, list: ['a', ['b', 'c']], meeting: 'two\nlines', nothing: null } });
    expect(first[1]).toMatchObject({ ok: false, error: expect.stringContaining('Meetings/B.md line 2') as unknown });
    heads.resetStats();
    expect([await heads.get(a), await heads.get(b)]).toEqual(first);
    expect(heads.stats).toEqual({ checked: 2, read: 0 });
  });
});

describe('heads that wait on disk between scans (docs/design.md §8)', () => {
  const SPILL = '/vault/.meeting-assistant/catch-up-heads.json';
  const COUNT = 30;
  const files = () => {
    const all: Record<string, string> = {};
    for (let i = 0; i < COUNT; i++) all[`Meetings/Transcripts/T ${i}.md`] = `---\nstate: finished\nmeeting: "[[M ${i}]]"\n---\nbody\n`;
    return all;
  };
  const lookAll = async (heads: HeadCache, vault: ReturnType<typeof memoryVault>) => {
    heads.beginPass();
    for (let i = 0; i < COUNT; i++) await heads.get(vault.abs(`Meetings/Transcripts/T ${i}.md`));
    heads.endPass();
    return { ...heads.stats };
  };

  it('leave memory after a scan and come back for the next, which then reads no unchanged note; a daemon started later finds them too', async () => {
    const vault = memoryVault(files());
    const heads = new HeadCache(vault, ['state', 'meeting'], SPILL);
    await heads.restore();
    expect(await lookAll(heads, vault)).toEqual({ checked: COUNT, read: COUNT });
    await heads.spill();
    expect(heads.size).toBe(0);
    expect((await readText(vault.fs, SPILL)).startsWith('meeting-assistant heads 1 ["state","meeting"]\n')).toBe(true);
    await heads.restore();
    expect(heads.size).toBe(COUNT);
    expect(await lookAll(heads, vault)).toEqual({ checked: COUNT, read: 0 });
    await heads.spill();

    // A note changed meanwhile is read again: a restored entry is checked like one kept in memory.
    await vault.fs.writeFile(vault.abs('Meetings/Transcripts/T 3.md'), '---\nstate: transcribing\n---\nchanged\n');
    const next = new HeadCache(vault, ['state', 'meeting'], SPILL);
    await next.restore();
    expect(await lookAll(next, vault)).toEqual({ checked: COUNT, read: 1 });
    expect(await next.get(vault.abs('Meetings/Transcripts/T 3.md'))).toEqual({ ok: true, data: { state: 'transcribing' } });
  });

  it('are written only when a scan changed them, and a torn or foreign file means a scan that reads every note', async () => {
    const vault = memoryVault(files());
    const heads = new HeadCache(vault, ['state'], SPILL);
    await heads.restore();
    await lookAll(heads, vault);
    await heads.spill();
    await heads.restore();
    await lookAll(heads, vault);
    await vault.fs.unlink(SPILL);
    await heads.spill();
    await expect(vault.fs.stat(SPILL)).rejects.toThrow();

    for (const text of ['meeting-assistant heads 1 ["state"]\n[["Meetings/Transcripts/T 1.md", "1:2', 'something else\n[]', 'meeting-assistant heads 1 ["state"]\n{"a":1}']) {
      await vault.fs.writeFile(SPILL, text);
      const fresh = new HeadCache(vault, ['state'], SPILL);
      await fresh.restore();
      expect(await lookAll(fresh, vault)).toEqual({ checked: COUNT, read: COUNT });
    }
  });

  it('kept for other keys (a daemon before an upgrade that added one) are not trusted: the notes are read again', async () => {
    const vault = memoryVault(files());
    const before = new HeadCache(vault, ['state'], SPILL);
    await before.restore();
    await lookAll(before, vault);
    await before.spill();
    const after = new HeadCache(vault, ['state', 'meeting'], SPILL);
    await after.restore();
    expect(await lookAll(after, vault)).toEqual({ checked: COUNT, read: COUNT });
    expect(await after.get(vault.abs('Meetings/Transcripts/T 2.md'))).toEqual({ ok: true, data: { state: 'finished', meeting: '[[M 2]]' } });
  });

  it('an entry of the file that is not ours, for a note unchanged since, means the note is read again, not a scan that fails', async () => {
    const vault = memoryVault(files());
    const heads = new HeadCache(vault, ['state'], SPILL);
    await heads.restore();
    await lookAll(heads, vault);
    await heads.spill();
    const text = await readText(vault.fs, SPILL);
    const [header, body] = [text.slice(0, text.indexOf('\n')), JSON.parse(text.slice(text.indexOf('\n') + 1)) as [string, string][]];
    // The versions kept (they match the notes), the payloads broken as a hand edit or a merge would.
    const broken = ['J{"state":', 'Jnull', 'J[1]', 'X?'];
    body.forEach((pair, i) => (pair[1] = `${pair[1].slice(0, pair[1].indexOf('\n'))}\n${broken[i % broken.length]}`));
    await vault.fs.writeFile(SPILL, `${header}\n${JSON.stringify(body)}`);
    const fresh = new HeadCache(vault, ['state'], SPILL);
    await fresh.restore();
    expect(await lookAll(fresh, vault)).toEqual({ checked: COUNT, read: COUNT });
    expect(await fresh.get(vault.abs('Meetings/Transcripts/T 0.md'))).toEqual({ ok: true, data: { state: 'finished' } });
  });

  it('stay in memory when the file cannot be written', async () => {
    const vault = memoryVault(files());
    const heads = new HeadCache(vault, ['state'], SPILL);
    await heads.restore();
    await lookAll(heads, vault);
    const rename = vault.fs.rename.bind(vault.fs);
    (vault.fs as { rename: typeof rename }).rename = () => Promise.reject(Object.assign(new Error('read-only'), { code: 'EROFS' }));
    await heads.spill();
    expect(heads.size).toBe(COUNT);
    (vault.fs as { rename: typeof rename }).rename = rename;
    await heads.restore();
    expect(await lookAll(heads, vault)).toEqual({ checked: COUNT, read: 0 });
  });
});

describe('a pass that looks at many notes ahead of its questions (prefetch)', () => {
  it('stats them many at once, answers the gets after it from the pass, and leaves an error to the get that meets it', async () => {
    const all: Record<string, string> = {};
    for (let i = 0; i < 200; i++) all[`Meetings/Transcripts/T ${i}.md`] = `---\nstate: finished\n---\nbody ${i}\n`;
    const base = memoryVault(all);
    let inFlight = 0;
    let most = 0;
    let stats = 0;
    const denied = base.abs('Meetings/Transcripts/T 7.md');
    const fs = {
      ...base.fs,
      stat: async (file: string) => {
        stats++;
        inFlight++;
        most = Math.max(most, inFlight);
        await new Promise((resolve) => setImmediate(resolve));
        inFlight--;
        if (file === denied) throw Object.assign(new Error(`EACCES: permission denied, stat '${file}'`), { code: 'EACCES' });
        return base.fs.stat(file);
      },
    };
    const vault = new Vault(fs, base.layout);
    const heads = new HeadCache(vault, ['state']);
    const paths = Object.keys(all).map((rel) => vault.abs(rel));
    heads.beginPass();
    await heads.prefetch(paths);
    // One at a time, each stat would wake one of libuv's threads (head-cache.ts): many are in flight.
    expect(most).toBeGreaterThan(16);
    expect(heads.stats).toEqual({ checked: 200, read: 199 });
    const afterPrefetch = stats;
    expect(await heads.get(vault.abs('Meetings/Transcripts/T 3.md'))).toEqual({ ok: true, data: { state: 'finished' } });
    await expect(heads.get(denied)).rejects.toMatchObject({ code: 'EACCES' });
    expect(stats).toBe(afterPrefetch);
    expect(heads.stats.checked).toBe(200);
    heads.endPass();
  });

  it('outside a pass does nothing (nothing would keep what it found)', async () => {
    const vault = memoryVault({ 'Meetings/Transcripts/T.md': '---\nstate: finished\n---\n' });
    const heads = new HeadCache(vault, ['state']);
    await heads.prefetch([vault.abs('Meetings/Transcripts/T.md')]);
    expect(heads.stats.checked).toBe(0);
  });
});
