import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/config.js';
import { ImportError } from '../../src/import/cues.js';
import { importFile } from '../../src/import/importer.js';
import { type Fs, nodeFs } from '../../src/vault/files/fs.js';
import { Vault } from '../../src/vault/files/vault.js';
import { memoryFs, testConfig } from '../helpers/memfs.js';

/**
 * A link in the inbox whose target changes between the check of its real place and the read
 * (docs/design.md §9 "Limits"): what is read must be what was checked, else nothing is.
 */

const clock = () => new Date('2026-12-02T12:00:00Z');
const SRT = (text: string) => `1\n00:00:00,000 --> 00:00:02,000\nAlice: ${text}\n`;
type Linking = { symlink(t: string, p: string): Promise<void> };

/** A memfs whose link `at` is turned to `then` just after the first realpath of it. */
function swappingFs(files: Record<string, string>, at: string, first: string, then: string): Fs {
  const fs = memoryFs(files);
  let swapped = false;
  return new Proxy(fs, {
    get(target, prop, receiver) {
      if (prop !== 'realpath') return Reflect.get(target, prop, receiver) as unknown;
      return async (file: string) => {
        const real = await target.realpath(file);
        if (file === at && !swapped && real === first) {
          swapped = true;
          await target.unlink(at);
          await (target as unknown as Linking).symlink(then, at);
        }
        return real;
      };
    },
  });
}

describe('a link swapped between the check and the read', () => {
  it('to a file outside the vault: refused, its content in no note', async () => {
    const vaultRoot = testConfig({}).layout.root;
    const link = `${vaultRoot}/Meetings/Inbox/2026-12-02 1000 Call.srt`;
    const inside = `${vaultRoot}/Drafts/call.srt`;
    const fs = swappingFs({ 'Drafts/call.srt': SRT('Hello there.'), '/outside/secret.srt': SRT('the secret'), 'Meetings/Inbox/.keep': '' }, link, inside, '/outside/secret.srt');
    await (fs as unknown as Linking).symlink(inside, link);
    const vault = new Vault(fs, testConfig({}).layout);
    const err = await importFile({ vault, clock }, { file: link, keep: 'move' }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ImportError);
    for (const note of await vault.listMarkdown(vault.root)) expect(await vault.read(note)).not.toContain('the secret');
  });
});

describe('a relative link that stays in the vault, moved to Folders.Sources (real disk)', () => {
  it('still names its file from there (an inbox subfolder is deeper than Sources)', async () => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'ma-relink-'));
    try {
      for (const dir of ['Drafts', 'Projects/Alpha', 'Meetings/Inbox/Alpha']) mkdirSync(path.join(root, dir), { recursive: true });
      writeFileSync(path.join(root, 'Drafts/call.srt'), SRT('Hello there.'));
      const link = path.join(root, 'Meetings/Inbox/Alpha/2026-12-02 1000 Call.srt');
      symlinkSync('../../../Drafts/call.srt', link);
      const config = resolveConfig({ MeetingAssistant: { VaultPath: root } }, { cwd: '/' });
      const vault = new Vault(nodeFs, config.layout);
      const outcome = await importFile({ vault, clock }, { file: link, keep: 'move' });
      expect(outcome.kind).toBe('imported');
      expect(realpathSync(vault.abs(outcome.source))).toBe(realpathSync(path.join(root, 'Drafts/call.srt')));
      expect(existsSync(link)).toBe(false);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
