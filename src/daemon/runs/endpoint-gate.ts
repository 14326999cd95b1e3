import type { Clock } from '../../clock.js';
import type { AppConfig } from '../../config.js';
import type { Logger } from '../../log.js';
import { baseUrl } from '../../agent/model/endpoint-check.js';
import { EndpointWaiter, modelsProbe } from '../../agent/model/endpoint-wait.js';
import type { EndpointGate, Sleep } from '../../agent/model/retry.js';
import type { RunBoard } from './run-board.js';

/**
 * The daemon's side of "the endpoint down" (docs/design.md §2): one waiter for the process,
 * each waiting run marked on the status page's board, and a catch-up scan once the endpoint
 * answers again (failure reports it caused are then retried).
 */

export interface EndpointWaitSettings {
  /** The first pause between probes (default 5 s); `MEETING_ASSISTANT_ENDPOINT_WAIT_MS` in `run`, for tests. */
  firstPauseMs?: number;
  maxPauseMs?: number;
  sleep?: Sleep;
  fetch?: typeof fetch;
}

export function createEndpointWaiter(
  config: AppConfig,
  o: { log: Logger; clock: Clock; onBackUp(): void; settings?: EndpointWaitSettings },
): EndpointWaiter {
  const s = o.settings ?? {};
  return new EndpointWaiter({
    url: `${baseUrl(config)}/models`,
    probe: modelsProbe(config, s.fetch),
    log: o.log,
    clock: o.clock,
    ...(s.sleep && { sleep: s.sleep }),
    ...(s.firstPauseMs !== undefined && { firstPauseMs: s.firstPauseMs }),
    ...(s.maxPauseMs !== undefined && { maxPauseMs: s.maxPauseMs }),
    onBackUp: o.onBackUp,
  });
}

/** The gate as one job's run sees it: while it waits, the board shows the job as waiting for the endpoint. */
export function gateOnBoard(gate: EndpointGate, board: RunBoard, key: string): EndpointGate {
  return {
    get downSince() {
      return gate.downSince;
    },
    ...(gate.onDown && { onDown: (listener: (since: Date) => void) => gate.onDown!(listener) }),
    async waitUntilUp(signal) {
      board.waitingForEndpoint(key, true);
      try {
        return await gate.waitUntilUp(signal);
      } finally {
        board.waitingForEndpoint(key, false);
      }
    },
  };
}

/** `MEETING_ASSISTANT_ENDPOINT_WAIT_MS`: a shorter first pause, so tests need not wait 5 s. */
export function endpointWaitFromEnv(env: Record<string, string | undefined>): EndpointWaitSettings {
  const ms = Number(env.MEETING_ASSISTANT_ENDPOINT_WAIT_MS);
  return Number.isFinite(ms) && ms > 0 ? { firstPauseMs: ms, maxPauseMs: Math.max(ms, ms * 8) } : {};
}
