import { readFileSync } from 'node:fs';
import path from 'node:path';
import { type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, launchChromium } from '../helpers/browser.js';
import { type DaemonProcess, startDaemonProcess, waitFor } from '../helpers/daemon-process.js';
import { daemonSetup, type DaemonSetup, daemonTestFile, dataOf, meetingNote, summarizingModel, transcriptNote } from '../helpers/daemon-helpers.js';
import { lastToolResults, type RecordedRequest, type Step, toolNamesOf, userTexts } from '../helpers/scripted-server.js';
import { askVaultFiles, KICKOFF, summaryPath } from '../ask/ask-vault.js';

/**
 * `POST /api/ask` and the status page's Ask box (docs/design.md §11) against the real daemon
 * process and the scripted endpoint: the events parsed off the stream, the token and the
 * page's cookie, Ask.MaxConcurrent and its waiting question, a summary run going on beside a
 * question, and the box in headless Chromium (skipped, by name, where there is none).
 */

declare const document: { querySelector(selector: string): { textContent: string | null } | null; addEventListener(type: string, fn: (e: { target: { closest(s: string): { href: string } | null } }) => void, capture: boolean): void };
declare const window: { clickedHref?: string };

const ANSWER_PIECES = ['The release', ' is planned', ` for December ([[Meetings/Summaries/${KICKOFF}]]).`];

/** Requests held until the test lets them go: the question's final answer, to watch what waits behind it. */
const held: (() => void)[] = [];
let holdAnswers = false;
/**
 * The pause before each piece of an answer: the API's tests read the pieces off the stream
 * whatever it is; the box's tests set 150 ms, for the page to show the first piece while the
 * last has not come.
 */
let pieceDelayMs = 20;

/** A question's model: first it reads the Kickoff summary, then it answers in pieces. Summary runs get the summarizing model. */
const model: Step = {
  handler: async (req: RecordedRequest): Promise<Step> => {
    if (toolNamesOf(req).includes('write_summary') || !toolNamesOf(req).includes('list_meetings')) return summarizingModel();
    if (lastToolResults(req).length === 0) return { reply: { toolCalls: [{ name: 'read_meeting', arguments: { meeting: summaryPath(KICKOFF) } }] } };
    if (holdAnswers) await new Promise<void>((resolve) => held.push(resolve));
    return { reply: { content: ANSWER_PIECES.join(''), stream: { pieces: ANSWER_PIECES, pieceDelayMs } } };
  },
};

interface SseEvent {
  event: string;
  data: Record<string, unknown>;
}

/** POST /api/ask; the events as they came, parsed off the stream, each also handed to `onEvent` when it arrives. */
async function askApi(base: string, body: unknown, headers: Record<string, string>, onEvent?: (e: SseEvent) => void): Promise<{ status: number; events: SseEvent[]; type: string | null }> {
  const res = await fetch(`${base}/api/ask`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  const type = res.headers.get('content-type');
  if (!type?.startsWith('text/event-stream')) {
    await res.text();
    return { status: res.status, events: [], type };
  }
  const events: SseEvent[] = [];
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const lines = buffer.slice(0, end).split('\n');
      buffer = buffer.slice(end + 2);
      const event = lines.find((l) => l.startsWith('event: '))?.slice(7) ?? 'message';
      const data = JSON.parse(lines.filter((l) => l.startsWith('data: ')).map((l) => l.slice(6)).join('\n')) as Record<string, unknown>;
      events.push({ event, data });
      onEvent?.({ event, data });
    }
  }
  return { status: res.status, events, type };
}

const isDebug = (level: unknown): boolean => String(level) === '20' || level === 'debug';

describe('POST /api/ask and the Ask box', () => {
  const file = daemonTestFile('all');
  let setup: DaemonSetup;
  let daemon: DaemonProcess;
  let base: string;
  let token: string;

  beforeAll(async () => {
    setup = await daemonSetup(file.server, { Ask: { MaxConcurrent: 1 } });
    // The meetings and their summaries; no transcript in the trigger state, so nothing runs at start.
    for (const [rel, text] of Object.entries(askVaultFiles())) if (!rel.includes('/Transcripts/')) setup.write(rel, text);
    file.server.setFallback(model);
    daemon = await startDaemonProcess({ configPath: setup.configPath });
    token = readFileSync(path.join(setup.vault, '.meeting-assistant', 'token'), 'utf8').trim();
    base = `http://127.0.0.1:${setup.port}`;
});
  afterAll(async () => {
    await daemon?.stop();
  });

  it('streams delta events, then the sources, then done; the question is logged at debug only', async () => {
    const { status, type, events } = await askApi(base, { question: 'When is the release?' }, { authorization: `Bearer ${token}` });
    expect(status).toBe(200);
    expect(type).toMatch(/^text\/event-stream/);
    expect(events.map((e) => e.event)).toEqual(['delta', 'delta', 'delta', 'sources', 'done']);
    expect(events.filter((e) => e.event === 'delta').map((e) => e.data.text)).toEqual(ANSWER_PIECES);
    expect(events[3]!.data.sources).toEqual([{ path: summaryPath(KICKOFF), title: 'Kickoff', start_time: '2026-11-02T09:00:00+01:00' }]);
    expect(events[4]!.data).toEqual({ answer: ANSWER_PIECES.join(''), turns: 2 });
    const holding = daemon.logs.filter((l) => JSON.stringify(l).includes('When is the release?'));
    expect(holding.length).toBeGreaterThan(0);
    expect(holding.every((l) => isDebug(l.level))).toBe(true);
  });

  it('refuses a request without the token (401) and a bad body (400), before any model request', async () => {
    const before = file.server.modelRequests().length;
    expect((await askApi(base, { question: 'x' }, {})).status).toBe(401);
    expect((await askApi(base, { question: 'x' }, { authorization: 'Bearer wrong' })).status).toBe(401);
    for (const body of [{}, { question: '  ' }, { question: 42 }, { question: 'x', from: '2026-02-31' }, { question: 'x', projects: 'Alpha' }]) {
      expect((await askApi(base, body, { authorization: `Bearer ${token}` })).status, JSON.stringify(body)).toBe(400);
    }
    expect(file.server.modelRequests().length).toBe(before);
  });

  it("from the page: its cookie with the page's CSRF value, from its own origin; the cookie alone is 401", async () => {
    const signIn = await fetch(`${base}/?token=${encodeURIComponent(token)}`, { redirect: 'manual' });
    const cookie = signIn.headers.get('set-cookie')!.split(';')[0]!;
    const html = await (await fetch(`${base}/`, { headers: { cookie } })).text();
    const csrf = /data-csrf="([^"]+)"/.exec(html)![1]!;
    expect((await askApi(base, { question: 'x' }, { cookie })).status).toBe(401);
    expect((await askApi(base, { question: 'x' }, { cookie, 'x-csrf-token': 'wrong' })).status).toBe(401);
    expect((await askApi(base, { question: 'x' }, { cookie, 'x-csrf-token': csrf, origin: 'http://evil.example' })).status).toBe(401);
    expect((await askApi(base, { question: 'x' }, { 'x-csrf-token': csrf })).status).toBe(401);
    const answered = await askApi(base, { question: 'When is the release?' }, { cookie, 'x-csrf-token': csrf });
    expect(answered.events.map((e) => e.event).slice(-2)).toEqual(['sources', 'done']);
  });

  it('a client that goes away stops its question and frees its slot', async () => {
    holdAnswers = true;
    const gone = new AbortController();
    const leaving = fetch(`${base}/api/ask`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: JSON.stringify({ question: 'Leaving?' }), signal: gone.signal }).then((r) => r.text());
    await waitFor(() => held.length === 1, 'the question to be answering');
    gone.abort();
    await expect(leaving).rejects.toThrow();
    await daemon.waitForLog((l) => l.msg === 'question not answered', 10_000, 'the question to stop');
    holdAnswers = false;
    held.shift()!();
    const next = await askApi(base, { question: 'Next?' }, { authorization: `Bearer ${token}` });
    expect(next.events.map((e) => e.event)).toEqual(['delta', 'delta', 'delta', 'sources', 'done']);
  });

  it('a question past Ask.MaxConcurrent waits and says so; a summary run meanwhile takes its own slot and finishes', async () => {
    holdAnswers = true;
    const first = askApi(base, { question: 'First?' }, { authorization: `Bearer ${token}` });
    await waitFor(() => held.length === 1, 'the first question to be answering');
    let waiting = false;
    const second = askApi(base, { question: 'Second?' }, { authorization: `Bearer ${token}` }, (e) => (waiting ||= e.event === 'waiting'));
    await waitFor(() => waiting || undefined, 'the second question to say it waits');
    // A meeting finishes while the question holds its slot: the summary is written all the same.
    setup.write('Meetings/Side meeting.md', meetingNote('Side meeting'));
    setup.write('Meetings/Transcripts/Side meeting.md', transcriptNote('Side meeting', 'finished'));
    await waitFor(() => dataOf(setup, 'Meetings/Summaries/Side meeting.md')?.status === 'done' || undefined, 'the summary beside the question', 30_000);
    expect(file.server.modelRequests().some((r) => userTexts(r)[0] === 'Second?')).toBe(false);
    holdAnswers = false;
    held.shift()!();
    const [a, b] = await Promise.all([first, second]);
    expect(a.events.map((e) => e.event)).toEqual(['delta', 'delta', 'delta', 'sources', 'done']);
    expect(b.events[0]).toEqual({ event: 'waiting', data: { ahead: 1, maxConcurrent: 1 } });
    expect(b.events.slice(1).map((e) => e.event)).toEqual(['delta', 'delta', 'delta', 'sources', 'done']);
});

  describe.skipIf(!CHROMIUM)('the Ask box in headless chromium (Debian chromium package)', () => {
    let browser: Browser;
    let page: Page;
    beforeAll(async () => {
      pieceDelayMs = 150;
      browser = await launchChromium();
      page = await (await browser.newContext()).newPage();
});
    afterAll(async () => {
      await browser?.close();
    });

    it('types a question, sees the answer arrive piece by piece, and clicks a source that opens the note in Obsidian', async () => {
      await page.goto(`${base}/?token=${encodeURIComponent(token)}`);
      await page.fill('#ask-question', 'When is the release?');
      await page.click('#ask-form button');
      // The first piece is on the page while the stream is still open: it arrived as it was sent.
      await page.waitForFunction(() => (document.querySelector('#ask-answer')?.textContent ?? '').startsWith('The release'), undefined, { timeout: 15_000, polling: 20 });
      expect(await page.textContent('#ask-answer')).not.toContain('December');
      await page.waitForFunction(() => (document.querySelector('#ask-sources')?.textContent ?? '').includes('Kickoff'), undefined, { timeout: 15_000, polling: 50 });
      expect(await page.textContent('#ask-answer')).toBe(ANSWER_PIECES.join(''));
      const link = page.locator('#ask-sources a', { hasText: 'Kickoff' });
      expect(await link.getAttribute('href')).toBe(`obsidian://open?vault=vault&file=${encodeURIComponent(summaryPath(KICKOFF))}`);
      await page.evaluate(() => document.addEventListener('click', (e) => (window.clickedHref = e.target.closest('a')?.href), true));
      await link.click();
      expect(await page.evaluate(() => window.clickedHref)).toBe(`obsidian://open?vault=vault&file=${encodeURIComponent(summaryPath(KICKOFF))}`);
      expect(page.url()).toBe(`${base}/`);
});

    it('a question past Ask.MaxConcurrent says on the page that it waits', async () => {
      holdAnswers = true;
      const other = askApi(base, { question: 'Ahead?' }, { authorization: `Bearer ${token}` });
      await waitFor(() => held.length === 1, 'the question ahead');
      // A tab of its own: once headless chromium has been handed the obsidian:// link above, it may
      // take no more clicks or keys in that tab (it did not, when the question ahead took a
      // second longer to be held: the time chromium takes to look for the link's handler).
      page = await (await browser.newContext()).newPage();
      await page.goto(`${base}/?token=${encodeURIComponent(token)}`);
      await page.fill('#ask-question', 'Behind?');
      await page.click('#ask-form button');
      await page.waitForFunction(() => (document.querySelector('#ask-state')?.textContent ?? '').includes('Waiting: 1 question ahead'), undefined, { timeout: 15_000, polling: 50 });
      holdAnswers = false;
      held.shift()!();
      expect((await other).events.map((e) => e.event)).toEqual(['delta', 'delta', 'delta', 'sources', 'done']);
      await page.waitForFunction(() => (document.querySelector('#ask-sources')?.textContent ?? '').includes('Kickoff'), undefined, { timeout: 15_000, polling: 50 });
      expect(await page.textContent('#ask-state')).toBe('');
});
  });
});
