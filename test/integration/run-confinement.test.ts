import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/daemon-process.js';
import { daemonSetup, daemonTestFile, meetingNote, transcriptNote } from '../helpers/daemon-helpers.js';
import { type RecordedRequest, toolCallsSoFar } from '../helpers/scripted-server.js';
import { SUMMARY_BODY } from '../helpers/daemon-helpers.js';

/**
 * Red team of issue #43 point 1 on the summarizing run itself (docs/design.md §10
 * "Confinement"): a transcript a meeting note names is vault content that a sync tool, other
 * people and imports write, and Syncthing carries symbolic links as they are. A transcript
 * that is a symbolic link to the HTTP token, or to a file out of the vault, is not read into
 * the model's requests: not by the agent's read_transcript, not by the run's own first look.
 */

const file = daemonTestFile();
const TOKEN = 'run-confinement-token-4343';
const OUTSIDE = 'OUTSIDE-SECRET-4343';

/** Reads the transcript first, then writes the summary. */
const readingModel = {
  handler: (req: RecordedRequest) => {
    const calls = toolCallsSoFar(req).map((c) => c.name);
    if (!calls.includes('read_transcript')) return { reply: { toolCalls: [{ name: 'read_transcript', arguments: {} }, { name: 'read_context', arguments: {} }] } };
    if (!calls.includes('write_summary')) return { reply: { toolCalls: [{ name: 'write_summary', arguments: { content: SUMMARY_BODY } }] } };
    return { reply: { content: 'Done.' } };
  },
};

describe('summarize reads no transcript that leads out of the vault (issue #43 point 1)', () => {
  it('a transcript that is a symbolic link to the token or to a file outside never reaches the model', { timeout: 120_000 }, async () => {
    file.server.setFallback(readingModel);
    const setup = await daemonSetup(file.server, { Http: { Token: TOKEN } });
    const env = { XDG_RUNTIME_DIR: path.join(setup.dir, 'run') };
    mkdirSync(path.join(setup.vault, '.meeting-assistant'), { recursive: true });
    writeFileSync(path.join(setup.vault, '.meeting-assistant', 'token'), `${TOKEN}\n`);
    writeFileSync(path.join(setup.dir, 'outside.md'), `---\nmeeting: "[[Meetings/Outside]]"\nstate: finished\n---\n[00:00:01] Alice: ${OUTSIDE}\n`);
    mkdirSync(path.join(setup.vault, 'Meetings', 'Transcripts'), { recursive: true });
    mkdirSync(path.join(setup.vault, 'Meetings', 'Context'), { recursive: true });
    const token = path.join(setup.vault, '.meeting-assistant', 'token');
    const cases = [
      { name: 'Token', link: 'Transcripts', target: token },
      { name: 'Outside', link: 'Transcripts', target: path.join(setup.dir, 'outside.md') },
      // The agent's notebook, read back by read_context.
      { name: 'Notebook', link: 'Context', target: token },
    ];
    for (const c of cases) {
      const context = `context: "[[Meetings/Context/${c.name}]]"\n`;
      setup.write(`Meetings/${c.name}.md`, meetingNote(c.name, context));
      if (c.link === 'Context') setup.write(`Meetings/Transcripts/${c.name}.md`, transcriptNote(c.name, 'finished'));
      symlinkSync(c.target, path.join(setup.vault, 'Meetings', c.link, `${c.name}.md`));
    }
    // The three commands run at once (each is mostly a process's start): none may send a
    // request, so any request the server got meanwhile, of whichever, fails them all.
    const summarize = (name: string) => runCli(['summarize', `Meetings/${name}.md`, '--config', setup.configPath], { env, timeoutMs: 60_000 });
    const before = file.server.requests.length;
    const runs = await Promise.all(cases.map(async (c) => ({ name: c.name, run: await summarize(c.name) })));
    const sent = file.server.requests.slice(before).map((r) => r.rawBody).join('\n');
    const said = runs.map(({ name, run }) => `${name}: ${run.stderr}`).join('\n');
    expect(sent, said).not.toContain(TOKEN);
    expect(sent, said).not.toContain(OUTSIDE);
    // Each meeting is broken, saying why; nothing was sent for any.
    expect(sent, said).toBe('');
    for (const { name, run } of runs) {
      expect(run.code, name).not.toBe(0);
      expect(run.stderr, name).toMatch(/outside the vault|dot-folders|outside Meetings\/Context\//);
    }

    // A summary template the meeting names, which goes into the instructions: a link to the token.
    mkdirSync(path.join(setup.vault, 'Templates'), { recursive: true });
    symlinkSync(token, path.join(setup.vault, 'Templates', 'Leak.md'));
    setup.write('Meetings/Templated.md', meetingNote('Templated', 'template: "[[Templates/Leak]]"\n'));
    setup.write('Meetings/Transcripts/Templated.md', transcriptNote('Templated', 'finished'));
    // A link that stays in the vault is followed as before.
    setup.write('Meetings/Kept.md', meetingNote('Kept'));
    setup.write('Elsewhere/Kept transcript.md', transcriptNote('Kept', 'finished'));
    symlinkSync(path.join(setup.vault, 'Elsewhere', 'Kept transcript.md'), path.join(setup.vault, 'Meetings', 'Transcripts', 'Kept.md'));
    // The two at once: no request of either (Kept's run talks to the model) holds the token.
    const afterCases = file.server.requests.length;
    const [templated, kept] = await Promise.all([summarize('Templated'), summarize('Kept')]);
    const sentSince = file.server.requests.slice(afterCases).map((r) => r.rawBody).join('\n');
    expect(sentSince, templated.stderr).not.toContain(TOKEN);
    expect(templated.code, templated.stderr).not.toBe(0);
    expect(templated.stderr).toMatch(/dot-folders/);
    expect(kept.code, kept.stderr).toBe(0);
  });
});
