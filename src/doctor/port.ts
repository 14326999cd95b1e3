import net from 'node:net';
import type { AppConfig } from '../config.js';
import { check, type DoctorCheck } from '../agent/model/endpoint-check.js';
import { localBaseUrl, vaultIdentity } from '../vault/files/state.js';
import type { DoctorDeps, PortState } from './types.js';
import { errorText } from './error-text.js';

/** The HTTP port: free, held by this vault's running daemon, or taken by another program or vault. */

export function listenCheck(host: string, port: number): Promise<PortState> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', (err: NodeJS.ErrnoException) => {
      resolve(err.code === 'EADDRINUSE' ? { state: 'in-use' } : { state: 'error', message: errorText(err) });
    });
    server.listen({ host, port, exclusive: true }, () => {
      server.close(() => resolve({ state: 'free' }));
    });
  });
}

export async function checkHttpPort(config: AppConfig, deps: DoctorDeps): Promise<DoctorCheck> {
  const name = 'http port';
  const http = config.settings.Http;
  if (!http.Enabled) return check(name, 'skip', 'Http.Enabled is false: no HTTP API, retry links in failure reports will not work');
  const where = `${http.Host}:${http.Port}`;
  const state = await (deps.netCheck ?? listenCheck)(http.Host, http.Port);
  if (state.state === 'free') return check(name, 'pass', `${where} is free`);
  if (state.state === 'error') {
    return check(
      name,
      'fail',
      `cannot listen on ${where}: ${state.message}`,
      `Set MeetingAssistant.Http.Host to an address of this machine (127.0.0.1) and Http.Port to a free port above 1023.`,
    );
  }
  // A daemon on this port is ours only when it serves this vault: another vault's daemon
  // holds the port as firmly as any program, and `run` would stop on it (docs/design.md §7).
  const held = await askWhoami(localBaseUrl(http), deps);
  if (held.kind === 'daemon') {
    if (held.vault === (await vaultIdentity(deps.fs, config.layout.root))) {
      return check(name, 'pass', `${where} is held by this vault's running meeting-assistant daemon`);
    }
    return check(
      name,
      'fail',
      `${where} is held by a meeting-assistant daemon of another vault${held.vault ? '' : ' (or of a version that does not say which)'}: run would stop with "the port is already in use"`,
      `Give this vault's config its own port (MeetingAssistant.Http.Port, e.g. ${http.Port + 1}), or stop that daemon (find it with: ss -ltnp 'sport = :${http.Port}' or lsof -i :${http.Port}).`,
    );
  }
  return check(
    name,
    'fail',
    `${where} is in use by another program`,
    `Stop that program (find it with: ss -ltnp 'sport = :${http.Port}' or lsof -i :${http.Port}) or set MeetingAssistant.Http.Port to a free port. Retry links in existing failure reports name the old port.`,
  );
}

type Whoami = { kind: 'daemon'; vault: string | undefined } | { kind: 'other' };

/**
 * `GET /api/whoami`, unauthenticated: this vault's token goes to no daemon before it is known
 * to be ours. A daemon from before that route still answers `GET /healthz`: a daemon, of a
 * vault it does not say.
 */
async function askWhoami(base: string, deps: DoctorDeps): Promise<Whoami> {
  const get = async (route: string) => (deps.fetch ?? fetch)(`${base}${route}`, { signal: AbortSignal.timeout(Math.min(deps.timeoutMs ?? 5000, 2000)) });
  try {
    const response = await get('/api/whoami');
    if (response.status === 200) {
      const body = (await response.json()) as { service?: unknown; vault?: unknown } | null;
      if (body?.service === 'meeting-assistant') return { kind: 'daemon', vault: typeof body.vault === 'string' ? body.vault : undefined };
    }
    const health = await get('/healthz');
    if (health.status === 200 && (await health.text()).trim() === 'ok') return { kind: 'daemon', vault: undefined };
  } catch {
    // Not an HTTP server, not JSON, or not answering: some other program.
  }
  return { kind: 'other' };
}
