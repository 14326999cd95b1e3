import { describe, expect, it } from 'vitest';
import { translateDotNetRegex } from '../../../src/tools/search/dotnet-regex.js';

const re = (p: string) => {
  const t = translateDotNetRegex(p);
  return new RegExp(t.source, t.flags);
};

describe('.NET regular expressions', () => {
  it('is case-sensitive unless a leading (?i) says otherwise', () => {
    expect(re('release').test('Release')).toBe(false);
    expect(re('(?i)release').test('Release')).toBe(true);
    expect(translateDotNetRegex('(?i)release')).toEqual({ source: 'release', flags: 'iu' });
  });

  it('translates combined and repeated leading options, and switched-off ones', () => {
    expect(translateDotNetRegex('(?im)x').flags).toBe('imu');
    expect(translateDotNetRegex('(?i)(?s)a.b').flags).toBe('isu');
    expect(translateDotNetRegex('(?is-i)x').flags).toBe('su');
    expect(re('(?s)a.b').test('a\nb')).toBe(true);
  });

  it('supports (?x): whitespace and # comments are not part of the pattern', () => {
    const t = translateDotNetRegex('(?x) ship \\  v2  # the version\n [ ]now');
    expect(t.source).toBe('ship\\x20v2[ ]now');
    expect(re('(?x) ship \\  v2  # the version\n [ ]now').test('ship v2 now')).toBe(true);
  });

  it('translates \\A, \\Z, \\z, named groups in quotes, \\k quotes and (?#comments)', () => {
    expect(re('\\AShip\\Z').test('Ship')).toBe(true);
    expect(re('\\AShip\\z').test('Do Ship')).toBe(false);
    expect(re("(?'word'\\w+) \\k'word'").test('the the')).toBe(true);
    expect(re('(?<word>\\w+) \\k<word>').test('so so')).toBe(true);
    expect(re('ab(?# a comment)c').test('abc')).toBe(true);
  });

  it('keeps the Unicode meaning of \\w, \\d and \\b, as in .NET', () => {
    expect(re('^\\w+$').test('Zürich')).toBe(true);
    expect(re('\\bMüller\\b').test('Frau Müller sagt')).toBe(true);
    expect(re('\\bller').test('Müller')).toBe(false);
    expect(re('^[\\w ]+$').test('Çağrı Öz')).toBe(true);
    expect(re('^\\d+$').test('١٢٣')).toBe(true);
  });

  it('supports Unicode categories and keeps .NET escapes and literal braces valid', () => {
    expect(re('\\p{Lu}\\w+').test('Zürich')).toBe(true);
    expect(re('a{2}').test('aa')).toBe(true);
    expect(re('{x}').test('{x}')).toBe(true);
    expect(re('v1]').test('v1]')).toBe(true);
    expect(re('\\p{Lu}\\-\\#').test('A-#')).toBe(true);
    expect(re('[\\]x]').test(']')).toBe(true);
    expect(re('[]a]').test(']')).toBe(true);
  });

  it.each([
    ['(?>a+)b', /atomic group/],
    ['(?(a)b|c)', /conditional/],
    ['(?<open-close>x)', /balancing group/],
    ['[a-z-[aeiou]]', /character class subtraction/],
    ['\\Gabc', /\\G/],
    ['a(?i)b', /inline options after the start/],
    ['a(?i:b)', /inline options after the start/],
    ['\\p{IsGreek}', /named block/],
  ])('refuses unsupported syntax %s with a clear message', (pattern, message) => {
    expect(() => translateDotNetRegex(pattern)).toThrow(message);
  });

  it.each(['(unclosed', 'a**', '[z-a]', '', '(?q)x'])('reports an invalid pattern %j', (pattern) => {
    expect(() => translateDotNetRegex(pattern)).toThrow();
  });
});
