import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ask } from '../../src/commands/ask.js';
import { memoryFs } from '../helpers/memfs.js';
import { type ScriptedServer, startScriptedServer } from '../helpers/scripted-server.js';
import { askVaultFiles, KICKOFF } from '../ask/ask-vault.js';

/** `ask` on a terminal (docs/design.md §11): the answer written piece by piece as it arrives, then the sources. */

let server: ScriptedServer;
beforeEach(async () => {
  server = await startScriptedServer();
});
afterEach(async () => {
  await server.close();
});

function run(isTTY: boolean, json = false) {
  const config = { MeetingAssistant: { VaultPath: '/vault', Endpoint: { BaseUrl: server.baseUrl, Model: 'test-model', ApiKeyEnvironmentVariable: '' }, Logging: { Level: 'silent' } } };
  const fs = memoryFs({ ...askVaultFiles(), '/config.json': JSON.stringify(config) });
  const writes: string[] = [];
  const errors: string[] = [];
  const done = ask('What was planned?', { config: '/config.json', json }, {
    fs,
    cwd: '/',
    env: {},
    io: { out: (l) => writes.push(`${l}\n`), err: (l) => errors.push(l) },
    stdout: { isTTY, write: (t) => void writes.push(t) },
  });
  return { done, writes, errors };
}

const script = (): void =>
  server.script(
    { reply: { toolCalls: [{ name: 'read_meeting', arguments: { meeting: KICKOFF } }] } },
    { reply: { content: `Alpha's release, in December ([[Meetings/Summaries/${KICKOFF}]]).`, stream: { pieces: ["Alpha's release,", ' in December', ` ([[Meetings/Summaries/${KICKOFF}]]).`] } } },
  );

describe('ask on a terminal', () => {
  it('writes the answer as it arrives, then the sources', async () => {
    script();
    const { done, writes } = run(true);
    expect(await done).toBe(0);
    expect(writes).toEqual(["Alpha's release,", ' in December', ` ([[Meetings/Summaries/${KICKOFF}]]).`, `\n\n- [[Meetings/Summaries/${KICKOFF}]] Kickoff, 2026-11-02\n`]);
    expect((server.modelRequests()[1]!.body as { stream?: boolean }).stream).toBe(true);
  });

  it('into a pipe: the answer in one piece, asked for without streaming', async () => {
    script();
    const { done, writes } = run(false);
    expect(await done).toBe(0);
    expect(writes).toEqual([`Alpha's release, in December ([[Meetings/Summaries/${KICKOFF}]]).\n\n- [[Meetings/Summaries/${KICKOFF}]] Kickoff, 2026-11-02\n`]);
    expect((server.modelRequests()[1]!.body as { stream?: boolean }).stream).toBeUndefined();
  });
});
