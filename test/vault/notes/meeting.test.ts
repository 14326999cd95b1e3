import { describe, expect, test } from 'vitest';
import { parseNote } from '../../../src/vault/format/frontmatter.js';
import { BrokenMeetingError, MeetingLookupError, nameList, resolveMeeting } from '../../../src/vault/notes/meeting.js';
import { findMeetingOfSummary, findMeetingOfTranscript } from '../../../src/vault/notes/locate-meeting.js';
import { LinkError } from '../../../src/vault/format/links.js';
import { memoryVault } from '../../helpers/memfs.js';

const M = 'Meetings/2026-11-30 Weekly Sync.md';
const T = 'Meetings/Transcripts/2026-11-30 Weekly Sync.md';
const MEETING_ABS = `/vault/${M}`;

const minimalMeeting = [
  '---',
  'title: Weekly Sync   # typed by hand',
  'start_time: 2026-11-30T09:00:00+01:00',
  'end_time: 2026-11-30T09:45:00+01:00',
  'attendees: ["[[Alice]]", Bob]',
  'projects: [Alpha, Beta]',
  'transcript: "[[Meetings/Transcripts/2026-11-30 Weekly Sync]]"',
  '---',
  'User notes.',
  '',
].join('\n');

async function brokenError(promise: Promise<unknown>): Promise<BrokenMeetingError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(BrokenMeetingError);
  return err as BrokenMeetingError;
}

describe('resolveMeeting', () => {
  test('missing context and summary links default and are written back, nothing else changes', async () => {
    const vault = memoryVault({ [M]: minimalMeeting, [T]: '---\nstate: transcribing\n---\n' });
    const a = await resolveMeeting(vault, MEETING_ABS);
    expect(a).toEqual({
      meetingPath: MEETING_ABS,
      transcriptPath: `/vault/${T}`,
      contextPath: '/vault/Meetings/Context/2026-11-30 Weekly Sync.md',
      summaryPath: '/vault/Meetings/Summaries/2026-11-30 Weekly Sync.md',
      title: 'Weekly Sync',
      startTime: '2026-11-30T09:00:00+01:00',
      endTime: '2026-11-30T09:45:00+01:00',
      attendees: ['Alice', 'Bob'],
      projects: ['Alpha', 'Beta'],
    });
    expect(await vault.read(MEETING_ABS)).toBe(
      minimalMeeting.replace(
        'Weekly Sync]]"\n---\n',
        'Weekly Sync]]"\n' +
          'context: "[[Meetings/Context/2026-11-30 Weekly Sync]]"\n' +
          'summary: "[[Meetings/Summaries/2026-11-30 Weekly Sync]]"\n---\n',
      ),
    );
  });

  test('writeBack: false leaves the meeting note alone', async () => {
    const vault = memoryVault({ [M]: minimalMeeting, [T]: '' });
    const writes: string[] = [];
    vault.onWrite((p) => writes.push(p));
    const a = await resolveMeeting(vault, MEETING_ABS, { writeBack: false });
    expect(a.summaryPath).toBe('/vault/Meetings/Summaries/2026-11-30 Weekly Sync.md');
    expect(writes).toEqual([]);
    expect(await vault.read(MEETING_ABS)).toBe(minimalMeeting);
  });

  test('existing links are used and nothing is written', async () => {
    const text = [
      '---',
      'transcript: "[[Weekly Sync Transcript]]"',
      "context: '[[Notebooks/Sync notebook]]'",
      'summary: Elsewhere/Sync summary.md',
      '---',
      '',
    ].join('\n');
    // Outside their folders, the links name notes of their kind (docs/design.md §1, "Links").
    const vault = memoryVault({
      [M]: text,
      'Somewhere/Weekly Sync Transcript.md': 'x',
      'Notebooks/Sync notebook.md': '---\nstate: finished\nmeeting: "[[Meetings/2026-11-30 Weekly Sync]]"\n---\n',
      'Elsewhere/Sync summary.md': '---\nstatus: done\n---\n',
    });
    const writes: string[] = [];
    vault.onWrite((p) => writes.push(p));
    const a = await resolveMeeting(vault, MEETING_ABS);
    expect(a.transcriptPath).toBe('/vault/Somewhere/Weekly Sync Transcript.md');
    expect(a.contextPath).toBe('/vault/Notebooks/Sync notebook.md');
    expect(a.summaryPath).toBe('/vault/Elsewhere/Sync summary.md');
    expect(a.title).toBeUndefined();
    expect(a.attendees).toEqual([]);
    expect(a.projects).toEqual([]);
    expect(writes).toEqual([]);
  });

  test('a dangling bare context/summary name goes to the configured folder', async () => {
    const vault = memoryVault({
      [M]: '---\ntranscript: "[[T1]]"\ncontext: "[[My context]]"\nsummary: "[[My summary]]"\n---\n',
      'Meetings/Transcripts/T1.md': '',
    });
    const a = await resolveMeeting(vault, MEETING_ABS);
    expect(a.contextPath).toBe('/vault/Meetings/Context/My context.md');
    expect(a.summaryPath).toBe('/vault/Meetings/Summaries/My summary.md');
  });

  test('the transcript is found by its reverse `meeting` link', async () => {
    const vault = memoryVault({
      [M]: '---\ntitle: Weekly Sync\n---\n',
      'Meetings/Transcripts/other.md': '---\nmeeting: "[[Meetings/Other]]"\n---\n',
      'Meetings/Transcripts/broken.md': '---\nmeeting: [\n---\n',
      'Meetings/Transcripts/the one.md': '---\nmeeting: "[[2026-11-30 Weekly Sync]]"\nstate: finished\n---\n',
      // Not a transcript: lies in another configured folder.
      'Meetings/Summaries/Sync summary.md': '---\nmeeting: "[[Meetings/2026-11-30 Weekly Sync]]"\n---\n',
    });
    const a = await resolveMeeting(vault, MEETING_ABS);
    expect(a.transcriptPath).toBe('/vault/Meetings/Transcripts/the one.md');
    // The transcript link is not written back; context and summary are.
    expect(parseNote(await vault.read(MEETING_ABS)).data).toEqual({
      title: 'Weekly Sync',
      context: '[[Meetings/Context/2026-11-30 Weekly Sync]]',
      summary: '[[Meetings/Summaries/2026-11-30 Weekly Sync]]',
    });
  });

  test('a malformed meeting is a BrokenMeetingError with the summary path, and is not rewritten', async () => {
    const text = '---\ntitle: [oops\nsummary: "[[Meetings/Summaries/Custom]]"\n---\nnotes\n';
    const vault = memoryVault({ [M]: text });
    const err = await brokenError(resolveMeeting(vault, MEETING_ABS));
    expect(err.meetingPath).toBe(MEETING_ABS);
    expect(err.summaryPath).toBe('/vault/Meetings/Summaries/Custom.md');
    expect(err.message).toMatch(/frontmatter does not parse/);
    expect(err.message).toMatch(new RegExp(`${M} line \\d+: invalid frontmatter`));
    expect(await vault.read(MEETING_ABS)).toBe(text);
  });

  test('a malformed meeting without a summary line gets the default summary path', async () => {
    const vault = memoryVault({ [M]: '---\ntitle: "unterminated\n---\n' });
    const err = await brokenError(resolveMeeting(vault, MEETING_ABS));
    expect(err.summaryPath).toBe('/vault/Meetings/Summaries/2026-11-30 Weekly Sync.md');
  });

  test('a dangling transcript link is a BrokenMeetingError', async () => {
    const text = '---\ntranscript: "[[Meetings/Transcripts/Gone]]"\n---\n';
    const vault = memoryVault({ [M]: text });
    const err = await brokenError(resolveMeeting(vault, MEETING_ABS));
    expect(err.summaryPath).toBe('/vault/Meetings/Summaries/2026-11-30 Weekly Sync.md');
    expect(err.message).toContain('[[Meetings/Transcripts/Gone]]');
    expect(err.cause).toBeInstanceOf(LinkError);
    // The meeting note is not touched when the meeting cannot run.
    expect(await vault.read(MEETING_ABS)).toBe(text);
  });

  test('no transcript at all is a BrokenMeetingError', async () => {
    const vault = memoryVault({ [M]: '---\ntitle: x\nsummary: "[[Meetings/Summaries/S]]"\n---\n' });
    const err = await brokenError(resolveMeeting(vault, MEETING_ABS));
    expect(err.message).toMatch(/no transcript/);
    expect(err.summaryPath).toBe('/vault/Meetings/Summaries/S.md');
  });

  test('a missing meeting note is a BrokenMeetingError without a report path', async () => {
    const err = await brokenError(resolveMeeting(memoryVault(), MEETING_ABS));
    expect(err.summaryPath).toBeUndefined();
    expect(err.message).toContain('does not exist');
  });
});

describe('nameList', () => {
  test('accepts a list, a single string, wikilinks; missing is empty', () => {
    expect(nameList(['Alice', '[[Bob]]', '[[People/Carol|C]]', 'Alice'])).toEqual(['Alice', 'Bob', 'Carol']);
    expect(nameList('[[Alice]]')).toEqual(['Alice']);
    expect(nameList('Solo')).toEqual(['Solo']);
    // `attendees: [[Alice]]` unquoted is a nested YAML list.
    expect(nameList([['Alice']])).toEqual(['Alice']);
    expect(nameList(undefined)).toEqual([]);
    expect(nameList(null)).toEqual([]);
    expect(nameList('')).toEqual([]);
  });
});

describe('findMeetingOfTranscript / findMeetingOfSummary', () => {
  test('a transcript’s `meeting` link wins', async () => {
    const vault = memoryVault({ [M]: '---\n---\n', [T]: '---\nmeeting: "[[Meetings/2026-11-30 Weekly Sync]]"\n---\n' });
    expect(await findMeetingOfTranscript(vault, `/vault/${T}`)).toBe(MEETING_ABS);
  });

  test('else the unique meeting note whose `transcript` links to it', async () => {
    const vault = memoryVault({
      [M]: `---\ntranscript: "[[${T.replace('.md', '')}]]"\n---\n`,
      'Meetings/Other.md': '---\ntranscript: "[[Meetings/Transcripts/Other]]"\n---\n',
      'Meetings/Broken.md': '---\ntranscript: [\n---\n',
      [T]: '---\nstate: finished\n---\n',
    });
    expect(await findMeetingOfTranscript(vault, `/vault/${T}`)).toBe(MEETING_ABS);
  });

  test('no or several meetings are typed errors', async () => {
    const none = memoryVault({ [T]: '---\nstate: finished\n---\n' });
    await expect(findMeetingOfTranscript(none, `/vault/${T}`)).rejects.toMatchObject({ kind: 'not-found' });
    const two = memoryVault({
      [T]: '---\n---\n',
      'Meetings/A.md': '---\ntranscript: "[[Transcripts/2026-11-30 Weekly Sync]]"\n---\n',
      'Meetings/B.md': `---\ntranscript: ${T}\n---\n`,
    });
    const err = await findMeetingOfTranscript(two, `/vault/${T}`).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MeetingLookupError);
    expect((err as MeetingLookupError).kind).toBe('ambiguous');
    const dangling = memoryVault({ [T]: '---\nmeeting: "[[Nope]]"\n---\n' });
    await expect(findMeetingOfTranscript(dangling, `/vault/${T}`)).rejects.toBeInstanceOf(LinkError);
  });

  test('a summary’s `meeting` link names its meeting', async () => {
    const S = '/vault/Meetings/Summaries/2026-11-30 Weekly Sync.md';
    const vault = memoryVault({
      [M]: '---\n---\n',
      'Meetings/Summaries/2026-11-30 Weekly Sync.md': '---\nmeeting: "[[Meetings/2026-11-30 Weekly Sync]]"\nstatus: failed\n---\n',
    });
    expect(await findMeetingOfSummary(vault, S)).toBe(MEETING_ABS);
    await expect(findMeetingOfSummary(vault, '/vault/Meetings/Summaries/none.md')).rejects.toMatchObject({
      kind: 'not-found',
    });
  });
});

describe('confined summary and context links (docs/design.md §1, "Links")', () => {
  const meeting = (extra: string) =>
    `---\ntranscript: "[[Meetings/Transcripts/2026-11-30 Weekly Sync]]"\n${extra}---\nbody\n`;
  const transcript = '---\nmeeting: "[[Meetings/2026-11-30 Weekly Sync]]"\nstate: finished\n---\n';

  test.each([
    ['a summary link to a person\'s note', 'summary: "[[Q4 plans]]"\n', /the summary link points to Notes\/Q4 plans\.md, which is outside Meetings\/Summaries\//],
    ['a context link to a person\'s note', 'context: "[[Team handbook]]"\n', /the context link points to Notes\/Team handbook\.md, which is outside Meetings\/Context\//],
    ['a summary link to the meeting note', 'summary: "[[Meetings/2026-11-30 Weekly Sync]]"\n', /another note of this meeting/],
    ['a context link to the transcript', 'context: "[[Meetings/Transcripts/2026-11-30 Weekly Sync]]"\n', /the context link points to Meetings\/Transcripts\/2026-11-30 Weekly Sync\.md, which is outside Meetings\/Context\//],
    ['a summary link to a folder outside, not yet existing', 'summary: "[[Notes/New summary]]"\n', /the summary link points to Notes\/New summary\.md/],
  ])('%s makes the meeting broken, reported at the default summary path, nothing written', async (_name, extra, message) => {
    const vault = memoryVault({
      [M]: meeting(extra),
      'Meetings/Transcripts/2026-11-30 Weekly Sync.md': transcript,
      'Notes/Q4 plans.md': '# Q4 plans\n',
      'Notes/Team handbook.md': '# Team handbook\n',
    });
    const writes: string[] = [];
    vault.onWrite((p) => writes.push(p));
    const err = await resolveMeeting(vault, MEETING_ABS).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BrokenMeetingError);
    expect((err as BrokenMeetingError).message).toMatch(message);
    expect((err as BrokenMeetingError).summaryPath).toBe('/vault/Meetings/Summaries/2026-11-30 Weekly Sync.md');
    expect(writes).toEqual([]);
  });

  // A broken meeting's failure report goes to the summary link only once that link has passed
  // the same confinement: the meeting note and a person's note are never the report's path.
  test.each([
    ['a meeting note that does not parse, its summary link naming itself', '---\ntitle: [oops\nsummary: "[[Meetings/2026-11-30 Weekly Sync]]"\n---\nnotes\n'],
    ['a meeting note that does not parse, its summary link naming a person\'s note', '---\ntitle: [oops\nsummary: "[[Q4 plans]]"\n---\nnotes\n'],
    ['a meeting note that does not parse, its summary link naming the transcript', '---\ntitle: [oops\nsummary: "[[Meetings/Transcripts/2026-11-30 Weekly Sync]]"\n---\n'],
    ['a summary link to a person\'s note with an unusable (ambiguous) context link', meeting('summary: "[[Q4 plans]]"\ncontext: "[[Dup]]"\n')],
    ['a summary link to the meeting note with an unusable (ambiguous) context link', meeting('summary: "[[Meetings/2026-11-30 Weekly Sync]]"\ncontext: "[[Dup]]"\n')],
  ])('%s: the report path is the default summary path', async (_name, text) => {
    const vault = memoryVault({
      [M]: text,
      'Meetings/Transcripts/2026-11-30 Weekly Sync.md': transcript,
      'Notes/Q4 plans.md': '# Q4 plans\n',
      'Notes/Dup.md': '# one\n',
      'Other/Dup.md': '# two\n',
    });
    const writes: string[] = [];
    vault.onWrite((p) => writes.push(p));
    const err = await brokenError(resolveMeeting(vault, MEETING_ABS));
    expect(err.summaryPath).toBe('/vault/Meetings/Summaries/2026-11-30 Weekly Sync.md');
    expect(writes).toEqual([]);
    expect(await vault.read(MEETING_ABS)).toBe(text);
  });

  test('a summary link to an existing failure report outside the folder still takes a broken meeting\'s report', async () => {
    const text = '---\ntitle: [oops\nsummary: "[[Archive/Old report]]"\n---\n';
    const vault = memoryVault({ [M]: text, 'Archive/Old report.md': '---\nstatus: failed\n---\n# Summary failed\n' });
    const err = await brokenError(resolveMeeting(vault, MEETING_ABS));
    expect(err.summaryPath).toBe('/vault/Archive/Old report.md');
  });
});
