import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { estimateRequestTokens } from '../../../src/agent/window/tokens.js';
import { summarizeMeeting } from '../../../src/meeting/pipeline.js';
import { createRuntime } from '../../../src/runtime.js';
import { parseNote } from '../../../src/vault/format/frontmatter.js';
import { transcriptLines } from '../../helpers/long-meeting.js';
import { capturedLogger } from '../../helpers/captured-log.js';
import { memoryFs, testConfig } from '../../helpers/memfs.js';
import { readerOnServer } from '../../helpers/reader-model.js';
import { refusingTools } from '../../helpers/refusing-server.js';
import { errorBody, type ScriptedServer, startScriptedServer } from '../../helpers/scripted-server.js';
import { requestAsConversation } from '../../helpers/server-kinds.js';

/**
 * docs/design.md §3 step 11: without tools too, "it works at every window of 4,096 tokens or
 * more": a 3-hour meeting on a server that refuses tools, every transcript line read (through
 * the notes of §3 step 9), every request within the window, and a summary written.
 */

const NAME = '2026-11-30 Quarterly Planning';
const MEETING = `Meetings/${NAME}.md`;
const SUMMARY = `Meetings/Summaries/${NAME}.md`;
const CONTEXT = `Meetings/Context/${NAME}.md`;
const HEADER_LINES = 4;
const ANSWER = '## Summary\nThe team planned the quarter.\n\n## Decisions\n- Ship billing behind a flag.\n\n## Next steps\n- [ ] Alice Martin: send the rollback plan 📅 2026-12-04';

function vaultFiles(lines: string[]): Record<string, string> {
  return {
    [MEETING]:
      '---\ntitle: Quarterly Planning\nstart_time: 2026-11-30T09:00:00+01:00\nend_time: 2026-11-30T12:00:00+01:00\n' +
      `attendees: [Alice Martin, Bob Chen]\nprojects: [Alpha]\ntranscript: "[[Meetings/Transcripts/${NAME}]]"\n` +
      `context: "[[Meetings/Context/${NAME}]]"\nsummary: "[[Meetings/Summaries/${NAME}]]"\n---\n- Alice's own notes: budget is tight.\n`,
    [`Meetings/Transcripts/${NAME}.md`]: `---\nmeeting: "[[Meetings/${NAME}]]"\nstate: finished\n---\n${lines.join('\n')}\n`,
    'Meetings/Glossary.md': Array.from({ length: 300 }, (_, i) => `- Term ${i}: the spelling of term number ${i}`).join('\n'),
    'Projects/Alpha/Overview.md': '# Alpha\n',
  };
}

describe.each(['chat-completions', 'responses'] as const)('a 3-hour meeting without tools at 4,096 tokens over %s', (api) => {
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

  it('reads every line into notes and writes the summary; no request over the window', async () => {
    const config = testConfig({ Endpoint: { BaseUrl: server.baseUrl, Model: 'gemma3:4b', Api: api }, ContextWindow: { Tokens: 4096 }, Reconnect: { Attempts: 0 } });
    const { log } = capturedLogger();
    const runtime = await createRuntime(config, { fs: memoryFs(vaultFiles(speech)), log });
    const { reader, step } = readerOnServer({ first, last, scale: 1.1 });
    const sizes: number[] = [];
    let summaryRequest: string | undefined;
    server.setFallback(
      refusingTools('ollama', async (req) => {
        const conv = requestAsConversation(req.kind === 'chat' ? 'chat' : 'responses', req.body);
        sizes.push(estimateRequestTokens(conv));
        if (!conv.instructions.includes('You have no tools')) return 'handler' in step ? step.handler(req) : step;
        summaryRequest = conv.messages.map((m) => ('content' in m ? m.content : '')).join('\n');
        return { reply: { content: `<think>The notes cover the meeting.</think>${ANSWER}`, usage: { input: sizes.at(-1)!, output: 60 } } };
      }),
    );

    const outcome = await summarizeMeeting(runtime.pipeline, runtime.vault.abs(MEETING));
    expect(outcome.status, outcome.error).toBe('done');
    expect(reader.linesReached()).toBe(speech.length);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(4096);

    // The summary request holds the notes of every line, in order, and the user's notes and some of the glossary.
    const ranges = [...summaryRequest!.matchAll(/^### Lines (\d+)–(\d+)$/gm)].map((m) => [Number(m[1]), Number(m[2])] as const);
    expect(ranges[0]![0]).toBe(first);
    expect(ranges.at(-1)![1]).toBe(last);
    for (let i = 1; i < ranges.length; i++) expect(ranges[i]![0]).toBe(ranges[i - 1]![1] + 1);
    expect(summaryRequest).toContain("Alice's own notes: budget is tight.");
    expect(summaryRequest).toContain('- Term 0: the spelling');
    expect(summaryRequest).toMatch(/more lines not shown/);

    const summary = parseNote(await runtime.vault.read(runtime.vault.abs(SUMMARY)));
    expect(summary.data).toMatchObject({ status: 'done', title: 'Quarterly Planning', action_items: 1 });
    expect(summary.body.trim()).toBe(ANSWER);
    const context = parseNote(await runtime.vault.read(runtime.vault.abs(CONTEXT))).body;
    expect(context).toMatch(/notes of the transcript read in \d+ parts/);
    expect(context).toContain('## Transcript notes');
  });

  it('a model that answers only in text: the notes the agent was given are reused, no part is read twice', async () => {
    const config = testConfig({ Endpoint: { BaseUrl: server.baseUrl, Model: 'tiny', Api: api }, ContextWindow: { Tokens: 4096 }, Reconnect: { Attempts: 0 } });
    const { log } = capturedLogger();
    const runtime = await createRuntime(config, { fs: memoryFs(vaultFiles(speech)), log });
    const { reader, step } = readerOnServer({ first, last, scale: 1.1 });
    const partRequests: string[] = [];
    server.setFallback({
      handler: async (req) => {
        const conv = requestAsConversation(req.kind === 'chat' ? 'chat' : 'responses', req.body);
        const text = conv.messages.map((m) => ('content' in m ? m.content : '')).join('\n');
        const part = /Write the notes of lines (\d+-\d+)/.exec(text);
        if (part) partRequests.push(part[1]!);
        if (conv.tools.length > 0) return { reply: { content: 'The meeting was about the quarter.' } };
        if (conv.instructions.includes('You have no tools')) return { reply: { content: ANSWER } };
        return 'handler' in step ? step.handler(req) : step;
      },
    });
    const outcome = await summarizeMeeting(runtime.pipeline, runtime.vault.abs(MEETING));
    expect(outcome.status, outcome.error).toBe('done');
    expect(reader.linesReached()).toBe(speech.length);
    expect(partRequests.length).toBeGreaterThan(3);
    expect(new Set(partRequests).size).toBe(partRequests.length);
    expect(parseNote(await runtime.vault.read(runtime.vault.abs(CONTEXT))).body).toContain('answered in text without calling any of the tools');
  });
});
