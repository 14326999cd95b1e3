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

export function inertMarkdown(text: string): string {
  return text.replace(EXECUTABLE_FENCE, '$1$2text').replace(/<%/g, '<\\%');
}

/** A sentence for the tool result when `inertMarkdown` changed something (empty otherwise). */
export function inertNotice(before: string, after: string): string {
  return before === after ? '' : ' Executable blocks were written inert (```dataviewjs/```js-engine as ```text, Templater <% as <\\%): notes never run code.';
}
