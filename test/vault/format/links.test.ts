import { describe, expect, test } from 'vitest';
import { LinkError, formatLink, linkTarget, resolveLink, resolveOrPlanLink } from '../../../src/vault/format/links.js';
import { memoryVault } from '../../helpers/memfs.js';

describe('linkTarget', () => {
  test.each([
    ['[[Meetings/2026-11-30 Sync]]', 'Meetings/2026-11-30 Sync.md'],
    ['[[2026-11-30 Sync|alias]]', '2026-11-30 Sync.md'],
    ['[[Sync#Heading]]', 'Sync.md'],
    ['[[Sync#Heading|alias]]', 'Sync.md'],
    ['![[Diagram.png]]', 'Diagram.png'],
    ['Meetings/2026-11-30 Sync', 'Meetings/2026-11-30 Sync.md'],
    ['Meetings/2026-11-30 Sync.md', 'Meetings/2026-11-30 Sync.md'],
    ['  [[Padded]]  ', 'Padded.md'],
    ['[x](Meetings/2026-11-30%20Sync.md)', 'Meetings/2026-11-30 Sync.md'],
    ['[x](Meetings/Sync)', 'Meetings/Sync.md'],
    ['[x](<Meetings/With Space.md>)', 'Meetings/With Space.md'],
    ['[x](Sync.md#Decisions)', 'Sync.md'],
    ['[[Release 1.2]]', 'Release 1.2.md'],
    ['[[Dr. Smith]]', 'Dr. Smith.md'],
  ])('%s → %s', (value, expected) => {
    expect(linkTarget(value)).toBe(expected);
  });

  test('no link is undefined', () => {
    expect(linkTarget('')).toBeUndefined();
    expect(linkTarget('   ')).toBeUndefined();
    expect(linkTarget('[[]]')).toBeUndefined();
    expect(linkTarget('[[#Heading]]')).toBeUndefined();
    expect(linkTarget(undefined as unknown as string)).toBeUndefined();
    expect(linkTarget(42 as unknown as string)).toBeUndefined();
  });
});

describe('resolveLink', () => {
  const vault = () =>
    memoryVault({
      'Meetings/2026-11-30 Sync.md': 'meeting',
      'Meetings/Transcripts/2026-11-30 Sync T.md': 'transcript',
      'Projects/Alpha/Notes.md': 'alpha',
      'Projects/Beta/Notes.md': 'beta',
      'Archive/Case.md': 'lower',
      'Other/case.md': 'exact lower',
      'People/Alice.md': 'alice',
      '.trash/People/Bob.md': 'trashed',
      '.obsidian/Carol.md': 'config',
      '.git/Dave.md': 'git',
      'Files/With Space.md': 'space',
    });

  test('each link form resolves', async () => {
    const v = vault();
    const sync = '/vault/Meetings/2026-11-30 Sync.md';
    for (const link of [
      '[[Meetings/2026-11-30 Sync]]',
      '[[2026-11-30 Sync|alias]]',
      '[[2026-11-30 Sync#Heading]]',
      'Meetings/2026-11-30 Sync',
      'Meetings/2026-11-30 Sync.md',
      '2026-11-30 Sync.md',
      '[x](Meetings/2026-11-30%20Sync.md)',
      '[x](2026-11-30%20Sync)',
      '/Meetings/2026-11-30 Sync.md',
      '/vault/Meetings/2026-11-30 Sync.md',
    ]) {
      expect(await resolveLink(v, link), link).toBe(sync);
    }
    expect(await resolveLink(v, '[[Transcripts/2026-11-30 Sync T]]')).toBe('/vault/Meetings/Transcripts/2026-11-30 Sync T.md');
    expect(await resolveLink(v, '[x](<Files/With Space.md>)')).toBe('/vault/Files/With Space.md');
  });

  test('basenames compare without regard to case', async () => {
    expect(await resolveLink(vault(), '[[alice]]')).toBe('/vault/People/Alice.md');
    expect(await resolveLink(vault(), '[[meetings/2026-11-30 sync]]')).toBe('/vault/Meetings/2026-11-30 Sync.md');
  });

  test('an exact-case match wins over case-insensitive ones', async () => {
    expect(await resolveLink(vault(), '[[case]]')).toBe('/vault/Other/case.md');
    expect(await resolveLink(vault(), '[[Case]]')).toBe('/vault/Archive/Case.md');
  });

  test('an ambiguous basename is a LinkError naming the candidates', async () => {
    const err = await resolveLink(vault(), '[[Notes]]').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LinkError);
    expect((err as LinkError).kind).toBe('ambiguous');
    expect((err as LinkError).link).toBe('[[Notes]]');
    expect((err as LinkError).message).toContain('Projects/Alpha/Notes.md');
    expect((err as LinkError).message).toContain('Projects/Beta/Notes.md');
    expect(await resolveLink(vault(), '[[CASE]]').catch((e: unknown) => (e as LinkError).kind)).toBe('ambiguous');
  });

  test('a dangling link is a LinkError', async () => {
    const err = await resolveLink(vault(), '[[Nowhere]]').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LinkError);
    expect((err as LinkError).kind).toBe('dangling');
    expect((err as LinkError).message).toContain('[[Nowhere]]');
  });

  test('.trash, .obsidian and .git are never candidates', async () => {
    for (const link of ['[[Bob]]', '[[Carol]]', '[[Dave]]', '.trash/People/Bob.md', '[[.obsidian/Carol]]']) {
      const err = await resolveLink(vault(), link).catch((e: unknown) => e);
      expect(err, link).toBeInstanceOf(LinkError);
      expect((err as LinkError).kind, link).toBe('dangling');
    }
  });

  test('a link leaving the vault or naming nothing is invalid', async () => {
    for (const link of ['[[../etc/passwd]]', '../outside.md', '', '[[]]']) {
      const err = await resolveLink(vault(), link).catch((e: unknown) => e);
      expect(err, link).toBeInstanceOf(LinkError);
      expect((err as LinkError).kind, link).toBe('invalid');
    }
  });

  test('a folder is not a note', async () => {
    const err = await resolveLink(vault(), 'Projects/Alpha').catch((e: unknown) => e);
    expect((err as LinkError).kind).toBe('dangling');
  });
});

describe('resolveOrPlanLink', () => {
  const v = () =>
    memoryVault({
      'Meetings/Context/Existing.md': 'x',
      'Meetings/Context/2026-11-30 Sync.md': 'default exists',
    });
  const folder = '/vault/Meetings/Context';

  test('an existing note resolves', async () => {
    expect(await resolveOrPlanLink(v(), '[[Existing]]', folder, 'ignored')).toEqual({
      path: '/vault/Meetings/Context/Existing.md',
      exists: true,
    });
  });

  test('a dangling link with a folder is created at its path', async () => {
    expect(await resolveOrPlanLink(v(), '[[Elsewhere/New Note]]', folder, 'ignored')).toEqual({
      path: '/vault/Elsewhere/New Note.md',
      exists: false,
    });
  });

  test('a dangling bare name goes to the default folder', async () => {
    expect(await resolveOrPlanLink(v(), '[[New Note|alias]]', folder, 'ignored')).toEqual({
      path: '/vault/Meetings/Context/New Note.md',
      exists: false,
    });
  });

  test('a missing value means <defaultFolder>/<defaultName>.md', async () => {
    expect(await resolveOrPlanLink(v(), undefined, folder, 'Fresh')).toEqual({
      path: '/vault/Meetings/Context/Fresh.md',
      exists: false,
    });
    expect(await resolveOrPlanLink(v(), '', 'Meetings/Context', '2026-11-30 Sync')).toEqual({
      path: '/vault/Meetings/Context/2026-11-30 Sync.md',
      exists: true,
    });
  });

  test('an ambiguous link is still an error', async () => {
    const vault = memoryVault({ 'A/X.md': '', 'B/X.md': '' });
    await expect(resolveOrPlanLink(vault, '[[X]]', folder, 'n')).rejects.toMatchObject({ kind: 'ambiguous' });
  });
});

describe('formatLink', () => {
  test('is [[vault/relative/path-without-.md]]', () => {
    const vault = memoryVault();
    expect(formatLink(vault, '/vault/Meetings/Summaries/2026-11-30 Weekly Sync.md')).toBe(
      '[[Meetings/Summaries/2026-11-30 Weekly Sync]]',
    );
    expect(formatLink(vault, '/vault/Top.md')).toBe('[[Top]]');
    expect(formatLink(vault, '/vault/Files/diagram.png')).toBe('[[Files/diagram.png]]');
  });
});
