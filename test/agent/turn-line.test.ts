import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { WindowBudget } from '../../src/agent/window/window-budget.js';
import { describeCall, logTurn } from '../../src/agent/turn-line.js';
import { summarizeMeeting } from '../../src/meeting/pipeline.js';
import { Vault } from '../../src/vault/files/vault.js';
import { capturedLogger } from '../helpers/captured-log.js';
import { memoryFs, testConfig } from '../helpers/memfs.js';
import { meetingNote, transcriptNote } from '../helpers/notes.js';
import { pipelineDeps } from '../helpers/pipeline-deps.js';
import { type ScriptedServer, startScriptedServer } from '../helpers/scripted-server.js';

/** #22 point 6: at info, each model turn is one line a person can read. */

const call = (name: string, args: object | string) => ({ id: 'c', name, arguments: typeof args === 'string' ? args : JSON.stringify(args) });

describe('logTurn', () => {
  it('writes token counts with thousands separators, without formatting through Intl', () => {
    const { log, lines } = capturedLogger();
    const formats = vi.spyOn(Number.prototype, 'toLocaleString');
    logTurn(log, 3, { content: '', toolCalls: [], usage: { inputTokens: 1234567, outputTokens: 999 } } as never, 200);
    expect(formats).not.toHaveBeenCalled();
    formats.mockRestore();
    expect(lines.map((l) => l.msg)).toEqual(['turn 3: no tool calls, no text; 1,234,567 in + 999 out tokens, 0.2 s']);
  });

  it('says when calls were written as text, cut by the length limit, or the answer was reasoning only (docs/design.md §3 step 11)', () => {
    const { log, lines } = capturedLogger();
    const read = call('read_transcript', { from: 1, to: 40 });
    logTurn(log, 1, { content: '', toolCalls: [read], callsAsText: '<tool_call>' }, 1000);
    logTurn(log, 2, { content: '', toolCalls: [read], finishReason: 'length' }, 1000);
    logTurn(log, 3, { content: '', toolCalls: [], cutCall: true }, 1000);
    logTurn(log, 4, { content: '', toolCalls: [], reasoningOnly: true }, 1000);
    expect(lines.map((l) => l.msg)).toEqual([
      'turn 1: read_transcript 1-40 (written as text: <tool_call>); tokens not reported, 1.0 s',
      'turn 2: read_transcript 1-40: a tool call cut by the length limit, not run; tokens not reported, 1.0 s',
      'turn 3: a tool call cut by the length limit, not run; tokens not reported, 1.0 s',
      'turn 4: reasoning only, no answer; tokens not reported, 1.0 s',
    ]);
  });
});

describe('describeCall', () => {
  it('names what each call touched', () => {
    expect(describeCall(call('read_transcript', { from: 1, to: 400 }))).toBe('read_transcript 1-400');
    expect(describeCall(call('read_transcript', {}))).toBe('read_transcript');
    expect(describeCall(call('write_projectfile', { project: 'Alpha', path: 'notes.md', content: 'x' }))).toBe('write_projectfile Alpha/notes.md append');
    expect(describeCall(call('write_projectfile', { project: 'Alpha', path: 'notes.md', content: 'x', from: 3, to: 5 }))).toBe(
      'write_projectfile Alpha/notes.md lines 3-5',
    );
    expect(describeCall(call('write_projectfile', { project: 'Alpha', path: 'a.md', content: 'x', replace_file: true }))).toBe('write_projectfile Alpha/a.md replace');
    expect(describeCall(call('read_projectfile', { project: 'Beta', path: 'Overview.md', from: 10 }))).toBe('read_projectfile Beta/Overview.md 10-end');
    expect(describeCall(call('search', { keywords: ['release', 'ship'] }))).toBe('search "release|ship"');
    expect(describeCall(call('override_speaker', { speaker: 'Speaker 2', name: 'Bob' }))).toBe('override_speaker "Speaker 2" -> Bob');
    expect(describeCall(call('write_summary', { content: '12345' }))).toBe('write_summary 5 chars');
    expect(describeCall(call('read_transcript', '{not json'))).toBe('read_transcript (arguments not JSON)');
  });
});

describe('the log of a run at info', () => {
  let server: ScriptedServer;
  beforeAll(async () => {
    server = await startScriptedServer();
  });
  afterAll(async () => {
    await server.close();
  });

  it('has one line per turn with the calls, the tokens and the seconds, and no per-request or per-call lines', async () => {
    const config = testConfig({ Endpoint: { BaseUrl: server.baseUrl, Model: 'test-model', TimeoutSeconds: 60 } });
    const vault = new Vault(
      memoryFs({ 'Meetings/Sync.md': meetingNote('Sync'), 'Meetings/Transcripts/Sync.md': transcriptNote('Sync', 'finished'), 'Projects/Alpha/notes.md': '# Notes\n' }),
      config.layout,
    );
    const { log, lines } = capturedLogger('info');
    server.script(
      { reply: { toolCalls: [{ name: 'read_transcript', arguments: { from: 1, to: 400 } }] } },
      { reply: { toolCalls: [{ name: 'write_summary', arguments: { content: '## Summary\nok\n## Decisions\n- none\n## Next steps\n- none\n' } }] } },
      { reply: { toolCalls: [{ name: 'write_projectfile', arguments: { project: 'Alpha', path: 'notes.md', content: '- shipped' } }] } },
      { reply: { content: 'Done.' } },
    );
    // With a context window, as the daemon runs (src/runtime.ts): its bookkeeping is no info line.
    const deps = pipelineDeps(vault, config, '2026-12-02T10:00:00Z', { log });
    deps.contextManager = (runLog) => new WindowBudget({ settings: config.settings.ContextWindow, api: 'chat-completions', model: deps.model, log: runLog });
    const outcome = await summarizeMeeting(deps, vault.abs('Meetings/Sync.md'));
    expect(outcome.status).toBe('done');
    const turns = lines.filter((l) => /^turn \d+:/.test(l.msg)).map((l) => l.msg.replace(/\d+\.\d s$/, 'N s'));
    expect(turns).toEqual([
      'turn 1: read_transcript 1-400; 10 in + 5 out tokens, N s',
      'turn 2: write_summary 55 chars; 10 in + 5 out tokens, N s',
      'turn 3: write_projectfile Alpha/notes.md append; 10 in + 5 out tokens, N s',
      'turn 4: answered in text; 10 in + 5 out tokens, N s',
    ]);
    expect(lines.filter((l) => l.msg === 'model response' || l.msg === 'tool call' || l.msg === 'context')).toEqual([]);
  });
});
