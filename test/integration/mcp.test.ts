import { spawn } from 'node:child_process';
import { appendFileSync, mkdtempSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN } from '../helpers/daemon-process.js';
import { snapshot } from '../helpers/tree-snapshot.js';
import { BROKEN, KICKOFF, PLANNING, REVIEW, SYNC, UNDATED, writeMcpVault } from './mcp-vault.js';

/**
 * `meeting-assistant mcp` (docs/design.md §10) as an MCP client sees it: the real CLI in a
 * child process, spoken to over stdio by the SDK's own client.
 */

let dir: string;
let vault: string;
let configPath: string;
/** The runaway pattern's short search limit, in a session of its own (see 'answers bad arguments'). */
let shortLimitConfig: string;

interface Session {
  client: Client;
  stderr: () => string;
  call(name: string, args?: Record<string, unknown>): Promise<{ text: string; isError: boolean }>;
  close(): Promise<void>;
}

async function startSession(config = configPath): Promise<Session> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', '--config', config], stderr: 'pipe', cwd: dir });
  let stderr = '';
  transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const client = new Client({ name: 'test', version: '1.0.0' });
  await client.connect(transport);
  return {
    client,
    stderr: () => stderr,
    async call(name, args = {}) {
      const result = await client.callTool({ name, arguments: args });
      const content = result.content as { type: string; text: string }[];
      return { text: content.map((c) => c.text).join('\n'), isError: result.isError === true };
    },
    close: () => client.close(),
  };
}

async function ok(s: Session, name: string, args: Record<string, unknown> = {}): Promise<string> {
  const r = await s.call(name, args);
  expect(r.isError, r.text).toBe(false);
  return r.text;
}

/** Poll `check` until it holds, or fail at the deadline. */
async function until(check: () => Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

function parsed<T>(text: string): T {
  return JSON.parse(text) as T;
}

interface Listed {
  total: number;
  shown: number;
  meetings: { start_time: string | null; title: string; projects: string[]; attendees: string[]; summary_status: string; meeting: string; summary: string | null }[];
}

interface Items {
  total: number;
  items: { status: string; owner: string | null; due: string | null; text: string; meeting: string; date: string; summary: string; line: number }[];
}

beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'ma-mcp-'));
  vault = path.join(dir, 'vault');
  writeMcpVault(vault);
  configPath = path.join(dir, 'config.json');
  writeFileSync(configPath, JSON.stringify({ MeetingAssistant: { VaultPath: vault } }));
  shortLimitConfig = path.join(dir, 'config-short.json');
  writeFileSync(shortLimitConfig, JSON.stringify({ MeetingAssistant: { VaultPath: vault, Agent: { SearchTimeoutSeconds: 1 } } }));
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('meeting-assistant mcp', () => {
  let s: Session;
  let before: Map<string, string>;

  beforeAll(async () => {
    before = snapshot(vault);
    s = await startSession();
  });

  afterAll(async () => {
    await s?.close();
  });

  it('lists the four tools with a schema whose every argument is described', async () => {
    const { tools } = await s.client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['list_action_items', 'list_meetings', 'read_meeting', 'search_meetings']);
    for (const tool of tools) {
      expect(tool.description!.length).toBeGreaterThan(20);
      expect(tool.annotations?.readOnlyHint).toBe(true);
      const props = tool.inputSchema.properties as Record<string, { description?: string }>;
      for (const [name, prop] of Object.entries(props)) expect(prop.description, `${tool.name}.${name}`).toBeTruthy();
    }
    const read = tools.find((t) => t.name === 'read_meeting')!;
    expect(read.inputSchema.required).toEqual(['meeting']);
    expect((read.inputSchema.properties as Record<string, { enum?: string[] }>).part!.enum).toEqual(['summary', 'transcript', 'notes']);
  });

  it('list_meetings: newest first (undated last), with summary status and paths', async () => {
    const list = parsed<Listed>(await ok(s, 'list_meetings'));
    expect(list.meetings.map((m) => m.title)).toEqual(['Planning', 'Sync', 'Broken run', 'Budget review', 'Kickoff', 'Undated chat']);
    expect(list.total).toBe(6);
    const byTitle = new Map(list.meetings.map((m) => [m.title, m]));
    expect(byTitle.get('Kickoff')).toEqual({
      start_time: '2026-11-02T09:00:00+01:00',
      title: 'Kickoff',
      projects: ['Alpha'],
      attendees: ['Alice', 'Bob'],
      summary_status: 'done',
      meeting: `Meetings/${KICKOFF}.md`,
      summary: `Meetings/Summaries/${KICKOFF}.md`,
    });
    expect(byTitle.get('Broken run')!.summary_status).toBe('failed');
    expect(byTitle.get('Planning')).toMatchObject({ meeting: `Meetings/Team A/${PLANNING}.md`, summary_status: 'none', summary: null });
    expect(byTitle.get('Undated chat')).toMatchObject({ start_time: null, meeting: `Meetings/${UNDATED}.md` });
  });

  it('list_meetings: dates (as written, inclusive), project, attendee and limit filter', async () => {
    const titles = async (args: Record<string, unknown>) => parsed<Listed>(await ok(s, 'list_meetings', args)).meetings.map((m) => m.title);
    expect(await titles({ from: '2026-11-16', to: '2026-11-30' })).toEqual(['Sync', 'Broken run', 'Budget review']);
    // 23:30 in New York on the 30th is the 1st in UTC: a date compares as written, an instant as an instant.
    expect(await titles({ from: '2026-11-30', to: '2026-11-30' })).toEqual(['Sync']);
    expect(await titles({ from: '2026-12-01T00:00:00Z', to: '2026-12-01T23:59:59Z' })).toEqual(['Sync']);
    expect(await titles({ project: 'alpha' })).toEqual(['Sync', 'Broken run', 'Kickoff']);
    expect(await titles({ attendee: 'carol' })).toEqual(['Budget review']);
    expect(await titles({ attendee: 'Alice', project: 'Beta' })).toEqual(['Budget review']);
    const limited = parsed<Listed>(await ok(s, 'list_meetings', { limit: 2 }));
    expect(limited).toMatchObject({ total: 6, shown: 2 });
    expect(limited.meetings.map((m) => m.title)).toEqual(['Planning', 'Sync']);
  });

  it('read_meeting: the summary by default, the transcript, the notes; by path, [[link]] or the summary; line ranges', async () => {
    const summary = await ok(s, 'read_meeting', { meeting: `Meetings/${KICKOFF}` });
    expect(summary.split('\n')[0]).toBe(`Meetings/Summaries/${KICKOFF}.md (lines 1-14 of 14)`);
    expect(summary).toContain('    13\t- [ ] Alice: send the draft 📅 2026-11-10');
    const transcript = await ok(s, 'read_meeting', { meeting: `[[Meetings/Summaries/${KICKOFF}]]`, part: 'transcript' });
    expect(transcript.split('\n')).toEqual([
      `Meetings/Transcripts/${KICKOFF}.md (lines 1-6 of 6)`,
      '     1\t---',
      `     2\tmeeting: "[[Meetings/${KICKOFF}]]"`,
      '     3\tstate: finished',
      '     4\t---',
      '     5\t[00:00:05] Alice: Good morning.',
      '     6\t[00:00:12] Bob: The release is in December.',
    ]);
    const notes = await ok(s, 'read_meeting', { meeting: `[[${KICKOFF}]]`, part: 'notes' });
    expect(notes.split('\n')).toEqual([`Meetings/${KICKOFF}.md (lines 1-2 of 2)`, '     1\tAlice wants the release early.', '     2\tBudget open.']);
    const range = await ok(s, 'read_meeting', { meeting: `Meetings/Summaries/${SYNC}.md`, from: 8, to: 9 });
    expect(range.split('\n')).toEqual([`Meetings/Summaries/${SYNC}.md (lines 8-9 of 14)`, '     8\t## Summary', '     9\tThe release moved.']);
    const pending = await s.call('read_meeting', { meeting: `Meetings/Team A/${PLANNING}.md` });
    expect(pending).toMatchObject({ isError: true });
    expect(pending.text).toMatch(/has no summary.*does not exist/);
    expect(await ok(s, 'read_meeting', { meeting: `Meetings/Team A/${PLANNING}.md`, part: 'transcript' })).toContain('release party');
  });

  it('search_meetings: summaries by default, newest meetings first, never failure reports or other notes', async () => {
    const text = await ok(s, 'search_meetings', { query: '(?i)release' });
    const lines = text.split('\n');
    expect(lines[0]).toBe('6 matching lines in 3 summaries and 0 transcripts, newest meetings first:');
    expect(lines.slice(1)).toEqual([
      `Meetings/Summaries/${SYNC}.md:9:The release moved.`,
      `Meetings/Summaries/${SYNC}.md:11:- Release on Friday.`,
      `Meetings/Summaries/${SYNC}.md:13:- Bob: ship the release (by 2026-12-05)`,
      `Meetings/Summaries/${REVIEW}.md:9:The budget, no release talk.`,
      `Meetings/Summaries/${KICKOFF}.md:9:We planned the release of Alpha.`,
      `Meetings/Summaries/${KICKOFF}.md:11:- Release in December.`,
    ]);
    // Case-sensitive without (?i).
    expect(await ok(s, 'search_meetings', { query: 'Release' })).toMatch(/^2 matching lines in/);
  });

  it('search_meetings: transcripts, all, projects, dates and the limit', async () => {
    const transcripts = (await ok(s, 'search_meetings', { query: 'release', in: 'transcripts' })).split('\n');
    expect(transcripts.slice(1).map((l) => l.split(':')[0])).toEqual([
      `Meetings/Transcripts/${PLANNING}.md`,
      `Meetings/Transcripts/${SYNC}.md`,
      `Meetings/Transcripts/${SYNC}.md`,
      `Meetings/Transcripts/${BROKEN}.md`,
      `Meetings/Transcripts/${KICKOFF}.md`,
    ]);
    const all = (await ok(s, 'search_meetings', { query: 'release', in: 'all', projects: ['beta'], from: '2026-11-30' })).split('\n');
    expect(all).toEqual([
      '4 matching lines in 1 summaries and 1 transcripts, newest meetings first:',
      `Meetings/Summaries/${SYNC}.md:9:The release moved.`,
      `Meetings/Summaries/${SYNC}.md:13:- Bob: ship the release (by 2026-12-05)`,
      `Meetings/Transcripts/${SYNC}.md:5:[00:00:03] Bob: The release moves to Friday.`,
      `Meetings/Transcripts/${SYNC}.md:6:[00:00:09] Bob: release notes too.`,
    ]);
    const limited = (await ok(s, 'search_meetings', { query: '(?i)release', limit: 2 })).split('\n');
    expect(limited).toHaveLength(4);
    expect(limited[3]).toBe('… 4 more matches not shown (limit 2); narrow the query, the dates or the projects.');
    expect(await ok(s, 'search_meetings', { query: 'zebra' })).toBe('No matches in 3 summaries and 0 transcripts.');
  });

  it('list_action_items: open by default, done, owner, project and due date, newest meetings first, every task format', async () => {
    const open = parsed<Items>(await ok(s, 'list_action_items'));
    expect(open.items).toEqual([
      { status: 'open', owner: 'Bob', due: '2026-12-05', text: 'ship the release', meeting: 'Sync', date: '2026-11-30T23:30:00-05:00', summary: `Meetings/Summaries/${SYNC}.md`, line: 13 },
      { status: 'open', owner: 'Carol', due: '2026-11-30', text: 'draft the budget', meeting: 'Budget review', date: '2026-11-16T14:00:00Z', summary: `Meetings/Summaries/${REVIEW}.md`, line: 11 },
      { status: 'open', owner: 'Alice', due: '2026-11-10', text: 'send the draft', meeting: 'Kickoff', date: '2026-11-02T09:00:00+01:00', summary: `Meetings/Summaries/${KICKOFF}.md`, line: 13 },
    ]);
    const texts = async (args: Record<string, unknown>) => parsed<Items>(await ok(s, 'list_action_items', args)).items.map((i) => i.text);
    expect(await texts({ status: 'done' })).toEqual(['write the notes', 'review the numbers', 'book the room']);
    expect(await texts({ status: 'all', owner: 'alice' })).toEqual(['write the notes', 'review the numbers', 'send the draft']);
    expect(await texts({ project: 'BETA' })).toEqual(['ship the release', 'draft the budget']);
    expect(await texts({ due_before: '2026-11-30' })).toEqual(['draft the budget', 'send the draft']);
    expect(await texts({ owner: 'Dan', status: 'all' })).toEqual([]);
  });

  it('answers bad arguments with tool errors and keeps serving', async () => {
    const bad: [string, Record<string, unknown>, RegExp][] = [
      ['search_meetings', { query: '(unclosed' }, /^Error: invalid regular expression/],
      ['search_meetings', { query: 'x', in: 'projects' }, /in/],
      ['read_meeting', { meeting: '../outside.md' }, /contains "\.\."/],
      ['read_meeting', { meeting: '/etc/passwd' }, /outside the vault/],
      ['read_meeting', { meeting: 'Meetings/No such meeting' }, /no meeting note or summary/],
      ['read_meeting', { meeting: 'Private/secret.md' }, /not a meeting note, a summary or a transcript/],
      ['read_meeting', { meeting: `Meetings/${UNDATED}.md`, part: 'minutes' }, /part/],
      ['list_meetings', { from: 'last week' }, /from must be an ISO date/],
      // Date.parse rolls these over into March; a day the month does not have is refused.
      ['list_meetings', { from: '2026-02-31' }, /from must be an ISO date/],
      ['search_meetings', { query: 'x', to: '2026-02-30T10:00:00Z' }, /to must be an ISO date/],
      ['list_meetings', { from: '2026-12-01', to: '2026-11-01' }, /from \(2026-12-01\) is after to \(2026-11-01\)/],
      ['search_meetings', { query: 'x', from: '2026-12-01T10:00:00Z', to: '2026-12-01T09:00:00Z' }, /is after to/],
      ['list_meetings', { limit: 501 }, /limit/],
      ['list_action_items', { status: 'pending' }, /status/],
      ['list_action_items', { due_before: '31/12/2026' }, /due_before must be an ISO date/],
      ['no_such_tool', {}, /not found/],
    ];
    for (const [name, args, message] of bad) {
      const r = await s.call(name, args);
      expect(r.isError, `${name} ${JSON.stringify(args)}: ${r.text}`).toBe(true);
      expect(r.text).toMatch(message);
    }
    expect(parsed<Listed>(await ok(s, 'list_meetings')).total).toBe(6);
    expect(s.stderr()).toMatch(/tool call refused/);
    // Only the runaway pattern runs under a 1 s limit: every other search gets the default,
    // since starting the search workers and reading the vault can take longer than 1 s by
    // itself on a loaded machine.
    const short = await startSession(shortLimitConfig);
    try {
      const r = await short.call('search_meetings', { query: '^(a+)+$', in: 'transcripts' });
      expect(r.isError, r.text).toBe(true);
      expect(r.text).toMatch(/stopped \(Agent\.SearchTimeoutSeconds\)/);
      expect(parsed<Listed>(await ok(short, 'list_meetings')).total).toBe(6);
    } finally {
      await short.close();
    }
  });

  it('leaves every byte of the vault as it was, and creates nothing (no state folder, no token)', async () => {
    await s.close();
    expect(snapshot(vault)).toEqual(before);
  });
});

describe('meeting-assistant mcp, while others write the vault', () => {
  it('sees a changed summary, a new meeting and a deleted one at the next call, even with the old mtime set back', async () => {
    const s = await startSession();
    try {
      expect(parsed<Items>(await ok(s, 'list_action_items', { owner: 'Erin' })).items).toEqual([]);
      const file = path.join(vault, 'Meetings', 'Summaries', `${REVIEW}.md`);
      const { atime, mtime } = statSync(file);
      appendFileSync(file, '- [ ] Erin: order the cake 📅 2026-12-01\n');
      // A sync tool that writes new bytes and sets the old modification time back.
      utimesSync(file, atime, mtime);
      // The server's watcher reports the change: the next calls see it (polled, the event is asynchronous).
      const erin = async () => parsed<Items>(await ok(s, 'list_action_items', { owner: 'Erin' })).items.map((i) => i.text);
      await until(async () => (await erin()).length > 0, 'the changed summary to be seen');
      expect(await erin()).toEqual(['order the cake']);
      writeFileSync(path.join(vault, 'Meetings', '2026-12-24 Party.md'), '---\ntitle: Party\nstart_time: 2026-12-24T18:00:00+01:00\nattendees: [Erin]\n---\n');
      rmSync(path.join(vault, 'Meetings', `${UNDATED}.md`));
      const titles = async () => parsed<Listed>(await ok(s, 'list_meetings')).meetings.map((m) => m.title);
      await until(async () => (await titles())[0] === 'Party' && !(await titles()).includes('Undated chat'), 'the new and the deleted meeting to be seen');
      expect(await titles()).not.toContain('Undated chat');
      expect(await ok(s, 'search_meetings', { query: 'cake' })).toContain(`Meetings/Summaries/${REVIEW}.md:13:- [ ] Erin: order the cake`);
    } finally {
      await s.close();
    }
  });
});

describe('meeting-assistant mcp on stdout', () => {
  it('writes nothing but JSON-RPC messages to stdout, its log to stderr', async () => {
    const child = spawn(process.execPath, [BIN, 'mcp', '--config', configPath], { cwd: dir, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const send = (msg: object) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...msg })}\n`);
    send({ id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
    send({ method: 'notifications/initialized' });
    send({ id: 2, method: 'tools/list' });
    send({ id: 3, method: 'tools/call', params: { name: 'search_meetings', arguments: { query: '(' } } });
    send({ id: 4, method: 'tools/call', params: { name: 'list_meetings', arguments: {} } });
    const deadline = Date.now() + 15_000;
    while (!stdout.includes('"id":4') && Date.now() < deadline) await new Promise((r) => child.stdout.once('data', r));
    child.stdin.end();
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).toBe(0);
    const lines = stdout.split('\n').filter((l) => l !== '');
    expect(lines).toHaveLength(4);
    for (const line of lines) expect(JSON.parse(line)).toMatchObject({ jsonrpc: '2.0' });
    expect(lines.map((l) => (JSON.parse(l) as { id: number }).id)).toEqual([1, 2, 3, 4]);
    expect(stderr).toMatch(/MCP server ready on stdio/);
  });
});

describe('meeting-assistant mcp, a call the client cancels', () => {
  it('stops the search, logs a cancellation (no failure) and answers the next call', async () => {
    const slowConfig = path.join(dir, 'config-slow.json');
    writeFileSync(slowConfig, JSON.stringify({ MeetingAssistant: { VaultPath: vault, Agent: { SearchTimeoutSeconds: 60 } } }));
    const child = spawn(process.execPath, [BIN, 'mcp', '--config', slowConfig], { cwd: dir, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    const send = (msg: object) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...msg })}\n`);
    send({ id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
    send({ method: 'notifications/initialized' });
    // Backtracks for far longer than the test: only the cancellation ends it.
    send({ id: 2, method: 'tools/call', params: { name: 'search_meetings', arguments: { query: '^(a+)+$', in: 'transcripts' } } });
    send({ method: 'notifications/cancelled', params: { requestId: 2, reason: 'the person stopped it' } });
    send({ id: 3, method: 'tools/call', params: { name: 'list_meetings', arguments: {} } });
    await until(async () => stdout.includes('"id":3') && stderr.includes('cancelled by the client'), 'the cancellation and the next answer');
    child.stdin.end();
    expect(await exited).toBe(0);
    expect(stderr).not.toMatch(/tool call failed|AbortError/);
    expect(stdout).not.toContain('"id":2');
  });
});
