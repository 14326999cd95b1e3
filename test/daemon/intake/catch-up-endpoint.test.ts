import { describe, expect, it } from 'vitest';
import { CatchUp } from '../../../src/daemon/intake/catch-up.js';
import { silentLogger } from '../../../src/log.js';
import { memoryFs, testConfig } from '../../helpers/memfs.js';
import { contextAndSummaryLinks, contextNote, meetingNote, transcriptNote } from '../../helpers/notes.js';
import { Vault } from '../../../src/vault/files/vault.js';

/** docs/design.md §2: a failure report an unreachable endpoint caused is never abandoned by catch-up. */

const config = testConfig();
const report = (extra: string) => `---\nmeeting: "[[Meetings/A]]"\nstatus: failed\nretry: false\nfailed_at: 2026-12-02T09:00:00Z\n${extra}---\n# Summary failed: A\n`;

function setup(extra: string, body = '') {
  const vault = new Vault(
    memoryFs({
      'Meetings/A.md': meetingNote('A', contextAndSummaryLinks('A')),
      'Meetings/Transcripts/A.md': transcriptNote('A', 'finished'),
      // The run failed: `error` keeps the transcript's own trigger away.
      'Meetings/Context/A.md': contextNote('A', 'error'),
      'Meetings/Summaries/A.md': report(extra) + body,
    }),
    config.layout,
  );
  return new CatchUp({ vault, settings: config.settings, log: silentLogger, isQueued: () => false });
}

describe('catch-up and failure reports of an unreachable endpoint', () => {
  it('retries one at start, not at every scan, and again once the endpoint answers again', async () => {
    const catchUp = setup('retry_when: endpoint answers\n');
    const first = await catchUp.scan({ startup: true });
    expect(first.jobs).toEqual([{ key: '/vault/Meetings/A.md', kind: 'retry', target: '/vault/Meetings/Summaries/A.md', trigger: 'endpoint' }]);
    expect((await catchUp.scan()).jobs).toEqual([]);
    catchUp.endpointAnswersAgain();
    expect((await catchUp.scan()).jobs.map((j) => j.trigger)).toEqual(['endpoint']);
  });

  it('leaves any other failure report to a person', async () => {
    const catchUp = setup('');
    expect((await catchUp.scan({ startup: true })).jobs).toEqual([]);
  });

  it('knows a report written before retry_when existed by its error section: the endpoint refused the connection', async () => {
    const legacy =
      '\n## Error\n\n- Type: ModelError (network)\n- HTTP status: none (no HTTP response)\n- Attempts: 3\n- Message:\n\n```text\n' +
      'Could not reach the model endpoint http://localhost:11434/v1/chat/completions: fetch failed: connect ECONNREFUSED 127.0.0.1:11434.\n```\n';
    expect((await setup('', legacy).scan({ startup: true })).jobs.map((j) => j.trigger)).toEqual(['endpoint']);
    const http500 = legacy.replace('ModelError (network)', 'ModelError (http)');
    expect((await setup('', http500).scan({ startup: true })).jobs).toEqual([]);
  });
});
