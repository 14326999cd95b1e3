import { resolveMeeting } from './meeting.js';
import type { Vault } from '../files/vault.js';
import type { HeadCache } from '../scan/head-cache.js';

/**
 * Whether a meeting has its summary (`status`, docs/design.md §6): the note the meeting's
 * summary link names (or its default path, as a run would write it) and what is in it.
 */
export type SummaryState =
  | { kind: 'summary'; path: string }
  | { kind: 'failure report'; path: string }
  | { kind: 'no summary'; path?: string };

export async function summaryStateOf(vault: Vault, meeting: string, heads: HeadCache): Promise<SummaryState> {
  let path: string;
  try {
    // Read only: the links are the run's to write back.
    path = (await resolveMeeting(vault, meeting, { writeBack: false })).summaryPath;
  } catch {
    return { kind: 'no summary' };
  }
  const head = await heads.get(path);
  const rel = vault.rel(path);
  if (!head?.ok) return { kind: 'no summary', path: rel };
  const status = typeof head.data.status === 'string' ? head.data.status.trim() : '';
  if (status === 'done') return { kind: 'summary', path: rel };
  if (status === 'failed') return { kind: 'failure report', path: rel };
  return { kind: 'no summary', path: rel };
}
