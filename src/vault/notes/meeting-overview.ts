import type { Vault } from '../files/vault.js';
import { HeadCache } from '../scan/head-cache.js';
import { contextOfMeeting } from './locate-meeting.js';
import { type SummaryState, summaryStateOf } from './summary-state.js';

/** One line of `status`: a meeting, when it was, and where it stands. */
export interface MeetingState {
  /** Vault-relative meeting note. */
  meeting: string;
  title: string | undefined;
  /** `start_time` as written, else undefined. */
  startTime: string | undefined;
  /** The context note's state; `no context note`, or `broken` when the meeting note does not parse. */
  state: string;
  /** Why a meeting is broken. */
  problem?: string;
  /** What it is sorted by: start_time when it parses, else the note's mtime. */
  sortKey: number;
  /** Whether the meeting has its summary (summary-state.ts); undefined for a broken meeting. */
  summary?: SummaryState;
}

function timeOf(value: unknown): number | undefined {
  if (typeof value !== 'string' || value.trim() === '') return undefined;
  const t = Date.parse(value);
  return Number.isFinite(t) ? t : undefined;
}

/** Every meeting note with its context state, newest first (by start_time, else mtime). */
export async function listMeetingStates(vault: Vault): Promise<MeetingState[]> {
  const heads = new HeadCache(vault);
  const out: MeetingState[] = [];
  for (const file of await vault.listMarkdown(vault.layout.folders.Meetings)) {
    if (vault.kindOf(file) !== 'meeting') continue;
    const head = await heads.get(file);
    if (!head) continue;
    const mtime = (await vault.fs.stat(file).catch(() => undefined))?.mtimeMs ?? 0;
    if (!head.ok) {
      out.push({ meeting: vault.rel(file), title: undefined, startTime: undefined, state: 'broken', problem: head.error, sortKey: mtime });
      continue;
    }
    const title = typeof head.data.title === 'string' && head.data.title.trim() !== '' ? head.data.title : undefined;
    const startTime = typeof head.data.start_time === 'string' ? head.data.start_time : undefined;
    let state: string;
    let problem: string | undefined;
    try {
      const context = await contextOfMeeting(vault, file, heads);
      state = context.exists ? (context.state ?? 'no state') : 'no context note';
    } catch (err) {
      state = 'broken';
      problem = (err as Error).message;
    }
    out.push({
      meeting: vault.rel(file),
      title,
      startTime,
      state,
      ...(problem !== undefined && { problem }),
      sortKey: timeOf(startTime) ?? mtime,
      summary: await summaryStateOf(vault, file, heads),
    });
  }
  return out.sort((a, b) => b.sortKey - a.sortKey || a.meeting.localeCompare(b.meeting));
}
