import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isBelow, isInside, isNormalAbsolute, relativeBelow, relativeTo, resolved, resolveIn } from '../../../src/vault/files/lexical-paths.js';

/**
 * The shortcuts of lexical-paths.ts give what node's `path` functions give (the rules they
 * replace in the vault, docs/design.md §8), for the paths a scan sees and for the attacks:
 * `..` steps, doubled and trailing separators, names that start with dots, the root itself.
 */

const ROOTS = ['/', '/vault', '/home/me/My Vault', '/vault/', '/vault/./x', '/vault/../vault', 'relative/root'];
const PATHS = [
  '',
  '.',
  '..',
  '/',
  '/vault',
  '/vault/',
  '/vault/Meetings/a.md',
  '/vault/Meetings//a.md',
  '/vault/Meetings/./a.md',
  '/vault/Meetings/../a.md',
  '/vault/Meetings/..',
  '/vault/Meetings/.',
  '/vault/..notes.md',
  '/vault/.hidden/x.md',
  '/vault/...',
  '/vaulted/x.md',
  '/vault2',
  '/vault/a..b/c.md',
  '/home/me/My Vault/Projects/Alpha/Overview.md',
  '/home/me/My Vault',
  '/home/me/My Vault/../etc/passwd',
  'Meetings/a.md',
  'Meetings/../../etc/passwd',
  'Meetings/./a.md',
  'Meetings//a.md',
  'Meetings/',
  './Meetings/a.md',
  '..notes/x.md',
  '.hidden/x.md',
  'a..b',
];

const originalIsInside = (folder: string, p: string) => {
  const r = path.relative(folder, p);
  return r === '' || (!r.startsWith('..') && !path.isAbsolute(r));
};
const originalIsBelow = (folder: string, p: string) => path.resolve(p) !== path.resolve(folder) && originalIsInside(folder, p);

describe('lexical paths', () => {
  it('tells a normalised absolute path from every other', () => {
    for (const p of PATHS) expect(isNormalAbsolute(p), p).toBe(path.isAbsolute(p) && path.resolve(p) === p);
  });

  it('resolves, relates and contains exactly as node’s path functions do', () => {
    for (const root of ROOTS) {
      for (const p of PATHS) {
        const label = `${root} | ${p}`;
        expect(resolveIn(root, p), label).toBe(path.resolve(root, p));
        expect(isInside(root, p), label).toBe(originalIsInside(root, p));
        expect(isBelow(root, p), label).toBe(originalIsBelow(root, p));
        expect(relativeTo(root, p), label).toBe(path.relative(root, path.resolve(root, p)).split(path.sep).join('/'));
        expect(relativeBelow(root, p), label).toBe(originalIsBelow(root, p) ? path.relative(root, p) : undefined);
      }
    }
    for (const p of PATHS) expect(resolved(p), p).toBe(path.resolve(p));
  });

  it('keeps a folder’s name from matching a longer sibling’s', () => {
    expect(isInside('/vault/Meetings', '/vault/Meetings Archive/a.md')).toBe(false);
    expect(relativeBelow('/vault/Meetings', '/vault/Meetings Archive/a.md')).toBeUndefined();
    expect(relativeTo('/vault', '/vault2/a.md')).toBe('../vault2/a.md');
  });
});
