import type { IncomingMessage, ServerResponse } from 'node:http';
import { createHmac } from 'node:crypto';
import { ApiError, readBodyText, type RetryAccepted, type Route, sendHtml } from './server.js';
import { tokenMatches } from '../../vault/files/state.js';
import { escapeHtml } from './html.js';
import { renderMain, renderPage, STATUS_SCRIPT } from './status-page.js';
import type { StatusView } from './status-view.js';

/**
 * The status page's routes (docs/design.md §7, `GET /`). `meeting-assistant open` opens
 * `/?token=…` once; that answer sets an HttpOnly, SameSite=Strict cookie and redirects to `/`,
 * so the token leaves the address bar and the history. The cookie holds a value derived from
 * the token, not the token itself, so it cannot be replayed as the API's bearer token. The
 * Retry and Regenerate buttons are a form POST that must carry a CSRF value derived the same way (and, when the
 * browser says where it comes from, come from this page's own origin).
 */

export interface PageOptions {
  token: string;
  /** Part of the cookie's name: two daemons on one machine (different ports) keep apart. */
  port: number;
  /** What the page shows (with the summaries' texts read from the vault, hence a promise). */
  view(): StatusView | Promise<StatusView>;
  retry(note: unknown): Promise<RetryAccepted>;
}

const derive = (token: string, purpose: string) => createHmac('sha256', token).update(`meeting-assistant ${purpose}`).digest('base64url');

export const sessionCookieName = (port: number) => `ma_session_${port}`;
export const sessionValue = (token: string) => derive(token, 'status page session');
export const csrfValue = (token: string) => derive(token, 'status page csrf');

export function cookieOf(req: IncomingMessage, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

const PAGE_HEADERS = {
  'cache-control': 'no-store',
  'content-security-policy':
    "default-src 'none'; style-src 'unsafe-inline'; script-src 'self'; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
  'x-frame-options': 'DENY',
  // Not no-referrer: under it, browsers send `Origin: null` with the Retry form, and the
  // origin check could not tell the page from anyone else.
  'referrer-policy': 'same-origin',
};

function send(res: ServerResponse, status: number, type: string, body: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': `${type}; charset=utf-8`, 'content-length': Buffer.byteLength(body), ...PAGE_HEADERS, ...headers });
  res.end(body);
}

function redirect(res: ServerResponse, headers: Record<string, string> = {}): void {
  res.writeHead(303, { location: '/', 'content-length': 0, ...PAGE_HEADERS, ...headers });
  res.end();
}

const SIGNED_OUT =
  'This page needs the daemon’s token. Open it with <code>meeting-assistant open</code> (or <code>meeting-assistant open --print</code> for the address).';

/** Origin, when the browser sends one, must be the host the request was sent to. */
export function sameOrigin(req: IncomingMessage): boolean {
  const origin = req.headers.origin;
  if (origin === undefined) return true;
  return origin === `http://${req.headers.host ?? ''}`;
}

export function pageRoutes(options: PageOptions): Route[] {
  const cookie = sessionCookieName(options.port);
  const session = sessionValue(options.token);
  const csrf = csrfValue(options.token);
  const signedIn = (req: IncomingMessage) => tokenMatches(cookieOf(req, cookie), session);
  return [
    {
      method: 'GET',
      path: '/',
      auth: false,
      handle: async (req, res, url) => {
        const given = url.searchParams.get('token');
        if (given !== null) {
          if (!tokenMatches(given, options.token)) return sendHtml(res, 401, 'Not authorized', 'The token in this address is wrong. ' + SIGNED_OUT);
          return redirect(res, { 'set-cookie': `${cookie}=${session}; HttpOnly; SameSite=Strict; Path=/` });
        }
        if (!signedIn(req)) return sendHtml(res, 401, 'Not authorized', SIGNED_OUT);
        send(res, 200, 'text/html', renderPage(await options.view(), csrf));
      },
    },
    {
      method: 'GET',
      path: '/status/live',
      auth: false,
      handle: async (req, res) => {
        if (!signedIn(req)) return send(res, 401, 'text/plain', 'not signed in');
        send(res, 200, 'text/html', renderMain(await options.view(), csrf));
      },
    },
    {
      method: 'GET',
      path: '/status.js',
      // The script carries no data; the page that loads it does.
      auth: false,
      handle: async (_req, res) => send(res, 200, 'text/javascript', STATUS_SCRIPT, { 'cache-control': 'no-cache' }),
    },
    {
      method: 'POST',
      path: '/retry',
      auth: false,
      handle: async (req, res) => {
        if (!signedIn(req)) return sendHtml(res, 401, 'Not authorized', SIGNED_OUT);
        const form = new URLSearchParams(await readBodyText(req));
        if (!sameOrigin(req) || !tokenMatches(form.get('csrf') ?? undefined, csrf)) {
          return sendHtml(res, 403, 'Retry refused', 'The request did not come from the status page (missing or wrong CSRF token). Reload the page and press Retry again.');
        }
        try {
          await options.retry(form.get('note'));
        } catch (err) {
          if (!(err instanceof ApiError)) throw err;
          return sendHtml(res, err.status, 'Retry not queued', `${escapeHtml(err.message)}. <a href="/">Back to the status page</a>`);
        }
        redirect(res);
      },
    },
  ];
}
