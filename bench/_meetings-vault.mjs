// The bench vault of the meeting tools (bench/mcp.mjs, bench/ask.mjs; not run by bench/run.mjs:
// the name starts with "_"): `meetings` meetings (meeting note, transcript, context note and
// summary each, the summaries a third each in the three task formats) and `projectNotes`
// project notes, 15,000 notes in all by default.
import path from 'node:path';
import { random, sentence, summaryNote, writeFile } from './_lib.mjs';

export const MEETING_PROJECTS = ['Alpha', 'Beta', 'Gamma'];
const PEOPLE = ['Alice', 'Bob', 'Carol', 'Dan', 'Erin', 'Frank', 'Grace', 'Heidi', 'Ivan', 'Judy'];

/** The vault-relative name of meeting `i` (its note, transcript, context and summary share it). */
export function meetingName(i) {
  const start = new Date(Date.UTC(2020, 0, 1, 9) + i * 12 * 3600 * 1000).toISOString().replace('.000Z', 'Z');
  return `${start.slice(0, 10)} Meeting ${String(i).padStart(5, '0')}`;
}

export function writeMeetingsVault(vault, { meetings = 3000, projectNotes = 3000 } = {}) {
  const PROJECTS = MEETING_PROJECTS;
  const rand = random(11);
  for (let i = 0; i < meetings; i++) {
    const start = new Date(Date.UTC(2020, 0, 1, 9) + i * 12 * 3600 * 1000).toISOString().replace('.000Z', 'Z');
    const name = meetingName(i);
    const projects = [PROJECTS[i % 3], ...(i % 5 === 0 ? [PROJECTS[(i + 1) % 3]] : [])];
    const attendees = [PEOPLE[i % 10], PEOPLE[(i + 3) % 10], PEOPLE[(i + 7) % 10]];
    writeFile(
      path.join(vault, 'Meetings', `${name}.md`),
      `---\ntitle: Meeting ${i}\nstart_time: ${start}\nattendees: [${attendees.join(', ')}]\nprojects: [${projects.join(', ')}]\n` +
        `transcript: "[[Meetings/Transcripts/${name}]]"\ncontext: "[[Meetings/Context/${name}]]"\nsummary: "[[Meetings/Summaries/${name}]]"\n---\nNotes.\n`,
    );
    let summary = summaryNote(rand, { title: name, start, projects });
    // A third each in the three task formats: plain bullets as generated, tasks, dataview.
    if (i % 3 === 1) summary = summary.replace(/^- (\w+): (.*)$/gm, (_, who, text) => `- [${rand() < 0.3 ? 'x' : ' '}] ${who}: ${text} 📅 2026-12-${String(1 + (i % 28)).padStart(2, '0')}`);
    if (i % 3 === 2) summary = summary.replace(/^- (\w+): (.*)$/gm, (_, who, text) => `- [ ] ${text} [owner:: ${who}]`);
    writeFile(path.join(vault, 'Meetings', 'Summaries', `${name}.md`), summary);
    const lines = Array.from({ length: 40 }, (_, k) => `[00:${String(Math.floor(k / 60)).padStart(2, '0')}:${String(k % 60).padStart(2, '0')}] ${attendees[k % 3]}: ${sentence(rand, 60)}`);
    writeFile(path.join(vault, 'Meetings', 'Transcripts', `${name}.md`), `---\nmeeting: "[[Meetings/${name}]]"\nstate: finished\n---\n${lines.join('\n')}\n`);
    writeFile(path.join(vault, 'Meetings', 'Context', `${name}.md`), `---\nmeeting: "[[Meetings/${name}]]"\nstate: finished\nagenda: ""\n---\nNotebook.\n`);
  }
  for (let i = 0; i < projectNotes; i++) writeFile(path.join(vault, 'Projects', `P${i % 20}`, `Note ${i}.md`), `# Note ${i}\n${sentence(rand, 200)}\n`);
}
