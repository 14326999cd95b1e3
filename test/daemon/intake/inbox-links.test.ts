import { describe, expect, it } from 'vitest';
import { Inbox, type InboxWatcher } from '../../../src/daemon/intake/inbox.js';
import type { Fs } from '../../../src/vault/files/fs.js';
import { Vault } from '../../../src/vault/files/vault.js';
import { capturedLogger } from '../../helpers/captured-log.js';
import { memoryFs, testConfig } from '../../helpers/memfs.js';

/**
 * An inbox that is itself a link out of the vault (issue 33, docs/design.md §9 "Limits"): its
 * files are refused, and their error notes are not written out there either.
 */
describe('an inbox folder linked out of the vault', () => {
  it('refuses its files and writes no error note through the link; the log says why', async () => {
    const fs: Fs = memoryFs({ '/downloads/call.srt': '1\n00:00:00,000 --> 00:00:01,000\nAlice: Hi.\n', 'Meetings/.keep': '' });
    await (fs as unknown as { symlink(t: string, p: string): Promise<void> }).symlink('/downloads', '/vault/Meetings/Inbox');
    const config = testConfig({ Import: { SettleSeconds: 0 } });
    const vault = new Vault(fs, config.layout);
    const { log, lines } = capturedLogger();
    let emit: ((type: 'add' | 'change' | 'unlink', file: string) => void) | undefined;
    const watcher: InboxWatcher = { on: (l) => void (emit = l), ready: Promise.resolve(), close: async () => undefined };
    const inbox = new Inbox({ vault, settings: config.settings.Import, log, clock: () => new Date(), watcher: () => watcher });
    await inbox.watch();
    emit!('add', '/vault/Meetings/Inbox/call.srt');
    const deadline = Date.now() + 10_000;
    while (inbox.board.get('Meetings/Inbox/call.srt')?.state !== 'failed') {
      if (Date.now() > deadline) throw new Error('the import was not refused');
      await new Promise((r) => setTimeout(r, 10));
    }
    await inbox.close();
    expect(inbox.board.get('Meetings/Inbox/call.srt')?.error).toMatch(/symbolic link that leads outside the vault/);
    expect((await fs.readdir('/downloads', { withFileTypes: true })).map((e) => e.name)).toEqual(['call.srt']);
    expect(lines.some((l) => l.msg === 'no error note for Meetings/Inbox/call.srt: its folder is a link out of the vault')).toBe(true);
  });
});
