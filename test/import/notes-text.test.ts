import { describe, expect, it } from 'vitest';
import { factsOfName } from '../../src/import/file-name.js';
import { isIgnoredInboxName, isInboxCandidate } from '../../src/import/inbox-rules.js';
import { attendeesOf, durationOf, transcriptLines } from '../../src/import/transcript-lines.js';

describe('transcript lines (docs/design.md §9)', () => {
  it("joins one speaker's consecutive cues, starts a new line at a new speaker and at least every 60 seconds", () => {
    const cues = [
      { start: 5, end: 7, speaker: 'Alice', text: 'One' },
      { start: 7, end: 9, speaker: 'Alice', text: 'two.' },
      { start: 64.9, end: 66, speaker: 'Alice', text: 'Still Alice.' },
      { start: 65, end: 70, speaker: 'Alice', text: 'A minute on.' },
      { start: 71, end: 72, speaker: 'Bob', text: 'Bob  now\twith   spaces.' },
      { start: 3725, end: 3726, text: 'No speaker.' },
      { start: 3727, end: 3728, text: 'Same turn.' },
      { start: 3729, end: 3730, text: 'A new turn.', turn: true },
    ];
    expect(transcriptLines(cues)).toEqual([
      '[00:00:05] Alice: One two. Still Alice.',
      '[00:01:05] Alice: A minute on.',
      '[00:01:11] Bob: Bob now with spaces.',
      '[01:02:05] No speaker. Same turn.',
      '[01:02:09] A new turn.',
    ]);
    expect(durationOf(cues)).toBe(3730);
  });

  it('keeps every word, in order', () => {
    const cues = Array.from({ length: 500 }, (_, i) => ({ start: i * 0.5, end: i * 0.5 + 0.4, speaker: i % 7 === 0 ? 'Bob' : 'Alice', text: `w${i}a w${i}b` }));
    const words = transcriptLines(cues).flatMap((l) => l.replace(/^\[[\d:]+\] (Alice|Bob): /, '').split(' '));
    expect(words).toEqual(cues.flatMap((c) => c.text.split(' ')));
  });

  it('attendees: distinct names in order of first appearance, generic labels left out', () => {
    const names = ['SPEAKER_00', 'Alice', 'Speaker 1', 'Unknown', 'bob', 'Bob', 'Alice', 'Guest 3', '?', 'Speaker_2', 'Carol'];
    expect(attendeesOf(names.map((speaker, i) => ({ start: i, end: i, speaker, text: 'x' })))).toEqual(['Alice', 'bob', 'Carol']);
  });
});

describe('what a file name says', () => {
  const local = (...a: [number, number, number, number, number, number?]) => new Date(a[0], a[1] - 1, a[2], a[3], a[4], a[5] ?? 0);
  it.each([
    ['2026-12-02 1000 Weekly Sync.vtt', 'Weekly Sync', local(2026, 12, 2, 10, 0)],
    ['2026-12-02T10-00 Weekly Sync.srt', 'Weekly Sync', local(2026, 12, 2, 10, 0)],
    ['20261202_1000_Weekly Sync.txt', 'Weekly Sync', local(2026, 12, 2, 10, 0)],
    ['Weekly Sync 2026-12-02 10.00.30.json', 'Weekly Sync', local(2026, 12, 2, 10, 0, 30)],
    ['GMT20261202-090000_Recording.transcript.vtt', 'Recording', new Date(Date.UTC(2026, 11, 2, 9, 0, 0))],
  ])('%s', (name, title, start) => {
    expect(factsOfName(name)).toEqual({ title, start });
  });

  it('a date without a time gives no start; no title left gives a generic one; other numbers stay', () => {
    expect(factsOfName('2026-12-02 Retro.vtt')).toEqual({ title: 'Retro' });
    expect(factsOfName('2026-12-02 1000.vtt').title).toBe('Imported meeting');
    expect(factsOfName('Q4 2026 budget.vtt')).toEqual({ title: 'Q4 2026 budget' });
    expect(factsOfName('2026-13-45 1000 x.vtt')).toEqual({ title: '2026-13-45 1000 x' });
  });
});

describe('inbox names', () => {
  it.each(['call.vtt.part', 'call.vtt.crdownload', 'call.tmp', '.syncthing.call.vtt.tmp', '~syncthing~call.vtt.tmp', 'call.sync-conflict-20261202-101010-ABCDEFG.vtt', '.call.vtt', '~$call.docx', 'call.vtt~', 'call (Conflicted copy 2026-12-02 101010).vtt', "call (Ann's conflicted copy 2026-12-02).vtt"])(
    '%s is never imported',
    (name) => {
      expect(isIgnoredInboxName(name)).toBe(true);
    },
  );

  it('a finished download is; an error note is not', () => {
    expect(isInboxCandidate('call.vtt')).toBe(true);
    expect(isInboxCandidate('call.pdf')).toBe(true);
    expect(isInboxCandidate('call.vtt (import failed).md')).toBe(false);
  });
});
