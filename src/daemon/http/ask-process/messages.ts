import type { AskAnswer } from '../../../ask/ask-run.js';
import type { AskFilters } from '../../../ask/instructions.js';
import type { AppConfig } from '../../../config.js';

/**
 * What the daemon and a question's process say to each other over the IPC channel
 * (docs/design.md §8, §11): one question per process, its answer's text as it arrives, then
 * the answer or why there is none. The daemon stops a question with `abort`, and kills a
 * process that has not ended soon after.
 */
export type ToAskProcess =
  | { type: 'ask'; config: AppConfig; question: string; filters: AskFilters }
  /** The person went away: stop the question (its model request) and end. */
  | { type: 'abort' };

export type FromAskProcess =
  /** One line of the question's log, as JSON (the daemon logs it in its own log). */
  | { type: 'log'; line: string }
  | { type: 'text'; text: string }
  | { type: 'answer'; answer: AskAnswer }
  /** No answer: why, and whether it is the question's own failure (the endpoint, the model) or a fault. */
  | { type: 'failed'; message: string; expected: boolean };
