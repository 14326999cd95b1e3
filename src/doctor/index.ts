import { type AppConfig, ConfigError } from '../config.js';
import { check, checkEndpoint, type DoctorCheck } from '../agent/model/endpoint-check.js';
import { checkCalendars } from './calendar.js';
import { checkConfig } from './config.js';
import { checkContextLength } from './window.js';
import { checkHttpPort } from './port.js';
import { checkToolCalling } from './tool-calling.js';
import type { DoctorDeps, DoctorReport } from './types.js';
import { checkVault } from './vault.js';

/**
 * `meeting-assistant doctor` without the command line: every check a person needs when the
 * service misbehaves, each with what was found and how to fix it. One module per family of
 * checks; the endpoint, key and model checks are agent/model/endpoint-check.ts, which the daemon
 * also runs at start. Printing is the command's job (src/commands/doctor.ts).
 */

export type { CheckStatus, DoctorCheck } from '../agent/model/endpoint-check.js';
export type { DoctorDeps, DoctorReport, PortState } from './types.js';
export { listenCheck } from './port.js';

/** Names of the checks after `config`, reported as skipped when the config does not load. */
const DEPENDENT_CHECKS = ['vault and folders', 'endpoint', 'api key', 'model', 'context length', 'tool calling', 'http port', 'calendar'];

export async function runDoctor(config: AppConfig | ConfigError, deps: DoctorDeps): Promise<DoctorReport> {
  const checks: DoctorCheck[] = [checkConfig(config)];
  if (config instanceof ConfigError) {
    for (const name of DEPENDENT_CHECKS) checks.push(check(name, 'skip', 'not checked: the config did not load'));
    return { checks, ok: false };
  }
  checks.push(...(await checkVault(config, deps.fs)));
  const endpoint = await checkEndpoint(config, deps);
  checks.push(...endpoint.checks);
  checks.push(await checkContextLength(config, deps, endpoint.modelListed));
  checks.push(await checkToolCalling(config, endpoint.modelListed, deps.modelClient));
  checks.push(await checkHttpPort(config, deps));
  checks.push(...(await checkCalendars(config, deps)));
  return { checks, ok: checks.every((c) => c.ok) };
}
