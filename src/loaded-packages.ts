import path from 'node:path';

/**
 * Letting go of a CommonJS package loaded with `createRequire` (docs/design.md §8): an idle
 * daemon does not keep what only a run or the start-up needed (the tokenizer's table, the
 * configuration's schema library). Its modules leave the require cache and the list of their
 * loader's children, which would otherwise keep them; what still holds one of its objects
 * keeps that object, and the next `require` loads the package afresh.
 */
export function unloadPackage(requireFn: NodeJS.Require, name: string): void {
  const marker = `${path.sep}node_modules${path.sep}${name.split('/').join(path.sep)}${path.sep}`;
  const cache = requireFn.cache;
  for (const id of Object.keys(cache)) {
    if (!id.includes(marker)) continue;
    const mod = cache[id];
    const parent = (mod as { parent?: NodeJS.Module | null } | undefined)?.parent;
    if (parent) parent.children = parent.children.filter((child) => child !== mod);
    delete cache[id];
  }
}
