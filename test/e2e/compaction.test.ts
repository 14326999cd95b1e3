import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { estimateRequestTokens } from '../../src/agent/window/tokens.js';
import type { Message, ToolSchema } from '../../src/agent/types.js';
import { summarizeMeeting } from '../../src/meeting/pipeline.js';
import { createRuntime } from '../../src/runtime.js';
import { parseNote } from '../../src/vault/format/frontmatter.js';
import { capturedLogger } from '../helpers/captured-log.js';
import { memoryFs, testConfig } from '../helpers/memfs.js';
import { type RecordedRequest, type ScriptedServer, type Step, startScriptedServer } from '../helpers/scripted-server.js';
import { requestAsConversation as bodyAsConversation } from '../helpers/server-kinds.js';

/**
 * Long meetings on small windows, end to end: the real pipeline, the real WindowBudget and
 * remote compactor, the real openai client, and a scripted model that reads a 3-hour
 * transcript in ranges as a careful small model would.
 */

const MEETING = 'Meetings/2026-11-30 Quarterly Planning.md';
const TRANSCRIPT = 'Meetings/Transcripts/2026-11-30 Quarterly Planning.md';
const SUMMARY = 'Meetings/Summaries/2026-11-30 Quarterly Planning.md';

const WORDS = (
  'release budget hiring roadmap customer latency migration database dashboard onboarding pricing ' +
  'security audit vendor contract deadline prototype feedback backlog sprint incident review'
).split(' ');

/** About `words` words of plausible meeting speech, one line per utterance, 3 hours of timestamps. */
function generateTranscript(words: number): { text: string; lines: number } {
  const speakers = ['Alice', 'Bob', 'Carol', 'Speaker 4'];
  const lines: string[] = [];
  let written = 0;
  let seed = 7;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648);
  while (written < words) {
    const n = 8 + (next() % 18);
    const said = Array.from({ length: n }, () => WORDS[next() % WORDS.length]).join(' ');
    const t = Math.floor((lines.length * 3 * 3600) / 2400);
    const ts = `${String(Math.floor(t / 3600)).padStart(2, '0')}:${String(Math.floor((t % 3600) / 60)).padStart(2, '0')}:${String(t % 60).padStart(2, '0')}`;
    lines.push(`[${ts}] ${speakers[lines.length % speakers.length]}: We talked about the ${said}.`);
    written += n + 4;
  }
  const header = `---\nmeeting: "[[Meetings/2026-11-30 Quarterly Planning]]"\nstate: finished\n---\n`;
  return { text: header + lines.join('\n') + '\n', lines: lines.length + 4 };
}

function vaultFiles(transcript: string): Record<string, string> {
  return {
    [MEETING]:
      '---\ntitle: Quarterly Planning\nstart_time: 2026-11-30T09:00:00+01:00\nend_time: 2026-11-30T12:00:00+01:00\n' +
      'attendees: [Alice, Bob, Carol]\nprojects: [Alpha]\ntranscript: "[[Meetings/Transcripts/2026-11-30 Quarterly Planning]]"\n---\n',
    [TRANSCRIPT]: transcript,
    'Projects/Alpha/Overview.md': '# Alpha\n',
  };
}

/** The request as our conversation model, back from either wire shape, for the tokenizer estimate. */
function requestAsConversation(req: RecordedRequest): { instructions: string; messages: Message[]; tools: ToolSchema[] } {
  return bodyAsConversation(req.kind === 'chat' ? 'chat' : 'responses', req.body);
}

const isMainRequest = (req: RecordedRequest) => Array.isArray((req.body as any)?.tools) && (req.body as any).tools.length > 0;

/**
 * A model that reads the transcript `chunk` lines at a time, keeping its place in its own
 * memory (as a model with notes would), then writes the summary. Requests without tools are
 * the compaction stage asking for a condensed history.
 */
function readingModel(
  totalLines: number,
  chunk: number,
  onMain?: (req: RecordedRequest) => Step | undefined,
  usageOf: (req: RecordedRequest) => { input: number; output: number } | null = () => null,
) {
  let next = 1;
  let summarized = false;
  return {
    step: {
      handler: (req: RecordedRequest): Step => {
        if (!isMainRequest(req)) return { reply: { content: 'Earlier: the transcript was read up to line ' + (next - 1) + '.', usage: null } };
        const special = onMain?.(req);
        if (special) return special;
        if (next <= totalLines) {
          const from = next;
          next += chunk;
          return { reply: { toolCalls: [{ name: 'read_transcript', arguments: { from, to: from + chunk - 1 } }], usage: usageOf(req) } };
        }
        if (!summarized) {
          summarized = true;
          return {
            reply: {
              toolCalls: [{ name: 'write_summary', arguments: { content: '## Summary\nPlanning.\n## Decisions\nNone.\n## Next steps\nNone.\n' } }],
              usage: usageOf(req),
            },
          };
        }
        return { reply: { content: 'Done.', usage: usageOf(req) } };
      },
    } satisfies Step,
    linesRead: () => next - 1,
  };
}

describe.each(['chat-completions', 'responses'] as const)('long meetings on a small window over %s', (api) => {
  let server: ScriptedServer;
  beforeEach(async () => {
    server = await startScriptedServer({ compactFallback: { status: 404, body: { error: { message: 'Not found' } } } });
  });
  afterEach(async () => {
    await server.close();
  });

  it('summarizes a 3-hour transcript with ContextWindow.Tokens 8192, no request over the budget', async () => {
    const transcript = generateTranscript(30_000);
    const config = testConfig({
      Endpoint: { BaseUrl: server.baseUrl, Model: 'test-model', Api: api },
      ContextWindow: { Tokens: 8192, MaxOutputTokens: 1024 },
      Reconnect: { Attempts: 0 },
    });
    const { log, lines } = capturedLogger();
    const runtime = await createRuntime(config, { fs: memoryFs(vaultFiles(transcript.text)), log });
    const model = readingModel(transcript.lines, 120);
    server.setFallback(model.step);

    const outcome = await summarizeMeeting(runtime.pipeline, runtime.vault.abs(MEETING));
    expect(outcome.status, outcome.error).toBe('done');
    expect(model.linesRead()).toBeGreaterThanOrEqual(transcript.lines);
    expect(parseNote(await runtime.vault.read(runtime.vault.abs(SUMMARY))).data.status).toBe('done');

    const budget = 8192 - 1024;
    const main = server.modelRequests().filter(isMainRequest);
    expect(main.length).toBeGreaterThan(transcript.lines / 120);
    for (const req of main) {
      expect(estimateRequestTokens(requestAsConversation(req))).toBeLessThanOrEqual(budget);
    }
    // Compaction really happened, and the remote endpoint that answered 404 was asked once only.
    expect(lines.some((l) => l.msg === 'compaction stage')).toBe(true);
    expect(server.requests.filter((r) => r.kind === 'compact')).toHaveLength(1);
  });

  it('shortens a whole-transcript read to fit the window, telling the model how to read the rest', async () => {
    const transcript = generateTranscript(30_000);
    const config = testConfig({
      Endpoint: { BaseUrl: server.baseUrl, Model: 'test-model', Api: api },
      ContextWindow: { Tokens: 8192, MaxOutputTokens: 1024 },
      Reconnect: { Attempts: 0 },
    });
    const runtime = await createRuntime(config, { fs: memoryFs(vaultFiles(transcript.text)), log: capturedLogger().log });
    const main: Step[] = [
      { reply: { toolCalls: [{ name: 'read_transcript', arguments: {} }], usage: null } },
      {
        reply: {
          toolCalls: [{ name: 'write_summary', arguments: { content: '## Summary\nx\n## Decisions\nNone.\n## Next steps\nNone.\n' } }],
          usage: null,
        },
      },
      { reply: { content: 'Done.', usage: null } },
    ];
    // Requests without tools read the transcript into notes first (it does not fit the window).
    server.setFallback({
      handler: (req) => (isMainRequest(req) ? main.shift()! : { reply: { content: '- notes of this part', usage: null } }),
    });
    const outcome = await summarizeMeeting(runtime.pipeline, runtime.vault.abs(MEETING));
    expect(outcome.status, outcome.error).toBe('done');
    const second = server.modelRequests().filter(isMainRequest)[1]!;
    expect(estimateRequestTokens(requestAsConversation(second))).toBeLessThanOrEqual(8192 - 1024);
    const result = requestAsConversation(second).messages.at(-1)!;
    expect(result.role).toBe('tool');
    expect((result as { content: string }).content).toMatch(/from/);
    expect((result as { content: string }).content.length).toBeLessThan(transcript.text.length / 4);
  });

  it('detects a server that silently truncates the prompt, never acts on its answer, compacts to the observed window, and completes', async () => {
    // Like Ollama with an 8,192 window that it does not tell (an old version: no context_length
    // in /api/ps) while ContextWindow.Tokens says 32768: a longer prompt is cut to its first 4
    // tokens plus the tail without an error, and only the usage shows it (the kept tokens).
    // Its tokenizer counts a little more than ours.
    const ollama = await startScriptedServer({
      compactFallback: { status: 404, body: { error: { message: 'Not found' } } },
      emulate: { kind: 'ollama', window: 8192, tokenRatio: 1.05, tellsWindow: false },
    });
    try {
      // Short enough that the agent reads it directly (no notes pre-pass): the cut must reach the main loop.
      const transcript = generateTranscript(9_000);
      const config = testConfig({
        Endpoint: { BaseUrl: ollama.baseUrl, Model: 'test-model', Api: api },
        ContextWindow: { Tokens: 32768, MaxOutputTokens: 2048 },
        Reconnect: { Attempts: 0 },
      });
      const { log, lines } = capturedLogger();
      const runtime = await createRuntime(config, { fs: memoryFs(vaultFiles(transcript.text)), log });
      const summaryWrites: string[] = [];
      runtime.vault.onWrite((file, content) => {
        if (file === runtime.vault.abs(SUMMARY)) summaryWrites.push(content);
      });
      const model = readingModel(transcript.lines, 100, (req) =>
        req.admission?.kind === 'cut'
          ? // What a model answers about a conversation it only saw the end of: must never be used.
            { reply: { toolCalls: [{ name: 'write_summary', arguments: { content: 'GARBAGE FROM A TRUNCATED PROMPT' } }] } }
          : undefined,
      );
      ollama.setFallback(model.step);

      const outcome = await summarizeMeeting(runtime.pipeline, runtime.vault.abs(MEETING));
      expect(outcome.status, outcome.error).toBe('done');
      const cut = ollama.modelRequests().filter((r) => r.admission?.kind === 'cut' && isMainRequest(r));
      expect(cut.length).toBeGreaterThan(0);
      expect(summaryWrites.length).toBeGreaterThan(0);
      for (const content of summaryWrites) expect(content).not.toContain('GARBAGE');
      expect(parseNote(await runtime.vault.read(runtime.vault.abs(SUMMARY))).data.status).toBe('done');
      const warning = lines.find((l) => l.level === 'warn' && /silently/.test(String(l.msg)));
      expect(warning?.msg).toMatch(/num_ctx|OLLAMA_CONTEXT_LENGTH/);
      expect(lines.some((l) => /trusted/.test(String(l.msg)))).toBe(true);
      // Once the smaller window was seen, every later request fit it: one cut request only.
      expect(cut).toHaveLength(1);
      expect(model.linesRead()).toBeGreaterThanOrEqual(transcript.lines);
    } finally {
      await ollama.close();
    }
  });
});
