import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { parseNote } from '../../src/vault/format/frontmatter.js';
import { FaultTally, vaultHealth } from '../helpers/faults.js';
import { killAll, startDaemonProcess, waitFor } from '../helpers/daemon-process.js';
import { missingLines, startEditor } from '../helpers/editor-process.js';
import { conversationItems, type RecordedRequest, type ScriptedServer, type Step, startScriptedServer, toolNamesOf } from '../helpers/scripted-server.js';
import { dataOf, daemonSetup, type DaemonSetup, meetingNote, meetingOfRequest, SUMMARY_BODY, transcriptNote } from '../helpers/daemon-helpers.js';

/**
 * Nothing a person writes is lost (docs/design.md §1, "Changing notes that people own"): an editor
 * process adds a line every millisecond to both meeting notes, a project file and the
 * dictionary while two runs of the same project (MaxConcurrentSummaries 2) edit those files
 * through their tools: attendees, project-file appends, dictation words, and range edits of
 * the project file after reading it (which the editor makes stale: refusals are allowed and
 * counted). The real daemon, the scripted endpoint.
 */

const tally = new FaultTally('concurrent edits');
const MEETINGS = ['2026-11-30 Sync A', '2026-11-30 Sync B'];
const ROUNDS = 8;
const TAG = 'editor line';

/**
 * The agent of one meeting. Summary phase: ROUNDS rounds of meeting-note and dictionary edits,
 * then the summary. Project phase (issue 21: a conversation of its own, after the summary): read
 * the log, ROUNDS rounds of edits of it, then done.
 */
function agentTurn(letter: string, turn: number, summaryPhase: boolean): Step {
  if (summaryPhase) {
    if (turn < ROUNDS) {
      return {
        reply: {
          toolCalls: [
            { name: 'add_attendee', arguments: { name: `Person ${letter}${turn + 1}` } },
            { name: 'add_dictation_word', arguments: { word: `Word${letter}${turn + 1}` } },
          ],
        },
      };
    }
    return { reply: { toolCalls: [{ name: 'write_summary', arguments: { content: SUMMARY_BODY } }] } };
  }
  if (turn === 0) return { reply: { toolCalls: [{ name: 'read_projectfile', arguments: { project: 'Alpha', path: 'Log.md' } }] } };
  if (turn <= ROUNDS) {
    return {
      reply: {
        toolCalls: [
          { name: 'write_projectfile', arguments: { project: 'Alpha', path: 'Log.md', content: `agent ${letter} ${turn}` } },
          { name: 'write_projectfile', arguments: { project: 'Alpha', path: 'Log.md', content: `inserted ${letter} ${turn}`, insert: 2 } },
          { name: 'read_projectfile', arguments: { project: 'Alpha', path: 'Log.md', from: 1, to: 3 } },
        ],
      },
    };
  }
  return { reply: { content: 'Done.' } };
}

interface Edit {
  meeting: string;
  tool: string;
  args: Record<string, unknown>;
  ok: boolean;
  output: string;
}

/** Every tool call of the last request of each conversation (a meeting's two phases) with its result. */
function editsOf(requests: RecordedRequest[]): Edit[] {
  const last = new Map<string, { meeting: string; req: RecordedRequest }>();
  for (const req of requests) {
    const m = meetingOfRequest(req);
    if (m) last.set(`${m} ${toolNamesOf(req).includes('write_summary')}`, { meeting: m, req });
  }
  const out: Edit[] = [];
  for (const { meeting, req } of last.values()) {
    const calls = new Map<string, { name: string; args: Record<string, unknown> }>();
    for (const item of conversationItems(req)) {
      if (item.role === 'assistant' && Array.isArray(item.tool_calls)) {
        for (const call of item.tool_calls as { id: string; function: { name: string; arguments: string } }[]) {
          calls.set(call.id, { name: call.function.name, args: JSON.parse(call.function.arguments) as Record<string, unknown> });
        }
      } else if (item.role === 'tool') {
        const call = calls.get(String(item.tool_call_id));
        const output = String(item.content);
        if (call) out.push({ meeting, tool: call.name, args: call.args, ok: !output.startsWith('Error:'), output });
      }
    }
  }
  return out;
}

interface Outcome {
  setup: DaemonSetup;
  editorLines: number;
  editorMs: number;
  lost: Record<string, number[]>;
  edits: Edit[];
}

let server: ScriptedServer | undefined;
const setups: DaemonSetup[] = [];

async function scenario(mode: 'append' | 'rewrite'): Promise<Outcome> {
  server = await startScriptedServer();
  const turns = new Map<string, number>();
  server.setFallback({
    handler: (req) => {
      const meeting = meetingOfRequest(req) ?? '';
      const turn = conversationItems(req).filter((i) => i.role === 'assistant').length;
      turns.set(meeting, turn);
      return agentTurn(meeting.includes('Sync A') ? 'A' : 'B', turn, toolNamesOf(req).includes('write_summary'));
    },
  });
  const setup = await daemonSetup(server, { Daemon: { MaxConcurrentSummaries: 2 }, Logging: { Level: 'info' } });
  setups.push(setup);
  const files = [...MEETINGS.map((m) => `Meetings/${m}.md`), 'Projects/Alpha/Log.md', 'Meetings/Dictionary.md'];
  for (const m of MEETINGS) {
    setup.write(`Meetings/${m}.md`, meetingNote(m));
    setup.write(`Meetings/Transcripts/${m}.md`, transcriptNote(m, 'transcribing'));
  }
  setup.write('Projects/Alpha/Log.md', '# Alpha log\nfirst entry\n');
  setup.write('Meetings/Dictionary.md', 'Kubernetes\n');
  const daemon = await startDaemonProcess({ configPath: setup.configPath });
  const stopFile = path.join(setup.dir, 'stop-editor');
  // Bounded so the files stay note-sized however slow the machine is: at a line a millisecond
  // 3,000 lines span both runs on an idle machine; a loaded one only makes them longer.
  const editor = startEditor({ files: files.map((f) => path.join(setup.vault, f)), mode, stopFile, max: 3_000, maxMs: 60_000, tag: TAG });
  // The editor is writing: the transcripts finish, both runs start at once.
  for (const m of MEETINGS) setup.write(`Meetings/Transcripts/${m}.md`, transcriptNote(m, 'finished'));
  const finished = () => MEETINGS.every((m) => ['finished', 'error'].includes(String(dataOf(setup, `Meetings/Context/${m}.md`)?.state)));
  await waitFor(finished, 'both runs finished', 90_000, 50);
  writeFileSync(stopFile, '');
  const { lines, ms } = await editor;
  expect(existsSync(stopFile)).toBe(true);
  await daemon.stop();
  const lost: Record<string, number[]> = {};
  for (const f of files) lost[f] = missingLines(setup.read(f), TAG, lines);
  return { setup, editorLines: lines, editorMs: ms, lost, edits: editsOf(server.modelRequests()) };
}

/** Where a reported-successful agent edit must still be, and whether it is. */
function editMissing(setup: DaemonSetup, edit: Edit): boolean {
  const log = setup.read('Projects/Alpha/Log.md').split('\n');
  switch (edit.tool) {
    case 'add_attendee': {
      const meeting = parseNote(setup.read(`Meetings/${edit.meeting.replace(/^Meetings\//, '').replace(/\.md$/, '')}.md`)).data;
      return !(meeting.attendees as string[]).includes(String(edit.args.name));
    }
    case 'add_dictation_word':
      return !setup.read('Meetings/Dictionary.md').split('\n').includes(String(edit.args.word));
    case 'write_projectfile':
      return !log.includes(String(edit.args.content));
    default:
      return false;
  }
}

afterEach(async () => {
  await killAll();
  await server?.close();
  server = undefined;
});

afterAll(() => {
  for (const s of setups) s.cleanup();
});

describe('fault suite: concurrent edits (a person\'s editor writes every millisecond while two runs edit the same files)', () => {
  it('an appending editor: 0 lines lost, 0 reported-successful agent edits missing, every note parses', async () => {
    await tally.check('appending editor', async () => {
      const o = await scenario('append');
      const writes = o.edits.filter((e) => e.tool !== 'read_projectfile');
      const succeeded = writes.filter((e) => e.ok);
      const refused = writes.filter((e) => !e.ok);
      const missing = succeeded.filter((e) => editMissing(o.setup, e));
      console.log(
        `concurrent edits (append): editor ${o.editorLines} lines x 4 files in ${o.editorMs} ms; ` +
          `agent edits ${succeeded.length} succeeded, ${refused.length} refused (stale line numbers), ${missing.length} missing`,
      );
      expect(o.editorLines).toBeGreaterThan(50);
      expect(o.lost).toEqual(Object.fromEntries(Object.keys(o.lost).map((f) => [f, []])));
      expect(missing.map((e) => `${e.tool} ${JSON.stringify(e.args)}`)).toEqual([]);
      // Appends, attendees and words always go through; only the stale range edits may be refused.
      const staleRangeEdit = (e: Edit) => e.tool === 'write_projectfile' && e.args.insert !== undefined && /changed since you last read it/.test(e.output);
      expect(refused.filter((e) => !staleRangeEdit(e)).map((e) => `${e.tool} ${JSON.stringify(e.args)}: ${e.output}`)).toEqual([]);
      expect(succeeded.filter((e) => e.tool === 'add_attendee' || e.tool === 'add_dictation_word').length).toBe(ROUNDS * 2 * 2);
      expect(vaultHealth(o.setup.vault)).toEqual({ temps: [], unparsable: [] });
      // The audit shows the agent's lines only, never the person's.
      for (const m of MEETINGS) {
        const context = o.setup.read(`Meetings/Context/${m}.md`);
        expect(context).toContain('## External changes (');
        expect(context.split('\n').filter((l) => /^[+-]/.test(l) && l.includes(TAG))).toEqual([]);
      }
    });
  }, 150_000);

  it('an editor rewriting whole files (read, modify, write in place): 0 of its lines lost, every note parses', async () => {
    await tally.check('rewriting editor', async () => {
      const o = await scenario('rewrite');
      const writes = o.edits.filter((e) => e.tool !== 'read_projectfile');
      const succeeded = writes.filter((e) => e.ok);
      const missing = succeeded.filter((e) => editMissing(o.setup, e));
      console.log(
        `concurrent edits (rewrite): editor ${o.editorLines} lines x 4 files in ${o.editorMs} ms; ` +
          `agent edits ${succeeded.length} succeeded, ${writes.length - succeeded.length} refused, ${missing.length} missing`,
      );
      expect(o.editorLines).toBeGreaterThan(50);
      expect(o.lost).toEqual(Object.fromEntries(Object.keys(o.lost).map((f) => [f, []])));
      expect(missing.map((e) => `${e.tool} ${JSON.stringify(e.args)}`)).toEqual([]);
      expect(vaultHealth(o.setup.vault)).toEqual({ temps: [], unparsable: [] });
    });
  }, 150_000);

  it('survived every case', () => {
    console.log(tally.summary());
    expect(tally.lost).toEqual([]);
    expect(tally.survivedCount).toBe(2);
  });
});
