import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ImportError } from '../../src/import/cues.js';
import { assertDocxWithin } from '../../src/import/docx-limits.js';
import { importFile, type ImportDeps, recoverImports } from '../../src/import/importer.js';
import type { Fs } from '../../src/vault/files/fs.js';
import { Vault } from '../../src/vault/files/vault.js';
import { countFsCalls, memoryFs, testConfig } from '../helpers/memfs.js';
import { buildZip, docxOf } from '../helpers/zip.mjs';

/**
 * The inbox against hostile files (issue 33, docs/design.md §9 "Limits"): links out of the
 * vault or into its dot-folders, files and documents larger than Agent.MaxFileBytes, a zip
 * whose headers lie, a staging folder that cannot be recovered.
 */

const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'import');
const clock = () => new Date('2026-12-02T12:00:00Z');
const SRT = '1\n00:00:00,000 --> 00:00:02,000\nAlice: Hello there.\n';

function setup(files: Record<string, string | null>, raw: Record<string, unknown> = {}) {
  const fs: Fs = memoryFs(files);
  const vault = new Vault(fs, testConfig(raw).layout);
  const deps: ImportDeps = { vault, clock };
  return { vault, deps, fs };
}

const symlink = (fs: Fs, target: string, at: string) => (fs as unknown as { symlink(t: string, p: string): Promise<void> }).symlink(target, at);

async function refusal(promise: Promise<unknown>): Promise<ImportError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ImportError);
  return err as ImportError;
}

describe('symbolic links in the inbox', () => {
  it('a link to a file outside the vault is refused, never read, never moved', async () => {
    const { vault, deps, fs } = setup({ '/etc/passwd': 'root:x:0:0:root:/root:/bin/bash\n', 'Meetings/Inbox/.keep': '' });
    const link = vault.abs('Meetings/Inbox/2026-11-09 0900 Passwd.txt');
    await symlink(fs, '/etc/passwd', link);
    const err = await refusal(importFile(deps, { file: link, keep: 'move' }));
    expect(err.message).toMatch(/symbolic link that leads outside the vault/);
    expect((await fs.lstat(link)).isSymbolicLink()).toBe(true);
    expect(await vault.listMarkdown(vault.abs('Meetings'))).toEqual([]);
    expect(String(await fs.readFile('/etc/passwd'))).toContain('root:x');
  });

  it("a link into the vault's dot-folder (the API token) is refused", async () => {
    const { vault, deps, fs } = setup({ '.meeting-assistant/token': 'secret-token-123\n', 'Meetings/Inbox/.keep': '' });
    const link = vault.abs('Meetings/Inbox/token.txt');
    await symlink(fs, vault.abs('.meeting-assistant/token'), link);
    const err = await refusal(importFile(deps, { file: link, keep: 'move' }));
    expect(err.message).toMatch(/dot-folders/);
    const notes = await vault.listMarkdown(vault.root);
    for (const note of notes) expect(await vault.read(note)).not.toContain('secret-token-123');
  });

  it('a file in a linked folder outside the vault is neither imported nor moved out of that folder', async () => {
    const { vault, deps, fs } = setup({ '/elsewhere/call.srt': SRT, 'Meetings/Inbox/.keep': '' });
    await symlink(fs, '/elsewhere', vault.abs('Meetings/Inbox/Linked'));
    await refusal(importFile(deps, { file: vault.abs('Meetings/Inbox/Linked/call.srt'), keep: 'move' }));
    expect(String(await fs.readFile('/elsewhere/call.srt'))).toBe(SRT);
    expect(await vault.exists(vault.abs('Meetings/Sources'))).toBe(false);
  });

  it('a link that stays in the vault is imported like the file it names', async () => {
    const { vault, deps, fs } = setup({ 'Drafts/call.srt': SRT, 'Meetings/Inbox/.keep': '' });
    await symlink(fs, vault.abs('Drafts/call.srt'), vault.abs('Meetings/Inbox/2026-12-02 1000 Call.srt'));
    const outcome = await importFile(deps, { file: vault.abs('Meetings/Inbox/2026-12-02 1000 Call.srt'), keep: 'move' });
    expect(outcome.kind).toBe('imported');
    expect(await vault.read(vault.abs('Meetings/Transcripts/2026-12-02 1000 Call.md'))).toContain('Alice: Hello there.');
  });
});

describe('sizes (Agent.MaxFileBytes)', () => {
  it('a transcript larger than the limit is an import error naming it, refused before it is read', async () => {
    const big = `WEBVTT\n\n00:00:00.000 --> 00:00:01.000\n${'word '.repeat(3000)}\n`;
    const { vault, deps, fs } = setup({ 'Meetings/Inbox/big.vtt': big }, { Agent: { MaxFileBytes: 10_000 } });
    const reads = countFsCalls(fs);
    const err = await refusal(importFile(deps, { file: vault.abs('Meetings/Inbox/big.vtt'), keep: 'move' }));
    expect(err.message).toMatch(/big\.vtt is 15\d\d\d bytes, more than Agent\.MaxFileBytes \(10000 bytes\)/);
    expect(reads.readFile).toBe(0);
    expect(await vault.exists(vault.abs('Meetings/Inbox/big.vtt'))).toBe(true);
  });

  it('a transcript note that would outgrow the limit is refused at import, not left for a run that cannot read it', async () => {
    // Each turn gains its time stamp: `A: a` (5 bytes) becomes `[00:00:00] A: a` (16).
    const text = 'A: a\nB: b\n'.repeat(500);
    const { vault, deps } = setup({ 'Meetings/Inbox/many.txt': text }, { Agent: { MaxFileBytes: 6000 } });
    const err = await refusal(importFile(deps, { file: vault.abs('Meetings/Inbox/many.txt'), keep: 'move' }));
    expect(err.message).toMatch(/makes a transcript note of \d+ bytes, more than Agent\.MaxFileBytes/);
    expect(await vault.exists(vault.abs('Meetings/Inbox/many.txt'))).toBe(true);
    expect(await vault.listMarkdown(vault.abs('Meetings/Transcripts'))).toEqual([]);
  });
});

describe('.docx within Agent.MaxFileBytes when unpacked', () => {
  const name = '2026-12-02 1000 Review.docx';

  it('a zip bomb (40 MB of deflated zeros in 40 KB) is an import error naming the limit', async () => {
    const bomb = buildZip([{ name: 'word/document.xml', data: Buffer.alloc(40 * 1024 * 1024) }]);
    expect(bomb.length).toBeLessThan(100 * 1024);
    const err = await refusal(assertDocxWithin({ name, bytes: bomb }, 20 * 1024 * 1024));
    expect(err.message).toBe(`${name} expands to more than Agent.MaxFileBytes (20971520 bytes) when unpacked (a .docx is a zip); it is not read`);
  });

  it('headers that declare a small size do not let a large entry through: the real inflated bytes are capped', async () => {
    const liar = buildZip([{ name: 'word/document.xml', data: Buffer.alloc(5 * 1024 * 1024), declaredSize: 100 }]);
    const err = await refusal(assertDocxWithin({ name, bytes: liar }, 1024 * 1024));
    expect(err.message).toMatch(/is not a Word document that can be read \(too many bytes in the stream/);
  });

  it('many entries are counted together', async () => {
    const parts = buildZip(Array.from({ length: 5 }, (_, i) => ({ name: `word/part${i}.xml`, data: Buffer.alloc(300 * 1024) })));
    const err = await refusal(assertDocxWithin({ name, bytes: parts }, 1024 * 1024));
    expect(err.message).toMatch(/expands to more than Agent\.MaxFileBytes \(1048576 bytes\)/);
  });

  it('thousands of tiny entries are refused by their count before any is inflated (each costs a zlib stream, then jszip)', async () => {
    const many = buildZip(Array.from({ length: 20_000 }, (_, i) => ({ name: `word/x${i}.xml`, data: Buffer.alloc(0) })));
    const err = await refusal(assertDocxWithin({ name, bytes: many }, 20 * 1024 * 1024));
    expect(err.message).toBe(`${name} holds 20000 parts, more than the 10000 a .docx is read with (a Word document has a few dozen); it is not read`);
  });

  it('a zip whose end record declares fewer entries than its central directory holds is refused (jszip, mammoth\'s reader, reads them all)', async () => {
    const doc = Buffer.from(docxOf(['Alice Example  0:00:01', 'Hello.'], 5 * 1024 * 1024));
    const eocd = doc.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
    for (const count of [0, 1]) {
      const hidden = Buffer.from(doc);
      hidden.writeUInt16LE(count, eocd + 8);
      hidden.writeUInt16LE(count, eocd + 10);
      const err = await refusal(assertDocxWithin({ name, bytes: hidden }, 1024 * 1024));
      expect(err.message).toMatch(/is not a Word document that can be read|expands to more than/);
    }
  });

  it('a truncated zip is a readable error, not a crash', async () => {
    const whole = docxOf(['Alice Example  0:00:01', 'Hello.']);
    const err = await refusal(assertDocxWithin({ name, bytes: whole.subarray(0, whole.length - 30) }, 64 * 1024));
    expect(err.message).toMatch(/is not a Word document that can be read/);
  });

  it('a document within the limit passes, and a file that is no zip is a readable error', async () => {
    await assertDocxWithin({ name, bytes: readFileSync(path.join(FIXTURES, 'teams-transcript.docx')) }, 20 * 1024 * 1024);
    // The same document written with Zip64 records (Info-ZIP's `zip -fz`).
    await assertDocxWithin({ name, bytes: readFileSync(path.join(FIXTURES, 'zip64-transcript.docx')) }, 20 * 1024 * 1024);
    await assertDocxWithin({ name, bytes: docxOf(['Alice Example  0:00:01', 'Hello.']) }, 64 * 1024);
    const err = await refusal(assertDocxWithin({ name, bytes: Buffer.from('not a zip at all') }, 1024));
    expect(err.message).toMatch(/is not a Word document that can be read/);
  });

  it('the import refuses the bomb with its error note text and leaves the file in the inbox', async () => {
    const { vault, deps, fs } = setup({ 'Meetings/Inbox/.keep': '' }, { Agent: { MaxFileBytes: 1024 * 1024 } });
    await fs.writeFile(vault.abs(`Meetings/Inbox/${name}`), docxOf(['Alice Example  0:00:01', 'Hello.'], 2 * 1024 * 1024));
    const err = await refusal(importFile(deps, { file: vault.abs(`Meetings/Inbox/${name}`), keep: 'move' }));
    expect(err.message).toMatch(/expands to more than Agent\.MaxFileBytes \(1048576 bytes\)/);
    expect(err.hint).toMatch(/raise Agent\.MaxFileBytes/);
    expect(await vault.exists(vault.abs(`Meetings/Inbox/${name}`))).toBe(true);
  });
});

describe('recovery', () => {
  it('a staging folder that cannot be completed is reported, and the others are still recovered', async () => {
    const { vault, fs } = setup({ 'Meetings/Sources/a.srt': SRT });
    const staging = vault.abs('.meeting-assistant/imports');
    // A plan whose original was committed but whose note cannot be placed (its folder is a file).
    await fs.mkdir(`${staging}/broken`, { recursive: true });
    await fs.writeFile(`${staging}/broken/0.md`, 'x');
    await fs.writeFile(vault.abs('Blocked'), 'a file where a folder should be');
    const plan = { pid: 1, hash: 'h', original: vault.abs('Meetings/Inbox/a.srt'), keep: 'move', source: vault.abs('Meetings/Sources/a.srt'), meeting: vault.abs('Blocked/m.md'), summary: vault.abs('s.md'), notes: [{ staged: '0.md', final: vault.abs('Blocked/m.md') }] };
    await fs.writeFile(`${staging}/broken/plan.json`, JSON.stringify(plan));
    await fs.mkdir(`${staging}/uncommitted`, { recursive: true });
    const recovered = await recoverImports(vault, clock, Date.now() + 3_600_000);
    expect(recovered.dropped).toBe(1);
    expect(recovered.failed.map((f) => f.staging)).toEqual(['.meeting-assistant/imports/broken']);
  });
});
