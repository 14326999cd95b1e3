import { type AppConfig, ConfigError } from '../config.js';
import { type DoctorCheck, type DoctorDeps, type DoctorReport, runDoctor } from '../doctor/index.js';
import { type CommandDeps, EXIT_FAILED, EXIT_OK, EXIT_USAGE, type GlobalOptions, readCommandConfig, withDefaults } from './common.js';

/** The checks' own seams (the endpoint's fetch, the port probe); the disk and time are the command's. */
export interface DoctorCommandDeps extends CommandDeps, Omit<DoctorDeps, 'fs' | 'clock'> {}

/**
 * Every check, each on its own line with what was found and how to fix it. Exit 0 only when
 * nothing failed; 2 when the config itself is wrong, 1 for any other failure.
 */
export async function doctor(opts: GlobalOptions, given: Partial<DoctorCommandDeps> = {}): Promise<number> {
  const deps = withDefaults<DoctorCommandDeps>(given, {});
  // A bad config is not thrown: it is the first check of the report, and the rest are skipped.
  const config: AppConfig | ConfigError = await readCommandConfig(opts, deps).catch((err: unknown) => {
    if (err instanceof ConfigError) return err;
    throw err;
  });
  const { io, clock, ...checkDeps } = deps;
  const report = await runDoctor(config, { ...checkDeps, clock });
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
