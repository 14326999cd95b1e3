import { afterEach, describe, expect, it } from 'vitest';
import { conversationStarts } from '../../src/meeting/conversation-start.js';
import { BEFORE_MEETING_FACT } from '../../src/meeting/prompt.js';
import { beforeMeetingSection } from '../../src/meeting-event/before-meeting.js';
import { silentLogger } from '../../src/log.js';
import { callMeetingTool, createMeetingToolsContext } from '../../src/mcp/meeting-tools.js';
import { listActionItems } from '../../src/mcp/list-action-items.js';
import { readMeeting } from '../../src/mcp/read-meeting.js';
import { RunCaches } from '../../src/tools/binding/run-caches.js';
import { BEFORE_MEETING_LABEL } from '../../src/vault/notes/before-meeting-label.js';
import { resolveMeeting } from '../../src/vault/notes/meeting.js';
import { memoryVault, testConfig } from '../helpers/memfs.js';

/**
 * A note made ahead (docs/design.md §12): its context note starts with `## Before the meeting`,
 * last time's decisions and open items. The agent is told it is no record of what was said, and
 * the MCP tools (and so `ask`) never give it out as the meeting's notes or its action items.
 */

const MEETING = 'Meetings/2026-12-09 0900 Weekly.md';
const CONTEXT = 'Meetings/Context/2026-12-09 0900 Weekly.md';
const PAST = 'Meetings/Summaries/2026-12-02 0900 Weekly.md';

async function madeAheadVault(withSection: boolean) {
  const vault = memoryVault({
    [MEETING]: '---\ntitle: Weekly\nstart_time: 2026-12-09T09:00:00Z\nevent: weekly@example.com\nprojects: [Platform]\ntranscript: "[[Meetings/Transcripts/2026-12-09 0900 Weekly]]"\ncontext: "[[Meetings/Context/2026-12-09 0900 Weekly]]"\n---\nTyped during the meeting.\n',
    'Meetings/Transcripts/2026-12-09 0900 Weekly.md': '---\nstate: finished\n---\n[00:00:01] Alice: Hello.\n',
    [PAST]: '---\ntitle: Weekly\nstart_time: 2026-12-02T09:00:00Z\nprojects: [Platform]\nstatus: done\n---\n## Decisions\n- Ship on Friday.\n\n## Next steps\n- [ ] Alice: write the notes\n',
  });
  const body = withSection ? await beforeMeetingSection(vault, { uid: 'weekly@example.com', start: new Date('2026-12-09T09:00:00Z'), projects: ['Platform'], agenda: 'Roadmap.' }) : '';
  await vault.write(vault.abs(CONTEXT), `---\ntitle: Weekly\nstate: collecting metadata\nagenda: Roadmap.\n---\n${body}`);
  return vault;
}

describe("the agent's instructions for a meeting whose context note was made ahead", () => {
  it.each([true, false])('say the Before-the-meeting section is no record of what was said only when there is one (section: %s)', async (withSection) => {
    const vault = await madeAheadVault(withSection);
    const starts = await conversationStarts({ vault, config: testConfig() }, await resolveMeeting(vault, vault.abs(MEETING)));
    expect(starts.whole.firstMessage.includes(BEFORE_MEETING_FACT)).toBe(withSection);
    expect(BEFORE_MEETING_FACT).toMatch(/no record of what was said/);
  });
});

describe('MCP read_meeting and list_action_items of a meeting made ahead', () => {
  let caches: RunCaches | undefined;
  afterEach(() => caches?.close());

  it('give the notes typed into the meeting note, never the section, and count each open item once, from its summary', async () => {
    const vault = await madeAheadVault(true);
    caches = new RunCaches(vault);
    const ctx = createMeetingToolsContext({ vault, settings: testConfig().settings, log: silentLogger, caches });
    const signal = new AbortController().signal;
    const notes = await callMeetingTool(readMeeting, { meeting: MEETING, part: 'notes' }, ctx, signal);
    expect(notes.text).toContain('Typed during the meeting.');
    expect(notes.text).not.toContain('Ship on Friday');
    const summary = await callMeetingTool(readMeeting, { meeting: MEETING }, ctx, signal);
    expect(summary.isError).toBe(true);
    expect(summary.text).not.toContain(BEFORE_MEETING_LABEL);
    const items = await callMeetingTool(listActionItems, {}, ctx, signal);
    expect(items.text.match(/write the notes/g)).toHaveLength(1);
    expect(items.text).toContain(PAST);
  });
});
