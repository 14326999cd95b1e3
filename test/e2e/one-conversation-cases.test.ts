import { afterEach, describe, expect, it } from 'vitest';
import { summarizeMeeting } from '../../src/meeting/pipeline.js';
import { createRuntime, type Runtime } from '../../src/runtime.js';
import { parseNote } from '../../src/vault/format/frontmatter.js';
import type { Fs } from '../../src/vault/files/fs.js';
import { offeredTools } from '../../src/tools/offered-tools.js';
import { allToolsVault, MEETING, PROJECT_FILE, SUMMARY } from '../helpers/all-tools-meeting.mjs';
import { bundledConfig } from '../helpers/bundled-config.js';
import { capturedLogger, type LogLine } from '../helpers/captured-log.js';
import { memoryFs, VAULT_ROOT } from '../helpers/memfs.js';
import { transcriptLines } from '../helpers/long-meeting-text.mjs';
import { type PlannedCall, type PlannedModelOptions, plannedModel } from '../helpers/planned-model.js';
import {
  conversationItems,
  errorBody,
  lastToolResults,
  type RecordedRequest,
  type ScriptedServer,
  startScriptedServer,
  toolCallsSoFar,
  toolNamesOf,
} from '../helpers/scripted-server.js';

/**
 * Four cases issue 31 could not check while the project and history tools were in a phase of
 * their own; in one conversation with every offered tool (docs/design.md §3 step 9) they are the
 * agent's to meet. The meeting with everything (two projects, past summaries, an identity: all
 * nineteen tools) with a short transcript, the bundled configuration (32,768 tokens), the real
 * pipeline, runtime and openai client against the scripted server over loopback.
 */

const ALL_TOOLS = offeredTools({ projects: true, past: true, identities: true }).map((t) => t.name);
const SUMMARY_BODY = '## Summary\nThe billing release and its pricing.\n\n## Decisions\n- Ship behind a feature flag.\n\n## Next steps\n- Alice Martin: rollback plan.';
const APPENDED = '- 2026-11-30: the billing release ships behind a feature flag (Alice Martin).';
const WRITE_SUMMARY: PlannedCall = { name: 'write_summary', args: { content: SUMMARY_BODY } };
const UPDATE_PROJECT: PlannedCall = { name: 'write_projectfile', args: { project: 'Alpha', path: 'Overview.md', content: APPENDED }, afterSummary: true };

const servers: ScriptedServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

interface MeetingRun {
  server: ScriptedServer;
  runtime: Runtime;
  fs: Fs;
  outcome: Awaited<ReturnType<typeof summarizeMeeting>>;
  logLines: LogLine[];
  /** The answer to the `index`-th planned call, as the request after it carried it. */
  resultOf(index: number): string;
}

/** The meeting with everything at 32,768 tokens, `plan` its model's calls; `config` overrides the bundled settings. */
async function runMeeting(options: {
  plan: PlannedCall[];
  files?: Record<string, string>;
  config?: (server: ScriptedServer) => Record<string, unknown>;
  model?: (fs: Fs) => PlannedModelOptions;
  before?: (server: ScriptedServer, runtime: Runtime) => void;
}): Promise<MeetingRun> {
  const server = await startScriptedServer({ models: ['qwen3:8b'] });
  servers.push(server);
  const fs = memoryFs({ ...allToolsVault(transcriptLines(1_500)), ...options.files });
  server.setFallback(plannedModel(options.plan, options.model?.(fs)).step);
  const { log, lines } = capturedLogger();
  const runtime = await createRuntime(bundledConfig(server.baseUrl, options.config?.(server)), { fs, log });
  options.before?.(server, runtime);
  const outcome = await summarizeMeeting(runtime.pipeline, runtime.vault.abs(MEETING));
  const resultOf = (index: number) => {
    const after = server.modelRequests().find((req) => toolCallsSoFar(req).length === index + 1 && lastToolResults(req).length > 0);
    expect(after, `the request after planned call ${index}`).toBeDefined();
    return lastToolResults(after!)[0]!.output;
  };
  return { server, runtime, fs, outcome, logLines: lines, resultOf };
}

/** Done, its summary written, every model request with the same nineteen tools, and logged as one conversation. */
async function expectOneConversation(run: MeetingRun): Promise<void> {
  expect(run.outcome.status, run.outcome.error).toBe('done');
  const summary = parseNote(await run.runtime.vault.read(run.runtime.vault.abs(SUMMARY)));
  expect(summary.data.status).toBe('done');
  expect(summary.body).toContain('Ship behind a feature flag.');
  const requests = run.server.modelRequests();
  expect(requests.length).toBeGreaterThan(2);
  for (const req of requests) expect(toolNamesOf(req)).toEqual(ALL_TOOLS);
  const shapes = run.logLines.filter((l) => /-token window: /.test(String(l.msg)));
  expect(shapes.map((l) => l.msg)).toEqual([expect.stringMatching(/^32,768-token window: one conversation with all 19 offered tools \(/)]);
}

describe('one conversation with every offered tool: the cases issue 31 could not check', () => {
  it("a search after a sync tool wrote a project file and set its mtime back finds the file's new text", async () => {
    // Same length, same inode, mtime restored (utimes), as Obsidian Sync leaves a file it
    // rewrote: only the change time moves (src/vault/files/file-version.ts).
    const file = `${VAULT_ROOT}/${PROJECT_FILE}`;
    const OLD = 'usage-based pricing in Q3.';
    const NEW = 'volume-tier pricing in Q4.';
    expect(NEW.length).toBe(OLD.length);
    let before: Awaited<ReturnType<Fs['stat']>> | undefined;
    let after: Awaited<ReturnType<Fs['stat']>> | undefined;
    const plan: PlannedCall[] = [
      { name: 'search', args: { keywords: ['(?i)pricing'] } },
      { name: 'search', args: { keywords: ['(?i)volume-tier'] } },
      { name: 'read_transcript', args: {} },
      WRITE_SUMMARY,
    ];
    const syncTool = (fs: Fs): PlannedModelOptions => ({
      // Between the two searches, while the model "thinks": the first search holds the old text.
      beforeCall: async (_call, index) => {
        if (index !== 1) return;
        before = await fs.stat(file);
        // A change time in another millisecond than the cached one (memfs counts in ms).
        while (Date.now() <= before.ctimeMs) await new Promise<void>((resolve) => setImmediate(resolve));
        const text = new TextDecoder().decode(await fs.readFile(file));
        expect(text).toContain(OLD);
        await fs.writeFile(file, text.replace(OLD, NEW));
        const mtime = new Date(before.mtimeMs);
        await (fs as unknown as { utimes(f: string, a: Date, m: Date): Promise<void> }).utimes(file, mtime, mtime);
        after = await fs.stat(file);
      },
    });
    const run = await runMeeting({ plan, model: syncTool });
    await expectOneConversation(run);

    expect(after).toMatchObject({ mtimeMs: before!.mtimeMs, size: before!.size, ino: before!.ino });
    expect(after!.ctimeMs).not.toBe(before!.ctimeMs);
    expect(run.resultOf(0)).toContain(`${PROJECT_FILE}:6:- 2026-11-23: ${OLD}`);
    expect(run.resultOf(1)).toContain(`${PROJECT_FILE}:6:- 2026-11-23: ${NEW}`);
    expect(run.resultOf(1)).not.toMatch(/^No matches/);
  });

  it("list_past_project_meetings does not list sync tools' conflict copies of past summaries as meetings", async () => {
    const past = (title: string) =>
      `---\nstatus: done\ntitle: ${title}\nmeeting: "[[Meetings/2026-11-01 Weekly]]"\nprojects:\n- Alpha\nstart_time: 2026-11-01T09:00:00+01:00\n---\n## Summary\n${title}.\n`;
    const COPIES = [
      // Syncthing, Dropbox, Obsidian Sync (src/vault/files/sync-files.ts).
      'Meetings/Summaries/2026-11-01 Weekly.sync-conflict-20261101-101010-ABCDEFG.md',
      "Meetings/Summaries/2026-11-01 Weekly (Ann's conflicted copy 2026-11-01).md",
      'Meetings/Summaries/2026-11-01 Weekly (Conflicted copy 2026-11-01 101010).md',
    ];
    const files: Record<string, string> = { 'Meetings/Summaries/2026-11-01 Weekly.md': past('Weekly') };
    for (const copy of COPIES) files[copy] = past('Weekly, a copy');
    const plan: PlannedCall[] = [{ name: 'list_past_project_meetings', args: {} }, { name: 'read_transcript', args: {} }, WRITE_SUMMARY];
    const run = await runMeeting({ plan, files });
    await expectOneConversation(run);

    const listed = run.resultOf(0);
    // The meeting's two projects have three past summaries: Alpha's two, Beta's one.
    expect(listed).toMatch(/^Past meetings of Alpha, Beta: page 1 of 1 \(3 summaries, newest first\)\n/);
    expect(listed.split('\n').slice(1)).toEqual([
      'Meetings/Summaries/2026-11-24 Beta sync.md | (no title) | 2026-11-24T09:00:00+01:00 | Beta',
      'Meetings/Summaries/2026-11-23 Alpha sync.md | (no title) | 2026-11-23T09:00:00+01:00 | Alpha',
      'Meetings/Summaries/2026-11-01 Weekly.md | Weekly | 2026-11-01T09:00:00+01:00 | Alpha',
    ]);
    for (const copy of COPIES) expect(listed).not.toContain(copy);
    expect(listed).not.toContain('a copy');
  });

  it('over the Responses API with remote compaction, a model that reads three project files first: compacted once, the same tools in every request', async () => {
    // Three project files of some 8,000 tokens each: the first two reads leave the conversation
    // under the compaction threshold of the 32,768 window (80 % of 28,672, some 22,900), the
    // third takes it over, and the server's compaction (POST /v1/responses/compact) answers
    // with an opaque item.
    const big = (seed: number) => `# Notes\n\n${transcriptLines(4_400, seed).map((l) => `- ${l}`).join('\n')}\n`;
    const files = { 'Projects/Alpha/History.md': big(11), 'Projects/Alpha/Customers.md': big(12), 'Projects/Beta/Platform.md': big(13) };
    const plan: PlannedCall[] = [
      { name: 'read_projectfile', args: { project: 'Alpha', path: 'History.md' } },
      { name: 'read_projectfile', args: { project: 'Alpha', path: 'Customers.md' } },
      { name: 'read_projectfile', args: { project: 'Beta', path: 'Platform.md' } },
      { name: 'read_transcript', args: {} },
      WRITE_SUMMARY,
      UPDATE_PROJECT,
    ];
    const compactions: RecordedRequest[] = [];
    const run = await runMeeting({
      plan,
      files,
      // The server reports what it was sent (our estimate), as a real one does its own count.
      model: () => ({ usage: 'server' }),
      config: (server) => ({ Endpoint: { BaseUrl: server.baseUrl, Model: 'qwen3:8b', ApiKeyEnvironmentVariable: 'MA_TEST_NO_KEY', Api: 'responses' } }),
      before: (server) =>
        server.setFallback(
          {
            handler: (req) => {
              compactions.push(req);
              const first = conversationItems(req)[0]!;
              return { compaction: { output: [first, { type: 'compaction', id: 'cmp_1', encrypted_content: 'ENCRYPTED-HISTORY' }] } };
            },
          },
          'compact',
        ),
    });
    await expectOneConversation(run);

    expect(run.server.modelRequests().every((req) => req.kind === 'responses')).toBe(true);
    expect(compactions).toHaveLength(1);
    expect(compactions[0]!.path).toBe('/v1/responses/compact');
    expect(run.logLines.filter((l) => l.msg === 'remote compaction')).toHaveLength(1);
    expect(run.logLines.some((l) => l.msg === 'compaction stage')).toBe(false);
    // The three reads were made before the summary; the request after the compaction sends the
    // opaque item back, in place of the history it stands for, and the third read's group after it.
    const requests = run.server.modelRequests();
    const compacted = requests.findIndex((req) => conversationItems(req).some((i) => i.type === 'compaction'));
    expect(compacted).toBeGreaterThan(0);
    expect(toolCallsSoFar(requests[compacted - 1]!).map((c) => c.name)).toEqual(['read_projectfile', 'read_projectfile']);
    const sent = conversationItems(requests[compacted]!);
    expect(sent.find((i) => i.type === 'compaction')).toMatchObject({ encrypted_content: 'ENCRYPTED-HISTORY' });
    expect(toolCallsSoFar(requests[compacted]!).map((c) => c.name)).toEqual(['read_projectfile']);
    for (const req of requests.slice(compacted)) expect(conversationItems(req).some((i) => i.type === 'compaction')).toBe(true);
    expect(toolCallsSoFar(requests.at(-1)!).map((c) => c.name)).toEqual(plan.slice(2).map((p) => p.name));
    expect(await run.runtime.vault.read(run.runtime.vault.abs(PROJECT_FILE))).toContain(APPENDED);
  });

  it('a 429 with Retry-After on the very first turn: retried after the server\'s wait, then one conversation', async () => {
    const waits: number[] = [];
    const plan: PlannedCall[] = [{ name: 'read_projectfile', args: { project: 'Alpha', path: 'Overview.md' } }, { name: 'read_transcript', args: {} }, WRITE_SUMMARY, UPDATE_PROJECT];
    const run = await runMeeting({
      plan,
      config: () => ({ Reconnect: { Attempts: 2, DelaySeconds: 1 } }),
      before: (server, runtime) => {
        server.script({ status: 429, body: errorBody('Rate limit reached for requests', { type: 'requests', code: 'rate_limit_exceeded' }), headers: { 'retry-after': '7' } });
        // docs/design.md §3 step 4: Reconnect.DelaySeconds, or the server's Retry-After when longer.
        runtime.pipeline.sleep = async (ms) => void waits.push(ms);
      },
    });
    await expectOneConversation(run);

    expect(waits).toEqual([7000]);
    const requests = run.server.modelRequests();
    // The refused first turn and its retry, the same request; after them, one conversation.
    const firstTurns = requests.filter((req) => toolCallsSoFar(req).length === 0);
    expect(firstTurns).toHaveLength(2);
    expect(requests.indexOf(firstTurns[1]!)).toBe(1);
    expect(firstTurns[1]!.body).toEqual(firstTurns[0]!.body);
    expect(toolCallsSoFar(requests.at(-1)!).map((c) => c.name)).toEqual(plan.map((p) => p.name));
    expect(run.logLines.some((l) => /attempt 2 of 3 succeeded/.test(String(l.msg)))).toBe(true);
    expect(await run.runtime.vault.read(run.runtime.vault.abs(PROJECT_FILE))).toContain(APPENDED);
  });
});
