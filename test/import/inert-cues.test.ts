import { describe, expect, it } from 'vitest';
import { importFile } from '../../src/import/importer.js';
import { Vault } from '../../src/vault/files/vault.js';
import { executableBlocks } from '../../src/vault/format/inert.js';
import { memoryFs, testConfig } from '../helpers/memfs.js';

/**
 * Issue 43 point 5 (docs/design.md §9): Dataview's inline JavaScript and queries, and
 * Templater's tags (which the reader drops as markup), in an imported file's cues land inert in the transcript note, made so by
 * the function the agent's writes use (vault/format/inert.ts).
 */

const VTT = [
  'WEBVTT',
  '',
  '00:00:01.000 --> 00:00:02.000',
  '<v Mallory>Hello `$= dv.el("b","PWNED")` there</v>',
  '',
  '00:00:03.000 --> 00:00:04.000',
  '<v Mallory>and `= this.file.name` and <% tp.system.prompt() %></v>',
  '',
  '00:00:05.000 --> 00:00:06.000',
  '<v Bob>``  $=app.vault.adapter.remove("x")``</v>',
  '',
].join('\n');

describe('an imported transcript is inert', () => {
  it('inline JavaScript, inline queries and Templater tags from the cues are shown, not run; the words stay', async () => {
    const fs = memoryFs({ 'Meetings/Inbox/2026-12-02 1000 Hostile.vtt': VTT });
    const vault = new Vault(fs, testConfig().layout);
    const outcome = await importFile({ vault, clock: () => new Date('2026-12-02T12:00:00Z') }, { file: vault.abs('Meetings/Inbox/2026-12-02 1000 Hostile.vtt'), keep: 'move' });
    expect(outcome.kind).toBe('imported');
    const transcript = await vault.read(vault.abs((outcome as { transcript: string }).transcript));
    expect(executableBlocks(transcript)).toEqual([]);
    expect(transcript).not.toMatch(/`[ \t]*\$?=/);
    expect(transcript).not.toContain('<%');
    // (The reader drops the `<% … %>` tag as markup; spaces are collapsed as for every cue.)
    expect(transcript).toContain('[00:00:01] Mallory: Hello `$\\= dv.el("b","PWNED")` there and `\\= this.file.name` and\n');
    expect(transcript).toContain('[00:00:05] Bob: `` $\\=app.vault.adapter.remove("x")``');
  });
});
