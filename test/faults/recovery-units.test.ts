import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Audit, auditJournalFolder } from '../../src/audit.js';
import { createModelClient } from '../../src/agent/model/client.js';
import { sweepTempFiles } from '../../src/daemon/intake/temp-sweep.js';
import { silentLogger } from '../../src/log.js';
import { type PipelineDeps, summarizeMeeting } from '../../src/meeting/pipeline.js';
import { parseNote } from '../../src/vault/format/frontmatter.js';
import { tempFileOwner, writeFileAtomic } from '../../src/vault/files/fs.js';
import { Vault } from '../../src/vault/files/vault.js';
import { auditSections } from '../helpers/faults.js';
import { memoryFs, memoryVault, testConfig } from '../helpers/memfs.js';
import { lastToolResults, type ScriptedServer, startScriptedServer, userTexts } from '../helpers/scripted-server.js';
import { meetingNote, SUMMARY_BODY, transcriptNote } from '../helpers/daemon-helpers.js';

/**
 * The pieces behind the crash-recovery guarantees, on memfs: leftover temporary files of
 * killed writers are swept at start, and the audit journal makes a resumed run report what
 * the interrupted run changed, exactly once.
 */

const CONTEXT = '/vault/Meetings/Context/M.md';
const SUMMARY = '/vault/Meetings/Summaries/M.md';

describe('leftover temporary files', () => {
  it('the writer pid is part of a temporary file name', async () => {
    const vault = memoryVault();
    let seen: string | undefined;
    const fs = vault.fs;
    const spy = { ...fs, open: (file: string, flags: string, mode?: number) => ((seen = file), fs.open(file, flags, mode)) };
    await writeFileAtomic(spy, '/vault/Projects/A/x.md', 'x');
    expect(tempFileOwner(seen!)).toBe(process.pid);
    expect(tempFileOwner('/vault/.x.md.abcdef012345.ma-tmp')).toBeUndefined();
  });

  it("sweeps dead writers' and very old temporary files below the written folders, keeps live ones and everything else", async () => {
    const DEAD = 999_999;
    const LIVE = 4242;
    const files = {
      [`Meetings/.A.md.${DEAD}-0a1b2c3d4e5f.ma-tmp`]: 'half',
      [`Meetings/Summaries/.S.md.${DEAD}-0a1b2c3d4e5f.ma-tmp`]: 'half',
      [`Projects/Alpha/docs/.n.md.${DEAD}-0a1b2c3d4e5f.ma-tmp`]: 'half',
      [`.meeting-assistant/.queue.json.${DEAD}-0a1b2c3d4e5f.ma-tmp`]: '{',
      [`Meetings/.B.md.${LIVE}-0a1b2c3d4e5f.ma-tmp`]: 'being written',
      [`Meetings/.C.md.${process.pid}-0a1b2c3d4e5f.ma-tmp`]: 'ours',
      'Meetings/.D.md.0a1b2c3d4e5f.ma-tmp': 'old format, young',
      [`.obsidian/.w.json.${DEAD}-0a1b2c3d4e5f.ma-tmp`]: 'not ours to touch',
      [`Elsewhere/.E.md.${DEAD}-0a1b2c3d4e5f.ma-tmp`]: 'outside the written folders',
      'Meetings/.hidden.md': 'a dot-file of a person',
      'Meetings/A.md': 'whole note',
    };
    const vault = memoryVault(files);
    const removed = await sweepTempFiles(vault, silentLogger, { isAlive: (pid) => pid === LIVE });
    expect(removed.map((f) => vault.rel(f)).sort()).toEqual(
      [
        `.meeting-assistant/.queue.json.${DEAD}-0a1b2c3d4e5f.ma-tmp`,
        `Meetings/.A.md.${DEAD}-0a1b2c3d4e5f.ma-tmp`,
        `Meetings/Summaries/.S.md.${DEAD}-0a1b2c3d4e5f.ma-tmp`,
        `Projects/Alpha/docs/.n.md.${DEAD}-0a1b2c3d4e5f.ma-tmp`,
      ].sort(),
    );
    for (const kept of Object.keys(files).filter((f) => !removed.includes(vault.abs(f)))) {
      expect(await vault.exists(vault.abs(kept)), kept).toBe(true);
    }
    // An hour later, the unknown-owner file is garbage too.
    const later = await sweepTempFiles(vault, silentLogger, { isAlive: () => true, clock: () => new Date(Date.now() + 2 * 3600_000) });
    expect(later.map((f) => vault.rel(f))).toContain('Meetings/.D.md.0a1b2c3d4e5f.ma-tmp');
  });
});

describe('audit journal', () => {
  const journaled = (vault: Vault) =>
    new Audit(vault, { excluded: [SUMMARY, CONTEXT], journal: auditJournalFolder(vault, CONTEXT) });

  it('a run resumed after a crash reports the crashed run’s writes, each file from before the first run touched it', async () => {
    const vault = memoryVault({ 'Projects/Alpha/notes.md': 'one\ntwo\n', 'Meetings/Speakers/Bob.md': 'voice\n' });
    const first = journaled(vault);
    await first.write('/vault/Projects/Alpha/notes.md', 'one\nTWO\n');
    await first.write('/vault/Projects/Alpha/new.md', 'created\n');
    await first.moveToTrash('/vault/Meetings/Speakers/Bob.md');
    await first.write(SUMMARY, 'never audited');
    // The process dies here: no render, no append.

    const second = journaled(vault);
    expect(await second.resume(true)).toBe(3);
    await second.write('/vault/Projects/Alpha/notes.md', 'one\nTWO\nthree\n');
    const section = second.render(new Date('2026-11-30T10:00:00Z'));
    expect(section).toContain('### Projects/Alpha/notes.md\n```diff\n@@ -1,2 +1,3 @@\n one\n-two\n+TWO\n+three\n```');
    expect(section).toContain('### Projects/Alpha/new.md\n```diff\n@@ -0,0 +1,1 @@\n+created\n```');
    expect(section).toContain('### Meetings/Speakers/Bob.md\nMoved to `.trash/Meetings/Speakers/Bob.md`.');
    expect(section).not.toContain('Summaries');
    await second.clearJournal();
    expect(await vault.exists(auditJournalFolder(vault, CONTEXT))).toBe(false);
  });

  it('a journal found when the last run was not interrupted is stale: dropped, nothing reported twice', async () => {
    const vault = memoryVault({ 'Projects/Alpha/notes.md': 'one\n' });
    const first = journaled(vault);
    await first.write('/vault/Projects/Alpha/notes.md', 'ONE\n');
    const second = journaled(vault);
    expect(await second.resume(false)).toBe(0);
    expect(second.isEmpty).toBe(true);
    expect(await vault.exists(auditJournalFolder(vault, CONTEXT))).toBe(false);
  });
});

describe('a resumed run does not repeat the appends of the interrupted one (issue #24 point 11)', () => {
  const journaled = (vault: Vault) =>
    new Audit(vault, { excluded: [SUMMARY, CONTEXT], journal: auditJournalFolder(vault, CONTEXT) });

  it('an append identical to one the crashed attempt made is recognised once; other text, other files and a second identical append are not', async () => {
    const vault = memoryVault({ 'Projects/Alpha/log.md': '# Log\n- old line\n', 'Projects/Alpha/other.md': '# Other\n' });
    const first = journaled(vault);
    await first.update('/vault/Projects/Alpha/log.md', (old) => `${old}- decided: ship Friday\n`);
    // Killed here.
    const second = journaled(vault);
    expect(await second.resume(true)).toBe(1);
    expect(second.alreadyAppended('/vault/Projects/Alpha/log.md', '- decided: ship Friday')).toBe(true);
    // The same text again in this run is a new append of its own.
    expect(second.alreadyAppended('/vault/Projects/Alpha/log.md', '- decided: ship Friday')).toBe(false);
    expect(second.alreadyAppended('/vault/Projects/Alpha/log.md', '- old line')).toBe(false);
    expect(second.alreadyAppended('/vault/Projects/Alpha/log.md', '- something new')).toBe(false);
    expect(second.alreadyAppended('/vault/Projects/Alpha/other.md', '- decided: ship Friday')).toBe(false);
    const notice = second.resumedNotice();
    expect(notice).toContain('interrupted');
    expect(notice).toContain('- Projects/Alpha/log.md\n```diff\n@@ -2,1 +2,2 @@\n - old line\n+- decided: ship Friday\n```');
  });

  it('a new append that is only part of a line the crashed attempt wrote is not refused; a person\'s edit in between keeps the count right', async () => {
    const vault = memoryVault({ 'Projects/Alpha/log.md': '# Log\n- old line\n' });
    const first = journaled(vault);
    await first.update('/vault/Projects/Alpha/log.md', (old) => `${old}- Budget: 9000 EUR approved\n- ok\n`);
    // Killed here; a person then adds a line below the crashed attempt's append.
    await vault.write('/vault/Projects/Alpha/log.md', `${await vault.read('/vault/Projects/Alpha/log.md')}- person's note\n`);
    const second = journaled(vault);
    expect(await second.resume(true)).toBe(1);
    // Substrings of the crashed lines are other lines: appended.
    expect(second.alreadyAppended('/vault/Projects/Alpha/log.md', '- Budget: 9000')).toBe(false);
    expect(second.alreadyAppended('/vault/Projects/Alpha/log.md', 'EUR approved')).toBe(false);
    expect(second.alreadyAppended('/vault/Projects/Alpha/log.md', '- o')).toBe(false);
    // The crashed attempt's append, no longer at the end, is still recognised, once.
    expect(second.alreadyAppended('/vault/Projects/Alpha/log.md', '- Budget: 9000 EUR approved\n- ok\n')).toBe(true);
    expect(second.alreadyAppended('/vault/Projects/Alpha/log.md', '- ok')).toBe(true);
    expect(second.alreadyAppended('/vault/Projects/Alpha/log.md', '- ok')).toBe(false);
  });

  it('without an interrupted attempt nothing counts as already appended and the notice is empty', async () => {
    const vault = memoryVault({ 'Projects/Alpha/log.md': '- decided: ship Friday\n' });
    const audit = journaled(vault);
    await audit.resume(false);
    expect(audit.alreadyAppended('/vault/Projects/Alpha/log.md', '- decided: ship Friday')).toBe(false);
    expect(audit.resumedNotice()).toBe('');
  });
});

describe('pipeline: an aborted run (shutdown) and its resumption', () => {
  let server: ScriptedServer;
  beforeEach(async () => {
    server = await startScriptedServer();
  });
  afterEach(async () => {
    await server.close();
  });

  /** Meeting M with project Alpha, run by the real pipeline against the scripted server. */
  const meetingM = () => {
    const config = testConfig({ Endpoint: { BaseUrl: server.baseUrl, Model: 'test-model', TimeoutSeconds: 60 }, Reconnect: { Attempts: 0 } });
    const vault = new Vault(
      memoryFs({
        'Meetings/M.md': meetingNote('M'),
        'Meetings/Transcripts/M.md': transcriptNote('M', 'finished'),
        'Projects/Alpha/Overview.md': '# Alpha\n',
      }),
      config.layout,
    );
    const deps: PipelineDeps = { vault, config, log: silentLogger, model: createModelClient(config), retryUrl: () => 'http://127.0.0.1:1/retry' };
    return { vault, deps };
  };

  it('the aborted run appends nothing; the resumed run reports its project write once, in the same section as its own', async () => {
    const { vault, deps } = meetingM();
    const controller = new AbortController();
    server.script(
      // Project files are written in the run's project phase, after the summary (issue 21).
      { reply: { toolCalls: [{ name: 'write_summary', arguments: { content: SUMMARY_BODY } }] } },
      { reply: { toolCalls: [{ name: 'write_projectfile', arguments: { project: 'Alpha', path: 'Overview.md', content: '- first run' } }] } },
      { handler: () => (controller.abort(), { hang: true }) },
    );
    const aborted = await summarizeMeeting(deps, vault.abs('Meetings/M.md'), { signal: controller.signal });
    expect(aborted.status).toBe('failed');
    const afterAbort = parseNote(await vault.read(CONTEXT));
    expect(afterAbort.data.state).toBe('summarizing');
    expect(auditSections(afterAbort.body)).toBe(0);

    server.script(
      { reply: { toolCalls: [{ name: 'write_summary', arguments: { content: SUMMARY_BODY } }] } },
      { reply: { toolCalls: [{ name: 'write_projectfile', arguments: { project: 'Alpha', path: 'Overview.md', content: '- second run' } }] } },
      { reply: { content: 'Done.' } },
    );
    expect((await summarizeMeeting(deps, vault.abs('Meetings/M.md'))).status).toBe('done');
    const context = parseNote(await vault.read(CONTEXT));
    expect(context.data.state).toBe('finished');
    expect(auditSections(context.body)).toBe(1);
    expect(context.body).toContain('```diff\n@@ -1,1 +1,3 @@\n # Alpha\n+- first run\n+- second run\n```');
  });

  it('the resumed run is told what the aborted one wrote, and its identical append is not made twice', async () => {
    const { vault, deps } = meetingM();
    const append = { reply: { toolCalls: [{ name: 'write_projectfile', arguments: { project: 'Alpha', path: 'Overview.md', content: '- decided: ship Friday' } }] } };
    const controller = new AbortController();
    // Project files are written in the run's project phase, after the summary (issue 21).
    server.script({ reply: { toolCalls: [{ name: 'write_summary', arguments: { content: SUMMARY_BODY } }] } }, append, {
      handler: () => (controller.abort(), { hang: true }),
    });
    await summarizeMeeting(deps, vault.abs('Meetings/M.md'), { signal: controller.signal });

    server.script({ reply: { toolCalls: [{ name: 'write_summary', arguments: { content: SUMMARY_BODY } }] } }, append, { reply: { content: 'Done.' } });
    const before = server.modelRequests().length;
    expect((await summarizeMeeting(deps, vault.abs('Meetings/M.md'))).status).toBe('done');
    const resumedRequests = server.modelRequests().slice(before);
    expect(userTexts(resumedRequests[0]!)[0]).toContain('An earlier run of this meeting was interrupted');
    expect(userTexts(resumedRequests[0]!)[0]).toContain('+- decided: ship Friday');
    // The project phase, where appends are made, is told as well.
    expect(userTexts(resumedRequests[1]!)[0]).toContain('An earlier run of this meeting was interrupted');
    expect(lastToolResults(resumedRequests[2]!)[0]?.output).toMatch(/interrupted earlier run appended them\. Not appended again/);
    expect(await vault.read(vault.abs('Projects/Alpha/Overview.md'))).toBe('# Alpha\n- decided: ship Friday\n');
  });
});
