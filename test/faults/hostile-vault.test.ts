import { randomBytes } from 'node:crypto';
import { existsSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseNote } from '../../src/vault/format/frontmatter.js';
import { FaultTally, vaultHealth } from '../helpers/faults.js';
import { type DaemonProcess, type LogLine, startDaemonProcess, waitFor } from '../helpers/daemon-process.js';
import { lastToolResults, type RecordedRequest, type Step, toolCallsSoFar, toolNamesOf } from '../helpers/scripted-server.js';
import { daemonSetup, type DaemonSetup, daemonTestFile, dataOf, meetingNote, meetingOfRequest, SUMMARY_BODY, transcriptNote } from '../helpers/daemon-helpers.js';

/**
 * A hostile vault under the real daemon: notes a person, a sync tool or a crashed transcriber
 * could leave behind. The daemon stays up and every case ends in a clear state: summarized,
 * a failure report saying what is wrong, or left alone with a warning naming the note.
 */

const tally = new FaultTally('hostile vault');

const BROKEN_YAML: Record<string, string> = {
  'Y1 unclosed bracket': '---\ntitle: [Broken\ntranscript: "[[Meetings/Transcripts/Y1 unclosed bracket]]"\n---\nNotes.\n',
  'Y2 tab indentation': '---\ntitle: Tabs\nattendees:\n\t- Alice\ntranscript: "[[Meetings/Transcripts/Y2 tab indentation]]"\n---\nNotes.\n',
  'Y3 duplicate keys': '---\ntitle: One\ntitle: Two\ntranscript: "[[Meetings/Transcripts/Y3 duplicate keys]]"\n---\nNotes.\n',
  'Y5 never closed': '---\ntitle: Open\ntranscript: "[[Meetings/Transcripts/Y5 never closed]]"\nNotes without a closing fence.\n',
};

/** Exponential entity expansion, should anything expand aliases: 9^6 copies of "x". */
const ALIAS_BOMB =
  '---\ntitle: V4 alias bomb\na: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\n' +
  'd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\ne: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]\nf: [*e, *e, *e, *e, *e, *e, *e, *e, *e]\n' +
  'transcript: "[[Meetings/Transcripts/V4 alias bomb]]"\n---\nUser notes of V4 alias bomb.\n';

const BOM = '\uFEFF';
const crlf = (text: string) => text.replace(/\n/g, '\r\n');
const BIG_LINES = 700_000;
const bigTranscript = () => {
  const line = '[00:00:00] Alice: the quarterly numbers look fine, nothing else to report here.\n';
  return transcriptNote('V5 50 MB transcript', 'finished', line.repeat(BIG_LINES));
};
let setup: DaemonSetup;
let daemon: DaemonProcess;
const results = new Map<string, ReturnType<typeof lastToolResults>>();
const original = new Map<string, string>();

const nameOf = (req: RecordedRequest) => (meetingOfRequest(req) ?? '').replace(/^Meetings\//, '').replace(/\.md$/, '');

/** Reads the transcript (a range, so the 50 MB one is fine), writes the summary, finishes. */
function model(): Step {
  return {
    handler: (req): Step => {
      const name = nameOf(req);
      const calls = toolCallsSoFar(req);
      // The run's project phase (issue 21), a conversation of its own: nothing to do there.
      if (!toolNamesOf(req).includes('write_summary')) return { reply: { content: 'Done.' } };
      if (calls.length === 0) {
        if (name === 'V11 renamed during the run') {
          // A person renames the meeting note while the agent works.
          renameSync(path.join(setup.vault, `Meetings/${name}.md`), path.join(setup.vault, 'Meetings/V11 renamed by a person.md'));
        }
        return { reply: { toolCalls: [{ name: 'read_transcript', arguments: { from: 1, to: 8 } }, { name: 'read_usernotes', arguments: {} }] } };
      }
      if (calls.length === 2) {
        results.set(name, lastToolResults(req));
        if (name === 'V14 context renamed during the run') {
          renameSync(path.join(setup.vault, `Meetings/Context/${name}.md`), path.join(setup.vault, 'Meetings/Context/V14 moved by a person.md'));
        }
        // Before the summary: the call that writes it ends the summary phase, its answers unseen.
        return { reply: { toolCalls: [{ name: 'add_attendee', arguments: { name: 'Carol' } }] } };
      }
      if (calls.length === 3) {
        results.set(`${name} (2)`, lastToolResults(req));
        return { reply: { toolCalls: [{ name: 'write_summary', arguments: { content: SUMMARY_BODY } }] } };
      }
      return { reply: { content: 'Done.' } };
    },
  };
}

function put(rel: string, content: string | Buffer) {
  setup.write(rel, typeof content === 'string' ? content : '');
  if (typeof content !== 'string') writeFileSync(path.join(setup.vault, rel), content);
  if (typeof content === 'string') original.set(rel, content);
}

const warnings = () => daemon.logs.filter((l: LogLine) => l.level === 'warn' || l.level === 'error');
const warned = (pattern: RegExp) => warnings().some((l) => pattern.test(String(l.msg)));

const EXPECTED_DONE = [
  'V1 BOM',
  'V2 CRLF',
  'V3 BOM and CRLF',
  'V4 alias bomb',
  'V5 50 MB transcript',
  'V6 empty transcript body',
  'V8 binary transcript body',
  'V11 renamed during the run',
  'V14 context renamed during the run',
];

const file = daemonTestFile('all');

beforeAll(async () => {
  file.server.setFallback(model());
  // The 50 MB transcript is over Agent.MaxFileBytes's default (20 MB: docs/design.md §4), so the bound is raised for it.
  setup = await daemonSetup(file.server, { Daemon: { MaxConcurrentSummaries: 2 }, Logging: { Level: 'info' }, Agent: { MaxFileBytes: 64 * 1024 * 1024 } });

  for (const [name, text] of Object.entries(BROKEN_YAML)) {
    put(`Meetings/${name}.md`, text);
    put(`Meetings/Transcripts/${name}.md`, transcriptNote(name, 'finished'));
  }
  put('Meetings/V1 BOM.md', BOM + meetingNote('V1 BOM'));
  put('Meetings/Transcripts/V1 BOM.md', BOM + transcriptNote('V1 BOM', 'finished'));
  put('Meetings/V2 CRLF.md', crlf(meetingNote('V2 CRLF')));
  put('Meetings/Transcripts/V2 CRLF.md', crlf(transcriptNote('V2 CRLF', 'finished')));
  put('Meetings/V3 BOM and CRLF.md', BOM + crlf(meetingNote('V3 BOM and CRLF')));
  put('Meetings/Transcripts/V3 BOM and CRLF.md', BOM + crlf(transcriptNote('V3 BOM and CRLF', 'finished')));
  put('Meetings/V4 alias bomb.md', ALIAS_BOMB);
  put('Meetings/Transcripts/V4 alias bomb.md', transcriptNote('V4 alias bomb', 'finished'));
  put('Meetings/V5 50 MB transcript.md', meetingNote('V5 50 MB transcript'));
  put('Meetings/Transcripts/V5 50 MB transcript.md', bigTranscript());
  put('Meetings/V6 empty transcript body.md', meetingNote('V6 empty transcript body'));
  put('Meetings/Transcripts/V6 empty transcript body.md', transcriptNote('V6 empty transcript body', 'finished', ''));
  put('Meetings/V7 empty transcript file.md', meetingNote('V7 empty transcript file'));
  put('Meetings/Transcripts/V7 empty transcript file.md', '');
  put('Meetings/V8 binary transcript body.md', meetingNote('V8 binary transcript body'));
  put(
    'Meetings/Transcripts/V8 binary transcript body.md',
    Buffer.concat([Buffer.from(transcriptNote('V8 binary transcript body', 'finished', '')), randomBytes(64 * 1024), Buffer.from([0, 0, 0])]),
  );
  put('Meetings/Transcripts/V9 binary junk.md', Buffer.concat([Buffer.from([0xff, 0xfe, 0, 0]), randomBytes(32 * 1024)]));
  put('Meetings/Transcripts/V10 missing meeting.md', transcriptNote('V10 no such meeting note', 'finished'));
  // Two meeting notes claim one transcript, which names no meeting itself.
  put('Meetings/V12 first claim.md', meetingNote('V12 first claim').replace('Transcripts/V12 first claim', 'Transcripts/V12 shared'));
  put('Meetings/V12 second claim.md', meetingNote('V12 second claim').replace('Transcripts/V12 second claim', 'Transcripts/V12 shared'));
  put('Meetings/Transcripts/V12 shared.md', '---\nstate: finished\n---\n[00:00:01] Alice: Which meeting am I?\n');
  put('Meetings/V11 renamed during the run.md', meetingNote('V11 renamed during the run'));
  put('Meetings/Transcripts/V11 renamed during the run.md', transcriptNote('V11 renamed during the run', 'finished'));
  put('Meetings/V14 context renamed during the run.md', meetingNote('V14 context renamed during the run'));
  put('Meetings/Transcripts/V14 context renamed during the run.md', transcriptNote('V14 context renamed during the run', 'finished'));
  // A transcript whose frontmatter does not parse: its state cannot be known.
  put('Meetings/V13 broken transcript.md', meetingNote('V13 broken transcript'));
  put('Meetings/Transcripts/V13 broken transcript.md', '---\nmeeting: "[[Meetings/V13 broken transcript]]"\nstate: [finished\n---\n[00:00:01] Alice: hi\n');

  daemon = await startDaemonProcess({ configPath: setup.configPath });
  const status = () => JSON.stringify([...EXPECTED_DONE.map((n) => [n, dataOf(setup, `Meetings/Context/${n}.md`)?.state]), ...Object.keys(BROKEN_YAML).map((n) => [n, dataOf(setup, `Meetings/Summaries/${n}.md`)?.status])]);
  await waitFor(
    () =>
      EXPECTED_DONE.every((n) => dataOf(setup, `Meetings/Context/${n}.md`)?.state === 'finished') &&
      Object.keys(BROKEN_YAML).every((n) => dataOf(setup, `Meetings/Summaries/${n}.md`)?.status === 'failed'),
    'every hostile-vault meeting to settle',
    60_000,
    100,
  ).catch((err: unknown) => {
    console.log(status());
    console.log(warnings().map((l) => JSON.stringify(l).slice(0, 600)).join('\n'));
    throw err;
  });
  await daemon.waitForLog((l) => typeof l.msg === 'string' && l.msg.startsWith('catch-up scan'), 5_000, 'the start-up scan line');
});

function expectSummarized(name: string) {
  const summary = parseNote(setup.read(`Meetings/Summaries/${name}.md`));
  expect(summary.data.status).toBe('done');
  expect(summary.body).toBe(SUMMARY_BODY);
  expect(dataOf(setup, `Meetings/Context/${name}.md`)?.state).toBe('finished');
}

describe('fault suite: hostile vault (real daemon)', () => {
  it.each(Object.keys(BROKEN_YAML))('malformed YAML in a meeting note (%s): a failure report says so, the note is never rewritten', (name) =>
    tally.check(`malformed YAML: ${name}`, () => {
      expect(setup.read(`Meetings/${name}.md`)).toBe(original.get(`Meetings/${name}.md`));
      const report = setup.read(`Meetings/Summaries/${name}.md`);
      expect(parseNote(report).data).toMatchObject({ status: 'failed', retry: false });
      expect(report).toMatch(/frontmatter does not parse/);
      expect(setup.readIfExists(`Meetings/Context/${name}.md`)).toBeUndefined();
      expect(file.server.modelRequests().some((r) => nameOf(r) === name)).toBe(false);
    }));

  it('a BOM: summarized, and the write-back keeps the BOM', () =>
    tally.check('BOM', () => {
      expectSummarized('V1 BOM');
      const note = setup.read('Meetings/V1 BOM.md');
      expect(note.startsWith(BOM)).toBe(true);
      expect(note.slice(1).startsWith('---\ntitle: V1 BOM\n')).toBe(true);
      expect(dataOf(setup, 'Meetings/V1 BOM.md')?.attendees).toEqual(['Alice', 'Bob', 'Carol']);
      expect(results.get('V1 BOM')![0]!.output).toContain('Good morning.');
    }));

  it('CRLF line endings: summarized, every line of the meeting note still ends in CRLF', () =>
    tally.check('CRLF', () => {
      expectSummarized('V2 CRLF');
      const note = setup.read('Meetings/V2 CRLF.md');
      expect(note.match(/\r\n/g)!.length).toBe(note.match(/\n/g)!.length);
      expect(note).toContain('summary: "[[Meetings/Summaries/V2 CRLF]]"\r\n');
      expect(results.get('V2 CRLF')![1]!.output).toContain('User notes of V2 CRLF.');
    }));

  it('a BOM and CRLF together: summarized, both kept', () =>
    tally.check('BOM and CRLF', () => {
      expectSummarized('V3 BOM and CRLF');
      const note = setup.read('Meetings/V3 BOM and CRLF.md');
      expect(note.startsWith(`${BOM}---\r\n`)).toBe(true);
      expect(note.match(/\r\n/g)!.length).toBe(note.match(/\n/g)!.length);
    }));

  it('a YAML alias bomb in a meeting note: nothing expands it; summarized, the anchors kept byte for byte', () =>
    tally.check('YAML alias bomb', () => {
      expectSummarized('V4 alias bomb');
      const note = setup.read('Meetings/V4 alias bomb.md');
      expect(note.startsWith(ALIAS_BOMB.slice(0, ALIAS_BOMB.indexOf('transcript:')))).toBe(true);
      expect(dataOf(setup, 'Meetings/V4 alias bomb.md')?.summary).toBe('[[Meetings/Summaries/V4 alias bomb]]');
    }));

  it('a 50 MB transcript: read in ranges and summarized; the scan read only its frontmatter', () =>
    tally.check('50 MB transcript', () => {
      expect(setup.read('Meetings/Transcripts/V5 50 MB transcript.md').length).toBeGreaterThan(50_000_000);
      expectSummarized('V5 50 MB transcript');
      expect(results.get('V5 50 MB transcript')![0]!.output.split('\n')[0]).toBe(
        `Meetings/Transcripts/V5 50 MB transcript.md (lines 1-8 of ${BIG_LINES + 4})`,
      );
    }));

  it('an empty transcript body: the agent is told so and the meeting is summarized', () =>
    tally.check('empty transcript body', () => {
      expectSummarized('V6 empty transcript body');
      expect(results.get('V6 empty transcript body')![0]!.output).toMatch(/lines 1-4 of 4/);
    }));

  it('an empty transcript file (0 bytes, no state): left alone, nothing created', () =>
    tally.check('empty transcript file', () => {
      expect(setup.readIfExists('Meetings/Context/V7 empty transcript file.md')).toBeUndefined();
      expect(setup.readIfExists('Meetings/Summaries/V7 empty transcript file.md')).toBeUndefined();
      expect(setup.read('Meetings/V7 empty transcript file.md')).toBe(original.get('Meetings/V7 empty transcript file.md'));
    }));

  it('binary junk after a valid frontmatter: the read is an Error for the agent, the run goes on to a summary', () =>
    tally.check('binary transcript body', () => {
      expectSummarized('V8 binary transcript body');
      expect(results.get('V8 binary transcript body')![0]!.output).toMatch(/^Error: .*binary/);
    }));

  it('a transcript that is binary junk through and through: no frontmatter, so no state: left alone, nothing created', () =>
    tally.check('binary junk transcript', () => {
      expect(setup.readIfExists('Meetings/Summaries/V9 binary junk.md')).toBeUndefined();
      expect(vaultHealth(setup.vault, ['Meetings/Transcripts/V9 binary junk.md', 'Meetings/Transcripts/V13 broken transcript.md', ...Object.keys(BROKEN_YAML).map((n) => `Meetings/${n}.md`)]).unparsable).toEqual([]);
    }));

  it('a transcript linking to a missing meeting note: not summarized, a warning names it, nothing created', () =>
    tally.check('missing meeting note', () => {
      expect(warned(/V10 missing meeting\.md/)).toBe(true);
      expect(setup.readIfExists('Meetings/Summaries/V10 no such meeting note.md')).toBeUndefined();
      expect(setup.readIfExists('Meetings/Context/V10 no such meeting note.md')).toBeUndefined();
      expect(existsSync(path.join(setup.vault, 'Meetings/V10 no such meeting note.md'))).toBe(false);
    }));

  it('two meeting notes claiming one transcript: neither is guessed, a warning names both', () =>
    tally.check('two meetings claim one transcript', () => {
      for (const name of ['V12 first claim', 'V12 second claim']) {
        expect(setup.readIfExists(`Meetings/Context/${name}.md`), name).toBeUndefined();
        expect(setup.read(`Meetings/${name}.md`)).toBe(original.get(`Meetings/${name}.md`));
      }
      expect(file.server.modelRequests().some((r) => nameOf(r).startsWith('V12'))).toBe(false);
      expect(warned(/V12 shared\.md.*V12 first claim\.md.*V12 second claim\.md/)).toBe(true);
    }));

  it('a meeting note renamed during the run: the run finishes, the renamed note is whole and nothing recreates the old one', () =>
    tally.check('note renamed during a run', () => {
      expect(dataOf(setup, 'Meetings/Context/V11 renamed during the run.md')?.state).toBe('finished');
      expect(dataOf(setup, 'Meetings/Summaries/V11 renamed during the run.md')?.status).toBe('done');
      expect(existsSync(path.join(setup.vault, 'Meetings/V11 renamed during the run.md'))).toBe(false);
      const renamed = parseNote(setup.read('Meetings/V11 renamed by a person.md'));
      expect(renamed.data.title).toBe('V11 renamed during the run');
      expect(renamed.body).toBe('User notes of V11 renamed during the run.\n');
      // The agent was told the note is gone; it was not edited behind the person's back.
      expect(results.get('V11 renamed during the run')![1]!.output).toMatch(/^Error: /);
      expect(results.get('V11 renamed during the run (2)')![0]!.output).toMatch(/^Error: /);
    }));

  it('the context note renamed during the run: the run still finishes, its state and audit land in a context note at the path the meeting names', () =>
    tally.check('context note renamed during a run', () => {
      const name = 'V14 context renamed during the run';
      expect(dataOf(setup, `Meetings/Summaries/${name}.md`)?.status).toBe('done');
      const context = parseNote(setup.read(`Meetings/Context/${name}.md`));
      expect(context.data).toMatchObject({ state: 'finished', meeting: `[[Meetings/${name}]]` });
      expect(context.body).toContain(`### Meetings/${name}.md`);
      // The person's moved copy is theirs: left as it was.
      expect(setup.readIfExists('Meetings/Context/V14 moved by a person.md')).toBeDefined();
    }));

  it('a transcript whose frontmatter does not parse: not summarized, a warning names it', () =>
    tally.check('broken transcript frontmatter', () => {
      expect(setup.readIfExists('Meetings/Context/V13 broken transcript.md')).toBeUndefined();
      expect(warned(/V13 broken transcript\.md/)).toBe(true);
    }));

  it('survived the hostile vault: every case in a clear state, the daemon still up, no half-written note', async () => {
    expect(await (await fetch(`http://127.0.0.1:${setup.port}/healthz`)).text()).toBe('ok');
    expect(daemon.logs.filter((l) => l.msg === 'run failed unexpectedly' || l.msg === 'file event not handled')).toEqual([]);
    expect(vaultHealth(setup.vault, ['Meetings/Transcripts/V9 binary junk.md', 'Meetings/Transcripts/V13 broken transcript.md', ...Object.keys(BROKEN_YAML).map((n) => `Meetings/${n}.md`)])).toEqual({
      temps: [],
      unparsable: [],
    });
    console.log(tally.summary());
    expect(tally.lost).toEqual([]);
    expect(tally.runCount).toBe(Object.keys(BROKEN_YAML).length + 14);
    expect(tally.survivedCount).toBe(tally.runCount);
  });
});
