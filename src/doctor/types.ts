import type { Clock } from '../clock.js';
import type { DoctorCheck } from '../agent/model/endpoint-check.js';
import type { Fs } from '../vault/files/fs.js';
import type { ModelClient } from '../agent/types.js';

export interface DoctorReport {
  checks: DoctorCheck[];
  /** Every check passed or was only a warning or skipped. */
  ok: boolean;
}

export type PortState = { state: 'free' } | { state: 'in-use' } | { state: 'error'; message: string };

export interface DoctorDeps {
  fs: Fs;
  fetch?: typeof fetch;
  clock?: Clock;
  /** Can the daemon listen on host:port? Default: try it. */
  netCheck?: (host: string, port: number) => Promise<PortState>;
  /** For the tool-calling check; default the configured endpoint's client. */
  modelClient?: ModelClient;
  /** Per HTTP request; default 5 s. */
  timeoutMs?: number;
}
