import { chmodSync, mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, launchChromium } from '../helpers/browser.js';
import { type DaemonProcess, startDaemonProcess, waitFor } from '../helpers/daemon-process.js';
import { type RecordedRequest, type Step } from '../helpers/scripted-server.js';
import { daemonSetup, type DaemonSetup, daemonTestFile, dataOf, failingModel, meetingNote, summarizingModel, transcriptNote } from '../helpers/daemon-helpers.js';

/**
 * The status page in a real browser (headless Chromium from Debian's `chromium` package,
 * driven by playwright-core; no browser download) against the real daemon process and the
 * scripted endpoint: a run moving and finishing, a failure and its Retry, the sign-in, the
 * refusals, the notifications (a stand-in notify-send on PATH records its arguments).
 */

// What the functions run inside the page see (this project's TypeScript has no DOM library).
declare const document: {
  querySelector(selector: string): { textContent: string | null } | null;
  body: object;
  documentElement: { scrollWidth: number; clientWidth: number };
};
declare const window: { notReloaded?: boolean; getComputedStyle(element: object): { backgroundColor: string } };

/**
 * A screenshot of each state the page goes through, for a person to look at: into
 * STATUS_PAGE_SHOTS when set, else a temp folder (docs/status-page.png, the README's, is
 * retaken by bench/status-page.mjs). Each must be a real image.
 */
const SHOTS = process.env.STATUS_PAGE_SHOTS || mkdtempSync(path.join(os.tmpdir(), 'ma-status-shots-'));
async function shot(name: string): Promise<void> {
  const file = path.join(SHOTS, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  expect(statSync(file).size).toBeGreaterThan(2000);
}

let setup: DaemonSetup;
let daemon: DaemonProcess | undefined;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let token: string;
let base: string;
let notifyLog: string;

/** A model request held until the test releases it, so the page can be watched mid-run. */
function heldModel(): { step: Step; release(): void; waiting(): number } {
  const waiters: (() => void)[] = [];
  const inner = summarizingModel();
  return {
    step: {
      handler: (req: RecordedRequest) =>
        new Promise<Step>((resolve) => waiters.push(() => resolve((inner as { handler: (r: RecordedRequest) => Step }).handler(req)))),
    },
    release: () => waiters.shift()?.(),
    waiting: () => waiters.length,
  };
}

/** Resolves when the element's text contains `text` (the page updates itself; it is never reloaded here). */
async function waitText(selector: string, text: string, timeout = 15_000): Promise<void> {
  try {
    await page.waitForFunction(
      ([sel, t]) => (document.querySelector(sel!)?.textContent ?? '').includes(t!),
      [selector, text],
      { timeout, polling: 50 },
    );
  } catch (err) {
    const shown = await page.textContent(selector).catch(() => '(no such element)');
    throw new Error(`${selector} did not show "${text}" within ${timeout} ms; it shows: ${shown}`, { cause: err });
  }
}

function finishTranscript(name: string): void {
  setup.write(`Meetings/${name}.md`, meetingNote(name));
  setup.write(`Meetings/Transcripts/${name}.md`, transcriptNote(name, 'finished'));
}

/** A stand-in for a desktop program: appends its arguments (one a line, then a blank line) to `log`. */
function standIn(bin: string, name: string, log: string): void {
  const file = path.join(bin, name);
  writeFileSync(file, `#!/bin/sh\nfor a in "$@"; do printf '%s\\n' "$a" >> '${log}'; done\necho >> '${log}'\n`);
  chmodSync(file, 0o755);
}

describe.skipIf(!CHROMIUM)('status page in headless chromium (Debian chromium package)', () => {
  const file = daemonTestFile('all');
  beforeAll(async () => {
    setup = await daemonSetup(file.server, { Notify: { OnSuccess: true, OnFailure: true } });
    const bin = path.join(setup.dir, 'bin');
    mkdirSync(bin);
    notifyLog = path.join(setup.dir, 'notify-send.log');
    standIn(bin, 'notify-send', notifyLog);
    standIn(bin, 'xdg-open', path.join(setup.dir, 'xdg-open.log'));
    daemon = await startDaemonProcess({ configPath: setup.configPath, env: { PATH: `${bin}${path.delimiter}${process.env.PATH}` } });
    token = readFileSync(path.join(setup.vault, '.meeting-assistant', 'token'), 'utf8').trim();
    base = `http://127.0.0.1:${setup.port}`;
    browser = await launchChromium();
    context = await browser.newContext();
    page = await context.newPage();
});

  afterAll(async () => {
    await browser?.close();
  });

  it('answers 401 without the cookie or the token, and with a wrong token', async () => {
    expect((await fetch(`${base}/`)).status).toBe(401);
    expect((await fetch(`${base}/?token=wrong`)).status).toBe(401);
    expect((await fetch(`${base}/status/live`)).status).toBe(401);
    const answer = await fetch(`${base}/retry`, { method: 'POST', body: 'note=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(answer.status).toBe(401);
  });

  it('turns ?token= into an HttpOnly SameSite=Strict cookie and drops it from the address bar', async () => {
    await page.goto(`${base}/?token=${encodeURIComponent(token)}`);
    expect(page.url()).toBe(`${base}/`);
    expect(await page.textContent('h1')).toBe('Meeting Assistant');
    const cookies = await context.cookies(base);
    expect(cookies).toEqual([expect.objectContaining({ name: `ma_session_${setup.port}`, httpOnly: true, sameSite: 'Strict' })]);
    expect(cookies[0]!.value).not.toContain(token);
    await waitText('#about', `${file.server.baseUrl}`);
    await waitText('#about', 'test-model, context window 32,768 tokens');
    await waitText('#about', 'not used yet');
    await waitText('#live', 'Live');
    await shot('1-idle');
  });

  it('shows a run moving (turn, tokens in use of the window) and finishing, without a reload', async () => {
    await page.evaluate(() => (window.notReloaded = true));
    const held = heldModel();
    file.server.setFallback(held.step);
    finishTranscript('Alpha Sync');
    await waitText('#running', 'Alpha Sync');
    await waitText('#running', 'turn 1 of at most 60');
    await waitFor(() => held.waiting() === 1, 'the first model request');
    held.release();
    await waitText('#running', 'turn 2 of at most 60');
    await waitText('#running', '15 of 32,768 tokens');
    await waitText('#running', 'summarize (transcript finished)');
    await shot('2-running');
    await waitFor(() => held.waiting() === 1, 'the second model request');
    held.release();
    await waitText('#running', 'Nothing is running.');
    await waitText('#recent', 'done');
    const row = page.locator('#recent tr.recent', { hasText: 'Alpha Sync' });
    expect(await row.locator('td.num').textContent()).toBe('2');
    expect(await row.locator('a').getAttribute('href')).toBe(
      'obsidian://open?vault=vault&file=Meetings%2FSummaries%2FAlpha%20Sync.md',
    );
    expect(await row.textContent()).toContain('Meetings/Summaries/Alpha Sync.md');
    await waitText('#about', '● up');
    await waitText('#summaries', 'Alpha Sync');
    expect(await page.locator('#summaries button', { hasText: 'Regenerate' }).count()).toBe(1);
    expect(await page.locator('#summaries .note').first().textContent()).toContain('The team reviewed the release.');
    await shot('3-done-with-summary');
    expect(await page.evaluate(() => window.notReloaded)).toBe(true);
  });

  it('shows a failure with its error and a Retry button; a POST without the CSRF token is refused', async () => {
    file.server.setFallback(failingModel);
    finishTranscript('Beta Review');
    await waitText('#failures', 'Beta Review');
    await waitText('#failures', 'model "test-model" is not loaded');
    expect(await page.locator('#failures button', { hasText: 'Retry' }).count()).toBe(1);
    await waitFor(() => dataOf(setup, 'Meetings/Summaries/Beta Review.md')?.status === 'failed', 'the failure report');
    await shot('4-failure');

    // The browser's cookie, but no CSRF token: refused, nothing queued.
    const refused = await context.request.post(`${base}/retry`, {
      form: { note: 'Meetings/Summaries/Beta Review.md' },
      maxRedirects: 0,
    });
    expect(refused.status()).toBe(403);
    const wrong = await context.request.post(`${base}/retry`, {
      form: { note: 'Meetings/Summaries/Beta Review.md', csrf: 'forged' },
      maxRedirects: 0,
    });
    expect(wrong.status()).toBe(403);
    expect(daemon!.logs.some((l) => typeof l.msg === 'string' && l.msg.startsWith('retry queued'))).toBe(false);
  });

  it('the Retry button re-runs the meeting and the page shows the new outcome', async () => {
    file.server.setFallback(summarizingModel());
    await page.locator('#failures button', { hasText: 'Retry' }).click();
    await page.waitForURL(`${base}/`);
    await waitText('#failures', 'No meeting is failing.');
    await waitFor(() => dataOf(setup, 'Meetings/Summaries/Beta Review.md')?.status === 'done', 'the summary from the retry');
    const newest = page.locator('#recent tr.recent').first();
    await waitFor(async () => (await newest.textContent())?.includes('Beta Review'), 'the retry at the top of the recent runs');
    expect(await newest.textContent()).toMatch(/Beta Review.*retry, status page.*done/s);
  });

  it('Regenerate re-runs a good summary from the page (CSRF form), listed as from the status page', async () => {
    const regenerate = page.locator('#summaries article', { hasText: 'Alpha Sync' }).locator('button', { hasText: 'Regenerate' });
    await regenerate.click();
    await page.waitForURL(`${base}/`);
    const newest = page.locator('#recent tr.recent').first();
    await waitFor(async () => /Alpha Sync.*retry, status page.*done/s.test((await newest.textContent()) ?? ''), 'the regeneration at the top of the recent runs');
    expect(dataOf(setup, 'Meetings/Summaries/Alpha Sync.md')?.status).toBe('done');
  });

  it('works at 420 px (no sideways scrolling: the tables become cards) and in a dark colour scheme', async () => {
    await page.setViewportSize({ width: 420, height: 900 });
    await page.reload();
    await waitText('#recent', 'Alpha Sync');
    const width = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }));
    expect(width.scroll).toBeLessThanOrEqual(width.client);
    await shot('5-narrow-420px');
    await page.emulateMedia({ colorScheme: 'dark' });
    const background = await page.evaluate(() => window.getComputedStyle(document.body).backgroundColor);
    expect(background).toBe('rgb(21, 23, 26)');
    await shot('6-narrow-dark');
    await page.setViewportSize({ width: 1280, height: 900 });
    await shot('7-wide-dark');
    await page.emulateMedia({ colorScheme: 'light' });
  });

  it('notified success and failure through notify-send, naming the meeting and its note', async () => {
    const calls = await waitFor(() => {
      const text = readFileSync(notifyLog, 'utf8');
      const list = text.split('\n\n').filter((c) => c.trim() !== '');
      return list.length >= 3 ? list : undefined;
    }, 'three notifications');
    const alpha = calls.find((c) => c.includes('Summary ready: Alpha Sync'));
    expect(alpha).toContain('Meetings/Summaries/Alpha Sync.md');
    expect(alpha).toContain('--app-name=Meeting Assistant');
    expect(alpha).toContain('--action=open=Open in Obsidian');
    const beta = calls.find((c) => c.includes('Summary failed: Beta Review'));
    expect(beta).toContain('--urgency=critical');
    expect(beta).toContain('model &#34;test-model&#34; is not loaded');
    expect(calls.some((c) => c.includes('Summary ready: Beta Review'))).toBe(true);
  });

  it('the recent runs survive a restart of the daemon', async () => {
    await daemon!.stop();
    daemon = await startDaemonProcess({ configPath: setup.configPath });
    await page.reload();
    await waitText('#recent', 'Alpha Sync');
    await waitText('#recent', 'Beta Review');
    expect(await page.locator('#recent tr.recent').count()).toBe(4);
  });
});
