import { afterEach, describe, expect, it } from 'vitest';
import { type Daemon, type PipelineFns, startDaemon } from '../../src/daemon/daemon.js';
import type { VaultEvent, VaultEventListener, VaultEventSource } from '../../src/daemon/intake/file-events.js';
import { silentLogger } from '../../src/log.js';
import type { RunOutcome } from '../../src/meeting/pipeline.js';
import { setContextState } from '../../src/vault/notes/context.js';
import { updateNoteFrontmatter } from '../../src/vault/format/frontmatter.js';
import type { Fs } from '../../src/vault/files/fs.js';
import { memoryFs, testConfig } from '../helpers/memfs.js';
import { resumedTrigger } from '../../src/daemon/runs/unstarted-jobs.js';
import { contextAndSummaryLinks, contextNote, meetingNote, transcriptNote } from '../helpers/notes.js';

/** An event source the test drives by hand. */
function manualSource() {
  const listeners: VaultEventListener[] = [];
  let closed = false;
  const source: VaultEventSource & { emit(e: VaultEvent): void; readonly closed: boolean } = {
    on: (l) => void listeners.push(l),
    ready: Promise.resolve(),
    close: async () => {
      closed = true;
    },
    emit: (e) => listeners.forEach((l) => l(e)),
    get closed() {
      return closed;
    },
  };
  return source;
}

async function until(check: () => boolean | Promise<boolean>, what: string, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

interface Call {
  kind: 'summarize' | 'retry';
  path: string;
  trigger: string | undefined;
  signal: AbortSignal | undefined;
}

/** A stand-in pipeline: records calls, sets the context state as the real one does, can be held. */
function fakePipeline() {
  const calls: Call[] = [];
  let hold: Promise<void> | undefined;
  let release: () => void = () => undefined;
  const fns: PipelineFns = {
    async summarize(deps, meetingPath, options) {
      calls.push({ kind: 'summarize', path: meetingPath, trigger: options.trigger, signal: options.signal });
      const ctx = meetingPath.replace('/Meetings/', '/Meetings/Context/');
      if (await deps.vault.exists(ctx)) await setContextState(deps.vault, ctx, 'summarizing');
      if (hold) {
        await Promise.race([
          hold,
          new Promise<void>((r) => options.signal?.addEventListener('abort', () => r())),
        ]);
      }
      if (options.signal?.aborted) return { runId: 'r', status: 'failed', error: 'aborted' } satisfies RunOutcome;
      if (await deps.vault.exists(ctx)) await setContextState(deps.vault, ctx, 'finished');
      return { runId: 'r', status: 'done', meetingPath } satisfies RunOutcome;
    },
    async retry(deps, summaryPath, options) {
      calls.push({ kind: 'retry', path: summaryPath, trigger: options.trigger, signal: options.signal });
      if (hold) await hold;
      // As the real one does: the failure report becomes the summary.
      if (await deps.vault.exists(summaryPath)) await deps.vault.write(summaryPath, '---\nmeeting: "[[Meetings/A]]"\nstatus: done\n---\n# Summary\n');
      return { runId: 'r', status: 'done', summaryPath };
    },
  };
  return {
    fns,
    calls,
    holdRuns() {
      hold = new Promise((r) => (release = r));
    },
    releaseRuns() {
      hold = undefined;
      release();
    },
  };
}

const meeting = (n: string) => meetingNote(n, contextAndSummaryLinks(n));
const transcript = (n: string, state: string, body = '') => transcriptNote(n, state, body);
const context = contextNote;

let daemon: Daemon | undefined;
afterEach(async () => {
  await daemon?.stop('test over');
  daemon = undefined;
});

async function start(files: Record<string, string> | Fs, daemonSettings: Record<string, unknown> = {}, options: { holdRuns?: boolean } = {}) {
  const fs = typeof (files as Fs).readFile === 'function' ? (files as Fs) : memoryFs(files as Record<string, string>);
  const config = testConfig({ Http: { Enabled: false }, Daemon: daemonSettings });
  const source = manualSource();
  const pipeline = fakePipeline();
  // Held from the start: the jobs resumed at start run while the daemon starts.
  if (options.holdRuns) pipeline.holdRuns();
  daemon = await startDaemon(config, { log: silentLogger, fs, watch: () => source, pipeline: pipeline.fns, schedule: false });
  await daemon.startupScan;
  return { fs, source, pipeline, daemon, vault: daemon.vault };
}

const T = (n: string) => `/vault/Meetings/Transcripts/${n}.md`;
const M = (n: string) => `/vault/Meetings/${n}.md`;

describe('daemon triggers', () => {
  it('a transcript flipped to finished is summarized once; saving it again does nothing', async () => {
    const { source, pipeline, vault, daemon: d } = await start({
      'Meetings/A.md': meeting('A'),
      'Meetings/Transcripts/A.md': transcript('A', 'transcribing'),
      'Meetings/Context/A.md': context('A', 'transcribing'),
    });
    await vault.fs.writeFile(T('A'), transcript('A', 'finished'));
    source.emit({ type: 'change', path: T('A') });
    await until(() => pipeline.calls.length === 1, 'the run');
    expect(pipeline.calls[0]).toMatchObject({ kind: 'summarize', path: M('A'), trigger: 'transcript' });
    await d.queue.onIdle();
    await vault.fs.writeFile(T('A'), transcript('A', 'finished', 'a person fixed a typo\n'));
    source.emit({ type: 'change', path: T('A') });
    await d.eventsHandled();
    await d.queue.onIdle();
    expect(pipeline.calls).toHaveLength(1);
  });

  it("the daemon's own writes to a transcript never trigger it", async () => {
    const { source, pipeline, vault, daemon: d } = await start({
      'Meetings/A.md': meeting('A'),
      'Meetings/Transcripts/A.md': transcript('A', 'transcribing'),
    });
    // As a tool would: the daemon itself writes the note with state finished.
    await updateNoteFrontmatter(vault, T('A'), { state: 'finished' });
    source.emit({ type: 'change', path: T('A') });
    await d.eventsHandled();
    await d.queue.onIdle();
    expect(pipeline.calls).toEqual([]);
    expect(d.status().queue.recent).toEqual([]);
  });

  it('ticking retry in a failure report runs the retry for that note', async () => {
    const S = '/vault/Meetings/Summaries/A.md';
    const { source, pipeline, vault } = await start({
      'Meetings/A.md': meeting('A'),
      'Meetings/Summaries/A.md': '---\nmeeting: "[[Meetings/A]]"\nstatus: failed\nretry: false\n---\n',
    });
    await vault.fs.writeFile(S, '---\nmeeting: "[[Meetings/A]]"\nstatus: failed\nretry: true\n---\n');
    source.emit({ type: 'change', path: S });
    await until(() => pipeline.calls.length === 1, 'the retry');
    expect(pipeline.calls[0]).toMatchObject({ kind: 'retry', path: S, trigger: 'retry' });
  });

  it('retry ticked again while the retry runs is one follow-up, which finds the summary done and skips', async () => {
    const S = '/vault/Meetings/Summaries/A.md';
    const { source, pipeline, vault, daemon: d } = await start({
      'Meetings/A.md': meeting('A'),
      'Meetings/Transcripts/A.md': transcript('A', 'finished'),
      'Meetings/Context/A.md': context('A', 'error'),
      'Meetings/Summaries/A.md': '---\nmeeting: "[[Meetings/A]]"\nstatus: failed\nretry: false\n---\n',
    });
    pipeline.holdRuns();
    await vault.fs.writeFile(S, '---\nmeeting: "[[Meetings/A]]"\nstatus: failed\nretry: true\n---\n');
    source.emit({ type: 'change', path: S });
    await until(() => pipeline.calls.length === 1, 'the retry');
    // While it runs, nothing seems to happen: a scan leaves a queued meeting alone, and the
    // person unticks and ticks `retry` again.
    expect((await d.catchUp()).jobs).toEqual([]);
    for (const retry of ['false', 'true']) {
      await vault.fs.writeFile(S, `---\nmeeting: "[[Meetings/A]]"\nstatus: failed\nretry: ${retry}\n---\n`);
      source.emit({ type: 'change', path: S });
      await d.eventsHandled();
    }
    expect(d.status().queue.running[0]?.followUp).toBe(true);
    pipeline.releaseRuns();
    await d.queue.onIdle();
    expect(pipeline.calls).toHaveLength(1);
    expect(d.status().queue.recent.map((r) => r.status)).toEqual(['skipped', 'done']);
    expect(d.status().queue.recent[0]?.message).toBe('not retried again: its summary note is done');
  });

  it('a person’s retry of a done summary (the API, the link, the CLI) regenerates it, even one asked for while a run went on', async () => {
    const S = '/vault/Meetings/Summaries/A.md';
    const { pipeline, daemon: d } = await start({
      'Meetings/A.md': meeting('A'),
      'Meetings/Transcripts/A.md': transcript('A', 'finished'),
      'Meetings/Context/A.md': context('A', 'finished'),
      'Meetings/Summaries/A.md': '---\nmeeting: "[[Meetings/A]]"\nstatus: done\n---\n',
    });
    // An API retry runs; one asked for by link, then by the CLI, while it runs follows it.
    for (const followUp of ['link', 'cli']) {
      const before = pipeline.calls.length;
      pipeline.holdRuns();
      expect(d.queue.enqueue({ key: M('A'), kind: 'retry', target: S, trigger: 'api' })).toBe('queued');
      await until(() => pipeline.calls.length === before + 1, 'the API retry');
      expect(d.queue.enqueue({ key: M('A'), kind: 'retry', target: S, trigger: followUp })).toBe('follow-up');
      pipeline.releaseRuns();
      await d.queue.onIdle();
    }
    expect(pipeline.calls.map((c) => c.trigger)).toEqual(['api', 'link', 'api', 'cli']);
  });

  it('a trigger while the meeting runs is coalesced into one follow-up, which sees it finished and skips', async () => {
    const { source, pipeline, vault, daemon: d } = await start({
      'Meetings/A.md': meeting('A'),
      'Meetings/Transcripts/A.md': transcript('A', 'transcribing'),
      'Meetings/Context/A.md': context('A', 'transcribing'),
    });
    pipeline.holdRuns();
    await vault.fs.writeFile(T('A'), transcript('A', 'finished'));
    source.emit({ type: 'change', path: T('A') });
    await until(() => pipeline.calls.length === 1, 'the first run');
    // Flip away and back twice while it runs: two more triggers.
    for (const state of ['transcribing', 'finished', 'transcribing', 'finished']) {
      await vault.fs.writeFile(T('A'), transcript('A', state));
      source.emit({ type: 'change', path: T('A') });
      await d.eventsHandled();
    }
    expect(d.status().queue.running[0]?.followUp).toBe(true);
    expect(d.status().queue.pending).toEqual([]);
    pipeline.releaseRuns();
    await d.queue.onIdle();
    expect(pipeline.calls).toHaveLength(1);
    expect(d.status().queue.recent.map((r) => r.status)).toEqual(['skipped', 'done']);
  });

  it('at start, a transcript finished while the daemon was down is summarized (catch-up)', async () => {
    const { pipeline, daemon: d } = await start({
      'Meetings/A.md': meeting('A'),
      'Meetings/Transcripts/A.md': transcript('A', 'finished'),
      'Meetings/B.md': meeting('B'),
      'Meetings/Transcripts/B.md': transcript('B', 'finished'),
      'Meetings/Context/B.md': context('B', 'finished'),
    });
    await d.queue.onIdle();
    expect(pipeline.calls.map((c) => [c.path, c.trigger])).toEqual([[M('A'), 'catch-up']]);
  });

  it('catch-up does not re-run a meeting whose context note is error', async () => {
    const { pipeline, daemon: d } = await start({
      'Meetings/A.md': meeting('A'),
      'Meetings/Transcripts/A.md': transcript('A', 'finished'),
      'Meetings/Context/A.md': context('A', 'error'),
    });
    await d.queue.onIdle();
    expect((await d.catchUp()).jobs).toEqual([]);
    expect(pipeline.calls).toEqual([]);
  });
});

describe('daemon shutdown', () => {
  it('stop lets a running run finish within the grace period and closes the watcher', async () => {
    const { source, pipeline, vault, daemon: d } = await start(
      { 'Meetings/A.md': meeting('A'), 'Meetings/Transcripts/A.md': transcript('A', 'transcribing') },
      { ShutdownGraceSeconds: 30 },
    );
    pipeline.holdRuns();
    await vault.fs.writeFile(T('A'), transcript('A', 'finished'));
    source.emit({ type: 'change', path: T('A') });
    await until(() => pipeline.calls.length === 1, 'the run');
    const stopping = d.stop('test');
    expect(d.status().stopping).toBe(true);
    pipeline.releaseRuns();
    await expect(stopping).resolves.toEqual({ finished: 1, aborted: 0, leftPending: 0 });
    expect(source.closed).toBe(true);
    expect(pipeline.calls[0]!.signal!.aborted).toBe(false);
    await expect(d.done).resolves.toMatchObject({ finished: 1 });
  });

  it('after the grace period the run is aborted; events after stop are ignored', async () => {
    const { source, pipeline, vault, daemon: d } = await start(
      {
        'Meetings/A.md': meeting('A'),
        'Meetings/Transcripts/A.md': transcript('A', 'transcribing'),
        'Meetings/B.md': meeting('B'),
        'Meetings/Transcripts/B.md': transcript('B', 'transcribing'),
      },
      { ShutdownGraceSeconds: 0.05 },
    );
    pipeline.holdRuns();
    await vault.fs.writeFile(T('A'), transcript('A', 'finished'));
    source.emit({ type: 'change', path: T('A') });
    await until(() => pipeline.calls.length === 1, 'the run');
    const result = await d.stop('test');
    expect(result).toEqual({ finished: 0, aborted: 1, leftPending: 0 });
    expect(pipeline.calls[0]!.signal!.aborted).toBe(true);
    await vault.fs.writeFile(T('B'), transcript('B', 'finished'));
    source.emit({ type: 'change', path: T('B') });
    await d.eventsHandled();
    expect(d.status().queue.pending).toEqual([]);
    expect(pipeline.calls).toHaveLength(1);
  });
});

describe('daemon restart', () => {
  it('jobs a stop left waiting or aborted, even retries asked for by link or API, run at the next start', async () => {
    const S = '/vault/Meetings/Summaries/B.md';
    const first = await start(
      {
        'Meetings/A.md': meeting('A'),
        'Meetings/Transcripts/A.md': transcript('A', 'transcribing'),
        'Meetings/Context/A.md': context('A', 'transcribing'),
        'Meetings/B.md': meeting('B'),
        'Meetings/Summaries/B.md': '---\nmeeting: "[[Meetings/B]]"\nstatus: failed\nretry: false\n---\n',
      },
      { ShutdownGraceSeconds: 0.05 },
    );
    first.pipeline.holdRuns();
    await first.vault.fs.writeFile(T('A'), transcript('A', 'finished'));
    first.source.emit({ type: 'change', path: T('A') });
    await until(() => first.pipeline.calls.length === 1, 'the run');
    expect(first.daemon.queue.enqueue({ key: M('B'), kind: 'retry', target: S, trigger: 'api' })).toBe('queued');
    expect(await first.daemon.stop('test')).toEqual({ finished: 0, aborted: 1, leftPending: 1 });
    daemon = undefined;

    const second = await start(first.fs);
    await second.daemon.queue.onIdle();
    expect(second.pipeline.calls.map((c) => [c.kind, c.path, c.trigger])).toEqual([
      ['summarize', M('A'), 'transcript, resumed'],
      ['retry', S, 'api, resumed'],
    ]);
    expect(await first.fs.stat('/vault/.meeting-assistant/queue.json').catch(() => undefined)).toBeUndefined();
  });

  it('a job resumed at every start says `resumed` once: its trigger does not grow with each restart', async () => {
    let files: Record<string, string> | Fs = {
      'Meetings/A.md': meeting('A'),
      'Meetings/Transcripts/A.md': transcript('A', 'transcribing'),
      'Meetings/Context/A.md': context('A', 'transcribing'),
    };
    const triggers: string[] = [];
    for (let restart = 0; restart < 3; restart++) {
      const run = await start(files, { ShutdownGraceSeconds: 0.05 }, { holdRuns: true });
      if (restart === 0) {
        await run.vault.fs.writeFile(T('A'), transcript('A', 'finished'));
        run.source.emit({ type: 'change', path: T('A') });
      }
      await until(() => run.pipeline.calls.length === 1, 'the run');
      triggers.push(run.pipeline.calls[0]!.trigger ?? '');
      expect(await run.daemon.stop('test')).toMatchObject({ aborted: 1 });
      daemon = undefined;
      files = run.fs;
    }
    expect(triggers).toEqual(['transcript', 'transcript, resumed', 'transcript, resumed']);
    expect(resumedTrigger('catch-up, resumed, resumed, resumed')).toBe('catch-up, resumed');
    expect(resumedTrigger('api')).toBe('api, resumed');
  });
});
