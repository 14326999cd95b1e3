import { mkdtemp, mkdir, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import {
  BUNDLED_DEFAULT_CONFIG,
  EXAMPLE_VAULT_DIR,
  SeedError,
  isBundledDefaultConfig,
  seedWorkingVault,
} from '../src/example-vault.js';
import { type Fs, nodeFs, readText } from '../src/vault/files/fs.js';
import { resolveLink } from '../src/vault/format/links.js';
import { resolveMeeting } from '../src/vault/notes/meeting.js';
import { findMeetingOfSummary } from '../src/vault/notes/locate-meeting.js';
import { countActionItems } from '../src/vault/notes/summary-sections.js';
import { wikilinksOf } from './helpers/fixture-vaults.js';
import { memoryFs, memoryVault } from './helpers/memfs.js';

const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));
const EXAMPLE = path.join(REPO_ROOT, 'example-vault');
/** Where the example lives inside the memfs tests. */
const MEM_EXAMPLE = '/pkg/example-vault';

/** Every file of the shipped example vault: example-relative path (forward slashes) -> text. */
function exampleFiles(): Map<string, string> {
  const files = new Map<string, string>();
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else files.set(path.relative(EXAMPLE, full).split(path.sep).join('/'), readFileSync(full, 'utf8'));
    }
  };
  walk(EXAMPLE);
  return files;
}

/** A memfs with the example at /pkg/example-vault, an empty /vault, and `extra` files. */
function fsWithExample(extra: Record<string, string> = {}): Fs {
  const files: Record<string, string> = { ...extra };
  for (const [rel, text] of exampleFiles()) files[`${MEM_EXAMPLE}/${rel}`] = text;
  return memoryFs(files);
}

/** Every file below `dir` on `fs`: dir-relative path -> text. */
async function treeOf(fs: Fs, dir: string): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  const walk = async (d: string) => {
    for (const entry of await fs.readdir(d, { withFileTypes: true })) {
      const full = path.join(d, entry.name);
      if (entry.isDirectory()) await walk(full);
      else files.set(path.relative(dir, full).split(path.sep).join('/'), await readText(fs, full));
    }
  };
  await walk(dir);
  return files;
}

describe('seedWorkingVault', () => {
  it('copies every file of the example into an empty vault folder, leaving the example as it was', async () => {
    const fs = fsWithExample();
    const before = await treeOf(fs, MEM_EXAMPLE);

    expect(await seedWorkingVault({ fs, exampleDir: MEM_EXAMPLE, vaultDir: '/vault' })).toEqual({ seeded: true });

    expect(await treeOf(fs, '/vault')).toEqual(exampleFiles());
    expect(await treeOf(fs, MEM_EXAMPLE)).toEqual(before);
  });

  it('creates a vault folder that does not exist yet, with its parents, and leaves no staging folder behind', async () => {
    const fs = fsWithExample();

    const result = await seedWorkingVault({ fs, exampleDir: MEM_EXAMPLE, vaultDir: '/home/me/notes/vault' });

    expect(result.seeded).toBe(true);
    expect(await treeOf(fs, '/home/me/notes/vault')).toEqual(exampleFiles());
    expect((await fs.readdir('/home/me/notes', { withFileTypes: true })).map((e) => e.name)).toEqual(['vault']);
  });

  it('does nothing on a second call: edits and deletions in the working vault stay', async () => {
    const fs = fsWithExample();
    await seedWorkingVault({ fs, exampleDir: MEM_EXAMPLE, vaultDir: '/vault' });
    await fs.writeFile('/vault/Meetings/Glossary.md', 'my own glossary\n');
    await fs.unlink('/vault/Projects/Beta/Decisions.md');

    expect(await seedWorkingVault({ fs, exampleDir: MEM_EXAMPLE, vaultDir: '/vault' })).toEqual({ seeded: false });

    expect(await readText(fs, '/vault/Meetings/Glossary.md')).toBe('my own glossary\n');
    const tree = await treeOf(fs, '/vault');
    expect(tree.has('Projects/Beta/Decisions.md')).toBe(false);
    expect(tree.size).toBe(exampleFiles().size - 1);
  });

  it('never touches an existing vault that has anything in it, even only a hidden folder', async () => {
    const fs = fsWithExample({ '/vault/Notes/mine.md': '# mine\n', '/other/.obsidian/app.json': '{}' });

    expect((await seedWorkingVault({ fs, exampleDir: MEM_EXAMPLE, vaultDir: '/vault' })).seeded).toBe(false);
    expect((await seedWorkingVault({ fs, exampleDir: MEM_EXAMPLE, vaultDir: '/other' })).seeded).toBe(false);

    expect(await treeOf(fs, '/vault')).toEqual(new Map([['Notes/mine.md', '# mine\n']]));
    expect(await treeOf(fs, '/other')).toEqual(new Map([['.obsidian/app.json', '{}']]));
  });

  it("seeds a vault that holds only the daemon's own state folder, keeping the token", async () => {
    const fs = fsWithExample({ '/vault/.meeting-assistant/token': 'secret\n' });

    expect((await seedWorkingVault({ fs, exampleDir: MEM_EXAMPLE, vaultDir: '/vault' })).seeded).toBe(true);

    const tree = await treeOf(fs, '/vault');
    expect(tree.get('.meeting-assistant/token')).toBe('secret\n');
    tree.delete('.meeting-assistant/token');
    expect(tree).toEqual(exampleFiles());
  });

  it('refuses a vault path that is a file, and a missing example, with a SeedError naming the path', async () => {
    const fs = fsWithExample({ '/notes.md': 'not a folder' });

    await expect(seedWorkingVault({ fs, exampleDir: MEM_EXAMPLE, vaultDir: '/notes.md' })).rejects.toThrow(
      new SeedError('the vault path is not a folder: /notes.md'),
    );
    await expect(seedWorkingVault({ fs, exampleDir: '/nowhere', vaultDir: '/fresh' })).rejects.toThrow(
      new SeedError('the example vault is missing: /nowhere'),
    );
    expect(await readText(fs, '/notes.md')).toBe('not a folder');
    await expect(fs.stat('/fresh')).rejects.toMatchObject({ code: 'ENOENT' });
  });

  describe('on the real disk', () => {
    let tmp: string | undefined;
    afterEach(async () => {
      if (tmp) await rm(tmp, { recursive: true, force: true });
      tmp = undefined;
    });

    it('seeds a missing folder and an existing empty one from the shipped example', async () => {
      tmp = await mkdtemp(path.join(os.tmpdir(), 'ma-seed-'));
      const missing = path.join(tmp, 'vault');
      const empty = path.join(tmp, 'empty');
      await mkdir(empty);

      expect((await seedWorkingVault({ fs: nodeFs, exampleDir: EXAMPLE_VAULT_DIR, vaultDir: missing })).seeded).toBe(true);
      expect((await seedWorkingVault({ fs: nodeFs, exampleDir: EXAMPLE_VAULT_DIR, vaultDir: empty })).seeded).toBe(true);

      expect(await treeOf(nodeFs, missing)).toEqual(exampleFiles());
      expect(await treeOf(nodeFs, empty)).toEqual(exampleFiles());
      expect((await readdir(tmp)).sort()).toEqual(['empty', 'vault']);
    });
  });
});

describe('bundled paths', () => {
  let tmp: string | undefined;
  afterEach(async () => {
    if (tmp) await rm(tmp, { recursive: true, force: true });
    tmp = undefined;
  });

  it('EXAMPLE_VAULT_DIR is the package example-vault folder', () => {
    expect(EXAMPLE_VAULT_DIR).toBe(path.join(REPO_ROOT, 'example-vault'));
    expect(readdirSync(EXAMPLE_VAULT_DIR).sort()).toEqual(['Meetings', 'Projects', 'Templates']);
  });

  it('isBundledDefaultConfig is true only for the package config.default.json', async () => {
    expect(BUNDLED_DEFAULT_CONFIG).toBe(path.join(REPO_ROOT, 'config.default.json'));
    expect(isBundledDefaultConfig(path.join(REPO_ROOT, 'config.default.json'))).toBe(true);
    expect(isBundledDefaultConfig(path.relative(process.cwd(), BUNDLED_DEFAULT_CONFIG))).toBe(true);

    tmp = await mkdtemp(path.join(os.tmpdir(), 'ma-config-'));
    const copy = path.join(tmp, 'config.default.json');
    await writeFile(copy, await readFile(BUNDLED_DEFAULT_CONFIG));
    const link = path.join(tmp, 'linked.json');
    await symlink(BUNDLED_DEFAULT_CONFIG, link);

    expect(isBundledDefaultConfig(link)).toBe(true);
    expect(isBundledDefaultConfig(copy)).toBe(false);
    expect(isBundledDefaultConfig(path.join(REPO_ROOT, 'config.example.json'))).toBe(false);
    expect(isBundledDefaultConfig(path.join(tmp, 'missing.json'))).toBe(false);
    expect(isBundledDefaultConfig(undefined)).toBe(false);
  });
});

describe('the shipped example vault', () => {
  const files = exampleFiles();
  const notes = [...files.keys()].filter((p) => p.endsWith('.md'));

  /** The parsed frontmatter, or undefined when the note has none. */
  const frontmatter = (rel: string): Record<string, unknown> | undefined => {
    const text = files.get(rel);
    if (text === undefined) throw new Error(`no such example note: ${rel}`);
    const lines = text.split('\n');
    if (lines[0] !== '---') return undefined;
    const end = lines.indexOf('---', 1);
    if (end < 0) throw new Error(`${rel}: frontmatter is not closed`);
    const doc = parseDocument(lines.slice(1, end).join('\n'));
    if (doc.errors.length > 0 || doc.warnings.length > 0) {
      throw new Error(`${rel}: invalid YAML frontmatter: ${[...doc.errors, ...doc.warnings].join('; ')}`);
    }
    return doc.toJS() as Record<string, unknown>;
  };
  /** `"[[Meetings/x]]"` -> `Meetings/x.md`, checking the canonical link form the daemon writes. */
  const target = (link: unknown): string => {
    const m = typeof link === 'string' ? /^\[\[([^|#\]]+)\]\]$/.exec(link) : null;
    if (!m) throw new Error(`not a [[link]]: ${String(link)}`);
    return `${m[1]}.md`;
  };
  const under = (folder: string) => notes.filter((p) => path.posix.dirname(p) === folder);

  it('has valid YAML frontmatter (a mapping) in every note that has frontmatter', () => {
    const withFrontmatter = notes.filter((rel) => files.get(rel)!.startsWith('---\n'));
    // Everything in Meetings/ is a note with properties, except the plain word list.
    const expected = notes.filter((rel) => rel.startsWith('Meetings/') && rel !== 'Meetings/Dictionary.md');
    expect(withFrontmatter).toEqual(expect.arrayContaining(expected));
    for (const rel of withFrontmatter) {
      const data = frontmatter(rel);
      expect(data, rel).toBeTypeOf('object');
      expect(data, rel).not.toBeNull();
      expect(Array.isArray(data), rel).toBe(false);
    }
  });

  it('has four meeting notes linked both ways to their transcripts: one summarized last week, two finished, one transcribing', () => {
    const meetings = under('Meetings').filter((p) => !/\/(Glossary|Dictionary)\.md$/.test(p));
    expect(meetings).toHaveLength(4);
    const states: unknown[] = [];
    for (const meeting of meetings) {
      const fm = frontmatter(meeting)!;
      for (const key of ['title', 'start_time', 'end_time', 'attendees', 'projects', 'transcript']) {
        expect(fm[key], `${meeting}: ${key}`).toBeDefined();
      }
      for (const project of fm.projects as string[]) expect(files.has(`Projects/${project}/Overview.md`)).toBe(true);
      const transcript = target(fm.transcript);
      expect(transcript.startsWith('Meetings/Transcripts/')).toBe(true);
      const tfm = frontmatter(transcript)!;
      expect(target(tfm.meeting)).toBe(meeting);
      states.push(tfm.state);
      const body = files.get(meeting)!.split('\n---\n').slice(1).join('\n---\n').trim();
      expect(body.length, `${meeting}: user notes`).toBeGreaterThan(0);
    }
    expect(states.sort()).toEqual(['finished', 'finished', 'finished', 'transcribing']);
    const withoutLinks = meetings.filter((m) => {
      const fm = frontmatter(m)!;
      return fm.context === undefined && fm.summary === undefined;
    });
    expect(withoutLinks).toHaveLength(1);
  });

  it('has transcripts of 40-80 speech lines, with a Speaker 2 and a bold label', () => {
    const transcripts = under('Meetings/Transcripts');
    expect(transcripts).toHaveLength(4);
    const speech = /^\[\d\d:\d\d:\d\d\] (\*\*[^*]+\*\*|[^:*]+): \S/;
    const all: string[] = [];
    for (const rel of transcripts) {
      const body = files.get(rel)!.split('\n---\n').slice(1).join('\n---\n');
      const lines = body.split('\n').filter((l) => l.trim() !== '');
      for (const line of lines) expect(line, rel).toMatch(speech);
      expect(lines.length, rel).toBeGreaterThanOrEqual(40);
      expect(lines.length, rel).toBeLessThanOrEqual(80);
      all.push(...lines);
    }
    expect(all.some((l) => /^\[[\d:]+\] Speaker 2: /.test(l))).toBe(true);
    expect(all.some((l) => /^\[[\d:]+\] \*\*\w+\*\*: /.test(l))).toBe(true);
  });

  it('has a glossary, a one-word-a-line dictionary, two identities and a past Alpha summary', () => {
    expect(files.get('Meetings/Glossary.md')).toContain('Alpha');
    const words = files.get('Meetings/Dictionary.md')!.replace(/\n$/, '').split('\n');
    expect(words.length).toBeGreaterThan(3);
    for (const word of words) expect(word).toMatch(/^\S+$/);
    expect(under('Meetings/Speakers')).toHaveLength(2);
    const summaries = under('Meetings/Summaries');
    expect(summaries).toHaveLength(1);
    expect(frontmatter(summaries[0]!)).toMatchObject({ status: 'done', projects: ['Alpha'] });
    expect(files.get(summaries[0]!)).toMatch(/## Summary[\s\S]*## Decisions[\s\S]*## Next steps/);
  });

  it('has three summary templates in Templates/, one of them used by a meeting with unnamed speakers', () => {
    expect(under('Templates').sort()).toEqual(['Templates/Customer call.md', 'Templates/One-on-one.md', 'Templates/Stand-up.md']);
    for (const template of under('Templates')) {
      // Headings, each with a hint under it, and exactly one section for action items, found
      // under every Agent.TaskFormat: a plain summary in the template's shape gets its count.
      const headings = files.get(template)!.match(/^## .+\n[^#\n].+$/gm) ?? [];
      expect(headings.length, template).toBeGreaterThanOrEqual(4);
      const summary = headings.map((h) => `${h.split('\n')[0]}\n- Alice: something\n`).join('');
      expect(countActionItems(summary, 'plain'), template).toBe(1);
      // The instructions say the task format; a template saying one would contradict `plain`.
      expect(files.get(template), template).not.toMatch(/task line|\[ \]/i);
    }
    const standUp = 'Meetings/2026-12-01 0930 Daily Stand-up.md';
    expect(frontmatter(standUp)).toMatchObject({ template: '[[Stand-up]]' });
    const transcript = files.get(target(frontmatter(standUp)!.transcript))!;
    expect(transcript).toMatch(/^\[[\d:]+\] SPEAKER_01: /m);
  });

  it('is complete: every link of every note names a note that is there (a retry of any meeting can run)', async () => {
    const vault = memoryVault(Object.fromEntries(files));
    let checked = 0;
    for (const [rel, text] of files) {
      // A link shown as an example inside `code` is no link.
      for (const link of wikilinksOf(text.replace(/`[^`\n]*`/g, ''))) {
        const fm = frontmatter(rel) ?? {};
        const planned = Object.entries(fm).some(([key, value]) => (key === 'context' || key === 'summary') && value === link);
        if (planned && (typeof fm.summary !== 'string' || !files.has(target(fm.summary)))) {
          // A meeting not yet summarized names where its context and summary notes will go.
          continue;
        }
        await expect(resolveLink(vault, link), `${rel}: ${link}`).resolves.toEqual(expect.any(String));
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(12);
  });

  it("the past summary's meeting resolves whole: meeting, transcript and context notes, all finished", async () => {
    const vault = memoryVault(Object.fromEntries(files));
    const summary = vault.abs('Meetings/Summaries/2026-11-23 0900 Release Sync.md');
    const meeting = await findMeetingOfSummary(vault, summary);
    const artifacts = await resolveMeeting(vault, meeting, { writeBack: false });
    expect(vault.rel(artifacts.meetingPath)).toBe('Meetings/2026-11-23 0900 Release Sync.md');
    expect(vault.rel(artifacts.transcriptPath)).toBe('Meetings/Transcripts/2026-11-23 0900 Release Sync.md');
    expect(vault.rel(artifacts.contextPath)).toBe('Meetings/Context/2026-11-23 0900 Release Sync.md');
    expect(artifacts.summaryPath).toBe(summary);
    expect(frontmatter('Meetings/Context/2026-11-23 0900 Release Sync.md')?.state).toBe('finished');
  });

  it('has projects Alpha and Beta with a few files each and an AGENTS.md in Alpha only', () => {
    const projectFiles = (name: string) => notes.filter((p) => p.startsWith(`Projects/${name}/`));
    expect(projectFiles('Alpha').length).toBeGreaterThanOrEqual(3);
    expect(projectFiles('Beta').length).toBeGreaterThanOrEqual(3);
    expect(files.has('Projects/Alpha/AGENTS.md')).toBe(true);
    expect(files.has('Projects/Beta/AGENTS.md')).toBe(false);
    expect(readdirSync(path.join(EXAMPLE, 'Projects')).sort()).toEqual(['Alpha', 'Beta']);
  });
});
