import type { AppConfig } from '../config.js';
import { check, type DoctorCheck } from '../agent/model/endpoint-check.js';
import { expandNow } from '../calendar/expand.js';
import { type FetchLike, fetchCalendar } from '../calendar/fetch-source.js';
import { today } from '../calendar/listing.js';
import { readCalendarPath } from '../calendar/read-files.js';
import { calendarSources } from '../calendar/sources.js';
import { isIanaZone, systemZone } from '../calendar/zones.js';
import type { DoctorDeps } from './types.js';

/**
 * The calendars (docs/design.md §12): each source read once, now (never the kept copy), and
 * what it holds said; named by its Name and the URL's host, never the address (a secret).
 */

const HOW_TO = 'see docs/calendar.md for where each service shows its secret iCal address';

export async function checkCalendars(config: AppConfig, deps: DoctorDeps): Promise<DoctorCheck[]> {
  const settings = config.settings.Calendar;
  if (settings.Sources.length === 0) return [check('calendar', 'skip', 'no calendar configured (Calendar.Sources): meetings get no title, people or agenda from one')];
  const checks: DoctorCheck[] = [];
  // A TimeZone this machine does not know, or a Projects expression that is none, never gets
  // here: the configuration refuses it by its path, which the config check says (§5).
  const defaultZone = isIanaZone(settings.TimeZone) ? settings.TimeZone : systemZone();
  const fetchImpl: FetchLike = deps.fetch ? (url, init) => deps.fetch!(url, init) : (url, init) => fetch(url, init);
  const clock = deps.clock ?? (() => new Date());
  for (const [i, source] of calendarSources(settings, config.layout.root).entries()) {
    const name = `calendar ${source.label}`;
    let texts: string[];
    try {
      if (source.kind === 'url') {
        const outcome = await fetchCalendar(fetchImpl, source.url, {}, { maxBytes: config.settings.Agent.MaxFileBytes });
        texts = outcome.changed ? [outcome.text] : [];
      } else {
        texts = await readCalendarPath(deps.fs, source.path, config.settings.Agent.MaxFileBytes);
      }
    } catch (err) {
      const fix =
        source.kind === 'url'
          ? `Check the network and Calendar.Sources[${i}].Url (${HOW_TO}).`
          : `Set Calendar.Sources[${i}].Path to an .ics file or a folder of them (vdirsyncer's), vault-relative or absolute.`;
      checks.push(check(name, 'fail', `could not be read: ${(err as Error).message}`, fix));
      continue;
    }
    const day = today(clock());
    const [result] = expandNow({ sources: [{ name: source.name, texts }], from: day.from.getTime(), to: day.to.getTime(), defaultZone, me: settings.Me });
    if (!result || result.error || result.count === 0) {
      const why = result?.error ?? (texts.length === 0 ? 'it holds no .ics file' : 'it holds no events');
      checks.push(check(name, result?.error ? 'fail' : 'warn', `read, but ${why}`, `Point Calendar.Sources[${i}] at an iCalendar (.ics) calendar (${HOW_TO}).`));
      continue;
    }
    const skipped = result.unreadable > 0 ? `; ${result.unreadable} events could not be read and are passed over` : '';
    checks.push(check(name, result.unreadable > 0 ? 'warn' : 'pass', `read: ${result.count} events, ${result.events.length} of them today${skipped}`));
  }
  return checks;
}
