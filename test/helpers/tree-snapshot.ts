import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** Every file of a tree with a hash of its bytes, and every folder: what a read-only command must leave as it was. */
export function snapshot(root: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (folder: string): void => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const abs = path.join(folder, entry.name);
      const rel = path.relative(root, abs);
      if (entry.isDirectory()) {
        out.set(`${rel}/`, 'dir');
        walk(abs);
      } else out.set(rel, createHash('sha256').update(readFileSync(abs)).digest('hex'));
    }
  };
  walk(root);
  return out;
}
