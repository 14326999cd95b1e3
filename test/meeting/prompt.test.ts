import { describe, expect, it } from 'vitest';
import { conversationStarts } from '../../src/meeting/conversation-start.js';
import { buildInstructions, buildProjectInstructions, PROJECT_PROMPT } from '../../src/meeting/prompt.js';
import { resolveMeeting } from '../../src/vault/notes/meeting.js';
import { memoryVault, testConfig } from '../helpers/memfs.js';

/**
 * The default prompt names only tools the conversation is offered (docs/design.md §3 step 9: a
 * model must never meet "there is no tool named …"). A meeting whose projects have no past
 * summary yet is offered the project tools and search, not the past-meeting tools.
 */
describe('the default prompt of one conversation with the project tools', () => {
  it('speaks of past summaries only when the past-meeting tools are offered', () => {
    const withoutPast = buildInstructions('', [], { projectTools: true, pastTools: false });
    expect(withoutPast).toContain('Project files');
    expect(withoutPast).not.toMatch(/past summar/i);
    const withPast = buildInstructions('', [], { projectTools: true, pastTools: true });
    expect(withPast).toMatch(/past summaries \(read-only\)/);
  });
});

describe("the project phase's prompt of a run in phases", () => {
  it('speaks of past summaries only when the past-meeting tools are offered, and still of search', () => {
    const withoutPast = buildProjectInstructions('', [], { pastTools: false });
    expect(withoutPast).not.toMatch(/past summar|past meeting/i);
    expect(withoutPast).toMatch(/search shows what is known/);
    expect(withoutPast).toMatch(/list_projectfiles, read_projectfile/);
    expect(buildProjectInstructions('', [], { pastTools: true })).toBe(PROJECT_PROMPT);
    expect(PROJECT_PROMPT).toMatch(/past summaries \(read-only\) and search/);
  });

  const MEETING = 'Meetings/2026-11-30 Weekly.md';
  const files = (past: boolean) => ({
    [MEETING]: '---\ntitle: Weekly\nstart_time: 2026-11-30T09:00:00+01:00\nprojects: [Alpha]\ntranscript: "[[Meetings/Transcripts/2026-11-30 Weekly]]"\n---\n',
    'Meetings/Transcripts/2026-11-30 Weekly.md': '---\nstate: finished\n---\n[00:00:01] Alice: Hello.\n',
    'Projects/Alpha/Overview.md': '# Alpha\n',
    ...(past && { 'Meetings/Summaries/2026-11-23 Weekly.md': '---\nstatus: done\nprojects: [Alpha]\n---\n## Summary\nEarlier.\n' }),
  });

  it.each([false, true])("follows the run's offer (past-meeting tools offered: %s) in the starts the pipeline picks from", async (pastTools) => {
    const vault = memoryVault(files(pastTools));
    const artifacts = await resolveMeeting(vault, vault.abs(MEETING));
    const starts = await conversationStarts({ vault, config: testConfig() }, artifacts, { projectTools: true, pastTools });
    const phase = starts.phased!.projects.instructions;
    expect(/past summar/i.test(phase)).toBe(pastTools);
    expect(/past summar/i.test(starts.whole.instructions)).toBe(pastTools);
  });
});

describe('the first look at the transcript (issue #43 point 1)', () => {
  it('reads nothing of a transcript turned into a link out of the vault after the meeting was resolved', async () => {
    const MEETING = 'Meetings/2026-11-30 Weekly.md';
    const TRANSCRIPT = 'Meetings/Transcripts/2026-11-30 Weekly.md';
    const vault = memoryVault({
      [MEETING]: `---\ntitle: Weekly\nstart_time: 2026-11-30T09:00:00+01:00\ntranscript: "[[${TRANSCRIPT.replace(/\.md$/, '')}]]"\n---\n`,
      [TRANSCRIPT]: '---\nstate: finished\n---\n[00:00:01] Alice: Hello.\n',
      '/outside/secret.md': '[00:00:01] SPEAKER_433: out of the vault.\n',
    });
    const artifacts = await resolveMeeting(vault, vault.abs(MEETING));
    await vault.fs.unlink(vault.abs(TRANSCRIPT));
    await (vault.fs as unknown as { symlink(t: string, p: string): Promise<void> }).symlink('/outside/secret.md', vault.abs(TRANSCRIPT));
    const starts = await conversationStarts({ vault, config: testConfig() }, artifacts, {});
    expect(starts.whole.firstMessage).not.toContain('SPEAKER_433');
  });
});
