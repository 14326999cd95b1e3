import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AskAnswer, AskRequest } from '../../ask/ask-run.js';
import { askFilters } from '../../ask/filters.js';
import type { AskFilters } from '../../ask/instructions.js';
import { isExpectedError } from '../../errors.js';
import type { Logger } from '../../log.js';
import { Slots } from '../../vault/files/concurrency.js';
import { ASK_SCRIPT } from './ask-box.js';
import { ApiError, readBodyText, type Route, tokenMatches } from './server.js';
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
}

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

function event(res: ServerResponse, name: string, data: unknown): void {
  if (!res.destroyed) res.write(`event: ${name}\ndata: ${JSON.stringify(data)}\n\n`);
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
        try {
          const answer = await slots.run(
            async () => (gone.signal.aborted ? undefined : options.ask({ question, filters, signal: gone.signal, onText: (text) => event(res, 'delta', { text }) })),
            (ahead) => event(res, 'waiting', { ahead, maxConcurrent: options.maxConcurrent }),
          );
          if (answer) {
            event(res, 'sources', { sources: answer.sources });
            event(res, 'done', { answer: answer.answer, turns: answer.turns });
          }
        } catch (err) {
          if (!gone.signal.aborted) event(res, 'error', { error: err instanceof Error ? err.message : String(err) });
          // The question's own failure (the endpoint, the model) was logged by the run; anything else is ours.
          if (!isExpectedError(err)) options.log.error({ err }, 'a question failed unexpectedly');
        }
        res.end();
      },
    },
  ];
}
