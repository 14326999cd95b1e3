import { describe, expect, test } from 'vitest';
import { BEFORE_MEETING_HEADING, BEFORE_MEETING_LABEL, beforeMeetingSection, sectionItems } from '../../src/meeting-event/before-meeting.js';
import { memoryVault } from '../helpers/memfs.js';

const UID = 'weekly-1@example.com';
const NEXT = new Date('2026-12-09T09:00:00Z');

function meeting(name: string, fields: Record<string, string>): Record<string, string> {
  const head = Object.entries(fields)
    .map(([k, v]) => `${k}: ${v}`)
    .join('\n');
  return { [`Meetings/${name}.md`]: `---\n${head}\n---\nNotes typed during it.\n` };
}

function summary(name: string, fields: Record<string, string>, body: string): Record<string, string> {
  const head = Object.entries({ meeting: `"[[Meetings/${name}]]"`, status: 'done', ...fields })
    .map(([k, v]) => `${k}: ${v}`)
    .join('\n');
  return { [`Meetings/Summaries/${name}.md`]: `---\n${head}\n---\n${body}` };
}

const LAST_WEEK_BODY = `## Summary
We talked about the release.

## Decisions
- Ship version 2 on Friday.
- Keep the old API for a month.

## Next steps
- [ ] Alice: write the release notes 📅 2026-12-08
- [x] Bob: book the room
- [ ] Carol: check the migration
`;

/** A weekly series: two earlier meetings of it, one of another series with the same project, and one after the event. */
function seriesVault(extra: Record<string, string> = {}) {
  return memoryVault({
    ...meeting('2026-11-25 0900 Weekly', { title: 'Weekly', start_time: '2026-11-25T09:00:00Z', event: UID, event_start: '2026-11-25T09:00:00Z', projects: '[Platform]' }),
    ...summary('2026-11-25 0900 Weekly', { title: 'Weekly', start_time: '2026-11-25T09:00:00Z', projects: '[Platform]' }, '## Decisions\n- An old decision.\n\n## Next steps\n- [ ] Dan: an old open item\n- [x] Eve: an old done item\n'),
    ...meeting('2026-12-02 0900 Weekly', { title: 'Weekly', start_time: '2026-12-02T09:00:00Z', event: UID, event_start: '2026-12-02T09:00:00Z', projects: '[Platform]' }),
    ...summary('2026-12-02 0900 Weekly', { title: 'Weekly', start_time: '2026-12-02T09:00:00Z', projects: '[Platform]' }, LAST_WEEK_BODY),
    ...meeting('2026-12-05 1400 Design review', { title: 'Design review', start_time: '2026-12-05T14:00:00Z', projects: '[Platform]' }),
    ...summary('2026-12-05 1400 Design review', { title: 'Design review', start_time: '2026-12-05T14:00:00Z', projects: '[Platform]' }, '## Decisions\n- Blue buttons.\n\n## Next steps\n- [ ] Frank: draw the icons\n'),
    ...meeting('2026-12-16 0900 Weekly', { title: 'Weekly', start_time: '2026-12-16T09:00:00Z', event: UID, projects: '[Platform]' }),
    ...summary('2026-12-16 0900 Weekly', { title: 'Weekly', start_time: '2026-12-16T09:00:00Z', projects: '[Platform]' }, '## Decisions\n- From the future.\n\n## Next steps\n- [ ] Gus: a later item\n'),
    ...extra,
  });
}

describe('beforeMeetingSection', () => {
  test("the series' latest earlier summary wins over a later meeting of the same project: linked, with its decisions and open next steps", async () => {
    const text = await beforeMeetingSection(seriesVault(), { uid: UID, start: NEXT, projects: ['Platform'], agenda: 'Review the roadmap.' });
    expect(text.startsWith(`${BEFORE_MEETING_HEADING}\n\n${BEFORE_MEETING_LABEL}\n`)).toBe(true);
    const last = text.slice(text.indexOf('### Last time'), text.indexOf('### Open action items'));
    expect(last).toContain('[[Meetings/Summaries/2026-12-02 0900 Weekly]] (2026-12-02)');
    expect(last).toContain('- Ship version 2 on Friday.\n- Keep the old API for a month.');
    expect(last).toContain('- Alice: write the release notes 📅 2026-12-08');
    expect(last).not.toContain('book the room');
    expect(last).not.toContain('Blue buttons');
    expect(text).not.toContain('From the future');
    expect(text).toMatch(/### Agenda\n\nReview the roadmap\.\n$/);
  });

  test('open action items of the series and the projects, newest meeting first, with owner, due date and meeting; done ones and later meetings left out', async () => {
    const text = await beforeMeetingSection(seriesVault(), { uid: UID, start: NEXT, projects: ['Platform'], agenda: '' });
    const items = text.slice(text.indexOf('### Open action items'), text.indexOf('### Agenda')).split('\n').filter((l) => l.startsWith('- '));
    expect(items).toEqual([
      '- Frank: draw the icons — from [[Meetings/Summaries/2026-12-05 1400 Design review|Design review, 2026-12-05]]',
      '- Alice: write the release notes (due 2026-12-08) — from [[Meetings/Summaries/2026-12-02 0900 Weekly|Weekly, 2026-12-02]]',
      '- Carol: check the migration — from [[Meetings/Summaries/2026-12-02 0900 Weekly|Weekly, 2026-12-02]]',
      '- Dan: an old open item — from [[Meetings/Summaries/2026-11-25 0900 Weekly|Weekly, 2026-11-25]]',
    ]);
    // No checkbox is copied: the vault's task queries would count each item twice.
    expect(text).not.toMatch(/\[[ x]\]/);
    expect(text).toContain('### Agenda\n\nThe calendar gives none.');
  });

  test('without a summary of the series, the latest of the same projects, said to be so', async () => {
    const text = await beforeMeetingSection(seriesVault(), { uid: 'other@example.com', start: NEXT, projects: ['platform'], agenda: '' });
    expect(text).toContain('[[Meetings/Summaries/2026-12-05 1400 Design review]] (2026-12-05), a meeting of the same projects');
    expect(text).toContain('- Blue buttons.');
  });

  test('at most 20 open items; failure reports and broken notes are passed over', async () => {
    const many = Array.from({ length: 30 }, (_, i) => `- [ ] Task ${i}`).join('\n');
    const vault = seriesVault({
      ...summary('2026-12-07 0900 Big', { title: 'Big', start_time: '2026-12-07T09:00:00Z', projects: '[Platform]' }, `## Next steps\n${many}\n`),
      ...summary('2026-12-08 0900 Failed', { title: 'Failed', start_time: '2026-12-08T09:00:00Z', projects: '[Platform]', status: 'failed' }, '## Next steps\n- [ ] From a failure\n'),
      'Meetings/Summaries/broken.md': '---\ntitle: [unclosed\n---\n- [ ] Broken\n',
    });
    const text = await beforeMeetingSection(vault, { uid: UID, start: NEXT, projects: ['Platform'], agenda: '' });
    const items = text.slice(text.indexOf('### Open action items'), text.indexOf('### Agenda')).split('\n').filter((l) => l.startsWith('- '));
    expect(items).toHaveLength(20);
    expect(items[0]).toContain('Task 0');
    expect(text).not.toContain('From a failure');
    expect(text).not.toContain('Broken');
  });

  test('an empty vault still gets the labelled section, saying there is nothing earlier', async () => {
    const text = await beforeMeetingSection(memoryVault(), { uid: UID, start: NEXT, projects: [], agenda: 'Intro.' });
    expect(text).toBe(
      `${BEFORE_MEETING_HEADING}\n\n${BEFORE_MEETING_LABEL}\n\n### Last time\n\nNo earlier summary of this series or its projects.\n\n### Open action items\n\nNone in the earlier summaries of this series or its projects.\n\n### Agenda\n\nIntro.\n`,
    );
  });

  test('what is copied from earlier summaries is made inert', async () => {
    const vault = seriesVault({
      ...summary('2026-12-08 0900 Weekly', { title: 'Weekly', start_time: '2026-12-08T09:00:00Z', projects: '[Platform]' }, '## Decisions\n- Use `$= dv.pages()` and <% tp.file %>\n'),
      ...meeting('2026-12-08 0900 Weekly', { title: 'Weekly', start_time: '2026-12-08T09:00:00Z', event: UID }),
    });
    const text = await beforeMeetingSection(vault, { uid: UID, start: NEXT, projects: [], agenda: '' });
    expect(text).toContain('- Use `$\\= dv.pages()` and <\\% tp.file %>');
  });
});

describe('sectionItems', () => {
  test('stops at the next heading of the same level, keeps nested ones, skips fences', () => {
    const body = '# T\n## Decisions\n- A\n### Detail\n- B\n```\n## Decisions\n```\n## Next steps\n- C\n';
    expect(sectionItems(body, (h) => h === 'Decisions')).toEqual(['- A', '- B']);
  });
});
