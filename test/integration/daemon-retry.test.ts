import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { retrySignature } from '../../src/vault/files/state.js';
import { type DaemonProcess, startDaemonProcess, waitFor } from '../helpers/daemon-process.js';
import { type DaemonSetup, daemonSetup, daemonTestFile, dataOf, editProperty, failingModel, meetingNote, summarizingModel, transcriptNote } from '../helpers/daemon-helpers.js';

/** Failure reports and the three ways to retry them: the checkbox, the link, the API. */

const file = daemonTestFile();

/** Start a daemon whose endpoint fails, finish a meeting's transcript, wait for its failure report. */
async function failedMeeting(name: string): Promise<{ s: DaemonSetup; d: DaemonProcess; report: string }> {
  file.server.setFallback(failingModel);
  const s = await daemonSetup(file.server);
  s.write(`Meetings/${name}.md`, meetingNote(name));
  s.write(`Meetings/Transcripts/${name}.md`, transcriptNote(name, 'transcribing'));
  const d = await startDaemonProcess({ configPath: s.configPath });
  editProperty(s, `Meetings/Transcripts/${name}.md`, 'state', 'transcribing', 'finished');
  const rel = `Meetings/Summaries/${name}.md`;
  await waitFor(() => dataOf(s, rel)?.status === 'failed', 'the failure report');
  await waitFor(() => dataOf(s, `Meetings/Context/${name}.md`)?.state === 'error', 'context state error');
  return { s, d, report: s.read(rel) };
}

/** The daemon's generated HTTP token. */
function tokenOf(s: DaemonSetup): string {
  return readFileSync(path.join(s.vault, '.meeting-assistant/token'), 'utf8').trim();
}

function retryLinkOf(report: string): string {
  const m = /\[Retry now\]\((http:\/\/[^)]+)\)/.exec(report);
  if (!m) throw new Error(`no retry link in:\n${report}`);
  return m[1]!;
}

describe('daemon process: failure reports and retries', () => {
  it('the endpoint failing produces a failure report; ticking retry: true in it produces the summary in the same file', async () => {
    const { s, report } = await failedMeeting('Retry Box');
    const rel = 'Meetings/Summaries/Retry Box.md';
    expect(dataOf(s, rel)).toMatchObject({ status: 'failed', retry: false });
    expect(report).toContain('# Summary failed: Retry Box');
    expect(report).toContain('not loaded');
    expect(retryLinkOf(report)).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${s.port}/retry\\?note=Meetings%2FSummaries%2FRetry%20Box\\.md&sig=[\\w-]+$`));
    // The note syncs everywhere: the token never appears in it (issue #24 point 10).
    expect(report).not.toContain(tokenOf(s));
    expect(report).not.toContain('token=');

    file.server.setFallback(summarizingModel());
    editProperty(s, rel, 'retry', 'false', 'true');
    await waitFor(() => dataOf(s, rel)?.status === 'done', 'the summary in the same file');
    expect(s.read(rel)).toContain('Ship on Friday');
    expect(dataOf(s, rel)?.retry).toBeUndefined();
    await waitFor(() => dataOf(s, 'Meetings/Context/Retry Box.md')?.state === 'finished', 'context state finished');
  });

  it('the signed retry link does the same; unsigned 401, signed for another note 403, a signed note outside the summaries folder 400', async () => {
    const { s, d, report } = await failedMeeting('Retry Link');
    const rel = 'Meetings/Summaries/Retry Link.md';
    const link = retryLinkOf(report);
    const url = new URL(link);

    const noSig = new URL(url);
    noSig.searchParams.delete('sig');
    const unauthorized = await fetch(noSig);
    expect(unauthorized.status).toBe(401);
    const wrongSig = new URL(url);
    wrongSig.searchParams.set('sig', 'not-the-signature');
    expect((await fetch(wrongSig)).status).toBe(403);
    for (const outside of ['Meetings/Retry Link.md', '../config.json', `${s.vault}/Meetings/Transcripts/Retry Link.md`, 'Meetings/Summaries/../../config.json']) {
      const bad = new URL(url);
      bad.searchParams.set('note', outside);
      // This note's signature opens no other note.
      expect((await fetch(bad)).status, outside).toBe(403);
      bad.searchParams.set('sig', retrySignature(tokenOf(s), outside));
      expect((await fetch(bad)).status, outside).toBe(400);
    }
    // Nothing was retried by any of those.
    expect(dataOf(s, rel)?.status).toBe('failed');
    expect(d.logs.some((l) => l.msg?.startsWith('retry queued'))).toBe(false);

    file.server.setFallback(summarizingModel());
    const res = await fetch(link);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/text\/html/);
    expect(await res.text()).toMatch(/Retry queued/);
    await waitFor(() => dataOf(s, rel)?.status === 'done', 'the summary from the link');
    expect(s.read(rel)).toContain('Ship on Friday');
  });

  it('the link also regenerates a good summary, first copying it to .trash; POST /api/retry needs the bearer token', async () => {
    const { s, report } = await failedMeeting('Regenerate');
    const rel = 'Meetings/Summaries/Regenerate.md';
    const token = tokenOf(s);
    file.server.setFallback(summarizingModel());
    const api = `http://127.0.0.1:${s.port}/api/retry`;
    const body = JSON.stringify({ note: rel });
    expect((await fetch(api, { method: 'POST', body })).status).toBe(401);
    const accepted = await fetch(api, { method: 'POST', body, headers: { authorization: `Bearer ${token}` } });
    expect(accepted.status).toBe(202);
    await waitFor(() => dataOf(s, rel)?.status === 'done', 'the summary from the API');

    const good = s.read(rel);
    const again = await fetch(retryLinkOf(report));
    expect(again.status).toBe(200);
    const trash = path.join(s.vault, '.trash', 'Meetings', 'Summaries');
    // Not the atomic write's temporary file (a dot-file that may still be empty): the copy itself.
    const copies = () => (existsSync(trash) ? readdirSync(trash).filter((f) => !f.startsWith('.')) : []).map((f) => s.read(path.relative(s.vault, path.join(trash, f))));
    await waitFor(() => copies().length > 0, 'the trash copy');
    expect(copies()).toContain(good);
  });
});
