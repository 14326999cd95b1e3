import { randomBytes, timingSafeEqual } from 'node:crypto';
import { MeetingAssistantError } from '../errors.js';
import { healthzProof, PROOF_HEADER } from '../vault/files/state.js';

/**
 * Before a command sends the token to a daemon's address, the daemon proves it holds the token
 * (docs/design.md §2 "Where a command finds its daemon"; issue #43 point 2). The address comes
 * from this machine's runtime record or the configuration, never from the vault; yet it may be
 * held by another program: a daemon killed (SIGKILL, the OOM killer) leaves its record and
 * frees its port, its pid is reused, and any local user may listen there and answer `/healthz`
 * with `ok`; with no daemon, the configured port is anyone's. So the command sends a random
 * challenge (`GET /healthz?challenge=`), and only an answer keyed with the token
 * (state.ts healthzProof) lets the token follow.
 */

/** 'proven': the daemon holds the token; 'refused': something answers without the proof; 'silent': nothing answers. */
export type DaemonProof = 'proven' | 'refused' | 'silent';

const PROOF_TIMEOUT_MS = 2000;

export async function daemonProof(baseUrl: string, token: string, timeoutMs = PROOF_TIMEOUT_MS): Promise<DaemonProof> {
  const challenge = randomBytes(32).toString('base64url');
  let res: Response;
  try {
    res = await fetch(`${baseUrl}/healthz?challenge=${challenge}`, { signal: AbortSignal.timeout(timeoutMs), redirect: 'manual' });
    await res.body?.cancel().catch(() => undefined);
  } catch {
    return 'silent';
  }
  const given = Buffer.from(res.headers.get(PROOF_HEADER) ?? '');
  const wanted = Buffer.from(healthzProof(token, challenge));
  return res.ok && given.length === wanted.length && timingSafeEqual(given, wanted) ? 'proven' : 'refused';
}

/** What answers at an address is no daemon of this vault: the token was not sent there. */
export class NotOurDaemonError extends MeetingAssistantError {
  constructor(readonly baseUrl: string) {
    super(
      `${baseUrl} is not this vault's daemon: what answers there cannot prove it holds the HTTP token (another program on that port?), so the token was not sent. ` +
        'Start the daemon (meeting-assistant run, or the service), or free that port',
      true,
    );
  }
}
