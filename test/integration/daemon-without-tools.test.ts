import { describe, expect, it } from 'vitest';
import { parseNote } from '../../src/vault/format/frontmatter.js';
import { startDaemonProcess, waitFor } from '../helpers/daemon-process.js';
import { daemonSetup, daemonTestFile, dataOf, editProperty, meetingNote, transcriptNote } from '../helpers/daemon-helpers.js';
import { offersTools, refusingTools } from '../helpers/refusing-server.js';

/**
 * The real daemon against a llama-server started without --jinja (docs/design.md §3 step 11):
 * its 500 is not retried, the meeting is summarized without tools, and the next meeting of the
 * same run process goes without tools at once.
 */

const file = daemonTestFile();
const BODY = '## Summary\nThe team met.\n\n## Decisions\n- Ship on Friday.\n\n## Next steps\n- [ ] Alice: write the release notes';

describe('daemon process: a server that refuses tools', () => {
  it('summarizes without tools, does not retry the 500, and asks the next meeting without tools at once', async () => {
    file.server.setFallback(refusingTools('llama.cpp', { reply: { content: `<think>short</think>${BODY}` } }));
    // Three attempts per request allowed: a refusal must still be one request.
    const s = await daemonSetup(file.server, { Reconnect: { Attempts: 2, DelaySeconds: 0 } });
    for (const name of ['First', 'Second']) {
      s.write(`Meetings/${name}.md`, meetingNote(name));
      s.write(`Meetings/Transcripts/${name}.md`, transcriptNote(name, 'transcribing'));
    }
    const d = await startDaemonProcess({ configPath: s.configPath });
    editProperty(s, 'Meetings/Transcripts/First.md', 'state', 'transcribing', 'finished');
    await waitFor(() => dataOf(s, 'Meetings/Summaries/First.md')?.status === 'done', 'the first summary');
    editProperty(s, 'Meetings/Transcripts/Second.md', 'state', 'transcribing', 'finished');
    await waitFor(() => dataOf(s, 'Meetings/Summaries/Second.md')?.status === 'done', 'the second summary');
    await waitFor(() => dataOf(s, 'Meetings/Context/Second.md')?.state === 'finished', 'the second context note finished');

    expect(file.server.modelRequests().map(offersTools)).toEqual([true, false, false]);
    const summary = parseNote(s.read('Meetings/Summaries/First.md'));
    expect(summary.body).toContain('- Ship on Friday.');
    expect(summary.body).not.toContain('short');
    expect(summary.data.action_items).toBe(1);
    expect(parseNote(s.read('Meetings/Context/First.md')).body).toContain('tools param requires --jinja flag');
    expect(parseNote(s.read('Meetings/Context/Second.md')).body).toContain('it refused an earlier run');
    expect(s.read('Projects/Alpha/Overview.md')).toBe('# Alpha\n');
    expect(d.logs.filter((l) => /refuses tools for test-model/.test(l.msg ?? ''))).toHaveLength(1);
  });
});
