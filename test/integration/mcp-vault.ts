import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * The vault the MCP server tests run against: five meetings over a month (one undated), their
 * summaries in the three task formats and a failure report, transcripts, a project file and a
 * private note that no tool may show.
 */

function write(root: string, rel: string, text: string): void {
  const file = path.join(root, rel);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
}

function meeting(o: { name: string; title: string; start?: string; attendees: string[]; projects: string[]; summary?: boolean; notes?: string; folder?: string }): string {
  const lines = ['---', `title: ${o.title}`];
  if (o.start) lines.push(`start_time: ${o.start}`);
  lines.push(`attendees: [${o.attendees.join(', ')}]`, `projects: [${o.projects.join(', ')}]`, `transcript: "[[Meetings/Transcripts/${o.name}]]"`);
  if (o.summary !== false) lines.push(`summary: "[[Meetings/Summaries/${o.name}]]"`);
  lines.push('---', o.notes ?? 'Typed during the meeting.', '');
  return lines.join('\n');
}

function summary(o: { name: string; title: string; start?: string; projects: string[]; status?: string; body: string }): string {
  const start = o.start ? `start_time: ${o.start}\n` : '';
  return `---\ntitle: ${o.title}\n${start}projects: [${o.projects.join(', ')}]\nmeeting: "[[Meetings/${o.name}]]"\nstatus: ${o.status ?? 'done'}\n---\n${o.body}`;
}

function transcript(name: string, lines: string[]): string {
  return `---\nmeeting: "[[Meetings/${name}]]"\nstate: finished\n---\n${lines.join('\n')}\n`;
}

export const KICKOFF = '2026-11-02 Kickoff';
export const REVIEW = '2026-11-16 Review';
export const BROKEN = '2026-11-20 Broken';
export const SYNC = '2026-11-30 Sync';
export const PLANNING = '2026-12-02 Planning';
export const UNDATED = 'Undated chat';

export function writeMcpVault(root: string): void {
  write(root, `Meetings/${KICKOFF}.md`, meeting({ name: KICKOFF, title: 'Kickoff', start: '2026-11-02T09:00:00+01:00', attendees: ['Alice', 'Bob'], projects: ['Alpha'], notes: 'Alice wants the release early.\nBudget open.' }));
  write(
    root,
    `Meetings/Summaries/${KICKOFF}.md`,
    summary({
      name: KICKOFF,
      title: 'Kickoff',
      start: '2026-11-02T09:00:00+01:00',
      projects: ['Alpha'],
      body: '## Summary\nWe planned the release of Alpha.\n## Decisions\n- Release in December.\n## Next steps\n- [ ] Alice: send the draft 📅 2026-11-10\n- [x] Bob: book the room ✅ 2026-11-03\n',
    }),
  );
  write(root, `Meetings/Transcripts/${KICKOFF}.md`, transcript(KICKOFF, ['[00:00:05] Alice: Good morning.', '[00:00:12] Bob: The release is in December.']));

  write(root, `Meetings/${REVIEW}.md`, meeting({ name: REVIEW, title: 'Budget review', start: '2026-11-16T14:00:00Z', attendees: ['Carol Example', 'Alice'], projects: ['Beta'] }));
  write(
    root,
    `Meetings/Summaries/${REVIEW}.md`,
    summary({
      name: REVIEW,
      title: 'Budget review',
      start: '2026-11-16T14:00:00Z',
      projects: ['Beta'],
      body: '## Summary\nThe budget, no release talk.\n## Next steps\n- [ ] draft the budget [owner:: Carol] [due:: 2026-11-30]\n- [x] review the numbers [owner:: Alice]\n',
    }),
  );
  write(root, `Meetings/Transcripts/${REVIEW}.md`, transcript(REVIEW, ['[00:00:01] Carol: Budget first.']));

  write(root, `Meetings/${BROKEN}.md`, meeting({ name: BROKEN, title: 'Broken run', start: '2026-11-20T10:00:00+01:00', attendees: ['Dan'], projects: ['Alpha'] }));
  write(
    root,
    `Meetings/Summaries/${BROKEN}.md`,
    summary({ name: BROKEN, title: 'Broken run', start: '2026-11-20T10:00:00+01:00', projects: ['Alpha'], status: 'failed', body: '# Summary failed: Broken run\n\n- [ ] release this failure report\n' }),
  );
  write(root, `Meetings/Transcripts/${BROKEN}.md`, transcript(BROKEN, ['[00:00:01] Dan: Nothing about the release.']));

  // Late on the 30th in New York: the 1st of December in UTC, the 30th as written.
  write(root, `Meetings/${SYNC}.md`, meeting({ name: SYNC, title: 'Sync', start: '2026-11-30T23:30:00-05:00', attendees: ['Bob'], projects: ['Alpha', 'Beta'] }));
  write(
    root,
    `Meetings/Summaries/${SYNC}.md`,
    summary({
      name: SYNC,
      title: 'Sync',
      start: '2026-11-30T23:30:00-05:00',
      projects: ['Alpha', 'Beta'],
      body: '## Summary\nThe release moved.\n## Decisions\n- Release on Friday.\n## Next steps\n- Bob: ship the release (by 2026-12-05)\n- ~~Alice: write the notes~~\n',
    }),
  );
  write(root, `Meetings/Transcripts/${SYNC}.md`, transcript(SYNC, ['[00:00:03] Bob: The release moves to Friday.', '[00:00:09] Bob: release notes too.']));

  // No summary yet, in a subfolder: its summary would go to Meetings/Summaries/Team A/….
  write(root, `Meetings/Team A/${PLANNING}.md`, meeting({ name: PLANNING, title: 'Planning', start: '2026-12-02T10:00:00+01:00', attendees: ['Erin'], projects: ['Gamma'], summary: false }));
  write(root, `Meetings/Transcripts/${PLANNING}.md`, transcript(PLANNING, ['[00:00:01] Erin: Planning the release party.', 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab']));

  write(root, `Meetings/${UNDATED}.md`, meeting({ name: UNDATED, title: 'Undated chat', attendees: ['Frank'], projects: [], summary: false }));

  write(root, 'Projects/Alpha/notes.md', '# Alpha\nThe release checklist.\n');
  write(root, 'Private/secret.md', 'My release diary.\n');
  write(root, 'Meetings/Glossary.md', 'CI: continuous integration\n');
}
