import { describe, expect, test } from 'vitest';
import { FrontmatterError, parseNote, updateFrontmatter, updateNoteFrontmatter } from '../../src/vault/format/frontmatter.js';
import { LinkError, linkTarget, resolveLink } from '../../src/vault/format/links.js';
import { describeVault, FIXTURE_VAULTS, OWN_VAULT, readVaultFiles, wikilinksOf } from '../helpers/fixture-vaults.js';
import { memoryVault } from '../helpers/memfs.js';

/**
 * Frontmatter edits and link resolution on whole vaults as people write them: the project's
 * own fixture vault always, the shared real-world vault when it is beside the repository.
 */

for (const fixture of FIXTURE_VAULTS) {
  describeVault(fixture, fixture.title, () => {
    const files = readVaultFiles(fixture, { markdownOnly: true });

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
      expect(parsed).toBeGreaterThan(10);
      expect(templates.length).toBeGreaterThan(0);
      expect(templates.every((t) => t.startsWith(fixture.templates))).toBe(true);
    });

    test('adding a key to any note adds exactly one line at the end of its frontmatter, in its line endings', () => {
      let notes = 0;
      for (const [rel, text] of Object.entries(files)) {
        let note;
        try {
          note = parseNote(text, rel);
        } catch {
          continue;
        }
        if (!note.hasFrontmatter) continue;
        notes++;
        const after = updateFrontmatter(text, { meeting_assistant: 'added' }, rel);
        const fence = text.indexOf('\n---', 3) + 1;
        expect(after, rel).toBe(`${text.slice(0, fence)}meeting_assistant: added${note.eol}${text.slice(fence)}`);
        expect(parseNote(after, rel).data).toEqual({ ...note.data, meeting_assistant: 'added' });
      }
      expect(notes).toBeGreaterThan(5);
    });

    test('a meeting note gets one more person with every other line unchanged', async () => {
      const { note: rel, key, people, add } = fixture.meeting;
      const vault = memoryVault({ [rel]: files[rel] ?? '' });
      const before = await vault.read(`/vault/${rel}`);
      const lastLine = before.split('\n').findLast((l) => l.includes(people.at(-1)!))!;
      const item = /^\s*- /.exec(lastLine)![0];
      const after = await updateNoteFrontmatter(vault, `/vault/${rel}`, { [key]: [...people, add] });
      expect(after).toBe(before.replace(`${lastLine}\n`, `${lastLine}\n${item}"${add}"\n`));
      expect(await vault.read(`/vault/${rel}`)).toBe(after);
      expect(parseNote(after).data).toEqual({ ...parseNote(before).data, [key]: [...people, add] });
    });

    test('every wikilink resolves the way Obsidian finds it: the one note it names, or a clear error', async () => {
      const vault = memoryVault(files);
      const paths = Object.keys(files);
      let resolved = 0;
      for (const [rel, text] of Object.entries(files)) {
        for (const link of wikilinksOf(text)) {
          const target = linkTarget(link.replace(/\\\|/g, '|'));
          const outcome = await resolveLink(vault, link).then(
            (abs) => vault.rel(abs),
            (err: unknown) => err,
          );
          const where = `${rel}: ${link}`;
          if (target === undefined || target.startsWith('../')) {
            expect(outcome, where).toBeInstanceOf(LinkError);
            continue;
          }
          const wanted = target.replace(/^\/+/, '').toLowerCase();
          const candidates = paths.filter((p) => p.toLowerCase() === wanted || p.toLowerCase().endsWith(`/${wanted}`));
          if (typeof outcome === 'string') {
            expect(candidates, where).toContain(outcome);
            resolved++;
          } else {
            expect(outcome, where).toBeInstanceOf(LinkError);
            expect((outcome as LinkError).kind, where).toBe(candidates.length === 0 ? 'dangling' : 'ambiguous');
          }
        }
      }
      expect(resolved).toBeGreaterThan(5);
    });
  });
}

describe(`${OWN_VAULT.title}: the hard cases`, () => {
  const files = readVaultFiles(OWN_VAULT, { markdownOnly: true });
  const PLANNING = 'Meetings/2026-03-02 Atlas planning.md';
  const edit = async (rel: string, changes: Record<string, unknown>) => {
    const vault = memoryVault({ [rel]: files[rel]! });
    const before = await vault.read(`/vault/${rel}`);
    return { before, after: await updateNoteFrontmatter(vault, `/vault/${rel}`, changes) };
  };

  test('carries what it claims: CRLF, a BOM, both, non-ASCII names, nested folders, no frontmatter', () => {
    const crlf = Object.entries(files).filter(([, t]) => t.includes('\r\n')).map(([r]) => r);
    const bom = Object.entries(files).filter(([, t]) => t.startsWith('\uFEFF')).map(([r]) => r);
    expect(crlf).toContain('Meetings/Transcripts/2026-03-02 Atlas planning.md');
    expect(bom).toContain('Meetings/Context/2026-03-02 Atlas planning.md');
    expect(crlf.filter((r) => bom.includes(r))).toEqual(['Meetings/Summaries/2026-02-23 Atlas kickoff.md']);
    expect(Object.keys(files)).toEqual(expect.arrayContaining(['People/Zoë Müller.md', 'People/Łukasz Nowak.md']));
    expect(Object.keys(files).some((r) => r.split('/').length >= 5)).toBe(true);
    expect(parseNote(files['People/Ana Costa.md']!).hasFrontmatter).toBe(false);
  });

  test('a CRLF transcript: one state line changes, every line ending stays CRLF', async () => {
    const { before, after } = await edit('Meetings/Transcripts/2026-03-02 Atlas planning.md', { state: 'summarizing' });
    expect(after).toBe(before.replace('state: finished\r\n', 'state: summarizing\r\n'));
    expect(after.replace(/\r\n/g, '')).not.toContain('\n');
  });

  test('a BOM context note and a BOM + CRLF summary keep both when a key changes or is added', async () => {
    const context = await edit('Meetings/Context/2026-03-02 Atlas planning.md', { state: 'summarizing' });
    expect(context.after).toBe(context.before.replace('state: finished\n', 'state: summarizing\n'));
    expect(context.after.startsWith('\uFEFF---\n')).toBe(true);
    const summary = await edit('Meetings/Summaries/2026-02-23 Atlas kickoff.md', { retry: true });
    expect(summary.after).toBe(summary.before.replace('Z\r\n---\r\n', 'Z\r\nretry: true\r\n---\r\n'));
    expect(summary.after.startsWith('\uFEFF---\r\n')).toBe(true);
  });

  test('comments, quoting styles, empty values and keys with no value survive an edit', async () => {
    const { before, after } = await edit(PLANNING, {
      title: 'Atlas planning: Q2 (moved)',
      end_time: '2026-03-02T11:00:00+01:00',
      location: 'Room 4',
      summary: '[[Meetings/Summaries/2026-03-02 Atlas planning]]',
      notes: 'bring the numbers',
      context: '[[Meetings/Context/2026-03-02 Atlas planning (moved)]]',
    });
    const changed = (text: string) => text.split('\n').filter((l) => !before.split('\n').includes(l));
    expect(changed(after)).toEqual([
      'title: "Atlas planning: Q2 (moved)"',
      "end_time: '2026-03-02T11:00:00+01:00'",
      // The daemon writes every link double-quoted, the form Obsidian itself writes.
      'context: "[[Meetings/Context/2026-03-02 Atlas planning (moved)]]"',
      'summary: "[[Meetings/Summaries/2026-03-02 Atlas planning]]"',
      'location: Room 4   # not decided yet',
      'notes: "bring the numbers"',
    ]);
    expect(after.split('\n').length).toBe(before.split('\n').length);
    expect(after).toContain('# Written by the recorder, then edited by hand in the app.\n');
    const roadmap = await edit('Projects/Atlas/Roadmap.md', { status: 'final' });
    expect(roadmap.after).toBe(roadmap.before.replace('status: draft   # set by hand', 'status: final   # set by hand'));
  });

  test('reads every kind of value as YAML does: quoting, block scalars, empty values, non-ASCII keys', () => {
    expect(parseNote(files[PLANNING]!).data).toMatchObject({
      title: 'Atlas planning: Q2',
      end_time: '2026-03-02T10:15:00+01:00',
      summary: null,
      location: null,
      tags: [],
      notes: '',
      priority: 2,
      remote: true,
      cancelled: null,
      agenda: 'The roadmap for the second quarter, then hiring for the data team.\n',
    });
    expect(parseNote(files['Projects/Atlas/Roadmap.md']!).data).toMatchObject({
      title: "Atlas: the 'real' roadmap",
      subtitle: 'Quarter "two" édition',
      reviewed: null,
      budget: 12.5,
    });
    expect(parseNote(files['Projects/Atlas/Research/Sources.md']!).data).toMatchObject({ größe: 'mittel', 'quoted key': 'value', time: '10:30' });
    expect(parseNote(files['Inbox/Literal block.md']!).data.body).toBe('Line one\n  indented line two\nLine three\n');
  });

  test('templates with {{date}} placeholders are a FrontmatterError naming the file and line', () => {
    for (const rel of ['Templates/Meeting Template.md', 'Templates/Daily Template.md']) {
      expect(() => parseNote(files[rel]!, rel)).toThrow(new RegExp(`^${rel} line 2: invalid frontmatter`));
    }
  });

  test('aliases, heading links, bare names in nested folders and non-ASCII names all resolve', async () => {
    const vault = memoryVault(files);
    const cases: [string, string][] = [
      ['[[People/Zoë Müller|Zoë]]', 'People/Zoë Müller.md'],
      ['[[Łukasz Nowak#Contact|Łukasz]]', 'People/Łukasz Nowak.md'],
      ['[[Projects/Atlas/Roadmap#Q2 goals|the Q2 goals]]', 'Projects/Atlas/Roadmap.md'],
      ['[[Roadmap#Q2 goals]]', 'Projects/Atlas/Roadmap.md'],
      ['[[Interview notes]]', 'Projects/Atlas/Research/Interviews/Interview notes.md'],
      ['[[zoë müller]]', 'People/Zoë Müller.md'],
    ];
    for (const [link, rel] of cases) expect(vault.rel(await resolveLink(vault, link)), link).toBe(rel);
    // Every link written in the vault names a note that is there.
    const all = Object.values(files).flatMap(wikilinksOf);
    expect(all.length).toBeGreaterThan(15);
    for (const link of all) await expect(resolveLink(vault, link), link).resolves.toEqual(expect.any(String));
    // The meeting, its transcript, context and summary share one name: a bare name is ambiguous.
    await expect(resolveLink(vault, '[[2026-02-23 Atlas kickoff]]')).rejects.toMatchObject({ kind: 'ambiguous' });
  });
});
