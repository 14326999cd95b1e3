import { afterEach, describe, expect, it } from 'vitest';
import { retrySummary, summarizeMeeting } from '../../src/meeting/pipeline.js';
import { createRuntime } from '../../src/runtime.js';
import { parseNote } from '../../src/vault/format/frontmatter.js';
import { offeredTools, phasedTools } from '../../src/tools/offered-tools.js';
import { allToolsVault, MEETING, PROJECT_FILE, SUMMARY } from '../helpers/all-tools-meeting.mjs';
import { bundledConfig } from '../helpers/bundled-config.js';
import { capturedLogger } from '../helpers/captured-log.js';
import { memoryFs } from '../helpers/memfs.js';
import { transcriptLines } from '../helpers/long-meeting-text.mjs';
import { type PlannedCall, plannedModel } from '../helpers/planned-model.js';
import { lastToolResults, type RecordedRequest, type ScriptedServer, startScriptedServer, toolCallsSoFar, toolNamesOf, userTexts } from '../helpers/scripted-server.js';

/**
 * Issue 31: one conversation with every offered tool is the rule (docs/design.md §3 step 9).
 * A capable model looks at the project's notes and last week's summary before it writes this
 * one, and quotes the meeting in the project file after it. The meeting with everything (two
 * projects with AGENTS.md, past summaries of both, an identity: all nineteen tools) with a short
 * transcript, the bundled configuration at each window, the real pipeline, runtime and openai
 * client against the scripted server over loopback.
 */

const APPENDED = '- 2026-11-30: the billing release ships behind a feature flag (Alice Martin).';
const PAST = 'Meetings/Summaries/2026-11-23 Alpha sync.md';
const SUMMARY_BODY = '## Summary\nThe billing release and the PostgreSQL 16 migration.\n\n## Decisions\n- Ship behind a feature flag.\n\n## Next steps\n- Alice Martin: rollback plan.';

/** The order a model that reads before it writes calls the tools in. */
const PLAN: PlannedCall[] = [
  { name: 'list_projects', args: {} },
  { name: 'read_projectfile', args: { project: 'Alpha', path: 'Overview.md' } },
  { name: 'search', args: { keywords: ['(?i)pricing'] } },
  { name: 'list_past_project_meetings', args: {} },
  { name: 'read_past_project_meeting_summary', args: { path: PAST } },
  { name: 'read_transcript', args: {} },
  { name: 'write_summary', args: { content: SUMMARY_BODY } },
  // The exact words for the project note, whichever conversation the update is in.
  { name: 'read_transcript', args: { from: 5, to: 9 }, afterSummary: true },
  { name: 'write_projectfile', args: { project: 'Alpha', path: 'Overview.md', content: APPENDED }, afterSummary: true },
];

/** The reading model: the planned calls in order, each as soon as its request offers it. */
const curiousModel = () => plannedModel(PLAN);

const servers: ScriptedServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

async function meetingAt(tokens: number) {
  const server = await startScriptedServer({ models: ['qwen3:8b'] });
  servers.push(server);
  const model = curiousModel();
  server.setFallback(model.step);
  const { log, lines } = capturedLogger();
  const files = allToolsVault(transcriptLines(1_500));
  const runtime = await createRuntime(bundledConfig(server.baseUrl, { ContextWindow: { Tokens: tokens } }), { fs: memoryFs(files), log });
  const outcome = await summarizeMeeting(runtime.pipeline, runtime.vault.abs(MEETING));
  // The agent's requests (a transcript read into notes first sends tool-less ones).
  return { server, model, runtime, outcome, logLines: lines, agent: server.modelRequests().filter((req) => toolNamesOf(req).length > 0) };
}

/** Everything a request carries, as sent: its conversation's tool results among it. */
const sentText = (req: RecordedRequest) => JSON.stringify(req.body);

async function expectProjectNoteAndSummary(run: Awaited<ReturnType<typeof meetingAt>>) {
  expect(run.outcome.status, run.outcome.error).toBe('done');
  const summary = parseNote(await run.runtime.vault.read(run.runtime.vault.abs(SUMMARY)));
  expect(summary.data.status).toBe('done');
  expect(summary.body).toContain('Ship behind a feature flag.');
  expect(await run.runtime.vault.read(run.runtime.vault.abs(PROJECT_FILE))).toContain(APPENDED);
}

describe('one conversation with every offered tool wherever the window holds it (issue 31)', () => {
  it.each([8192, 32_768, 131_072])('at %i: project files, search and past summaries read before write_summary, the project file written after it, all in one conversation', async (tokens) => {
    const run = await meetingAt(tokens);
    await expectProjectNoteAndSummary(run);
    const all = offeredTools({ projects: true, past: true, identities: true }).map((t) => t.name);
    // The same nineteen tools, in §4's order, in every request.
    for (const req of run.agent) expect(toolNamesOf(req)).toEqual(all);
    // One first turn (only the first request has no assistant turn yet), one final answer.
    expect(run.agent.filter((req) => toolCallsSoFar(req).length === 0)).toHaveLength(1);
    expect(run.model.finalAnswers()).toBe(1);
    const last = run.agent.at(-1)!;
    expect(userTexts(last)).toHaveLength(1);
    expect(toolCallsSoFar(last).map((c) => c.name)).toEqual(PLAN.map((p) => p.name));
    // Not one of them refused or unknown: each result, as the request after its call carried it
    // (compaction may collapse it later), is the tool's own answer.
    const answers = run.agent.slice(1).map((req) => lastToolResults(req)[0]!.output);
    for (const answer of answers) expect(answer).not.toMatch(/^Error:/);
    expect(answers.join('\n')).toContain('usage-based pricing in Q3');
    expect(answers.join('\n')).toContain('Usage-based pricing for Q3.');
    // The choice logged once, with its reason.
    const shapes = run.logLines.filter((l) => /-token window: /.test(String(l.msg)));
    expect(shapes.map((l) => l.msg)).toEqual([expect.stringMatching(new RegExp(`^${tokens.toLocaleString('en-US')}-token window: one conversation with all 19 offered tools`))]);
  });

  it('at 4,096 the same meeting still goes in phases, logged once, and its project phase reads transcript lines', async () => {
    const run = await meetingAt(4096);
    await expectProjectNoteAndSummary(run);
    const phases = phasedTools({ projects: true, past: true, identities: true });
    const sets = run.agent.map((req) => toolNamesOf(req));
    const firstProject = sets.findIndex((s) => !s.includes('write_summary'));
    expect(firstProject).toBeGreaterThan(0);
    for (const s of sets.slice(0, firstProject)) expect(s).toEqual(phases.summary.map((t) => t.name));
    for (const s of sets.slice(firstProject)) expect(s).toEqual(phases.projects!.map((t) => t.name));
    // The project phase read the meeting's own lines and the project's notes before it wrote.
    const last = run.agent.at(-1)!;
    expect(toolCallsSoFar(last).map((c) => c.name)).toEqual(['list_projects', 'read_projectfile', 'search', 'list_past_project_meetings', 'read_past_project_meeting_summary', 'read_transcript', 'write_projectfile']);
    expect(sentText(last)).toMatch(/lines 5-9 of \d+\)\\n\s+5\\t/);
    const shapes = run.logLines.filter((l) => /-token window: /.test(String(l.msg)));
    expect(shapes.map((l) => l.msg)).toEqual([expect.stringMatching(/^4,096-token window: the summary first, then the project files \(/)]);
  });

  it('a retry and a regeneration of a meeting with a project are one conversation too, the summary from that conversation', async () => {
    const server = await startScriptedServer({ models: ['qwen3:8b'] });
    servers.push(server);
    const runtime = await createRuntime(bundledConfig(server.baseUrl), { fs: memoryFs(allToolsVault(transcriptLines(1_500))), log: capturedLogger().log });
    // The first run fails (a 400 is not retried): a failure report with a retry link.
    server.script({ status: 400, body: { error: { message: 'model "qwen3:8b" is not loaded' } } });
    expect((await summarizeMeeting(runtime.pipeline, runtime.vault.abs(MEETING))).status).toBe('failed');
    expect(parseNote(await runtime.vault.read(runtime.vault.abs(SUMMARY))).data.status).toBe('failed');
    for (const round of ['retry of the failure report', 'regeneration of a good summary']) {
      const before = server.modelRequests().length;
      const model = curiousModel();
      server.setFallback(model.step);
      const outcome = await retrySummary(runtime.pipeline, runtime.vault.abs(SUMMARY));
      expect(outcome.status, `${round}: ${outcome.error}`).toBe('done');
      const requests = server.modelRequests().slice(before).filter((req) => toolNamesOf(req).length > 0);
      expect(requests.filter((req) => toolCallsSoFar(req).length === 0), round).toHaveLength(1);
      expect(new Set(requests.map((req) => toolNamesOf(req).join()))).toHaveProperty('size', 1);
      expect(toolCallsSoFar(requests.at(-1)!).map((c) => c.name)).toEqual(PLAN.map((p) => p.name));
      const summary = parseNote(await runtime.vault.read(runtime.vault.abs(SUMMARY)));
      expect(summary.data.status).toBe('done');
      expect(summary.body).toContain('Ship behind a feature flag.');
    }
  });
});
