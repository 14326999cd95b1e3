import { describe, expect, it } from 'vitest';
import { parseNote } from '../../src/vault/format/frontmatter.js';
import { type DaemonProcess, startDaemonProcess, waitFor } from '../helpers/daemon-process.js';
import { projectStepCalls, type RecordedRequest, type Step, toolCallsSoFar, userTexts } from '../helpers/scripted-server.js';
import { daemonSetup, daemonTestFile, dataOf, meetingNote, meetingOfRequest, SUMMARY_BODY, transcriptNote } from '../helpers/daemon-helpers.js';

/**
 * Issue #24 point 11 against the real daemon: each meeting's run appends a line to a project
 * file, and the daemon is SIGKILLed right after that append (at the next model request). The
 * restarted daemon resumes the meeting; the same deterministic agent asks for the same append
 * again. It must be told what the killed attempt wrote, and the line must be there once.
 */

const file = daemonTestFile('each');
const MEETINGS = ['R1 Review', 'R2 Review', 'R3 Review'];
const line = (name: string) => `- Decided in ${name}: ship on Friday.`;

type Phase = 'start' | 'summary' | 'append' | 'done';

/** Project files are written after the summary: in one conversation (issue 31), or in a project phase of its own (issue 21). */
function phaseOf(req: RecordedRequest): Phase {
  const calls = toolCallsSoFar(req).map((c) => c.name);
  const after = projectStepCalls(req);
  if (after) return after.some((c) => c.name === 'write_projectfile') ? 'done' : 'append';
  if (!calls.includes('read_transcript')) return 'start';
  return 'summary';
}

describe('a run resumed after SIGKILL does not repeat its appends (real daemon)', () => {
  it('three meetings, each killed after its append: every line once, every resumed run told what was written', async () => {
    const killed = new Set<string>();
    const firstMessages = new Map<string, string[]>();
    let daemon: DaemonProcess | undefined;
    file.server.setFallback({
      handler: (req: RecordedRequest): Step => {
        const meeting = meetingOfRequest(req) ?? '';
        const name = meeting.replace(/^Meetings\//, '').replace(/\.md$/, '');
        const phase = phaseOf(req);
        if (phase === 'start') firstMessages.set(name, [...(firstMessages.get(name) ?? []), userTexts(req)[0] ?? '']);
        switch (phase) {
          case 'start':
            return { reply: { toolCalls: [{ name: 'read_transcript', arguments: {} }] } };
          case 'summary':
            return { reply: { toolCalls: [{ name: 'write_summary', arguments: { content: SUMMARY_BODY } }] } };
          case 'append':
            return { reply: { toolCalls: [{ name: 'write_projectfile', arguments: { project: 'Alpha', path: 'Decisions.md', content: line(name) } }] } };
          case 'done':
            if (!killed.has(name)) {
              // The append is on disk, the audit not yet in the context note: kill now.
              killed.add(name);
              void daemon?.kill();
              return { hang: true };
            }
            return { reply: { content: 'Done.' } };
        }
      },
    });
    const setup = await daemonSetup(file.server, { Daemon: { MaxConcurrentSummaries: 1 } });
    setup.write('Projects/Alpha/Decisions.md', '# Decisions\n');
    for (const name of MEETINGS) {
      setup.write(`Meetings/${name}.md`, meetingNote(name));
      setup.write(`Meetings/Transcripts/${name}.md`, transcriptNote(name, 'finished'));
    }
    const finished = () => MEETINGS.every((n) => dataOf(setup, `Meetings/Context/${n}.md`)?.state === 'finished');
    for (let life = 0; life < MEETINGS.length + 2 && !finished(); life++) {
      daemon = await startDaemonProcess({ configPath: setup.configPath });
      const current = daemon;
      let gone = false;
      void current.exited.then(() => (gone = true), () => (gone = true));
      await waitFor(() => finished() || gone, 'the meetings to finish or the daemon to be killed', 30_000);
      if (!gone) await current.stop();
    }
    expect(finished()).toBe(true);
    expect([...killed].sort()).toEqual(MEETINGS);

    const decisions = setup.read('Projects/Alpha/Decisions.md');
    for (const name of MEETINGS) {
      expect(decisions.split(line(name)).length - 1, name).toBe(1);
      const [first, resumed] = firstMessages.get(name) ?? [];
      expect(first).not.toContain('was interrupted');
      expect(resumed).toContain('An earlier run of this meeting was interrupted');
      expect(resumed).toContain(`+${line(name)}`);
      // The audit reports the append once, in one section.
      const context = parseNote(setup.read(`Meetings/Context/${name}.md`)).body;
      expect(context.split(`+${line(name)}`).length - 1).toBe(1);
    }
  }, 120_000);
});
