import { MeetingAssistantError } from '../errors.js';
/**
 * Filling in the tracked service templates (systemd/meeting-assistant.service,
 * launchd/com.meeting-assistant.plist) for one machine. Pure string work: every value is
 * escaped for the place it lands in, so a path with spaces, quotes, `%`, `$` or `&` still
 * names the same file once systemd or launchd has parsed it.
 */

export interface ServiceParams {
  /** Absolute path of the node binary (`process.execPath`). */
  node: string;
  /** Absolute path of bin/meeting-assistant.js of this install. */
  cli: string;
  /** Absolute path of the config file. */
  config: string;
  /** Absolute path of the vault. */
  vault: string;
  /** The service's working directory (the vault). */
  workdir: string;
  /** More folders the daemon writes besides the vault (the `Logging.File` folder). */
  extraWritable: string[];
  /** How long the service manager waits after SIGTERM before it kills. */
  stopTimeoutSeconds: number;
}

export interface LaunchdParams extends ServiceParams {
  /** `PATH` for the agent: the node binary's folder first. */
  path: string;
  /** ~/Library/Logs/meeting-assistant, absolute. */
  logDir: string;
}

/** A service file that cannot be written from this template or with these paths. */
export class ServiceFileError extends MeetingAssistantError {
  constructor(message: string) {
    super(message, true);
  }
}

/** systemd and launchd files are line-based: a path with a line break cannot be written safely. */
function assertSingleLine(name: string, value: string): void {
  if (/[\r\n\0]/.test(value)) throw new ServiceFileError(`${name} contains a line break or NUL byte: ${JSON.stringify(value)}`);
}

/**
 * One argument of `ExecStart=`: double-quoted, with `\` and `"` backslash-escaped, `%`
 * doubled (specifiers) and `$` doubled (environment variable expansion).
 */
export function systemdExecArg(value: string): string {
  const escaped = value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/%/g, '%%').replace(/\$/g, '$$$$');
  return `"${escaped}"`;
}

/**
 * One item of a space-separated path list (`ReadWritePaths=`): systemd splits on
 * whitespace unless quoted; inside quotes `\` escapes; `%` is a specifier.
 */
export function systemdPathListItem(value: string): string {
  return `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/%/g, '%%')}"`;
}

/** A setting that takes the whole rest of the line as one path (`WorkingDirectory=`). */
export function systemdPathValue(value: string): string {
  if (!value.startsWith('/')) throw new ServiceFileError(`not an absolute path: ${value}`);
  if (value !== value.trim()) throw new ServiceFileError(`a path with leading or trailing spaces cannot be a systemd setting: ${JSON.stringify(value)}`);
  return value.replace(/%/g, '%%');
}

export function xmlEscape(value: string): string {
  return value
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

function fill(template: string, values: Record<string, string>): string {
  const out = template.replace(/@([A-Z_]+)@/g, (whole, name: string) => {
    const value = values[name];
    if (value === undefined) throw new ServiceFileError(`unknown placeholder ${whole} in the service template`);
    return value;
  });
  for (const name of Object.keys(values)) {
    // A template without one of our placeholders is not the template we ship.
    if (!template.includes(`@${name}@`)) throw new ServiceFileError(`the service template lacks @${name}@`);
  }
  return out;
}

function checkParams(params: ServiceParams): void {
  for (const [name, value] of [
    ['node', params.node],
    ['cli', params.cli],
    ['config', params.config],
    ['vault', params.vault],
    ['workdir', params.workdir],
    ...params.extraWritable.map((p) => ['writable folder', p] as const),
  ] as const) {
    assertSingleLine(name, value);
    if (!value.startsWith('/')) throw new ServiceFileError(`${name} is not an absolute path: ${value}`);
  }
}

export function renderSystemdUnit(template: string, params: ServiceParams): string {
  checkParams(params);
  const extra = params.extraWritable.filter((p) => p !== params.vault);
  return fill(template, {
    NODE: systemdExecArg(params.node),
    CLI: systemdExecArg(params.cli),
    CONFIG: systemdExecArg(params.config),
    WORKDIR: systemdPathValue(params.workdir),
    STOP_TIMEOUT: String(Math.ceil(params.stopTimeoutSeconds)),
    VAULT: systemdPathListItem(params.vault),
    EXTRA_READ_WRITE_PATHS:
      extra.length > 0
        ? `# The Logging.File folder.\nReadWritePaths=${extra.map(systemdPathListItem).join(' ')}`
        : '# Logging.File is not set: the log goes to the journal.',
  });
}

/** `<key>ExitTimeOut</key>` followed by its `<integer>`: a real number in the shipped file, so it stays a valid plist. */
const EXIT_TIMEOUT = /(<key>ExitTimeOut<\/key>\s*<integer>)\d+(<\/integer>)/;

export function renderLaunchdPlist(template: string, params: LaunchdParams): string {
  checkParams(params);
  assertSingleLine('PATH', params.path);
  assertSingleLine('log folder', params.logDir);
  if (!EXIT_TIMEOUT.test(template)) throw new ServiceFileError('the service template lacks <key>ExitTimeOut</key> with an <integer>');
  const filled = fill(template, {
    NODE: xmlEscape(params.node),
    CLI: xmlEscape(params.cli),
    CONFIG: xmlEscape(params.config),
    WORKDIR: xmlEscape(params.workdir),
    PATH: xmlEscape(params.path),
    LOGDIR: xmlEscape(params.logDir),
  });
  return filled.replace(EXIT_TIMEOUT, `$1${Math.ceil(params.stopTimeoutSeconds)}$2`);
}
