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
 * Issue 31 point 5 (DESIGN §3 step 8): silent truncation judged from the server's own counts.
 * Behind a server that keeps the newest 8,192 tokens of a longer prompt and reports
 * `prompt_tokens: 8192` for every one of them, with ContextWindow.Tokens 32,768 (the bundled
 * configuration), a meeting read in 300-line ranges: the count that stops growing while the
 * request grows is the server's sign. The window shrinks to 8,192 with one warning naming the
 * setting to raise, and the run ends with every line read. Both wire APIs, with and without a
 * project; the real pipeline, runtime, context manager and openai client.
 */

const APPENDED = '- 2026-11-30: the billing release ships behind a feature flag.';
const WINDOW = 8192;

const servers: ScriptedServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

describe.each(['chat-completions', 'responses'] as const)('a server keeping 8,192 of a 32,768 window, silently, over %s', (api) => {
  it.each([true, false])('with a project: %s — the window shrinks to 8,192 with one warning, every line read, the summary written', async (withProject) => {
    const server = await startScriptedServer({ models: ['qwen3:8b'], emulate: { kind: 'rolling', window: WINDOW }, compactFallback: { status: 404, body: { error: { message: 'Not found' } } } });
    servers.push(server);
    // Some 14,000 tokens: it fits the configured window's room whole, so the agent reads it
    // itself; the server keeps 8,192 of each request that carries it.
    const speech = transcriptLines(8_500);
    const { reader, step } = readerOnServer({
      first: HEADER_LINES + 1,
      last: HEADER_LINES + speech.length,
      chunk: 300,
      ...(withProject ? { updatesProjects: { project: 'Alpha', path: 'Overview.md', content: APPENDED } } : {}),
    });
    server.setFallback(step);
    const files = allToolsVault(speech);
    if (!withProject) for (const rel of Object.keys(files)) if (rel.startsWith('Projects/')) delete files[rel];
    const config = bundledConfig(server.baseUrl);
    config.settings.Endpoint.Api = api;
    expect(config.settings.ContextWindow.Tokens).toBe(32_768);
    const { log, lines } = capturedLogger();
    const runtime = await createRuntime(config, { fs: memoryFs(files), log });
    const outcome = await summarizeMeeting(runtime.pipeline, runtime.vault.abs(MEETING));

    expect(outcome.status, outcome.error).toBe('done');
    expect(parseNote(await runtime.vault.read(runtime.vault.abs(SUMMARY))).data.status).toBe('done');
    expect(reader.linesReached()).toBe(speech.length);
    expect(reader.stats.everyLineBeforeSummary).toBe(true);
    const warnings = lines.filter((l) => l.level === 'warn' && /silently cut/.test(String(l.msg)));
    expect(warnings, 'one warning').toHaveLength(1);
    expect(warnings[0]!.msg).toMatch(/compacted to fit 8192 tokens/);
    expect(warnings[0]!.msg).toMatch(/Raise the server's context length \(Ollama: OLLAMA_CONTEXT_LENGTH.*, or lower MeetingAssistant\.ContextWindow\.Tokens to 8192/);
    // The count is the sign, not a tokenizer: at most two requests cut before the window shrank, none after.
    const requests = server.modelRequests();
    const cut = requests.map((r, i) => (r.admission?.kind === 'cut' ? i : -1)).filter((i) => i >= 0);
    expect(cut.length).toBeGreaterThan(0);
    expect(cut.length).toBeLessThanOrEqual(2);
    expect(requests.slice(cut.at(-1)! + 1).every((r) => r.admission?.kind === 'fits')).toBe(true);
    const agent = requests.filter((r) => toolNamesOf(r).length > 0);
    expect(agent.some((r) => toolNamesOf(r).includes('write_projectfile'))).toBe(withProject);
    if (withProject) expect(await runtime.vault.read(runtime.vault.abs(PROJECT_FILE))).toContain(APPENDED);
  });
});
