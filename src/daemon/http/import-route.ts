import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ImportError } from '../../import/cues.js';
import { isAccepted } from '../../import/formats/index.js';
import { isIgnoredInboxName } from '../../import/inbox-rules.js';
import { NAME_MAX_BYTES } from '../../vault/files/fs.js';
import { STATE_FOLDER, tokenMatches } from '../../vault/files/state.js';
import type { Vault } from '../../vault/files/vault.js';
import { ApiError, readBodyText, type Route, sendHtml } from './server.js';
import { escapeHtml } from './html.js';
import { cookieOf, csrfValue, sameOrigin, sessionCookieName, sessionValue } from './page-routes.js';
import type { Inbox } from '../intake/inbox.js';

/**
 * `POST /api/import?name=<file name>[&projects=a,b][&title=T][&start=ISO]` (docs/design.md §7,
 * §9): the body is the file. It is streamed to a temporary file in the state folder, never
 * held in memory, at most 100 MB (413 beyond), then imported through the inbox's queue:
 * 201 with the meeting's notes, 200 for content imported before, 400 with the reason.
 */

export const MAX_IMPORT_BYTES = 100 * 1024 * 1024;

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), 'cache-control': 'no-store' });
  res.end(text);
}

function nameOf(url: URL): string {
  const name = url.searchParams.get('name')?.trim() ?? '';
  if (name === '') throw new ApiError(400, '"name" is required: the file name, with its extension (?name=call.vtt)');
  if (name !== path.basename(name) || name.includes('\\') || name === '..') throw new ApiError(400, `"name" is a file name, not a path: "${name}"`);
  // The upload is kept under this name until it is imported: one the file system refuses is the caller's error, not ours.
  if (Buffer.byteLength(name) > NAME_MAX_BYTES) throw new ApiError(400, `"name" is longer than a file name may be (${NAME_MAX_BYTES} bytes in UTF-8); shorten it`);
  if (isIgnoredInboxName(name) || !isAccepted(name)) throw new ApiError(400, `"${name}" is not a transcript or recording the import reads (see docs/importing.md)`);
  return name;
}

function optionsOf(url: URL): { projects?: string[]; title?: string; start?: Date } {
  const out: { projects?: string[]; title?: string; start?: Date } = {};
  const projects = url.searchParams.get('projects');
  if (projects !== null) {
    out.projects = projects.split(',').map((p) => p.trim()).filter(Boolean);
    const bad = out.projects.find((p) => p.includes('/') || p.includes('\\') || p === '.' || p === '..');
    if (bad) throw new ApiError(400, `a project is the name of a folder in Folders.Projects, not a path: "${bad}"`);
  }
  const title = url.searchParams.get('title');
  if (title !== null && title.trim() !== '') out.title = title.trim();
  const start = url.searchParams.get('start');
  if (start !== null && start.trim() !== '') {
    const date = new Date(start);
    if (!Number.isFinite(date.getTime())) throw new ApiError(400, `"start" must be an ISO 8601 time like 2026-12-02T10:00:00+01:00, not "${start}"`);
    out.start = date;
  }
  return out;
}

/** How long the rest of an upload past the limit is read (and dropped) before the 413 goes out regardless. */
export const OVERFLOW_DRAIN_MS = 10_000;

/**
 * The body into `file`, counting; beyond the limit nothing more is written and the 413 waits
 * for the rest of the body, read and dropped (at most OVERFLOW_DRAIN_MS). Answered at once, the
 * connection would close while the client still sends, and the reset that its next bytes meet
 * can reach the client before the answer does: it would see a broken connection, not a 413.
 */
async function receive(req: IncomingMessage, file: string): Promise<void> {
  const tooLarge = () => new ApiError(413, `the file is larger than ${MAX_IMPORT_BYTES / 1024 / 1024} MB`);
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > MAX_IMPORT_BYTES) throw tooLarge();
  let size = 0;
  let over = false;
  let drain: NodeJS.Timeout | undefined;
  const limit = new Transform({
    transform(chunk: Buffer, _enc, done) {
      size += chunk.length;
      if (!over && size > MAX_IMPORT_BYTES) {
        over = true;
        drain = setTimeout(() => req.destroy(), OVERFLOW_DRAIN_MS);
      }
      done(null, over ? undefined : chunk);
    },
  });
  try {
    await pipeline(req, limit, createWriteStream(file, { flags: 'wx', mode: 0o600 }));
  } catch (err) {
    // A client that kept sending past the drain time: answered anyway, as well as it can be.
    if (!over) throw err;
  } finally {
    clearTimeout(drain);
  }
  if (over) throw tooLarge();
  if (size === 0) throw new ApiError(400, 'the request body is empty: send the file as the body');
}

export function importRoute(vault: Vault, inbox: Inbox): Route {
  return {
    method: 'POST',
    path: '/api/import',
    auth: true,
    handle: async (req, res, url) => {
      const name = nameOf(url);
      const options = optionsOf(url);
      const dir = path.join(vault.root, STATE_FOLDER, 'imports', 'uploads', randomBytes(8).toString('hex'));
      await mkdir(dir, { recursive: true, mode: 0o700 });
      try {
        const file = path.join(dir, name);
        try {
          await receive(req, file);
        } catch (err) {
          // Nothing more is read: the answer goes out and the connection closes.
          if (err instanceof ApiError) req.resume();
          throw err;
        }
        let outcome;
        try {
          outcome = await inbox.importNow(`upload: ${name}`, { file, keep: 'move', name, ...options });
        } catch (err) {
          if (err instanceof ImportError) throw new ApiError(400, `${err.message}; ${err.hint}`);
          throw err;
        }
        if (outcome.kind === 'imported') send(res, 201, outcome);
        else send(res, 200, { ...outcome, error: undefined, message: `this content was imported before as ${outcome.meeting}` });
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  };
}

/**
 * The status page's Retry button of a failed import: a form POST with the page's CSRF value,
 * signed in by the page's cookie (as the summaries' Retry button, page-routes.ts).
 */
export function importRetryRoute(inbox: Inbox, token: string, port: number): Route {
  const cookie = sessionCookieName(port);
  return {
    method: 'POST',
    path: '/imports/retry',
    auth: false,
    handle: async (req, res) => {
      if (!tokenMatches(cookieOf(req, cookie), sessionValue(token))) return sendHtml(res, 401, 'Not authorized', 'Open the status page with <code>meeting-assistant open</code> first.');
      const form = new URLSearchParams(await readBodyText(req));
      if (!sameOrigin(req) || !tokenMatches(form.get('csrf') ?? undefined, csrfValue(token))) {
        return sendHtml(res, 403, 'Retry refused', 'The request did not come from the status page (missing or wrong CSRF token). Reload the page and press Retry again.');
      }
      try {
        await inbox.retry(form.get('file') ?? '');
      } catch (err) {
        if (!(err instanceof ImportError)) throw err;
        return sendHtml(res, 400, 'Import not retried', `${escapeHtml(err.message)}. <a href="/">Back to the status page</a>`);
      }
      res.writeHead(303, { location: '/', 'content-length': 0, 'cache-control': 'no-store' });
      res.end();
    },
  };
}

export function importRoutes(vault: Vault, inbox: Inbox, token: string, port: number): Route[] {
  return [importRoute(vault, inbox), importRetryRoute(inbox, token, port)];
}
