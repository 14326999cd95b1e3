import { memfs, type NestedDirectoryJSON } from 'memfs';
import { type AppConfig, resolveConfig } from '../../src/config.js';
import type { Fs } from '../../src/vault/files/fs.js';
import { Vault } from '../../src/vault/files/vault.js';

export const VAULT_ROOT = '/vault';

/** An in-memory filesystem with `files` (paths relative to `/vault`, or absolute) laid out. */
export function memoryFs(files: Record<string, string | null> = {}): Fs {
  const json: NestedDirectoryJSON = {};
  for (const [p, content] of Object.entries(files)) {
    json[p.startsWith('/') ? p : `${VAULT_ROOT}/${p}`] = content;
  }
  const { fs } = memfs(json, '/');
  fs.mkdirSync(VAULT_ROOT, { recursive: true });
  return fs.promises as unknown as Fs;
}

/** Config for a vault at /vault with the design's defaults, overridable per section. */
export function testConfig(raw: Record<string, unknown> = {}): AppConfig {
  return resolveConfig({ MeetingAssistant: { VaultPath: VAULT_ROOT, ...raw } }, { cwd: '/' });
}

/** A memfs-backed vault with the default layout and the given files. */
export function memoryVault(files: Record<string, string | null> = {}, raw: Record<string, unknown> = {}): Vault {
  return new Vault(memoryFs(files), testConfig(raw).layout);
}

export type CountedFsCall = 'readFile' | 'stat' | 'lstat' | 'readdir';

/** Counts, from now on, the reads `fs` serves (what the caches are meant to spare). */
export function countFsCalls(fs: Fs): Record<CountedFsCall, number> {
  const counts: Record<CountedFsCall, number> = { readFile: 0, stat: 0, lstat: 0, readdir: 0 };
  for (const name of Object.keys(counts) as CountedFsCall[]) {
    const original = (fs[name] as (...args: unknown[]) => Promise<unknown>).bind(fs);
    (fs as unknown as Record<string, unknown>)[name] = (...args: unknown[]) => {
      counts[name]++;
      return original(...args);
    };
  }
  return counts;
}

/**
 * memfs stamps change times with the wall clock in milliseconds: a change within the millisecond
 * of the last one leaves the change time as it was (a real disk's nanoseconds move it). Tests of
 * "only the change time moved" let a millisecond pass first (a poll of the clock, at most 1 ms).
 */
export function nextMillisecond(): void {
  const start = Date.now();
  while (Date.now() === start);
}
