import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type VaultEvent, type VaultEventSource, watchVault } from '../../../src/daemon/intake/file-events.js';
import { resolveConfig } from '../../../src/config.js';
import { silentLogger } from '../../../src/log.js';
import { nodeFs } from '../../../src/vault/files/fs.js';
import { Vault } from '../../../src/vault/files/vault.js';
import { waitFor } from '../../helpers/daemon-process.js';

/**
 * Issue 43 point 11 on a real folder: a transcript rewritten every 100 ms never has the 150 ms
 * of quiet its write-stability wait asks for; its events come all the same, at most the
 * folder watcher's and the debouncer's maximum waits apart (dir-watch.ts, file-events.ts).
 */

let dir: string | undefined;
let source: VaultEventSource | undefined;
let writer: NodeJS.Timeout | undefined;

afterEach(async () => {
  clearInterval(writer);
  await source?.close();
  source = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('a file that never goes quiet', () => {
  it('rewritten every 100 ms, it has its events while the rewrites go on', async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'ma-never-quiet-'));
    const config = resolveConfig({ MeetingAssistant: { VaultPath: dir } });
    for (const folder of Object.values(config.layout.folders)) mkdirSync(folder, { recursive: true });
    const vault = new Vault(nodeFs, config.layout);
    const file = path.join(vault.layout.folders.Transcripts, 'Busy.md');
    writeFileSync(file, '---\nstate: transcribing\n---\n');
    source = watchVault(vault, resolveConfig({}).settings, silentLogger, { stabilityMs: 150 });
    const seen: VaultEvent[] = [];
    source.on((event) => seen.push(event));
    await source.ready;
    let n = 0;
    const started = Date.now();
    writer = setInterval(() => writeFileSync(file, `---\nstate: transcribing\n---\n[00:00:0${n % 10}] Ann: line ${n++}\n`), 100);
    await waitFor(() => seen.filter((e) => e.path === file).length >= 3, 'three events during the rewrites', 15_000);
    // The rewrites never paused: the events came while they went on.
    expect(n).toBeGreaterThan(0);
    expect(Date.now() - started).toBeLessThan(15_000);
  });
});
