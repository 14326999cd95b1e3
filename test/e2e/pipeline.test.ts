import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_PROMPT, PROJECT_PHASE_NOTE, PROJECT_PROMPT_NO_PAST, PROJECT_STEP_NO_PAST, SUMMARY_REMINDER } from '../../src/meeting/prompt.js';
import { summaryShapeSection } from '../../src/meeting/summary-shape.js';
import { retrySummary, summarizeMeeting } from '../../src/meeting/pipeline.js';
import { parseNote } from '../../src/vault/format/frontmatter.js';
import { Vault } from '../../src/vault/files/vault.js';
import { memoryFs, testConfig } from '../helpers/memfs.js';
import { pipelineDeps } from '../helpers/pipeline-deps.js';
import {
  type ScriptedServer,
  type Step,
  contextLengthStep,
  errorBody,
  instructionsOf,
  lastToolResults,
  startScriptedServer,
  toolNamesOf,
  userTexts,
} from '../helpers/scripted-server.js';

const MEETING = 'Meetings/2026-11-30 Weekly Sync.md';
const TRANSCRIPT = 'Meetings/Transcripts/2026-11-30 Weekly Sync.md';
const SUMMARY = 'Meetings/Summaries/2026-11-30 Weekly Sync.md';
const CONTEXT = 'Meetings/Context/2026-11-30 Weekly Sync.md';

function meetingNote(extra = '', title = 'title: Weekly Sync\n'): string {
  return (
    '---\n' +
    title +
    'start_time: 2026-11-30T09:00:00+01:00\n' +
    'end_time: 2026-11-30T09:45:00+01:00\n' +
    'attendees: [Alice, Bob]\n' +
    'projects: [Alpha, Beta, Gamma]\n' +
    'transcript: "[[Meetings/Transcripts/2026-11-30 Weekly Sync]]"\n' +
    extra +
    '---\n' +
    'Remember to ask about the release date.\n'
  );
}

function baseVault(overrides: Record<string, string | null> = {}): Record<string, string | null> {
  return {
    [MEETING]: meetingNote(),
    [TRANSCRIPT]:
      '---\nmeeting: "[[Meetings/2026-11-30 Weekly Sync]]"\nstate: finished\n---\n' +
      '[00:00:05] Alice: Good morning, let us start with the release.\n' +
      '[00:00:12] Speaker 2: The build is green since Friday.\n' +
      '[00:00:20] Alice: Then we ship on Friday.\n',
    'Meetings/Glossary.md': '- Alpha: our release train\n',
    'Projects/Alpha/AGENTS.md': 'Alpha rules: keep Decisions.md as a dated list.\n',
    'Projects/Alpha/Overview.md': '# Alpha\nThe release train.\n',
    'Projects/Alpha/Decisions.md': '# Decisions\n- 2026-11-01: use trunk-based development\n',
    'Projects/Beta/AGENTS.md': 'Beta rules: customer names are confidential.\n',
    'Projects/Gamma/Notes.md': '# Gamma\n',
    ...overrides,
  };
}

const SUMMARY_BODY = '## Summary\nThe team reviewed the release.\n## Decisions\n- Ship on Friday.\n## Next steps\n- [ ] Alice: tag the release 📅 2026-12-04\n';
/** The summary shape the default settings append to the instructions. */
const DEFAULT_SHAPE = summaryShapeSection({ language: undefined, taskFormat: 'tasks' });
/** The default prompt of one conversation with the project tools: its project step before the closing line (the base vault has no past summary: the step names none). */
const WITH_PROJECT_STEP = DEFAULT_PROMPT.replace('\nFinally', `\n${PROJECT_STEP_NO_PAST}\nFinally`);

const call = (name: string, args: object | string) => ({ name, arguments: args });
const tools = (...toolCalls: ReturnType<typeof call>[]): Step => ({ reply: { toolCalls } });
const text = (content: string): Step => ({ reply: { content } });

function deepMerge(a: Record<string, unknown>, b: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...a };
  for (const [k, v] of Object.entries(b)) {
    const prev = out[k];
    out[k] =
      v && typeof v === 'object' && !Array.isArray(v) && prev && typeof prev === 'object'
        ? deepMerge(prev as Record<string, unknown>, v as Record<string, unknown>)
        : v;
  }
  return out;
}

describe.each(['chat-completions', 'responses'] as const)('pipeline over %s', (api) => {
  let server: ScriptedServer;
  beforeEach(async () => {
    server = await startScriptedServer();
  });
  afterEach(async () => {
    await server.close();
  });

  function setup(files = baseVault(), raw: Record<string, unknown> = {}) {
    const config = testConfig(
      deepMerge(
        {
          Endpoint: { BaseUrl: server.baseUrl, Model: 'test-model', Api: api, TimeoutSeconds: 5 },
          Reconnect: { Attempts: 2, DelaySeconds: 1 },
        },
        raw,
      ),
    );
    const vault = new Vault(memoryFs(files), config.layout);
    const waits: number[] = [];
    const deps = pipelineDeps(vault, config, '2026-11-30T10:04:05Z', {
      sleep: async (ms) => {
        waits.push(ms);
      },
    });
    const read = (rel: string) => vault.read(vault.abs(rel));
    return { vault, deps, config, waits, read, meeting: vault.abs(MEETING) };
  }

  it('runs a meeting end to end: reads, writes the summary and a project file, ends finished with the audit', async () => {
    const { deps, read, meeting } = setup();
    server.script(
      tools(call('read_transcript', {}), call('read_glossary', {})),
      tools(call('write_summary', { content: SUMMARY_BODY })),
      tools(call('read_projectfile', { project: 'Alpha', path: 'Decisions.md' })),
      tools(
        call('write_projectfile', {
          project: 'Alpha',
          path: 'Decisions.md',
          content: '- 2026-11-30: ship on Friday',
        }),
      ),
      text('Done.'),
    );
    const outcome = await summarizeMeeting(deps, meeting);
    expect(outcome.status).toBe('done');

    const requests = server.modelRequests();
    expect(requests).toHaveLength(5);
    const results = lastToolResults(requests[1]!);
    expect(results.map((r) => r.name)).toEqual(['read_transcript', 'read_glossary']);
    expect(results[0]!.output).toContain('Then we ship on Friday.');
    expect(lastToolResults(requests[3]!)[0]!.output).toContain('use trunk-based development');

    const summary = parseNote(await read(SUMMARY));
    expect(summary.body).toContain('- Ship on Friday.');
    expect(await read('Projects/Alpha/Decisions.md')).toContain('- 2026-11-30: ship on Friday');

    const context = parseNote(await read(CONTEXT));
    expect(context.data.state).toBe('finished');
    expect(context.data.end_time).toBe('2026-11-30T09:45:00+01:00');
    expect(context.body).toContain('## External changes (2026-11-30T10:04:05');
    expect(context.body).toContain('### Projects/Alpha/Decisions.md');
    expect(context.body).toContain('+- 2026-11-30: ship on Friday');
    // The summary and context notes are never audited.
    expect(context.body).not.toContain(`### ${SUMMARY}`);
    // Missing context/summary links were written back into the meeting note, nothing else changed.
    expect(await read(MEETING)).toBe(
      meetingNote(
        'context: "[[Meetings/Context/2026-11-30 Weekly Sync]]"\nsummary: "[[Meetings/Summaries/2026-11-30 Weekly Sync]]"\n',
      ),
    );
  });

  it('at 4,096 goes in phases (issue 21): the summary with the meeting\'s tools only, then a new conversation with the project tools and read_transcript, the summary handed on', async () => {
    const { deps, meeting } = setup(baseVault({ 'Meetings/Speakers/Alice.md': 'Alice\n' }), { ContextWindow: { Tokens: 4096 } });
    server.script(
      tools(call('read_transcript', {}), call('list_projects', {})),
      tools(call('write_summary', { content: SUMMARY_BODY }), call('write_context', { mode: 'overwrite', content: 'after' })),
      tools(call('read_transcript', { from: 5, to: 7 }), call('write_context', { mode: 'overwrite', content: 'later' })),
      text('Done.'),
    );
    expect((await summarizeMeeting(deps, meeting)).status).toBe('done');
    const [first, second, third, fourth] = server.modelRequests();
    const meetingTools = [
      'read_meetingnote', 'read_transcript', 'read_context', 'read_usernotes', 'read_glossary', 'add_dictation_word',
      'add_attendee', 'remove_attendee', 'override_speaker', 'delete_identity', 'write_summary', 'write_context',
    ];
    const projectTools = ['read_transcript', 'list_projects', 'list_projectfiles', 'read_projectfile', 'write_projectfile', 'search'];
    expect(toolNamesOf(first!)).toEqual(meetingTools);
    expect(toolNamesOf(second!)).toEqual(meetingTools);
    // A project tool called in the summary phase is not there (the model is told which tools are).
    expect(lastToolResults(second!)[1]!.output).toMatch(/^Error: there is no tool named "list_projects"/);
    // Every call of the response that wrote the summary ran; then the phase ended without a closing answer.
    expect(lastToolResults(third!)).toEqual([]);
    expect(toolNamesOf(third!)).toEqual(projectTools);
    expect(toolNamesOf(fourth!)).toEqual(projectTools);
    // The project phase reads the meeting's own lines (issue 31); the summary's other tools stay out of it.
    expect(lastToolResults(fourth!)[0]!.output).toContain('7\t[00:00:20] Alice: Then we ship on Friday.');
    expect(lastToolResults(fourth!)[1]!.output).toMatch(/^Error: there is no tool named "write_context"/);
    // The project phase starts anew: its first message names the meeting and carries the summary as written.
    const opening = userTexts(third!);
    expect(opening).toHaveLength(1);
    expect(opening[0]).toContain('Summary note: Meetings/Summaries/2026-11-30 Weekly Sync.md');
    expect(opening[0]).toContain(`<summary>\n${SUMMARY_BODY.trimEnd()}\n</summary>`);
    expect(JSON.stringify(third!.body)).not.toContain('Then we ship on Friday.');
  });

  it('at the default window is one conversation with every offered tool (issue 31): a project tool before the summary works, the same tools in every request', async () => {
    const { deps, meeting } = setup(baseVault({ 'Meetings/Speakers/Alice.md': 'Alice\n' }));
    server.script(
      tools(call('list_projects', {}), call('read_projectfile', { project: 'Alpha', path: 'Decisions.md' })),
      tools(call('write_summary', { content: SUMMARY_BODY })),
      tools(call('write_projectfile', { project: 'Alpha', path: 'Decisions.md', content: '- 2026-11-30: ship on Friday' })),
      text('Done.'),
    );
    expect((await summarizeMeeting(deps, meeting)).status).toBe('done');
    const requests = server.modelRequests();
    expect(requests).toHaveLength(4);
    for (const request of requests) expect(toolNamesOf(request)).toEqual(toolNamesOf(requests[0]!));
    expect(toolNamesOf(requests[0]!)).toEqual(expect.arrayContaining(['read_transcript', 'write_summary', 'list_projects', 'write_projectfile', 'search']));
    const [listed, read] = lastToolResults(requests[1]!);
    expect(listed!.output).not.toMatch(/^Error:/);
    expect(read!.output).toContain('use trunk-based development');
    // One conversation: one first message, and every later request carries the earlier turns.
    for (const request of requests) expect(userTexts(request)).toHaveLength(1);
    expect(lastToolResults(requests[3]!)[0]!.output).not.toMatch(/^Error:/);
  });

  it('without a project folder to write there is one conversation, ended by the model\'s closing answer', async () => {
    const files = baseVault();
    for (const key of Object.keys(files)) if (key.startsWith('Projects/')) delete files[key];
    const { deps, meeting } = setup(files);
    server.script(tools(call('write_summary', { content: SUMMARY_BODY })), text('Done.'));
    expect((await summarizeMeeting(deps, meeting)).status).toBe('done');
    const requests = server.modelRequests();
    expect(requests).toHaveLength(2);
    expect(toolNamesOf(requests[1]!)).toContain('write_summary');
    expect(toolNamesOf(requests[1]!)).not.toContain('list_projects');
  });

  it('copies title, times and projects into the summary frontmatter and links every artifact', async () => {
    const { deps, read, meeting } = setup();
    server.script(tools(call('write_summary', { content: SUMMARY_BODY })), text('Done.'));
    expect((await summarizeMeeting(deps, meeting)).status).toBe('done');
    const summary = parseNote(await read(SUMMARY));
    expect(summary.data).toEqual({
      title: 'Weekly Sync',
      start_time: '2026-11-30T09:00:00+01:00',
      end_time: '2026-11-30T09:45:00+01:00',
      projects: ['Alpha', 'Beta', 'Gamma'],
      meeting: '[[Meetings/2026-11-30 Weekly Sync]]',
      transcript: '[[Meetings/Transcripts/2026-11-30 Weekly Sync]]',
      context: '[[Meetings/Context/2026-11-30 Weekly Sync]]',
      status: 'done',
      action_items: 1,
    });
  });

  it('reports each turn and the tokens in use to onProgress, and counts model requests (retries included) in the outcome', async () => {
    const { deps, meeting } = setup();
    const events: unknown[] = [];
    deps.onProgress = (runId, event) => events.push({ runId, ...event });
    deps.contextManager = () => ({
      beforeRequest: async () => undefined,
      afterResponse: () => 'ok',
      forceCompact: async () => undefined,
      window: 8192,
    });
    server.script({ status: 500, body: errorBody('busy', { type: 'server_error' }) }, tools(call('write_summary', { content: SUMMARY_BODY })), text('Done.'));
    const outcome = await summarizeMeeting(deps, meeting);
    expect(outcome).toMatchObject({ status: 'done', modelRequests: 3 });
    const runId = outcome.runId;
    expect(events).toEqual([
      { runId, kind: 'turn', turn: 1, maxTurns: 60 },
      { runId, kind: 'context', tokens: 15, window: 8192 },
      { runId, kind: 'turn', turn: 2, maxTurns: 60 },
      { runId, kind: 'context', tokens: 15, window: 8192 },
    ]);
    // A failed run still says how many requests it made.
    server.script({ status: 400, body: errorBody('model "test-model" is not loaded') });
    expect(await summarizeMeeting(deps, meeting)).toMatchObject({ status: 'failed', modelRequests: 1 });
  });

  it("uses the agent's title when the meeting note has none", async () => {
    const { deps, read, meeting } = setup(baseVault({ [MEETING]: meetingNote('', '') }));
    server.script(tools(call('write_summary', { content: SUMMARY_BODY, title: 'Release go/no-go' })), text('Done.'));
    expect((await summarizeMeeting(deps, meeting)).status).toBe('done');
    expect(parseNote(await read(SUMMARY)).data.title).toBe('Release go/no-go');
    expect(userTexts(server.modelRequests()[0]!)[0]).toContain('Title: (none');
  });

  it('uses the configured prompt, and the default prompt when the configured one is blank', async () => {
    const configured = setup(baseVault(), { Agent: { InitialPrompt: 'Summarize like a pirate.' } });
    server.script(tools(call('write_summary', { content: SUMMARY_BODY })), text('Done.'));
    await summarizeMeeting(configured.deps, configured.meeting);
    const first = instructionsOf(server.modelRequests()[0]!)!;
    expect(first.startsWith('Summarize like a pirate.')).toBe(true);
    expect(first).not.toContain(DEFAULT_PROMPT.slice(0, 40));

    // One conversation: the configured prompt as it is, in every request.
    expect(instructionsOf(server.modelRequests()[1]!)).toBe(first);

    // In phases (4,096), the project phase has the configured prompt, told which step it is.
    const phased = setup(baseVault(), { Agent: { InitialPrompt: 'Summarize like a pirate.' }, ContextWindow: { Tokens: 4096 } });
    server.script(tools(call('write_summary', { content: SUMMARY_BODY })), text('Done.'));
    await summarizeMeeting(phased.deps, phased.meeting);
    expect(instructionsOf(server.modelRequests()[3]!)!.startsWith(`Summarize like a pirate.\n\n${PROJECT_PHASE_NOTE}`)).toBe(true);

    const blank = setup(baseVault(), { Agent: { InitialPrompt: '  \n ' }, ContextWindow: { Tokens: 4096 } });
    server.script(tools(call('write_summary', { content: SUMMARY_BODY })), text('Done.'));
    await summarizeMeeting(blank.deps, blank.meeting);
    expect(instructionsOf(server.modelRequests()[4]!)!.startsWith(DEFAULT_PROMPT)).toBe(true);
    expect(instructionsOf(server.modelRequests()[5]!)!.startsWith(PROJECT_PROMPT_NO_PAST)).toBe(true);
  });

  it("appends the bound projects' AGENTS.md in the meeting's order; a project without one adds nothing", async () => {
    const { deps, meeting } = setup();
    server.script(tools(call('write_summary', { content: SUMMARY_BODY })), text('Done.'));
    await summarizeMeeting(deps, meeting);
    const instructions = instructionsOf(server.modelRequests()[0]!)!;
    const agents = '---\nprojects:\n# Alpha\nAlpha rules: keep Decisions.md as a dated list.\n# Beta\nBeta rules: customer names are confidential.\n';
    expect(instructions).toBe(`${WITH_PROJECT_STEP}\n\n${DEFAULT_SHAPE}\n${agents}`);
    expect(instructions).not.toContain('# Gamma');
    // In phases (4,096) the project phase has them too (its prompt, no summary shape).
    const phased = setup(baseVault(), { ContextWindow: { Tokens: 4096 } });
    server.script(tools(call('write_summary', { content: SUMMARY_BODY })), text('Done.'));
    await summarizeMeeting(phased.deps, phased.meeting);
    expect(instructionsOf(server.modelRequests()[2]!)).toBe(`${DEFAULT_PROMPT}\n\n${DEFAULT_SHAPE}\n${agents}`);
    expect(instructionsOf(server.modelRequests()[3]!)).toBe(`${PROJECT_PROMPT_NO_PAST}\n${agents}`);
  });

  it('appends nothing when no bound project has an AGENTS.md', async () => {
    const files = baseVault();
    delete files['Projects/Alpha/AGENTS.md'];
    delete files['Projects/Beta/AGENTS.md'];
    const { deps, meeting } = setup(files);
    server.script(tools(call('write_summary', { content: SUMMARY_BODY })), text('Done.'));
    await summarizeMeeting(deps, meeting);
    expect(instructionsOf(server.modelRequests()[0]!)).toBe(`${WITH_PROJECT_STEP}\n\n${DEFAULT_SHAPE}`);
    expect(instructionsOf(server.modelRequests()[1]!)).toBe(`${WITH_PROJECT_STEP}\n\n${DEFAULT_SHAPE}`);
  });

  const transientFaults: [string, Step, number | undefined][] = [
    ['500', { status: 500, body: errorBody('internal error', { type: 'server_error' }) }, 500],
    ['502', { status: 502, body: '<html><body><h1>502 Bad Gateway</h1></body></html>', headers: { 'content-type': 'text/html' } }, 502],
    ['503', { status: 503, body: errorBody('overloaded', { type: 'server_error' }) }, 503],
    ['429 with Retry-After', { status: 429, body: errorBody('rate limited'), headers: { 'retry-after': '7' } }, 429],
    ['a reset connection', { reset: true }, undefined],
  ];

  it.each(transientFaults)(
    'retries %s Reconnect.Attempts times, then writes the failure report and sets state error',
    async (_name, fault, status) => {
      const { deps, read, meeting, waits } = setup();
      server.script(fault, fault, fault);
      const outcome = await summarizeMeeting(deps, meeting);
      expect(outcome.status).toBe('failed');
      expect(server.modelRequests()).toHaveLength(3);
      expect(waits).toEqual(status === 429 ? [7000, 7000] : [1000, 1000]);

      const report = await read(SUMMARY);
      const note = parseNote(report);
      expect(note.data).toMatchObject({
        title: 'Weekly Sync',
        projects: ['Alpha', 'Beta', 'Gamma'],
        meeting: '[[Meetings/2026-11-30 Weekly Sync]]',
        transcript: '[[Meetings/Transcripts/2026-11-30 Weekly Sync]]',
        context: '[[Meetings/Context/2026-11-30 Weekly Sync]]',
        status: 'failed',
        retry: false,
        failed_at: '2026-11-30T10:04:05Z',
      });
      expect(note.body).toContain('# Summary failed: Weekly Sync');
      expect(note.body).toContain(
        `[Retry now](http://127.0.0.1:4777/retry?note=${encodeURIComponent(SUMMARY)}&token=tok)`,
      );
      expect(note.body).toContain('retry: true');
      expect(note.body).toContain('Attempts: 3');
      if (status) expect(note.body).toContain(`HTTP status: ${status}`);
      for (const rel of [MEETING, TRANSCRIPT, CONTEXT, SUMMARY]) {
        expect(note.body).toContain(rel);
        expect(note.body).toContain(`/vault/${rel}`);
      }
      expect(parseNote(await read(CONTEXT)).data.state).toBe('error');
    },
  );

  it('retries a timeout, then fails with the failure report', async () => {
    const { deps, read, meeting } = setup(baseVault(), { Endpoint: { TimeoutSeconds: 0.2 }, Reconnect: { Attempts: 1 } });
    server.script({ hang: true }, { hang: true });
    const outcome = await summarizeMeeting(deps, meeting);
    expect(outcome.status).toBe('failed');
    expect(server.modelRequests()).toHaveLength(2);
    const note = parseNote(await read(SUMMARY));
    expect(note.data.status).toBe('failed');
    expect(note.body).toMatch(/timeout/i);
  });

  it('does not retry a 401 and says that the key is wrong', async () => {
    const { deps, read, meeting } = setup();
    server.script({ status: 401, body: errorBody('Incorrect API key provided', { type: 'invalid_request_error', code: 'invalid_api_key' }) });
    const outcome = await summarizeMeeting(deps, meeting);
    expect(outcome.status).toBe('failed');
    expect(server.modelRequests()).toHaveLength(1);
    const note = parseNote(await read(SUMMARY));
    expect(note.body).toContain('HTTP status: 401');
    expect(note.body).toMatch(/API key/);
    expect(note.body).toContain('Attempts: 1');
  });

  it('answers invalid tool-call JSON with an Error: result and still finishes', async () => {
    const { deps, read, meeting } = setup();
    server.script(
      tools(call('read_transcript', '{"from": 1, "to": ')),
      tools(call('write_summary', { content: SUMMARY_BODY })),
      text('Done.'),
    );
    const outcome = await summarizeMeeting(deps, meeting);
    expect(outcome.status).toBe('done');
    expect(lastToolResults(server.modelRequests()[1]!)[0]!.output).toMatch(/^Error: /);
    expect(parseNote(await read(SUMMARY)).data.status).toBe('done');
  });

  it('turns a failure report into a summary in the same file when retried with a healthy endpoint', async () => {
    const { deps, read, vault, meeting } = setup();
    server.script({ status: 400, body: errorBody('bad request') });
    expect((await summarizeMeeting(deps, meeting)).status).toBe('failed');
    expect(parseNote(await read(SUMMARY)).data.status).toBe('failed');

    server.script(tools(call('write_summary', { content: SUMMARY_BODY })), text('Done.'));
    const outcome = await retrySummary(deps, vault.abs(SUMMARY));
    expect(outcome.status).toBe('done');
    const summary = parseNote(await read(SUMMARY));
    expect(summary.data.status).toBe('done');
    expect(summary.body).toContain('Ship on Friday');
    expect(parseNote(await read(CONTEXT)).data.state).toBe('finished');
    // A failure report is replaced without a copy in the trash.
    expect(await vault.exists(vault.abs(`.trash/${SUMMARY}`))).toBe(false);
  });

  it('copies a good summary to .trash before regenerating it on retry', async () => {
    const { deps, read, vault, meeting } = setup();
    server.script(tools(call('write_summary', { content: 'first version' })), text('Done.'));
    await summarizeMeeting(deps, meeting);
    const first = await read(SUMMARY);
    server.script(tools(call('write_summary', { content: 'second version' })), text('Done.'));
    expect((await retrySummary(deps, vault.abs(SUMMARY))).status).toBe('done');
    expect(await read(SUMMARY)).toContain('second version');
    expect(await read(`.trash/${SUMMARY}`)).toBe(first);
  });

  it('keeps a summary written in this run when a later step fails, and records the error in the context note', async () => {
    const { deps, read, meeting } = setup(baseVault(), { Reconnect: { Attempts: 0 } });
    server.script(tools(call('write_summary', { content: SUMMARY_BODY })), { status: 500, body: errorBody('boom') });
    const outcome = await summarizeMeeting(deps, meeting);
    expect(outcome.status).toBe('failed');
    expect(parseNote(await read(SUMMARY)).data.status).toBe('done');
    const context = parseNote(await read(CONTEXT));
    expect(context.data.state).toBe('error');
    expect(context.body).toContain('## Error (');
    expect(context.body).toContain('boom');
  });

  it('in phases, a summary written on the last turn Agent.MaxTurns allows stays; the context note says the project files were left', async () => {
    const { deps, read, meeting } = setup(baseVault(), { Agent: { MaxTurns: 1 }, ContextWindow: { Tokens: 4096 } });
    server.script(tools(call('write_summary', { content: SUMMARY_BODY })));
    const outcome = await summarizeMeeting(deps, meeting);
    expect(outcome.status).toBe('failed');
    expect(server.modelRequests()).toHaveLength(1);
    expect(parseNote(await read(SUMMARY)).data.status).toBe('done');
    const context = parseNote(await read(CONTEXT));
    expect(context.data.state).toBe('error');
    expect(context.body).toContain('The summary was written, but the run then failed: AgentError (max-turns): the summary was written, but Agent.MaxTurns (1) left no request to update the project files');
  });

  it('reminds the model once when it stops without write_summary, and fails when it still does not', async () => {
    const { deps, meeting } = setup();
    server.script(text('All done!'), tools(call('write_summary', { content: SUMMARY_BODY })), text('Done.'));
    expect((await summarizeMeeting(deps, meeting)).status).toBe('done');
    expect(userTexts(server.modelRequests()[1]!).at(-1)).toBe(SUMMARY_REMINDER);

    // It used a tool, so it can: not the "does not call tools" failure (test/meeting/pipeline-failure-reports.test.ts).
    server.script(tools(call('read_transcript', {})), text('All done!'), text('Really done.'));
    const second = setup();
    const outcome = await summarizeMeeting(second.deps, second.meeting);
    expect(outcome.status).toBe('failed');
    expect(outcome.error).toContain('no-summary');
    expect(parseNote(await second.read(SUMMARY)).data.status).toBe('failed');
  });

  it('fails after Agent.MaxTurns model requests', async () => {
    const { deps, meeting } = setup(baseVault(), { Agent: { MaxTurns: 3 } });
    server.setFallback(tools(call('read_glossary', {})));
    const outcome = await summarizeMeeting(deps, meeting);
    expect(outcome.status).toBe('failed');
    expect(outcome.error).toContain('MaxTurns');
    expect(server.modelRequests()).toHaveLength(3);
  });

  it('fails a meeting whose note does not parse alone, without rewriting it', async () => {
    const broken = '---\ntitle: [unclosed\nprojects: Alpha\n---\nbody\n';
    const { deps, read, meeting } = setup(baseVault({ [MEETING]: broken }));
    const outcome = await summarizeMeeting(deps, meeting);
    expect(outcome.status).toBe('failed');
    expect(server.modelRequests()).toHaveLength(0);
    expect(await read(MEETING)).toBe(broken);
    const report = parseNote(await read(SUMMARY));
    expect(report.data.status).toBe('failed');
    expect(report.body).toContain('# Summary failed: 2026-11-30 Weekly Sync');
  });

  it('finishes with the summary when a person broke the context note during the run, leaving their text', async () => {
    const { deps, read, vault, meeting } = setup();
    const broken = '---\ntitle: [unclosed\n---\nmy notes\n';
    server.script(
      {
        handler: async () => {
          await vault.fs.writeFile(vault.abs(CONTEXT), broken);
          return tools(call('write_summary', { content: SUMMARY_BODY }));
        },
      },
      text('Done.'),
    );
    const outcome = await summarizeMeeting(deps, meeting);
    expect(outcome.status).toBe('done');
    expect(parseNote(await read(SUMMARY)).data.status).toBe('done');
    expect(await read(CONTEXT)).toBe(broken);
  });

  it('compacts once after a context-length 400 and tries again', async () => {
    const { deps, read, meeting } = setup();
    let compactions = 0;
    deps.contextManager = () => ({
      beforeRequest: async () => undefined,
      afterResponse: () => 'ok',
      forceCompact: async () => {
        compactions++;
      },
    });
    server.script(contextLengthStep(), tools(call('write_summary', { content: SUMMARY_BODY })), text('Done.'));
    expect((await summarizeMeeting(deps, meeting)).status).toBe('done');
    expect(compactions).toBe(1);
    expect(parseNote(await read(SUMMARY)).data.status).toBe('done');
  });
});
