import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { Inbox } from '../../src/daemon/intake/inbox.js';
import { importFile } from '../../src/import/importer.js';
import { parseNote } from '../../src/vault/format/frontmatter.js';
import { Vault } from '../../src/vault/files/vault.js';
import { capturedLogger } from '../helpers/captured-log.js';
import { memoryFs, testConfig } from '../helpers/memfs.js';

// An import that loses or guesses anything says so (docs/design.md §9, Limits): in the log and
// in the meeting's context note, never a silent drop.
const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'import');
const fixture = (name: string) => readFileSync(path.join(FIXTURES, name), 'utf8');
const clock = () => new Date('2026-12-02T12:00:00Z');
const INBOX = 'Meetings/Inbox/2026-12-02 1000 Odd Times.vtt';
const SAID = '2 cues had a time that cannot be a time, their words are kept at the time of the cue before: lines 6, 9 of the file';

function vaultWith(text: string) {
  const config = testConfig();
  const vault = new Vault(memoryFs({ [INBOX]: text }), config.layout);
  return { vault, config };
}

describe('what an import could not read', () => {
  it('is in the outcome and in the context note, and no note holds NaN', async () => {
    const { vault } = vaultWith(fixture('impossible-times.vtt'));
    const outcome = await importFile({ vault, clock }, { file: vault.abs(INBOX), keep: 'move' });
    if (outcome.kind !== 'imported') throw new Error('not imported');
    expect(outcome.unread).toEqual([SAID]);
    const context = parseNote(await vault.read(vault.abs(outcome.context)));
    expect(context.body).toContain(`## Import\n\nNot everything in 2026-12-02 1000 Odd Times.vtt could be read as it was:\n- ${SAID}\n`);
    for (const rel of [outcome.meeting, outcome.transcript, outcome.context]) expect(await vault.read(vault.abs(rel))).not.toMatch(/NaN|Infinity/);
    const meeting = parseNote(await vault.read(vault.abs(outcome.meeting)));
    expect(meeting.data.end_time).toMatch(/^2026-12-02T10:00:07/);
  });

  it('a clean file says nothing: no section in the context note', async () => {
    const { vault } = vaultWith(fixture('teams-voice-tags.vtt'));
    const outcome = await importFile({ vault, clock }, { file: vault.abs(INBOX), keep: 'move' });
    if (outcome.kind !== 'imported') throw new Error('not imported');
    expect(outcome.unread).toEqual([]);
    expect(parseNote(await vault.read(vault.abs(outcome.context))).body).not.toContain('## Import');
  });

  it('the inbox logs it as a warning naming the file', async () => {
    const { vault, config } = vaultWith(fixture('impossible-times.vtt'));
    const { log, lines } = capturedLogger('info');
    const inbox = new Inbox({ vault, settings: config.settings.Import, log, clock });
    await inbox.importNow('2026-12-02 1000 Odd Times.vtt', { file: vault.abs(INBOX), keep: 'move' });
    const warning = lines.find((line) => line.level === 'warn');
    expect(warning).toMatchObject({ file: '2026-12-02 1000 Odd Times.vtt', unread: [SAID] });
    expect(warning?.msg).toBe(`2026-12-02 1000 Odd Times.vtt: ${SAID}`);
  });
});
