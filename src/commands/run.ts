import { reportEndpointProblems } from '../agent/model/endpoint-check.js';
import { releaseConfigSchemas } from '../config.js';
import { startDaemon, DaemonStartError, StoppedInStandby } from '../daemon/daemon.js';
import { endpointWaitFromEnv } from '../daemon/runs/endpoint-gate.js';
import { idleReleaseFromEnv } from '../daemon/runs/run-process/host.js';
import { liveNotesFromEnv } from '../daemon/runs/live-notes-lane.js';
import { EXAMPLE_VAULT_DIR, SeedError, isBundledDefaultConfig, seedWorkingVault } from '../example-vault.js';
import { createLoggerFromConfig, flushLogger } from '../log.js';
import { CliError, type CommandDeps, EXIT_FAILED, EXIT_OK, type GlobalOptions, loadCommandConfig, withDefaults } from './common.js';

/** Exit codes of a second signal, which ends the process at once: 128 + the signal's number. */
const IMMEDIATE_EXIT: Record<'SIGINT' | 'SIGTERM', number> = { SIGINT: 130, SIGTERM: 143 };

/**
 * Under `npm start` one Ctrl-C reaches the daemon twice, a few milliseconds apart: from the
 * terminal and forwarded by npm. A SIGINT this soon after the first is that same keypress.
 */
const SAME_CTRL_C_MS = 1000;

/**
 * A stop that always stops (docs/design.md §2, §4): past the grace period and this margin
 * (5 s for aborted runs to end, as the queue allows, and 2 s for the stop's bookkeeping), the
 * process exits whatever is still pending, such as reads stuck in the kernel that hold every
 * thread of libuv's pool, so that no file operation of the stop itself can finish. Then even
 * process.exit() would wait for ever (libuv joins its threads at exit), so the process ends
 * itself by a signal (endBySigterm), after a line on stderr (synchronous for pipes and files).
 */
const STOP_MARGIN_MS = 7000;

/**
 * Ends the process by SIGTERM's default action, which the kernel carries out as SIGKILL's
 * would, no thread joined. Not SIGKILL itself: systemd counts death by SIGKILL a failure
 * (and `Restart=on-failure` would start a daemon a person stopped), death by SIGTERM a
 * clean stop (issue 33). With no listener left, node restores the default action at once.
 */
function endBySigterm(): void {
  process.removeAllListeners('SIGTERM');
  process.kill(process.pid, 'SIGTERM');
}

/**
 * `run`: the daemon in the foreground. The first SIGTERM/SIGINT stops it gracefully (exit 0
 * once running runs finished or the grace period ended); a second one exits at once.
 */
export async function run(opts: GlobalOptions, given: Partial<CommandDeps> = {}): Promise<number> {
  const deps = withDefaults(given);
  const { fs, clock } = deps;
  const config = await loadCommandConfig(opts, deps);
  // The daemon reads no configuration again: the schemas and zod go (config.ts).
  releaseConfigSchemas();
  const { layout } = config;
  if (isBundledDefaultConfig(config.file)) {
    try {
      await seedWorkingVault({ fs, exampleDir: EXAMPLE_VAULT_DIR, vaultDir: layout.root });
    } catch (err) {
      if (err instanceof SeedError) throw new CliError(err.message, EXIT_FAILED);
      throw err;
    }
  }
  for (const folder of Object.values(layout.folders)) {
    try {
      await fs.mkdir(folder, { recursive: true });
    } catch (err) {
      throw new CliError(`cannot create the folder ${folder}: ${(err as Error).message}`, EXIT_FAILED);
    }
  }

  const log = createLoggerFromConfig(config);
  let stop: ((reason: string) => void) | undefined;
  let signalled: { signal: 'SIGINT' | 'SIGTERM'; at: number } | undefined;
  let stopDeadline: NodeJS.Timeout | undefined;
  // A standby (another machine runs the vault) has nothing to finish: a signal ends its wait.
  const standby = new AbortController();
  const onSignal = (signal: 'SIGINT' | 'SIGTERM') => {
    if (signalled) {
      if (signal === 'SIGINT' && signalled.signal === 'SIGINT' && clock().getTime() - signalled.at < SAME_CTRL_C_MS) return;
      log.warn({ signal }, `${signal} again: exiting at once; an unfinished run resumes at the next start`);
      const exit = () => process.exit(IMMEDIATE_EXIT[signal]);
      setTimeout(exit, 500).unref();
      void flushLogger(log).finally(exit);
      return;
    }
    signalled = { signal, at: clock().getTime() };
    stopDeadline = setTimeout(() => {
      const message = `the stop did not finish within Daemon.ShutdownGraceSeconds (${config.settings.Daemon.ShutdownGraceSeconds} s) and ${STOP_MARGIN_MS / 1000} s more; ending the process`;
      log.error({ signal }, message);
      process.stderr.write(`meeting-assistant: ${message}\n`);
      endBySigterm();
    }, config.settings.Daemon.ShutdownGraceSeconds * 1000 + STOP_MARGIN_MS).unref();
    standby.abort();
    // While starting, the stop happens as soon as the daemon is up.
    stop?.(signal);
  };
  const onSigint = () => onSignal('SIGINT');
  const onSigterm = () => onSignal('SIGTERM');
  process.on('SIGINT', onSigint);
  process.on('SIGTERM', onSigterm);
  try {
    // Again as a standby when another machine's claim went first (docs/design.md §2, two machines).
    for (;;) {
      let daemon;
      try {
        daemon = await startDaemon(config, { log, fs, clock, signal: standby.signal, endpointWait: endpointWaitFromEnv(deps.env), caches: idleReleaseFromEnv(deps.env), liveNotes: liveNotesFromEnv(deps.env), runProcess: true });
      } catch (err) {
        if (err instanceof StoppedInStandby) {
          log.info({ signal: signalled?.signal }, err.message);
          break;
        }
        if (err instanceof DaemonStartError) {
          log.fatal({ err }, err.message);
          await flushLogger(log);
          throw new CliError(err.message, err.exitCode);
        }
        throw err;
      }
      // Once, after "ready" and without waiting for it: a person learns at once that the endpoint
      // is down or lacks the model, instead of from the first meeting's failure report.
      const endpointCheck = new AbortController();
      void reportEndpointProblems(config, log, { signal: endpointCheck.signal });
      stop = (reason) => {
        endpointCheck.abort();
        void daemon.stop(reason);
      };
      // A signal that arrived while starting: stop now.
      if (signalled) stop('signal during start');
      await daemon.done;
      endpointCheck.abort();
      stop = undefined;
      if (signalled || !daemon.yielded()) break;
    }
    await flushLogger(log);
    // Nothing of ours is left running; a stray handle (a library's keep-alive) must not keep
    // a stopped service alive.
    setTimeout(() => process.exit(process.exitCode ?? EXIT_OK), 3000).unref();
    return EXIT_OK;
  } finally {
    clearTimeout(stopDeadline);
    process.off('SIGINT', onSigint);
    process.off('SIGTERM', onSigterm);
  }
}
