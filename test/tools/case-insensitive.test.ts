import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createToolBinding, createToolRegistry } from '../../src/tools/registry.js';
import { PastSummaryIndex } from '../../src/tools/cache/past-index.js';
import type { Fs } from '../../src/vault/files/fs.js';
import { Vault } from '../../src/vault/files/vault.js';
import { memoryFs, testConfig } from '../helpers/memfs.js';
import { BASE_FILES, SUMMARY, artifacts, summaryNote } from '../helpers/tool-harness.js';

/**
 * A case-insensitive, case-preserving filesystem (as on macOS and Windows) over memfs: every
 * path is matched against the existing entries without regard to case, and `realpath`
 * returns the names as stored, as the native realpath does there.
 */
function caseInsensitive(inner: Fs): Fs {
  const canon = async (p: string): Promise<string> => {
    const parts = path.resolve(p).split('/').filter(Boolean);
    let current = '/';
    for (const part of parts) {
      let name = part;
      try {
        const entries = await inner.readdir(current, { withFileTypes: true });
        name = entries.find((e) => e.name === part)?.name ?? entries.find((e) => e.name.toLowerCase() === part.toLowerCase())?.name ?? part;
      } catch {
        // a missing or non-folder parent: keep the spelling given
      }
      current = path.join(current, name);
    }
    return current;
  };
  const wrapped: Record<string, unknown> = {};
  for (const method of ['readFile', 'writeFile', 'open', 'unlink', 'rm', 'mkdir', 'readdir', 'stat', 'lstat', 'chmod'] as const) {
    wrapped[method] = async (p: string, ...rest: unknown[]) =>
      (inner[method] as (...a: unknown[]) => Promise<unknown>).call(inner, await canon(p), ...rest);
  }
  wrapped.rename = async (a: string, b: string) => inner.rename(await canon(a), await canon(b));
  wrapped.copyFile = async (a: string, b: string) => inner.copyFile(await canon(a), await canon(b));
  wrapped.realpath = async (p: string) => canon(await inner.realpath(await canon(p)));
  return wrapped as unknown as Fs;
}

function setup() {
  const fs = caseInsensitive(memoryFs({ ...BASE_FILES, [SUMMARY]: summaryNote('Weekly Sync', '2026-11-30', ['Alpha', 'Beta']) }));
  const vault = new Vault(fs, testConfig().layout);
  const ctx = createToolBinding({ vault, settings: testConfig().settings, meeting: artifacts(), pastSummaries: new PastSummaryIndex(vault) });
  const registry = createToolRegistry(ctx);
  const call = (name: string, args: Record<string, unknown>) => registry.call({ id: '1', name, arguments: JSON.stringify(args) });
  return { fs, vault, ctx, call };
}

describe('case tricks on a case-insensitive filesystem', () => {
  it("refuses the current meeting's summary spelled in another case", async () => {
    const { call } = setup();
    for (const p of ['meetings/summaries/2026-11-30 weekly sync.md', 'MEETINGS/SUMMARIES/2026-11-30 WEEKLY SYNC.MD', 'Meetings/Summaries/2026-11-30 Weekly SYNC.md']) {
      const r = await call('read_past_project_meeting_summary', { path: p });
      expect(r.isError, p).toBe(true);
      expect(r.content, p).not.toContain('Planned the release');
    }
  });

  it('refuses a summary of another project spelled in another case', async () => {
    const { call } = setup();
    const r = await call('read_past_project_meeting_summary', { path: 'meetings/summaries/2026-11-20 GAMMA PLAN.md' });
    expect(r.isError).toBe(true);
    expect(r.content).toContain('none of which is assigned to this meeting');
  });

  it('reads a past summary of the meeting\'s projects spelled in another case, under its real name', async () => {
    const { call } = setup();
    const r = await call('read_past_project_meeting_summary', { path: 'meetings/summaries/2026-11-23 alpha sync.md', from: 2, to: 2 });
    expect(r.content).toBe('Meetings/Summaries/2026-11-23 Alpha Sync.md (lines 2-2 of 8)\n     2\ttitle: Alpha Sync');
  });

  it('refuses a project of another meeting spelled in another case for search and past meetings', async () => {
    const { call } = setup();
    expect((await call('search', { keywords: 'release', projects: ['GAMMA'] })).isError).toBe(true);
    expect((await call('list_past_project_meetings', { projects: ['gamma'] })).isError).toBe(true);
  });

  it('writes a differently-cased project path to the real file, under its real name, audited once', async () => {
    const { vault, ctx, call } = setup();
    await call('write_projectfile', { project: 'alpha', path: 'NOTES.md', content: 'four' });
    const r = await call('write_projectfile', { project: 'ALPHA', path: 'notes.MD', content: 'five' });
    expect(r.content).toContain('Projects/Alpha/notes.md');
    expect(await vault.read('/vault/Projects/Alpha/notes.md')).toBe('Alpha line 1\nAlpha line 2\nAlpha line 3\nfour\nfive\n');
    expect(ctx.audit.files).toEqual(['Projects/Alpha/notes.md']);
  });
});
