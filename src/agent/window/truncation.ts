import type { Logger } from '../../log.js';
import { messagesTokens } from './tokens.js';
import type { Message, ModelRequest } from '../types.js';

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
 * their cache. Such a count matches the part of the request that is new since a cached prefix:
 * what was appended since the previous request (at any size), or, when it is also smaller
 * than the usual default windows, all but the instructions and tool schemas.
 */
const SMALL_DEFAULT_WINDOW = 2048;
/** Tokenizers disagree by 20-40 %: a count within this share of a part of the request may be that part's count. */
const UNCACHED_RATIO = 0.3;
const UNCACHED_SLACK = 64;
/**
 * No server runs a window this small, so a count below it is no evidence of truncation (tiny
 * counts come from prompt caches or placeholder usage).
 */
const SMALLEST_WINDOW = 1024;
/**
 * Ollama cuts a prompt longer than its window W to its first 4 tokens plus the newest
 * (W − 4) / 2, and reports that kept count K = 4 + ⌊(W − 4) / 2⌋ as the prompt's size. Windows
 * are set in round figures (OLLAMA_CONTEXT_LENGTH, num_ctx: 2,048, 4,096, 8,192 …), so a count
 * with 2K − 4 a multiple of this is Ollama's cut of a window of 2K − 4.
 */
const OLLAMA_WINDOW_STEP = 256;
const OLLAMA_KEEP = 4;
/** A later cut reports the same count as the first (the server keeps what its window keeps): within this many tokens. */
const CAP_TOLERANCE = 2;

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
  /** The previous request's count and our estimate of it, compacted since or not. */
  before?: { input: number; estimate: number };
  /** The window the server said it has, when it told. */
  told: number | undefined;
  /** The prompt tokens an earlier cut of this run kept: a server that cuts reports that same count for every prompt it cuts. */
  cap?: number;
}

/**
 * Why the reported prompt count shows a cut, or undefined: it grew by far less than what
 * was appended since the previous request of the same conversation (flat or falling
 * included), or it is far below what the server would keep of this request (all of it, up
 * to the window it told). Never for a count that looks like one leaving out a cached
 * prefix (see SMALL_DEFAULT_WINDOW), the very same count as the request before
 * (sameCountAgain) included: a server counting only what was appended may count two reads of
 * much the same size alike, while a compacted conversation (the case that sign is for) is not
 * "the same conversation" and its count is no uncached part. The caller asks only until its
 * first suspicion.
 */
export function truncationSuspicion(counts: ReportedCounts, log: Logger): string | undefined {
  const { request, reported, estimate, fixed, previous, told, cap } = counts;
  if (reported < SMALLEST_WINDOW) return undefined;
  const sameConversation = previous !== undefined && previous.fixed === fixed && startsWith(request.messages, previous.messages);
  const appended = sameConversation ? messagesTokens(request.messages.slice(previous.messages.length)) : undefined;
  let why = sameCountAgain(counts);
  if (!why && appended !== undefined && previous?.input !== undefined && appended >= TRUNCATION_MIN_GAP) {
    const growth = reported - previous.input;
    if (growth < appended * GROWTH_RATIO) why = `up ${growth} from ${previous.input} while about ${appended} were added`;
  }
  const kept = Math.min(estimate, told ?? estimate);
  if (!why && reported < kept * FAR_BELOW_RATIO && kept - reported >= TRUNCATION_MIN_GAP) {
    why = `far below the ${told !== undefined ? `${kept} the server keeps` : `${kept} sent`}`;
  }
  if (!why && cap !== undefined) why = cutAgain(reported, estimate, cap);
  if (!why) return undefined;
  const uncached = appended !== undefined ? [appended] : [];
  if (reported < SMALL_DEFAULT_WINDOW) uncached.push(estimate - fixed);
  // Ollama's own cut of a round window is never taken for an uncached count (its count matches
  // what was appended now and then): that would let the answer to a cut prompt through.
  if (!isOllamaCut(reported) && uncached.some((n) => Math.abs(reported - n) <= n * UNCACHED_RATIO + UNCACHED_SLACK)) {
    log.debug({ reported, estimated: estimate, appended }, 'reported prompt tokens look like they leave out a cached prefix');
    return undefined;
  }
  return why;
}

/**
 * The very same count as the request before, for a request of another size and clearly larger
 * than that count: the server's own sign that it keeps a fixed number of tokens (its window) and
 * drops the front, whether or not the conversation was compacted in between (then it is not
 * "the same conversation, grown", and the growth test cannot see it). No tokenizer disagreement
 * lands on the previous count (issue 31 point 5: 8,192 reported eleven times in a row, each
 * request some 300 lines longer, the later ones compacted to some 13,500 tokens). Like the other
 * signs it is not taken from a count that looks like the uncached part of the same conversation
 * grown.
 */
function sameCountAgain({ reported, estimate, before }: ReportedCounts): string | undefined {
  if (before === undefined || Math.abs(reported - before.input) > CAP_TOLERANCE) return undefined;
  if (Math.abs(estimate - before.estimate) < TRUNCATION_MIN_GAP || estimate - reported < TRUNCATION_MIN_GAP) return undefined;
  return `the same ${reported} as the request before, for about ${estimate} sent after about ${before.estimate}`;
}

/** Whether `kept` is what Ollama keeps when it cuts a prompt for a round window (see OLLAMA_WINDOW_STEP). */
function isOllamaCut(kept: number): boolean {
  return kept >= SMALLEST_WINDOW / 2 && (2 * Math.floor(kept) - OLLAMA_KEEP) % OLLAMA_WINDOW_STEP === 0;
}

/**
 * Why a count shows the server cut this request as it cut an earlier one, or undefined. A
 * request just over the window is not "far below" what was sent (Ollama keeps half of its
 * window), but a server that cuts reports the same count for every prompt it cuts: a count
 * that is the earlier cut's, for a request clearly larger, is a cut again. No tokenizer
 * disagreement lands on the very same count.
 */
export function cutAgain(reported: number, estimate: number, cap: number): string | undefined {
  if (Math.abs(reported - cap) > CAP_TOLERANCE || estimate - reported < TRUNCATION_MIN_GAP) return undefined;
  return `the ${cap} tokens an earlier cut kept, for about ${estimate} sent`;
}

/** The window a silent cut shows, and whether it is inferred (Ollama's half) rather than the count itself. */
export interface WindowShown {
  window: number;
  guess: boolean;
}

/**
 * The window a silent cut that kept `kept` tokens shows, the window in use being `window`.
 * A count that is Ollama's cut of a round window (see OLLAMA_WINDOW_STEP: 2,050 kept of 4,096)
 * shows that window, twice the count less 4, when that is smaller than the window in use:
 * taking the kept count itself would leave half of the server's window unused, and with it
 * the room a long meeting needs. Otherwise (a server that keeps its whole window, or a second
 * cut at the same count once twice it is in use) the window is the kept count, never less
 * than `fitted`, a request the server took whole. So a server that really keeps only its cut
 * count costs one more cut, then its count is the window: each cut shrinks the window, none
 * can repeat.
 */
export function windowShownByCut(kept: number, window: number, fitted = 0): WindowShown {
  const k = Math.floor(kept);
  const ollama = 2 * k - OLLAMA_KEEP;
  if (isOllamaCut(k) && ollama < window) return { window: Math.max(ollama, fitted), guess: true };
  return { window: Math.min(window, Math.max(k, fitted)), guess: false };
}

/** Whether `messages` begins with exactly these message objects (the same conversation, grown). */
export function startsWith(messages: readonly Message[], prefix: readonly Message[]): boolean {
  if (messages.length < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (messages[i] !== prefix[i]) return false;
  return true;
}
