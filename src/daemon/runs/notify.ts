import path from 'node:path';
import type { Settings } from '../../config.js';
import type { Logger } from '../../log.js';
import { type CommandRunner, findOnPath, runCommand } from '../../external-programs.js';
import { escapeHtml } from '../http/html.js';
import type { RunRecord } from './run-history.js';
import { obsidianUrl } from '../http/status-page.js';

/**
 * Desktop notifications (`Notify.OnSuccess`, `Notify.OnFailure`) when a summary is written or
 * a meeting fails. Linux: `notify-send` with an "Open in Obsidian" action; a click on it runs
 * `xdg-open obsidian://…` (a notify-send too old for actions shows the notification without
 * it). macOS: `osascript` (`display notification` cannot open a note on click). Elsewhere,
 * or with neither command on PATH: one log line at start, nothing after. A notification is
 * never waited for and never fails a run.
 */

export interface NotifierOptions {
  settings: Settings['Notify'];
  log: Logger;
  vaultName: string;
  platform?: NodeJS.Platform;
  /** Where a command is on PATH; default: the process's PATH. */
  findCommand?: (name: string) => string | undefined;
  run?: CommandRunner;
}

export interface Notifier {
  /** Tells the person about a finished run when the settings ask for it. */
  runFinished(run: RunRecord): Promise<void>;
}

const APP = 'Meeting Assistant';

function headline(run: RunRecord): string {
  const name = run.title ?? path.basename(run.meeting, '.md');
  return run.status === 'done' ? `Summary ready: ${name}` : `Summary failed: ${name}`;
}

export function createNotifier(options: NotifierOptions): Notifier {
  const { settings, log } = options;
  const off: Notifier = { runFinished: async () => undefined };
  if (!settings.OnSuccess && !settings.OnFailure) return off;
  const platform = options.platform ?? process.platform;
  const find = options.findCommand ?? ((name: string) => findOnPath(name));
  const run = options.run ?? ((cmd: string, args: string[]) => runCommand(cmd, args, { background: true }));
  const command = platform === 'darwin' ? find('osascript') : platform === 'linux' ? find('notify-send') : undefined;
  if (!command) {
    const wanted = platform === 'darwin' ? 'osascript' : platform === 'linux' ? 'notify-send (package libnotify-bin)' : undefined;
    log.info(
      { platform },
      wanted ? `desktop notifications are on, but ${wanted} is not on PATH: none will be shown` : `desktop notifications are not supported on ${platform}: none will be shown`,
    );
    return off;
  }
  const opener = platform === 'linux' ? find('xdg-open') : undefined;
  let actions = true;

  const linux = async (r: RunRecord, url: string | undefined): Promise<void> => {
    const detail = [r.summary ?? r.meeting, r.status === 'failed' ? (r.error ?? 'unknown error') : ''].filter(Boolean).join('\n');
    const base = [`--app-name=${APP}`, `--urgency=${r.status === 'done' ? 'normal' : 'critical'}`];
    // The body may be read as markup: escaped, so a meeting named "R&D <3" shows as written.
    const text = [headline(r), escapeHtml(detail)];
    if (url && opener && actions) {
      const answer = await run(command, [...base, '--action=open=Open in Obsidian', '--wait', ...text]);
      if (answer.code === 0) {
        if (answer.stdout.trim() === 'open') await run(opener, [url]);
        return;
      }
      if (!/option/i.test(answer.stderr)) throw new Error(answer.stderr.trim() || `exit code ${answer.code}`);
      actions = false;
      log.info('this notify-send has no actions: notifications will not open the note on click');
    }
    const answer = await run(command, [...base, ...text]);
    if (answer.code !== 0) throw new Error(answer.stderr.trim() || `exit code ${answer.code}`);
  };

  const mac = async (r: RunRecord): Promise<void> => {
    const detail = r.status === 'failed' ? (r.error ?? 'unknown error') : (r.summary ?? r.meeting);
    // The texts are arguments, never part of the script: no quoting to get wrong.
    const script = ['-e', 'on run argv', '-e', 'display notification (item 2 of argv) with title (item 1 of argv)', '-e', 'end run'];
    const answer = await run(command, [...script, headline(r), detail]);
    if (answer.code !== 0) throw new Error(answer.stderr.trim() || `exit code ${answer.code}`);
  };

  return {
    async runFinished(r) {
      if (r.status === 'done' ? !settings.OnSuccess : !settings.OnFailure) return;
      const url = r.summary ? obsidianUrl(options.vaultName, r.summary) : undefined;
      try {
        await (platform === 'darwin' ? mac(r) : linux(r, url));
      } catch (err) {
        log.warn({ err, command }, `desktop notification not shown: ${(err as Error).message}`);
      }
    },
  };
}
