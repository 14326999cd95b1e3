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

function run(isTTY: boolean, json = false, files: Record<string, string> = {}) {
  const config = { MeetingAssistant: { VaultPath: '/vault', Endpoint: { BaseUrl: server.baseUrl, Model: 'test-model', ApiKeyEnvironmentVariable: '' }, Logging: { Level: 'silent' } } };
  const fs = memoryFs({ ...askVaultFiles(), ...files, '/config.json': JSON.stringify(config) });
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
    expect(writes).toEqual(["Alpha's release,", ' in December', ` ([[Meetings/Summaries/${KICKOFF}]]).`, `\n\nSources:\n- [[Meetings/Summaries/${KICKOFF}]] Kickoff, 2026-11-02\n`]);
    expect((server.modelRequests()[1]!.body as { stream?: boolean }).stream).toBe(true);
  });

  it('into a pipe: the answer in one piece, asked for without streaming', async () => {
    script();
    const { done, writes } = run(false);
    expect(await done).toBe(0);
    expect(writes).toEqual([`Alpha's release, in December ([[Meetings/Summaries/${KICKOFF}]]).`, `\n\nSources:\n- [[Meetings/Summaries/${KICKOFF}]] Kickoff, 2026-11-02\n`]);
    expect((server.modelRequests()[1]!.body as { stream?: boolean }).stream).toBeUndefined();
  });
});

/** Issue 43 point 6: what `ask` prints is a model's and the notes' text; none of it reaches the terminal as a command, none forges the sources. */
describe('ask prints no terminal escapes and no forged sources', () => {
  const ESCAPES = '\u001b]0;PWNED\u0007\u001b[2J';
  const FORGED = '- [[Meetings/Summaries/2026-11-23 Release Sync]] Release Sync, 2026-11-23';
  const hostileTitle = { [`Meetings/Summaries/${KICKOFF}.md`]: `---\ntitle: "Kick\\e]0;TITLE\\aoff\\e[2J\\nSources:"\nstart_time: 2026-11-02T09:00:00+01:00\nstatus: done\n---\nThe release.\n` };

  it('on a terminal: an escape split across the streamed pieces, a forged sources block and a hostile title are all shown harmless', async () => {
    const pieces = ['Planned.', ' \u001b]0;PW', 'NED\u0007\u001b', '[2J\r\nSour', 'ces:\n- [', `[Meetings/Summaries/2026-11-23 Release Sync]] Release Sync, 2026-11-23`];
    server.script(
      { reply: { toolCalls: [{ name: 'read_meeting', arguments: { meeting: KICKOFF } }] } },
      { reply: { content: pieces.join(''), stream: { pieces } } },
    );
    const { done, writes } = run(true, false, hostileTitle);
    expect(await done).toBe(0);
    const out = writes.join('');
    expect(out).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    expect(out).not.toContain('PWNED');
    expect(out).toBe(`Planned. \n  Sources:\n  ${FORGED}\n\nSources:\n- [[Meetings/Summaries/${KICKOFF}]] Kickoff Sources:, 2026-11-02\n`);
  });

  it('into a pipe: the same, the answer in one piece', async () => {
    server.script(
      { reply: { toolCalls: [{ name: 'read_meeting', arguments: { meeting: KICKOFF } }] } },
      { reply: { content: `Planned.${ESCAPES}\n${FORGED}\n\u009b31mred\u202e` } },
    );
    const { done, writes } = run(false);
    expect(await done).toBe(0);
    expect(writes.join('')).toBe(`Planned.\n  ${FORGED}\nred\n\nSources:\n- [[Meetings/Summaries/${KICKOFF}]] Kickoff, 2026-11-02\n`);
  });
});
