import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it, onTestFinished } from 'vitest';
import { CliError, EXIT_USAGE } from '../../src/commands/common.js';
import { retry } from '../../src/commands/summarize.js';
import { memoryFs } from '../helpers/memfs.js';
import { memoryIo } from '../helpers/memory-io.js';
import { standInDaemon } from '../helpers/stand-in-daemon.js';
import { answeredHealth, recordLocalDaemon } from '../helpers/local-daemon.js';

/**
 * `retry <meeting note>` (docs/design.md §6): the retry of that meeting's summary note. A
 * running daemon (a stand-in: its record on this machine and its API) is handed the summary note.
 */
async function daemonApi(): Promise<{ url: string; asked: unknown[] }> {
  const asked: unknown[] = [];
  const server = http.createServer((req, res) => {
    if (answeredHealth(req, res, 'secret')) return;
    const json = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      if (req.method === 'POST' && req.url === '/api/retry') {
        asked.push(JSON.parse(body));
        return json(202, { note: 'Meetings/Summaries/Standup.md', result: 'queued', meeting: 'Meetings/Standup.md' });
      }
      const recent = [{ key: 'Meetings/Standup.md', kind: 'retry', target: 'Meetings/Summaries/Standup.md', status: 'done', summaryPath: 'Meetings/Summaries/Standup.md', startedAt: new Date(Date.now() + 60_000).toISOString() }];
      json(200, { queue: { pending: [], running: [], recent } });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, asked };
}

async function setup(files: Record<string, string>, daemon?: Record<string, unknown>) {
  const io = memoryIo();
  const fs = memoryFs({
    '/work/config.json': JSON.stringify({ MeetingAssistant: { VaultPath: '/vault', Http: { Token: 'secret' } } }),
    'Meetings/Standup.md': '---\ntitle: Standup\ntranscript: "[[Meetings/Transcripts/Standup]]"\n---\n',
    'Meetings/Transcripts/Standup.md': '---\nmeeting: "[[Meetings/Standup]]"\nstate: finished\n---\n',
    ...files,
  });
  const env = { XDG_RUNTIME_DIR: '/run/user/test' };
  if (daemon) await recordLocalDaemon(fs, '/vault', daemon, env);
  return { io, deps: { io, fs, env, cwd: '/work', clock: () => new Date() } };
}

describe('retry <meeting note>', () => {
  it('finds the meeting\'s summary note and retries that one', async () => {
    const daemon = await standInDaemon();
    onTestFinished(daemon.stop);
    const api = await daemonApi();
    const { io, deps } = await setup(
      { 'Meetings/Summaries/Standup.md': '---\nmeeting: "[[Meetings/Standup]]"\nstatus: failed\n---\n# Summary failed\n' },
      { pid: daemon.pid, startedAt: 'then', http: api.url },
    );
    expect(await retry('Meetings/Standup.md', {}, deps)).toBe(0);
    expect(api.asked).toEqual([{ note: 'Meetings/Summaries/Standup.md', from: 'cli' }]);
    expect(io.outLines).toContain('summary: Meetings/Summaries/Standup.md');
  });

  it('a meeting without a summary note yet: exit 2, saying to summarize it', async () => {
    const { deps } = await setup({});
    const err = await retry('Standup', {}, deps).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CliError);
    expect((err as CliError).exitCode).toBe(EXIT_USAGE);
    expect((err as CliError).message).toBe(
      'Meetings/Standup.md has no summary note yet (Meetings/Summaries/Standup.md); to make one: meeting-assistant summarize "Meetings/Standup.md"',
    );
  });
});
