import { mkdirSync, mkdtempSync, renameSync, rmSync, watch as fsWatch, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { CalendarChanges, type CalendarChangesOptions } from '../../../src/daemon/intake/calendar-changes.js';
import { watchVault } from '../../../src/daemon/intake/file-events.js';
import { resolveConfig, type Settings } from '../../../src/config.js';
import { silentLogger } from '../../../src/log.js';
import { nodeFs } from '../../../src/vault/files/fs.js';
import { Vault } from '../../../src/vault/files/vault.js';
import { memoryVault, VAULT_ROOT } from '../../helpers/memfs.js';

/**
 * A calendar file in the vault read again as soon as it changes (docs/design.md §12): which
 * sources the vault watcher sees, the dispatch of its raw changes (debounced, one refresh and
 * look at a time, one more when a change came meanwhile), and the real watcher on a real folder
 * handing an `.ics` change over.
 */

type Sources = Settings['Calendar']['Sources'];
const calendarSettings = (Sources: Sources, root = VAULT_ROOT): Settings['Calendar'] => resolveConfig({ MeetingAssistant: { VaultPath: root, Calendar: { Sources } } }, { cwd: '/' }).settings.Calendar;

/** Manual timers: the quiet period passes when the test says so. */
function manualTimers() {
  const pending = new Map<number, () => void>();
  let next = 0;
  return {
    api: { setTimeout: (fn: () => void) => (pending.set(++next, fn), next), clearTimeout: (h: unknown) => void pending.delete(h as number) },
    fire() {
      const due = [...pending.values()];
      pending.clear();
      for (const fn of due) fn();
    },
    get pending() {
      return pending.size;
    },
  };
}

/** A refresh and a look that wait until released, counting how many run at once. */
function gatedWork() {
  const calls: string[] = [];
  let running = 0;
  let most = 0;
  const gates: (() => void)[] = [];
  const step = (name: string) => async () => {
    calls.push(name);
    most = Math.max(most, ++running);
    await new Promise<void>((resolve) => gates.push(resolve));
    running--;
  };
  return {
    calls,
    most: () => most,
    readAgain: step('read'),
    lookAgain: step('look'),
    /** Lets the step waiting now go on, and waits till the next one waits (or none comes). */
    async release() {
      gates.shift()?.();
      for (let i = 0; i < 10; i++) await Promise.resolve();
    },
  };
}

describe('CalendarChanges: which sources the watcher sees', () => {
  it('a file through its folder, a folder itself; not the vault root, not out of the vault, not an ignored folder, not a URL', async () => {
    const vault = memoryVault({ 'Calendars/work.ics': 'BEGIN:VCALENDAR\n', 'Calendars/team/a.ics': '', 'home.ics': '', '.obsidian/plugin.ics': '', '/elsewhere/x.ics': '' });
    const o = (Sources: Sources): CalendarChangesOptions => ({ vault, settings: calendarSettings(Sources), readAgain: () => Promise.resolve(), log: silentLogger });
    const changes = await CalendarChanges.of(o([
      { Name: 'Work', Path: 'Calendars/work.ics' },
      { Name: 'Team', Path: 'Calendars/team' },
      { Name: 'Later', Path: 'Later/feed.ics' },
    ]));
    expect(changes?.folders).toEqual([vault.abs('Calendars'), vault.abs('Later')]);
    expect(changes?.isCalendarPath(vault.abs('Calendars/work.ics'))).toBe(true);
    expect(changes?.isCalendarPath(vault.abs('Calendars/team/b.ics'))).toBe(true);
    expect(changes?.isCalendarPath(vault.abs('Calendars/team'))).toBe(true);
    expect(changes?.isCalendarPath(vault.abs('Later/feed.ics'))).toBe(true);
    expect(changes?.isCalendarPath(vault.abs('Calendars/other.ics'))).toBe(false);
    expect(changes?.isCalendarPath(vault.abs('Calendars/team/notes.md'))).toBe(false);
    expect(changes?.isCalendarPath(vault.abs('Calendars/team/.b.ics.tmp'))).toBe(false);

    const none = await CalendarChanges.of(o([
      { Name: 'Home', Path: 'home.ics' },
      { Name: 'Out', Path: '/elsewhere/x.ics' },
      { Name: 'Plugin', Path: '.obsidian/plugin.ics' },
      { Name: 'Url', Url: 'https://calendar.example.com/a.ics' },
    ]));
    expect(none).toBeUndefined();
  });

  it('a calendar folder that is a link out of the vault, or into its hidden state, is not watched (the watcher would follow it there); a link within the vault is', async () => {
    const vault = memoryVault({ '/home/me/calendars/a.ics': '', '.meeting-assistant/x.ics': '', 'Shared/Team/b.ics': '' });
    await vault.fs.symlink!('/home/me/calendars', vault.abs('Linked'));
    await vault.fs.symlink!(vault.abs('.meeting-assistant'), vault.abs('State'));
    const o = (Sources: Sources): CalendarChangesOptions => ({ vault, settings: calendarSettings(Sources), readAgain: () => Promise.resolve(), log: silentLogger });
    expect(await CalendarChanges.of(o([{ Name: 'Linked', Path: 'Linked' }, { Name: 'State', Path: 'State/x.ics' }]))).toBeUndefined();
    await vault.fs.symlink!(vault.abs('Shared/Team'), vault.abs('Team'));
    expect((await CalendarChanges.of(o([{ Name: 'Team', Path: 'Team' }])))?.folders).toEqual([vault.abs('Team')]);
  });
});

describe('CalendarChanges: the dispatch', () => {
  async function dispatch() {
    const vault = memoryVault({ 'Calendars/work.ics': '' });
    const timers = manualTimers();
    const work = gatedWork();
    const changes = (await CalendarChanges.of({ vault, settings: calendarSettings([{ Name: 'Work', Path: 'Calendars/work.ics' }]), readAgain: work.readAgain, lookAgain: work.lookAgain, log: silentLogger, timers: timers.api }))!;
    return { vault, timers, work, changes };
  }

  it('another file changing does nothing; a burst of changes of the calendar is one read, then one look', async () => {
    const { vault, timers, work, changes } = await dispatch();
    changes.changed(vault.abs('Calendars/notes.md'));
    changes.changed(vault.abs('Meetings/2026-12-09 0900 Weekly.md'));
    expect(timers.pending).toBe(0);
    for (let i = 0; i < 5; i++) changes.changed(vault.abs('Calendars/work.ics'));
    expect(work.calls).toEqual([]);
    timers.fire();
    expect(work.calls).toEqual(['read']);
    await work.release();
    expect(work.calls).toEqual(['read', 'look']);
    await work.release();
    await changes.idle();
    expect(work.calls).toEqual(['read', 'look']);
  });

  it('never two at once: changes during a read and look make one more of each after them', async () => {
    const { vault, timers, work, changes } = await dispatch();
    changes.changed(vault.abs('Calendars/work.ics'));
    timers.fire();
    expect(work.calls).toEqual(['read']);
    // The file changes twice more while the first read runs.
    for (const _ of [1, 2]) {
      changes.changed(vault.abs('Calendars/work.ics'));
      timers.fire();
    }
    for (let i = 0; i < 4; i++) await work.release();
    await changes.idle();
    expect(work.calls).toEqual(['read', 'look', 'read', 'look']);
    expect(work.most()).toBe(1);
    await changes.close();
    changes.changed(vault.abs('Calendars/work.ics'));
    expect(timers.pending).toBe(0);
  });
});

describe('CalendarChanges: the vault watcher hands it an .ics change', () => {
  it('a calendar file written in its folder (atomically, as a sync does) reaches the dispatch; a note beside it does not', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'ma-calendar-changes-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const config = resolveConfig({ MeetingAssistant: { VaultPath: dir, Calendar: { Sources: [{ Name: 'Work', Path: 'Calendars/work.ics' }] } } });
    for (const folder of Object.values(config.layout.folders)) mkdirSync(folder, { recursive: true });
    mkdirSync(path.join(dir, 'Calendars'));
    const vault = new Vault(nodeFs, config.layout);
    let reads = 0;
    const changes = (await CalendarChanges.of({ vault, settings: config.settings.Calendar, readAgain: () => Promise.resolve(void reads++), log: silentLogger, quietMs: 20 }))!;
    onTestFinished(() => changes.close());
    const source = watchVault(vault, config.settings, silentLogger, { cacheFolders: changes.folders });
    onTestFinished(() => source.close());
    const raw: string[] = [];
    source.onChange?.((p) => {
      raw.push(p);
      changes.changed(p);
    });
    await source.ready;

    writeFileSync(path.join(dir, 'Calendars/notes.md'), 'a note\n');
    const deadline = Date.now() + 10_000;
    while (!raw.includes(path.join(dir, 'Calendars/notes.md')) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    await changes.idle();
    expect(reads).toBe(0);

    writeFileSync(path.join(dir, 'Calendars/.work.ics.tmp'), 'BEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n');
    renameSync(path.join(dir, 'Calendars/.work.ics.tmp'), path.join(dir, 'Calendars/work.ics'));
    while (reads === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    expect(reads).toBe(1);
  });

  it('a calendar kept in a large folder: only that folder is watched (and a calendar folder or a watched folder inside it), none of the folders below', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'ma-calendar-shallow-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const config = resolveConfig({ MeetingAssistant: { VaultPath: dir } });
    for (const folder of Object.values(config.layout.folders)) mkdirSync(folder, { recursive: true });
    for (let i = 0; i < 20; i++) mkdirSync(path.join(dir, `Notes/Archive/${2000 + i}/a`), { recursive: true });
    mkdirSync(path.join(dir, 'Notes/Team/sub'), { recursive: true });
    mkdirSync(path.join(dir, 'Notes/Cached/deep'), { recursive: true });
    const vault = new Vault(nodeFs, config.layout);
    const watchedNow: string[] = [];
    const watchFolder = ((p: string, ...rest: unknown[]) => {
      watchedNow.push(path.relative(dir, path.resolve(p)));
      return (fsWatch as (...a: unknown[]) => ReturnType<typeof fsWatch>)(p, ...rest);
    }) as typeof fsWatch;
    const source = watchVault(vault, config.settings, silentLogger, { cacheFolders: [path.join(dir, 'Notes/Cached')], icsFolders: [path.join(dir, 'Notes'), path.join(dir, 'Notes/Team')], watchFolder });
    onTestFinished(() => source.close());
    const raw: string[] = [];
    source.onChange?.((p) => raw.push(path.relative(dir, p)));
    await source.ready;
    expect(watchedNow.filter((f) => f.startsWith('Notes')).sort()).toEqual(['Notes', 'Notes/Cached', 'Notes/Cached/deep', 'Notes/Team']);
    writeFileSync(path.join(dir, 'Notes/Team/b.ics'), 'BEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n');
    writeFileSync(path.join(dir, 'Notes/work.ics'), 'BEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n');
    const deadline = Date.now() + 10_000;
    while (!(raw.includes('Notes/work.ics') && raw.includes('Notes/Team/b.ics')) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    expect(raw).toEqual(expect.arrayContaining(['Notes/work.ics', 'Notes/Team/b.ics']));
  });
});
