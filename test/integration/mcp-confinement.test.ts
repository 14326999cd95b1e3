import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, waitFor } from '../helpers/daemon-process.js';
import { type HostileLinks, leaked, writeHostileLinks } from './hostile-links.js';
import { writeMcpVault } from './mcp-vault.js';

/**
 * Issue 43 point 1 through the real `meeting-assistant mcp` over stdio (docs/design.md §10
 * "Confinement"): no tool shows a file a meeting note's link leads to out of the vault, into
 * a dot-folder, through a symbolic link out, or a FIFO; nor the token by its own path.
 */

let dir: string;
let vault: string;
let hostile: HostileLinks;
let client: Client;
const CONFIG_SECRET = 'sk-CONFIG-SECRET-4242';

async function call(name: string, args: Record<string, unknown>): Promise<{ text: string; isError: boolean }> {
  const result = await client.callTool({ name, arguments: args });
  const content = result.content as { type: string; text: string }[];
  return { text: content.map((c) => c.text).join('\n'), isError: result.isError === true };
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'ma-mcp-confine-'));
  vault = path.join(dir, 'vault');
  writeMcpVault(vault);
  const configFile = path.join(dir, 'cfg', 'config.json');
  mkdirSync(path.dirname(configFile), { recursive: true });
  writeFileSync(configFile, JSON.stringify({ MeetingAssistant: { VaultPath: vault, Endpoint: { ApiKey: CONFIG_SECRET } } }));
  hostile = writeHostileLinks(vault, { configFile, configSecret: CONFIG_SECRET, tokenFile: path.join(vault, '.meeting-assistant', 'token'), outside: path.join(dir, 'outside') });
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', '--config', configFile], stderr: 'pipe', cwd: dir });
  client = new Client({ name: 'test', version: '1.0.0' });
  await client.connect(transport);
});

afterAll(async () => {
  await client?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('mcp reads nothing outside the vault (issue 43)', () => {
  it("read_meeting refuses every way out, by the meeting and by the note's own path", async () => {
    for (const way of hostile.ways) {
      const r = await call('read_meeting', { meeting: way.meeting, part: way.part });
      expect(r.isError, `${way.what}: ${r.text}`).toBe(true);
      expect(leaked(r.text, hostile.secrets), way.what).toEqual([]);
    }
    for (const own of hostile.ownPaths) {
      const r = await call('read_meeting', { meeting: own });
      expect(r.isError, `${own}: ${r.text}`).toBe(true);
      expect(leaked(r.text, hostile.secrets), own).toEqual([]);
    }
    // The tool still reads the vault's own meetings.
    expect((await call('read_meeting', { meeting: 'Meetings/2026-11-02 Kickoff.md' })).isError).toBe(false);
  });

  it('search_meetings, list_action_items and list_meetings show none of the secrets', async () => {
    const search = await call('search_meetings', { query: 'SECRET|root:|sk-', in: 'all' });
    expect(leaked(search.text, hostile.secrets)).toEqual([]);
    const items = await call('list_action_items', { status: 'all' });
    expect(items.isError).toBe(false);
    expect(leaked(items.text, hostile.secrets)).toEqual([]);
    const list = await call('list_meetings', {});
    expect(list.text).toContain('Token leak');
    expect(leaked(list.text, hostile.secrets)).toEqual([]);
  });

  it('a transcript linked to the token after the server started (seen by its watcher) is neither searched nor read', async () => {
    symlinkSync(path.join(vault, '.meeting-assistant', 'token'), path.join(vault, 'Meetings/Transcripts/Late.md'));
    writeFileSync(path.join(vault, 'Meetings/Late.md'), '---\ntitle: Late\nstart_time: 2026-11-26T10:00:00Z\ntranscript: "[[Meetings/Transcripts/Late]]"\n---\n');
    await waitFor(async () => (await call('list_meetings', {})).text.includes('"Late"'), 'the late meeting to be listed', 15_000);
    const search = await call('search_meetings', { query: '.', in: 'transcripts', limit: 2000 });
    expect(leaked(search.text, hostile.secrets)).toEqual([]);
    const read = await call('read_meeting', { meeting: 'Meetings/Late.md', part: 'transcript' });
    expect(read.isError).toBe(true);
    expect(leaked(read.text, hostile.secrets)).toEqual([]);
  });
});
