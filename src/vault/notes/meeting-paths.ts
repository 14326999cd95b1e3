import path from 'node:path';
import type { Vault } from '../files/vault.js';
import { relativeBelow } from '../files/lexical-paths.js';

/**
 * docs/design.md §1: the default context and summary notes of a meeting mirror where the
 * meeting note lies below `Folders.Meetings`, so `Meetings/Team A/2026-12-02 Review.md` and
 * `Meetings/Team B/2026-12-02 Review.md` get notes of their own. A meeting at the top of the
 * folder keeps the name it always had: its basename.
 */

/** `Team A/2026-12-02 Review` (OS separators) for `Meetings/Team A/2026-12-02 Review.md`; the basename elsewhere. */
export function defaultNoteName(vault: Vault, meetingAbs: string): string {
  const meetings = vault.layout.folders.Meetings;
  const file = vault.abs(meetingAbs);
  const below = relativeBelow(meetings, file) ?? path.basename(file);
  return below.replace(/\.md$/i, '');
}

/** `<Folders.Summaries>/<name>.md` or `<Folders.Context>/<name>.md` for the meeting (absolute). */
export function defaultNotePath(vault: Vault, kind: 'summary' | 'context', meetingAbs: string): string {
  const folder = kind === 'summary' ? vault.layout.folders.Summaries : vault.layout.folders.Context;
  return path.join(folder, `${defaultNoteName(vault, meetingAbs)}.md`);
}
