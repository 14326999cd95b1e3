/**
 * A small vault for the ask tests, as memfs files: three meetings of a release, one of a
 * budget with an action item owned by Carol, their summaries and one long transcript.
 */

const meeting = (name: string, title: string, start: string, projects: string[], attendees: string[]): string =>
  `---\ntitle: ${title}\nstart_time: ${start}\nattendees: [${attendees.join(', ')}]\nprojects: [${projects.join(', ')}]\n` +
  `transcript: "[[Meetings/Transcripts/${name}]]"\nsummary: "[[Meetings/Summaries/${name}]]"\n---\nNotes typed during ${title}.\n`;

const summary = (name: string, title: string, start: string, projects: string[], body: string): string =>
  `---\ntitle: ${title}\nstart_time: ${start}\nprojects: [${projects.join(', ')}]\nmeeting: "[[Meetings/${name}]]"\nstatus: done\n---\n${body}`;

export const KICKOFF = '2026-11-02 Kickoff';
export const BUDGET = '2026-11-16 Budget review';
export const SYNC = '2026-11-30 Release sync';
export const PLANNING = '2026-12-02 Planning';

export const summaryPath = (name: string): string => `Meetings/Summaries/${name}.md`;

export function askVaultFiles(transcriptLines = 3): Record<string, string> {
  const files: Record<string, string> = {};
  const add = (name: string, title: string, start: string, projects: string[], attendees: string[], body: string, lines: string[]): void => {
    files[`Meetings/${name}.md`] = meeting(name, title, start, projects, attendees);
    files[summaryPath(name)] = summary(name, title, start, projects, body);
    files[`Meetings/Transcripts/${name}.md`] = `---\nmeeting: "[[Meetings/${name}]]"\nstate: finished\n---\n${lines.join('\n')}\n`;
  };
  add(KICKOFF, 'Kickoff', '2026-11-02T09:00:00+01:00', ['Alpha'], ['Alice', 'Bob'], '## Summary\nThe release of Alpha is planned for December.\n## Next steps\n- [ ] Alice: send the draft 📅 2026-11-10\n', ['[00:00:05] Alice: Good morning.']);
  add(BUDGET, 'Budget review', '2026-11-16T14:00:00Z', ['Beta'], ['Carol Example', 'Alice'], '## Summary\nThe budget.\n## Next steps\n- [ ] draft the budget [owner:: Carol] [due:: 2026-11-30]\n', ['[00:00:01] Carol: Budget first.']);
  const long = Array.from({ length: transcriptLines }, (_, i) => `[00:${String(Math.floor(i / 60) % 60).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}] Bob: line ${i + 1} about the release train and the rollback plan for Alpha.`);
  add(SYNC, 'Release sync', '2026-11-30T10:00:00+01:00', ['Alpha'], ['Bob'], '## Summary\nThe release moved to 14 December.\n## Decisions\n- Release on 14 December.\n', long);
  add(PLANNING, 'Planning', '2026-12-02T09:00:00+01:00', ['Alpha'], ['Alice'], '## Summary\nPlanning of Q1.\n', ['[00:00:01] Alice: Q1.']);
  return files;
}
