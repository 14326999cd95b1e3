import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { CalendarSourceState } from '../../src/calendar/types.js';
import { NotesAhead } from '../../src/daemon/intake/notes-ahead.js';
import { sweepTempFiles } from '../../src/daemon/intake/temp-sweep.js';
import { silentLogger } from '../../src/log.js';
import { resolveConfig } from '../../src/config.js';
import { reviewNotesAhead } from '../../src/meeting-event/note-ahead-review.js';
import { nodeFs } from '../../src/vault/files/fs.js';
import { Vault } from '../../src/vault/files/vault.js';
import { calendarEvent, fakeCalendar } from '../helpers/calendar-events.js';
import { memoryVault } from '../helpers/memfs.js';

/**
 * The review of the notes made ahead (meeting-event/note-ahead-review.ts, docs/design.md §12)
 * under attack: a crash while an old note is aside, a forged record in the synced vault.
 */

const UID = 'weekly@example.com';
const START = new Date('2026-12-09T09:00:00Z');
const WEEKLY = calendarEvent({ uid: UID, title: 'Weekly Sync', start: START, end: new Date('2026-12-09T10:00:00Z'), recurring: true });
const READ: CalendarSourceState[] = [{ name: 'Work', ok: true, readAt: '2026-12-09T08:00:00.000Z', events: 1, error: null }];
const OVERVIEW = '# Platform\n';

function setup() {
  const vault = memoryVault({
    'Projects/Platform/Overview.md': OVERVIEW,
    'Meetings/2026-12-02 0900 Weekly Sync.md': `---\ntitle: Weekly Sync\nstart_time: 2026-12-02T09:00:00Z\nevent: ${UID}\nevent_start: 2026-12-02T09:00:00Z\nprojects: [Platform]\n---\n`,
  });
  const events = [WEEKLY];
  let now = new Date('2026-12-09T08:52:00Z');
  const ahead = new NotesAhead({ vault, calendar: fakeCalendar(events, READ), settings: { NotesAhead: 'projects', NotesAheadMinutes: 10, Projects: {} }, clock: () => now, log: silentLogger, isActive: () => true });
  return { vault, events, ahead, later: () => (now = new Date(now.getTime() + 60_000)) };
}

async function madeNote(vault: Vault): Promise<string> {
  const notes = (await vault.listNotesOf('Meetings')).map((abs) => vault.rel(abs));
  const made = notes.find((n) => n.endsWith(' Weekly Sync.md') && !n.includes('2026-12-02'));
  expect(made).toBeDefined();
  return made!;
}

/** Every file of the vault (memfs) whose text is `text`. */
async function filesHolding(vault: Vault, text: string, folder = vault.root): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await vault.fs.readdir(folder, { withFileTypes: true })) {
    const abs = `${folder}/${entry.name}`;
    if (entry.isDirectory()) out.push(...(await filesHolding(vault, text, abs)));
    else if (entry.isFile() && Buffer.from(await vault.fs.readFile(abs)).toString('utf8') === text) out.push(vault.rel(abs));
  }
  return out;
}

describe('the review of the notes made ahead: attacks', () => {
  it('a crash while the old note is aside loses nothing typed into it: the restart finds it in .trash/, not in a temporary file its sweep removes', async () => {
    const { vault, events, ahead, later } = setup();
    await ahead.tick();
    const note = await madeNote(vault);
    const typed = `${await vault.read(vault.abs(note))}typed in the last instant\n`;
    const rename = vault.fs.rename.bind(vault.fs);
    let crashed = false;
    vault.fs.rename = async (from, to) => {
      if (crashed || from !== vault.abs(note)) return rename(from, to);
      // The person's save lands just before the move aside; the process dies right after the move.
      await vault.fs.writeFile(from, typed);
      await rename(from, to);
      crashed = true;
      return new Promise<void>(() => undefined);
    };
    events[0] = { ...WEEKLY, start: new Date('2026-12-09T15:00:00Z'), end: new Date('2026-12-09T16:00:00Z') };
    later();
    void ahead.tick();
    const deadline = Date.now() + 5_000;
    while (!crashed && Date.now() < deadline) await new Promise((r) => setImmediate(r));
    expect(crashed).toBe(true);
    // The next start sweeps temporary files left by dead writers (and any older than an hour).
    await sweepTempFiles(vault, silentLogger, { isAlive: () => false, clock: () => new Date(Date.now() + 2 * 3_600_000) });
    expect(await filesHolding(vault, typed)).toEqual([`.trash/${note}`]);

    // The restarted daemon's look: no second copy, and the old context note joins its meeting note in .trash/.
    const context = note.replace('Meetings/', 'Meetings/Context/');
    const contextText = await vault.read(vault.abs(context));
    vault.fs.rename = rename;
    const restarted = new NotesAhead({ vault, calendar: fakeCalendar(events, READ), settings: { NotesAhead: 'projects', NotesAheadMinutes: 10, Projects: {} }, clock: () => new Date('2026-12-09T08:54:00Z'), log: silentLogger, isActive: () => true });
    await restarted.tick();
    expect(await filesHolding(vault, typed)).toEqual([`.trash/${note}`]);
    expect(await filesHolding(vault, contextText)).toEqual([`.trash/${context}`]);
  });

  it('a forged record naming a note of the vault that is no meeting note made ahead (a project note, with its hash) moves and removes nothing', async () => {
    const { vault, events, ahead, later } = setup();
    await ahead.tick();
    const records = vault.abs('.meeting-assistant/notes-ahead.json');
    const hash = createHash('sha256').update(OVERVIEW).digest('hex');
    const forged = (uid: string, start: string) => ({ meeting: 'Projects/Platform/Overview.md', context: 'Projects/Platform/Overview.md', uid, eventStart: START.getTime(), start: Date.parse(start), title: 'Weekly Sync', meetingHash: hash, contextHash: hash });
    // One whose event is "cancelled" (trashed) and one whose event "moved" (removed outright).
    await vault.fs.writeFile(records, JSON.stringify([forged('gone@example.com', '2026-12-31T00:00:00Z'), forged(UID, '2026-12-09T08:59:00Z')]));
    events[0] = { ...WEEKLY, start: new Date('2026-12-09T15:00:00Z'), end: new Date('2026-12-09T16:00:00Z') };
    later();
    await ahead.tick();
    expect(await vault.read(vault.abs('Projects/Platform/Overview.md'))).toBe(OVERVIEW);
    expect(await filesHolding(vault, OVERVIEW)).toEqual(['Projects/Platform/Overview.md']);
  });
});

describe('the review of the notes made ahead: a cancelled event', () => {
  it('a note typed into in the instant before its move to .trash/ stays where it is, byte for byte, with its context note', async () => {
    const { vault, events, ahead, later } = setup();
    await ahead.tick();
    const note = await madeNote(vault);
    const context = note.replace('Meetings/', 'Meetings/Context/');
    const typed = `${await vault.read(vault.abs(note))}typed just now\n`;
    const rename = vault.fs.rename.bind(vault.fs);
    let saved = false;
    vault.fs.rename = async (from, to) => {
      // The person's save lands after the review judged the note untouched, before it is moved.
      if (!saved && (from === vault.abs(note) || from === vault.abs(context))) {
        saved = true;
        await vault.fs.writeFile(vault.abs(note), typed);
      }
      return rename(from, to);
    };
    events.length = 0;
    later();
    await ahead.tick();
    expect(saved).toBe(true);
    expect(await vault.read(vault.abs(note))).toBe(typed);
    expect(await vault.exists(vault.abs(context))).toBe(true);
    expect(await filesHolding(vault, typed)).toEqual([note]);
  });
});

describe('the review of the notes made ahead: an editor saves the old note after it followed its event', () => {
  it('the old note back under its name (typed into) is the instance’s note again: the untouched one made for the move goes to .trash/, no second meeting stays', async () => {
    const { vault, events, ahead, later } = setup();
    await ahead.tick();
    const old = await madeNote(vault);
    const typed = `${await vault.read(vault.abs(old))}typed while it followed\n`;
    events[0] = { ...WEEKLY, start: new Date('2026-12-09T15:00:00Z'), end: new Date('2026-12-09T16:00:00Z') };
    later();
    await ahead.tick();
    const moved = await madeNote(vault);
    expect(moved).not.toBe(old);
    // Obsidian had the old note open: its save after the removal makes the file again.
    await vault.fs.writeFile(vault.abs(old), typed);
    later();
    await ahead.tick();
    const notes = (await vault.listNotesOf('Meetings')).map((abs) => vault.rel(abs));
    expect(notes.filter((n) => n.includes('Weekly Sync') && !n.includes('2026-12-02'))).toEqual([old]);
    expect(await vault.read(vault.abs(old))).toBe(typed);
    expect(await vault.exists(vault.abs(`.trash/${moved}`))).toBe(true);
    // The next looks leave the person's note alone.
    later();
    await ahead.tick();
    expect(await vault.read(vault.abs(old))).toBe(typed);
  });
});

describe('the records file as a sync tool may bring it', () => {
  it('a FIFO (or a link to /dev/zero) in place of notes-ahead.json is no record: the review returns at once, moving nothing', { timeout: 20_000 }, async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'ma-notes-ahead-records-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const config = resolveConfig({ MeetingAssistant: { VaultPath: dir } });
    mkdirSync(path.join(dir, '.meeting-assistant'));
    const vault = new Vault(nodeFs, config.layout);
    const deps = { projects: {}, mode: 'all' as const };
    // Before, a plain read: a FIFO with no writer blocked the look (and the daemon's stop) for ever.
    execFileSync('mkfifo', [path.join(dir, '.meeting-assistant', 'notes-ahead.json')]);
    expect(await reviewNotesAhead(vault, [WEEKLY], READ, new Date('2026-12-09T08:52:00Z'), deps)).toMatchObject({ trashed: [], followed: [], kept: [], failed: [] });
    rmSync(path.join(dir, '.meeting-assistant', 'notes-ahead.json'));
    symlinkSync('/dev/zero', path.join(dir, '.meeting-assistant', 'notes-ahead.json'));
    expect(await reviewNotesAhead(vault, [WEEKLY], READ, new Date('2026-12-09T08:52:00Z'), deps)).toMatchObject({ trashed: [], followed: [], kept: [], failed: [] });
  });
});
