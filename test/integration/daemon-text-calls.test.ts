import { describe, expect, it } from 'vitest';
import { startDaemonProcess, waitFor } from '../helpers/daemon-process.js';
import { daemonSetup, daemonTestFile, dataOf, editProperty, meetingNote, SUMMARY_BODY, transcriptNote } from '../helpers/daemon-helpers.js';
import { TEXT_CALL_SHAPES } from '../helpers/model-shapes.js';
import { lastToolResults, type RecordedRequest, type Step, toolCallsSoFar } from '../helpers/scripted-server.js';

/**
 * The real daemon with a model whose server leaves every call as text (docs/design.md §3
 * step 11): Qwen3-Coder's XML inside a think block that never closes, then Mistral's
 * `[TOOL_CALLS]NAME[ARGS]`, then a closing answer after a think block. The meeting gets its
 * summary, and no reasoning or call markup reaches a note.
 */

const file = daemonTestFile();

const textCallingModel: Step = {
  handler: (req: RecordedRequest): Step => {
    const done = toolCallsSoFar(req).map((c) => c.name);
    if (!done.includes('read_transcript')) {
      return { reply: { content: `<think>\nI should read the transcript first.\n${TEXT_CALL_SHAPES['Qwen3-Coder XML']!('read_transcript', { from: 1 })}` } };
    }
    if (!done.includes('write_summary')) {
      return { reply: { content: TEXT_CALL_SHAPES['[TOOL_CALLS]NAME[ARGS]']!('write_summary', { content: SUMMARY_BODY }) } };
    }
    return { reply: { content: '<think>The summary is written.</think>Done.' } };
  },
};

describe('daemon process: a model that writes its tool calls as text', () => {
  it('summarizes the meeting; the calls run and are answered in the structured form; no markup reaches a note', async () => {
    file.server.setFallback(textCallingModel);
    const s = await daemonSetup(file.server);
    const name = 'Text Calls';
    s.write(`Meetings/${name}.md`, meetingNote(name));
    s.write(`Meetings/Transcripts/${name}.md`, transcriptNote(name, 'transcribing'));
    await startDaemonProcess({ configPath: s.configPath });
    editProperty(s, `Meetings/Transcripts/${name}.md`, 'state', 'transcribing', 'finished');
    const rel = `Meetings/Summaries/${name}.md`;
    await waitFor(() => dataOf(s, rel)?.status === 'done', 'the summary');
    await waitFor(() => dataOf(s, `Meetings/Context/${name}.md`)?.state === 'finished', 'context state finished');

    const summary = s.read(rel);
    expect(summary).toContain('Ship on Friday');
    for (const note of [summary, s.read(`Meetings/Context/${name}.md`)]) {
      expect(note).not.toMatch(/<think>|<tool_call>|TOOL_CALLS|<parameter=|should read the transcript/);
    }
    const requests = file.server.modelRequests();
    const afterRead = requests.find((r) => toolCallsSoFar(r).some((c) => c.name === 'read_transcript'))!;
    const [read] = toolCallsSoFar(afterRead);
    expect(JSON.parse(read!.arguments)).toEqual({ from: 1 });
    const results = lastToolResults(afterRead);
    expect(results.map((r) => r.callId)).toEqual([read!.id]);
    expect(results[0]!.output).not.toMatch(/^Error/);
  });
});
