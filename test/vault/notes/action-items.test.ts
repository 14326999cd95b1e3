import { describe, expect, it } from 'vitest';
import { parseActionItems } from '../../../src/vault/notes/action-items.js';
import { countActionItems } from '../../../src/vault/notes/summary-sections.js';

/** The summaries' action items read back (docs/design.md §10, list_action_items), in each Agent.TaskFormat. */
describe('parseActionItems', () => {
  it('reads the tasks format: owner first, 📅 due, ✅ done', () => {
    const body = '## Next steps\n- [ ] Alice: send the draft 📅 2026-12-03\n- [x] Bob Example: book the room ✅ 2026-12-01\n* [ ] **Carol**: call back\n';
    expect(parseActionItems(body, 8)).toEqual([
      { line: 9, done: false, owner: 'Alice', due: '2026-12-03', text: 'send the draft' },
      { line: 10, done: true, owner: 'Bob Example', due: undefined, text: 'book the room' },
      { line: 11, done: false, owner: 'Carol', due: undefined, text: 'call back' },
    ]);
  });

  it('reads the dataview format: [owner:: …] and [due:: …] anywhere in the line', () => {
    expect(parseActionItems('- [ ] send the draft [owner:: Alice] [due:: 2026-12-03]\n1. [X] (owner:: [[People/Bob|Bob]]) ship it\n')).toEqual([
      { line: 1, done: false, owner: 'Alice', due: '2026-12-03', text: 'send the draft' },
      { line: 2, done: true, owner: 'Bob', due: undefined, text: 'ship it' },
    ]);
  });

  it('reads the plain format only under an action-items heading; "None." and struck-through items', () => {
    const body = '## Decisions\n- Alice: decided X\n## Next steps\n- Alice: send the draft (by 2026-12-03)\n- ~~Bob: book the room~~\n  - a sub-point\n- None.\n## Notes\n- Carol: not an item\n';
    expect(parseActionItems(body)).toEqual([
      { line: 4, done: false, owner: 'Alice', due: '2026-12-03', text: 'send the draft' },
      { line: 5, done: true, owner: 'Bob', due: undefined, text: 'book the room' },
    ]);
  });

  it('finds as many task lines as the summary frontmatter counts, and none inside a code fence', () => {
    const body = '## Next steps\n- [ ] one\n```\n- [ ] not a task\n```\n- [x] two\n';
    expect(parseActionItems(body)).toHaveLength(countActionItems(body, 'tasks')!);
    expect(parseActionItems(body).map((i) => i.text)).toEqual(['one', 'two']);
  });

  it('takes no owner from a line that does not start with a name', () => {
    expect(parseActionItems('- [ ] send the draft: today\n')[0]).toMatchObject({ owner: undefined, text: 'send the draft: today' });
  });
});
