import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { FrontmatterError, parseNote, updateFrontmatter, updateNoteFrontmatter } from '../../src/vault/frontmatter.js';
import { memoryVault } from '../helpers/memfs.js';

const FIXTURE = '/work/shared/fixtures/kepano-obsidian';

function markdownFiles(dir: string, rel = ''): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of readdirSync(path.join(dir, rel), { withFileTypes: true })) {
    if (entry.name.startsWith('.')) continue;
    const child = rel ? `${rel}/${entry.name}` : entry.name;
    if (entry.isDirectory()) Object.assign(out, markdownFiles(dir, child));
    else if (entry.name.endsWith('.md')) out[child] = readFileSync(path.join(dir, child), 'utf8');
  }
  return out;
}

const files = markdownFiles(FIXTURE);

describe('the kepano-obsidian vault', () => {
  test('has the notes this test relies on', () => {
    expect(Object.keys(files).length).toBeGreaterThan(50);
    expect(files['Notes/2023-09-12 Meeting with Steph.md']).toBeDefined();
  });

  test('every note parses and round-trips byte-identical, or is a template that is not YAML', () => {
    const templates: string[] = [];
    let parsed = 0;
    for (const [rel, text] of Object.entries(files)) {
      let data: Record<string, unknown>;
      try {
        data = parseNote(text, rel).data;
      } catch (err) {
        expect(err, rel).toBeInstanceOf(FrontmatterError);
        expect((err as FrontmatterError).file).toBe(rel);
        expect(text, rel).toContain('{{');
        expect(() => updateFrontmatter(text, { state: 'x' }, rel), rel).toThrow(FrontmatterError);
        templates.push(rel);
        continue;
      }
      parsed++;
      expect(updateFrontmatter(text, {}, rel), rel).toBe(text);
      // Setting every key to the value it already has is a no-op too.
      expect(updateFrontmatter(text, data, rel), rel).toBe(text);
    }
    expect(parsed).toBeGreaterThan(50);
    expect(templates.length).toBeGreaterThan(0);
    expect(templates.every((t) => t.startsWith('Templates/'))).toBe(true);
  });

  test('adding a key to any note adds exactly one line at the end of its frontmatter', () => {
    for (const [rel, text] of Object.entries(files)) {
      let note;
      try {
        note = parseNote(text, rel);
      } catch {
        continue;
      }
      if (!note.hasFrontmatter) continue;
      const after = updateFrontmatter(text, { meeting_assistant: 'added' }, rel);
      const fence = text.indexOf('\n---', 3) + 1;
      expect(after, rel).toBe(`${text.slice(0, fence)}meeting_assistant: added\n${text.slice(fence)}`);
      expect(parseNote(after, rel).data).toEqual({ ...note.data, meeting_assistant: 'added' });
    }
  });

  test('a real meeting note gets one key updated with every other line unchanged', async () => {
    const rel = 'Notes/2023-09-12 Meeting with Steph.md';
    const vault = memoryVault({ [rel]: files[rel] ?? '' });
    const before = await vault.read(`/vault/${rel}`);
    const after = await updateNoteFrontmatter(vault, `/vault/${rel}`, {
      people: ['[[Steph Ango]]', '[[Alice]]'],
    });
    expect(after).toBe(before.replace('  - "[[Steph Ango]]"\n', '  - "[[Steph Ango]]"\n  - "[[Alice]]"\n'));
    expect(await vault.read(`/vault/${rel}`)).toBe(after);
    const data = parseNote(after).data;
    expect(data.people).toEqual(['[[Steph Ango]]', '[[Alice]]']);
    expect(data.categories).toEqual(['[[Meetings]]']);
    expect(data.date).toBe('2023-09-12');
  });
});
