import { createHash } from 'node:crypto';
import path from 'node:path';
import type { Settings } from '../config.js';

/**
 * The configured calendars (docs/design.md §12) as the reader sees them. A URL is a secret:
 * `label` (the Name and the URL's host) is all that is ever shown or logged of it.
 */
export type CalendarSource =
  | { kind: 'url'; name: string; url: string; host: string; label: string; keptAs: string }
  | { kind: 'path'; name: string; path: string; label: string; keptAs: string };

/** The file name, under `.meeting-assistant/calendar/`, of a source's last good copy. */
function keptName(name: string): string {
  const readable = name.replace(/[^\w.-]+/g, '-').replace(/^[.-]+/, '').slice(0, 60) || 'calendar';
  return `${readable}-${createHash('sha256').update(name).digest('hex').slice(0, 8)}`;
}

export function calendarSources(settings: Settings['Calendar'], vaultRoot: string): CalendarSource[] {
  return settings.Sources.map((s) => {
    if ('Url' in s) {
      // webcal:// is the same address over https (docs/design.md §12).
      const url = s.Url.replace(/^webcal:/i, 'https:');
      const host = new URL(url).host;
      return { kind: 'url', name: s.Name, url, host, label: `${s.Name} (${host})`, keptAs: keptName(s.Name) };
    }
    const abs = path.isAbsolute(s.Path) ? path.normalize(s.Path) : path.join(vaultRoot, s.Path);
    return { kind: 'path', name: s.Name, path: abs, label: s.Name, keptAs: keptName(s.Name) };
  });
}
