import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunProgress } from '../../src/agent/progress.js';
import { retrySummary, summarizeMeeting } from '../../src/meeting/pipeline.js';
import { createRuntime, type Runtime } from '../../src/runtime.js';
import { parseNote } from '../../src/vault/format/frontmatter.js';
import { resolveMeeting } from '../../src/vault/notes/meeting.js';
import { parseNotesSection } from '../../src/vault/notes/transcript-notes-section.js';
import { createToolBinding, createToolRegistry } from '../../src/tools/registry.js';
import { transcriptLines } from '../helpers/long-meeting.js';
import { capturedLogger } from '../helpers/captured-log.js';
import { memoryFs, testConfig } from '../helpers/memfs.js';
import { readerOnServer } from '../helpers/reader-model.js';
import { errorBody, type ScriptedServer, startScriptedServer } from '../helpers/scripted-server.js';

/**
 * Three-hour meetings on small windows, end to end over both wire APIs: the real pipeline,
 * WindowBudget and openai client, and the scripted reader model behind the scripted server.
 */

const NAME = '2026-11-30 Quarterly Planning';
const MEETING = `Meetings/${NAME}.md`;
const TRANSCRIPT = `Meetings/Transcripts/${NAME}.md`;
const CONTEXT = `Meetings/Context/${NAME}.md`;
const SUMMARY = `Meetings/Summaries/${NAME}.md`;
const HEADER_LINES = 4;
const AUDIT = '## External changes (2026-11-29T10:00:00.000Z)\n\n### Projects/Alpha/Overview.md\n```diff\n@@ -1 +1 @@\n-# Alpha\n+# Alpha project\n```';

function vaultFiles(lines: string[]): Record<string, string> {
  return {
    [MEETING]:
      '---\ntitle: Quarterly Planning\nstart_time: 2026-11-30T09:00:00+01:00\nend_time: 2026-11-30T12:00:00+01:00\n' +
      `attendees: [Alice Martin, Bob Chen]\nprojects: [Alpha]\ntranscript: "[[Meetings/Transcripts/${NAME}]]"\n` +
      `context: "[[Meetings/Context/${NAME}]]"\nsummary: "[[Meetings/Summaries/${NAME}]]"\n---\n`,
    [TRANSCRIPT]: `---\nmeeting: "[[Meetings/${NAME}]]"\nstate: finished\n---\n${lines.join('\n')}\n`,
    // A notebook and the audit of an earlier run: both must survive the notes section.
    [CONTEXT]:
      `---\ntitle: Quarterly Planning\nstart_time: ""\nend_time: ""\nmeeting: "[[Meetings/${NAME}]]"\ntranscript: "[[Meetings/Transcripts/${NAME}]]"\n` +
      `summary: "[[Meetings/Summaries/${NAME}]]"\nstate: summarizing\nagenda: ""\n---\nMy notebook.\n\n${AUDIT}\n`,
    'Projects/Alpha/Overview.md': '# Alpha project\n',
  };
}

async function setup(server: ScriptedServer, api: 'chat-completions' | 'responses', speech: string[], window = 8192) {
  const config = testConfig({
    Endpoint: { BaseUrl: server.baseUrl, Model: 'test-model', Api: api },
    ContextWindow: { Tokens: window, MaxOutputTokens: 1024 },
    Reconnect: { Attempts: 0 },
  });
  const { log, lines } = capturedLogger();
  const runtime = await createRuntime(config, { fs: memoryFs(vaultFiles(speech)), log });
  const progress: RunProgress[] = [];
  runtime.pipeline.onProgress = (_run, event) => progress.push(event);
  return { runtime, logLines: lines, progress };
}

async function contextBody(runtime: Runtime): Promise<string> {
  return parseNote(await runtime.vault.read(runtime.vault.abs(CONTEXT))).body;
}

/** What the agent's read_context returns: its notebook, the daemon's record left out. */
async function readContext(runtime: Runtime): Promise<string> {
  const meeting = await resolveMeeting(runtime.vault, runtime.vault.abs(MEETING));
  const ctx = createToolBinding({ vault: runtime.vault, settings: runtime.config.settings, meeting, maxResultChars: 1_000_000 });
  const result = await createToolRegistry(ctx).call({ id: 'call_1', name: 'read_context', arguments: '{}' });
  expect(result.isError).toBe(false);
  return result.content;
}

const isNotesRequest = (body: unknown) => JSON.stringify(body).includes('Write the notes of lines');

describe.each(['chat-completions', 'responses'] as const)('a 3-hour meeting read into notes over %s', (api) => {
  let server: ScriptedServer;
  const speech = transcriptLines(32_300);
  const first = HEADER_LINES + 1;
  const last = HEADER_LINES + speech.length;

  beforeEach(async () => {
    server = await startScriptedServer({ compactFallback: { status: 404, body: errorBody('Not found') } });
  });
  afterEach(async () => {
    await server.close();
  });

  it('reads the transcript in parts into the context note, then summarizes once every line reached the model', async () => {
    const { runtime, logLines, progress } = await setup(server, api, speech);
    const { reader, step } = readerOnServer({ first, last, scale: 1.1 });
    server.setFallback(step);

    const outcome = await summarizeMeeting(runtime.pipeline, runtime.vault.abs(MEETING));
    expect(outcome.status, outcome.error).toBe('done');
    expect(parseNote(await runtime.vault.read(runtime.vault.abs(SUMMARY))).data.status).toBe('done');
    expect(reader.linesReached()).toBe(speech.length);
    expect(reader.stats.everyLineBeforeSummary).toBe(true);
    expect(reader.stats.requests).toBeLessThanOrEqual(24);
    expect(reader.stats.largest).toBeLessThanOrEqual(8192);

    // The notes are in the context note, part by part with their line ranges, covering every line;
    // the notebook and the earlier audit are still there.
    const body = await contextBody(runtime);
    const section = parseNotesSection(body)!;
    expect(section.parts.length).toBeGreaterThan(3);
    expect(section.parts[0]!.from).toBe(first);
    expect(section.parts.at(-1)!.to).toBe(last);
    for (let i = 1; i < section.parts.length; i++) expect(section.parts[i]!.from).toBe(section.parts[i - 1]!.to + 1);
    expect(section.progress).toMatch(new RegExp(`^Read in ${section.parts.length} parts`));
    expect(body).toContain('My notebook.');
    expect(body).toContain(AUDIT);
    // The first message says the notes are in the notebook: read_context shows every part,
    // after the notebook and before the daemon's record (which it does not show).
    const notebook = await readContext(runtime);
    expect(notebook).toMatch(/^Meetings\/Context\/.*\(lines 1-\d+ of \d+\)\n\s+1\tMy notebook\.\n/);
    expect(notebook).toContain(`\t${section.progress}`);
    for (const part of section.parts) expect(notebook).toContain(`\t### Lines ${part.from}–${part.to}\n`);
    expect(notebook).not.toContain('External changes');
    expect(body.indexOf('## Transcript notes')).toBeLessThan(body.indexOf(AUDIT));

    // Progress: the log and the hook, part k of n with its lines.
    const parts = progress.filter((p) => p.kind === 'transcript-part');
    expect(parts.map((p) => p.part)).toEqual(section.parts.map((_, i) => i + 1));
    expect(parts.at(-1)).toMatchObject({ parts: section.parts.length, to: last });
    expect(logLines.filter((l) => String(l.msg).startsWith('reading the transcript: part'))).toHaveLength(section.parts.length);
    // The agent started from the notes.
    const agentFirst = JSON.stringify(server.modelRequests().find((r) => JSON.stringify(r.body).includes('"read_transcript"'))!.body);
    expect(agentFirst).toContain('it was read for you in');
  });

  it('reuses the parts done when a retry follows a failure in the middle of the parts', async () => {
    const { runtime } = await setup(server, api, speech);
    let notesAnswered = 0;
    let failing = true;
    const { reader, step } = readerOnServer({
      first,
      last,
      fail: (req) => {
        if (!isNotesRequest(req.body)) return undefined;
        if (failing && notesAnswered === 3) return { status: 503, body: errorBody('overloaded', { type: 'server_error' }) };
        notesAnswered++;
        return undefined;
      },
    });
    server.setFallback(step);
    const failed = await summarizeMeeting(runtime.pipeline, runtime.vault.abs(MEETING));
    expect(failed.status).toBe('failed');
    expect(reader.stats.agentRequests).toBe(0);
    const saved = parseNotesSection(await contextBody(runtime))!;
    expect(saved.parts).toHaveLength(3);
    expect(saved.progress).toMatch(/^Reading the transcript: part 4 of \d+/);
    expect(parseNote(await runtime.vault.read(runtime.vault.abs(SUMMARY))).data.status).toBe('failed');

    failing = false;
    const before = notesAnswered;
    const outcome = await retrySummary(runtime.pipeline, runtime.vault.abs(SUMMARY));
    expect(outcome.status, outcome.error).toBe('done');
    const total = parseNotesSection(await contextBody(runtime))!.parts.length;
    // Only the parts not done were read again.
    expect(notesAnswered - before).toBe(total - 3);
    expect(reader.stats.everyLineBeforeSummary).toBe(true);
    expect(await contextBody(runtime)).toContain(AUDIT);

    // Once every part and the condensed notes are there, a retry asks for no notes at all.
    const third = readerOnServer({ first, last });
    server.setFallback(third.step);
    expect((await retrySummary(runtime.pipeline, runtime.vault.abs(SUMMARY))).status).toBe('done');
    expect(third.reader.stats.requests).toBe(third.reader.stats.agentRequests);
    // The lines reached the model in the runs before, as the notes this run starts from.
    expect(third.reader.stats.everyLineBeforeSummary).toBe(false);
  });

  it('behind a server that cuts silently at 4,096 (ContextWindow.Tokens 32,768): every line read into notes, then done', async () => {
    const { runtime } = await setup(server, api, speech, 32_768);
    const { reader, step } = readerOnServer({ first, last, scale: 1.1, serverWindow: 4096 });
    server.setFallback(step);
    const outcome = await summarizeMeeting(runtime.pipeline, runtime.vault.abs(MEETING));
    expect(reader.linesReached()).toBe(speech.length);
    const section = parseNotesSection(await contextBody(runtime))!;
    expect(section.parts.at(-1)!.to).toBe(last);
    // The first part, sized for 32,768, was cut; it was read again in smaller parts.
    expect(reader.stats.cut).toBeGreaterThanOrEqual(1);
    expect(outcome.status, outcome.error).toBe('done');
    expect(reader.stats.everyLineBeforeSummary).toBe(true);
    expect(reader.stats.requests).toBeLessThanOrEqual(60);
  });

  it('lets the agent read a transcript that fits directly, without notes', async () => {
    const short = speech.slice(0, 25);
    const { runtime, progress } = await setup(server, api, short);
    const { reader, step } = readerOnServer({ first, last: HEADER_LINES + short.length });
    server.setFallback(step);
    const outcome = await summarizeMeeting(runtime.pipeline, runtime.vault.abs(MEETING));
    expect(outcome.status, outcome.error).toBe('done');
    expect(reader.stats.requests).toBe(reader.stats.agentRequests);
    expect(reader.stats.requests).toBe(3);
    expect(reader.stats.everyLineBeforeSummary).toBe(true);
    expect(await contextBody(runtime)).not.toContain('## Transcript notes');
    expect(progress.some((p) => p.kind === 'transcript-part')).toBe(false);
  });
});
