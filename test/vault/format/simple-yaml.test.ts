import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { parseSimpleFrontmatter } from '../../../src/vault/format/simple-yaml.js';
import { FIXTURE_VAULTS, frontmatterOf, OWN_VAULT, readFolderFiles, readVaultFiles, REPO_ROOT } from '../../helpers/fixture-vaults.js';

/**
 * The fast path must read every frontmatter it accepts exactly as the YAML parser does, and
 * leave everything else to it.
 */

const YAML_OPTIONS = { schema: 'core', version: '1.2', uniqueKeys: true } as const;

function full(yamlText: string): unknown {
  try {
    const value = parse(yamlText, YAML_OPTIONS) as unknown;
    return value ?? {};
  } catch {
    return 'error';
  }
}

function agrees(yamlText: string): void {
  const fast = parseSimpleFrontmatter(yamlText);
  if (fast !== undefined) expect(fast, JSON.stringify(yamlText)).toEqual(full(yamlText));
}

describe('the simple frontmatter fast path', () => {
  const agreesOnEveryNote = (texts: string[], minAccepted: number) => {
    let accepted = 0;
    for (const text of texts) {
      const yamlText = frontmatterOf(text);
      if (yamlText === undefined) continue;
      agrees(yamlText);
      if (parseSimpleFrontmatter(yamlText) !== undefined) accepted++;
    }
    expect(accepted).toBeGreaterThanOrEqual(minAccepted);
  };

  for (const vault of FIXTURE_VAULTS) {
    it.skipIf(!vault.present)(`reads ${vault.title} exactly as the YAML parser does`, () => {
      agreesOnEveryNote(Object.values(readVaultFiles(vault, { markdownOnly: true })), 1);
    });
  }

  it('takes a CRLF note and a BOM note of the project fixture vault, and reads them as YAML does', () => {
    const files = readVaultFiles(OWN_VAULT, { markdownOnly: true });
    for (const rel of ['Meetings/Transcripts/2026-03-02 Atlas planning.md', 'Meetings/Context/2026-03-02 Atlas planning.md']) {
      const yamlText = frontmatterOf(files[rel]!)!;
      expect(parseSimpleFrontmatter(yamlText), rel).toEqual(full(yamlText));
    }
  });

  it('reads the example vault exactly as the YAML parser does', () => {
    agreesOnEveryNote(Object.values(readFolderFiles(path.join(REPO_ROOT, 'example-vault'), { markdownOnly: true })), 5);
  });

  it('takes the common notes of a vault: states, links, times, flow lists', () => {
    const text = [
      'title: Weekly Sync (draft)',
      'start_time: 2026-11-30T09:00:00+01:00',
      'meeting: "[[Meetings/2026-11-30 Weekly Sync]]"',
      "transcript: '[[Meetings/Transcripts/x]]'",
      'state: speaker recognition',
      'attendees: [Alice, Bob Smith, Dr. Who]',
      'projects: []',
      'agenda:',
      '# a comment',
      '',
    ].join('\r\n');
    expect(parseSimpleFrontmatter(text)).toEqual({
      title: 'Weekly Sync (draft)',
      start_time: '2026-11-30T09:00:00+01:00',
      meeting: '[[Meetings/2026-11-30 Weekly Sync]]',
      transcript: '[[Meetings/Transcripts/x]]',
      state: 'speaker recognition',
      attendees: ['Alice', 'Bob Smith', 'Dr. Who'],
      projects: [],
      agenda: null,
    });
    agrees(text);
  });

  it.each([
    'retry: true',
    'retry: False',
    'n: 12',
    'n: 1e3',
    'n: .5',
    'n: 0x1F',
    'x: ~',
    'x: null',
    'x: "a\\"b"',
    "x: 'it''s'",
    'x: value # comment',
    'x: a: b',
    'x: -dash',
    'x: [a, [b]]',
    'x: [a, true]',
    'x: [1, 2]',
    'x: [a,, b]',
    'x: {a: 1}',
    'x: |',
    'x: >',
    'x: &anchor a',
    'x: *alias',
    'x: !tag a',
    'x: 50%',
    'x: a, b',
    'x:\n  - a',
    '  indented: x',
    'a: 1\na: 2',
    'dup: x\ndup: y',
    'not a mapping',
    'key:value',
    'ключ: значение',
    '"quoted key": x',
    'x: `code`',
  ])('leaves %j to the YAML parser', (yamlText) => {
    expect(parseSimpleFrontmatter(yamlText)).toBeUndefined();
  });

  it('agrees with the YAML parser on thousands of generated frontmatters', () => {
    const values = [
      '', 'finished', 'Weekly Sync', '09:00', '2026-11-30', '2026-11-30T09:00:00Z', '1_000', '0b101', 'yes', 'no',
      'on', 'C# notes', 'a.b', 'x(y)', '"q"', "'s'", '"[[L]]"', '[A, B]', '[]', '[ A ]', 'True', 'NULL', '12', '-3',
      '+4', '.inf', '.NaN', 'a:b', 'a :b', 'trailing   ', '"x" ', '[A, B] ', 'tab\there', '~x', 'x~', 'e5', '1e', '0o17',
      '0x', 'nan', 'Inf', '.5e3', '5.', '(1)', '_x', 'a/b/c', 'Q3 2026',
    ];
    const keys = ['state', 'title', 'x', 'a_b', 'a-b', 'K9'];
    let seed = 42;
    const next = (n: number) => (seed = (seed * 1103515245 + 12345) % 2147483648) % n;
    for (let i = 0; i < 3000; i++) {
      const lines: string[] = [];
      const count = 1 + next(5);
      for (let j = 0; j < count; j++) {
        const value = values[next(values.length)]!;
        lines.push(`${keys[next(keys.length)]}:${value === '' ? '' : ' '}${value}`);
      }
      agrees(lines.join(next(2) ? '\n' : '\r\n'));
    }
  });
});
