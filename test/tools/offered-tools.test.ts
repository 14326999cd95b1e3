import { describe, expect, it } from 'vitest';
import { isProjectPhaseTool, offeredTools, PAST_TOOLS, phasedTools, PROJECT_TOOLS, toolOffer } from '../../src/tools/offered-tools.js';
import { harness, summaryNote } from '../helpers/tool-harness.js';

const names = async (h: ReturnType<typeof harness>) => offeredTools(await toolOffer(h.ctx)).map((t) => t.name);
const PROJECT_AND_PAST = [...PROJECT_TOOLS, ...PAST_TOOLS, 'search'];

describe('the tools offered to a meeting (issue 12: only those that can act for it)', () => {
  it('offers all nineteen to a meeting whose projects exist and have past summaries', async () => {
    expect(await names(harness())).toHaveLength(19);
  });

  it('offers no project, past-meeting or search tool to a meeting without projects', async () => {
    const offered = await names(harness({ meeting: { projects: [] } }));
    for (const name of PROJECT_AND_PAST) expect(offered).not.toContain(name);
    expect(offered).toContain('write_summary');
    expect(offered).toContain('read_transcript');
  });

  it('offers no project tool when none of the bound projects has a folder, but the history and search when past summaries exist', async () => {
    const h = harness({
      meeting: { projects: ['Delta'] },
      files: { 'Meetings/Summaries/2026-11-01 Delta Kickoff.md': summaryNote('Delta Kickoff', '2026-11-01T09:00:00+01:00', ['Delta']) },
    });
    const offered = await names(h);
    expect(offered).not.toContain('list_projects');
    expect(offered).not.toContain('write_projectfile');
    expect(offered).toContain('list_past_project_meetings');
    expect(offered).toContain('search');
  });

  it('offers the project tools but not the history when a bound project exists without past summaries', async () => {
    const h = harness({
      files: {
        'Meetings/Summaries/2026-11-23 Alpha Sync.md': null,
        'Meetings/Summaries/2026-11-16 Beta Review.md': null,
      },
    });
    const offered = await names(h);
    expect(offered).toContain('write_projectfile');
    expect(offered).toContain('search');
    expect(offered).not.toContain('list_past_project_meetings');
    expect(offered).not.toContain('read_past_project_meeting_summary');
  });

  it('offers delete_identity only when there is a speaker identity', async () => {
    expect(await names(harness())).toContain('delete_identity');
    const h = harness({ files: { 'Meetings/Speakers/Bob.md': null, 'Meetings/Speakers/Carol.md': null } });
    expect(await names(h)).not.toContain('delete_identity');
  });
});

describe('the phases of a run (issue 21: each request carries only its phase\'s tools)', () => {
  const phaseNames = async (h: ReturnType<typeof harness>) => {
    const phases = phasedTools(await toolOffer(h.ctx));
    return { summary: phases.summary.map((t) => t.name), projects: phases.projects?.map((t) => t.name) };
  };

  it('splits the nineteen into the meeting\'s twelve for the summary and the seven project and history tools after it with read_transcript (issue 31: project notes may quote the meeting)', async () => {
    const { summary, projects } = await phaseNames(harness());
    expect(summary).toEqual([
      'read_meetingnote', 'read_transcript', 'read_context', 'read_usernotes', 'read_glossary', 'add_dictation_word',
      'add_attendee', 'remove_attendee', 'override_speaker', 'delete_identity', 'write_summary', 'write_context',
    ]);
    expect(projects).toEqual(['read_transcript', 'list_projects', 'list_projectfiles', 'read_projectfile', 'write_projectfile', 'list_past_project_meetings', 'read_past_project_meeting_summary', 'search']);
    expect(summary.filter((name) => isProjectPhaseTool(name))).toEqual([]);
    // Between them, the two phases offer every one of the nineteen.
    expect(new Set([...summary, ...projects!]).size).toBe(19);
  });

  it('has no project phase without a project folder to write: the history tools stay with the summary', async () => {
    const h = harness({
      meeting: { projects: ['Delta'] },
      files: { 'Meetings/Summaries/2026-11-01 Delta Kickoff.md': summaryNote('Delta Kickoff', '2026-11-01T09:00:00+01:00', ['Delta']) },
    });
    const { summary, projects } = await phaseNames(h);
    expect(projects).toBeUndefined();
    expect(summary).toEqual(expect.arrayContaining(['write_summary', 'list_past_project_meetings', 'read_past_project_meeting_summary', 'search']));
    expect(summary).not.toContain('write_projectfile');
  });

  it('a project phase without past summaries offers no history tool; a meeting without projects has one phase', async () => {
    const h = harness({ files: { 'Meetings/Summaries/2026-11-23 Alpha Sync.md': null, 'Meetings/Summaries/2026-11-16 Beta Review.md': null } });
    expect((await phaseNames(h)).projects).toEqual(['read_transcript', 'list_projects', 'list_projectfiles', 'read_projectfile', 'write_projectfile', 'search']);
    expect((await phaseNames(harness({ meeting: { projects: [] } }))).projects).toBeUndefined();
  });
});
