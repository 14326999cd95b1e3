/**
 * What makes a configuration error say how to fix it (docs/design.md §5): the line and
 * column of a JSON syntax error, the key a misspelt one was meant to be, a file whose
 * settings are not inside the `MeetingAssistant` section, why a value a type cannot judge (a
 * time zone, a regular expression) is none. Pure functions over text and parsed values, used
 * by config.ts.
 */

export const SECTION = 'MeetingAssistant';

/**
 * `JSON.parse`'s message with the place as a person finds it in an editor. Node 20 says
 * `at position 42`, Node 22 and later add `(line 3 column 5)`; both become
 * `line 3, column 5: …`, and the end of the input is placed at the end of the text.
 */
export function jsonSyntaxProblem(text: string, err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  const at = /\bat position (\d+)/.exec(message);
  const offset = at ? Number(at[1]) : /unexpected end/i.test(message) ? text.length : undefined;
  const what = message
    .replace(/\s*\(line \d+ column \d+\)/, '')
    .replace(/\s*in JSON at position \d+/, '')
    .replace(/\s*at position \d+/, '')
    .trim();
  if (offset === undefined) return `not valid JSON: ${what}`;
  const { line, column } = lineAndColumn(text, offset);
  return `not valid JSON at line ${line}, column ${column}: ${what}`;
}

/** 1-based line and column of a character offset. */
export function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, Math.max(0, Math.min(offset, text.length)));
  const lines = before.split('\n');
  return { line: lines.length, column: lines[lines.length - 1]!.length + 1 };
}

/**
 * A file that parsed but has no `MeetingAssistant` object at its top: named as such, with
 * the keys that look like they belong inside it. Undefined when the section is there.
 */
export function sectionProblem(raw: unknown, settingKeys: readonly string[]): string | undefined {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    return `the file must hold a JSON object with a "${SECTION}" section: { "${SECTION}": { "VaultPath": "…", … } }`;
  }
  const keys = Object.keys(raw);
  if (keys.includes(SECTION)) return undefined;
  const near = suggestKey(keys, [SECTION]);
  if (near) return `no "${SECTION}" section: found "${near.given}" (did you mean ${SECTION}?)`;
  const settings = keys.filter((key) => settingKeys.includes(key));
  const inside =
    settings.length > 0 ? `; ${settings.join(', ')} belong${settings.length === 1 ? 's' : ''} inside it` : '';
  return `no "${SECTION}" section: the settings go inside { "${SECTION}": { … } }${inside}`;
}

/**
 * The known key one of `given` is close to (a typo: a letter or two off, or swapped),
 * compared without regard to case; undefined when none is close enough to be meant.
 */
export function suggestKey(given: readonly string[], known: readonly string[]): { given: string; known: string } | undefined {
  for (const key of given) {
    const meant = closest(key, known);
    if (meant) return { given: key, known: meant };
  }
  return undefined;
}

/** The known key closest to `key`, if it is within a third of its length (at least 1, at most 3 edits). */
export function closest(key: string, known: readonly string[]): string | undefined {
  const limit = Math.min(3, Math.max(1, Math.floor(key.length / 3)));
  let best: { key: string; distance: number } | undefined;
  for (const candidate of known) {
    const distance = editDistance(key.toLowerCase(), candidate.toLowerCase());
    if (distance <= limit && (!best || distance < best.distance)) best = { key: candidate, distance };
  }
  return best?.key;
}

/** Optimal string alignment distance: insertions, deletions, substitutions and swaps of neighbours. */
function editDistance(a: string, b: string): number {
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) rows[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = d;
    }
  }
  return rows[a.length]![b.length]!;
}

/** Whether Intl knows `zone` (the calendar's zones.ts asks the same; config stays below it). */
export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** Why `pattern` is no regular expression (compiled as the calendar's matching does), or undefined. */
export function regexProblem(pattern: string): string | undefined {
  try {
    new RegExp(pattern, 'iu');
    return undefined;
  } catch (err) {
    return (err as Error).message.replace(/^Invalid regular expression: /, '');
  }
}
