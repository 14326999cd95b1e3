import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Settings } from '../config.js';
import type { Vault } from '../vault/vault.js';
import { readTextIfExists, writeFileAtomic } from '../vault/fs.js';

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

/** `http://host:port` of the daemon as this machine reaches it (a wildcard address means loopback). */
export function localBaseUrl(http: Settings['Http']): string {
  const host = http.Host === '0.0.0.0' || http.Host === '::' ? '127.0.0.1' : http.Host;
  return `http://${host.includes(':') ? `[${host}]` : host}:${http.Port}`;
}

/** The clickable retry link of a failure report (DESIGN section 1). */
export function retryUrl(http: Settings['Http'], token: string, summaryRelPath: string): string {
  return `${localBaseUrl(http)}/retry?note=${encodeURIComponent(summaryRelPath)}&token=${encodeURIComponent(token)}`;
}

/** The status page's address that signs the browser in (DESIGN section 6, `open`). */
export function statusPageUrl(http: Settings['Http'], token: string): string {
  return `${localBaseUrl(http)}/?token=${encodeURIComponent(token)}`;
}
