import { describe, expect, it } from 'vitest';
import { readText } from '../../../src/vault/files/fs.js';
import { CatchUp, UNREPORTED_TRIGGER } from '../../../src/daemon/intake/catch-up.js';
import { readFrontmatterText } from '../../../src/vault/scan/note-head.js';
import type { NoteFacts } from '../../../src/vault/scan/note-head.js';
import { silentLogger } from '../../../src/log.js';
import { memoryFs, testConfig } from '../../helpers/memfs.js';
import { contextAndSummaryLinks, contextNote, meetingNote, TRANSCRIPT_BODY, transcriptNote } from '../../helpers/notes.js';
import { Vault } from '../../../src/vault/files/vault.js';

const config = testConfig();

function setup(files: Record<string, string>, queued: Set<string> = new Set()) {
  const vault = new Vault(memoryFs(files), config.layout);
  const remembered = new Map<string, NoteFacts>();
  const catchUp = new CatchUp({
    vault,
    settings: config.settings,
    log: silentLogger,
    isQueued: (key) => queued.has(key),
    remember: (p, f) => remembered.set(p, f),
  });
  return { vault, catchUp, remembered, queued };
}

const meeting = (name: string, extra = '') => meetingNote(name, contextAndSummaryLinks(name) + extra);
/** Without the link, the transcript is found only from the meeting note's side. */
const transcript = (name: string, state: string, withLink = true) =>
  withLink ? transcriptNote(name, state) : `---\nstate: ${state}\n---\n${TRANSCRIPT_BODY}`;
const context = (name: string, state: string) => contextNote(name, state, 'agenda: ""\n');

const M = (name: string) => `/vault/Meetings/${name}.md`;

describe('catch-up scan', () => {
  it('takes a meeting-note template inside Meetings/ for no meeting, even one linking the same transcript', async () => {
    const nested = testConfig({ Folders: { Templates: 'Meetings/Templates' } });
    const vault = new Vault(
      memoryFs({
        'Meetings/A.md': meeting('A'),
        'Meetings/Templates/Meeting.md': meeting('A'),
        'Meetings/Transcripts/A.md': transcript('A', 'finished', false),
      }),
      nested.layout,
    );
    const catchUp = new CatchUp({ vault, settings: nested.settings, log: silentLogger, isQueued: () => false });
    const { jobs, problems } = await catchUp.scan({ startup: true });
    expect(jobs.map((j) => j.key)).toEqual([M('A')]);
    expect(problems).toEqual([]);
  });

  it('looks for context notes not yet created in the listing it is given (one look each), never by a walk of the vault', async () => {
    const fs = memoryFs({
      'Meetings/A.md': meeting('A'),
      'Meetings/Transcripts/A.md': transcript('A', 'finished'),
      'Meetings/B.md': meeting('B'),
      'Meetings/Transcripts/B.md': transcript('B', 'finished'),
      'Meetings/C.md': meeting('C'),
      'Meetings/Transcripts/C.md': transcript('C', 'finished'),
      'Meetings/Context/C.md': context('C', 'finished'),
    });
    const vault = new Vault(fs, config.layout);
    let looks = 0;
    const listing = ['Meetings/A.md', 'Meetings/B.md', 'Meetings/C.md', 'Meetings/Context/C.md', 'Meetings/Transcripts/A.md', 'Meetings/Transcripts/B.md', 'Meetings/Transcripts/C.md'];
    const catchUp = new CatchUp({ vault, settings: config.settings, log: silentLogger, isQueued: () => false, files: () => (looks++, Promise.resolve(listing)) });
    // The scan's own walk of its folders is the same with or without a listing; a walk for a link is the vault root read.
    const readdir = fs.readdir.bind(fs);
    const rootReads: string[] = [];
    fs.readdir = ((dir: string, options: { withFileTypes: true }) => {
      if (dir === '/vault') rootReads.push(dir);
      return readdir(dir, options);
    }) as typeof fs.readdir;
    const { jobs } = await catchUp.scan({ startup: true });
    expect(jobs.map((j) => j.key).sort()).toEqual([M('A'), M('B')]);
    expect(looks).toBe(2);
    expect(rootReads).toEqual([]);
  });

  it('enqueues a finished transcript whose meeting has no context note yet, keyed by the meeting', async () => {
    const { catchUp } = setup({
      'Meetings/A.md': meeting('A'),
      'Meetings/Transcripts/A.md': transcript('A', 'finished'),
    });
    const { jobs } = await catchUp.scan({ startup: true });
    expect(jobs).toEqual([{ key: M('A'), kind: 'summarize', target: M('A'), trigger: 'catch-up' }]);
  });

  it('leaves meetings whose context note is finished or error, and transcripts not finished', async () => {
    const { catchUp } = setup({
      'Meetings/A.md': meeting('A'),
      'Meetings/Transcripts/A.md': transcript('A', 'finished'),
      'Meetings/Context/A.md': context('A', 'finished'),
      'Meetings/B.md': meeting('B'),
      'Meetings/Transcripts/B.md': transcript('B', 'finished'),
      'Meetings/Context/B.md': context('B', 'error'),
      'Meetings/C.md': meeting('C'),
      'Meetings/Transcripts/C.md': transcript('C', 'transcribing'),
      'Meetings/D.md': meeting('D'),
      'Meetings/Transcripts/D.md': transcript('D', 'finished'),
      'Meetings/Context/D.md': context('D', 'speaker recognition'),
    });
    const { jobs } = await catchUp.scan({ startup: true });
    expect(jobs.map((j) => j.key)).toEqual([M('D')]);
  });

  it('finds the meeting of a transcript without a meeting link through the meeting note that links to it', async () => {
    const { catchUp } = setup({
      'Meetings/A.md': meeting('A'),
      'Meetings/Transcripts/A.md': transcript('A', 'finished', false),
    });
    const { jobs } = await catchUp.scan({ startup: true });
    expect(jobs.map((j) => j.key)).toEqual([M('A')]);
  });

  it('at start every summarizing context note is a crashed run; later only ones the queue does not hold', async () => {
    const queued = new Set<string>([M('A')]);
    const { catchUp } = setup(
      {
        'Meetings/A.md': meeting('A'),
        'Meetings/Transcripts/A.md': transcript('A', 'transcribing'),
        'Meetings/Context/A.md': context('A', 'summarizing'),
      },
      queued,
    );
    queued.clear();
    expect((await catchUp.scan({ startup: true })).jobs.map((j) => j.key)).toEqual([M('A')]);
    queued.add(M('A'));
    expect((await catchUp.scan()).jobs).toEqual([]);
  });

  it('a summarizing meeting whose transcript is finished is resumed once, not twice', async () => {
    const { catchUp } = setup({
      'Meetings/A.md': meeting('A'),
      'Meetings/Transcripts/A.md': transcript('A', 'finished'),
      'Meetings/Context/A.md': context('A', 'summarizing'),
    });
    expect((await catchUp.scan({ startup: true })).jobs).toHaveLength(1);
  });

  it('enqueues failure reports whose retry is ticked, keyed by their meeting', async () => {
    const { catchUp, remembered } = setup({
      'Meetings/A.md': meeting('A'),
      'Meetings/Summaries/A.md': `---\nmeeting: "[[Meetings/A]]"\nstatus: failed\nretry: true\n---\n# Summary failed: A\n`,
      'Meetings/Summaries/B.md': `---\nmeeting: "[[Meetings/B]]"\nstatus: failed\nretry: false\n---\n`,
      'Meetings/Summaries/C.md': `---\nstatus: done\nretry: true\n---\n`,
    });
    const { jobs } = await catchUp.scan({ startup: true });
    expect(jobs).toEqual([{ key: M('A'), kind: 'retry', target: '/vault/Meetings/Summaries/A.md', trigger: 'catch-up' }]);
    expect(remembered.get('/vault/Meetings/Summaries/B.md')).toMatchObject({ status: 'failed', retry: false });
  });

  it('tells the watcher every transcript state it saw', async () => {
    const { catchUp, remembered } = setup({
      'Meetings/A.md': meeting('A'),
      'Meetings/Transcripts/A.md': transcript('A', 'transcribing'),
    });
    await catchUp.scan({ startup: true });
    expect(remembered.get('/vault/Meetings/Transcripts/A.md')).toMatchObject({ state: 'transcribing' });
  });

  it('skips jobs the queue already holds', async () => {
    const { catchUp } = setup(
      { 'Meetings/A.md': meeting('A'), 'Meetings/Transcripts/A.md': transcript('A', 'finished') },
      new Set([M('A')]),
    );
    expect((await catchUp.scan({ startup: true })).jobs).toEqual([]);
  });

  it('reads only notes changed since the previous scan', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 30; i++) {
      files[`Meetings/N${i}.md`] = meeting(`N${i}`);
      files[`Meetings/Transcripts/N${i}.md`] = transcript(`N${i}`, 'finished');
      files[`Meetings/Context/N${i}.md`] = context(`N${i}`, 'finished');
    }
    const { catchUp, vault } = setup(files);
    const first = await catchUp.scan({ startup: true });
    expect(first.jobs).toEqual([]);
    expect(first.read).toBe(90);
    const second = await catchUp.scan();
    expect(second.read).toBe(0);
    await vault.write('/vault/Meetings/Transcripts/N3.md', transcript('N3', 'finished') + 'more words\n');
    const third = await catchUp.scan();
    expect(third.read).toBe(1);
  });

  it('holds no heads between scans: they wait in the state folder, and a catch-up made later (a restart) starts warm', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 20; i++) {
      files[`Meetings/N${i}.md`] = meeting(`N${i}`);
      files[`Meetings/Transcripts/N${i}.md`] = transcript(`N${i}`, 'finished');
      files[`Meetings/Context/N${i}.md`] = context(`N${i}`, 'finished');
    }
    const { catchUp, vault } = setup(files);
    expect((await catchUp.scan({ startup: true })).read).toBe(60);
    expect(catchUp.heads.size).toBe(0);
    expect(await readText(vault.fs, '/vault/.meeting-assistant/catch-up-heads.json')).toContain('Meetings/Transcripts/N7.md');
    expect((await catchUp.scan()).read).toBe(0);
    const restarted = new CatchUp({ vault, settings: config.settings, log: silentLogger, isQueued: () => false });
    const warm = await restarted.scan({ startup: true });
    expect(warm).toMatchObject({ checked: 60, read: 0, jobs: [] });
  });

  it('the heads file forgets a note no scan looks at any more (a meeting note whose transcript and context are gone), but a scan that throws midway keeps what it missed', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 5; i++) {
      files[`Meetings/N${i}.md`] = meeting(`N${i}`);
      files[`Meetings/Transcripts/N${i}.md`] = transcript(`N${i}`, 'finished');
      files[`Meetings/Context/N${i}.md`] = context(`N${i}`, 'finished');
    }
    const { catchUp, vault } = setup(files);
    const spilled = () => readText(vault.fs, '/vault/.meeting-assistant/catch-up-heads.json');
    await catchUp.scan({ startup: true });
    expect(await spilled()).toContain('"Meetings/N3.md"');

    await vault.fs.unlink('/vault/Meetings/Transcripts/N3.md');
    await vault.fs.unlink('/vault/Meetings/Context/N3.md');
    const list = vault.listMarkdown.bind(vault);
    vault.listMarkdown = (folder: string) => (folder.endsWith('Summaries') ? Promise.reject(new Error('EIO')) : list(folder));
    await expect(catchUp.scan()).rejects.toThrow('EIO');
    vault.listMarkdown = list;
    expect(await spilled()).toContain('"Meetings/N3.md"');

    expect((await catchUp.scan()).read).toBe(0);
    const left = await spilled();
    expect(left).not.toContain('"Meetings/N3.md"');
    expect(left).toContain('"Meetings/N4.md"');
  });

  it('a broken meeting note is reported and enqueued once (its run writes the failure report), not every scan', async () => {
    const { catchUp } = setup({
      'Meetings/A.md': '---\ntitle: [unclosed\ntranscript: x\n---\n',
      'Meetings/Transcripts/A.md': transcript('A', 'finished'),
      'Meetings/B.md': meeting('B'),
      'Meetings/Transcripts/B.md': transcript('B', 'finished'),
    });
    const first = await catchUp.scan({ startup: true });
    expect(first.jobs.map((j) => j.key).sort()).toEqual([M('A'), M('B')]);
    expect(first.problems.join('\n')).toMatch(/Meetings\/A\.md/);
    const second = await catchUp.scan();
    expect(second.jobs).toEqual([]);
  });

  it('a finished transcript whose meeting link dangles is a logged problem, not a job', async () => {
    const { catchUp } = setup({
      'Meetings/Transcripts/X.md': '---\nmeeting: "[[Meetings/Nowhere]]"\nstate: finished\n---\n',
    });
    const result = await catchUp.scan({ startup: true });
    expect(result.jobs).toEqual([]);
    expect(result.problems[0]).toMatch(/Nowhere/);
  });
});

describe('frontmatter head', () => {
  it('reads a note only up to the end of its frontmatter', async () => {
    const body = 'x'.repeat(200_000);
    const fs = memoryFs({ 'a.md': `---\nstate: finished\n---\n${body}`, 'b.md': 'no frontmatter\n' + body });
    expect(await readFrontmatterText(fs, '/vault/a.md')).toBe('---\nstate: finished\n---\n');
    expect(await readFrontmatterText(fs, '/vault/b.md')).toBe('');
  });

  it('handles CRLF, a BOM and multi-byte characters across chunk boundaries', async () => {
    const long = 'é'.repeat(5000);
    const text = `\uFEFF---\r\ntitle: ${long}\r\nstate: finished\r\n---\r\nbody`;
    const fs = memoryFs({ 'a.md': text });
    expect(await readFrontmatterText(fs, '/vault/a.md')).toBe(text.slice(0, text.length - 4));
  });

  it('an unclosed frontmatter is returned whole (and then fails to parse)', async () => {
    const fs = memoryFs({ 'a.md': '---\nstate: finished\nno end' });
    expect(await readFrontmatterText(fs, '/vault/a.md')).toBe('---\nstate: finished\nno end');
  });
});

describe('catch-up schedule', () => {
  it('a schedule stops cleanly', async () => {
    const { scheduleCatchUp } = await import('../../../src/daemon/intake/schedule.js');
    const schedule = scheduleCatchUp('*/5 * * * *', async () => undefined, silentLogger);
    expect(() => schedule.stop()).not.toThrow();
  });

  it('an invalid schedule is a configuration error naming the key (exit 2 from every command), before any daemon starts', () => {
    expect(() => testConfig({ Http: { Enabled: false }, Daemon: { ReconcileSchedule: '61 * * * *' } })).toThrow(
      expect.objectContaining({ name: 'ConfigError', message: expect.stringMatching(/MeetingAssistant\.Daemon\.ReconcileSchedule/) }),
    );
  });
});

describe('runs whose failure report could not be written (issue #24 point 9)', () => {
  it('the next scan runs the job again, once; a daemon started meanwhile finds it too', async () => {
    const { vault, catchUp } = setup({
      'Meetings/A.md': meeting('A'),
      'Meetings/Transcripts/A.md': transcript('A', 'finished'),
      'Meetings/Context/A.md': context('A', 'error'),
    });
    const job = { key: M('A'), kind: 'summarize' as const, target: M('A'), trigger: 'transcript' };
    // A settled meeting: catch-up leaves it alone until told otherwise.
    expect((await catchUp.scan()).jobs).toEqual([]);
    await catchUp.retryUnreported(job);

    // A restart before the next scan: the new daemon's catchUp reads what was saved.
    const restarted = new CatchUp({ vault, settings: config.settings, log: silentLogger, isQueued: () => false });
    expect((await restarted.scan({ startup: true })).jobs).toEqual([{ ...job, trigger: UNREPORTED_TRIGGER }]);
    expect((await restarted.scan()).jobs).toEqual([]);
    // The first daemon's memory had it too, but the saved copy is gone: taken once.
    expect((await catchUp.scan()).jobs).toEqual([{ ...job, trigger: UNREPORTED_TRIGGER }]);
    expect((await catchUp.scan()).jobs).toEqual([]);
  });

  it('a meeting the same scan runs for another reason (its context note still summarizing) is not run once more at the scan after', async () => {
    const { vault, catchUp } = setup({
      'Meetings/A.md': meeting('A'),
      'Meetings/Transcripts/A.md': transcript('A', 'finished'),
      'Meetings/Context/A.md': context('A', 'summarizing'),
    });
    const job = { key: M('A'), kind: 'summarize' as const, target: M('A'), trigger: 'transcript' };
    // Full disk: neither the report nor the context note's `error` could be written.
    await catchUp.retryUnreported(job);
    expect((await catchUp.scan({ startup: true })).jobs).toEqual([{ ...job, trigger: 'catch-up' }]);
    // That run failed again, its report written this time (the disk has room again).
    await vault.write(vault.abs('Meetings/Context/A.md'), context('A', 'error'));
    expect((await catchUp.scan()).jobs).toEqual([]);
  });
});
