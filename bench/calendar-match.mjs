// What matching a meeting to its calendar event costs (docs/design.md §12), apart from reading
// the calendar (h47a's figures): the rule over a day of events, the agenda from a 5 MB HTML
// description, and the series' projects looked up in a vault of 5,000 meeting notes on disk
// (every import, `session start` and finished meeting without projects pays this once).
// Targets: the rule ≤ 5 ms; the agenda ≤ 50 ms; the series ≤ 1 s for 5,000 notes.
import path from 'node:path';
import { dist, report, runs, stats, tempDir, timeRuns, writeFile } from './_lib.mjs';

const NOTES = Number(process.env.BENCH_MATCH_NOTES ?? 5_000);
const { eventForMeeting } = await dist('calendar/match/event-for-meeting.js');
const { agendaText } = await dist('meeting-event/agenda-text.js');
const { seriesProjects } = await dist('meeting-event/series-projects.js');
const { Vault } = await dist('vault/files/vault.js');
const { nodeFs } = await dist('vault/files/fs.js');
const { resolveConfig } = await dist('config.js');

const DAY = Date.UTC(2026, 11, 2);
const MIN = 60_000;
// 5,000 events over one day, as a busy shared calendar returns for the meeting's span.
const events = Array.from({ length: 5_000 }, (_, i) => {
  const start = new Date(DAY + ((i * 7) % (24 * 60)) * MIN);
  return { uid: `e${i}`, title: `Event ${i}`, start, end: new Date(start.getTime() + (15 + (i % 4) * 15) * MIN), eventStart: start, recurring: false, description: '', location: '', organizer: null, attendees: [], joinUrl: '', source: 'Work' };
});
const meeting = { start: new Date(DAY + 9 * 60 * MIN), end: new Date(DAY + 10 * 60 * MIN) };
const rule = stats(await timeRuns(() => eventForMeeting(events, meeting, new Date(DAY + 12 * 60 * MIN)), { n: runs(50), warmup: 5 }));
report('the match rule over 5,000 events', rule, { target: { text: '≤ 5 ms', ok: rule.median <= 5 } });

const html = `<html><body>${'<p>Agenda item with <b>bold</b> &amp; a <a href="https://example.com/x">link</a></p>'.repeat(60_000)}</body></html>`;
const agenda = stats(await timeRuns(() => agendaText(html), { n: runs(20), warmup: 2 }));
report(`the agenda of a ${(html.length / 1e6).toFixed(1)} MB HTML description`, agenda, { target: { text: '≤ 50 ms', ok: agenda.median <= 50 } });

const { dir } = tempDir('calendar-match');
const vault = new Vault(nodeFs, resolveConfig({ MeetingAssistant: { VaultPath: dir } }, { cwd: '/' }).layout);
for (let i = 0; i < NOTES; i++) {
  const start = new Date(DAY - (i + 1) * 60 * MIN).toISOString();
  writeFile(path.join(dir, 'Meetings', `m${i}.md`), `---\ntitle: Meeting ${i}\nstart_time: ${start}\nattendees: [A, B]\nevent: ${i % 50 === 0 ? 'weekly' : `e${i}`}\nprojects: [${i % 50 === 0 ? 'Alpha' : ''}]\n---\nNotes of meeting ${i}.\n`);
}
const series = stats(await timeRuns(() => seriesProjects(vault, 'weekly', new Date(DAY)), { n: runs(5), warmup: 1 }));
report(`the series' projects among ${NOTES} meeting notes`, series, { target: { text: '≤ 1000 ms', ok: series.median <= 1000 } });
