import { beforeAll, describe, expect, it } from 'vitest';
import { parseNote } from '../../src/vault/format/frontmatter.js';
import { FaultTally, perMeetingModel, vaultHealth } from '../helpers/faults.js';
import { type DaemonProcess, freePort, type LogLine, startDaemonProcess, waitFor } from '../helpers/daemon-process.js';
import { contextLengthStep, errorBody, type Step } from '../helpers/scripted-server.js';
import { daemonSetup, type DaemonSetup, daemonTestFile, dataOf, meetingNote, transcriptNote } from '../helpers/daemon-helpers.js';

/**
 * Endpoint faults against the real daemon process: one daemon, one meeting per fault, the
 * scripted endpoint choosing the fault by the meeting its request names. Reconnect.Attempts
 * is 2, so a transient fault gets at most three requests for one step; everything else is
 * answered at once. Connection refused needs an endpoint nobody listens on: a second daemon,
 * whose run waits for the endpoint (docs/design.md §2) instead of spending its retries.
 */

const tally = new FaultTally('endpoint faults');
const ATTEMPTS = 2;
const DELAY_SECONDS = 0.05;
const TIMEOUT_SECONDS = 3;

const status = (code: number, body?: string | object, headers?: Record<string, string>): Step => ({
  status: code,
  ...(body !== undefined && { body }),
  ...(headers && { headers }),
});
const PROXY_PAGE =
  '<!DOCTYPE html><html><head><title>502 Bad Gateway</title><style>body{color:red}</style></head>' +
  '<body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx/1.25.3</center></body></html>';

interface Fault {
  /** Steps answering the meeting's first requests, in order (`always`: every request). */
  steps: Step[];
  always?: boolean;
  /** The n-th request gets the first step (context length: after a tool round). */
  from?: number;
}

const FAULTS: Record<string, Fault> = {
  'F01 429 Retry-After': { steps: [status(429, errorBody('Rate limit reached', { type: 'rate_limit_error' }), { 'retry-after': '1' })] },
  'F02 429': { steps: [status(429, errorBody('Rate limit reached')), status(429, errorBody('Rate limit reached'))] },
  'F03 500': { steps: [status(500, errorBody('The server had an error', { type: 'server_error' }))], always: true },
  'F04 502': { steps: [status(502, errorBody('Bad gateway', { type: 'server_error' }))] },
  'F05 503': { steps: [status(503, errorBody('Overloaded')), status(503, errorBody('Overloaded'))] },
  'F06 504': { steps: [status(504, errorBody('Gateway timeout'))], always: true },
  'F08 reset mid-body': { steps: [{ resetMidBody: true }] },
  'F09 never ends': { steps: [{ hang: true }] },
  'F10 invalid JSON': { steps: [{ invalidJson: true }], always: true },
  'F11 proxy HTML page': { steps: [status(502, PROXY_PAGE)], always: true },
  'F12 401': { steps: [status(401, errorBody('Incorrect API key provided: sk-wrong.', { code: 'invalid_api_key' }))], always: true },
  'F13 404 model': {
    steps: [status(404, errorBody('The model `test-model` does not exist or you do not have access to it.', { code: 'model_not_found' }))],
    always: true,
  },
  'F14 context length': {
    // First a tool round, then the 400: the loop compacts and tries once more.
    steps: [{ reply: { toolCalls: [{ name: 'read_transcript', arguments: { from: 1, to: 5 } }] } }, contextLengthStep()],
  },
};

const rel = (name: string) => `Meetings/${name}.md`;
let counts: Map<string, number>;
let setup: DaemonSetup;
let refusedSetup: DaemonSetup;
let daemon: DaemonProcess;
let refusedDaemon: DaemonProcess;

const file = daemonTestFile('all');

beforeAll(async () => {
  const model = perMeetingModel((meeting, n) => {
    const name = meeting.replace(/^Meetings\//, '').replace(/\.md$/, '');
    const fault = FAULTS[name];
    if (!fault) return undefined;
    const i = n - (fault.from ?? 0);
    if (i < 0) return undefined;
    if (fault.always) return fault.steps[0];
    return fault.steps[i];
  });
  counts = model.counts;
  file.server.setFallback(model.step);
  const settings = {
    Endpoint: { TimeoutSeconds: TIMEOUT_SECONDS },
    Reconnect: { Attempts: ATTEMPTS, DelaySeconds: DELAY_SECONDS },
    Daemon: { MaxConcurrentSummaries: 4, ShutdownGraceSeconds: 1 },
  };
  setup = await daemonSetup(file.server, settings);
  for (const name of Object.keys(FAULTS)) {
    setup.write(rel(name), meetingNote(name));
    // Finished before the daemon starts: the start-up catch-up enqueues every meeting.
    setup.write(`Meetings/Transcripts/${name}.md`, transcriptNote(name, 'finished'));
  }
  refusedSetup = await daemonSetup(file.server, { ...settings, Endpoint: { BaseUrl: `http://127.0.0.1:${await freePort()}/v1` } });
  refusedSetup.write(rel('F07 refused'), meetingNote('F07 refused'));
  refusedSetup.write('Meetings/Transcripts/F07 refused.md', transcriptNote('F07 refused', 'finished'));

  [daemon, refusedDaemon] = await Promise.all([
    startDaemonProcess({ configPath: setup.configPath }),
    startDaemonProcess({ configPath: refusedSetup.configPath }),
  ]);
  // The run process writes the notes; its log lines reach the daemon's log through the
  // daemon, which says the outcome after them: the notes alone may be in before the lines.
  const outcomeLogged = (name: string) => daemon.logs.some((l) => l.meeting === rel(name) && /^(summary written|meeting failed): /.test(String(l.msg)));
  const settled = (s: DaemonSetup, names: string[]) =>
    names.every((n) => {
      const state = dataOf(s, `Meetings/Context/${n}.md`)?.state;
      return (state === 'finished' || state === 'error') && dataOf(s, `Meetings/Summaries/${n}.md`)?.status !== undefined && outcomeLogged(n);
    });
  await Promise.all([
    waitFor(() => settled(setup, Object.keys(FAULTS)), 'every fault meeting to settle and its outcome to be logged', 45_000),
    waitFor(
      () =>
        refusedDaemon.logs.some((l) => String(l.msg).startsWith('the model endpoint does not answer')) &&
        dataOf(refusedSetup, 'Meetings/Context/F07 refused.md')?.state === 'summarizing',
      'the refused meeting to wait for the endpoint',
      45_000,
    ),
  ]);
});

/** The failure report's fields, as a person reads them. */
function report(s: DaemonSetup, name: string) {
  const text = s.read(`Meetings/Summaries/${name}.md`);
  const note = parseNote(text);
  const field = (label: string) => new RegExp(`^- ${label}: (.*)$`, 'm').exec(note.body)?.[1];
  const message = /^## Error[\s\S]*?```text\n([\s\S]*?)\n```/m.exec(note.body)?.[1] ?? '';
  return { data: note.data, body: note.body, type: field('Type'), httpStatus: field('HTTP status'), attempts: field('Attempts'), message };
}

function expectDone(s: DaemonSetup, name: string) {
  expect(dataOf(s, `Meetings/Summaries/${name}.md`)).toMatchObject({ status: 'done' });
  expect(s.read(`Meetings/Summaries/${name}.md`)).toContain('- Ship on Friday.');
  expect(dataOf(s, `Meetings/Context/${name}.md`)?.state).toBe('finished');
}

function expectFailed(s: DaemonSetup, name: string) {
  expect(dataOf(s, `Meetings/Summaries/${name}.md`)).toMatchObject({ status: 'failed', retry: false });
  expect(dataOf(s, `Meetings/Context/${name}.md`)?.state).toBe('error');
}

const retryWaits = (d: DaemonProcess, name: string) =>
  d.logs.filter((l: LogLine) => l.meeting === rel(name) && typeof l.waitMs === 'number').map((l) => l.waitMs);

describe('fault suite: endpoint faults (real daemon, scripted endpoint, Reconnect.Attempts 2)', () => {
  it('429 with Retry-After: waits what the server asks (1 s, more than DelaySeconds), then succeeds', () =>
    tally.check('429 with Retry-After', () => {
      expectDone(setup, 'F01 429 Retry-After');
      expect(counts.get(rel('F01 429 Retry-After'))).toBe(3); // 429, write_summary, done
      expect(retryWaits(daemon, 'F01 429 Retry-After')).toEqual([1000]);
    }));

  it('429 without Retry-After: retried after DelaySeconds, twice, and the third request succeeds', () =>
    tally.check('429 without Retry-After', () => {
      expectDone(setup, 'F02 429');
      expect(counts.get(rel('F02 429'))).toBe(4);
      expect(retryWaits(daemon, 'F02 429')).toEqual([50, 50]);
    }));

  it('500 every time: three requests, then a failure report with the status and the attempts', () =>
    tally.check('500', () => {
      expectFailed(setup, 'F03 500');
      expect(counts.get(rel('F03 500'))).toBe(ATTEMPTS + 1);
      const r = report(setup, 'F03 500');
      expect(r).toMatchObject({ type: 'ModelError (http)', httpStatus: '500', attempts: '3' });
      expect(r.message).toContain('The server had an error');
    }));

  it('502 once: retried and summarized', () =>
    tally.check('502', () => {
      expectDone(setup, 'F04 502');
      expect(counts.get(rel('F04 502'))).toBe(3);
    }));

  it('503 twice: the last allowed attempt succeeds', () =>
    tally.check('503', () => {
      expectDone(setup, 'F05 503');
      expect(counts.get(rel('F05 503'))).toBe(4);
    }));

  it('504 every time: three requests, failure report, context state error', () =>
    tally.check('504', () => {
      expectFailed(setup, 'F06 504');
      expect(counts.get(rel('F06 504'))).toBe(3);
      expect(report(setup, 'F06 504')).toMatchObject({ httpStatus: '504', attempts: '3' });
    }));

  it('connection refused: the run waits for the endpoint instead of spending its retries, no failure report', () =>
    tally.check('connection refused', () => {
      expect(dataOf(refusedSetup, 'Meetings/Summaries/F07 refused.md')).toBeUndefined();
      expect(dataOf(refusedSetup, 'Meetings/Context/F07 refused.md')?.state).toBe('summarizing');
      const wait = refusedDaemon.logs.find((l) => String(l.msg).startsWith('the model endpoint does not answer'))!;
      expect(wait.level).toBe('warn');
      expect(retryWaits(refusedDaemon, 'F07 refused')).toEqual([]);
    }));

  it('connection reset in the middle of the body: retried and summarized', () =>
    tally.check('connection reset mid-body', () => {
      expectDone(setup, 'F08 reset mid-body');
      expect(counts.get(rel('F08 reset mid-body'))).toBe(3);
      expect(daemon.logs.some((l) => l.meeting === rel('F08 reset mid-body') && l.kind === 'network')).toBe(true);
    }));

  it('a response that never ends: cut at Endpoint.TimeoutSeconds, retried and summarized', () =>
    tally.check('never-ending response', () => {
      expectDone(setup, 'F09 never ends');
      expect(counts.get(rel('F09 never ends'))).toBe(3);
      expect(daemon.logs.some((l) => l.meeting === rel('F09 never ends') && l.kind === 'timeout')).toBe(true);
    }));

  it('invalid JSON in a 200: retried like a 5xx (a proxy, a server restarting), then the failure report says so', () =>
    tally.check('invalid JSON', () => {
      expectFailed(setup, 'F10 invalid JSON');
      expect(counts.get(rel('F10 invalid JSON'))).toBe(3);
      const r = report(setup, 'F10 invalid JSON');
      expect(r).toMatchObject({ type: 'ModelError (invalid-response)', attempts: '3' });
      expect(r.message).toMatch(/not JSON/);
    }));

  it("a proxy's HTML error page: retried as a 502, reported as its text without markup", () =>
    tally.check('HTML error page', () => {
      expectFailed(setup, 'F11 proxy HTML page');
      expect(counts.get(rel('F11 proxy HTML page'))).toBe(3);
      const r = report(setup, 'F11 proxy HTML page');
      expect(r).toMatchObject({ httpStatus: '502', attempts: '3' });
      expect(r.message).toContain('502 Bad Gateway');
      expect(r.message).not.toMatch(/<[a-z]|color:red/i);
    }));

  it('401: not retried; the report says to fix the API key', () =>
    tally.check('401', () => {
      expectFailed(setup, 'F12 401');
      expect(counts.get(rel('F12 401'))).toBe(1);
      const r = report(setup, 'F12 401');
      expect(r).toMatchObject({ httpStatus: '401', attempts: '1' });
      expect(r.message).toContain('Endpoint.ApiKey');
    }));

  it('404 model not found: not retried; the report names Endpoint.Model', () =>
    tally.check('404 model not found', () => {
      expectFailed(setup, 'F13 404 model');
      expect(counts.get(rel('F13 404 model'))).toBe(1);
      const r = report(setup, 'F13 404 model');
      expect(r).toMatchObject({ httpStatus: '404', attempts: '1' });
      expect(r.message).toContain('Endpoint.Model');
    }));

  it('context-length 400: compaction, one more try, summarized', () =>
    tally.check('context-length 400', () => {
      expectDone(setup, 'F14 context length');
      // read_transcript, the 400, the retry (write_summary), done.
      expect(counts.get(rel('F14 context length'))).toBe(4);
      expect(daemon.logs.some((l) => l.meeting === rel('F14 context length') && /context is too long/.test(l.msg ?? ''))).toBe(true);
    }));

  it('survived every endpoint fault: 14/14, the daemons still up, no half-written note', async () => {
    for (const s of [setup, refusedSetup]) {
      const health = await fetch(`http://127.0.0.1:${s.port}/healthz`);
      expect(await health.text()).toBe('ok');
      expect(vaultHealth(s.vault)).toEqual({ temps: [], unparsable: [] });
    }
    // Nothing left open at the endpoint: every hanging request was given up.
    expect(file.server.inFlight).toBe(0);
    console.log(tally.summary());
    expect(tally.lost).toEqual([]);
    expect(tally.runCount).toBe(14);
    expect(tally.survivedCount).toBe(14);
  });
});
