import { afterEach, describe, expect, it } from 'vitest';
import { summarizeMeeting } from '../../src/meeting/pipeline.js';
import { createRuntime } from '../../src/runtime.js';
import { parseNote } from '../../src/vault/format/frontmatter.js';
import { bundledConfig } from '../helpers/bundled-config.js';
import { capturedLogger } from '../helpers/captured-log.js';
import { memoryFs } from '../helpers/memfs.js';
import { type RecordedRequest, type ScriptedServer, type Step, startScriptedServer } from '../helpers/scripted-server.js';
import { requestAsConversation, type ServerEmulation } from '../helpers/server-kinds.js';
import { transcriptLines } from '../helpers/long-meeting.js';
import { readerOnServer } from '../helpers/reader-model.js';

/**
 * Issue 12, end to end: the real pipeline, runtime, context manager and openai client against
 * a scripted server that behaves like Ollama, llama.cpp's server, LM Studio or vLLM at the
 * edge of its window (test/helpers/server-kinds.ts), with a model that reads the transcript
 * where the tool results tell it to and then writes the summary.
 */

const MEETING = 'Meetings/2026-11-30 Release Review.md';
const TRANSCRIPT = 'Meetings/Transcripts/2026-11-30 Release Review.md';
const SUMMARY = 'Meetings/Summaries/2026-11-30 Release Review.md';
const MODEL = 'qwen3:8b';

const WORDS = 'release budget rollout owner Friday migration staging customer invoice dashboard backlog incident pager review'.split(' ');

/** `count` speech lines of about 14 words each, after a 4-line frontmatter. */
function transcript(count: number): { text: string; lines: number } {
  const speakers = ['Alice', 'Bob', 'Carol'];
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    const said = Array.from({ length: 12 }, (_, k) => WORDS[(i * 7 + k * 3) % WORDS.length]).join(' ');
    const t = i * 5;
    out.push(`[${String(Math.floor(t / 60)).padStart(2, '0')}:${String(t % 60).padStart(2, '0')}] ${speakers[i % 3]}: About the ${said}, line ${i + 1}.`);
  }
  return { text: `---\nmeeting: "[[Meetings/2026-11-30 Release Review]]"\nstate: finished\n---\n${out.join('\n')}\n`, lines: count + 4 };
}

function vault(text: string): Record<string, string> {
  return {
    [MEETING]:
      '---\ntitle: Release Review\nstart_time: 2026-11-30T09:00:00+01:00\nend_time: 2026-11-30T10:00:00+01:00\n' +
      'attendees: [Alice, Bob, Carol]\ntranscript: "[[Meetings/Transcripts/2026-11-30 Release Review]]"\n---\nShip date?\n',
    [TRANSCRIPT]: text,
  };
}

const isMain = (req: RecordedRequest) => requestAsConversation(req.kind === 'chat' ? 'chat' : 'responses', req.body).tools.length > 0;

/**
 * A careful small model: reads the transcript in ranges of `per` lines (whole when `per` is
 * undefined), following a cut result's "starting with from: N", until every line was seen;
 * then writes the summary. A prompt the server cut gets garbage that must never be used.
 */
function readingModel(per?: number) {
  const seen = new Set<number>();
  let total = Infinity;
  let summarized = false;
  const step: Step = {
    handler: (req) => {
      if (!isMain(req)) return { reply: { content: 'Notes: the transcript was read up to line ' + seen.size + '.' } };
      if (req.admission?.kind === 'cut') {
        return { reply: { toolCalls: [{ name: 'write_summary', arguments: { content: 'GARBAGE FROM A TRUNCATED PROMPT' } }] } };
      }
      const conv = requestAsConversation(req.kind === 'chat' ? 'chat' : 'responses', req.body);
      const last = conv.messages.at(-1);
      if (last?.role === 'tool') {
        const header = /\(lines \d+-\d+ of (\d+)\)/.exec(last.content);
        if (header) total = Number(header[1]);
        for (const m of last.content.matchAll(/^\s*(\d+)\t/gm)) seen.add(Number(m[1]));
      }
      let next = 1;
      while (seen.has(next)) next++;
      if (next <= total) {
        const args = per === undefined && next === 1 ? {} : { from: next, to: next + (per ?? 200) - 1 };
        return { reply: { toolCalls: [{ name: 'read_transcript', arguments: args }] } };
      }
      if (!summarized) {
        summarized = true;
        return { reply: { toolCalls: [{ name: 'write_summary', arguments: { content: '## Summary\nRelease review.\n## Decisions\nNone.\n## Next steps\n- Alice: ship by Friday\n' } }] } };
      }
      return { reply: { content: 'Done.' } };
    },
  };
  return { step, seen: () => seen, total: () => total };
}

const servers: ScriptedServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

async function run(emulate: ServerEmulation, transcriptLines: number, options: { per?: number; config?: Record<string, unknown> } = {}) {
  const server = await startScriptedServer({ models: [MODEL], emulate, compactFallback: { status: 404, body: { error: { message: 'Not found' } } } });
  servers.push(server);
  const model = readingModel(options.per);
  server.setFallback(model.step);
  const { text, lines } = transcript(transcriptLines);
  const config = bundledConfig(server.baseUrl, options.config);
  const { log, lines: logLines } = capturedLogger();
  const runtime = await createRuntime(config, { fs: memoryFs(vault(text)), log });
  const summaryWrites: string[] = [];
  runtime.vault.onWrite((file, content) => {
    if (file === runtime.vault.abs(SUMMARY)) summaryWrites.push(content);
  });
  const outcome = await summarizeMeeting(runtime.pipeline, runtime.vault.abs(MEETING));
  const main = server.modelRequests().filter(isMain);
  const overflows = server.emulated!.overflows;
  return { server, model, outcome, lines, runtime, logLines, summaryWrites, main, overflows };
}

async function expectSummarized(result: Awaited<ReturnType<typeof run>>) {
  expect(result.outcome.status, result.outcome.error).toBe('done');
  for (const content of result.summaryWrites) expect(content).not.toContain('GARBAGE');
  const note = parseNote(await result.runtime.vault.read(result.runtime.vault.abs(SUMMARY)));
  expect(note.data.status).toBe('done');
  // Every transcript line reached the model.
  expect(result.model.total()).toBe(result.lines);
  for (let n = 1; n <= result.lines; n++) expect(result.model.seen().has(n), `line ${n}`).toBe(true);
}

/** A 3-hour meeting (1,500 lines) summarized with the bundled config by the scripted reader behind an emulated server. */
async function threeHourMeeting(emulate: ServerEmulation) {
  const server = await startScriptedServer({ models: [MODEL], emulate, compactFallback: { status: 404, body: { error: { message: 'Not found' } } } });
  servers.push(server);
  const speech = transcriptLines(32_300);
  const { reader, step } = readerOnServer({ first: 5, last: 4 + speech.length });
  server.setFallback(step);
  const files = vault(`---\nmeeting: "[[Meetings/2026-11-30 Release Review]]"\nstate: finished\n---\n${speech.join('\n')}\n`);
  const { log, lines: logLines } = capturedLogger();
  const runtime = await createRuntime(bundledConfig(server.baseUrl), { fs: memoryFs(files), log });
  const outcome = await summarizeMeeting(runtime.pipeline, runtime.vault.abs(MEETING));
  return { server, outcome, reader, speech, logLines };
}

describe('the bundled default config (qwen3:8b, 32768) behind Ollama keeping 4,096 and saying so only through /api/ps', () => {
  it('loads the model to learn its window, sizes every request for it, and summarizes a short meeting with no cut request', async () => {
    const result = await run({ kind: 'ollama', window: 4096, loaded: false }, 60);
    await expectSummarized(result);
    expect(result.overflows.filter((o) => o.kind === 'cut').length).toBeLessThanOrEqual(1);
    expect(result.overflows).toHaveLength(0);
    expect(result.server.requests.some((r) => r.path === '/api/generate')).toBe(true);
    // A meeting without projects or past summaries is offered neither; the set never changes in a run.
    const toolNames = result.main.map((r) => requestAsConversation('chat', r.body).tools.map((t) => t.name).join(','));
    expect(new Set(toolNames).size).toBe(1);
    expect(toolNames[0]).not.toMatch(/list_projects|search|list_past_project_meetings/);
    expect(toolNames[0]).toMatch(/read_transcript/);
    // The output reserve follows the window: a quarter of 4,096.
    for (const req of result.main) expect((req.body as { max_tokens: number }).max_tokens).toBeLessThanOrEqual(1024);
    const warning = result.logLines.find((l) => l.level === 'warn' && /context window of 4096/.test(String(l.msg)));
    expect(warning?.msg).toMatch(/OLLAMA_CONTEXT_LENGTH=32768/);
    expect(result.logLines.filter((l) => l.level === 'warn' && /context window of 4096/.test(String(l.msg)))).toHaveLength(1);
  });

  it('summarizes a 3-hour meeting (1,500 lines) with no cut request, every line reaching the model before the summary (issue 12 with issue 13)', async () => {
    const { server, outcome, reader, speech } = await threeHourMeeting({ kind: 'ollama', window: 4096, loaded: false });
    expect(outcome.status, outcome.error).toBe('done');
    expect(server.emulated!.overflows).toHaveLength(0);
    expect(reader.linesReached()).toBe(speech.length);
    expect(reader.stats.everyLineBeforeSummary).toBe(true);
    expect(reader.stats.requests).toBeLessThanOrEqual(60);
    for (const req of server.modelRequests()) expect(req.admission?.kind, 'every request fits the 4,096 window').toBe('fits');
  });

  it('without /api/ps context_length (an older Ollama): a 3-hour meeting (1,500 lines) is done in at most 60 requests, every line reaching the model before the summary', async () => {
    const { server, outcome, reader, speech, logLines } = await threeHourMeeting({ kind: 'ollama', window: 4096, tellsWindow: false });
    expect(outcome.status, outcome.error).toBe('done');
    // The first part, sized for 32,768, is cut to the 2,050 tokens Ollama keeps of 4,096; the
    // window learned is 4,096, not 2,050, so no later request is cut.
    expect(server.emulated!.overflows.map((o) => o.kind)).toEqual(['cut']);
    expect(server.emulated!.overflows[0]).toMatchObject({ promptTokens: 2050 });
    expect(logLines.some((l) => l.level === 'warn' && /Ollama's cut of a 4096-token window/.test(String(l.msg)))).toBe(true);
    expect(reader.linesReached()).toBe(speech.length);
    expect(reader.stats.everyLineBeforeSummary).toBe(true);
    expect(reader.stats.requests).toBeLessThanOrEqual(60);
  });

  it('without /api/ps context_length (an older Ollama): one cut request, its answer never used', async () => {
    const result = await run({ kind: 'ollama', window: 4096, tellsWindow: false }, 120);
    await expectSummarized(result);
    // The first read of the whole transcript overflows the window it did not tell; once cut,
    // every later request fits what the server kept.
    expect(result.overflows.filter((o) => o.kind === 'cut')).toHaveLength(1);
    expect(result.logLines.some((l) => l.level === 'warn' && /silently cut/.test(String(l.msg)))).toBe(true);
  });
});

describe("llama.cpp's server at 8,192 behind a 32,768 config", () => {
  it('told by /props: no refused request', async () => {
    const result = await run({ kind: 'llama.cpp', window: 8192 }, 300, { per: 100 });
    await expectSummarized(result);
    expect(result.overflows).toHaveLength(0);
  });

  it('telling nothing: its exceed_context_size_error teaches the window, at most two refused requests', async () => {
    const result = await run({ kind: 'llama.cpp', window: 8192, tellsWindow: false, tokenRatio: 1.1 }, 300, { per: 100 });
    await expectSummarized(result);
    expect(result.overflows.length).toBeGreaterThan(0);
    expect(result.overflows.length).toBeLessThanOrEqual(2);
  });
});

describe('LM Studio and vLLM', () => {
  it("LM Studio's 200 with an error body teaches the window like a refusal", async () => {
    const result = await run({ kind: 'lm-studio', window: 8192, tellsWindow: false }, 300, { per: 100 });
    await expectSummarized(result);
    expect(result.overflows.length).toBeGreaterThan(0);
    expect(result.overflows.length).toBeLessThanOrEqual(2);
  });

  it('LM Studio telling loaded_context_length, and vLLM telling max_model_len: no refused request', async () => {
    for (const kind of ['lm-studio', 'vllm'] as const) {
      const result = await run({ kind, window: 8192 }, 300, { per: 100 });
      await expectSummarized(result);
      expect(result.overflows, kind).toHaveLength(0);
    }
  });
});

describe('a long transcript in a large window, counted by the server at 0.78× our estimate', () => {
  it('raises no truncation alarm and reads all 1,500 lines whole, in one read_transcript call', async () => {
    const result = await run({ kind: 'ollama', window: 131072, loaded: true, tokenRatio: 0.78 }, 1496, {
      config: { ContextWindow: { Tokens: 131072, MaxOutputTokens: 4096 } },
    });
    await expectSummarized(result);
    expect(result.lines).toBe(1500);
    expect(result.logLines.some((l) => /silently/.test(String(l.msg)))).toBe(false);
    expect(result.overflows).toHaveLength(0);
    // One read of the whole transcript (no range), the summary and the closing answer:
    // nothing discarded, nothing repeated.
    const calls = result.main.flatMap((r) =>
      requestAsConversation('chat', r.body).messages.flatMap((m) => (m.role === 'assistant' ? (m.toolCalls ?? []) : [])),
    );
    const reads = [...new Map(calls.filter((c) => c.name === 'read_transcript').map((c) => [c.id, c.arguments])).values()];
    expect(reads).toEqual(['{}']);
    const result1 = requestAsConversation('chat', result.main[1]!.body).messages.at(-1) as { role: string; content: string };
    expect(result1.role).toBe('tool');
    expect(result1.content).toMatch(/^Meetings\/Transcripts\/2026-11-30 Release Review\.md \(lines 1-1500 of 1500\)\n/);
    expect(result.main).toHaveLength(3);
  });
});
