import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { nodeFs, writeFileAtomic } from '../../../src/vault/files/fs.js';
import { failureNoteOf, fileOfFailureNote } from '../../../src/import/inbox-rules.js';
import { cutToBytes, NAME_MAX_BYTES } from '../../../src/vault/files/fs.js';
import { MADE_NAME_MAX_BYTES, sessionNoteStem } from '../../../src/vault/format/note-names.js';

/** Names too long for the file system (issue 33 point 3, docs/design.md §9 "Limits"). */
describe('shortened names', () => {
  it('cuts between characters, never inside one, and drops a trailing space or dot', () => {
    expect(cutToBytes('ÄÄÄ', 5)).toBe('ÄÄ');
    expect(cutToBytes('a😀b', 4)).toBe('a');
    expect(cutToBytes('ab. cd', 4)).toBe('ab');
    expect(cutToBytes('short', 100)).toBe('short');
  });

  it('a title of only emoji is cut between whole emoji, never inside a family or a flag', () => {
    const family = '👨‍👩‍👧‍👦';
    const stem = sessionNoteStem(new Date(2026, 11, 2, 10, 0), family.repeat(20));
    const title = stem.slice('2026-12-02 1000 '.length);
    expect(title.length).toBeGreaterThan(0);
    expect(title.length % family.length).toBe(0);
    expect(title).toBe(family.repeat(title.length / family.length));
    expect(cutToBytes('🇩🇪🇩🇪', 12)).toBe('🇩🇪');
  });

  it("a note's name keeps its date and the start of its title within the bound", () => {
    const stem = sessionNoteStem(new Date(2026, 11, 2, 10, 0), `Planning ${'ü'.repeat(200)}`);
    expect(stem.startsWith('2026-12-02 1000 Planning üü')).toBe(true);
    expect(Buffer.byteLength(`${stem}.md`)).toBeLessThanOrEqual(MADE_NAME_MAX_BYTES);
  });

  it("an error note for a 255-byte file name fits, one per file, and the plain one still maps back", () => {
    const a = `/v/Inbox/${'a'.repeat(251)}.srt`;
    const b = `/v/Inbox/${'a'.repeat(250)}b.srt`;
    const [noteA, noteB] = [failureNoteOf(a), failureNoteOf(b)];
    expect(Buffer.byteLength(noteA.split('/').pop()!)).toBeLessThanOrEqual(NAME_MAX_BYTES);
    expect(noteA).not.toBe(noteB);
    expect(noteA.endsWith(' (import failed).md')).toBe(true);
    expect(fileOfFailureNote(failureNoteOf('/v/Inbox/call.srt'))).toBe('/v/Inbox/call.srt');
  });

  it('a note a person named with 255 bytes is still written atomically: its temporary name is cut to fit (real disk)', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'ma-names-'));
    try {
      const name = `${'n'.repeat(252)}.md`;
      await writeFileAtomic(nodeFs, path.join(dir, name), 'content\n');
      expect(readFileSync(path.join(dir, name), 'utf8')).toBe('content\n');
      expect(readdirSync(dir)).toEqual([name]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
