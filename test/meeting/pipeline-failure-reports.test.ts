import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { retrySummary, summarizeMeeting } from '../../src/meeting/pipeline.js';
import { parseNote } from '../../src/vault/format/frontmatter.js';
import { Vault } from '../../src/vault/files/vault.js';
import { freePort } from '../helpers/daemon-process.js';
import { memoryFs, testConfig } from '../helpers/memfs.js';
import { contextAndSummaryLinks, meetingNote, transcriptNote } from '../helpers/notes.js';
import { pipelineDeps } from '../helpers/pipeline-deps.js';
import { type ScriptedServer, startScriptedServer } from '../helpers/scripted-server.js';

/** What a failure report tells a person (docs/design.md §1, §2): the cause in plain words and what to do. */

let server: ScriptedServer;
beforeAll(async () => {
  server = await startScriptedServer();
});
afterAll(async () => {
  await server.close();
});

const SUMMARY = 'Meetings/Summaries/Sync.md';

function setup(baseUrl: string, files: Record<string, string> = {}) {
  const config = testConfig({ Endpoint: { BaseUrl: baseUrl, Model: 'tiny-model', TimeoutSeconds: 60 }, Reconnect: { Attempts: 1, DelaySeconds: 0 } });
  const vault = new Vault(
    memoryFs({
      'Meetings/Sync.md': meetingNote('Sync', contextAndSummaryLinks('Sync')),
      'Meetings/Transcripts/Sync.md': transcriptNote('Sync', 'finished'),
      ...files,
    }),
    config.layout,
  );
  const deps = pipelineDeps(vault, config, '2026-12-02T10:04:05Z', { sleep: async () => undefined });
  return { vault, deps, read: (rel: string) => vault.read(vault.abs(rel)) };
}

describe('failure reports', () => {
  it('an endpoint that does not answer (no daemon to wait): the report says it is retried when the endpoint answers again', async () => {
    const { deps, read, vault } = setup(`http://127.0.0.1:${await freePort()}/v1`);
    const outcome = await summarizeMeeting(deps, vault.abs('Meetings/Sync.md'));
    expect(outcome.status).toBe('failed');
    const report = parseNote(await read(SUMMARY));
    expect(report.data.retry_when).toBe('endpoint answers');
    expect(report.body).toContain('This report is retried when the endpoint answers again');
    expect(report.body).toContain('- Attempts: 2');
  });

  it('a failed regeneration of a good summary names where the previous summary was kept and how to put it back', async () => {
    const good = '---\nmeeting: "[[Meetings/Sync]]"\nstatus: done\n---\n## Summary\nThe good one.\n';
    const { deps, read, vault } = setup(server.baseUrl, { [SUMMARY]: good });
    server.script({ status: 400, body: { error: { message: 'model "tiny-model" is not loaded', type: 'invalid_request_error', param: null, code: null } } });
    const outcome = await retrySummary(deps, vault.abs(SUMMARY));
    expect(outcome.status).toBe('failed');
    const report = await read(SUMMARY);
    expect(report).toContain('status: failed');
    expect(report).toContain('The previous summary is kept** in `.trash/Meetings/Summaries/Sync.md`');
    expect(report).toContain('move that file back to `Meetings/Summaries/Sync.md`');
    expect(await read('.trash/Meetings/Summaries/Sync.md')).toBe(good);
    // One copy, not one per check.
    expect((await vault.fs.readdir(vault.abs('.trash/Meetings/Summaries'), { withFileTypes: true })).length).toBe(1);
  });
});
