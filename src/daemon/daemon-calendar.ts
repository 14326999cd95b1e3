import path from 'node:path';
import { createCalendar } from '../calendar/calendar.js';
import type { CalendarLookup } from '../calendar/types.js';
import type { Clock } from '../clock.js';
import type { AppConfig } from '../config.js';
import type { Logger } from '../log.js';
import { STATE_FOLDER } from '../vault/files/state.js';
import type { Vault } from '../vault/files/vault.js';

/**
 * The daemon's calendar (docs/design.md §12): read from `Calendar.Sources` and kept fresh while
 * the daemon runs, or the one a test passes in; none when no source is configured.
 */
export function daemonCalendar(config: AppConfig, vault: Vault, o: { log: Logger; clock: Clock; given?: CalendarLookup }): { lookup?: CalendarLookup; stop(): Promise<void> } {
  if (o.given) return { lookup: o.given, stop: async () => undefined };
  const settings = config.settings.Calendar;
  if (settings.Sources.length === 0) return { stop: async () => undefined };
  const calendar = createCalendar({
    settings,
    vaultRoot: vault.root,
    stateDir: path.join(vault.root, STATE_FOLDER),
    fs: vault.fs,
    clock: o.clock,
    logger: o.log,
    maxBytes: config.settings.Agent.MaxFileBytes,
  });
  calendar.start();
  return { lookup: calendar, stop: () => calendar.stop() };
}
