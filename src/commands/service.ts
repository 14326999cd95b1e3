import type { AppConfig } from '../config.js';
import { installInstructions, performInstall, performUninstall, planInstall, planUninstall } from '../service/install.js';
import { cliPath, type HomeDirs, type ServicePlatform } from '../service/paths.js';
import { ServiceFileError } from '../service/render.js';
import { type CommandRunner, commandLine, processRunner, type ServiceCall, serviceControl } from '../service/control.js';
import { CliError, type CommandDeps, EXIT_OK, EXIT_USAGE, type GlobalOptions, homeOf, loadCommandConfig, withDefaults } from './common.js';

/** The options of `install-service` and `uninstall-service` (the command line is in src/cli.ts). */
export interface ServiceOptions extends GlobalOptions {
  user?: boolean;
  dryRun?: boolean;
  platform?: 'linux' | 'darwin';
}

/** What the service commands take from the process; tests pass a temp HOME and memory output. */
export interface ServiceCommandDeps extends CommandDeps {
  /** `process.platform` when `--platform` is not given. */
  platform: NodeJS.Platform;
  /** `process.execPath`. */
  execPath: string;
  /** bin/meeting-assistant.js of this install. */
  cli: string;
  /** Runs systemctl / launchctl (uninstall-service); tests pass a recorder. */
  runCommand: CommandRunner;
  /** The user's id, for launchd's `gui/<uid>` domain. */
  uid: number | undefined;
}

function serviceDeps(given: Partial<ServiceCommandDeps>): ServiceCommandDeps {
  return withDefaults<ServiceCommandDeps>(given, {
    platform: process.platform,
    execPath: process.execPath,
    cli: cliPath(),
    runCommand: processRunner,
    uid: process.getuid?.(),
  });
}

function resolvePlatform(opts: ServiceOptions, deps: ServiceCommandDeps): ServicePlatform {
  const platform = opts.platform ?? deps.platform;
  if (platform === 'linux' || platform === 'darwin') return platform;
  throw new CliError(
    `install-service supports Linux (systemd) and macOS (launchd), not ${platform}; run "meeting-assistant run --config <file>" under your own service manager`,
    EXIT_USAGE,
  );
}

function homeDirs(env: NodeJS.ProcessEnv): HomeDirs {
  return { home: homeOf(env), xdgConfigHome: env.XDG_CONFIG_HOME || undefined };
}

/** The service runs with a config file: it must exist and be valid now, not at first start. */
async function serviceConfig(opts: GlobalOptions, deps: ServiceCommandDeps): Promise<AppConfig> {
  // A missing vault folder is created by the install (planInstall), not refused.
  const config = await loadCommandConfig(opts, deps, { vault: false });
  if (!config.file) {
    throw new CliError(
      'no config file found (./config.json, $XDG_CONFIG_HOME/meeting-assistant/config.json): pass --config <file>',
      EXIT_USAGE,
    );
  }
  return config;
}

export async function installService(opts: ServiceOptions, given: Partial<ServiceCommandDeps> = {}): Promise<number> {
  const deps = serviceDeps(given);
  const { io, fs } = deps;
  const platform = resolvePlatform(opts, deps);
  const dirs = homeDirs(deps.env);
  const config = await serviceConfig(opts, deps);
  let plan;
  try {
    plan = await planInstall(
      config,
      { ...dirs, platform, node: deps.execPath, cli: deps.cli },
      fs,
    );
  } catch (err) {
    if (err instanceof ServiceFileError) throw new CliError(err.message, EXIT_USAGE);
    throw err;
  }

  if (opts.dryRun) {
    // The file alone on stdout, so `--dry-run > file` works; the rest on stderr.
    io.out(plan.content.replace(/\n$/, ''));
    io.err(`Dry run: would write ${plan.path}`);
    for (const folder of plan.folders) io.err(`Dry run: would create the folder ${folder}`);
    for (const warning of plan.warnings) io.err(`Warning: ${warning}`);
    for (const line of installInstructions(plan, config, dirs.home)) io.err(line);
    return EXIT_OK;
  }
  await performInstall(plan, fs);
  io.out(`Wrote ${plan.path}`);
  io.out(`  config: ${config.file}`);
  io.out(`  vault:  ${config.layout.root}`);
  for (const warning of plan.warnings) io.out(`Warning: ${warning}`);
  for (const line of installInstructions(plan, config, dirs.home)) io.out(line);
  return EXIT_OK;
}

export async function uninstallService(opts: ServiceOptions, given: Partial<ServiceCommandDeps> = {}): Promise<number> {
  const deps = serviceDeps(given);
  const { io, fs } = deps;
  const platform = resolvePlatform(opts, deps);
  const plan = await planUninstall({ ...homeDirs(deps.env), platform }, fs);
  if (!plan.exists && plan.links.length === 0) {
    io.out(`No service installed: ${plan.path} does not exist.`);
    return EXIT_OK;
  }
  const control = serviceControl(platform, deps.uid);
  if (opts.dryRun) {
    for (const call of control.stop) io.out(`Dry run: would run ${commandLine(call)}`);
    for (const file of [...plan.links, ...(plan.exists ? [plan.path] : [])]) io.out(`Dry run: would remove ${file}`);
    for (const call of control.after) io.out(`Dry run: would run ${commandLine(call)}`);
    return EXIT_OK;
  }
  // Stopped and disabled before the file goes: the service manager still knows the unit then.
  const stopped = await runCalls(control.stop, deps);
  for (const file of await performUninstall(plan, fs)) io.out(`Removed ${file}`);
  await runCalls(control.after, deps);
  if (!stopped) io.out('The service may still run: stop it with the line above once the service manager answers.');
  return EXIT_OK;
}

/** Runs the calls in order, saying what ran; false when one that matters failed. */
async function runCalls(calls: ServiceCall[], deps: ServiceCommandDeps): Promise<boolean> {
  let allRan = true;
  for (const call of calls) {
    const result = await deps.runCommand(call.argv);
    if (result.ok) deps.io.out(`Ran ${commandLine(call)}`);
    else if (!call.quiet) {
      allRan = false;
      deps.io.out(`Could not run ${commandLine(call)}${result.output ? `: ${result.output}` : ''}`);
    }
  }
  return allRan;
}
