import type { Logger } from '../log.js';
import { messagesTokens } from './tokens.js';
import type { Message, ModelRequest } from './types.js';

/**
 * Silent truncation, judged from the server's own prompt counts (never from how they compare
 * with our tokenizer, which may count 20-40 % more or less): a count that hardly grows, or
 * falls, while the conversation grew, or one far below what the server would keep.
 */

/**
 * A count that grew by less than this share of what was appended (our estimate) means the
 * server did not see what was added. Tokenizers disagree by 20-40 %, not by 60.
 */
const GROWTH_RATIO = 0.4;
/** A count below this share of what the server would keep (all of it, up to its window) is far below. */
const FAR_BELOW_RATIO = 0.45;
/** …and at least this many tokens short, so that small requests prove nothing either way. */
const TRUNCATION_MIN_GAP = 256;
/**
 * Some servers (several Ollama versions) report only the prompt tokens they did not find in
 * their cache. Such a count matches the part of the request that is new since a cached prefix;
 * when it is also smaller than the usual default windows, it is not taken for truncation.
 */
const SMALL_DEFAULT_WINDOW = 2048;
/**
 * No server runs a window this small, so a count below it is no evidence of truncation (tiny
 * counts come from prompt caches or placeholder usage).
 */
const SMALLEST_WINDOW = 1024;
/** What a response's usage is compared with: the request, our estimate, the request before. */
export interface ReportedCounts {
  request: ModelRequest;
  /** The prompt tokens the server reported. */
  reported: number;
  /** Our estimate of the whole request. */
  estimate: number;
  /** Our estimate of its fixed part (instructions, tool schemas). */
  fixed: number;
  /** The previous request of the run and what the server reported for it. */
  previous: { messages: readonly Message[]; fixed: number; input?: number } | undefined;
  /** The window the server said it has, when it told. */
  told: number | undefined;
}

/**
 * Why the reported prompt count shows a cut, or undefined: it grew by far less than what
 * was appended since the previous request of the same conversation (flat or falling
 * included), or it is far below what the server would keep of this request (all of it, up
 * to the window it told). Never for a count that looks like one leaving out a cached
 * prefix (see SMALL_DEFAULT_WINDOW). The caller asks only until its first suspicion.
 */
export function truncationSuspicion(counts: ReportedCounts, log: Logger): string | undefined {
  const { request, reported, estimate, fixed, previous, told } = counts;
  if (reported < SMALLEST_WINDOW) return undefined;
  const sameConversation = previous !== undefined && previous.fixed === fixed && startsWith(request.messages, previous.messages);
  const appended = sameConversation ? messagesTokens(request.messages.slice(previous.messages.length)) : undefined;
  let why: string | undefined;
  if (appended !== undefined && previous?.input !== undefined && appended >= TRUNCATION_MIN_GAP) {
    const growth = reported - previous.input;
    if (growth < appended * GROWTH_RATIO) why = `up ${growth} from ${previous.input} while about ${appended} were added`;
  }
  const kept = Math.min(estimate, told ?? estimate);
  if (!why && reported < kept * FAR_BELOW_RATIO && kept - reported >= TRUNCATION_MIN_GAP) {
    why = `far below the ${told !== undefined ? `${kept} the server keeps` : `${kept} sent`}`;
  }
  if (!why) return undefined;
  if (reported < SMALL_DEFAULT_WINDOW) {
    const uncached = [estimate - fixed];
    if (appended !== undefined) uncached.push(appended);
    if (uncached.some((n) => reported >= n * 0.7 - 64 && reported <= n * 1.3 + 64)) {
      log.debug({ reported, estimated: estimate }, 'reported prompt tokens look like they leave out a cached prefix');
      return undefined;
    }
  }
  return why;
}

/** Whether `messages` begins with exactly these message objects (the same conversation, grown). */
export function startsWith(messages: readonly Message[], prefix: readonly Message[]): boolean {
  if (messages.length < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (messages[i] !== prefix[i]) return false;
  return true;
}
