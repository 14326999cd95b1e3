import { describe, expect, it } from 'vitest';
import { ImportError } from '../../src/import/cues.js';
import { readMeetingOffThread } from '../../src/import/off-thread.js';
import { noteBytes, readMeeting, type ReadMeeting } from '../../src/import/read-meeting.js';

/** A WebVTT of about `bytes` bytes, three speakers. */
function bigVtt(bytes: number): Buffer {
  const out = ['WEBVTT', ''];
  let size = 8;
  const stamp = (s: number) => `${String(Math.floor(s / 3600)).padStart(2, '0')}:${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}:${(s % 60).toFixed(3).padStart(6, '0')}`;
  for (let i = 0; size < bytes; i++) {
    const cue = `${stamp(i * 0.6)} --> ${stamp(i * 0.6 + 0.5)}\n<v ${['Ann', 'Bob', 'Cleo'][i % 3]}>we ship the release on friday ${i}.</v>\n`;
    out.push(cue);
    size += cue.length + 1;
  }
  return Buffer.from(out.join('\n'));
}

/** How many turns the event loop makes while `read` runs: one long task on this thread makes none. */
async function turnsWhile(read: () => Promise<ReadMeeting>): Promise<{ turns: number; read: ReadMeeting }> {
  let turns = 0;
  let done = false;
  const spin = () => {
    if (done) return;
    turns++;
    setImmediate(spin);
  };
  setImmediate(spin);
  const result = await read();
  done = true;
  return { turns, read: result };
}

/**
 * docs/design.md §9 (issue 45, point 4): an import's parse runs in a thread of its own, so the
 * daemon's event loop goes on (its /healthz, its file events) while a big file is read. Told by
 * the loop's turns while the parse runs, not by a time: a parse on this thread is one task.
 */
describe('an import’s parse off the daemon’s thread', () => {
  it('the event loop keeps turning while a 3 MB WebVTT is parsed, and the result is the same as on this thread', async () => {
    const here = await turnsWhile(() => readMeeting({ name: 'big.vtt', bytes: bigVtt(3 * 1024 * 1024) }));
    // On this thread (the old way) the parse is one task: the loop hardly turns.
    expect(here.turns).toBeLessThan(5);
    const away = await turnsWhile(() => readMeetingOffThread({ name: 'big.vtt', bytes: bigVtt(3 * 1024 * 1024) }));
    expect(away.turns).toBeGreaterThan(100);
    expect(Buffer.from(away.read.body).equals(Buffer.from(here.read.body))).toBe(true);
    expect(away.read.attendees).toEqual(['Ann', 'Bob', 'Cleo']);
    expect(away.read.duration).toBe(here.read.duration);
  });

  it('the note is the frontmatter and the body, in the body’s own buffer', async () => {
    const read = await readMeetingOffThread({ name: 'a.vtt', bytes: Buffer.from('WEBVTT\n\n00:00:01.000 --> 00:00:02.000\n<v Ann>Hello.\n') });
    const note = noteBytes('---\nstate: finished\n---\n', read);
    expect(Buffer.from(note).toString()).toBe('---\nstate: finished\n---\n[00:00:01] Ann: Hello.\n');
    expect(note.buffer).toBe(read.body.buffer);
  });

  it('a file the thread cannot read is the same ImportError, with its hint', async () => {
    const error = await readMeetingOffThread({ name: 'bad.vtt', bytes: Buffer.from('not a webvtt file\n') }).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(ImportError);
    expect((error as ImportError).message).toMatch(/bad\.vtt does not start with "WEBVTT"/);
    expect((error as ImportError).hint).toMatch(/\.srt|fix or replace/);
  });

  it('an abort ends the thread and rejects with the abort’s reason', async () => {
    const controller = new AbortController();
    const reading = readMeetingOffThread({ name: 'big.vtt', bytes: bigVtt(2 * 1024 * 1024) }, controller.signal);
    controller.abort(new Error('stopping'));
    await expect(reading).rejects.toThrow('stopping');
  });
});
