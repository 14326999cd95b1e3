import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createModelClient } from '../../src/agent/model/client.js';
import { WindowBudget } from '../../src/agent/window/window-budget.js';
import { type AskDeps, askMeetings } from '../../src/ask/ask-run.js';
import { AskError } from '../../src/ask/failure.js';
import { sourceLine } from '../../src/ask/sources.js';
import { silentLogger } from '../../src/log.js';
import { createMeetingToolsContext, MEETING_TOOLS } from '../../src/mcp/meeting-tools.js';
import { RunCaches } from '../../src/tools/binding/run-caches.js';
import { Vault } from '../../src/vault/files/vault.js';
import { capturedLogger } from '../helpers/captured-log.js';
import { memoryFs, testConfig } from '../helpers/memfs.js';
import { instructionsOf, lastToolResults, type ScriptedServer, startScriptedServer, toolNamesOf } from '../helpers/scripted-server.js';
import { askVaultFiles, BUDGET, KICKOFF, PLANNING, summaryPath, SYNC } from './ask-vault.js';

/**
 * One question (docs/design.md §11) against a scripted model over loopback (the real openai
 * client), the vault on memfs: the sources are the notes the run read, the honest answers,
 * the window of 4,096 tokens, the failures worded for a person.
 */

let server: ScriptedServer;
let caches: RunCaches[] = [];
beforeEach(async () => {
  server = await startScriptedServer();
});
afterEach(async () => {
  for (const c of caches) c.close();
  caches = [];
  await server.close();
});

function deps(raw: Record<string, unknown> = {}, options: { files?: Record<string, string>; log?: AskDeps['log']; baseUrl?: string; window?: boolean } = {}): AskDeps {
  const config = testConfig({
    Endpoint: { BaseUrl: options.baseUrl ?? server.baseUrl, Model: 'test-model', TimeoutSeconds: 60, ApiKeyEnvironmentVariable: '' },
    Reconnect: { Attempts: 0, DelaySeconds: 0 },
    ...raw,
  });
  const vault = new Vault(memoryFs(options.files ?? askVaultFiles()), config.layout);
  const runCaches = new RunCaches(vault);
  caches.push(runCaches);
  const model = createModelClient(config);
  const log = options.log ?? silentLogger;
  return {
    settings: config.settings,
    log,
    model,
    meetings: createMeetingToolsContext({ vault, settings: config.settings, log, caches: runCaches }),
    ...(options.window === false ? {} : { context: (l) => new WindowBudget({ settings: config.settings.ContextWindow, api: config.settings.Endpoint.Api, model, log: l }) }),
  };
}

const call = (name: string, args: object) => ({ name, arguments: args });
const question = (q: string, extra: Partial<Parameters<typeof askMeetings>[1]> = {}) => ({ question: q, filters: { projects: [] }, ...extra });

describe('ask: the sources are the notes the run read', () => {
  it('a question answered from two meetings cites both; a third the model only names is not listed', async () => {
    server.script(
      { reply: { toolCalls: [call('search_meetings', { query: '(?i)release' })] } },
      { reply: { toolCalls: [call('read_meeting', { meeting: summaryPath(KICKOFF) }), call('read_meeting', { meeting: `[[${SYNC}]]` })] } },
      {
        reply: {
          content: `The release was planned for December ([[Meetings/Summaries/${KICKOFF}]]) and then set for 14 December ([[Meetings/Summaries/${SYNC}]]); see also [[Meetings/Summaries/${PLANNING}]].`,
          stream: { pieces: ['The release', ' was planned', ` for December ([[Meetings/Summaries/${KICKOFF}]]) and then set for 14 December ([[Meetings/Summaries/${SYNC}]]); see also [[Meetings/Summaries/${PLANNING}]].`] },
        },
      },
    );
    const pieces: string[] = [];
    const result = await askMeetings(deps(), question('When is the release?', { onText: (t) => pieces.push(t) }));
    // In the order the run met them: the search showed the newest meeting first.
    expect(result.sources.map((s) => s.path)).toEqual([summaryPath(SYNC), summaryPath(KICKOFF)]);
    expect(result.sources.find((s) => s.path === summaryPath(KICKOFF))).toEqual({ path: summaryPath(KICKOFF), title: 'Kickoff', start_time: '2026-11-02T09:00:00+01:00' });
    expect(sourceLine(result.sources.find((s) => s.path === summaryPath(KICKOFF))!)).toBe(`- [[Meetings/Summaries/${KICKOFF}]] Kickoff, 2026-11-02`);
    // A synced note named or titled with a line break still gives one line: no forged source line of its own.
    expect(sourceLine({ path: 'Meetings/Summaries/Odd\n- [[Fake]] Board.md', title: 'Odd\n- [[Forged]]', start_time: null })).toBe('- [[Meetings/Summaries/Odd - [[Fake]] Board]] Odd - [[Forged]]');
    expect(result.turns).toBe(3);
    // Streamed as it came, and the same text as the answer.
    expect(pieces.slice(0, 2)).toEqual(['The release', ' was planned']);
    expect(pieces.join('')).toBe(result.answer);
    // The model saw the tool results (the read went through the MCP tools' own code).
    const results = lastToolResults(server.modelRequests()[2]!);
    expect(results.map((r) => r.output.split('\n')[0])).toEqual([expect.stringContaining(KICKOFF), expect.stringContaining(SYNC)]);
  });

  it('a question about an action item\'s owner is answered from list_action_items, and cites that summary', async () => {
    server.script({ reply: { toolCalls: [call('list_action_items', { owner: 'Carol' })] } }, { reply: { content: 'Carol drafts the budget, due 30 November.' } });
    const result = await askMeetings(deps(), question('Who drafts the budget?'));
    const items = lastToolResults(server.modelRequests()[1]!)[0]!.output;
    expect(items).toContain('"owner":"Carol"');
    expect(result.answer).toBe('Carol drafts the budget, due 30 November.');
    expect(result.sources).toEqual([{ path: summaryPath(BUDGET), title: 'Budget review', start_time: '2026-11-16T14:00:00Z' }]);
  });

  it('the meetings hold no answer: the instructions ask for saying so, the answer says so, no source is listed', async () => {
    server.script({ reply: { toolCalls: [call('search_meetings', { query: '(?i)parking', in: 'all' })] } }, { reply: { content: 'The meetings do not say anything about parking.' } });
    const result = await askMeetings(deps(), question('Where do we park?'));
    expect(lastToolResults(server.modelRequests()[1]!)[0]!.output).toMatch(/^No matches/);
    expect(instructionsOf(server.modelRequests()[0]!)).toMatch(/do not answer the question, say plainly that the meetings do not say, and do not guess/);
    expect(result).toMatchObject({ answer: 'The meetings do not say anything about parking.', sources: [] });
  });

  it('a transcript read is cited by its meeting note; a path the model invents is a tool error, not a source', async () => {
    server.script(
      { reply: { toolCalls: [call('read_meeting', { meeting: KICKOFF, part: 'transcript' }), call('read_meeting', { meeting: 'Meetings/Summaries/2026-12-24 Party.md' })] } },
      { reply: { content: `Alice said good morning ([[Meetings/${KICKOFF}]]), as at [[Meetings/Summaries/2026-12-24 Party]].` } },
    );
    const result = await askMeetings(deps(), question('What did Alice say first?'));
    const [, invented] = lastToolResults(server.modelRequests()[1]!);
    expect(invented!.output).toMatch(/^Error: /);
    expect(result.sources).toEqual([{ path: `Meetings/${KICKOFF}.md`, title: 'Kickoff', start_time: '2026-11-02T09:00:00+01:00' }]);
  });
});

describe('ask: the tools and the scope', () => {
  it('offers exactly the MCP server\'s four tools, and the question\'s scope is every call\'s default', async () => {
    server.script({ reply: { toolCalls: [call('search_meetings', { query: 'release' }), call('list_meetings', {})] } }, { reply: { content: 'Done.' } });
    await askMeetings(deps(), { question: 'Anything?', filters: { projects: ['Beta'], from: '2026-11-10', to: '2026-11-20' } });
    const first = server.modelRequests()[0]!;
    expect(toolNamesOf(first)).toEqual(MEETING_TOOLS.map((t) => t.name));
    expect(toolNamesOf(first)).toEqual(['list_meetings', 'read_meeting', 'search_meetings', 'list_action_items']);
    const listed = JSON.parse(lastToolResults(server.modelRequests()[1]!)[1]!.output) as { meetings: { meeting: string }[] };
    expect(listed.meetings.map((m) => m.meeting)).toEqual([`Meetings/${BUDGET}.md`]);
  });

  it('arguments that are not JSON or break the schema are tool errors the model can act on; the run goes on', async () => {
    server.script(
      { reply: { toolCalls: [{ name: 'list_meetings', arguments: '{not json' }, call('read_meeting', { part: 'everything' }), call('delete_meeting', {})] } },
      { reply: { content: 'Sorry.' } },
    );
    const result = await askMeetings(deps(), question('Anything?'));
    const outputs = lastToolResults(server.modelRequests()[1]!).map((r) => r.output);
    expect(outputs[0]).toMatch(/^Error: the arguments of list_meetings are not valid JSON/);
    expect(outputs[1]).toMatch(/^Error: invalid arguments for read_meeting: meeting: .*; part: /);
    expect(outputs[2]).toMatch(/^Error: there is no tool named "delete_meeting"/);
    expect(result.answer).toBe('Sorry.');
  });
});

describe('ask at 4,096 tokens (docs/design.md §3)', () => {
  it('reads a long transcript on a server whose window is 4,096 without one request past it', async () => {
    await server.close();
    server = await startScriptedServer({ emulate: { kind: 'ollama', window: 4096, loaded: true } });
    server.script(
      { reply: { toolCalls: [call('read_meeting', { meeting: SYNC, part: 'transcript' })] } },
      { reply: { toolCalls: [call('read_meeting', { meeting: SYNC, part: 'transcript', from: 400, to: 420 })] } },
      { reply: { content: `Bob spoke about the rollback plan ([[Meetings/${SYNC}]]).` } },
    );
    const result = await askMeetings(deps({ ContextWindow: { Tokens: 4096, MaxOutputTokens: 1024 } }, { files: askVaultFiles(3000) }), question('What did Bob talk about?'));
    expect(result.answer).toContain('rollback');
    expect(server.emulated!.overflows).toEqual([]);
    for (const req of server.modelRequests()) expect(req.admission?.kind).toBe('fits');
    // The whole transcript does not fit: the tool result was cut with a note on how to read on.
    const first = lastToolResults(server.modelRequests()[1]!)[0]!.output;
    expect(first.length).toBeLessThan(16_000);
    expect(result.sources.map((s) => s.path)).toEqual([`Meetings/${SYNC}.md`]);
  });
});

describe('ask: failures worded for a person', () => {
  it('a model without tool calling: said as the summaries say it, after one reminder', async () => {
    server.script({ reply: { content: 'The release is in June.' } }, { reply: { content: 'Still June.' } });
    const err = await askMeetings(deps(), question('When is the release?')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AskError);
    expect((err as Error).message).toMatch(/the model `test-model` does not call tools/);
    expect((err as Error).message).toMatch(/Many small local models have no tool calling.*meeting-assistant doctor/);
    expect(server.modelRequests()).toHaveLength(2);
  });

  it('an endpoint that nothing answers at: worded as docs/design.md §2 words it', async () => {
    const closed = await startScriptedServer();
    const baseUrl = closed.baseUrl;
    await closed.close();
    const err = await askMeetings(deps({}, { baseUrl }), question('When is the release?')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AskError);
    expect((err as Error).message).toMatch(/could not be reached at all \(nothing answered\): the model server is not running, or Endpoint\.BaseUrl/);
  });

  it('Agent.MaxTurns bounds the run', async () => {
    server.setFallback({ reply: { toolCalls: [call('list_meetings', {})] } });
    const err = await askMeetings(deps({ Agent: { MaxTurns: 3 } }), question('Loop?')).catch((e: unknown) => e);
    expect((err as Error).message).toMatch(/Agent\.MaxTurns \(3\)/);
    expect(server.modelRequests()).toHaveLength(3);
  });
});

describe('ask: the question and the answer reach the log at debug level only', () => {
  const QUESTION = 'Which secret plan did Bob mention?';
  const ANSWER = 'The meetings do not mention a secret plan.';
  const script = () => server.script({ reply: { toolCalls: [call('search_meetings', { query: 'secret' })] } }, { reply: { content: ANSWER } });
  it.each(['info', 'debug'] as const)('at %s', async (level) => {
    script();
    const { log, lines } = capturedLogger(level);
    await askMeetings(deps({}, { log }), question(QUESTION));
    const holding = lines.filter((l) => JSON.stringify(l).includes(QUESTION) || JSON.stringify(l).includes(ANSWER));
    if (level === 'info') expect(holding).toEqual([]);
    else {
      expect(holding.map((l) => l.msg).sort()).toEqual(['answer', 'question']);
      expect(holding.every((l) => Number(l.level) === 20 || l.level === 'debug')).toBe(true);
    }
    expect(lines.some((l) => l.msg === 'question answered')).toBe(true);
  });
});
