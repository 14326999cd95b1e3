import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AskAnswer, AskRequest } from '../../ask/ask-run.js';
import { askFilters } from '../../ask/filters.js';
import type { AskFilters } from '../../ask/instructions.js';
import { isExpectedError } from '../../errors.js';
import type { Logger } from '../../log.js';
import { Slots } from '../../vault/files/concurrency.js';
import { ASK_SCRIPT } from './ask-box.js';
import { ApiError, readBodyText, type Route } from './server.js';
import { tokenMatches } from '../../vault/files/state.js';
import { cookieOf, csrfValue, sameOrigin, sessionCookieName, sessionValue } from './page-routes.js';

/**
 * `POST /api/ask` (docs/design.md §7, §11): a question answered from the meetings, streamed as
 * `text/event-stream`: `delta` events with the text as it arrives, then `sources`, then
 * `done`, or an `error`. Taken with the API's bearer token or from the status page (its
 * cookie, and the page's CSRF value in `x-csrf-token`). At most `Ask.MaxConcurrent` questions
 * run at once, in slots of their own (a summary run never waits for a question); one past
 * them waits, and a `waiting` event (an extension) says how many are ahead of it.
 */

export type Asker = (request: AskRequest) => Promise<AskAnswer>;

export interface AskRouteOptions {
  token: string;
  port: number;
  maxConcurrent: number;
  log: Logger;
  ask: Asker;
  /** How much may wait for a client that does not read, and for how long (tests make them small). */
  limits?: StreamLimits;
}

/**
 * A client that does not read (docs/design.md §11, issue 43): what waits to be sent is bounded
 * by `maxBufferedBytes` (a single event larger than that is still sent when nothing waits before
 * it: the `done` of a long answer), and a stream that does not drain within `drainTimeoutMs`
 * is dropped. Either way the question is stopped and its slot goes to the next.
 */
export interface StreamLimits {
  maxBufferedBytes: number;
  drainTimeoutMs: number;
}

export const STREAM_LIMITS: StreamLimits = { maxBufferedBytes: 1024 * 1024, drainTimeoutMs: 30_000 };

const MAX_QUESTION_CHARS = 4000;

interface Question {
  question: string;
  filters: AskFilters;
}

function questionOf(text: string): Question {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new ApiError(400, 'the request body is not valid JSON');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new ApiError(400, 'the request body must be a JSON object: {"question": "…"}');
  const { question, projects, from, to } = body as Record<string, unknown>;
  if (typeof question !== 'string' || question.trim() === '') throw new ApiError(400, '"question" is required: the question, as text');
  if (question.length > MAX_QUESTION_CHARS) throw new ApiError(400, `"question" is longer than ${MAX_QUESTION_CHARS} characters`);
  try {
    return { question: question.trim(), filters: askFilters({ projects: projects ?? undefined, from: from ?? undefined, to: to ?? undefined }) };
  } catch (err) {
    throw new ApiError(400, err instanceof Error ? err.message : String(err));
  }
}

/** The response's events, within StreamLimits; `onDrop` is told once when the stream is dropped. */
class EventStream {
  #timer: NodeJS.Timeout | undefined;
  #dropped = false;

  constructor(
    private readonly res: ServerResponse,
    private readonly limits: StreamLimits,
    private readonly onDrop: (why: 'buffer' | 'timeout') => void,
  ) {
    res.on('drain', () => this.#stopTimer());
    res.on('close', () => this.#stopTimer());
  }

  /** `last`: the answer's closing events, sent once drained() (whatever their size: they come once). */
  send(name: string, data: unknown, last = false): void {
    const { res } = this;
    if (this.#dropped || res.destroyed) return;
    const text = `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
    // writableLength counts what the response and its socket hold, unsent.
    if (!last && res.writableLength > 0 && res.writableLength + Buffer.byteLength(text) > this.limits.maxBufferedBytes) return this.#drop('buffer');
    if (!res.write(text) && !this.#timer) this.#timer = setTimeout(() => this.#drop('timeout'), this.limits.drainTimeoutMs);
  }

  /**
   * Resolves once what waits to be sent is below the response's high-water mark (a long
   * answer's `done` repeats the whole answer: sent after the deltas have left, it is not taken
   * for a client that does not read), or once the stream is dropped for not draining in time.
   */
  async drained(): Promise<void> {
    const { res } = this;
    if (this.#dropped || res.destroyed || !res.writableNeedDrain) return;
    this.#timer ??= setTimeout(() => this.#drop('timeout'), this.limits.drainTimeoutMs);
    await new Promise<void>((resolve) => {
      const done = () => {
        res.off('drain', done);
        res.off('close', done);
        resolve();
      };
      res.on('drain', done);
      res.on('close', done);
    });
  }

  #stopTimer(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #drop(why: 'buffer' | 'timeout'): void {
    if (this.#dropped) return;
    this.#dropped = true;
    this.#stopTimer();
    this.onDrop(why);
    this.res.destroy();
  }
}

export function askRoutes(options: AskRouteOptions): Route[] {
  const slots = new Slots(options.maxConcurrent);
  const cookie = sessionCookieName(options.port);
  const fromPage = (req: IncomingMessage): boolean =>
    tokenMatches(cookieOf(req, cookie), sessionValue(options.token)) &&
    sameOrigin(req) &&
    tokenMatches(String(req.headers['x-csrf-token'] ?? ''), csrfValue(options.token));
  const bearer = (req: IncomingMessage): boolean => {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
    return tokenMatches(m?.[1], options.token);
  };
  return [
    {
      method: 'GET',
      path: '/ask.js',
      // The script carries no data; the page that loads it does.
      auth: false,
      handle: async (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8', 'content-length': Buffer.byteLength(ASK_SCRIPT), 'cache-control': 'no-cache' });
        res.end(ASK_SCRIPT);
      },
    },
    {
      method: 'POST',
      path: '/api/ask',
      // Checked inside: the token, or the status page's cookie with its CSRF value.
      auth: false,
      handle: async (req, res) => {
        if (!bearer(req) && !fromPage(req)) throw new ApiError(401, 'missing or wrong bearer token (or, from the status page, its cookie and CSRF value)');
        const { question, filters } = questionOf(await readBodyText(req));
        res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', 'x-accel-buffering': 'no' });
        // The person closed the page or the client went away: the run stops, its slot goes to the next.
        const gone = new AbortController();
        res.on('close', () => gone.abort());
        const stream = new EventStream(res, options.limits ?? STREAM_LIMITS, (why) => {
          options.log.warn({ why, buffered: res.writableLength }, why === 'buffer' ? 'a question\'s client reads too slowly; its stream is dropped' : 'a question\'s stream did not drain in time; it is dropped');
          gone.abort();
        });
        try {
          const answer = await slots.run(
            async () => (gone.signal.aborted ? undefined : options.ask({ question, filters, signal: gone.signal, onText: (text) => stream.send('delta', { text }) })),
            (ahead) => stream.send('waiting', { ahead, maxConcurrent: options.maxConcurrent }),
          );
          if (answer) {
            await stream.drained();
            stream.send('sources', { sources: answer.sources }, true);
            stream.send('done', { answer: answer.answer, turns: answer.turns }, true);
          }
        } catch (err) {
          if (!gone.signal.aborted) stream.send('error', { error: err instanceof Error ? err.message : String(err) });
          // The question's own failure (the endpoint, the model) was logged by the run; anything else is ours.
          if (!isExpectedError(err)) options.log.error({ err }, 'a question failed unexpectedly');
        }
        res.end();
      },
    },
  ];
}
