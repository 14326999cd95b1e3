// What the `## Before the meeting` section of a note made ahead costs (docs/design.md §12,
// meeting-event/before-meeting.ts), on a vault on disk of 2,000 past meetings with their
// summaries: 50 of them the weekly series being prepared (project Alpha), 300 open action
// items among the series' summaries (and as many done ones), the rest other meetings. The
// section is built once per note made ahead (every look that makes one, a followed note), never
// in a meeting's run. Figures: the time, cold (first build in the process) and warm (the OS
// cache warm, nothing kept by the daemon between builds), and the files it opens.
// Target: ≤ 1 s (a note made ahead is due minutes before its meeting; one look makes it).
import path from 'node:path';
import { dist, report, runs, stats, tempDir, timeRuns, writeFile } from './_lib.mjs';

const MEETINGS = Number(process.env.BENCH_BEFORE_MEETINGS ?? 2_000);
const SERIES = 50;
const OPEN_PER_SERIES = 6; // 50 × 6 = 300 open items
const { beforeMeetingSection } = await dist('meeting-event/before-meeting.js');
const { Vault } = await dist('vault/files/vault.js');
const { nodeFs } = await dist('vault/files/fs.js');
const { resolveConfig } = await dist('config.js');

const NEXT = Date.UTC(2026, 11, 9, 9);
const HOUR = 3_600_000;
const { dir } = tempDir('before-meeting');
const layout = resolveConfig({ MeetingAssistant: { VaultPath: dir } }, { cwd: '/' }).layout;
const every = Math.floor(MEETINGS / SERIES);
for (let i = 0; i < MEETINGS; i++) {
  const inSeries = i % every === 0 && i / every < SERIES;
  const start = new Date(NEXT - (i + 1) * 6 * HOUR).toISOString();
  const name = `m${String(i).padStart(5, '0')}`;
  writeFile(
    path.join(dir, 'Meetings', `${name}.md`),
    `---\ntitle: ${inSeries ? 'Weekly Alpha' : `Meeting ${i}`}\nstart_time: ${start}\nattendees: [Ann Lee, Bob Stone]\nevent: ${inSeries ? 'weekly@example.com' : `e${i}@example.com`}\nprojects: [${inSeries ? 'Alpha' : i % 3 === 0 ? 'Beta' : ''}]\n---\nNotes of meeting ${i}.\n`,
  );
  const tasks = inSeries
    ? Array.from({ length: OPEN_PER_SERIES }, (_, k) => `- [ ] Bob Stone: follow up on item ${i}.${k} 📅 2026-12-${String(10 + (k % 18)).padStart(2, '0')}\n- [x] Ann Lee: closed item ${i}.${k}`).join('\n')
    : `- [ ] Someone: task of meeting ${i}\n- [x] Someone: done task of meeting ${i}`;
  writeFile(
    path.join(dir, 'Meetings/Summaries', `${name}.md`),
    `---\ntitle: ${inSeries ? 'Weekly Alpha' : `Meeting ${i}`}\nstart_time: ${start}\nprojects: [${inSeries ? 'Alpha' : i % 3 === 0 ? 'Beta' : ''}]\nmeeting: "[[Meetings/${name}]]"\nstatus: done\n---\n## Summary\n${'The team talked about the roadmap and the budget. '.repeat(40)}\n\n## Decisions\n- Decision one of meeting ${i}.\n- Decision two of meeting ${i}.\n\n## Next steps\n${tasks}\n`,
  );
}

/** The vault's file system, counting the files opened (each note read, head or whole, opens it once). */
function countingFs() {
  const opened = new Map();
  const count = (file) => opened.set(file, (opened.get(file) ?? 0) + 1);
  const fs = {
    ...nodeFs,
    open: (file, ...rest) => (count(file), nodeFs.open(file, ...rest)),
    readFile: (file, ...rest) => (count(file), nodeFs.readFile(file, ...rest)),
  };
  return { fs, opened };
}

const input = { uid: 'weekly@example.com', start: new Date(NEXT), projects: ['Alpha'], agenda: 'Go through the open items.' };
const counted = countingFs();
const coldStart = performance.now();
const section = await beforeMeetingSection(new Vault(counted.fs, layout), input);
const cold = performance.now() - coldStart;
const openPart = section.slice(section.indexOf('### Open action items'), section.indexOf('### Agenda'));
const items = openPart.split('\n').filter((l) => l.startsWith('- ')).length;
const warm = stats(await timeRuns(() => beforeMeetingSection(new Vault(nodeFs, layout), input), { n: runs(10), warmup: 1 }));

const opens = [...counted.opened.values()].reduce((a, b) => a + b, 0);
const files = counted.opened.size;
const inFolder = (folder) => [...counted.opened.keys()].filter((f) => path.dirname(f) === path.join(dir, folder)).length;
console.log(`vault: ${MEETINGS} meetings and summaries, ${SERIES} of the series, ${SERIES * OPEN_PER_SERIES} open action items of the series; the section lists ${items} (at most 20)`);
console.log(`first build in the process: ${cold.toFixed(0)} ms`);
report(`the Before-the-meeting section, ${MEETINGS} past summaries, warm`, warm, { target: { text: '≤ 1000 ms', ok: warm.median <= 1000 } });
console.log(`files opened by one build: ${files} (${inFolder('Meetings')} meeting notes, ${inFolder('Meetings/Summaries')} summaries; ${opens} opens: the heads once each, the bodies of the summaries it copies from)`);
