import { afterAll, beforeAll, expect, it } from 'vitest';
import { summarizeMeeting } from '../../src/meeting/pipeline.js';
import { parseNote } from '../../src/vault/format/frontmatter.js';
import { Vault } from '../../src/vault/files/vault.js';
import { memoryFs, testConfig } from '../helpers/memfs.js';
import { meetingNote, transcriptNote } from '../helpers/notes.js';
import { pipelineDeps } from '../helpers/pipeline-deps.js';
import { type ScriptedServer, startScriptedServer } from '../helpers/scripted-server.js';

let server: ScriptedServer;
beforeAll(async () => {
  server = await startScriptedServer();
});
afterAll(async () => {
  await server.close();
});

it("a meeting note without end_time: the context note gets start_time plus the transcript's last stamp, in start_time's format", async () => {
  const config = testConfig({ Endpoint: { BaseUrl: server.baseUrl, Model: 'test-model', TimeoutSeconds: 60 } });
  const vault = new Vault(
    memoryFs({ 'Meetings/Sync.md': meetingNote('Sync'), 'Meetings/Transcripts/Sync.md': transcriptNote('Sync', 'finished') }),
    config.layout,
  );
  // The run happens hours later, in UTC: neither its time nor its format may leak into end_time.
  const deps = pipelineDeps(vault, config, '2026-12-02T18:30:00.123Z');
  server.script({ reply: { toolCalls: [{ name: 'write_summary', arguments: { content: '## Summary\nok\n## Decisions\n- none\n## Next steps\n- none\n' } }] } }, { reply: { content: 'Done.' } });
  expect((await summarizeMeeting(deps, vault.abs('Meetings/Sync.md'))).status).toBe('done');
  const context = parseNote(await vault.read(vault.abs('Meetings/Context/Sync.md'))).data;
  expect(context.start_time).toBe('2026-11-30T09:00:00+01:00');
  expect(context.end_time).toBe('2026-11-30T09:00:12+01:00');
});

it('a new meeting’s context note is written once before the first model request, already summarizing with its end time', async () => {
  const config = testConfig({ Endpoint: { BaseUrl: server.baseUrl, Model: 'test-model', TimeoutSeconds: 60 } });
  const vault = new Vault(
    memoryFs({ 'Meetings/Sync.md': meetingNote('Sync'), 'Meetings/Transcripts/Sync.md': transcriptNote('Sync', 'finished') }),
    config.layout,
  );
  const contextPath = vault.abs('Meetings/Context/Sync.md');
  const writes: string[] = [];
  vault.onWrite((p, content) => {
    if (p === contextPath) writes.push(content);
  });
  let atFirstRequest: string[] | undefined;
  server.script(
    { handler: () => ((atFirstRequest = [...writes]), { reply: { toolCalls: [{ name: 'write_summary', arguments: { content: '## Summary\nok\n## Decisions\n- none\n## Next steps\n- none\n' } }] } }) },
    { reply: { content: 'Done.' } },
  );
  expect((await summarizeMeeting(pipelineDeps(vault, config, '2026-12-02T18:30:00.123Z'), vault.abs('Meetings/Sync.md'))).status).toBe('done');
  expect(atFirstRequest).toHaveLength(1);
  expect(parseNote(atFirstRequest![0]!).data).toMatchObject({ state: 'summarizing', end_time: '2026-11-30T09:00:12+01:00' });
});
