import path from 'node:path';

/**
 * The vault's lexical path rules (resolve, relative, inside) without `path.resolve`'s walk
 * over every character when a path is already absolute and normalised, which is what
 * listings and the layout hand out. A catch-up scan asks them of every note, some twenty
 * times each (a note's kind is checked against every configured folder): through
 * `path.relative` that was a quarter of a warm scan's CPU (docs/design.md §8). Anything else
 * (a relative path, `..`, doubled or trailing separators, Windows) takes the `path` functions,
 * so the answers are the same.
 */

const POSIX = path.sep === '/';
const SLASH = 47;
/** A doubled separator, or a `.` or `..` step (one regular expression: cheaper than five searches). */
const NOT_NORMAL = /\/\/|\/\.\.?(?:\/|$)/;

/** An absolute POSIX path that `path.resolve` returns unchanged. */
export function isNormalAbsolute(p: string): boolean {
  if (!POSIX || p.charCodeAt(0) !== SLASH) return false;
  if (p.length === 1) return true;
  if (p.charCodeAt(p.length - 1) === SLASH) return false;
  return !NOT_NORMAL.test(p);
}

/** `path.resolve(root, p)`. A vault-relative path without `.` or `..` steps is joined as it is. */
export function resolveIn(root: string, p: string): string {
  if (isNormalAbsolute(p)) return p;
  if (p.length > 0 && p.charCodeAt(0) !== SLASH && isNormalAbsolute(root) && isNormalAbsolute(`/${p}`)) return root.length === 1 ? `/${p}` : `${root}/${p}`;
  return path.resolve(root, p);
}

/** `path.resolve(p)`. */
export function resolved(p: string): string {
  return isNormalAbsolute(p) ? p : path.resolve(p);
}

/** What follows `folder` and one separator in `p`, or undefined when `p` does not start so (both normal absolute). */
function below(folder: string, p: string): string | undefined {
  const prefixLength = folder.length === 1 ? 1 : folder.length + 1;
  if (p.length <= prefixLength || !p.startsWith(folder) || (folder.length > 1 && p.charCodeAt(folder.length) !== SLASH)) return undefined;
  return p.slice(prefixLength);
}

/**
 * True when `p` is `folder` or lies below it. As `path.relative` decides it: a first step
 * that starts with `..` (a file named `..notes`) counts as outside, as it always has.
 */
export function isInside(folder: string, p: string): boolean {
  if (isNormalAbsolute(folder) && isNormalAbsolute(p)) {
    if (p === folder) return true;
    const rest = below(folder, p);
    return rest !== undefined && !rest.startsWith('..');
  }
  const r = path.relative(folder, p);
  return r === '' || (!r.startsWith('..') && !path.isAbsolute(r));
}

/** True when `p` lies below `folder` (the folder itself is not below it). */
export function isBelow(folder: string, p: string): boolean {
  return resolved(p) !== resolved(folder) && isInside(folder, p);
}

/** `path.relative(folder, p)` (OS separators) when `p` lies below `folder`; undefined otherwise. */
export function relativeBelow(folder: string, p: string): string | undefined {
  if (isNormalAbsolute(folder) && isNormalAbsolute(p)) {
    const rest = below(folder, p);
    return rest === undefined || rest.startsWith('..') ? undefined : rest;
  }
  return isBelow(folder, p) ? path.relative(folder, p) : undefined;
}

/** `path.relative(root, path.resolve(root, p))` with forward slashes. */
export function relativeTo(root: string, p: string): string {
  if (isNormalAbsolute(root) && isNormalAbsolute(p)) {
    if (p === root) return '';
    const rest = below(root, p);
    if (rest !== undefined) return rest;
  }
  return path.relative(root, path.resolve(root, p)).split(path.sep).join('/');
}
