import { describe, expect, it } from 'vitest';
import { inertMarkdown } from '../../src/vault/inert.js';

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

  it('leaves list items, quotes and fences of other languages alone', () => {
    const kept = '- ```js\n  x\n  ```\n1. dataviewjs is a plugin\n> ```dataview\n';
    expect(inertMarkdown(kept)).toBe(kept);
  });
});
