import os from 'node:os';
import { type AppConfig, ConfigError, loadConfig } from '../config.js';
import { type DoctorCheck, type DoctorDeps, type DoctorReport, runDoctor } from '../doctor/index.js';
import { type Fs, nodeFs } from '../vault/fs.js';
import { EXIT_FAILED, EXIT_OK, EXIT_USAGE, type GlobalOptions, type Io, processIo } from './common.js';

export interface DoctorCommandDeps extends Partial<Omit<DoctorDeps, 'fs'>> {
  io?: Io;
  env?: NodeJS.ProcessEnv;
  fs?: Fs;
  cwd?: string;
}

/**
 * Every check, each on its own line with what was found and how to fix it. Exit 0 only when
 * nothing failed; 2 when the config itself is wrong, 1 for any other failure.
 */
export async function doctor(opts: GlobalOptions, deps: DoctorCommandDeps = {}): Promise<number> {
  const io = deps.io ?? processIo;
  const env = deps.env ?? process.env;
  const fs = deps.fs ?? nodeFs;
  let config: AppConfig | ConfigError;
  try {
    config = await loadConfig({ configPath: opts.config, fs, env, cwd: deps.cwd, homedir: env.HOME || os.homedir() });
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    config = err;
  }
  const report = await runDoctor(config, { ...deps, fs });
  for (const line of formatReport(report)) io.out(line);
  if (report.ok) return EXIT_OK;
  return config instanceof ConfigError ? EXIT_USAGE : EXIT_FAILED;
}

const MARK: Record<DoctorCheck['status'], string> = { pass: 'ok  ', warn: 'WARN', fail: 'FAIL', skip: 'skip' };

export function formatReport(report: DoctorReport): string[] {
  const width = Math.max(...report.checks.map((c) => c.name.length));
  const indent = ' '.repeat(width + 9);
  const lines: string[] = [];
  for (const c of report.checks) {
    const [first, ...rest] = c.detail.split('\n');
    lines.push(`[${MARK[c.status]}] ${c.name.padEnd(width)}  ${first}`);
    for (const line of rest) lines.push(`${indent}${line}`);
    if (c.fix && c.status !== 'pass') lines.push(`${indent}fix: ${c.fix}`);
  }
  const failed = report.checks.filter((c) => c.status === 'fail').length;
  const warned = report.checks.filter((c) => c.status === 'warn').length;
  lines.push('');
  if (failed > 0) {
    lines.push(`${failed} check${failed === 1 ? '' : 's'} failed${warned > 0 ? `, ${warned} warning${warned === 1 ? '' : 's'}` : ''}.`);
  } else {
    lines.push(`All checks passed${warned > 0 ? ` (${warned} warning${warned === 1 ? '' : 's'})` : ''}.`);
  }
  return lines;
}
