import path from 'node:path';
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Settings } from '../../config.js';
import type { Vault } from './vault.js';
import { readTextIfExists, writeFileAtomic } from './fs.js';

/**
 * The vault's state folder and what lives in it that more than one layer needs: the audit,
 * the daemon, the runtime and the example vault all name it, so it sits at the bottom.
 */
export const STATE_FOLDER = '.meeting-assistant';

/**
 * The HTTP API token: `Http.Token` when configured, else one generated at first start and
 * kept in `<vault>/.meeting-assistant/token` with mode 0600, so retry links in failure
 * reports stay valid across restarts.
 */
export async function ensureHttpToken(vault: Vault, http: Settings['Http']): Promise<string> {
  if (http.Token) return http.Token;
  const file = path.join(vault.root, STATE_FOLDER, 'token');
  const existing = (await readTextIfExists(vault.fs, file))?.trim();
  if (existing) return existing;
  const token = randomBytes(24).toString('base64url');
  await vault.fs.mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  await writeFileAtomic(vault.fs, file, token + '\n', { mode: 0o600 });
  return token;
}

/** The token a running daemon uses, without creating one: undefined before its first start. */
export async function readHttpToken(vault: Vault, http: Settings['Http']): Promise<string | undefined> {
  if (http.Token) return http.Token;
  return (await readTextIfExists(vault.fs, path.join(vault.root, STATE_FOLDER, 'token')))?.trim() || undefined;
}

/**
 * `http://host:port` of the daemon as this machine reaches it (a wildcard address means
 * loopback). Here rather than in daemon/ because notes link to it: a failure report written
 * by a one-shot run carries the retry link too.
 */
export function localBaseUrl(http: Settings['Http']): string {
  const host = http.Host === '0.0.0.0' || http.Host === '::' ? '127.0.0.1' : http.Host;
  return `http://${host.includes(':') ? `[${host}]` : host}:${http.Port}`;
}

/**
 * The clickable retry link of a failure report (docs/design.md §1): the note's path and its
 * signature, never the token. Notes sync to phones, clouds and other people; a link that
 * leaks retries that one note only.
 */
export function retryUrl(http: Settings['Http'], token: string, summaryRelPath: string): string {
  return `${localBaseUrl(http)}/retry?note=${encodeURIComponent(summaryRelPath)}&sig=${retrySignature(token, summaryRelPath)}`;
}

/** HMAC-SHA256 of the note's vault-relative path keyed with the HTTP token, base64url. */
export function retrySignature(token: string, summaryRelPath: string): string {
  return createHmac('sha256', token).update(summaryRelPath, 'utf8').digest('base64url');
}

/** The header in which the daemon answers a `/healthz?challenge=` (docs/design.md §7). */
export const PROOF_HEADER = 'x-meeting-assistant-proof';

/** A challenge a daemon answers: what a command sends is 32 random bytes, base64url. */
export const CHALLENGE = /^[A-Za-z0-9_-]{16,128}$/;

/**
 * What the daemon answers to `GET /healthz?challenge=<c>`: an HMAC of the challenge keyed with
 * the token. A command asks for it before it sends the token, so that another program that
 * holds the address (a port freed by a daemon that was killed, the configured port with no
 * daemon) gets no token: only a holder of the token can answer (issue #43 point 2). Anyone
 * may ask, so the message has its own prefix and a challenge holds no space, dot or slash: no
 * answer equals a retry signature (a note path) or the status page's derived values.
 */
export function healthzProof(token: string, challenge: string): string {
  return createHmac('sha256', token).update(`meeting-assistant healthz ${challenge}`, 'utf8').digest('base64url');
}

/**
 * The query of a retry link as reports before signed links wrote it (`&token=`): accepted
 * only for a note whose body still holds exactly this link (issue #24 point 10).
 */
export function legacyRetryQuery(token: string, summaryRelPath: string): string {
  return `/retry?note=${encodeURIComponent(summaryRelPath)}&token=${encodeURIComponent(token)}`;
}

/**
 * What proves which vault a daemon serves without saying where it is (docs/design.md §7,
 * `GET /api/whoami`): a hash of the vault's real path (symbolic links resolved, so two names
 * of one folder are one vault). `doctor` compares it with its own before it calls a held port
 * ours, and needs no token for it: the token goes only to a daemon of this vault.
 */
export async function vaultIdentity(fs: { realpath(file: string): Promise<string> }, root: string): Promise<string> {
  const real = await fs.realpath(root).catch(() => root);
  return createHash('sha256').update(`meeting-assistant vault\0${real}`).digest('hex').slice(0, 32);
}

function tokenDigest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

/** Constant-time comparison that does not leak the token's length either. */
export function tokenMatches(given: string | undefined, token: string): boolean {
  if (!given || !token) return false;
  return timingSafeEqual(tokenDigest(given), tokenDigest(token));
}
