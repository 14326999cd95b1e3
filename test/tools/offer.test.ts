import { describe, expect, it } from 'vitest';
import { offeredTools, PAST_TOOLS, PROJECT_TOOLS, toolOffer } from '../../src/tools/offer.js';
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
