import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { summarizeMeeting } from '../../../src/meeting/pipeline.js';
import { ToolsRefusals } from '../../../src/meeting/without-tools/memory.js';
import { parseNote } from '../../../src/vault/format/frontmatter.js';
import { Vault } from '../../../src/vault/files/vault.js';
import { capturedLogger } from '../../helpers/captured-log.js';
import { memoryFs, testConfig } from '../../helpers/memfs.js';
import { contextAndSummaryLinks, meetingNote, transcriptNote } from '../../helpers/notes.js';
import { pipelineDeps } from '../../helpers/pipeline-deps.js';
import { offersTools, REFUSALS, type RefusingKind, refusingTools } from '../../helpers/refusing-server.js';
import { errorBody, type RecordedRequest, type ScriptedServer, startScriptedServer, userTexts } from '../../helpers/scripted-server.js';

/** docs/design.md §2 "Every model summarizes", §3 step 11 "No tools at all": a summary, never a failure report for that alone. */

const SUMMARY = 'Meetings/Summaries/Sync.md';
const CONTEXT = 'Meetings/Context/Sync.md';
const ANSWER =
  '<think>The user wants a summary. Alice said good morning.</think>\n## Summary\nAlice and Bob met and greeted each other.\n\n' +
  '## Decisions\n- None.\n\n## Next steps\n- [ ] Alice: send the notes 📅 2026-12-03\n- [ ] Bob: book the room';
const GLOSSARY = '- Kubernetes (not "cooper Netties")\n';
const PAST = 'Meetings/Summaries/Earlier Sync.md';
const PAST_NOTE = '---\ntitle: Earlier Sync\nstart_time: 2026-11-23T09:00:00+01:00\nprojects: [Alpha]\nstatus: done\n---\n## Summary\nLast week the team chose PostgreSQL 16.\n';
const LATER = 'Meetings/Summaries/Later Sync.md';
const LATER_NOTE = '---\ntitle: Later Sync\nstart_time: 2026-12-07T09:00:00+01:00\nprojects: [Alpha]\nstatus: done\n---\n## Summary\nA meeting after this one.\n';

let server: ScriptedServer;
beforeEach(async () => {
  server = await startScriptedServer();
});
afterEach(async () => {
  await server.close();
});

function setup(options: { title?: boolean; refusals?: ToolsRefusals } = {}) {
  const config = testConfig({ Endpoint: { BaseUrl: server.baseUrl, Model: 'gemma3:4b', TimeoutSeconds: 30 }, Reconnect: { Attempts: 2, DelaySeconds: 0 } });
  const note = meetingNote('Sync', contextAndSummaryLinks('Sync'));
  const files = {
    'Meetings/Sync.md': options.title === false ? note.replace('title: Sync\n', '') : note,
    'Meetings/Transcripts/Sync.md': transcriptNote('Sync', 'finished'),
    'Meetings/Context/Sync.md': '---\ntitle: Sync\nmeeting: "[[Meetings/Sync]]"\nstate: finished\nagenda: "Release plan; hiring"\n---\n',
    'Projects/Alpha/Overview.md': '# Alpha\n',
    'Meetings/Glossary.md': GLOSSARY,
    [PAST]: PAST_NOTE,
    [LATER]: LATER_NOTE,
  };
  const vault = new Vault(memoryFs(files), config.layout);
  const { log, lines } = capturedLogger();
  const deps = pipelineDeps(vault, config, '2026-12-02T10:04:05Z', { sleep: async () => undefined, log, ...(options.refusals ? { toolsRefusals: options.refusals } : {}) });
  return { vault, deps, logLines: lines, read: (rel: string) => vault.read(vault.abs(rel)), run: () => summarizeMeeting(deps, vault.abs('Meetings/Sync.md')) };
}

const toollessRequests = () => server.modelRequests().filter((r) => !offersTools(r));
const lastText = (req: RecordedRequest) => userTexts(req).join('\n');

describe('a server that refuses tools', () => {
  it.each(Object.keys(REFUSALS) as RefusingKind[])('%s: the run goes without tools and writes the summary as write_summary does', async (kind) => {
    const { run, read, vault } = setup();
    server.setFallback(refusingTools(kind, { reply: { content: ANSWER } }));
    const outcome = await run();
    expect(outcome.status, outcome.error).toBe('done');
    // One request with tools, refused and not retried (llama.cpp's 500 included), then the one without.
    expect(server.modelRequests().map(offersTools)).toEqual([true, false]);

    const summary = parseNote(await read(SUMMARY));
    expect(summary.data).toMatchObject({ title: 'Sync', status: 'done', action_items: 2, meeting: '[[Meetings/Sync]]', projects: ['Alpha'] });
    expect(summary.body).toContain('## Summary\nAlice and Bob met');
    expect(summary.body).not.toContain('think');
    expect(summary.body).not.toContain('The user wants');

    const context = parseNote(await read(CONTEXT));
    expect(context.data.state).toBe('finished');
    expect(context.body).toContain('## Made without tools (2026-12-02T10:04:05.000Z)');
    expect(context.body).toContain(REFUSALS[kind].words);
    expect(context.body).toMatch(kind.startsWith('llama.cpp') ? /`--jinja`/ : kind === 'vllm' ? /--enable-auto-tool-choice --tool-call-parser/ : /model with tool calling/);
    expect(context.body).toContain('no project file, speaker label, attendee or dictionary entry');
    // Nothing else written: the project file is as it was, no audit.
    expect(await vault.read(vault.abs('Projects/Alpha/Overview.md'))).toBe('# Alpha\n');
    expect(context.body).not.toContain('External changes');
  });

  it('the model is given what the agent would read: meeting note with user notes, agenda, glossary, the latest earlier summary, the transcript', async () => {
    const { run } = setup();
    server.setFallback(refusingTools('ollama', { reply: { content: ANSWER } }));
    expect((await run()).status).toBe('done');
    const [req] = toollessRequests();
    const text = lastText(req!);
    expect(text).toContain('User notes of Sync.');
    expect(text).toContain('Release plan; hiring');
    expect(text).toContain('cooper Netties');
    expect(text).toContain('Last week the team chose PostgreSQL 16.');
    // "Earlier": a summary of a later meeting is not the one given.
    expect(text).not.toContain('A meeting after this one.');
    expect(text).toMatch(/\t\[00:00:05\] Alice: Good morning\./);
    const body = req!.body as { tools?: unknown; messages: { role: string; content: string }[] };
    expect(body.tools).toBeUndefined();
    expect(body.messages[0]!.content).toContain('You have no tools');
    expect(body.messages[0]!.content).toContain('## Decisions');
    expect(body.messages[0]!.content).not.toContain('write_summary');
  });

  it('is remembered per endpoint and model: the next run goes without tools at once, logged once', async () => {
    const refusals = new ToolsRefusals();
    const first = setup({ refusals });
    server.setFallback(refusingTools('ollama', { reply: { content: ANSWER } }));
    expect((await first.run()).status).toBe('done');
    const second = setup({ refusals });
    expect((await second.run()).status).toBe('done');
    expect(server.modelRequests().map(offersTools)).toEqual([true, false, false]);
    expect(first.logLines.filter((l) => /refuses tools for gemma3:4b/.test(l.msg))).toHaveLength(1);
    expect(second.logLines.filter((l) => /refuses tools/.test(l.msg))).toHaveLength(0);
    expect(parseNote(await second.read(CONTEXT)).body).toContain('it refused an earlier run');
  });

  it('a meeting note without a title: the "Title:" line the model gives becomes the title, as write_summary\'s title does', async () => {
    const { run, read } = setup({ title: false });
    server.setFallback(refusingTools('ollama', { reply: { content: `Title: Greeting sync\n\n${ANSWER}` } }));
    expect((await run()).status).toBe('done');
    expect(lastText(toollessRequests()[0]!)).toContain('begin your answer with a line "Title:');
    const summary = parseNote(await read(SUMMARY));
    expect(summary.data.title).toBe('Greeting sync');
    expect(summary.body.startsWith('## Summary')).toBe(true);
  });

  it('an answer that is all reasoning is asked for once more; twice nothing is a failure, not an empty summary', async () => {
    const { run, read } = setup();
    server.setFallback(refusingTools('ollama', { reply: { content: '<think>Let me think about the meeting' } }));
    const outcome = await run();
    expect(outcome.status).toBe('failed');
    expect(toollessRequests()).toHaveLength(2);
    expect(await read(SUMMARY)).toContain('status: failed');
  });
});

describe('a model that answers in text however reminded', () => {
  it('goes without tools after the reminder, instead of failing', async () => {
    const { run, read } = setup();
    let calls = 0;
    server.setFallback({
      handler: (req) => {
        calls++;
        return offersTools(req) ? { reply: { content: 'Sure! The meeting was about greetings.' } } : { reply: { content: ANSWER } };
      },
    });
    const outcome = await run();
    expect(outcome.status, outcome.error).toBe('done');
    expect(calls).toBe(3);
    expect(server.modelRequests().map(offersTools)).toEqual([true, true, false]);
    const context = parseNote(await read(CONTEXT));
    expect(context.body).toContain('answered in text without calling any of the tools, even after a reminder');
    expect(parseNote(await read(SUMMARY)).data.status).toBe('done');
  });
});

describe('what is not a reason to go without tools', () => {
  it('another 400 still ends in a failure report, with no tool-less request', async () => {
    const { run, read } = setup();
    server.setFallback({ status: 400, body: errorBody('model "gemma3:4b" not found, try pulling it first') });
    expect((await run()).status).toBe('failed');
    expect(toollessRequests()).toHaveLength(0);
    expect(await read(SUMMARY)).toContain('status: failed');
  });

  // Text calls are read before "answers in text however reminded" is decided: such a model is no text-only model.
  it('a model that writes its calls as text: the full agent (calls read, answered structured), never the tool-less request', async () => {
    const { run, read } = setup();
    const summary = '## Summary\nHi.\n\n## Decisions\nNone.\n\n## Next steps\nNone.';
    server.script(
      { reply: { content: '<tool_call>\n{"name": "read_transcript", "arguments": {"from": 1, "to": 40}}\n</tool_call>' } },
      { reply: { content: `<tool_call>\n${JSON.stringify({ name: 'write_summary', arguments: { content: summary } })}\n</tool_call>` } },
      { reply: { content: 'Done.' } },
    );
    const outcome = await run();
    expect(outcome.status, outcome.error).toBe('done');
    expect(server.modelRequests().every(offersTools)).toBe(true);
    expect(server.modelRequests()).toHaveLength(3);
    // The second request carries the first answer back as a structured call, paired with its result.
    const messages = (server.modelRequests()[1]!.body as { messages: { role: string; tool_calls?: { id: string; function: { name: string } }[]; tool_call_id?: string }[] }).messages;
    const asked = messages.find((m) => m.role === 'assistant' && m.tool_calls);
    expect(asked?.tool_calls?.[0]?.function.name).toBe('read_transcript');
    expect(messages.find((m) => m.role === 'tool')?.tool_call_id).toBe(asked?.tool_calls?.[0]?.id);
    expect(parseNote(await read(SUMMARY)).body).toBe(`${summary}\n`);
    expect(await read(CONTEXT)).not.toContain('Made without tools');
  });

  it('a model that calls tools: one conversation with its tools, never the tool-less request', async () => {
    const { run } = setup();
    server.script(
      { reply: { toolCalls: [{ name: 'write_summary', arguments: { content: '## Summary\nHi.\n\n## Decisions\nNone.\n\n## Next steps\nNone.' } }] } },
      { reply: { content: 'Done.' } },
    );
    expect((await run()).status).toBe('done');
    expect(server.modelRequests().every(offersTools)).toBe(true);
  });
});
