import { describe, expect, it } from 'vitest';
import { inertExternalText, inertMarkdown, keepsExecutableBlocks } from '../../../src/vault/format/inert.js';

/** docs/design.md §4: an executable fence is written inert wherever Markdown lets a fence start. */
describe('inertMarkdown', () => {
  it('a fence inside a list item, a nested list or a quoted list is made inert too (Dataview runs those as well)', () => {
    const cases: [string, string][] = [
      ['- ```dataviewjs\n  dv.paragraph(1)\n  ```', '- ```text\n  dv.paragraph(1)\n  ```'],
      ['* ~~~js-engine\n  return 1\n  ~~~', '* ~~~text\n  return 1\n  ~~~'],
      ['1. ```dataviewjs', '1. ```text'],
      ['2) ```DataviewJS', '2) ```text'],
      ['- a\n    - b\n        ```dataviewjs\n        x\n        ```', '- a\n    - b\n        ```text\n        x\n        ```'],
      ['> - ```dataviewjs', '> - ```text'],
      ['> > 1. ````js-engine {x}', '> > 1. ````text'],
      ['+ \t```dataviewjs', '+ \t```text'],
    ];
    for (const [given, inert] of cases) expect(inertMarkdown(given), given).toBe(inert);
  });

  it("Dataview's inline JavaScript (`$= …`, any backtick run, spaces before it) is shown, not run", () => {
    expect(inertMarkdown('Count: `$= dv.pages().length` pages')).toBe('Count: `$\\= dv.pages().length` pages');
    expect(inertMarkdown('``  $=app.vault.adapter.remove("x")``')).toBe('``  $\\=app.vault.adapter.remove("x")``');
    expect(inertMarkdown('- [ ] `$=dv.current()`')).toBe('- [ ] `$\\=dv.current()`');
    // Inline DQL (`= …`) runs no JavaScript, and money in plain text is no code span.
    expect(inertMarkdown('`= this.file.name` costs $= 5')).toBe('`= this.file.name` costs $= 5');
  });

  it('leaves list items, quotes and fences of other languages alone', () => {
    const kept = '- ```js\n  x\n  ```\n1. dataviewjs is a plugin\n> ```dataview\n';
    expect(inertMarkdown(kept)).toBe(kept);
  });
});

describe('keepsExecutableBlocks', () => {
  const person = 'Dashboard\n```dataviewjs\ndv.table(["a"], [])\n```\nNotes\n````md\n```dataviewjs\nshown, not run\n```\n````\n';
  it('an edit outside the blocks, or one that removes a whole block, keeps them', () => {
    expect(keepsExecutableBlocks(person, `${person}more notes\n`)).toBe(true);
    expect(keepsExecutableBlocks(person, person.replace('Notes', 'Notes, edited'))).toBe(true);
    expect(keepsExecutableBlocks(person, person.replace('```dataviewjs\ndv.table(["a"], [])\n```\n', ''))).toBe(true);
  });

  it('a line inserted into a block, a closing fence removed, or the outer fence of a shown block removed, do not', () => {
    expect(keepsExecutableBlocks(person, person.replace('dv.table', 'app.vault.adapter.remove("x")\ndv.table'))).toBe(false);
    expect(keepsExecutableBlocks(person, person.replace('[])\n```\n', '[])\n'))).toBe(false);
    expect(keepsExecutableBlocks(person, person.replace('````md\n', ''))).toBe(false);
    expect(keepsExecutableBlocks('```dataviewjs\nx', '```dataviewjs\nx\ny')).toBe(false);
    expect(keepsExecutableBlocks('Notes\n', 'Notes `$= dv.pages().length`\n')).toBe(false);
    expect(keepsExecutableBlocks('Count `$= dv.pages().length`\n', 'Count `$= dv.pages().length`, edited\n')).toBe(true);
  });
});

describe('inertExternalText (imports, calendar descriptions)', () => {
  it("does what inertMarkdown does, and shows Dataview's inline queries instead of running them", () => {
    expect(inertExternalText('a `= this.file.name` b `$= dv.el("b","x")` <% tp %>')).toBe('a `\\= this.file.name` b `$\\= dv.el("b","x")` <\\% tp %>');
    expect(inertExternalText('```dataviewjs\nx\n```')).toBe('```text\nx\n```');
    // Plain text, money and an equals sign outside a code span are left as they are.
    const plain = 'costs $= 5, a = b, `code` stays';
    expect(inertExternalText(plain)).toBe(plain);
  });
});
