import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/daemon-process.js';
import { type ScriptedServer, startScriptedServer, userTexts } from '../helpers/scripted-server.js';
import { snapshot } from '../helpers/tree-snapshot.js';
import { KICKOFF, REVIEW, SYNC, writeMcpVault } from './mcp-vault.js';

/**
 * `meeting-assistant ask` (docs/design.md §11) as a person runs it: the real CLI in a child
 * process, the scripted model over loopback through the real openai client.
 */

let dir: string;
let vault: string;
let home: string;
let server: ScriptedServer;

function writeConfig(extra: Record<string, unknown> = {}, api = 'chat-completions'): string {
  const file = path.join(dir, `config-${Math.random().toString(36).slice(2)}.json`);
  const settings = {
    VaultPath: vault,
    Endpoint: { BaseUrl: server.baseUrl, Model: 'test-model', Api: api, TimeoutSeconds: 10, ApiKeyEnvironmentVariable: '' },
    Reconnect: { Attempts: 0, DelaySeconds: 0 },
    ...extra,
  };
  writeFileSync(file, JSON.stringify({ MeetingAssistant: settings }));
  return file;
}

const ask = (args: string[], config: string) => runCli(['ask', ...args, '--config', config], { env: { HOME: home, XDG_CONFIG_HOME: path.join(home, '.config') }, cwd: dir });

beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'ma-ask-'));
  vault = path.join(dir, 'vault');
  home = path.join(dir, 'home');
  writeMcpVault(vault);
  mkdirSync(path.join(home, '.config'), { recursive: true });
  writeFileSync(path.join(home, '.profile'), 'export PATH\n');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
beforeEach(async () => {
  server = await startScriptedServer();
});
afterEach(async () => {
  await server.close();
});

const call = (name: string, args: object) => ({ name, arguments: args });

describe('meeting-assistant ask', () => {
  it('prints the answer and its sources on stdout, the log on stderr, and leaves the vault, the config and HOME byte-identical', async () => {
    const config = writeConfig();
    server.script(
      { reply: { toolCalls: [call('search_meetings', { query: '(?i)release' })] } },
      { reply: { toolCalls: [call('read_meeting', { meeting: `Meetings/Summaries/${KICKOFF}.md` }), call('read_meeting', { meeting: `[[${SYNC}]]` })] } },
      { reply: { content: `The release was planned for December ([[Meetings/Summaries/${KICKOFF}]]) and moved to Friday ([[Meetings/Summaries/${SYNC}]]). [[Meetings/Summaries/2026-12-24 Party]] says more.` } },
    );
    const before = [snapshot(vault), snapshot(home), snapshot(dir)];
    const result = await ask(['When is the release?'], config);
    expect(result.stderr).not.toMatch(/meeting-assistant: /);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      `The release was planned for December ([[Meetings/Summaries/${KICKOFF}]]) and moved to Friday ([[Meetings/Summaries/${SYNC}]]). [[Meetings/Summaries/2026-12-24 Party]] says more.\n\nSources:\n` +
        `- [[Meetings/Summaries/${SYNC}]] Sync, 2026-11-30\n- [[Meetings/Summaries/${KICKOFF}]] Kickoff, 2026-11-02\n`,
    );
    // The log, JSON lines, went to stderr; none holds the question or the answer at info.
    const lines = result.stderr.trim().split('\n').map((l) => JSON.parse(l) as { msg: string });
    expect(lines.map((l) => l.msg)).toContain('question answered');
    expect(result.stderr).not.toContain('When is the release?');
    expect(result.stderr).not.toContain('planned for December');
    expect([snapshot(vault), snapshot(home), snapshot(dir)]).toEqual(before);
    expect(userTexts(server.modelRequests()[0]!)[0]).toBe('When is the release?');
  });

  it('--json over the Responses API: {answer, sources, turns}; the scope of --project/--from/--to is told and applied', async () => {
    const config = writeConfig({}, 'responses');
    server.script({ reply: { toolCalls: [call('list_action_items', { owner: 'Carol' })] } }, { reply: { content: 'Carol drafts the budget, due 2026-11-30.' } });
    const result = await ask(['Who drafts the budget?', '--json', '--project', 'Beta', '--project', 'Alpha', '--from', '2026-11-01', '--to', '2026-11-30'], config);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      answer: 'Carol drafts the budget, due 2026-11-30.',
      sources: [{ path: `Meetings/Summaries/${REVIEW}.md`, title: 'Budget review', start_time: '2026-11-16T14:00:00Z' }],
      turns: 2,
    });
    expect(userTexts(server.modelRequests()[0]!)[0]).toBe('Who drafts the budget?\n\nOnly meetings of the projects Beta, Alpha from 2026-11-01 to 2026-11-30 count.');
    expect(server.modelRequests()[0]!.path).toBe('/v1/responses');
  });

  it('exit 1: a model without tool calling, said as the summaries say it', async () => {
    server.script({ reply: { content: 'It is in June.' } }, { reply: { content: 'June.' } });
    const result = await ask(['When is the release?'], writeConfig());
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/meeting-assistant: the model `test-model` does not call tools.*Many small local models have no tool calling/);
  });

  it('exit 1: an endpoint nothing answers at, worded as docs/design.md §2 words it', async () => {
    const config = writeConfig();
    await server.close();
    const result = await ask(['When is the release?'], config);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/meeting-assistant: the model endpoint could not be reached at all \(nothing answered\): the model server is not running, or Endpoint\.BaseUrl/);
  });

  it('exit 2 on bad arguments, before any request', async () => {
    const config = writeConfig();
    for (const args of [['When?', '--from', '2026-02-31'], ['When?', '--from', '2026-12-01', '--to', '2026-11-01'], ['   '], ['When?', '--frm', 'x'], []]) {
      const result = await ask(args, config);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stdout).toBe('');
    }
    expect(server.modelRequests()).toEqual([]);
  });

  it('--help says what it prints, the exit codes, and gives examples', async () => {
    const result = await runCli(['ask', '--help']);
    expect(result.code).toBe(0);
    for (const part of ['<question>', '--project <name>', '--from <date>', '--to <date>', '--json', 'stderr', 'Exit 0', 'Examples:', 'meeting-assistant ask "']) expect(result.stdout).toContain(part);
  });
});
