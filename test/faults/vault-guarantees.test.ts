import { lstatSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseNote } from '../../src/vault/format/frontmatter.js';
import { FaultTally, vaultHealth } from '../helpers/faults.js';
import { type DaemonProcess, runCli, startDaemonProcess, waitFor } from '../helpers/daemon-process.js';
import { type Step, toolCallsSoFar } from '../helpers/scripted-server.js';
import { daemonSetup, type DaemonSetup, daemonTestFile, dataOf, meetingNote, meetingOfRequest, SUMMARY_BODY, transcriptNote } from '../helpers/daemon-helpers.js';

/**
 * Where the daemon writes, and who runs a meeting (docs/design.md §1 and §2), with the real
 * daemon and the scripted endpoint: summary/context links confined to their folders or to
 * notes of their kind, symbolic links written through and kept, one daemon per vault, and
 * `summarize`/`retry` on the command line handing their work to the running daemon.
 */

const tally = new FaultTally('vault guarantees');

interface LinkCase {
  name: string;
  what: string;
  extra: (name: string) => string;
  /** The note the link names, which must stay byte for byte. */
  target: (name: string) => string;
}

const LINK_CASES: LinkCase[] = [
  { name: 'L1 summary is meeting', what: 'a summary link to the meeting note itself', extra: (n) => `summary: "[[Meetings/${n}]]"\n`, target: (n) => `Meetings/${n}.md` },
  { name: 'L2 context is handbook', what: "a context link to a person's note", extra: () => 'context: "[[Team handbook]]"\n', target: () => 'Notes/Team handbook.md' },
  { name: 'L3 summary is plans', what: "a summary link to a person's note", extra: () => 'summary: "[[Q4 plans]]"\n', target: () => 'Notes/Q4 plans.md' },
  { name: 'L4 summary is transcript', what: 'a summary link to the transcript', extra: (n) => `summary: "[[Meetings/Transcripts/${n}]]"\n`, target: (n) => `Meetings/Transcripts/${n}.md` },
  { name: 'L5 context is transcript', what: 'a context link to the transcript', extra: (n) => `context: "[[Meetings/Transcripts/${n}]]"\n`, target: (n) => `Meetings/Transcripts/${n}.md` },
];

const SYMLINKED = 'S1 symlinked notes';

/** The symlinked meeting's agent: a dictation word, an attendee, an identity deletion; then the summary. */
function answer(meeting: string, calls: string[]): Step {
  if (meeting.includes(SYMLINKED) && !calls.includes('add_dictation_word')) {
    return {
      reply: {
        toolCalls: [
          { name: 'add_dictation_word', arguments: { word: 'Kubernetes' } },
          { name: 'add_attendee', arguments: { name: 'Carol' } },
          { name: 'delete_identity', arguments: { name: 'Bob' } },
        ],
      },
    };
  }
  if (!calls.includes('write_summary')) return { reply: { toolCalls: [{ name: 'write_summary', arguments: { content: SUMMARY_BODY } }] } };
  return { reply: { content: 'Done.' } };
}
let setup: DaemonSetup;
let daemon: DaemonProcess;
const before = new Map<string, string>();
const recognizerWords = () => path.join(setup.dir, 'recognizer', 'words.txt');

const file = daemonTestFile('all');

beforeAll(async () => {
  file.server.setFallback({ handler: (req) => answer(meetingOfRequest(req) ?? '', toolCallsSoFar(req).map((c) => c.name)) });
  setup = await daemonSetup(file.server, { Logging: { Level: 'info' } });
  setup.write('Notes/Team handbook.md', '# Team handbook\nBe kind.\n');
  setup.write('Notes/Q4 plans.md', '---\ntags: [plans]\n---\n# Q4 plans\nShip it.\n');
  for (const c of LINK_CASES) {
    setup.write(`Meetings/${c.name}.md`, meetingNote(c.name, c.extra(c.name)));
    // Finished before the daemon starts: its catch-up finds them.
    setup.write(`Meetings/Transcripts/${c.name}.md`, transcriptNote(c.name, 'finished'));
  }
  for (const c of LINK_CASES) for (const rel of [c.target(c.name), `Meetings/${c.name}.md`]) before.set(rel, setup.read(rel));

  // The dictionary is the speech recognizer's word list, outside the vault; the meeting note
  // and an identity are links inside the vault.
  mkdirSync(path.dirname(recognizerWords()), { recursive: true });
  writeFileSync(recognizerWords(), 'Anthropic\n');
  symlinkSync(recognizerWords(), path.join(setup.vault, 'Meetings/Dictionary.md'));
  setup.write(`Notes/Real ${SYMLINKED}.md`, meetingNote(SYMLINKED));
  symlinkSync(path.join(setup.vault, `Notes/Real ${SYMLINKED}.md`), path.join(setup.vault, `Meetings/${SYMLINKED}.md`));
  setup.write('Meetings/Speakers/profiles/bob-voice.md', 'voice profile of Bob\n');
  symlinkSync(path.join(setup.vault, 'Meetings/Speakers/profiles/bob-voice.md'), path.join(setup.vault, 'Meetings/Speakers/Bob.md'));
  setup.write(`Meetings/Transcripts/${SYMLINKED}.md`, transcriptNote(SYMLINKED, 'transcribing'));

  daemon = await startDaemonProcess({ configPath: setup.configPath });
  setup.write(`Meetings/Transcripts/${SYMLINKED}.md`, transcriptNote(SYMLINKED, 'finished'));
  // The run process logs "meeting cannot run" (which the tests count) before it writes the
  // report, and the line reaches the daemon's log through the daemon, which says the outcome
  // after it: a case is through once its outcome is logged, not once its report is in.
  const failureLogged = (name: string) => daemon.logs.some((l) => typeof l.msg === 'string' && l.msg.startsWith(`meeting failed: Meetings/${name}.md: `));
  await waitFor(
    () =>
      LINK_CASES.every((c) => dataOf(setup, `Meetings/Summaries/${c.name}.md`)?.status === 'failed' && failureLogged(c.name)) &&
      dataOf(setup, `Meetings/Context/${SYMLINKED}.md`)?.state === 'finished',
    'every meeting failed (and said so) or finished',
    30_000,
    50,
  ).catch((err: unknown) => {
    console.log(daemon.logs.filter((l) => l.level !== 'debug').map((l) => JSON.stringify(l).slice(0, 400)).join('\n'));
    throw err;
  });
});

describe('fault suite: vault guarantees (confined links, symbolic links, one daemon per vault)', () => {
  for (const c of LINK_CASES) {
    it(`${c.what}: the meeting is broken, logged once, a failure report at the default summary path, the note untouched`, () =>
      tally.check(c.name, () => {
        const report = setup.read(`Meetings/Summaries/${c.name}.md`);
        expect(parseNote(report).data).toMatchObject({ status: 'failed', retry: false });
        expect(report).toMatch(/the (summary|context) link points to /);
        for (const rel of [c.target(c.name), `Meetings/${c.name}.md`]) expect(setup.read(rel), rel).toBe(before.get(rel));
        const logged = daemon.logs.filter((l) => typeof l.msg === 'string' && l.msg.startsWith('meeting cannot run') && l.msg.includes(c.name));
        expect(logged).toHaveLength(1);
        // No context note was made from the person's note, nothing went to the trash for it.
        expect(setup.readIfExists(`.trash/${c.target(c.name)}`)).toBeUndefined();
      }));
  }

  it('a symlinked dictionary (outside the vault), meeting note and identity are written through; the links stay links', () =>
    tally.check(SYMLINKED, async () => {
      expect(lstatSync(path.join(setup.vault, 'Meetings/Dictionary.md')).isSymbolicLink()).toBe(true);
      expect(readFileSync(recognizerWords(), 'utf8')).toBe('Anthropic\nKubernetes\n');
      expect(lstatSync(path.join(setup.vault, `Meetings/${SYMLINKED}.md`)).isSymbolicLink()).toBe(true);
      const real = parseNote(setup.read(`Notes/Real ${SYMLINKED}.md`)).data;
      expect(real.attendees).toEqual(['Alice', 'Bob', 'Carol']);
      expect(real.summary).toBe(`[[Meetings/Summaries/${SYMLINKED}]]`);
      // The identity link went to the trash as a link; the profile it points to is untouched.
      expect(lstatSync(path.join(setup.vault, '.trash/Meetings/Speakers/Bob.md')).isSymbolicLink()).toBe(true);
      expect(setup.read('Meetings/Speakers/profiles/bob-voice.md')).toBe('voice profile of Bob\n');
      // The daemon still runs: a temporary file of a write under way (its run history, say) is
      // no leftover; one that stays is.
      let health = vaultHealth(setup.vault);
      await waitFor(() => (health = vaultHealth(setup.vault)).temps.length === 0, 'no temporary file left', 10_000);
      expect(health).toEqual({ temps: [], unparsable: [] });
    }));

  it('a second daemon on the same vault refuses to start, naming the first (pid, HTTP address)', async () =>
    tally.check('second daemon', async () => {
      const other = path.join(setup.dir, 'second.json');
      const config = JSON.parse(readFileSync(setup.configPath, 'utf8')) as { MeetingAssistant: Record<string, unknown> };
      // Another port, so that the refusal is the vault's, not the port's.
      config.MeetingAssistant.Http = { Port: setup.port + 1 === 65536 ? setup.port - 1 : setup.port + 1 };
      config.MeetingAssistant.VaultPath = setup.vault;
      writeFileSync(other, JSON.stringify(config));
      const second = await startDaemonProcess({ configPath: other, waitReady: false });
      const exit = await second.exited;
      expect(exit.code).toBe(1);
      const output = second.stdout() + second.stderr();
      expect(output).toContain(`another daemon already runs on the vault ${setup.vault}: pid ${daemon.child.pid}, HTTP http://127.0.0.1:${setup.port}`);
      // The first one is unaffected.
      expect((await fetch(`http://127.0.0.1:${setup.port}/healthz`)).status).toBe(200);
    }));

  it('`retry` and `summarize` on the command line hand the work to the running daemon and wait for its outcome', async () =>
    tally.check('cli hand-off', async () => {
      const summary = `Meetings/Summaries/${SYMLINKED}.md`;
      const retried = await runCli(['retry', summary, '--config', setup.configPath], { timeoutMs: 60_000 });
      expect(retried.stderr).toContain(`a daemon (pid ${daemon.child.pid}, http://127.0.0.1:${setup.port}) runs on this vault: ${summary} handed to it (queued)`);
      expect({ code: retried.code, stdout: retried.stdout }).toEqual({ code: 0, stdout: `summary: ${summary}\n` });
      await daemon.waitForLog((l) => l.msg === `retry queued: ${summary}` && l.trigger === 'cli', 5_000, 'the retry in the daemon');
      // A good summary being regenerated goes to the trash first.
      expect(setup.readIfExists(`.trash/${summary}`)).toContain('status: done');

      const meeting = `Meetings/${LINK_CASES[0]!.name}.md`;
      const failed = await runCli(['summarize', meeting, '--config', setup.configPath], { timeoutMs: 60_000 });
      expect(failed.code).toBe(1);
      expect(failed.stderr).toMatch(/failed: .*the summary link points to/);
      await daemon.waitForLog((l) => l.msg === `summarize queued: ${meeting}` && l.trigger === 'cli', 5_000, 'the summarize in the daemon');
    }));

  it('survived every case', () => {
    console.log(tally.summary());
    expect(tally.lost).toEqual([]);
    expect(tally.survivedCount).toBe(LINK_CASES.length + 3);
  });
});
