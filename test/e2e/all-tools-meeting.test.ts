import { afterEach, describe, expect, it } from 'vitest';
import { summarizeMeeting } from '../../src/meeting/pipeline.js';
import { createRuntime } from '../../src/runtime.js';
import { fixedTokens, messagesTokens } from '../../src/agent/window/tokens.js';
import { parseNote } from '../../src/vault/format/frontmatter.js';
import { offeredTools, phasedTools } from '../../src/tools/offered-tools.js';
import { allToolsSpeech, allToolsVault, HEADER_LINES, MEETING, PROJECT_FILE, SUMMARY } from '../helpers/all-tools-meeting.mjs';
import { bundledConfig } from '../helpers/bundled-config.js';
import { capturedLogger } from '../helpers/captured-log.js';
import { memoryFs } from '../helpers/memfs.js';
import { readerOnServer } from '../helpers/reader-model.js';
import { type ScriptedServer, startScriptedServer, toolNamesOf } from '../helpers/scripted-server.js';
import { requestAsConversation, type ServerEmulation } from '../helpers/server-kinds.js';

/**
 * Issue 21, end to end: the meeting with everything (two projects with AGENTS.md, past summaries
 * of both, an identity, a glossary, a dictionary: all nineteen tools have something to act on)
 * and a 3-hour transcript, run with the bundled configuration (ContextWindow.Tokens 32,768)
 * against the scripted server emulating the servers people run at a 4,096-token window:
 * Ollama telling it through /api/ps, Ollama telling nothing (it cuts longer prompts silently),
 * and llama.cpp's server `-c 4096` (it refuses them with exceed_context_size_error). The real
 * pipeline, runtime, context manager and openai client; the scripted reader model reads every
 * line, writes the summary, and appends to the project file when offered write_projectfile.
 */

const MODEL = 'qwen3:8b';
const APPENDED = '- 2026-11-30: the billing release ships behind a feature flag.';
const PHASES = phasedTools({ projects: true, past: true, identities: true });
const SUMMARY_TOOLS = PHASES.summary.map((t) => t.name);
const PROJECT_TOOLS = PHASES.projects!.map((t) => t.name);

const servers: ScriptedServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

async function allToolsMeeting(emulate: ServerEmulation) {
  const server = await startScriptedServer({ models: [MODEL], emulate, compactFallback: { status: 404, body: { error: { message: 'Not found' } } } });
  servers.push(server);
  const speech = allToolsSpeech();
  const { reader, step } = readerOnServer({
    first: HEADER_LINES + 1,
    last: HEADER_LINES + speech.length,
    updatesProjects: { project: 'Alpha', path: 'Overview.md', content: APPENDED },
  });
  server.setFallback(step);
  const { log, lines: logLines } = capturedLogger();
  const runtime = await createRuntime(bundledConfig(server.baseUrl), { fs: memoryFs(allToolsVault(speech)), log });
  const outcome = await summarizeMeeting(runtime.pipeline, runtime.vault.abs(MEETING));
  const requests = server.modelRequests();
  const agent = requests.filter((r) => toolNamesOf(r).length > 0);
  return { server, outcome, reader, speech, runtime, logLines, requests, agent };
}

type Run = Awaited<ReturnType<typeof allToolsMeeting>>;

/** What every case must show: a summary with every line read, then the project file appended. */
async function expectSummaryAndProjectUpdate(run: Run, maxRequests = 70) {
  const { outcome, reader, speech, runtime, requests } = run;
  expect(outcome.status, outcome.error).toBe('done');
  expect(parseNote(await runtime.vault.read(runtime.vault.abs(SUMMARY))).data.status).toBe('done');
  expect(reader.linesReached()).toBe(speech.length);
  expect(reader.stats.everyLineBeforeSummary).toBe(true);
  // The project update the default prompt asks for: offered write_projectfile after the
  // summary, the model appended to the project file.
  expect(reader.stats.projectOffersAfterSummary).toBeGreaterThan(0);
  const file = await runtime.vault.read(runtime.vault.abs(PROJECT_FILE));
  expect(file).toMatch(new RegExp(`## Decisions\\n- 2026-11-23: usage-based pricing in Q3\\.\\n${APPENDED.replace(/[.]/g, '\\.')}\\n?$`));
  expect(requests.length).toBeLessThanOrEqual(maxRequests);
}

/** Each request carries only its phase's tools, and the phases do not interleave. */
function expectPhases(run: Run) {
  const sets = run.agent.map((r) => toolNamesOf(r));
  const summary = sets.filter((s) => s.includes('write_summary'));
  const projects = sets.filter((s) => s.includes('write_projectfile'));
  expect(summary.length + projects.length).toBe(sets.length);
  for (const s of summary) expect(s).toEqual(SUMMARY_TOOLS);
  for (const s of projects) expect(s).toEqual(PROJECT_TOOLS);
  const firstProject = sets.findIndex((s) => s.includes('write_projectfile'));
  expect(firstProject).toBeGreaterThan(0);
  expect(sets.slice(firstProject).every((s) => s.includes('write_projectfile'))).toBe(true);
  // The fixed part of every request (instructions, schemas and the first message's meeting
  // facts, the transcript notes aside) is at most 35 % of the window.
  for (const req of run.agent) {
    const conv = requestAsConversation(req.kind === 'chat' ? 'chat' : 'responses', req.body);
    const facts = (conv.messages[0] as { content: string }).content.split('\n\nThe transcript (')[0]!;
    expect(fixedTokens(conv) + messagesTokens([{ role: 'user', content: facts }])).toBeLessThanOrEqual(0.35 * 4096);
  }
}

describe('the meeting with everything (19 tools, 3 hours) at a 4,096-token window, bundled config', () => {
  it('Ollama telling its window through /api/ps: no request over the window, every line read, the project file appended', async () => {
    const run = await allToolsMeeting({ kind: 'ollama', window: 4096, loaded: false });
    await expectSummaryAndProjectUpdate(run);
    expectPhases(run);
    expect(run.server.emulated!.overflows).toHaveLength(0);
    for (const req of run.requests) expect(req.admission?.kind, 'every request fits the 4,096 window').toBe('fits');
  });

  it('Ollama telling nothing: one request cut (it shows the window), its answer never used; every later one fits', async () => {
    const run = await allToolsMeeting({ kind: 'ollama', window: 4096, tellsWindow: false });
    await expectSummaryAndProjectUpdate(run);
    expectPhases(run);
    expect(run.server.emulated!.overflows.map((o) => o.kind)).toEqual(['cut']);
    expect(run.requests.filter((r) => r.admission?.kind !== 'fits')).toHaveLength(1);
    expect(run.logLines.some((l) => l.level === 'warn' && /Ollama's cut of a 4096-token window/.test(String(l.msg)))).toBe(true);
  });

  it('llama.cpp -c 4096 refusing with exceed_context_size_error: its n_ctx teaches the window, every later request fits', async () => {
    const run = await allToolsMeeting({ kind: 'llama.cpp', window: 4096, tellsWindow: false, tokenRatio: 1.1 });
    await expectSummaryAndProjectUpdate(run);
    expectPhases(run);
    const refused = run.server.emulated!.overflows;
    expect(refused.length).toBeGreaterThan(0);
    expect(refused.length).toBeLessThanOrEqual(2);
    expect(refused.every((o) => o.kind === 'refused')).toBe(true);
  });
});

describe('the meeting with everything at 8,192 (issue 31: one conversation wherever the window holds the nineteen tools)', () => {
  it('Ollama telling 8,192 through /api/ps: one conversation with all nineteen tools in every request, every line read, the project file appended, at most 30 requests', async () => {
    const run = await allToolsMeeting({ kind: 'ollama', window: 8192, loaded: false });
    await expectSummaryAndProjectUpdate(run, 30);
    const all = offeredTools({ projects: true, past: true, identities: true }).map((t) => t.name);
    for (const req of run.agent) expect(toolNamesOf(req)).toEqual(all);
    expect(run.server.emulated!.overflows).toHaveLength(0);
    expect(run.logLines.filter((l) => /-token window: /.test(String(l.msg))).map((l) => l.msg)).toEqual([expect.stringMatching(/^8,192-token window: one conversation with all 19 offered tools/)]);
  });
});
