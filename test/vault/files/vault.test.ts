import { describe, expect, it } from 'vitest';
import { Vault } from '../../../src/vault/files/vault.js';
import { memoryFs, memoryVault, testConfig } from '../../helpers/memfs.js';

describe('Vault', () => {
  it('puts a note in the most specific configured folder, and the glossary and dictionary in none', () => {
    const vault = memoryVault();
    expect(vault.kindOf(vault.abs('Meetings/2026-11-30 Sync.md'))).toBe('meeting');
    expect(vault.kindOf(vault.abs('Meetings/Transcripts/2026-11-30 Sync.md'))).toBe('transcript');
    expect(vault.kindOf(vault.abs('Meetings/Summaries/2026-11-30 Sync.md'))).toBe('summary');
    expect(vault.kindOf(vault.abs('Meetings/Context/2026-11-30 Sync.md'))).toBe('context');
    expect(vault.kindOf(vault.abs('Meetings/Speakers/Alice.md'))).toBe('identity');
    expect(vault.kindOf(vault.abs('Projects/Alpha/Overview.md'))).toBe('project');
    expect(vault.kindOf(vault.abs('Meetings/Glossary.md'))).toBeUndefined();
    expect(vault.kindOf(vault.abs('Meetings/Dictionary.md'))).toBeUndefined();
    expect(vault.kindOf(vault.abs('Notes/idea.md'))).toBeUndefined();
  });

  it('puts summary templates in Folders.Templates, never among meeting notes even when the folder lies inside Meetings', () => {
    expect(memoryVault().kindOf('/vault/Templates/Stand-up.md')).toBe('template');
    const nested = memoryVault({}, { Folders: { Templates: 'Meetings/Templates' } });
    expect(nested.kindOf('/vault/Meetings/Templates/Stand-up.md')).toBe('template');
    expect(nested.kindOf('/vault/Meetings/2026-11-30 Sync.md')).toBe('meeting');
  });

  it('gives vault-relative paths with forward slashes and knows what lies outside', () => {
    const vault = memoryVault();
    expect(vault.rel('/vault/Meetings/a b.md')).toBe('Meetings/a b.md');
    expect(vault.contains('/vault/Meetings/x.md')).toBe(true);
    expect(vault.contains('/etc/passwd')).toBe(false);
    expect(vault.contains('/vault/../vaultx/a.md')).toBe(false);
  });

  it('knows which folders lie below others, and which folders cover the rest', () => {
    expect(Vault.isBelow('/vault/Meetings', '/vault/Meetings/Transcripts')).toBe(true);
    expect(Vault.isBelow('/vault/Meetings', '/vault/Meetings')).toBe(false);
    expect(Vault.isBelow('/vault/Meetings', '/vault/MeetingsOld/x')).toBe(false);
    expect(Vault.outermost(['/vault/Meetings/Transcripts', '/vault/Meetings', '/vault/Projects', '/vault/Meetings/'])).toEqual([
      '/vault/Meetings',
      '/vault/Projects',
    ]);
  });

  it('moves to and copies into .trash under the vault-relative path, never overwriting an earlier copy (stamped by the clock)', async () => {
    const clock = () => new Date('2026-11-30T09:15:00.250Z');
    const vault = new Vault(memoryFs({ 'Meetings/Speakers/Alice.md': 'v1' }), testConfig().layout, { clock });
    const file = vault.abs('Meetings/Speakers/Alice.md');
    const first = await vault.copyToTrash(file);
    expect(vault.rel(first)).toBe('.trash/Meetings/Speakers/Alice.md');
    const second = await vault.moveToTrash(file);
    expect(vault.rel(second)).toBe('.trash/Meetings/Speakers/Alice 2026-11-30T09-15-00-250Z.md');
    expect(await vault.read(first)).toBe('v1');
    expect(await vault.read(second)).toBe('v1');
    expect(await vault.exists(file)).toBe(false);
  });

  it('lists Markdown files below a folder, sorted, skipping dot-folders', async () => {
    const vault = memoryVault({
      'Projects/Alpha/b.md': '',
      'Projects/Alpha/a.md': '',
      'Projects/Alpha/.git/x.md': '',
      'Projects/Alpha/image.png': '',
    });
    expect((await vault.listMarkdown(vault.abs('Projects'))).map((f) => vault.rel(f))).toEqual([
      'Projects/Alpha/a.md',
      'Projects/Alpha/b.md',
    ]);
    expect(await vault.listMarkdown(vault.abs('Missing'))).toEqual([]);
  });

  it('tells write listeners about every write (how the daemon ignores its own writes)', async () => {
    const vault = memoryVault();
    const seen: string[] = [];
    vault.onWrite((file, content) => seen.push(`${vault.rel(file)}=${content}`));
    await vault.write(vault.abs('Meetings/x.md'), 'hello');
    expect(seen).toEqual(['Meetings/x.md=hello']);
  });
});
