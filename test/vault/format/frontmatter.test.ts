import { parseDocument } from 'yaml';
import { describe, expect, test } from 'vitest';
import {
  FrontmatterError,
  parseNote,
  readNote,
  renderFrontmatter,
  replaceBody,
  updateFrontmatter,
  updateNoteFrontmatter,
} from '../../../src/vault/format/frontmatter.js';
import { firstDuplicateKey, NOTE_YAML_OPTIONS } from '../../../src/vault/format/unique-keys.js';
import { memoryVault } from '../../helpers/memfs.js';

// A person's note with everything an editor may leave behind: comments, every quoting
// style, empty values, trailing spaces, block scalars, CRLF line endings and a BOM.
const TRICKY = [
  '\uFEFF---',
  '# written by hand',
  "title: 'Weekly: Sync'   # single quoted, trailing comment",
  'start_time: 2026-11-30T09:00:00+01:00',
  'end_time:   2026-11-30T09:45:00+01:00   ',
  'attendees: [Alice, "Bob"]',
  'empty:',
  'blank: ""',
  'notes: |',
  '  first line',
  '    indented line',
  'folded: >-',
  '  folded',
  '  text',
  'people:',
  '  - "[[Steph Ango]]"',
  "  - '[[Alice]]'",
  '',
  'plain: just text with trailing spaces   ',
  'transcript: "[[Meetings/Transcripts/2026-11-30 Weekly Sync]]"',
  '---',
  'Body line one.   ',
  '',
  '---',
  'not frontmatter: true',
  '',
].join('\r\n');

function changedLines(before: string, after: string): { removed: string[]; added: string[] } {
  const a = before.split('\n');
  const b = after.split('\n');
  return { removed: a.filter((l) => !b.includes(l)), added: b.filter((l) => !a.includes(l)) };
}

describe('parseNote', () => {
  test('reads values as plain JS, dates as the strings written', () => {
    const note = parseNote(TRICKY, 'Meetings/x.md');
    expect(note.hasFrontmatter).toBe(true);
    expect(note.bom).toBe(true);
    expect(note.eol).toBe('\r\n');
    expect(note.data).toEqual({
      title: 'Weekly: Sync',
      start_time: '2026-11-30T09:00:00+01:00',
      end_time: '2026-11-30T09:45:00+01:00',
      attendees: ['Alice', 'Bob'],
      empty: null,
      blank: '',
      notes: 'first line\n  indented line\n',
      folded: 'folded text',
      people: ['[[Steph Ango]]', '[[Alice]]'],
      plain: 'just text with trailing spaces',
      transcript: '[[Meetings/Transcripts/2026-11-30 Weekly Sync]]',
    });
    expect(note.bodyStartLine).toBe(22);
    expect(note.body.split('\r\n')[0]).toBe('Body line one.   ');
    expect(TRICKY.split('\r\n')[note.bodyStartLine - 1]).toBe('Body line one.   ');
  });

  test('a note without frontmatter is all body', () => {
    const note = parseNote('# Heading\n\ntext\n');
    expect(note).toEqual({ data: {}, hasFrontmatter: false, body: '# Heading\n\ntext\n', bodyStartLine: 1, eol: '\n', bom: false });
  });

  test('an empty frontmatter has no data', () => {
    const note = parseNote('---\n---\nbody');
    expect(note.hasFrontmatter).toBe(true);
    expect(note.data).toEqual({});
    expect(note.body).toBe('body');
    expect(note.bodyStartLine).toBe(3);
  });

  test('malformed YAML is a FrontmatterError naming file and line', () => {
    const text = '---\ntitle: ok\nattendees: [Alice, Bob\nstate: x\n---\nbody\n';
    let error: unknown;
    try {
      parseNote(text, 'Meetings/x.md');
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(FrontmatterError);
    const fe = error as FrontmatterError;
    expect(fe.file).toBe('Meetings/x.md');
    expect(fe.line).toBeGreaterThanOrEqual(3);
    expect(fe.line).toBeLessThanOrEqual(5);
    expect(fe.message).toMatch(/^Meetings\/x\.md line \d+: /);
  });

  test('an error is reported on the line where the YAML goes wrong', () => {
    const text = '---\na: 1\nb: "unterminated\n---\n';
    expect(() => parseNote(text, 'n.md')).toThrow(/^n\.md line 3: invalid frontmatter: /);
    const tab = '---\na: 1\nb: 2\n\tc: 3\n---\n';
    expect(() => parseNote(tab, 'n.md')).toThrow(/^n\.md line 4: /);
  });

  test('a frontmatter that is not a mapping is a FrontmatterError', () => {
    expect(() => parseNote('---\n- a\n- b\n---\nbody', 'list.md')).toThrow(FrontmatterError);
    expect(() => parseNote('---\njust a string\n---\nbody', 'str.md')).toThrow(/str\.md line 2/);
  });

  test('duplicate keys are a FrontmatterError', () => {
    expect(() => parseNote('---\na: 1\na: 2\n---\n', 'dup.md')).toThrow(FrontmatterError);
  });

  test('an unclosed frontmatter is a FrontmatterError', () => {
    expect(() => parseNote('---\na: 1\nbody\n', 'open.md')).toThrow(/open\.md line 1: .*never closed/);
  });
});

describe('updateFrontmatter', () => {
  test('an update that changes nothing is byte-identical', () => {
    expect(updateFrontmatter(TRICKY, {})).toBe(TRICKY);
    expect(
      updateFrontmatter(TRICKY, {
        title: 'Weekly: Sync',
        attendees: ['Alice', 'Bob'],
        empty: null,
        people: ['[[Steph Ango]]', '[[Alice]]'],
        missing: undefined,
      }),
    ).toBe(TRICKY);
  });

  test('changing one key changes only that key’s text', () => {
    const after = updateFrontmatter(TRICKY, { end_time: '2026-11-30T10:00:00+01:00' });
    const { removed, added } = changedLines(TRICKY, after);
    expect(removed).toEqual(['end_time:   2026-11-30T09:45:00+01:00   \r']);
    expect(added).toEqual(['end_time:   2026-11-30T10:00:00+01:00\r']);
    expect(after.startsWith('\uFEFF---\r\n')).toBe(true);
    expect(after.split('\r\n').length).toBe(TRICKY.split('\r\n').length);
    expect(parseNote(after).data.end_time).toBe('2026-11-30T10:00:00+01:00');
  });

  test('a changed scalar keeps its quoting style and its trailing comment', () => {
    const after = updateFrontmatter(TRICKY, { title: 'Daily Sync' });
    expect(changedLines(TRICKY, after).added).toEqual(["title: 'Daily Sync'   # single quoted, trailing comment\r"]);
  });

  test('a changed flow list stays flow, a block list stays block; items that stay keep their quotes', () => {
    const flow = updateFrontmatter(TRICKY, { attendees: ['Alice', 'Bob', 'Carol'] });
    expect(changedLines(TRICKY, flow)).toEqual({
      removed: ['attendees: [Alice, "Bob"]\r'],
      added: ['attendees: [Alice, "Bob", Carol]\r'],
    });
    const block = updateFrontmatter(TRICKY, { people: ['[[Steph Ango]]', '[[Alice]]', '[[Bob]]'] });
    // A new link takes the list's own quotes (the last quoted link's), so one line is added and none rewritten.
    expect(block).toContain(`people:\r\n  - "[[Steph Ango]]"\r\n  - '[[Alice]]'\r\n  - '[[Bob]]'\r\n\r\nplain:`);
    expect(parseNote(block).data.people).toEqual(['[[Steph Ango]]', '[[Alice]]', '[[Bob]]']);
    expect(changedLines(TRICKY, block)).toEqual({ removed: [], added: ["  - '[[Bob]]'\r"] });
  });

  test('a list with no quoted link gives new links double quotes; a plain item that stays stays plain', () => {
    const text = '---\nattendees:\n  - Alice\n  - "Bob"\n---\n';
    expect(updateFrontmatter(text, { attendees: ['Alice', 'Bob', '[[Carol]]'] })).toBe(
      '---\nattendees:\n  - Alice\n  - "Bob"\n  - "[[Carol]]"\n---\n',
    );
  });

  test('a block list that only gains items keeps every item line byte for byte (comments, odd spacing) and adds the new ones after the last', () => {
    const text = '---\nattendees:\n  - Alice # lead\n  -   Bob   # from sales\n  # a comment line\n  - "Carol"\nnext: 1 # kept\n---\nbody\n';
    const after = updateFrontmatter(text, { attendees: ['Alice', 'Bob', 'Carol', 'Dan', '[[Eve]]'] });
    expect(after).toBe(
      '---\nattendees:\n  - Alice # lead\n  -   Bob   # from sales\n  # a comment line\n  - "Carol"\n  - Dan\n  - "[[Eve]]"\nnext: 1 # kept\n---\nbody\n',
    );
    expect(parseNote(after).data.attendees).toEqual(['Alice', 'Bob', 'Carol', 'Dan', '[[Eve]]']);
    // At the key's column, with CRLF line endings, too.
    const crlf = '---\r\ntags:\r\n- a # first\r\n- b\r\n---\r\n';
    expect(updateFrontmatter(crlf, { tags: ['a', 'b', 'c'] })).toBe('---\r\ntags:\r\n- a # first\r\n- b\r\n- c\r\n---\r\n');
    // A change that is not an addition at the end re-renders the list.
    expect(parseNote(updateFrontmatter(text, { attendees: ['Bob', 'Alice'] })).data.attendees).toEqual(['Bob', 'Alice']);
  });

  test('a block list written at the key’s column stays that way', () => {
    const text = 'before\n'.slice(0, 0) + '---\ntags:\n- a\n- b\nnext: 1\n---\n';
    expect(updateFrontmatter(text, { tags: ['a', 'c'] })).toBe('---\ntags:\n- a\n- c\nnext: 1\n---\n');
  });

  test('an empty value can be filled', () => {
    const after = updateFrontmatter(TRICKY, { empty: 'now set' });
    expect(changedLines(TRICKY, after)).toEqual({ removed: ['empty:\r'], added: ['empty: now set\r'] });
  });

  test('a block scalar can be replaced', () => {
    const after = updateFrontmatter(TRICKY, { notes: 'one\ntwo' });
    expect(parseNote(after).data.notes).toBe('one\ntwo');
    expect(after).toContain("blank: \"\"\r\nnotes: |-\r\n  one\r\n  two\r\nfolded: >-\r\n");
  });

  test('adding a key appends it at the end of the frontmatter', () => {
    const after = updateFrontmatter(TRICKY, { summary: '[[Meetings/Summaries/2026-11-30 Weekly Sync]]', count: 3 });
    expect(after).toBe(
      TRICKY.replace(
        'Weekly Sync]]"\r\n---\r\n',
        'Weekly Sync]]"\r\nsummary: "[[Meetings/Summaries/2026-11-30 Weekly Sync]]"\r\ncount: 3\r\n---\r\n',
      ),
    );
  });

  test('deleting a key removes only its lines', () => {
    const after = updateFrontmatter(TRICKY, { notes: undefined, empty: undefined });
    expect(after).toBe(TRICKY.replace('empty:\r\n', '').replace('notes: |\r\n  first line\r\n    indented line\r\n', ''));
  });

  test('a note without frontmatter gets a block', () => {
    expect(updateFrontmatter('Body\n', { state: 'finished', meeting: '[[Meetings/x]]' })).toBe(
      '---\nstate: finished\nmeeting: "[[Meetings/x]]"\n---\nBody\n',
    );
    expect(updateFrontmatter('\uFEFFBody\r\nmore\r\n', { a: 1 })).toBe('\uFEFF---\r\na: 1\r\n---\r\nBody\r\nmore\r\n');
    expect(updateFrontmatter('', { a: 'x' })).toBe('---\na: x\n---\n');
  });

  test('an empty frontmatter gets the key', () => {
    expect(updateFrontmatter('---\n---\nbody', { a: 1 })).toBe('---\na: 1\n---\nbody');
  });

  test('any value written over any style reads back as written and leaves the other keys alone', () => {
    const base = [
      '---',
      'plain: a',
      "sq: 'b'",
      'dq: "c"',
      'empty:   # comment here',
      'nextline:',
      '  value on next',
      'flow: [x]',
      'people:',
      '  - a',
      '# between',
      'next: 1',
      '"quoted key": q',
      'lastempty:',
      '---',
      'body',
      '',
    ].join('\n');
    const values: unknown[] = ['multi\nline', 'x: y', ' lead', "it's", 'say "hi"', '', '#x', '- x', 'null', '[[L]] and', 'ü ✓', ['a', 'b'], [], { x: 1 }, 3, true, null];
    for (const src of [base, base.replace(/\n/g, '\r\n')]) {
      const before = parseNote(src).data;
      for (const key of Object.keys(before)) {
        for (const value of values) {
          const out = updateFrontmatter(src, { [key]: value });
          const label = `${key} = ${JSON.stringify(value)}\n${out}`;
          expect(parseNote(out).data, label).toEqual({ ...before, [key]: value });
          expect(Object.keys(parseNote(out).data), label).toEqual(Object.keys(before));
          expect(out.endsWith('---\r\nbody\r\n') || out.endsWith('---\nbody\n'), label).toBe(true);
          if (src.includes('\r\n')) expect(out.replace(/\r\n/g, ''), label).not.toContain('\n');
        }
      }
    }
  });

  test('the comment after an empty value stays when it is filled', () => {
    expect(updateFrontmatter('---\nempty:   # note\n---\n', { empty: 'v' })).toBe('---\nempty: v   # note\n---\n');
  });

  test('a multi-line string over a plain value becomes a literal block', () => {
    expect(updateFrontmatter("---\na: x\nb: 'y'\n---\n", { a: 'one\ntwo' })).toBe("---\na: |-\n  one\n  two\nb: 'y'\n---\n");
  });

  test('malformed YAML is never rewritten', () => {
    const text = '---\ntitle: [oops\n---\nbody\n';
    expect(() => updateFrontmatter(text, { state: 'x' }, 'Meetings/x.md')).toThrow(FrontmatterError);
  });

  test('values that need quoting are quoted, so they read back as written', () => {
    const after = updateFrontmatter('---\na: 1\n---\n', {
      a: 'true',
      b: '123',
      c: 'x: y',
      d: '#tag',
      e: '',
      f: '[[Link]]',
      g: false,
    });
    expect(parseNote(after).data).toEqual({ a: 'true', b: '123', c: 'x: y', d: '#tag', e: '', f: '[[Link]]', g: false });
  });
});

describe('renderFrontmatter and replaceBody', () => {
  test('renders keys in order, quoting what needs it and every wikilink', () => {
    const text = renderFrontmatter({
      title: 'Weekly: Sync',
      start_time: '2026-11-30T09:00:00+01:00',
      projects: ['Alpha', 'Beta'],
      meeting: '[[Meetings/2026-11-30 Weekly Sync]]',
      agenda: '',
      skipped: undefined,
      status: 'done',
    });
    expect(text).toBe(
      [
        '---',
        'title: "Weekly: Sync"',
        'start_time: 2026-11-30T09:00:00+01:00',
        'projects: [Alpha, Beta]',
        'meeting: "[[Meetings/2026-11-30 Weekly Sync]]"',
        'agenda: ""',
        'status: done',
        '---',
        '',
      ].join('\n'),
    );
    expect(parseNote(text + 'body').data.title).toBe('Weekly: Sync');
  });

  test('replaceBody keeps the frontmatter bytes', () => {
    const after = replaceBody(TRICKY, 'New body\r\n');
    expect(after).toBe(TRICKY.slice(0, TRICKY.indexOf('Body line one.')) + 'New body\r\n');
    expect(replaceBody('no frontmatter', 'x')).toBe('x');
    expect(replaceBody('\uFEFFold', 'x')).toBe('\uFEFFx');
    expect(replaceBody('---\na: 1\n---', 'x')).toBe('---\na: 1\n---\nx');
  });
});

describe('vault helpers', () => {
  test('readNote returns the text and the parsed note', async () => {
    const vault = memoryVault({ 'Meetings/a.md': '---\ntitle: A\n---\nbody\n' });
    const note = await readNote(vault, '/vault/Meetings/a.md');
    expect(note.text).toBe('---\ntitle: A\n---\nbody\n');
    expect(note.data).toEqual({ title: 'A' });
  });

  test('readNote names the vault-relative file in errors', async () => {
    const vault = memoryVault({ 'Meetings/a.md': '---\ntitle: [\n---\n' });
    await expect(readNote(vault, '/vault/Meetings/a.md')).rejects.toThrow(/^Meetings\/a\.md line 2: /);
  });

  test('updateNoteFrontmatter writes through the vault only when the text changes', async () => {
    const vault = memoryVault({ 'Meetings/a.md': '---\ntitle: A   # keep\n---\nbody\n' });
    const writes: string[] = [];
    vault.onWrite((p) => writes.push(p));
    expect(await updateNoteFrontmatter(vault, '/vault/Meetings/a.md', { title: 'A' })).toBe('---\ntitle: A   # keep\n---\nbody\n');
    expect(writes).toEqual([]);
    const next = await updateNoteFrontmatter(vault, '/vault/Meetings/a.md', { state: 'finished' });
    expect(next).toBe('---\ntitle: A   # keep\nstate: finished\n---\nbody\n');
    expect(await vault.read('/vault/Meetings/a.md')).toBe(next);
    expect(writes).toEqual(['/vault/Meetings/a.md']);
  });

  test('updateNoteFrontmatter applies changes to the file as it is on disk now', async () => {
    const vault = memoryVault({ 'Meetings/a.md': '---\ntitle: A\n---\nbody\n' });
    await vault.fs.writeFile('/vault/Meetings/a.md', '---\ntitle: A\nmine: yes\n---\nedited body\n');
    const next = await updateNoteFrontmatter(vault, '/vault/Meetings/a.md', { state: 'summarizing' });
    expect(next).toBe('---\ntitle: A\nmine: yes\nstate: summarizing\n---\nedited body\n');
  });

  test('updateNoteFrontmatter leaves a malformed note untouched', async () => {
    const text = '---\ntitle: [\n---\nbody\n';
    const vault = memoryVault({ 'Meetings/a.md': text });
    const writes: string[] = [];
    vault.onWrite((p) => writes.push(p));
    await expect(updateNoteFrontmatter(vault, '/vault/Meetings/a.md', { state: 'x' })).rejects.toBeInstanceOf(FrontmatterError);
    expect(await vault.read('/vault/Meetings/a.md')).toBe(text);
    expect(writes).toEqual([]);
  });
});

describe('linear in the number of keys (issue #24 point 8: 10,000 keys took 1 s an edit)', () => {
  const manyKeys = (n: number) => Array.from({ length: n }, (_, i) => `key_${i}: "value ${i}: x" # note`).join('\n');

  test('duplicate keys are found by one look at each key, not by comparing every pair', () => {
    const looks = (n: number) => {
      let count = 0;
      const doc = parseDocument(manyKeys(n), NOTE_YAML_OPTIONS);
      expect(firstDuplicateKey(doc, () => count++)).toBeUndefined();
      return count;
    };
    expect(looks(1_000)).toBe(1_000);
    expect(looks(10_000)).toBe(10_000);
  });

  test("the library's own pairwise check is off: a counting comparer is never called with the notes' options", () => {
    let compared = 0;
    const counting = () => {
      compared++;
      return false;
    };
    const uniqueKeys = NOTE_YAML_OPTIONS.uniqueKeys === false ? false : counting;
    parseDocument(manyKeys(2_000), { ...NOTE_YAML_OPTIONS, uniqueKeys });
    expect(compared).toBe(0);
    // What it would have cost: every key against every key before it.
    parseDocument(manyKeys(2_000), { ...NOTE_YAML_OPTIONS, uniqueKeys: counting });
    expect(compared).toBe((2_000 * 1_999) / 2);
  });

  test('duplicates are still refused, at any depth, and 1 and "1" are different keys', () => {
    expect(() => parseNote(`---\n${manyKeys(3)}\nkey_1: again\n---\n`, 'dup.md')).toThrow(/dup\.md line 5: invalid frontmatter: Map keys must be unique/);
    expect(() => updateFrontmatter('---\na:\n  b: 1\n  b: 2\nc: [x, y]\n---\n', { c: 'z' })).toThrow(FrontmatterError);
    expect(parseNote('---\n1: number\n"1": text\n---\n').data).toEqual({ 1: 'text' });
  });

  test('an edit of a 10,000-key frontmatter changes one line and keeps the rest byte for byte', () => {
    const text = `---\n${manyKeys(10_000)}\n---\nbody\n`;
    const out = updateFrontmatter(text, { key_5000: 'changed' });
    const before = text.split('\n');
    const after = out.split('\n');
    expect(after).toHaveLength(before.length);
    expect(after.filter((line, i) => line !== before[i])).toEqual(['key_5000: "changed" # note']);
  });
});
