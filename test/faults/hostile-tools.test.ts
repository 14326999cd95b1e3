import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countTokens as exactCount } from 'gpt-tokenizer/encoding/cl100k_base';
import { countTokens, truncateToTokens } from '../../src/agent/window/tokens.js';
import { resolveConfig } from '../../src/config.js';
import { silentLogger } from '../../src/log.js';
import { createRuntime } from '../../src/runtime.js';
import { summarizeMeeting } from '../../src/meeting/pipeline.js';
import { createToolBinding, createToolRegistry, type ToolRegistry } from '../../src/tools/registry.js';
import type { ToolBinding } from '../../src/tools/binding/types.js';
import { RunCaches } from '../../src/tools/binding/run-caches.js';
import type { ToolResult } from '../../src/agent/types.js';
import { parseNote } from '../../src/vault/format/frontmatter.js';
import { nodeFs } from '../../src/vault/files/fs.js';
import { Vault } from '../../src/vault/files/vault.js';
import { FaultTally, snapshotDiff, snapshotDir } from '../helpers/faults.js';
import { type DaemonProcess, startDaemonProcess, waitFor } from '../helpers/daemon-process.js';
import { lastToolResults, type ScriptedServer, type Step, startScriptedServer, toolCallsSoFar, toolNamesOf } from '../helpers/scripted-server.js';
import { type DaemonSetup, daemonSetup, daemonTestFile, dataOf, meetingNote, meetingOfRequest, SUMMARY_BODY, transcriptNote } from '../helpers/daemon-helpers.js';

/**
 * Hostile tool calls from the model, on a real temporary vault (real symbolic links) with a
 * folder beside it that nothing may reach: path escapes in every form, symlinks, huge
 * content, absurd line numbers, catastrophic and invalid regular expressions, wrong types,
 * unknown tools, and 1,000 tool calls in one turn. Each is answered with `Error:` or a correct
 * result; nothing outside the vault changes, nothing crashes. Most cases go to the tool
 * registry directly; the 1,000-call turn runs through the pipeline, and a handful through the
 * real daemon.
 */

const tally = new FaultTally('hostile tool calls');

const MEETING = 'Meetings/Hostile.md';
const TRANSCRIPT_LINES = Array.from({ length: 12 }, (_, i) => `[00:00:${String(i).padStart(2, '0')}] Alice: line ${i + 1} about the release.`);

let root: string;
let vaultDir: string;
let outside: string;
let vault: Vault;
let registry: ToolRegistry;
let binding: ToolBinding;
let caches: RunCaches | undefined;
let outsideBefore: Map<string, string>;
let n = 0;

const write = (rel: string, content: string) => {
  const file = path.join(vaultDir, rel);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, content);
};

async function call(name: string, args: Record<string, unknown> | string = {}): Promise<ToolResult> {
  return registry.call({ id: `c${++n}`, name, arguments: typeof args === 'string' ? args : JSON.stringify(args) });
}

beforeAll(async () => {
  root = mkdtempSync(path.join(os.tmpdir(), 'ma-hostile-'));
  vaultDir = path.join(root, 'vault');
  outside = path.join(root, 'outside');
  mkdirSync(outside, { recursive: true });
  writeFileSync(path.join(outside, 'secret.md'), 'the secret outside the vault\n');
  writeFileSync(path.join(outside, 'victim.md'), 'an identity-looking file outside the vault\n');
  write(MEETING, meetingNote('Hostile').replace('projects: [Alpha]', 'projects: [Alpha, Beta]'));
  write('Meetings/Transcripts/Hostile.md', transcriptNote('Hostile', 'finished', TRANSCRIPT_LINES.join('\n') + '\n'));
  write('Meetings/Context/Hostile.md', '---\nstate: summarizing\n---\nnotebook line 1\nnotebook line 2\n');
  write('Meetings/Speakers/Bob.md', 'voice of Bob\n');
  write('Projects/Alpha/notes.md', 'Alpha 1\nAlpha 2\nAlpha 3\n');
  write('Projects/Alpha/backtrack.md', `${'a'.repeat(40)}!\n`);
  write('Projects/Beta/roadmap.md', 'Beta roadmap\n');
  write('Projects/Gamma/secret.md', 'Gamma is not this meeting\'s\n');
  write('Meetings/Summaries/Old.md', '---\ntitle: Old\nstart_time: 2026-11-01T09:00:00+01:00\nprojects: [Alpha]\nstatus: done\n---\n## Summary\nOld release.\n');
  symlinkSync(path.join(outside, 'secret.md'), path.join(vaultDir, 'Projects/Alpha/escape-file.md'));
  symlinkSync(outside, path.join(vaultDir, 'Projects/Alpha/escape-dir'));
  symlinkSync(path.join(outside, 'missing.md'), path.join(vaultDir, 'Projects/Alpha/dangling.md'));
  symlinkSync(path.join(outside, 'victim.md'), path.join(vaultDir, 'Meetings/Speakers/Mallory.md'));
  symlinkSync(path.join(outside, 'secret.md'), path.join(vaultDir, 'Meetings/Summaries/Leak.md'));

  const config = resolveConfig({ MeetingAssistant: { VaultPath: vaultDir, Agent: { SearchTimeoutSeconds: 1 } } });
  vault = new Vault(nodeFs, config.layout);
  const abs = (rel: string) => path.join(vaultDir, rel);
  caches = new RunCaches(vault);
  binding = createToolBinding({
    caches,
    vault,
    settings: config.settings,
    meeting: {
      meetingPath: abs(MEETING),
      transcriptPath: abs('Meetings/Transcripts/Hostile.md'),
      contextPath: abs('Meetings/Context/Hostile.md'),
      summaryPath: abs('Meetings/Summaries/Hostile.md'),
      title: 'Hostile',
      startTime: '2026-11-30T09:00:00+01:00',
      endTime: undefined,
      attendees: ['Alice', 'Bob'],
      projects: ['Alpha', 'Beta'],
    },
    searchTimeoutMs: ROOMY_SEARCH_MS,
  });
  registry = createToolRegistry(binding);
  outsideBefore = snapshotDir(outside);
});

afterAll(async () => {
  caches?.close();
  if (root) rmSync(root, { recursive: true, force: true });
});

type Expect = 'error' | ((r: ToolResult) => void);
interface HostileCase {
  name: string;
  tool: string;
  args: Record<string, unknown> | string;
  expect: Expect;
  /** Refusals must change nothing in the vault; some correct results legitimately write. */
  writes?: boolean;
  /** The search's time limit for this call alone (the runaway pattern's short one). */
  searchTimeoutMs?: number;
}

/**
 * Every search but the runaway one gets a roomy limit: the search after it starts fresh
 * workers and reads the files again, which on a loaded machine can take longer than the
 * runaway's 1 s by itself.
 */
const ROOMY_SEARCH_MS = 30_000;

const header = (r: ToolResult) => r.content.split('\n')[0];
const BIG = 'x'.repeat(79) + '\n';

const CASES: HostileCase[] = [
  // Path escapes in every form
  { name: 'read_projectfile "../Beta/roadmap.md"', tool: 'read_projectfile', args: { project: 'Alpha', path: '../Beta/roadmap.md' }, expect: 'error' },
  { name: 'read_projectfile "../../../outside/secret.md"', tool: 'read_projectfile', args: { project: 'Alpha', path: '../../../outside/secret.md' }, expect: 'error' },
  { name: 'read_projectfile absolute "/etc/passwd"', tool: 'read_projectfile', args: { project: 'Alpha', path: '/etc/passwd' }, expect: 'error' },
  { name: 'read_projectfile a drive letter "C:/Windows/win.ini"', tool: 'read_projectfile', args: { project: 'Alpha', path: 'C:/Windows/win.ini' }, expect: 'error' },
  { name: 'read_projectfile backslashes "..\\\\..\\\\outside"', tool: 'read_projectfile', args: { project: 'Alpha', path: '..\\..\\outside\\secret.md' }, expect: 'error' },
  { name: 'read_projectfile a NUL byte', tool: 'read_projectfile', args: { project: 'Alpha', path: 'notes.md\u0000../../secret.md' }, expect: 'error' },
  { name: 'read_projectfile "~/secret.md"', tool: 'read_projectfile', args: { project: 'Alpha', path: '~/secret.md' }, expect: 'error' },
  { name: 'read_projectfile ".." hidden in the middle', tool: 'read_projectfile', args: { project: 'Alpha', path: 'docs/./../../Beta/roadmap.md' }, expect: 'error' },
  { name: 'read_projectfile URL-encoded dots are only a name', tool: 'read_projectfile', args: { project: 'Alpha', path: '%2e%2e/%2e%2e/outside/secret.md' }, expect: 'error' },
  { name: 'read_projectfile a symlinked file pointing outside', tool: 'read_projectfile', args: { project: 'Alpha', path: 'escape-file.md' }, expect: 'error' },
  { name: 'read_projectfile through a symlinked folder pointing outside', tool: 'read_projectfile', args: { project: 'Alpha', path: 'escape-dir/secret.md' }, expect: 'error' },
  { name: 'write_projectfile "../../../outside/pwned.md"', tool: 'write_projectfile', args: { project: 'Alpha', path: '../../../outside/pwned.md', content: 'pwned' }, expect: 'error' },
  { name: 'write_projectfile through a symlinked folder', tool: 'write_projectfile', args: { project: 'Alpha', path: 'escape-dir/pwned.md', content: 'pwned' }, expect: 'error' },
  { name: 'write_projectfile over a symlink to a file outside', tool: 'write_projectfile', args: { project: 'Alpha', path: 'escape-file.md', content: 'pwned', replace_file: true }, expect: 'error' },
  { name: 'write_projectfile to a dangling symlink', tool: 'write_projectfile', args: { project: 'Alpha', path: 'dangling.md', content: 'pwned' }, expect: 'error' },
  { name: 'write_projectfile an absolute path', tool: 'write_projectfile', args: { project: 'Alpha', path: '/tmp/ma-outside/pwned.md', content: 'pwned' }, expect: 'error' },
  { name: 'write_projectfile a hidden file', tool: 'write_projectfile', args: { project: 'Alpha', path: '.obsidian/workspace.json', content: '{}' }, expect: 'error' },
  { name: 'project "../Beta"', tool: 'read_projectfile', args: { project: '../Beta', path: 'roadmap.md' }, expect: 'error' },
  { name: 'project ".."', tool: 'list_projectfiles', args: { project: '..' }, expect: 'error' },
  { name: 'project "Alpha/../../../outside"', tool: 'write_projectfile', args: { project: 'Alpha/../../../outside', path: 'x.md', content: 'pwned' }, expect: 'error' },
  { name: 'project an absolute path', tool: 'list_projectfiles', args: { project: '/etc' }, expect: 'error' },
  { name: 'project that does not exist', tool: 'write_projectfile', args: { project: 'Nope', path: 'x.md', content: 'x' }, expect: 'error' },
  { name: 'past summary "../../../outside/secret.md"', tool: 'read_past_project_meeting_summary', args: { path: '../../../outside/secret.md' }, expect: 'error' },
  { name: 'past summary as a wikilink out of the vault', tool: 'read_past_project_meeting_summary', args: { path: '[[../../outside/secret]]' }, expect: 'error' },
  { name: 'past summary through a symlink out of the summaries folder', tool: 'read_past_project_meeting_summary', args: { path: 'Meetings/Summaries/Leak.md' }, expect: 'error' },
  { name: 'past summary: the current meeting\'s own summary', tool: 'read_past_project_meeting_summary', args: { path: 'Meetings/Summaries/Hostile.md' }, expect: 'error' },
  { name: 'search in a project not assigned to the meeting', tool: 'search', args: { keywords: ['release'], projects: ['Gamma'] }, expect: 'error' },
  { name: 'search in "../outside"', tool: 'search', args: { keywords: ['secret'], projects: ['../outside'] }, expect: 'error' },
  { name: 'delete_identity "../../../outside/victim"', tool: 'delete_identity', args: { name: '../../../outside/victim' }, expect: 'error' },
  { name: 'delete_identity of a symlink pointing outside', tool: 'delete_identity', args: { name: 'Mallory' }, expect: 'error' },
  { name: 'delete_identity ".."', tool: 'delete_identity', args: { name: '..' }, expect: 'error' },
  // Huge content
  {
    name: 'write_projectfile with 8 MB of content: written whole',
    tool: 'write_projectfile',
    args: { project: 'Alpha', path: 'huge.md', content: BIG.repeat(100_000), replace_file: true },
    writes: true,
    expect: (r) => {
      expect(r.content).toMatch(/^Created Projects\/Alpha\/huge\.md \(100000 lines\)/);
      expect(readFileSync(path.join(vaultDir, 'Projects/Alpha/huge.md'), 'utf8')).toBe(BIG.repeat(100_000));
    },
  },
  {
    name: 'write_summary with 8 MB of content: written whole',
    tool: 'write_summary',
    args: { content: `## Summary\n${BIG.repeat(100_000)}` },
    writes: true,
    expect: (r) => {
      expect(r.content).toMatch(/^Wrote the summary note/);
      expect(parseNote(readFileSync(path.join(vaultDir, 'Meetings/Summaries/Hostile.md'), 'utf8')).body).toBe(`## Summary\n${BIG.repeat(100_000)}`);
    },
  },
  {
    name: 'add_dictation_word with a 1 MB word on one line',
    tool: 'add_dictation_word',
    args: { word: 'w'.repeat(1_000_000) },
    // No name is a megabyte long: a looping model's output is refused, not added to the dictionary.
    expect: 'error',
  },
  { name: 'add_dictation_word with a line break', tool: 'add_dictation_word', args: { word: 'a\nb' }, expect: 'error' },
  // Line numbers: negative, zero, NaN, huge
  { name: 'read_transcript from -5 to 3: clamped', tool: 'read_transcript', args: { from: -5, to: 3 }, expect: (r) => expect(header(r)).toBe('Meetings/Transcripts/Hostile.md (lines 1-3 of 16)') },
  { name: 'read_transcript from 0 to 0: an empty range, no failure', tool: 'read_transcript', args: { from: 0, to: 0 }, expect: (r) => expect(r.content).toMatch(/^Meetings\/Transcripts\/Hostile\.md \(lines 0-0 of 16\): no lines/) },
  { name: 'read_transcript from 1e300: past the end', tool: 'read_transcript', args: '{"from": 1e300}', expect: (r) => expect(r.content).toMatch(/\(lines 0-0 of 16\): no lines in the requested range/) },
  { name: 'read_transcript to 1e999 (Infinity)', tool: 'read_transcript', args: '{"to": 1e999}', expect: 'error' },
  { name: 'read_transcript from "NaN"', tool: 'read_transcript', args: { from: 'NaN' }, expect: 'error' },
  { name: 'read_transcript from 2.5', tool: 'read_transcript', args: { from: 2.5 }, expect: 'error' },
  { name: 'read_transcript to before from: an empty range', tool: 'read_transcript', args: { from: 9, to: 3 }, expect: (r) => expect(r.content).toMatch(/no lines in the requested range 9-3/) },
  { name: 'read_usernotes from -1e15 to 1e15: the whole body', tool: 'read_usernotes', args: { from: -1e15, to: 1e15 }, expect: (r) => expect(header(r)).toBe('Meetings/Hostile.md (lines 1-1 of 1)') },
  { name: 'write_projectfile insert 0', tool: 'write_projectfile', args: { project: 'Alpha', path: 'notes.md', content: 'x', insert: 0 }, expect: 'error' },
  { name: 'write_projectfile insert -1', tool: 'write_projectfile', args: { project: 'Alpha', path: 'notes.md', content: 'x', insert: -1 }, expect: 'error' },
  { name: 'write_projectfile insert 2^53', tool: 'write_projectfile', args: '{"project":"Alpha","path":"notes.md","content":"x","insert":9007199254740993}', expect: 'error' },
  { name: 'write_projectfile range 3-1', tool: 'write_projectfile', args: { project: 'Alpha', path: 'notes.md', content: 'x', from: 3, to: 1 }, expect: 'error' },
  { name: 'write_projectfile range past the end', tool: 'write_projectfile', args: { project: 'Alpha', path: 'notes.md', content: 'x', from: 1, to: 1e9 }, expect: 'error' },
  { name: 'write_context replace from -1', tool: 'write_context', args: { content: 'x', mode: 'replace', from: -1, to: 1 }, expect: 'error' },
  { name: 'write_context insert before line 0', tool: 'write_context', args: { content: 'x', mode: 'insert', line: 0 }, expect: 'error' },
  // Regular expressions
  {
    name: 'search a catastrophic pattern: stopped within the time limit and reported',
    tool: 'search',
    args: { keywords: ['^(a+)+$'] },
    searchTimeoutMs: 1000,
    expect: (r) => expect(r.content).toMatch(/^Error: .*stopped \(Agent\.SearchTimeoutSeconds\)/s),
  },
  { name: 'search an invalid pattern "("', tool: 'search', args: { keywords: ['(unclosed'] }, expect: 'error' },
  { name: 'search an invalid pattern "[z-a]"', tool: 'search', args: { keywords: ['[z-a]'] }, expect: 'error' },
  { name: 'search a trailing backslash', tool: 'search', args: { keywords: ['release\\'] }, expect: 'error' },
  { name: 'search (?i) still works after all that', tool: 'search', args: { keywords: ['(?i)ALPHA 2'] }, expect: (r) => expect(r.content).toContain('Projects/Alpha/notes.md:2:Alpha 2') },
  // Wrong types
  { name: 'arguments that are not JSON', tool: 'read_transcript', args: '{from: 1,', expect: 'error' },
  { name: 'arguments that are an array', tool: 'read_transcript', args: '[1, 2]', expect: 'error' },
  { name: 'arguments that are a bare string', tool: 'read_transcript', args: '"lines 1 to 3"', expect: 'error' },
  { name: 'arguments nested 100,000 deep', tool: 'read_transcript', args: `{"from": ${'['.repeat(100_000)}${']'.repeat(100_000)}}`, expect: 'error' },
  { name: 'from as an object', tool: 'read_transcript', args: { from: { valueOf: 3 } }, expect: 'error' },
  { name: 'write_summary content null', tool: 'write_summary', args: { content: null }, expect: 'error' },
  { name: 'write_summary content an array', tool: 'write_summary', args: { content: ['## Summary'] }, expect: 'error' },
  { name: 'write_projectfile replace_file "yes"', tool: 'write_projectfile', args: { project: 'Alpha', path: 'notes.md', content: 'x', replace_file: 'yes' }, expect: 'error' },
  { name: 'write_context mode "delete-everything"', tool: 'write_context', args: { content: '', mode: 'delete-everything' }, expect: 'error' },
  { name: 'keywords as an object', tool: 'search', args: { keywords: { a: 1 } }, expect: 'error' },
  {
    name: 'a "__proto__" key pollutes nothing',
    tool: 'read_transcript',
    args: '{"__proto__": {"polluted": true}, "from": 1, "to": 1}',
    expect: (r) => {
      expect(header(r)).toBe('Meetings/Transcripts/Hostile.md (lines 1-1 of 16)');
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    },
  },
  // Unknown tools
  { name: 'an unknown tool "rm_rf"', tool: 'rm_rf', args: { path: '/' }, expect: 'error' },
  { name: 'a tool named ""', tool: '', args: {}, expect: 'error' },
  { name: 'a tool named "__proto__"', tool: '__proto__', args: {}, expect: 'error' },
  { name: 'a tool named "constructor"', tool: 'constructor', args: {}, expect: 'error' },
];

describe('fault suite: hostile tool calls (tool registry on a real vault with symbolic links)', () => {
  it.each(CASES.map((c) => [c.name, c] as const))('%s', async (name, c) => {
    await tally.check(name, async () => {
      const before = c.writes ? undefined : snapshotDir(vaultDir);
      binding.searchTimeoutMs = c.searchTimeoutMs ?? ROOMY_SEARCH_MS;
      const result = await call(c.tool, c.args);
      if (c.expect === 'error') {
        expect(result.isError).toBe(true);
        expect(result.content).toMatch(/^Error: /);
      } else {
        c.expect(result);
      }
      if (before) expect(snapshotDiff(before, snapshotDir(vaultDir))).toEqual([]);
      expect(snapshotDiff(outsideBefore, snapshotDir(outside))).toEqual([]);
    });
});
});

/**
 * A turn of 1,000 calls: every refused kind above that is small (a model's turn is not
 * megabytes), over and over, plus harmless reads.
 */
function thousandCalls(): { name: string; arguments: string }[] {
  const small = (c: HostileCase) => (typeof c.args === 'string' ? c.args : JSON.stringify(c.args)).length < 1000;
  const calls = [...CASES.filter((c) => c.expect === 'error' && c.tool !== 'search' && small(c)), { name: 'x', tool: 'read_glossary', args: {}, expect: 'error' as const }];
  return Array.from({ length: 1000 }, (_, i) => {
    const c = calls[i % calls.length]!;
    return { name: c.tool, arguments: typeof c.args === 'string' ? c.args : JSON.stringify(c.args) };
  });
}

describe('degenerate model output in the context estimate', () => {
  it('runs of hundreds of thousands of characters without a space are counted in slices, within a token of each cut', () => {
    expect(countTokens('a'.repeat(200_000))).toBe(25_000);
    expect(countTokens(`${'['.repeat(100_000)}${']'.repeat(100_000)}`)).toBe(100_001);
    const text = `${'word '.repeat(100)}${'x'.repeat(5000)} end`;
    const exact = exactCount(text, { disallowedSpecial: new Set() });
    expect(Math.abs(countTokens(text) - exact)).toBeLessThanOrEqual(Math.ceil(5000 / 256));
    expect(truncateToTokens('a'.repeat(200_000), 100)).toBe('a'.repeat(800));
    expect(truncateToTokens('😀'.repeat(3000), 10)).not.toContain('\ufffd');
  });
});

describe('fault suite: 1,000 tool calls in one turn (pipeline on the real vault)', () => {
  let server: ScriptedServer;
  beforeAll(async () => {
    server = await startScriptedServer();
  });
  afterAll(async () => {
    await server.close();
  });

  it('every call is answered (an Error or a result), the run goes on to a summary, nothing outside changes', async () => {
    await tally.check('1,000 tool calls in one turn', async () => {
      const config = resolveConfig({
        MeetingAssistant: {
          VaultPath: vaultDir,
          Endpoint: { BaseUrl: server.baseUrl, Model: 'test-model', TimeoutSeconds: 10 },
          Reconnect: { Attempts: 0 },
          // A thousand results, even one line each, do not fit 32k tokens; a large window does.
          ContextWindow: { Tokens: 262_144, MaxOutputTokens: 8192 },
        },
      });
      const runtime = await createRuntime(config, { log: silentLogger });
      let answered: ReturnType<typeof lastToolResults> = [];
      let step = 0;
      server.setFallback({
        handler: (): Step => step++ === 0 ? { reply: { toolCalls: thousandCalls() } } : { handler: (req) => {
          if (step === 2) {
            answered = lastToolResults(req);
            return { reply: { toolCalls: [{ name: 'write_summary', arguments: { content: SUMMARY_BODY } }] } };
          }
          return { reply: { content: 'Done.' } };
        } },
      });
      const outcome = await summarizeMeeting(runtime.pipeline, path.join(vaultDir, MEETING));
      expect(outcome.error).toBeUndefined();
      expect(outcome.status).toBe('done');
      expect(answered).toHaveLength(1000);
      const sent = thousandCalls();
      answered.forEach((r, i) => {
        if (sent[i]!.name === 'read_glossary') expect(r.output).toMatch(/^Meetings\/Glossary\.md/);
        else expect(r.output, `${sent[i]!.name} ${sent[i]!.arguments.slice(0, 80)}`).toMatch(/^Error: /);
      });
      expect(snapshotDiff(outsideBefore, snapshotDir(outside))).toEqual([]);
      expect(parseNote(readFileSync(path.join(vaultDir, 'Meetings/Summaries/Hostile.md'), 'utf8')).body).toBe(SUMMARY_BODY);
    });
});
});

describe('fault suite: hostile tool calls through the real daemon', () => {
  const file = daemonTestFile('all');
  let setup: DaemonSetup;
  let daemon: DaemonProcess;
  let outsideDir: string;
  /** Per meeting and phase (one conversation: the summary only; in phases, issue 21: the project files too), the tools offered and the answers. */
  let results = new Map<string, { offered: string[]; answers: ReturnType<typeof lastToolResults> }>();
  let before: Map<string, string>;

  const HOSTILE: Record<string, { name: string; arguments: string }[]> = {
    'Meetings/Escape.md': [
      { name: 'write_projectfile', arguments: JSON.stringify({ project: 'Alpha', path: '../../../outside/pwned.md', content: 'pwned' }) },
      { name: 'write_projectfile', arguments: JSON.stringify({ project: 'Alpha', path: 'link/pwned.md', content: 'pwned' }) },
      { name: 'read_projectfile', arguments: JSON.stringify({ project: 'Alpha', path: 'link/secret.md' }) },
      { name: 'delete_identity', arguments: JSON.stringify({ name: '../../../outside/secret' }) },
      { name: 'read_past_project_meeting_summary', arguments: JSON.stringify({ path: '../outside/secret.md' }) },
    ],
    'Meetings/Garbage.md': [
      { name: 'no_such_tool', arguments: '{}' },
      { name: 'read_transcript', arguments: '{"from": "NaN", ' },
      { name: 'read_transcript', arguments: '[[[[]]]]' },
      { name: 'search', arguments: JSON.stringify({ keywords: ['(?<=x'] }) },
      { name: 'search', arguments: JSON.stringify({ keywords: ['^(a+)+$'] }) },
      // A small model looping on one character: 200,000 of them in one argument, which the
      // context estimate once took half a minute to count, the whole daemon standing still.
      { name: 'add_dictation_word', arguments: JSON.stringify({ word: `${'a'.repeat(200_000)}\n${'['.repeat(100_000)}` }) },
    ],
    'Meetings/Thousand.md': thousandCalls().map((c) => (c.name === 'read_glossary' ? c : { name: 'read_projectfile', arguments: JSON.stringify({ project: 'Alpha', path: '../../x' }) })),
  };

  beforeAll(async () => {
    file.server.setFallback({
      handler: (req): Step => {
        const meeting = meetingOfRequest(req)!;
        const offered = toolNamesOf(req);
        const summaryPhase = offered.includes('write_summary');
        const calls = toolCallsSoFar(req);
        // Every call in both phases: each reaches the tools of the phase that offers it.
        if (calls.length === 0) return { reply: { toolCalls: HOSTILE[meeting]! } };
        if (calls.length === HOSTILE[meeting]!.length) {
          results.set(`${meeting} ${summaryPhase ? 'summary' : 'projects'}`, { offered, answers: lastToolResults(req) });
          if (summaryPhase) return { reply: { toolCalls: [{ name: 'write_summary', arguments: { content: SUMMARY_BODY } }] } };
        }
        return { reply: { content: 'Done.' } };
      },
    });
    setup = await daemonSetup(file.server, { Agent: { SearchTimeoutSeconds: 1 }, Daemon: { MaxConcurrentSummaries: 3 } });
    outsideDir = path.join(setup.dir, 'outside');
    mkdirSync(outsideDir);
    writeFileSync(path.join(outsideDir, 'secret.md'), 'secret\n');
    setup.write('Projects/Alpha/aaa.md', `${'a'.repeat(40)}!\n`);
    symlinkSync(outsideDir, path.join(setup.vault, 'Projects/Alpha/link'));
    for (const meeting of Object.keys(HOSTILE)) {
      const name = path.basename(meeting, '.md');
      setup.write(meeting, meetingNote(name));
      setup.write(`Meetings/Transcripts/${name}.md`, transcriptNote(name, 'finished'));
    }
    before = snapshotDir(outsideDir);
    daemon = await startDaemonProcess({ configPath: setup.configPath });
    await waitFor(
      () => Object.keys(HOSTILE).every((m) => dataOf(setup, m.replace('Meetings/', 'Meetings/Context/'))?.state === 'finished'),
      'the hostile meetings to finish',
      45_000,
    );
});

  it.each(Object.keys(HOSTILE))('%s: every hostile call answered with Error:, the meeting finished, nothing outside touched', async (meeting) => {
    await tally.check(`daemon: ${meeting}`, () => {
      const reached = new Set<number>();
      expect(results.has(`${meeting} summary`)).toBe(true);
      for (const phase of ['summary', 'projects']) {
        if (!results.has(`${meeting} ${phase}`)) continue;
        const { offered, answers } = results.get(`${meeting} ${phase}`)!;
        expect(answers).toHaveLength(HOSTILE[meeting]!.length);
        answers.forEach((r, i) => {
          const call = HOSTILE[meeting]![i]!;
          if (call.name !== 'read_glossary') expect(r.output).toMatch(/^Error: /);
          // Refused by the tool itself where the phase offers it, not for being unknown.
          if (offered.includes(call.name)) {
            reached.add(i);
            expect(r.output).not.toMatch(/no tool named/);
          }
        });
      }
      // Offered in no phase: an unknown tool, and tools with nothing to act on (no identity). The
      // past-summary tools are offered once another of these meetings has its summary, which
      // depends on which of the three concurrent runs finishes first.
      const pastOffered = ['summary', 'projects'].some((phase) => results.get(`${meeting} ${phase}`)?.offered.includes('read_past_project_meeting_summary'));
      const never = ['no_such_tool', 'delete_identity', ...(pastOffered ? [] : ['read_past_project_meeting_summary'])];
      const known = HOSTILE[meeting]!.filter((c) => !never.includes(c.name));
      expect(reached.size).toBe(known.length);
      expect(dataOf(setup, meeting.replace('Meetings/', 'Meetings/Summaries/'))?.status).toBe('done');
      expect(snapshotDiff(before, snapshotDir(outsideDir))).toEqual([]);
    });
  });

  it(`survived every hostile call: ${CASES.length + 4} cases, the daemon still up`, async () => {
    expect(await (await fetch(`http://127.0.0.1:${setup.port}/healthz`)).text()).toBe('ok');
    expect(daemon.logs.filter((l) => l.msg === 'tool failed unexpectedly')).toEqual([]);
    console.log(tally.summary());
    expect(tally.lost).toEqual([]);
    expect(tally.runCount).toBe(CASES.length + 4);
    expect(tally.survivedCount).toBe(CASES.length + 4);
    expect(CASES.length).toBeGreaterThanOrEqual(40);
  });
});
