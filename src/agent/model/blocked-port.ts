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

/** The ports the Fetch standard blocks ("bad ports"), as node's fetch refuses them. */
const BAD_PORTS = new Set([
  1, 7, 9, 11, 13, 15, 17, 19, 20, 21, 22, 23, 25, 37, 42, 43, 53, 69, 77, 79, 87, 95, 101, 102, 103, 104, 109, 110, 111, 113, 115,
  117, 119, 123, 135, 137, 139, 143, 161, 179, 389, 427, 465, 512, 513, 514, 515, 526, 530, 531, 532, 540, 548, 554, 556, 563, 587,
  601, 636, 989, 990, 993, 995, 1719, 1720, 1723, 2049, 3659, 4045, 4190, 5060, 5061, 6000, 6566, 6665, 6666, 6667, 6668, 6669, 6679,
  6697, 10080,
]);

/** A port node's fetch refuses (http-get.ts refuses it as well, so both clients fail alike). */
export function isFetchBlockedPort(port: number): boolean {
  return BAD_PORTS.has(port);
}

export const BLOCKED_PORT_ADVICE =
  "Node's fetch refuses this port (one the Fetch standard blocks, such as 6000, 6665–6669 or 10080): run the model server on another port and change MeetingAssistant.Endpoint.BaseUrl";
