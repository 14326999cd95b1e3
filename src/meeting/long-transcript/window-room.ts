import type { Settings } from '../../config.js';
import { compactionTarget, outputReserve } from '../../agent/window/window-budget.js';

/** What the pre-pass needs to know of the window; the run's WindowBudget provides it. */
export interface WindowRoom {
  /** The window in use (configured, or smaller once the server showed less). */
  readonly window: number;
  /** What one request may ask for as output. */
  readonly maxOutputTokens: number;
  /** The request size compaction keeps the main conversation under. */
  readonly target: number;
  /** The server showed a smaller window (a pre-pass request was cut or refused). */
  shrinkWindow(tokens: number): void;
  /** Asks the server for its window (once per run), so the parts are sized by it. */
  prepare?(): Promise<void>;
}

/**
 * The window as the run's context manager knows it (it learns a smaller one from the server),
 * else as configured.
 */
export function windowRoom(context: Partial<WindowRoom> | undefined, settings: Settings['ContextWindow']): WindowRoom {
  if (context?.window !== undefined && context.target !== undefined && context.maxOutputTokens !== undefined && context.shrinkWindow) {
    return context as WindowRoom;
  }
  let window = settings.Tokens;
  return {
    get window() {
      return window;
    },
    get maxOutputTokens() {
      return outputReserve(window, settings);
    },
    get target() {
      return compactionTarget(window, settings);
    },
    shrinkWindow(tokens) {
      window = Math.min(window, Math.floor(tokens));
    },
  };
}
