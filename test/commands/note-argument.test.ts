import { describe, expect, it } from 'vitest';
import { CliError, EXIT_USAGE } from '../../src/commands/common.js';
import { noteArgument } from '../../src/commands/note-argument.js';
import { memoryVault } from '../helpers/memfs.js';

/** docs/design.md §6: how a note is named on the command line. */
const files = {
  'Meetings/Team A/2026-12-02 1000 Design Review.md': '---\ntitle: A\n---\n',
  'Meetings/Team B/2026-12-02 1000 Design Review.md': '---\ntitle: B\n---\n',
  'Meetings/Standup.md': '---\ntitle: Standup\n---\n',
  'Meetings/Transcripts/Standup.md': '---\nstate: finished\n---\n',
  'Meetings/Summaries/Standup.md': '---\nstatus: done\n---\n',
  'Meetings/Notes v1.2.md': '---\ntitle: dotted\n---\n',
};

async function refusal(promise: Promise<unknown>): Promise<CliError> {
  const err = await promise.catch((e: unknown) => e);
  expect(err).toBeInstanceOf(CliError);
  expect((err as CliError).exitCode).toBe(EXIT_USAGE);
  return err as CliError;
}

describe('note arguments', () => {
  const vault = memoryVault(files);
  const rel = async (raw: string, cwd = '/elsewhere', prefer?: ('meeting' | 'summary')[]) => vault.rel(await noteArgument(vault, raw, cwd, prefer));

  it('vault-relative, with or without .md (a dot in the name does not count as an extension)', async () => {
    expect(await rel('Meetings/Standup.md')).toBe('Meetings/Standup.md');
    expect(await rel('Meetings/Standup')).toBe('Meetings/Standup.md');
    expect(await rel('Meetings/Notes v1.2')).toBe('Meetings/Notes v1.2.md');
  });

  it('relative to the current folder, or absolute inside the vault', async () => {
    expect(await rel('2026-12-02 1000 Design Review', '/vault/Meetings/Team B')).toBe('Meetings/Team B/2026-12-02 1000 Design Review.md');
    expect(await rel('../Standup.md', '/vault/Meetings/Team A')).toBe('Meetings/Standup.md');
    expect(await rel('/vault/Meetings/Team A/2026-12-02 1000 Design Review.md')).toBe('Meetings/Team A/2026-12-02 1000 Design Review.md');
  });

  it('a bare note name resolves as a link; the command\'s kind decides among notes of one name', async () => {
    expect(await rel('Standup', '/elsewhere', ['meeting'])).toBe('Meetings/Standup.md');
    expect(await rel('[[Standup]]', '/elsewhere', ['summary', 'meeting'])).toBe('Meetings/Summaries/Standup.md');
    const ambiguous = await refusal(noteArgument(vault, '2026-12-02 1000 Design Review', '/elsewhere', ['meeting']));
    expect(ambiguous.message).toMatch(/could mean any of "Meetings\/Team A\/.*", "Meetings\/Team B\/.*"/);
  });

  it('outside the vault, missing, or through ".." out of it: exit 2, naming what was looked for', async () => {
    expect((await refusal(noteArgument(vault, '/etc/passwd', '/'))).message).toMatch(/not inside the vault/);
    expect((await refusal(noteArgument(vault, '../../etc/passwd', '/vault/Meetings'))).message).toMatch(/no such note/);
    const missing = await refusal(noteArgument(vault, 'Meetings/Nope', '/elsewhere'));
    expect(missing.message).toBe('no such note: Meetings/Nope (looked for "Meetings/Nope", "Meetings/Nope.md")');
  });
});
