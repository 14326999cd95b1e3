import type { Clock } from '../../clock.js';
import type { AppConfig } from '../../config.js';
import type { Logger } from '../../log.js';
import type { ServerWindowSource } from '../../agent/window/server-window.js';
import type { Vault } from '../../vault/files/vault.js';
import type { ClaimStatus } from '../../instance/vault-claim.js';
import { packageVersion } from '../../version.js';
import { createApiHandlers } from './api-handlers.js';
import type { MeetingEventDeps } from '../../meeting-event/match-meeting.js';
import type { Inbox } from '../intake/inbox.js';
import { importRoutes } from './import-route.js';
import { isLoopbackHost, type RunningHttpServer, startHttpServer } from './server.js';
import { pageRoutes } from './page-routes.js';
import type { LiveNotesEntry } from '../runs/live-notes-lane.js';
import { askRoutes } from './ask-route.js';
import { type CalendarLookup, calendarRoutes } from '../daemon-calendar.js';
import { askInProcesses, askInThisProcess } from './asker.js';
import type { Job, QueueStatus } from '../runs/queue.js';
import type { RunBoard } from '../runs/run-board.js';
import { buildStatusView } from './status-view.js';
import { TodayEvents } from '../../meeting-event/today-events.js';
import { SummaryTexts } from './summary-texts.js';
import { vaultIdentity } from '../../vault/files/state.js';

/**
 * The daemon's HTTP side (docs/design.md §7): the API (retries, sessions, status) and the
 * status page, on one server. Undefined when `Http.Enabled` is false.
 */

export interface ServeOptions {
  config: AppConfig;
  vault: Vault;
  token: string;
  log: Logger;
  board: RunBoard;
  startedAt: Date;
  clock: Clock;
  serverWindow: ServerWindowSource;
  enqueue(job: Job): string;
  /** The daemon's status, as `GET /status` returns it. */
  status(): { queue: QueueStatus; liveNotes?: LiveNotesEntry[]; machine?: ClaimStatus };
  stopping(): boolean;
  /** Whether the endpoint answers: since when it does not (docs/design.md §2). */
  endpointDownSince?(): string | undefined;
  /** The inbox: `POST /api/import` and the status page's imports (docs/design.md §9). */
  inbox?: Inbox;
  /** The calendars: GET /api/calendar and today's events on the status page (docs/design.md §12). */
  calendar?: CalendarLookup;
  /** The calendar's matching (docs/design.md §12): `session start` takes the event in progress from it. */
  matching?: MeetingEventDeps;
  /** Questions answered in the daemon's own process (its runs are too: tests on memfs); else each in a process of its own (§8). */
  askInThisProcess?: boolean;
}

/** Starts the server; throws HttpStartError when the address cannot be taken. */
export async function serveHttp(o: ServeOptions): Promise<RunningHttpServer | undefined> {
  const settings = o.config.settings;
  if (!settings.Http.Enabled) return undefined;
  const { vault, token, log } = o;
  const handlers = createApiHandlers({ vault, enqueue: o.enqueue, status: () => o.status(), clock: o.clock, triggerState: settings.Daemon.TriggerState, ...(o.matching && { calendar: o.matching }) });
  const texts = new SummaryTexts(vault);
  // Only with a calendar configured: without one, the page says nothing of calendars.
  const today = o.matching ? new TodayEvents({ calendar: o.matching.calendar, vault, clock: o.clock }) : undefined;
  const view = async () => {
    const filled = await texts.fill(buildStatusView({
      version: packageVersion(),
      startedAt: o.startedAt,
      vaultRoot: vault.root,
      board: o.board,
      pending: () => o.status().queue.pending,
      stopping: o.stopping,
      endpoint: { url: settings.Endpoint.BaseUrl, model: settings.Endpoint.Model, api: settings.Endpoint.Api },
      // The smaller of ContextWindow.Tokens and what the server last said it has.
      endpointWindow: () => o.serverWindow.known(),
      ...(o.endpointDownSince && { endpointDownSince: o.endpointDownSince }),
      clock: o.clock,
      ...(o.inbox ? { imports: () => o.inbox!.board.list() } : {}),
      liveNotes: () => o.status().liveNotes ?? [],
      machine: () => o.status().machine,
    }));
    // A calendar that fails leaves today's events out, not the page.
    const calendar = await today?.day().catch(() => undefined);
    return calendar ? { ...filled, calendar } : filled;
  };
  const asker = o.askInThisProcess ? askInThisProcess(o.config, vault, log) : askInProcesses(o.config, log);
  const http = await startHttpServer({
    settings: settings.Http,
    token,
    vaultId: await vaultIdentity(vault.fs, vault.root),
    log,
    handlers,
    extraRoutes: [
      ...pageRoutes({ token, port: settings.Http.Port, view, retry: (note) => handlers.retry(note, 'page') }),
      ...(o.inbox ? importRoutes(vault, o.inbox, token, settings.Http.Port) : []),
      ...(o.calendar ? calendarRoutes({ calendar: o.calendar, vault, clock: o.clock }) : []),
      ...askRoutes({ token, port: settings.Http.Port, maxConcurrent: settings.Ask.MaxConcurrent, log, ask: asker.ask }),
    ],
  });
  if (!isLoopbackHost(settings.Http.Host)) {
    log.warn(
      { host: settings.Http.Host },
      `the HTTP API listens on ${settings.Http.Host}, beyond this machine: anyone who can reach it and has the token can start retries and sessions`,
    );
  }
  // The questions' caches (worker threads, texts) go with the server.
  return { ...http, close: () => http.close().finally(() => asker.close()) };
}
