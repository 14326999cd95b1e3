import { localDateTime } from '../clock.js';
import type { EndpointHealth } from '../daemon/http/endpoint-health.js';
import type { LiveRun } from '../daemon/runs/run-board.js';

/**
 * The lines of `status` that say what the status page says (docs/design.md §6, §7): times
 * with their zone and how long ago, the endpoint's health, what each running run waits for.
 */

/** The zone every time of `status` is in, said once: `local time, Europe/Berlin (UTC+01:00)`. */
export function zoneLine(now: Date): string {
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  const minutes = -now.getTimezoneOffset();
  const sign = minutes < 0 ? '-' : '+';
  const abs = Math.abs(minutes);
  const offset = `UTC${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
  return `times: local time${zone ? `, ${zone}` : ''} (${offset})`;
}

/** How long ago, as a person says it: `40 s ago`, `12 min ago`, `3 h ago`, `2 days ago`. */
export function ago(iso: string, now: Date): string {
  const ms = now.getTime() - new Date(iso).getTime();
  if (Number.isNaN(ms)) return '';
  if (ms < 0) return 'in the future';
  const s = Math.round(ms / 1000);
  if (s < 90) return `${s} s ago`;
  if (s < 90 * 60) return `${Math.round(s / 60)} min ago`;
  if (s < 48 * 3600) return `${Math.round(s / 3600)} h ago`;
  return `${Math.round(s / 86400)} days ago`;
}

/** A moment: local time to the second, and how long ago. Text that is no time as written. */
export function when(iso: string, now: Date): string {
  const local = localDateTime(iso, { seconds: true });
  return local ? `${local} (${ago(iso, now)})` : iso;
}

/** `endpoint: <url> (model): up, last answered …` / `down since … : <error>; 2 runs waiting for it`. */
export function endpointLine(where: string, health: EndpointHealth | undefined, now: Date): string {
  if (!health || health.state === 'unknown') return `endpoint: ${where}: not asked yet by a run since the daemon started`;
  if (health.state === 'up') return `endpoint: ${where}: up${health.since ? `, last answered ${when(health.since, now)}` : ''}`;
  const waiting = health.waiting ? `; ${health.waiting.runs} run${health.waiting.runs === 1 ? '' : 's'} waiting for it` : '';
  return `endpoint: ${where}: DOWN${health.since ? ` since ${when(health.since, now)}` : ''}${health.detail ? `: ${health.detail}` : ''}${waiting}`;
}

/** What a running run does or waits for, as the page's progress cell says it. */
export function runDoing(run: LiveRun | undefined, health: EndpointHealth | undefined, now: Date): string {
  if (!run) return '';
  if (run.waitingForEndpoint) {
    const since = health?.state === 'down' && health.since ? `, not answering since ${when(health.since, now)}` : '';
    return `waiting for the model endpoint${since}`;
  }
  if (run.turn) {
    const tokens = run.context ? `, ${run.context.tokens.toLocaleString('en-US')} of ${run.context.window.toLocaleString('en-US')} tokens` : '';
    return `turn ${run.turn.turn} of ${run.turn.maxTurns}${tokens}`;
  }
  if (run.transcriptPart) return `reading the transcript, part ${run.transcriptPart.part} of ${run.transcriptPart.parts}`;
  return 'starting';
}
