import { causeChain } from '../../log.js';

/**
 * Node's fetch refuses ports the Fetch standard blocks (6000 for X11, 6665–6669 for IRC, 10080
 * and some sixty others) before connecting: `TypeError: fetch failed`, cause `bad port`. It is
 * a configuration error, not a server that is down: waiting for it to answer would wait forever
 * (docs/design.md §2), so the waits let such a run go on and fail with this advice.
 */
export function isBlockedPort(err: unknown): boolean {
  return causeChain(err).some((link) => link.endsWith(': bad port'));
}

export const BLOCKED_PORT_ADVICE =
  "Node's fetch refuses this port (one the Fetch standard blocks, such as 6000, 6665–6669 or 10080): run the model server on another port and change MeetingAssistant.Endpoint.BaseUrl";
