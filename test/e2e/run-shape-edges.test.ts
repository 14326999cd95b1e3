import { afterEach, describe, expect, it } from 'vitest';
import { summarizeMeeting } from '../../src/meeting/pipeline.js';
import { createRuntime } from '../../src/runtime.js';
import { parseNote } from '../../src/vault/format/frontmatter.js';
import { allToolsVault, HEADER_LINES, MEETING, PROJECT_FILE, SUMMARY } from '../helpers/all-tools-meeting.mjs';
import { bundledConfig } from '../helpers/bundled-config.js';
import { capturedLogger } from '../helpers/captured-log.js';
import { transcriptLines } from '../helpers/long-meeting-text.mjs';
import { memoryFs } from '../helpers/memfs.js';
import { readerOnServer } from '../helpers/reader-model.js';
import { type ScriptedServer, startScriptedServer, toolNamesOf } from '../helpers/scripted-server.js';

/**
 * Edges of the run's shape (one conversation or phases, src/meeting/run-shape.ts).
 *
 * A window learnt during the agent's own conversation (docs/design.md §3 steps 8, 9): the run
 * was shaped for the configured window (one conversation, all nineteen tools), then the server
 * shows a smaller one. The shape does not switch mid-run (the same tool set in every request),
 * and the run still ends with every line read, the summary and the project file written: at
 * any window of 4,096 or more, every meeting ends in a summary.
 */

const APPENDED = '- 2026-11-30: the billing release ships behind a feature flag.';

const servers: ScriptedServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

describe('a smaller window learnt mid-run keeps the run in the shape it started with', () => {
  it.each([
    ['rolling', 4096],
    ['llama.cpp', 4096],
  ] as const)('%s at %i behind a 32,768 configured window, telling nothing', async (kind, window) => {
    const server = await startScriptedServer({ models: ['qwen3:8b'], emulate: { kind, window, tellsWindow: false } });
    servers.push(server);
    const speech = transcriptLines(8_000);
    const { reader, step } = readerOnServer({
      first: HEADER_LINES + 1,
      last: HEADER_LINES + speech.length,
      chunk: 200,
      updatesProjects: { project: 'Alpha', path: 'Overview.md', content: APPENDED },
    });
    server.setFallback(step);
    const { log, lines } = capturedLogger();
    const runtime = await createRuntime(bundledConfig(server.baseUrl), { fs: memoryFs(allToolsVault(speech)), log });
    const outcome = await summarizeMeeting(runtime.pipeline, runtime.vault.abs(MEETING));

    const agent = server.modelRequests().filter((r) => toolNamesOf(r).length > 0);
    expect(new Set(agent.map((r) => toolNamesOf(r).join())).size, 'one tool set').toBe(1);
    expect(toolNamesOf(agent[0]!)).toHaveLength(19);
    expect(server.modelRequests().some((r) => r.admission !== undefined && r.admission.kind !== 'fits'), 'the server showed its window').toBe(true);
    expect(lines.filter((l) => /-token window: /.test(String(l.msg)))).toHaveLength(1);
    expect(outcome.status, outcome.error).toBe('done');
    expect(parseNote(await runtime.vault.read(runtime.vault.abs(SUMMARY))).data.status).toBe('done');
    expect(reader.linesReached()).toBe(speech.length);
    expect(await runtime.vault.read(runtime.vault.abs(PROJECT_FILE))).toContain(APPENDED);
  });
});

describe('a window whose request room cannot hold one conversation with every tool', () => {
  // ContextWindow.MaxOutputTokens reserves most of the window (a reasoning model's output): the
  // nineteen schemas are a fifth of the 8,192 window, but the request room left is some 2,450
  // tokens under the compaction threshold, and the whole conversation's instructions, schemas
  // and first message (some 1,750) leave the agent less than it needs. "Only when the window
  // cannot hold that … may the run go in phases" (DESIGN §3 step 9): here it cannot, and the
  // phases fit (some 1,200 carried).
  it('Tokens 8,192 with MaxOutputTokens 5,120: phases, logged once, the summary and the project file written', async () => {
    const server = await startScriptedServer({ models: ['qwen3:8b'], emulate: { kind: 'ollama', window: 8192, loaded: true } });
    servers.push(server);
    const speech = transcriptLines(8_000);
    const { reader, step } = readerOnServer({
      first: HEADER_LINES + 1,
      last: HEADER_LINES + speech.length,
      chunk: 200,
      updatesProjects: { project: 'Alpha', path: 'Overview.md', content: APPENDED },
    });
    server.setFallback(step);
    const { log, lines } = capturedLogger();
    const config = bundledConfig(server.baseUrl, { ContextWindow: { Tokens: 8192, MaxOutputTokens: 5120 } });
    const runtime = await createRuntime(config, { fs: memoryFs(allToolsVault(speech)), log });
    const outcome = await summarizeMeeting(runtime.pipeline, runtime.vault.abs(MEETING));

    expect(outcome.status, outcome.error).toBe('done');
    const shapes = lines.filter((l) => /-token window: /.test(String(l.msg))).map((l) => String(l.msg));
    expect(shapes).toEqual([expect.stringMatching(/^8,192-token window: the summary first, then the project files \(/)]);
    expect(parseNote(await runtime.vault.read(runtime.vault.abs(SUMMARY))).data.status).toBe('done');
    expect(reader.linesReached()).toBe(speech.length);
    expect(await runtime.vault.read(runtime.vault.abs(PROJECT_FILE))).toContain(APPENDED);
  });
});

describe('a run that ends in the notes pass, before its conversation', () => {
  // The shape is decided once the transcript's notes are made (docs/design.md §3 step 9); a run
  // whose notes pass fails (here: the endpoint refuses the first part's request) still logs it
  // once, the shape its conversation would have had, marked as not begun, before "run failed".
  it.each([
    [32_768, '32,768-token window: one conversation with all 19 offered tools ('],
    [4096, '4,096-token window: the summary first, then the project files ('],
  ] as const)('at %i: the shape it would have had, logged once and marked not begun', async (tokens, reason) => {
    const server = await startScriptedServer({ models: ['qwen3:8b'] });
    servers.push(server);
    server.setFallback({ status: 400, body: { error: { message: 'model "qwen3:8b" is not loaded' } } });
    const { log, lines } = capturedLogger();
    const config = bundledConfig(server.baseUrl, { ContextWindow: { Tokens: tokens } });
    const runtime = await createRuntime(config, { fs: memoryFs(allToolsVault()), log });
    const outcome = await summarizeMeeting(runtime.pipeline, runtime.vault.abs(MEETING));

    expect(outcome.status).toBe('failed');
    // Only notes requests were sent (tool-less): the agent's conversation never began.
    expect(server.modelRequests().length).toBeGreaterThan(0);
    expect(server.modelRequests().filter((r) => toolNamesOf(r).length > 0)).toHaveLength(0);
    const shapes = lines.filter((l) => /-token window: /.test(String(l.msg)));
    expect(shapes).toHaveLength(1);
    expect(String(shapes[0]!.msg).startsWith(reason)).toBe(true);
    expect(shapes[0]!.msg).toMatch(/ — not begun: the run ended while the transcript was read into notes$/);
    expect(shapes[0]).toMatchObject({ level: 'info', begun: false, phased: tokens === 4096 });
    const failedAt = lines.findIndex((l) => l.msg === 'run failed');
    expect(failedAt).toBeGreaterThan(lines.indexOf(shapes[0]!));
    expect(lines.findIndex((l) => String(l.msg).startsWith('reading the transcript: part 1'))).toBeLessThan(lines.indexOf(shapes[0]!));
  });
});
