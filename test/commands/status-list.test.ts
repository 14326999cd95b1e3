import { describe, expect, it } from 'vitest';
import { localDateTime } from '../../src/clock.js';
import { status } from '../../src/commands/status.js';
import { memoryFs } from '../helpers/memfs.js';
import { memoryIo } from '../helpers/memory-io.js';

/** `status` (docs/design.md §6): local times, and whether each meeting has its summary. */
describe('status: the meetings', () => {
  it('shows start times in local time, with a header, and says whether each meeting has its summary', async () => {
    const meeting = (name: string, start: string) =>
      `---\ntitle: ${name}\nstart_time: ${start}\ntranscript: "[[Meetings/Transcripts/${name}]]"\n---\n`;
    const fs = memoryFs({
      '/work/config.json': JSON.stringify({ MeetingAssistant: { VaultPath: '/vault', Http: { Enabled: false } } }),
      'Meetings/Done.md': meeting('Done', '2026-11-30T08:00:00Z'),
      'Meetings/Transcripts/Done.md': '---\nmeeting: "[[Meetings/Done]]"\nstate: finished\n---\n',
      'Meetings/Summaries/Done.md': '---\nmeeting: "[[Meetings/Done]]"\nstatus: done\n---\n## Summary\n',
      'Meetings/Failed.md': meeting('Failed', '2026-11-29T08:00:00Z'),
      'Meetings/Transcripts/Failed.md': '---\nmeeting: "[[Meetings/Failed]]"\nstate: finished\n---\n',
      'Meetings/Summaries/Failed.md': '---\nmeeting: "[[Meetings/Failed]]"\nstatus: failed\n---\n# Summary failed\n',
      'Meetings/Waiting.md': meeting('Waiting', '2026-11-28T08:00:00Z'),
      'Meetings/Transcripts/Waiting.md': '---\nmeeting: "[[Meetings/Waiting]]"\nstate: transcribing\n---\n',
    });
    const io = memoryIo();
    expect(await status({}, { io, fs, env: {}, cwd: '/work', clock: () => new Date() })).toBe(0);
    const local = (iso: string) => localDateTime(iso)!;
    expect(io.outLines.slice(3, 7)).toEqual([
      'start (local)     state            summary         meeting',
      `${local('2026-11-30T08:00:00Z')}  no context note  summary         Meetings/Done.md`,
      `${local('2026-11-29T08:00:00Z')}  no context note  failure report  Meetings/Failed.md`,
      `${local('2026-11-28T08:00:00Z')}  no context note  no summary      Meetings/Waiting.md`,
    ]);
    expect(io.text()).not.toContain('T08:00:00Z');
  });

  it('a note named with an escape sequence (a synced file) prints no control character', async () => {
    const name = 'Evil \u001b]0;owned\u0007\u001b[2J\u202e';
    const fs = memoryFs({
      '/work/config.json': JSON.stringify({ MeetingAssistant: { VaultPath: '/vault', Http: { Enabled: false } } }),
      [`Meetings/${name}.md`]: `---\ntitle: x\nstart_time: 2026-11-30T08:00:00Z\n---\n`,
    });
    const io = memoryIo();
    expect(await status({}, { io, fs, env: {}, cwd: '/work', clock: () => new Date() })).toBe(0);
    // Whole sequences go (vault/format/terminal-text.ts), not only their escape character.
    expect(io.text()).toContain('Meetings/Evil .md');
    expect(io.text()).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e]/);
  });

  it("with no daemon on the vault, a meeting left `summarizing` reads `was summarizing`, said to resume at the daemon's next start", async () => {
    const note = (name: string, state: string) => ({
      [`Meetings/${name}.md`]: `---\ntitle: ${name}\nstart_time: 2026-11-30T08:00:00Z\ntranscript: "[[Meetings/Transcripts/${name}]]"\ncontext: "[[Meetings/Context/${name}]]"\n---\n`,
      [`Meetings/Transcripts/${name}.md`]: `---\nmeeting: "[[Meetings/${name}]]"\nstate: finished\n---\n`,
      [`Meetings/Context/${name}.md`]: `---\nmeeting: "[[Meetings/${name}]]"\nstate: ${state}\n---\n`,
    });
    const fs = memoryFs({
      '/work/config.json': JSON.stringify({ MeetingAssistant: { VaultPath: '/vault', Http: { Enabled: false } } }),
      ...note('Cut', 'summarizing'),
      ...note('Recording', 'transcribing'),
    });
    const io = memoryIo();
    expect(await status({}, { io, fs, env: {}, cwd: '/work', clock: () => new Date() })).toBe(0);
    expect(io.outLines.find((l) => l.endsWith('Meetings/Cut.md'))).toMatch(/\swas summarizing\s/);
    expect(io.outLines.find((l) => l.endsWith('Meetings/Recording.md'))).toMatch(/\stranscribing\s/);
    expect(io.text()).toContain("was summarizing: the daemon stopped during its run; it resumes at the daemon's next start");
    expect(io.text()).toContain('daemon: not running');
  });
});
