import { describe, expect, test } from 'vitest';
import { BrokenMeetingError, resolveMeeting } from '../../../src/vault/notes/meeting.js';
import { memoryVault } from '../../helpers/memfs.js';

/** docs/design.md §1: meetings with the same file name in different folders never share notes. */

const NAME = '2026-12-02 1000 Design Review';
const A = `Meetings/Team A/${NAME}.md`;
const B = `Meetings/Team B/${NAME}.md`;
const transcriptOf = (team: string) => `Meetings/Transcripts/${team}/${NAME}.md`;
const meeting = (team: string, extra = '') =>
  `---\ntitle: Design Review ${team}\ntranscript: "[[${transcriptOf(team).replace(/\.md$/, '')}]]"\n${extra}---\nnotes\n`;
const transcript = (team: string) => `---\nmeeting: "[[Meetings/${team}/${NAME}]]"\nstate: finished\n---\n[00:00:01] A: hi\n`;

function twoTeams(extraB = '', files: Record<string, string> = {}) {
  return memoryVault({
    [A]: meeting('Team A'),
    [B]: meeting('Team B', extraB),
    [transcriptOf('Team A')]: transcript('Team A'),
    [transcriptOf('Team B')]: transcript('Team B'),
    ...files,
  });
}

async function broken(promise: Promise<unknown>): Promise<BrokenMeetingError> {
  const err = await promise.then(() => undefined, (e: unknown) => e);
  expect(err).toBeInstanceOf(BrokenMeetingError);
  return err as BrokenMeetingError;
}

describe('default paths mirror the meeting subfolder', () => {
  test('two meetings with one file name get a summary and a context note each', async () => {
    const vault = twoTeams();
    const a = await resolveMeeting(vault, `/vault/${A}`);
    const b = await resolveMeeting(vault, `/vault/${B}`);
    expect(vault.rel(a.summaryPath)).toBe(`Meetings/Summaries/Team A/${NAME}.md`);
    expect(vault.rel(a.contextPath)).toBe(`Meetings/Context/Team A/${NAME}.md`);
    expect(vault.rel(b.summaryPath)).toBe(`Meetings/Summaries/Team B/${NAME}.md`);
    expect(vault.rel(b.contextPath)).toBe(`Meetings/Context/Team B/${NAME}.md`);
    expect(await vault.read(`/vault/${B}`)).toContain(`summary: "[[Meetings/Summaries/Team B/${NAME}]]"`);
  });

  test('a meeting at the top of Meetings keeps its summary path', async () => {
    const vault = memoryVault({
      'Meetings/Sync.md': '---\ntranscript: "[[Meetings/Transcripts/Sync]]"\n---\n',
      'Meetings/Transcripts/Sync.md': '---\nstate: finished\n---\n',
    });
    const m = await resolveMeeting(vault, '/vault/Meetings/Sync.md');
    expect(vault.rel(m.summaryPath)).toBe('Meetings/Summaries/Sync.md');
    expect(vault.rel(m.contextPath)).toBe('Meetings/Context/Sync.md');
  });
});

describe('a note another meeting claims makes the meeting broken', () => {
  // What the old defaults left behind: both meeting notes link to the one summary, which names Team A.
  const shared = `Meetings/Summaries/${NAME}.md`;
  const sharedContext = `Meetings/Context/${NAME}.md`;
  const links = `summary: "[[Meetings/Summaries/${NAME}]]"\ncontext: "[[Meetings/Context/${NAME}]]"\n`;
  const owned = (kind: string) => `---\nmeeting: "[[Meetings/Team A/${NAME}]]"\n${kind}\n---\nTeam A's text\n`;

  test('the summary names its meeting: the other one is broken and its report goes to its own default path', async () => {
    const vault = twoTeams(links, { [shared]: owned('status: done'), [sharedContext]: owned('state: finished') });
    const before = await vault.read(`/vault/${B}`);
    await expect(resolveMeeting(vault, `/vault/${A}`, { writeBack: false })).resolves.toBeDefined();
    const err = await broken(resolveMeeting(vault, `/vault/${B}`));
    expect(err.message).toContain(`belongs to another meeting, ${A}`);
    expect(err.message).toContain('remove the summary and context properties');
    expect(vault.rel(err.summaryPath!)).toBe(`Meetings/Summaries/Team B/${NAME}.md`);
    expect(await vault.read(`/vault/${B}`)).toBe(before);
    expect(await vault.read(`/vault/${shared}`)).toContain("Team A's text");
  });

  test('only the context note is shared: broken too', async () => {
    const vault = twoTeams(`context: "[[Meetings/Context/${NAME}]]"\n`, { [sharedContext]: owned('state: finished') });
    const err = await broken(resolveMeeting(vault, `/vault/${B}`));
    expect(err.message).toContain(`the context note Meetings/Context/${NAME}.md belongs to another meeting`);
    expect(vault.rel(err.summaryPath!)).toBe(`Meetings/Summaries/Team B/${NAME}.md`);
  });

  test('a note still to be created that two meeting notes link to: neither runs', async () => {
    const link = `summary: "[[Meetings/Summaries/Shared]]"\n`;
    const vault = memoryVault({
      [A]: meeting('Team A', link),
      [B]: meeting('Team B', link),
      [transcriptOf('Team A')]: transcript('Team A'),
      [transcriptOf('Team B')]: transcript('Team B'),
    });
    for (const m of [A, B]) {
      const err = await broken(resolveMeeting(vault, `/vault/${m}`));
      expect(err.message).toContain('Meetings/Summaries/Shared.md belongs to another meeting');
    }
  });

  test("a default path another meeting's link claims: broken, no report on the other's note", async () => {
    // Team B has no links; Team A's summary link names the path Team B's default would be.
    const vault = twoTeams('', {});
    await vault.write(`/vault/${A}`, meeting('Team A', `summary: "[[Meetings/Summaries/Team B/${NAME}]]"\n`));
    const err = await broken(resolveMeeting(vault, `/vault/${B}`));
    expect(err.message).toContain(`give ${B} a summary link of its own`);
    expect(err.summaryPath).toBeUndefined();
  });

  test("a note whose meeting link names this meeting is its own, whatever others link to it", async () => {
    const vault = twoTeams(links, { [shared]: owned('status: done'), [sharedContext]: owned('state: finished') });
    await vault.write(`/vault/${A}`, meeting('Team A', links));
    const a = await resolveMeeting(vault, `/vault/${A}`);
    expect(vault.rel(a.summaryPath)).toBe(shared);
  });
});
