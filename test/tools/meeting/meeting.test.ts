import { describe, expect, it } from 'vitest';
import { CONTEXT, CONTEXT_NOTE, MEETING, MEETING_NOTE, SUMMARY, TRANSCRIPT, harness, symlink } from '../../helpers/tool-harness.js';

const header = (content: string) => content.split('\n')[0];

describe('read tools', () => {
  it('read_meetingnote returns the whole note, frontmatter included, as cat -n lines under a header', async () => {
    const h = harness();
    const r = await h.call('read_meetingnote');
    const lines = r.content.split('\n');
    expect(lines[0]).toBe(`${MEETING} (lines 1-12 of 12)`);
    expect(lines[1]).toBe('     1\t---');
    expect(lines[11]).toBe('    11\tRelease date still open');
    expect(lines).toHaveLength(13);
  });

  it('read_transcript clamps from below 1 and to past the end without failing', async () => {
    const h = harness();
    const r = await h.call('read_transcript', { from: -5, to: 1_000_000 });
    expect(r.isError).toBe(false);
    expect(header(r.content)).toBe(`${TRANSCRIPT} (lines 1-9 of 9)`);
    const zero = await h.call('read_transcript', { from: 0, to: 2 });
    expect(header(zero.content)).toBe(`${TRANSCRIPT} (lines 1-2 of 9)`);
  });

  it('an empty range is a note, not an error', async () => {
    const h = harness();
    const past = await h.call('read_transcript', { from: 50, to: 60 });
    expect(past.isError).toBe(false);
    expect(past.content).toBe(`${TRANSCRIPT} (lines 0-0 of 9): no lines in the requested range 50-60; the file has lines 1-9.`);
    const reversed = await h.call('read_transcript', { from: 5, to: 3 });
    expect(reversed.isError).toBe(false);
    expect(reversed.content).toContain('no lines in the requested range 5-3');
  });

  it('read_usernotes reads the body only, line 1 being the first line after the frontmatter', async () => {
    const h = harness();
    const r = await h.call('read_usernotes', { from: 2 });
    expect(r.content).toBe(`${MEETING} (lines 2-2 of 2)\n     2\tAsk Carol about the budget`);
  });

  it('read_context reads the context body with body line numbers', async () => {
    const h = harness();
    const r = await h.call('read_context', { to: 1 });
    expect(r.content).toBe(`${CONTEXT} (lines 1-1 of 3)\n     1\tNotebook line 1`);
  });

  it('read_glossary reads the glossary, and a missing glossary reads as empty', async () => {
    const h = harness();
    expect((await h.call('read_glossary')).content).toBe('Meetings/Glossary.md (lines 1-2 of 2)\n     1\tCI: continuous integration\n     2\tGA: general availability');
    const none = harness({ files: { 'Meetings/Glossary.md': null } });
    const r = await none.call('read_glossary', { from: 3 });
    expect(r.isError).toBe(false);
    expect(r.content).toBe('Meetings/Glossary.md (lines 0-0 of 0): the file is empty.');
  });

  it('a missing transcript is an Error result, not an exception', async () => {
    const h = harness({ files: { [TRANSCRIPT]: null } });
    const r = await h.call('read_transcript');
    expect(r).toEqual({ isError: true, content: `Error: the transcript ${TRANSCRIPT} does not exist.` });
  });
});

describe('attendees', () => {
  it('add_attendee appends to attendees keeping every other byte, and is audited', async () => {
    const h = harness();
    const r = await h.call('add_attendee', { name: 'Carol' });
    expect(r).toEqual({ isError: false, content: 'Attendees are now: Alice, Bob, Carol.' });
    const text = await h.read(MEETING);
    expect(text).toBe(MEETING_NOTE.replace('attendees: [Alice, Bob]', 'attendees: [Alice, Bob, Carol]'));
    expect(h.ctx.meeting.attendees).toEqual(['Alice', 'Bob', 'Carol']);
    expect(h.ctx.audit.render(new Date(0))).toContain('+attendees: [Alice, Bob, Carol]  # who was there');
  });

  it('add_attendee does nothing for a name already listed (any case)', async () => {
    const h = harness();
    const r = await h.call('add_attendee', { name: 'alice' });
    expect(r.content).toBe('alice is already an attendee; nothing changed.');
    expect(await h.read(MEETING)).toBe(MEETING_NOTE);
    expect(h.ctx.audit.isEmpty).toBe(true);
  });

  it('add_attendee refuses a name longer than 100 characters, changing nothing', async () => {
    const h = harness();
    const r = await h.call('add_attendee', { name: 'Alice '.repeat(50) });
    expect(r.content).toBe('Error: the name is 299 characters long; give one word or name of at most 100 characters.');
    expect(await h.read(MEETING)).toBe(MEETING_NOTE);
  });

  it('remove_attendee removes the name; an unknown name is an Error naming the attendees', async () => {
    const h = harness();
    expect((await h.call('remove_attendee', { name: 'bob' })).content).toBe('Attendees are now: Alice.');
    expect(await h.read(MEETING)).toContain('attendees: [Alice]  # who was there\n');
    const r = await h.call('remove_attendee', { name: 'Dave' });
    expect(r).toEqual({ isError: true, content: 'Error: "Dave" is not an attendee. Attendees: Alice.' });
  });

  it('add_attendee adds the key when the meeting note has no attendees', async () => {
    const h = harness({ files: { [MEETING]: '---\ntitle: T\n---\nbody\n' } });
    await h.call('add_attendee', { name: 'Alice' });
    expect(await h.read(MEETING)).toBe('---\ntitle: T\nattendees: [Alice]\n---\nbody\n');
  });

  it('refuses to edit a meeting note whose frontmatter does not parse, changing nothing', async () => {
    const broken = '---\ntitle: [unclosed\n---\nbody\n';
    const h = harness({ files: { [MEETING]: broken } });
    const r = await h.call('add_attendee', { name: 'Carol' });
    expect(r.isError).toBe(true);
    expect(r.content).toMatch(/^Error: the meeting note's frontmatter does not parse/);
    expect(await h.read(MEETING)).toBe(broken);
  });
});

describe('write_summary', () => {
  it('writes the daemon frontmatter plus the body and marks the run', async () => {
    const h = harness();
    const r = await h.call('write_summary', { content: '## Summary\nShipped.\n## Decisions\nNone.\n## Next steps\nNone.' });
    expect(r).toEqual({ isError: false, content: `Wrote the summary note ${SUMMARY} (6 lines, 0 action items).` });
    const note = await h.read(SUMMARY);
    expect(note).toMatch(/^---\ntitle: Weekly Sync\nstart_time: 2026-11-30T09:00:00\+01:00\n/);
    expect(note).toContain('projects: [Alpha, Beta]\n');
    expect(note).toContain('action_items: 0\nstatus: done\n---\n## Summary\nShipped.\n');
    expect(h.ctx.run.summaryWritten).toBe(true);
    expect(h.ctx.audit.isEmpty).toBe(true);
  });

  it('uses the title only when the meeting has none', async () => {
    const h = harness({ meeting: { title: undefined } });
    await h.call('write_summary', { content: 'Body', title: 'Agent Title' });
    expect(h.ctx.run.agentTitle).toBe('Agent Title');
    expect(await h.read(SUMMARY)).toMatch(/^---\ntitle: Agent Title\n/);
    const titled = harness();
    await titled.call('write_summary', { content: 'Body', title: 'Agent Title' });
    expect(titled.ctx.run.agentTitle).toBeUndefined();
    expect(await titled.read(SUMMARY)).toMatch(/^---\ntitle: Weekly Sync\n/);
  });

  it('copies a good summary or a person\'s note at the path to .trash/ before replacing it, once per run', async () => {
    const previous = '---\nstatus: done\n---\nOld summary\n';
    const h = harness({ files: { [SUMMARY]: previous } });
    await h.call('write_summary', { content: 'New 1' });
    await h.call('write_summary', { content: 'New 2' });
    expect(await h.read(`.trash/${SUMMARY}`)).toBe(previous);
    expect(await h.read(SUMMARY)).toContain('New 2');
    const trash = await h.fs.readdir('/vault/.trash/Meetings/Summaries', { withFileTypes: true });
    expect(trash).toHaveLength(1);
  });

  it('replaces a failure report without keeping it', async () => {
    const h = harness({ files: { [SUMMARY]: '---\nstatus: failed\nretry: true\n---\n# Summary failed\n' } });
    await h.call('write_summary', { content: 'Fresh' });
    expect(await h.vault.exists('/vault/.trash')).toBe(false);
    expect(await h.read(SUMMARY)).toContain('Fresh');
  });

  it('drops a frontmatter the model put at the top of the body', async () => {
    const h = harness();
    await h.call('write_summary', { content: '---\ntitle: Mine\nstatus: whatever\n---\n## Summary\nOk\n' });
    const note = (await h.read(SUMMARY))!;
    expect(note).not.toContain('title: Mine');
    expect(note).toMatch(/action_items: 0\nstatus: done\n---\n## Summary\nOk\n$/);
  });

  it('never takes reasoning the model wrote into content for the summary (docs/design.md §3 step 11)', async () => {
    const h = harness();
    const r = await h.call('write_summary', { content: '<think>The user wants a summary. Let me draft.</think>\n## Summary\nShipped.\n<think>I should check the owners but' });
    expect(r.isError).toBe(false);
    const note = (await h.read(SUMMARY))!;
    expect(note).toMatch(/status: done\n---\n## Summary\nShipped\.\n$/);
    expect(note).not.toMatch(/think|Let me draft|owners/);
    const all = harness();
    const only = await all.call('write_summary', { content: '<think>Still planning the summary' });
    expect(only.isError).toBe(true);
    expect(only.content).toContain('the summary is empty');
    expect(await all.read(SUMMARY)).toBeUndefined();
  });

  it('keeps a summary that quotes a `<think>` tag in its text (a meeting about models)', async () => {
    const h = harness();
    const content = '## Summary\nThe model wraps its reasoning in `<think>` tags; we strip them.\n## Next steps\n- Ada: close the <think> parser bug\n';
    const r = await h.call('write_summary', { content });
    expect(r.isError).toBe(false);
    expect((await h.read(SUMMARY))!).toContain('we strip them.\n## Next steps\n- Ada: close the');
  });

  it('refuses empty content', async () => {
    const h = harness();
    const r = await h.call('write_summary', { content: '   ' });
    expect(r.isError).toBe(true);
    expect(await h.read(SUMMARY)).toBeUndefined();
    expect(h.ctx.run.summaryWritten).toBe(false);
  });
});

describe('write_context', () => {
  const FRONT = CONTEXT_NOTE.slice(0, CONTEXT_NOTE.indexOf('Notebook line 1'));

  it('overwrite replaces the body and keeps the frontmatter byte for byte', async () => {
    const h = harness();
    const r = await h.call('write_context', { content: 'Fresh notes', mode: 'overwrite' });
    expect(r.isError).toBe(false);
    expect(await h.read(CONTEXT)).toBe(`${FRONT}Fresh notes\n`);
    expect(h.ctx.audit.isEmpty).toBe(true);
  });

  it('replace changes an inclusive body range counted from the first body line', async () => {
    const h = harness();
    await h.call('read_context');
    await h.call('write_context', { content: 'Two\nTwo and a half', mode: 'replace', from: 2, to: 2 });
    expect(await h.read(CONTEXT)).toBe(`${FRONT}Notebook line 1\nTwo\nTwo and a half\nNotebook line 3\n`);
  });

  it('insert puts content before a body line; line count + 1 appends', async () => {
    const h = harness();
    await h.call('write_context', { content: 'First', mode: 'insert', line: 1 });
    await h.call('write_context', { content: 'Last', mode: 'insert', line: 5 });
    expect(await h.read(CONTEXT)).toBe(`${FRONT}First\nNotebook line 1\nNotebook line 2\nNotebook line 3\nLast\n`);
  });

  it('re-reads the note at the moment of writing, keeping a concurrent frontmatter change', async () => {
    const h = harness();
    await h.vault.write(h.vault.abs(CONTEXT), CONTEXT_NOTE.replace('state: summarizing', 'state: finished'));
    await h.call('write_context', { content: 'x', mode: 'overwrite' });
    expect(await h.read(CONTEXT)).toContain('state: finished\n');
  });

  it('refuses ranges outside the body and ambiguous arguments, changing nothing', async () => {
    const h = harness();
    const cases = [
      { content: 'x', mode: 'replace', from: 2, to: 9 },
      { content: 'x', mode: 'replace', from: 0, to: 1 },
      { content: 'x', mode: 'replace', from: 2 },
      { content: 'x', mode: 'insert', line: 5, from: 1 },
      { content: 'x', mode: 'insert', line: 6 },
      { content: 'x', mode: 'insert' },
      { content: 'x', mode: 'overwrite', from: 1, to: 2 },
    ];
    for (const args of cases) {
      const r = await h.call('write_context', args);
      expect(r.isError, JSON.stringify(args)).toBe(true);
      expect(r.content).toMatch(/^Error: /);
    }
    expect(await h.read(CONTEXT)).toBe(CONTEXT_NOTE);
  });
});

describe('the read tools read the meeting where it really is (issue #43 point 1)', () => {
  // The run checked the notes when it resolved the meeting; a sync tool may turn one into a
  // symbolic link during the minutes the run takes (Syncthing carries links as they are).
  it('a transcript, meeting note or context turned into a link to the token or out of the vault mid-run is an Error result', async () => {
    const h = harness({ files: { '.meeting-assistant/token': 'TOKEN-4343\n', '/outside/secret.md': 'OUTSIDE-4343\n' } as Record<string, string> });
    const cases: [string, string, string][] = [
      ['read_transcript', TRANSCRIPT, '/vault/.meeting-assistant/token'],
      ['read_meetingnote', MEETING, '/outside/secret.md'],
      ['read_usernotes', MEETING, '/vault/.meeting-assistant/token'],
      ['read_context', CONTEXT, '/outside/secret.md'],
    ];
    for (const [tool, rel, target] of cases) {
      await h.fs.unlink(h.vault.abs(rel));
      await symlink(h.fs, target, h.vault.abs(rel));
      const r = await h.call(tool);
      expect(r.isError, `${tool}: ${r.content}`).toBe(true);
      expect(r.content, tool).not.toMatch(/TOKEN-4343|OUTSIDE-4343/);
    }
  });
});
