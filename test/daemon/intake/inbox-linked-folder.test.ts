import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveConfig } from '../../../src/config.js';
import { Inbox } from '../../../src/daemon/intake/inbox.js';
import { nodeFs } from '../../../src/vault/files/fs.js';
import { Vault } from '../../../src/vault/files/vault.js';
import { capturedLogger } from '../../helpers/captured-log.js';

/**
 * An inbox folder that is a link to another folder of the same vault (a person who keeps
 * `Meetings/Inbox` as a link to `Drop/`): the watcher sees what is dropped in it, as it did
 * before links stopped being followed (docs/design.md §9 "Limits": only links that leave the
 * vault or enter a dot-folder are refused). Real chokidar on a real folder.
 */
const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

describe('an inbox folder linked inside the vault', () => {
  it('the watcher sees a file dropped into it and imports it', async () => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'inbox-linked-'));
    dirs.push(root);
    mkdirSync(path.join(root, 'Drop'));
    mkdirSync(path.join(root, 'Meetings'));
    symlinkSync('../Drop', path.join(root, 'Meetings', 'Inbox'));
    const config = resolveConfig({ MeetingAssistant: { VaultPath: root, Import: { SettleSeconds: 0 } } }, { cwd: '/' });
    const vault = new Vault(nodeFs, config.layout);
    const { log } = capturedLogger();
    const inbox = new Inbox({ vault, settings: config.settings.Import, log, clock: () => new Date() });
    await inbox.watch();
    try {
      writeFileSync(path.join(root, 'Drop', '2026-12-02 1000 Call.srt'), '1\n00:00:00,000 --> 00:00:01,000\nAlice: Hi.\n');
      const deadline = Date.now() + 20_000;
      while (inbox.board.get('Meetings/Inbox/2026-12-02 1000 Call.srt')?.state !== 'imported') {
        if (Date.now() > deadline) throw new Error(`not imported: ${JSON.stringify(inbox.board.get('Meetings/Inbox/2026-12-02 1000 Call.srt'))}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    } finally {
      await inbox.close();
    }
    expect(await vault.exists(vault.abs('Meetings/Transcripts/2026-12-02 1000 Call.md'))).toBe(true);
  });
});
