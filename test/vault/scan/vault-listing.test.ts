import { memfs } from 'memfs';
import { describe, expect, it } from 'vitest';
import type { Fs } from '../../../src/vault/files/fs.js';
import { Vault } from '../../../src/vault/files/vault.js';
import { vaultFiles } from '../../../src/vault/format/links.js';
import { RACY_MS, VaultListing } from '../../../src/vault/scan/vault-listing.js';
import { countFsCalls, nextMillisecond, testConfig, VAULT_ROOT } from '../../helpers/memfs.js';

// docs/design.md §1 (links) and BENCHMARKS.md (run start): the vault's files kept between
// look-ups, each folder checked by its version instead of read.

const FILES: Record<string, string> = {
  'Meetings/Weekly.md': 'm',
  'Meetings/Retro.md': 'm',
  'Meetings/.hidden note.md': 'dot-file: listed for links, not a meeting note',
  'Meetings/Summaries/Weekly.md': 's',
  'Meetings/Transcripts/Weekly.md': 't',
  'Meetings/Weekly.sync-conflict-20261201-101010-ABCDEFG.md': 'a conflict copy',
  'Projects/Alpha/notes.md': 'p',
  'Projects/Alpha/deep/er/plan.md': 'p',
  'Projects/Alpha/.Weekly.md.1234-abcdef.ma-tmp': 'a temporary file',
  '.obsidian/workspace.json': '{}',
  '.trash/Old.md': 'x',
  'Inbox.md': 'i',
};

type RawFs = ReturnType<typeof memfs>['fs'];

/**
 * Looked at a minute after the folders' last change: none of them is racy. Their mtimes are set
 * a minute back (setUp), but a folder's change time is what tells when it last changed, and
 * utimes cannot set that back: the look's clock moves instead.
 */
const AT_REST = { now: () => Date.now() + 60_000 };

/** A memfs vault whose folders' mtimes are a minute old (looked at with AT_REST, none of them is racy). */
function setUp(files: Record<string, string> = FILES): { raw: RawFs; vault: Vault } {
  const json: Record<string, string> = {};
  for (const [p, content] of Object.entries(files)) json[`${VAULT_ROOT}/${p}`] = content;
  const { fs: raw } = memfs(json, '/');
  raw.mkdirSync(VAULT_ROOT, { recursive: true });
  age(raw, VAULT_ROOT);
  return { raw, vault: new Vault(raw.promises as unknown as Fs, testConfig().layout) };
}

function age(raw: RawFs, dir: string): void {
  const old = (Date.now() - 60_000) / 1000;
  raw.utimesSync(dir, old, old);
  for (const entry of raw.readdirSync(dir, { withFileTypes: true }) as { name: string; isDirectory(): boolean }[]) {
    if (entry.isDirectory()) age(raw, `${dir}/${entry.name}`);
  }
}

const sorted = (files: readonly string[]) => [...files].sort();

describe('the vault listing', () => {
  it('lists what a walk for a link lists: no dot-folders, no temporary files or conflict copies', async () => {
    const { vault } = setUp();
    const walked = await vaultFiles(vault)();
    const listed = await new VaultListing(vault, AT_REST).files();
    expect(sorted(listed)).toEqual(sorted(walked));
    expect(sorted(listed)).toEqual([
      'Inbox.md',
      'Meetings/.hidden note.md',
      'Meetings/Retro.md',
      'Meetings/Summaries/Weekly.md',
      'Meetings/Transcripts/Weekly.md',
      'Meetings/Weekly.md',
      'Projects/Alpha/deep/er/plan.md',
      'Projects/Alpha/notes.md',
    ]);
  });

  it('looks again with a stat per folder and no read when nothing was added, removed or renamed', async () => {
    const { vault } = setUp();
    const listing = new VaultListing(vault, AT_REST);
    const first = await listing.files();
    const folders = listing.reads;
    const calls = countFsCalls(vault.fs);
    // A file written in place changes no folder.
    await vault.fs.writeFile(vault.abs('Meetings/Weekly.md'), 'edited');
    const again = await listing.files();
    expect(again).toBe(first);
    expect(listing.reads).toBe(folders);
    expect(calls.readdir).toBe(0);
    expect(calls.stat + calls.lstat).toBe(folders);
  });

  it('sees a file added, a file removed and a folder renamed, reading only the folders that changed', async () => {
    const { raw, vault } = setUp();
    const listing = new VaultListing(vault, AT_REST);
    await listing.files();
    const before = listing.reads;
    raw.writeFileSync(`${VAULT_ROOT}/Projects/Alpha/deep/er/new.md`, 'n');
    raw.unlinkSync(`${VAULT_ROOT}/Meetings/Retro.md`);
    let listed = await listing.files();
    expect(listed).toContain('Projects/Alpha/deep/er/new.md');
    expect(listed).not.toContain('Meetings/Retro.md');
    expect(listing.reads - before).toBe(2);

    raw.renameSync(`${VAULT_ROOT}/Projects/Alpha/deep`, `${VAULT_ROOT}/Projects/Alpha/shallow`);
    listed = await listing.files();
    expect(listed.filter((f) => f.startsWith('Projects/Alpha/'))).toEqual(
      expect.arrayContaining(['Projects/Alpha/shallow/er/plan.md', 'Projects/Alpha/shallow/er/new.md']),
    );
    expect(listed.some((f) => f.includes('/deep/'))).toBe(false);
    expect(sorted(listed)).toEqual(sorted(await vaultFiles(vault)()));
  });

  /**
   * A clock of 2 s steps (FAT): the folder's stat says the same before and after a file is
   * added in the step it was read in. Stats of Projects/Alpha are frozen at `step`.
   */
  function coarseClock(step: number): { raw: RawFs; vault: Vault } {
    const { raw, vault } = setUp();
    const alpha = `${VAULT_ROOT}/Projects/Alpha`;
    const lstat = vault.fs.lstat.bind(vault.fs);
    vault.fs.lstat = async (file: string) => {
      const stats = await lstat(file);
      return file === alpha ? Object.assign(Object.create(Object.getPrototypeOf(stats) as object) as typeof stats, stats, { mtimeMs: step, ctimeMs: step, size: 0 }) : stats;
    };
    return { raw, vault };
  }

  it('reads a folder changed just before its reading again at the next look, whatever its version says (a coarse clock)', async () => {
    const step = Math.floor(Date.now() / 2000) * 2000;
    const { raw, vault } = coarseClock(step);
    const listing = new VaultListing(vault, { now: () => step + RACY_MS / 2 });
    expect(await listing.files()).not.toContain('Projects/Alpha/late.md');
    raw.writeFileSync(`${VAULT_ROOT}/Projects/Alpha/late.md`, 'l');
    expect(await listing.files()).toContain('Projects/Alpha/late.md');
  });

  it('takes a folder by its version once its last change is older than the racy window', async () => {
    const step = Math.floor(Date.now() / 2000) * 2000;
    const { raw, vault } = coarseClock(step);
    const listing = new VaultListing(vault, { now: () => step + 2 * RACY_MS });
    await listing.files();
    const before = listing.reads;
    // Unseen: the version is the same. Real clocks move it (the next test); this only shows
    // that a folder is not read again without a reason.
    raw.writeFileSync(`${VAULT_ROOT}/Projects/Alpha/late.md`, 'l');
    expect(await listing.files()).not.toContain('Projects/Alpha/late.md');
    expect(listing.reads).toBe(before);
  });

  it('sees an entry added behind an mtime set back (a sync tool), by the change time', async () => {
    const { raw, vault } = setUp();
    const listing = new VaultListing(vault, AT_REST);
    await listing.files();
    const before = listing.reads;
    const stats = raw.statSync(`${VAULT_ROOT}/Projects/Alpha`);
    // In a later millisecond than the folder's last change, or memfs keeps its change time.
    nextMillisecond();
    raw.writeFileSync(`${VAULT_ROOT}/Projects/Alpha/hidden.md`, 'h');
    raw.utimesSync(`${VAULT_ROOT}/Projects/Alpha`, stats.atime, stats.mtime);
    expect(raw.statSync(`${VAULT_ROOT}/Projects/Alpha`).mtimeMs).toBe(stats.mtimeMs);
    expect(raw.statSync(`${VAULT_ROOT}/Projects/Alpha`).ctimeMs).toBeGreaterThan(stats.ctimeMs);
    expect(await listing.files()).toContain('Projects/Alpha/hidden.md');
    expect(listing.reads - before).toBe(1);
  });

  it('reads a folder changed just before its reading again when a sync tool set its mtime back: the change time is recent', async () => {
    const step = Math.floor(Date.now() / 2000) * 2000;
    const { raw, vault } = setUp();
    const alpha = `${VAULT_ROOT}/Projects/Alpha`;
    const lstat = vault.fs.lstat.bind(vault.fs);
    // A coarse clock again, the mtime an hour back: the change time is the step of the change.
    vault.fs.lstat = async (file: string) => {
      const stats = await lstat(file);
      return file === alpha ? Object.assign(Object.create(Object.getPrototypeOf(stats) as object) as typeof stats, stats, { mtimeMs: step - 3_600_000, ctimeMs: step, size: 0 }) : stats;
    };
    const listing = new VaultListing(vault, { now: () => step + RACY_MS / 2 });
    expect(await listing.files()).not.toContain('Projects/Alpha/late.md');
    raw.writeFileSync(`${alpha}/late.md`, 'l');
    expect(await listing.files()).toContain('Projects/Alpha/late.md');
  });

  it('does not follow a folder replaced by a link, nor list what it points at', async () => {
    const { raw, vault } = setUp({ ...FILES, 'Elsewhere/secret.md': 's' });
    raw.mkdirSync('/outside/stuff', { recursive: true });
    raw.writeFileSync('/outside/stuff/leak.md', 'x');
    const listing = new VaultListing(vault, AT_REST);
    await listing.files();
    raw.rmSync(`${VAULT_ROOT}/Elsewhere`, { recursive: true });
    raw.symlinkSync('/outside/stuff', `${VAULT_ROOT}/Elsewhere`);
    const listed = await listing.files();
    expect(listed.some((f) => f.startsWith('Elsewhere/'))).toBe(false);
    expect(sorted(listed)).toEqual(sorted(await vaultFiles(vault)()));
  });

  it('answers callers at the same moment with one look', async () => {
    const { vault } = setUp();
    const listing = new VaultListing(vault, AT_REST);
    const calls = countFsCalls(vault.fs);
    const [a, b] = await Promise.all([listing.files(), listing.files()]);
    expect(a).toBe(b);
    expect(calls.readdir).toBe(listing.reads);
  });

  it('a view looks once for its files and its meeting notes, even with every folder racy (a run’s resolution and its claim check)', async () => {
    const { raw, vault } = setUp();
    // Every folder changed within the racy window: a look reads each again.
    const listing = new VaultListing(vault, { now: () => Date.now() - 60_000 + RACY_MS / 2 });
    await listing.files();
    const view = listing.view();
    const before = listing.reads;
    const files = await view.files();
    const once = listing.reads - before;
    expect(once).toBeGreaterThan(0);
    const notes = await view.meetingNotes();
    expect(await view.files()).toBe(files);
    expect(listing.reads - before).toBe(once);
    expect(notes).toEqual(await vault.listNotesOf('Meetings'));
    // What the view answers is its look's: a note added since shows in a new view (a new pass).
    raw.writeFileSync(`${VAULT_ROOT}/Meetings/Planning.md`, 'p');
    expect(await view.meetingNotes()).toEqual(notes);
    expect(await listing.view().meetingNotes()).toContain(vault.abs('Meetings/Planning.md'));
    // The listing itself still looks at every call.
    expect(await listing.files()).toContain('Meetings/Planning.md');
  });

  it('a view whose meeting notes come first looks once too, and looks again once another look replaced its tree', async () => {
    const { raw, vault } = setUp();
    const listing = new VaultListing(vault, { now: () => Date.now() - 60_000 + RACY_MS / 2 });
    const view = listing.view();
    const notes = await view.meetingNotes();
    const once = listing.reads;
    await view.files();
    expect(listing.reads).toBe(once);
    expect(notes).toEqual(await vault.listNotesOf('Meetings'));
    raw.writeFileSync(`${VAULT_ROOT}/Meetings/Planning.md`, 'p');
    await listing.files();
    // The tree the view looked at is gone: its meeting notes are those of a look now, never a stale mix.
    expect(await view.meetingNotes()).toEqual(await vault.listNotesOf('Meetings'));
  });

  it('lists the meeting notes as listNotesOf does, kept while the listing is the same', async () => {
    const { raw, vault } = setUp();
    const listing = new VaultListing(vault, AT_REST);
    const notes = await listing.meetingNotes();
    expect(notes).toEqual(await vault.listNotesOf('Meetings'));
    expect(notes).toEqual([vault.abs('Meetings/Retro.md'), vault.abs('Meetings/Weekly.md')]);
    expect(await listing.meetingNotes()).toBe(notes);
    raw.writeFileSync(`${VAULT_ROOT}/Meetings/Planning.md`, 'p');
    expect(await listing.meetingNotes()).toEqual(await vault.listNotesOf('Meetings'));
  });

  it.each([
    ['transcripts kept beside the meetings', { Transcripts: 'Meetings' }],
    ['summaries in a folder of their own inside the meetings', { Summaries: 'Meetings/Done' }],
    ['meetings at the root of the vault', { Meetings: '.' }],
  ])('lists the meeting notes and the summaries as listNotesOf does with %s, also after one folder changed', async (_label, folders) => {
    const { raw } = setUp({ ...FILES, 'Meetings/Done/Weekly.md': 'd', 'Meetings/Team/Planning.md': 'p', 'Meetings/Summaries/Deep/Older.md': 's' });
    const vault = new Vault(raw.promises as unknown as Fs, testConfig({ Folders: folders }).layout);
    const listing = new VaultListing(vault, AT_REST);
    expect(await listing.meetingNotes()).toEqual(await vault.listNotesOf('Meetings'));
    expect(await listing.notesOf('Summaries')).toEqual(await vault.listNotesOf('Summaries'));
    raw.writeFileSync(`${VAULT_ROOT}/Meetings/Team/Review.md`, 'r');
    raw.writeFileSync(`${VAULT_ROOT}/Meetings/Summaries/Deep/Newer.md`, 's');
    expect(await listing.meetingNotes()).toEqual(await vault.listNotesOf('Meetings'));
    expect(await listing.notesOf('Summaries')).toEqual(await vault.listNotesOf('Summaries'));
  });

  it('lists neither the glossary nor the dictionary as meeting notes (they lie in Meetings by default)', async () => {
    const { vault } = setUp({ ...FILES, 'Meetings/Glossary.md': 'g', 'Meetings/Dictionary.md': 'd' });
    const notes = await new VaultListing(vault, AT_REST).meetingNotes();
    expect(notes).toEqual(await vault.listNotesOf('Meetings'));
    expect(notes).toEqual([vault.abs('Meetings/Retro.md'), vault.abs('Meetings/Weekly.md')]);
  });

  it('lists the meeting notes of a meetings folder that is a symbolic link, as listNotesOf does', async () => {
    const { raw, vault } = setUp({ 'Projects/Alpha/notes.md': 'p' });
    raw.mkdirSync('/elsewhere/Meetings', { recursive: true });
    raw.writeFileSync('/elsewhere/Meetings/Weekly.md', 'm');
    raw.symlinkSync('/elsewhere/Meetings', `${VAULT_ROOT}/Meetings`);
    const walked = await vault.listNotesOf('Meetings');
    expect(walked).toEqual([vault.abs('Meetings/Weekly.md')]);
    expect(await new VaultListing(vault).meetingNotes()).toEqual(walked);
  });

  it('lists the meeting notes of a meetings folder in a dot-folder, or outside the vault, as listNotesOf does', async () => {
    const { raw } = setUp({ ...FILES, '.meetings/Weekly.md': 'm' });
    raw.mkdirSync('/elsewhere/Meetings', { recursive: true });
    raw.writeFileSync('/elsewhere/Meetings/Retro.md', 'm');
    for (const Meetings of ['.meetings', '/elsewhere/Meetings']) {
      const vault = new Vault(raw.promises as unknown as Fs, testConfig({ Folders: { Meetings } }).layout);
      const walked = await vault.listNotesOf('Meetings');
      expect(walked).toHaveLength(1);
      expect(await new VaultListing(vault).meetingNotes()).toEqual(walked);
    }
  });

  it('lists the meeting notes when a folder outside the meetings folder cannot be read, as listNotesOf does', async () => {
    const { vault } = setUp({ ...FILES, 'Private/secret.md': 's' });
    const readdir = vault.fs.readdir.bind(vault.fs) as (...args: unknown[]) => Promise<unknown>;
    (vault.fs as unknown as Record<string, unknown>).readdir = (dir: string, ...rest: unknown[]) =>
      dir === `${VAULT_ROOT}/Private` ? Promise.reject(Object.assign(new Error(`EACCES: permission denied, scandir '${dir}'`), { code: 'EACCES' })) : readdir(dir, ...rest);
    const walked = await vault.listNotesOf('Meetings');
    expect(walked).toEqual([vault.abs('Meetings/Retro.md'), vault.abs('Meetings/Weekly.md')]);
    expect(await new VaultListing(vault).meetingNotes()).toEqual(walked);
  });

  it('lets go of what a look still under way found when it is let go meanwhile', async () => {
    const { vault } = setUp();
    const listing = new VaultListing(vault, AT_REST);
    const looking = listing.files();
    listing.clear();
    await looking;
    const once = listing.reads;
    await listing.files();
    expect(listing.reads).toBe(2 * once);
  });

  it('walks the vault again after it was let go, and has nothing when the vault is gone', async () => {
    const { raw, vault } = setUp();
    const listing = new VaultListing(vault, AT_REST);
    await listing.files();
    const once = listing.reads;
    listing.clear();
    await listing.files();
    expect(listing.reads).toBe(2 * once);
    raw.rmSync(VAULT_ROOT, { recursive: true });
    expect(await listing.files()).toEqual([]);
  });
});
