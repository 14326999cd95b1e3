/**
 * What the agent writes into a note is made inert (docs/design.md §4): a transcript is words
 * other people said, and a model can be talked into writing code that an Obsidian plugin runs
 * when the note is opened. A fence for such a plugin (```dataviewjs, ```js-engine, with
 * backticks or tildes, any length, any case) becomes a ```text fence, its content shown, not
 * run; Templater's command tag `<%` becomes `<\%` (Templater's own escape, shown as written).
 */

/**
 * Code fences of plugins that run JavaScript: Dataview's `dataviewjs`, JS Engine's `js-engine`.
 * A fence may start after any container markers (quotes `>`, list items `-`, `*`, `+`, `1.`,
 * `1)`, at any indentation): the plugins run a fence nested in a list item as well.
 */
const EXECUTABLE_FENCE = /^((?:[ \t]|>|[-*+](?=[ \t])|\d{1,9}[.)](?=[ \t]))*)(`{3,}|~{3,})[ \t]*(?:dataviewjs|js-engine)(?=[\s{]|$)[^\r\n]*/gim;

/**
 * Dataview's inline JavaScript: a code span whose text starts with `$=` (`` `$= dv.pages().length` ``),
 * run when the note is shown, wherever it stands. Its `=` becomes `\=`, shown as written.
 */
const INLINE_JS = /(`+)([ \t]*)\$=/g;

export function inertMarkdown(text: string): string {
  return text.replace(EXECUTABLE_FENCE, '$1$2text').replace(/<%/g, '<\\%').replace(INLINE_JS, '$1$2$$\\=');
}

/**
 * Dataview's inline query: a code span whose text starts with `=` (`` `= this.file.name` ``). It
 * runs no JavaScript, but it shows what other notes hold wherever it stands.
 */
const INLINE_QUERY = /(`+)([ \t]*)=/g;

/**
 * Text from outside that lands in a note (docs/design.md §4, §9): an imported transcript's
 * cues, a calendar entry's description, whatever a file or a service hands in. Nobody wrote it
 * in this vault, so besides what `inertMarkdown` makes harmless, Dataview's inline queries are
 * shown, not run (`` `= …` `` becomes `` `\= …` ``): no note's content turns up in a transcript
 * that the agent, reading the plain text, does not see.
 */
export function inertExternalText(text: string): string {
  return inertMarkdown(text).replace(INLINE_QUERY, '$1$2\\=');
}

/** A sentence for the tool result when `inertMarkdown` changed something (empty otherwise). */
export function inertNotice(before: string, after: string): string {
  return before === after ? '' : ' Executable blocks were written inert (```dataviewjs/```js-engine as ```text, Dataview `$=` as `$\\=`, Templater <% as <\\%): notes never run code.';
}

/** A fence line: container markers, then a run of 3+ backticks or tildes, then the rest (info string). */
const FENCE_LINE = /^(?:[ \t]|>|[-*+](?=[ \t])|\d{1,9}[.)](?=[ \t]))*(`{3,}|~{3,})(.*)$/;
const EXECUTABLE_INFO = /^[ \t]*(?:dataviewjs|js-engine)(?=[\s{]|$)/i;

/** The bodies of the executable fences of `text`, in order (an unclosed one runs to the end), then its inline JavaScript spans. */
export function executableBlocks(text: string): string[] {
  const blocks: string[] = [];
  let open: { run: string; executable: boolean; body: string[] } | undefined;
  for (const line of text.split(/\r?\n/)) {
    const m = FENCE_LINE.exec(line);
    if (!open) {
      if (m && !(m[1]!.startsWith('`') && m[2]!.includes('`'))) open = { run: m[1]!, executable: EXECUTABLE_INFO.test(m[2]!), body: [] };
      continue;
    }
    if (m && m[1]![0] === open.run[0] && m[1]!.length >= open.run.length && m[2]!.trim() === '') {
      if (open.executable) blocks.push(open.body.join('\n'));
      open = undefined;
    } else open.body.push(line);
  }
  if (open?.executable) blocks.push(open.body.join('\n'));
  // Inline JavaScript spans count as blocks too: an edit must not add one to a person's note.
  for (const m of text.matchAll(/(`+)[ \t]*\$=.*?\1/g)) blocks.push(m[0]);
  return blocks;
}

/**
 * Whether `after` runs no code that `before` did not: its executable blocks are some of
 * `before`'s, unchanged. What the agent writes is inert already; this catches lines inserted
 * into a person's ```dataviewjs block, or a fence line removed so that text becomes one.
 */
export function keepsExecutableBlocks(before: string, after: string): boolean {
  const old = executableBlocks(before);
  let i = 0;
  for (const block of executableBlocks(after)) {
    while (i < old.length && old[i] !== block) i++;
    if (i === old.length) return false;
    i++;
  }
  return true;
}
