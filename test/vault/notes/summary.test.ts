import { describe, expect, test } from 'vitest';
import { parseNote } from '../../../src/vault/format/frontmatter.js';
import type { MeetingArtifacts } from '../../../src/vault/notes/meeting.js';
import {
  formatFailedAt,
  readSummaryStatus,
  renderFailureReport,
  renderSummaryNote,
  summaryFrontmatter,
} from '../../../src/vault/notes/summary.js';
import { memoryVault } from '../../helpers/memfs.js';

const artifacts: MeetingArtifacts = {
  meetingPath: '/vault/Meetings/2026-11-30 Weekly Sync.md',
  transcriptPath: '/vault/Meetings/Transcripts/2026-11-30 Weekly Sync.md',
  contextPath: '/vault/Meetings/Context/2026-11-30 Weekly Sync.md',
  summaryPath: '/vault/Meetings/Summaries/2026-11-30 Weekly Sync.md',
  title: 'Weekly Sync',
  startTime: '2026-11-30T09:00:00+01:00',
  endTime: '2026-11-30T09:45:00+01:00',
  attendees: ['Alice', 'Bob'],
  projects: ['Alpha', 'Beta'],
};

const RETRY_URL = 'http://127.0.0.1:4777/retry?note=Meetings%2FSummaries%2F2026-11-30%20Weekly%20Sync.md&token=abc';

describe('summary note', () => {
  test('frontmatter copies title, times and projects and links the artifacts, in order', () => {
    const data = summaryFrontmatter(memoryVault(), artifacts);
    expect(Object.entries(data)).toEqual([
      ['title', 'Weekly Sync'],
      ['start_time', '2026-11-30T09:00:00+01:00'],
      ['end_time', '2026-11-30T09:45:00+01:00'],
      ['projects', ['Alpha', 'Beta']],
      ['meeting', '[[Meetings/2026-11-30 Weekly Sync]]'],
      ['transcript', '[[Meetings/Transcripts/2026-11-30 Weekly Sync]]'],
      ['context', '[[Meetings/Context/2026-11-30 Weekly Sync]]'],
      ['status', 'done'],
    ]);
  });

  test('the meeting’s title wins; else the agent’s; else no title; missing times are left out', () => {
    const vault = memoryVault();
    expect(summaryFrontmatter(vault, artifacts, { agentTitle: 'Agent' }).title).toBe('Weekly Sync');
    const untitled = { ...artifacts, title: undefined, startTime: undefined, endTime: undefined };
    expect(summaryFrontmatter(vault, untitled, { agentTitle: 'Agent title' }).title).toBe('Agent title');
    const bare = summaryFrontmatter(vault, untitled);
    expect(Object.keys(bare)).toEqual(['projects', 'meeting', 'transcript', 'context', 'status']);
  });

  test('renderSummaryNote is the frontmatter then the body', () => {
    const text = renderSummaryNote(memoryVault(), artifacts, '## Summary\nShipped.\n## Decisions\n- A\n## Next steps\n- B');
    expect(text).toBe(
      [
        '---',
        'title: Weekly Sync',
        'start_time: 2026-11-30T09:00:00+01:00',
        'end_time: 2026-11-30T09:45:00+01:00',
        'projects: [Alpha, Beta]',
        'meeting: "[[Meetings/2026-11-30 Weekly Sync]]"',
        'transcript: "[[Meetings/Transcripts/2026-11-30 Weekly Sync]]"',
        'context: "[[Meetings/Context/2026-11-30 Weekly Sync]]"',
        'status: done',
        '---',
        '## Summary',
        'Shipped.',
        '## Decisions',
        '- A',
        '## Next steps',
        '- B',
        '',
      ].join('\n'),
    );
  });
});

describe('failure report', () => {
  const failedAt = new Date('2026-11-30T10:04:05.678Z');
  const details = { type: 'ModelError', status: 503, message: 'Service Unavailable: upstream overloaded', attempts: 4 };

  test('has every required part', () => {
    const vault = memoryVault();
    const text = renderFailureReport(vault, artifacts, details, { retryUrl: RETRY_URL, failedAt });
    const note = parseNote(text);
    expect(note.data).toEqual({
      title: 'Weekly Sync',
      start_time: '2026-11-30T09:00:00+01:00',
      end_time: '2026-11-30T09:45:00+01:00',
      projects: ['Alpha', 'Beta'],
      meeting: '[[Meetings/2026-11-30 Weekly Sync]]',
      transcript: '[[Meetings/Transcripts/2026-11-30 Weekly Sync]]',
      context: '[[Meetings/Context/2026-11-30 Weekly Sync]]',
      status: 'failed',
      retry: false,
      failed_at: '2026-11-30T10:04:05Z',
    });
    expect(text).toContain('\nretry: false\n');
    const body = note.body;
    // The heading names the meeting.
    expect(body.split('\n')[0]).toBe('# Summary failed: Weekly Sync');
    // The clickable retry link.
    expect(body).toContain(`[Retry now](${RETRY_URL})`);
    // The sentence about the property.
    expect(body).toMatch(/Setting `retry: true` in this note's properties .*retries too\./);
    // The error: type, HTTP status, message, attempts.
    expect(body).toContain('- Type: ModelError');
    expect(body).toContain('- HTTP status: 503');
    expect(body).toContain('- Attempts: 4');
    expect(body).toContain('Service Unavailable: upstream overloaded');
    // Every artifact path, vault-relative and absolute.
    for (const [label, abs] of [
      ['Meeting note', artifacts.meetingPath],
      ['Transcript', artifacts.transcriptPath],
      ['Context note', artifacts.contextPath],
      ['Summary note', artifacts.summaryPath],
    ] as const) {
      const line = body.split('\n').find((l) => l.startsWith(`- ${label}`));
      expect(line, label).toBeDefined();
      expect(line).toContain(`\`${vault.rel(abs)}\``);
      expect(line).toContain(`\`${abs}\``);
    }
  });

  test('works for a broken meeting where only the meeting and summary paths are known', () => {
    const vault = memoryVault();
    const text = renderFailureReport(
      vault,
      { meetingPath: artifacts.meetingPath, summaryPath: artifacts.summaryPath },
      { type: 'BrokenMeeting', message: 'Meetings/x.md line 3: invalid frontmatter' },
      { retryUrl: RETRY_URL, failedAt },
    );
    const note = parseNote(text);
    expect(note.data).toEqual({
      meeting: '[[Meetings/2026-11-30 Weekly Sync]]',
      status: 'failed',
      retry: false,
      failed_at: '2026-11-30T10:04:05Z',
    });
    expect(note.body.split('\n')[0]).toBe('# Summary failed: 2026-11-30 Weekly Sync');
    expect(note.body).toContain(`[Retry now](${RETRY_URL})`);
    expect(note.body).toContain('- HTTP status: none');
    expect(note.body).toContain('- Transcript: unknown');
    expect(note.body).toContain('- Context note: unknown');
    expect(note.body).toContain('`Meetings/Summaries/2026-11-30 Weekly Sync.md`');
    expect(note.body).toContain('Meetings/x.md line 3: invalid frontmatter');
  });

  test('a message with backticks and line breaks stays inside its fence', () => {
    const text = renderFailureReport(
      memoryVault(),
      artifacts,
      { type: 'Error', message: 'line one\n```\nline three' },
      { retryUrl: RETRY_URL, failedAt },
    );
    expect(text).toContain('````text\nline one\n```\nline three\n````');
  });

  test('failed_at is ISO 8601 UTC without milliseconds', () => {
    expect(formatFailedAt(new Date(Date.UTC(2026, 10, 30, 10, 4, 5, 999)))).toBe('2026-11-30T10:04:05Z');
  });
});

describe('readSummaryStatus', () => {
  test('undefined when missing; status, retry and meeting when present; tolerant of retry: "true"', async () => {
    const vault = memoryVault({
      'Meetings/Summaries/a.md': '---\nmeeting: "[[Meetings/A]]"\nstatus: failed\nretry: true\n---\n',
      'Meetings/Summaries/b.md': '---\nstatus: failed\nretry: "true"\n---\n',
      'Meetings/Summaries/c.md': '---\nstatus: done\n---\n',
      'Meetings/Summaries/d.md': 'no frontmatter',
      'Meetings/Summaries/e.md': '---\nstatus: failed\nretry: false\n---\n',
    });
    const read = (n: string) => readSummaryStatus(vault, `/vault/Meetings/Summaries/${n}.md`);
    expect(await read('none')).toBeUndefined();
    expect(await read('a')).toEqual({ status: 'failed', retry: true, meeting: '[[Meetings/A]]' });
    expect(await read('b')).toEqual({ status: 'failed', retry: true });
    expect(await read('c')).toEqual({ status: 'done', retry: false });
    expect(await read('d')).toEqual({ retry: false });
    expect(await read('e')).toEqual({ status: 'failed', retry: false });
  });

  test('a failure report reads back as failed, not ticked, with its meeting', async () => {
    const vault = memoryVault();
    await vault.write(
      artifacts.summaryPath,
      renderFailureReport(vault, artifacts, { type: 'X', message: 'm' }, { retryUrl: RETRY_URL, failedAt: new Date(0) }),
    );
    expect(await readSummaryStatus(vault, artifacts.summaryPath)).toEqual({
      status: 'failed',
      retry: false,
      meeting: '[[Meetings/2026-11-30 Weekly Sync]]',
    });
  });
});
