import { ACTION_HEADING, FENCE, HEADING, LIST_ITEM, NOTHING, TASK_LINE } from './summary-sections.js';

/**
 * The action items of a summary note, read back for people (docs/design.md §10,
 * `list_action_items`): every `Agent.TaskFormat` the summaries may have been written in, since
 * the setting may have changed between meetings. Task lines (`tasks`, `dataview`) count
 * anywhere in the body, as countActionItems counts them; plain bullets (`plain`) only under an
 * action-items heading.
 */

export interface ActionItem {
  /** 1-based line in the whole file (frontmatter included), as read and search tools count. */
  line: number;
  done: boolean;
  owner: string | undefined;
  /** `YYYY-MM-DD`, when the item names one. */
  due: string | undefined;
  /** The item without its bullet, checkbox, owner prefix and date markers. */
  text: string;
}

const CHECKBOX = /^\s*(?:[-*+]|\d+[.)])\s+\[([^\]])\]\s+(.*\S)\s*$/;
const DATE = '(\\d{4}-\\d{2}-\\d{2})';
/** Tasks plugin: 📅 due (📆 and 🗓 are its other spellings), ✅ done on. */
const TASKS_DUE = new RegExp(`\\s*(?:📅|📆|🗓️?)\\s*${DATE}`, 'u');
const TASKS_DONE = new RegExp(`\\s*✅\\s*${DATE}`, 'u');
/** Dataview inline fields, `[key:: value]` or `(key:: value)`. */
const FIELD = (key: string): RegExp => new RegExp(`\\s*[[(]${key}::\\s*((?:\\[\\[[^\\]]*\\]\\]|[^\\])])*?)\\s*[\\])]`, 'iu');
/** Plain: `(by 2026-12-03)`, `(due 2026-12-03)`, `due: 2026-12-03`. */
const PLAIN_DUE = new RegExp(`\\s*\\(?(?:by|due:?|until|bis)\\s+${DATE}\\)?`, 'iu');
/** `Alice: …`, `**Alice**: …`, `[[Alice]]: …`, `@Alice: …` — a name of at most four words. */
const OWNER_PREFIX = /^(?:\*\*|__)?@?(?:\[\[([^\]|]+)(?:\|[^\]]*)?\]\]|([\p{Lu}\p{Lt}][\p{L}\p{M}'’.-]*(?: [\p{L}\p{M}'’.-]+){0,3}))(?:\*\*|__)?\s*:\s+/u;

/** The items of a note's body; `firstLine` is the file line of the body's first line. */
export function parseActionItems(body: string, firstLine = 1): ActionItem[] {
  const out: ActionItem[] = [];
  let inFence = false;
  let inActions = false;
  body.split(/\r?\n/).forEach((line, i) => {
    if (FENCE.test(line)) inFence = !inFence;
    if (inFence) return;
    const heading = HEADING.exec(line);
    if (heading) {
      inActions = ACTION_HEADING.test(heading[1]!.replace(/[*_]/g, '').trim());
      return;
    }
    const lineNo = firstLine + i;
    if (TASK_LINE.test(line)) {
      const m = CHECKBOX.exec(line);
      if (m) out.push(itemOf(m[2]!, lineNo, m[1] !== ' '));
      return;
    }
    const item = LIST_ITEM.exec(line);
    if (inActions && item && !/^\s/.test(line) && !NOTHING.test(item[1]!.trim())) out.push(itemOf(item[1]!, lineNo, false));
  });
  return out;
}

function itemOf(raw: string, line: number, checked: boolean): ActionItem {
  let text = raw;
  let done = checked;
  // `~~struck through~~` is how a plain list marks an item as done.
  const struck = /^~~(.*)~~$/.exec(text.trim());
  if (struck) {
    done = true;
    text = struck[1]!.trim();
  }
  const take = (re: RegExp): string | undefined => {
    const m = re.exec(text);
    if (!m) return undefined;
    text = (text.slice(0, m.index) + text.slice(m.index + m[0].length)).trim();
    return m[1]?.trim() || undefined;
  };
  if (take(TASKS_DONE) !== undefined) done = true;
  let due = take(TASKS_DUE) ?? take(FIELD('due')) ?? take(PLAIN_DUE);
  let owner = take(FIELD('owner')) ?? take(FIELD('assignee'));
  if (take(FIELD('completion')) !== undefined) done = true;
  if (owner === undefined) {
    const m = OWNER_PREFIX.exec(text);
    if (m) {
      owner = m[1] !== undefined ? `[[${m[1]}]]` : m[2]!.trim();
      text = text.slice(m[0].length);
    }
  }
  // `[[People/Bob|Bob]]` is Bob, as attendees are (vault/notes/meeting.ts nameList).
  owner = owner?.replace(/^\[\[(?:[^\]|]*\/)?([^\]|/]+)(?:\|[^\]]*)?\]\]$/, '$1').replace(/^@/, '');
  if (due !== undefined && !/^\d{4}-\d{2}-\d{2}$/.test(due)) due = undefined;
  return { line, done, owner: owner || undefined, due, text: text.trim() };
}
