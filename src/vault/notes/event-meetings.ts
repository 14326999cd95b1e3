import path from 'node:path';
import { walkFiles } from '../files/fs.js';
import type { Vault } from '../files/vault.js';
import { readNoteHead } from '../scan/note-head.js';

/**
 * Which meeting note belongs to which calendar event (docs/design.md §12): the meeting notes
 * under Folders.Meetings whose frontmatter names the event (`event: <UID>`) and the instance
 * (`event_start`, its original slot). For `calendar` and GET /api/calendar.
 */

export interface EventMeetings {
  /** The note (vault-relative, forward slashes) of the instance `uid` at `eventStart`; null when none. */
  of(uid: string, eventStart: Date): string | null;
}

function instantOf(value: unknown): number | undefined {
  if (value instanceof Date) return value.getTime();
  if (typeof value !== 'string' || !value.trim()) return undefined;
  const ms = Date.parse(value.trim());
  return Number.isNaN(ms) ? undefined : ms;
}

export async function readEventMeetings(vault: Vault): Promise<EventMeetings> {
  const byInstance = new Map<string, string>();
  const byUid = new Map<string, string>();
  const root = vault.abs(vault.layout.folders.Meetings);
  await walkFiles(vault.fs, root, { skip: (name) => name.startsWith('.') }, async ({ abs }) => {
    if (!abs.toLowerCase().endsWith('.md')) return;
    let data: Record<string, unknown>;
    try {
      ({ data } = await readNoteHead(vault.fs, abs));
    } catch {
      return; // A note that cannot be read or parsed names no event.
    }
    const uid = typeof data.event === 'string' ? data.event.trim() : '';
    if (!uid) return;
    const rel = vault.rel(abs).split(path.sep).join('/');
    const start = instantOf(data.event_start);
    if (start !== undefined) byInstance.set(`${uid}\n${start}`, rel);
    else if (!byUid.has(uid)) byUid.set(uid, rel);
  });
  return { of: (uid, eventStart) => byInstance.get(`${uid}\n${eventStart.getTime()}`) ?? byUid.get(uid) ?? null };
}
