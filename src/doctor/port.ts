import net from 'node:net';
import type { AppConfig } from '../config.js';
import { check, type DoctorCheck } from '../agent/model/endpoint-check.js';
import { localBaseUrl } from '../vault/files/state.js';
import type { DoctorDeps, PortState } from './types.js';
import { errorText } from './error-text.js';

/** The HTTP port: free, held by a running daemon, or taken by another program. */

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
  const url = `${localBaseUrl(http)}/healthz`;
  try {
    const response = await (deps.fetch ?? fetch)(url, { signal: AbortSignal.timeout(Math.min(deps.timeoutMs ?? 5000, 2000)) });
    const body = (await response.text()).trim();
    if (response.status === 200 && body === 'ok') {
      return check(name, 'pass', `${where} is held by a running meeting-assistant daemon (GET /healthz answered ok)`);
    }
  } catch {
    // Not an HTTP server, or not answering: some other program.
  }
  return check(
    name,
    'fail',
    `${where} is in use by another program`,
    `Stop that program (find it with: ss -ltnp 'sport = :${http.Port}' or lsof -i :${http.Port}) or set MeetingAssistant.Http.Port to a free port. Retry links in existing failure reports name the old port.`,
  );
}
