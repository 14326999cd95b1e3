import { type FSWatcher, mkdirSync, watch } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseNote } from '../../src/vault/format/frontmatter.js';
import { auditSections, FaultTally, vaultHealth, type VaultHealth } from '../helpers/faults.js';
import { type DaemonProcess, startDaemonProcess, waitFor } from '../helpers/daemon-process.js';
import { type RecordedRequest, type Step, toolCallsSoFar, toolNamesOf } from '../helpers/scripted-server.js';
import { daemonSetup, type DaemonSetup, daemonTestFile, dataOf, meetingNote, meetingOfRequest, SUMMARY_BODY, transcriptNote } from '../helpers/daemon-helpers.js';

/**
 * Crash recovery: the real daemon SIGKILLed at many points of runs, restarted each time, until
 * every meeting is finished. One vault, one meeting per crash point, one run at a time: each
 * daemon life runs the meetings in order until the next crash point fires.
 *
 * A crash point is either a model request (the daemon is killed when the request arrives, the
 * request is never answered) or a write: after the endpoint has answered with the tool call
 * that leads to it, the daemon is killed as soon as the write's temporary file appears in its
 * folder (fs.watch), i.e. while the atomic write is under way.
 */

const tally = new FaultTally('crash recovery');

type Phase = 'start' | 'summary' | 'project' | 'done';

interface CrashPoint {
  name: string;
  what: string;
  /** Kill when the request of this phase arrives. */
  request?: Phase;
  /** Kill when a temporary file for `file` appears, armed at daemon start or when answering `armedBy`. */
  temp?: { folder: string; file: (name: string) => string; armedBy?: Phase };
}

const CRASHES: CrashPoint[] = [
  { name: 'C1 meeting write-back', what: 'writing the context and summary links back into the meeting note', temp: { folder: 'Meetings', file: (n) => `${n}.md` } },
  { name: 'C2 context created', what: 'creating the context note (state summarizing)', temp: { folder: 'Meetings/Context', file: (n) => `${n}.md` } },
  { name: 'C3 first model call', what: 'the first model call', request: 'start' },
  { name: 'C4 summary write', what: 'the summary write', temp: { folder: 'Meetings/Summaries', file: (n) => `${n}.md`, armedBy: 'summary' } },
  { name: 'C5 model call after summary', what: 'a model call after the summary was written', request: 'project' },
  { name: 'C6 project file write', what: 'a tool write to a project file', temp: { folder: 'Projects/Alpha/Log', file: (n) => `${n}.md`, armedBy: 'project' } },
  { name: 'C7 attendee write', what: 'a tool write to the meeting note (add_attendee)', temp: { folder: 'Meetings', file: (n) => `${n}.md`, armedBy: 'summary' } },
  { name: 'C8 before the audit', what: 'the last model call, tool writes done, audit not yet appended', request: 'done' },
  { name: 'C9 audit append', what: 'the audit append with the final state', temp: { folder: 'Meetings/Context', file: (n) => `${n}.md`, armedBy: 'done' } },
];

const projectContent = (name: string) => `# ${name}\n- Decided: ship on Friday.\n- Owner: Alice.\n`;

function phaseOf(req: RecordedRequest): Phase {
  const calls = toolCallsSoFar(req).map((c) => c.name);
  // After the summary: in one conversation (issue 31) its calls are there; in phases (issue 21)
  // the project update is a conversation of its own, without write_summary.
  if (calls.includes('write_summary') || !toolNamesOf(req).includes('write_summary')) return calls.includes('write_projectfile') ? 'done' : 'project';
  if (!calls.includes('read_transcript')) return 'start';
  return 'summary';
}

/** The same deterministic agent in every run, so a re-run after a crash does the same work. */
function answer(phase: Phase, name: string): Step {
  switch (phase) {
    case 'start':
      return { reply: { toolCalls: [{ name: 'read_transcript', arguments: {} }] } };
    case 'summary':
      return {
        reply: {
          toolCalls: [
            { name: 'add_attendee', arguments: { name: 'Carol' } },
            { name: 'write_summary', arguments: { content: SUMMARY_BODY } },
          ],
        },
      };
    case 'project':
      return {
        reply: {
          toolCalls: [{ name: 'write_projectfile', arguments: { project: 'Alpha', path: `Log/${name}.md`, content: projectContent(name), replace_file: true } }],
        },
      };
    case 'done':
      return { reply: { content: 'Done.' } };
  }
}

interface Kill {
  point: string;
  /** Daemon life (0-based) it ended. */
  life: number;
  health: VaultHealth;
  /** Problems with the crashed meeting's notes right after the kill. */
  problems: string[];
}
let setup: DaemonSetup;
let daemon: DaemonProcess | undefined;
const kills: Kill[] = [];
const fired = new Set<string>();
const watchers: FSWatcher[] = [];
let lives = 0;
let firstRequests = new Map<string, number>();

/** Armed temp-file crash points: folder → (temp-name prefix → crash point). */
const armed = new Map<string, Map<string, CrashPoint>>();

function arm(point: CrashPoint) {
  const { folder, file } = point.temp!;
  const prefix = `.${file(point.name)}.`;
  if (!armed.has(folder)) armed.set(folder, new Map());
  armed.get(folder)!.set(prefix, point);
}

let pendingKill: Promise<unknown> | undefined;
function crash(point: CrashPoint) {
  if (fired.has(point.name)) return;
  fired.add(point.name);
  armed.forEach((m) => m.forEach((p, prefix) => p === point && m.delete(prefix)));
  const d = daemon;
  pendingKill = d?.kill().then(() => {
    kills.push({ point: point.name, life: lives, health: vaultHealth(setup.vault), problems: notesProblems(point.name, false) });
  });
}

/** What is wrong with a meeting's notes: anything half-written, or (when `finished`) anything missing. */
function notesProblems(name: string, finished: boolean): string[] {
  const problems: string[] = [];
  const read = (rel: string) => setup.readIfExists(rel);
  const parse = (rel: string) => {
    const text = read(rel);
    if (text === undefined) return undefined;
    try {
      return parseNote(text);
    } catch (err) {
      problems.push(`${rel} does not parse: ${(err as Error).message}`);
      return undefined;
    }
  };
  const meeting = parse(`Meetings/${name}.md`);
  if (!meeting) problems.push('the meeting note is missing or broken');
  else {
    if (meeting.body !== `User notes of ${name}.\n`) problems.push(`the meeting note's body changed: ${JSON.stringify(meeting.body)}`);
    if (meeting.data.title !== name) problems.push('the meeting note lost its title');
  }
  const summary = parse(`Meetings/Summaries/${name}.md`);
  if (summary && summary.body !== SUMMARY_BODY) problems.push(`the summary is not whole: ${JSON.stringify(summary.body)}`);
  const project = read(`Projects/Alpha/Log/${name}.md`);
  if (project !== undefined && project !== projectContent(name)) problems.push(`the project file is not whole: ${JSON.stringify(project)}`);
  const context = parse(`Meetings/Context/${name}.md`);
  if (finished) {
    if (context?.data.state !== 'finished') problems.push(`context state ${String(context?.data.state)}`);
    if (summary?.data.status !== 'done') problems.push('no summary');
    if (project === undefined) problems.push('no project file');
    if (JSON.stringify(meeting?.data.attendees) !== JSON.stringify(['Alice', 'Bob', 'Carol'])) problems.push('Carol was not added');
  }
  return problems;
}

const allFinished = () => CRASHES.every((c) => dataOf(setup, `Meetings/Context/${c.name}.md`)?.state === 'finished');

const file = daemonTestFile('all');

beforeAll(async () => {
  file.server.setFallback({
    handler: (req) => {
      const meeting = meetingOfRequest(req) ?? '';
      const name = meeting.replace(/^Meetings\//, '').replace(/\.md$/, '');
      const phase = phaseOf(req);
      if (phase === 'start') firstRequests.set(name, (firstRequests.get(name) ?? 0) + 1);
      const point = CRASHES.find((c) => c.name === name);
      if (point && !fired.has(point.name)) {
        if (point.request === phase) {
          crash(point);
          return { hang: true };
        }
        if (point.temp?.armedBy === phase) arm(point);
      }
      return answer(phase, name);
    },
  });
  setup = await daemonSetup(file.server, { Daemon: { MaxConcurrentSummaries: 1, ShutdownGraceSeconds: 1 }, Logging: { Level: 'info' } });
  for (const c of CRASHES) {
    setup.write(`Meetings/${c.name}.md`, meetingNote(c.name));
    setup.write(`Meetings/Transcripts/${c.name}.md`, transcriptNote(c.name, 'finished'));
    if (c.temp && !c.temp.armedBy) arm(c);
  }
  for (const folder of ['Meetings', 'Meetings/Summaries', 'Meetings/Context', 'Projects/Alpha/Log']) {
    mkdirSync(path.join(setup.vault, folder), { recursive: true });
    watchers.push(
      watch(path.join(setup.vault, folder), (_event, file) => {
        const points = armed.get(folder);
        if (!file || !points || !file.endsWith('.ma-tmp')) return;
        for (const [prefix, point] of points) if (file.startsWith(prefix)) crash(point);
      }),
    );
  }

  for (lives = 0; lives <= CRASHES.length + 1; lives++) {
    const d = await startDaemonProcess({ configPath: setup.configPath });
    daemon = d;
    const firedBefore = fired.size;
    let exited = false;
    void d.exited.then(() => (exited = true));
    // A temp-file crash point still armed when every meeting is finished has had its write
    // (the audit append comes after the final answer that armed C9), and the folder watch's
    // event for it may come after the poll that sees the notes finished: waited for, or the
    // life would end without the crash (seen once under npm run test:stress, issue 37).
    const armedLeft = () => [...armed.values()].some((points) => points.size > 0);
    await waitFor(() => exited || (allFinished() && !armedLeft()), 'a crash, or every meeting finished and every armed crash point fired', 30_000);
    // A crash point fired in this life: the kill is under way even when the run process finished
    // its last write first (every meeting finished), so this life ends with it.
    if (exited || fired.size > firedBefore) {
      await pendingKill;
      continue;
    }
    break;
  }
}, 120_000);

afterAll(async () => {
  for (const w of watchers) w.close();
});

describe('fault suite: crash recovery (SIGKILL at many points of runs, then restart)', () => {
  for (const point of CRASHES) {
    it(`killed during ${point.what}: the meeting ends finished after restart, whole notes, one audit section`, () =>
      tally.check(point.name, () => {
        const kill = kills.find((k) => k.point === point.name);
        expect(kill, 'the crash point fired').toBeDefined();
        // Right after the kill: every note whole (a leftover temporary file is allowed until restart).
        expect(kill!.health.unparsable).toEqual([]);
        expect(kill!.problems).toEqual([]);
        // After restart(s): finished, nothing lost.
        expect(notesProblems(point.name, true)).toEqual([]);
        const context = setup.read(`Meetings/Context/${point.name}.md`);
        // The run that finished reports every external write once, the crashed run's included.
        expect(auditSections(context)).toBe(1);
        expect(context).toContain(`### Projects/Alpha/Log/${point.name}.md`);
        expect(context).toContain(`+- Decided: ship on Friday.`);
        expect(context).toContain(`### Meetings/${point.name}.md`);
        expect(context).toMatch(/^\+attendees: \[ ?Alice, Bob, Carol ?\]$/m);
      }));
  }

  it('survived every crash point: 9/9, one daemon life per crash, no temporary file left, no meeting run in parallel', async () => {
    expect(kills.map((k) => k.point)).toEqual(CRASHES.map((c) => c.name));
    expect(lives).toBe(CRASHES.length);
    expect(allFinished()).toBe(true);
    // Leftover temporaries of the killed writes are cleared by the next start. The last daemon
    // is stopped first: a write of its own still under way (the run history after the last
    // meeting) has a temporary file that is no leftover.
    expect((await daemon!.stop('SIGTERM')).code).toBe(0);
    expect(vaultHealth(setup.vault)).toEqual({ temps: [], unparsable: [] });
    // A meeting is run again only after its crash: at most twice from the start.
    for (const c of CRASHES) expect(firstRequests.get(c.name) ?? 0, c.name).toBeLessThanOrEqual(2);
    expect(file.server.maxInFlight).toBe(1);
    console.log(tally.summary());
    expect(tally.lost).toEqual([]);
    expect(tally.runCount).toBe(CRASHES.length);
    expect(tally.survivedCount).toBe(CRASHES.length);
  });
});
