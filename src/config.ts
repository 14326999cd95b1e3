import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import cron from 'node-cron';
import type { z as Zod } from 'zod';
import { closest, isTimeZone, jsonSyntaxProblem, regexProblem, SECTION, sectionProblem } from './config-hints.js';
import { MeetingAssistantError } from './errors.js';
import { unloadPackage } from './loaded-packages.js';
import { DEFAULT_MAX_OUTPUT_TOKENS, defaultMaxOutputTokens } from './window-defaults.js';

/**
 * Configuration: one JSON file with a `MeetingAssistant` section (docs/design.md §5), keys
 * named as in the original .NET specification so an `appsettings.json` section carries over,
 * and .NET-style environment overrides (`MeetingAssistant__Agent__MaxTurns=80`).
 */

/** The schemas, built with zod as `configSchemas` loads it. */
function buildSchemas(z: typeof Zod) {
  const positive = () => z.number().positive();
  const count = () => z.number().int().min(1);
  const port = () => z.number().int().min(1).max(65535);

  const section = <T extends Zod.ZodRawShape>(shape: T) => z.strictObject(shape).prefault({} as never);

  const FoldersSchema = section({
    Meetings: z.string().min(1).default('Meetings'),
    Transcripts: z.string().min(1).default('Meetings/Transcripts'),
    Summaries: z.string().min(1).default('Meetings/Summaries'),
    Context: z.string().min(1).default('Meetings/Context'),
    Projects: z.string().min(1).default('Projects'),
    Identities: z.string().min(1).default('Meetings/Speakers'),
    Templates: z.string().min(1).default('Templates'),
    // Imports (docs/design.md §9): files dropped here become meetings; their originals are kept in Sources.
    Inbox: z.string().min(1).default('Meetings/Inbox'),
    Sources: z.string().min(1).default('Meetings/Sources'),
  });

  const SettingsSchema = z
    .strictObject({
      VaultPath: z.string().min(1).default('./vault'),
      Folders: FoldersSchema,
      Files: section({
        Glossary: z.string().min(1).default('Meetings/Glossary.md'),
        Dictionary: z.string().min(1).default('Meetings/Dictionary.md'),
      }),
      Endpoint: section({
        BaseUrl: z.url({ protocol: /^https?$/ }).default('http://localhost:11434/v1'),
        Model: z.string().min(1).default('qwen3:8b'),
        ApiKey: z.string().default(''),
        ApiKeyEnvironmentVariable: z.string().default('OPENAI_API_KEY'),
        Api: z.enum(['chat-completions', 'responses']).default('chat-completions'),
        TimeoutSeconds: positive().default(300),
      }),
      Reconnect: section({
        Attempts: z.number().int().min(0).default(3),
        DelaySeconds: z.number().min(0).default(5),
      }),
      ContextWindow: section({
        Tokens: count().default(32768),
        MaxOutputTokens: count().default(DEFAULT_MAX_OUTPUT_TOKENS),
        Compaction: section({
          Enabled: z.boolean().default(true),
          Threshold: z.number().gt(0).lt(1).default(0.2),
          CompactPath: z.string().default('/responses/compact'),
        }),
      }),
      Agent: section({
        InitialPrompt: z.string().default(''),
        MaxTurns: count().default(60),
        SearchMaxResults: count().default(200),
        SearchTimeoutSeconds: positive().default(5),
        // An extension of the design's keys: the search's in-memory text cache (0 turns it off).
        SearchCacheMegabytes: z.number().min(0).default(256),
        // The summary's shape (docs/summaries.md): a vault path or note name, empty = built-in.
        DefaultTemplate: z.string().default(''),
        // A language name or code (`de`, `German`, `pt-BR`); empty = the transcript's own language.
        Language: z.string().default(''),
        TaskFormat: z.enum(['tasks', 'dataview', 'plain']).default('tasks'),
        // docs/design.md §4: which projects write_projectfile may write.
        WritableProjects: z.enum(['meeting', 'all']).default('meeting'),
        MaxFileBytes: count().default(20971520),
      }),
      Daemon: section({
        TriggerState: z.string().min(1).default('finished'),
        MaxConcurrentSummaries: count().default(1),
        // Checked here so that `doctor` and every command refuse it as `run` would.
        ReconcileSchedule: z
          .string()
          .refine((v) => cron.validate(v), 'not a valid cron expression (five fields, for example "*/5 * * * *")')
          .default('*/5 * * * *'),
        ShutdownGraceSeconds: positive().default(30),
        // docs/design.md §3 step 9: notes of a long transcript's parts made while it is written.
        LiveNotes: z.boolean().default(true),
        // Extensions of the design's keys (docs/design.md §2, two machines): the claim's heartbeat
        // and this machine's name in it (empty: the host's name).
        HeartbeatSeconds: positive().max(3600).default(30),
        MachineName: z.string().default(''),
      }),
      Http: section({
        Enabled: z.boolean().default(true),
        Host: z.string().min(1).default('127.0.0.1'),
        Port: port().default(4777),
        Token: z.string().default(''),
      }),
      Logging: section({
        Level: z.enum(['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent']).default('info'),
        // pino-roll refuses these in its worker thread, where the error would come late and unclear.
        File: z
          .string()
          .refine((v) => !/[<>:"|?*]/.test(v), 'a log file path may not contain any of < > : " | ? *')
          .default(''),
        // null (the default): readable lines when stdout is a terminal, JSON otherwise.
        Pretty: z.boolean().nullable().default(null),
        // Extensions of the design's keys: rotation of `File` (pino-roll).
        RotateSize: z.string().regex(/^\d+[kmg]?$/i, 'a size like "10m", "500k" or "1g"').default('10m'),
        RotateFiles: count().default(5),
      }),
      Notify: section({
        OnSuccess: z.boolean().default(false),
        OnFailure: z.boolean().default(false),
      }),
      Import: section({
        SettleSeconds: z.number().min(0).default(5),
        // argv: the program, then its arguments with {input}, {output_dir}, {output_base}; empty: none.
        TranscribeCommand: z.array(z.string().min(1)).default([]),
        TranscribeTimeoutSeconds: positive().default(7200),
      }),
      // docs/design.md §11: questions at once (`ask`, POST /api/ask); never a summary run's slot.
      Ask: section({
        MaxConcurrent: count().default(1),
      }),
      // docs/design.md §12: read-only calendars (subscription URLs, .ics files, vdirsyncer folders).
      Calendar: section({
        Sources: z
          .array(
            z.union([
              z.strictObject({ Name: z.string().min(1), Url: z.url({ protocol: /^(https?|webcal)$/ }) }),
              z.strictObject({ Name: z.string().min(1), Path: z.string().min(1) }),
            ]),
          )
          .default([]),
        RefreshMinutes: positive().default(15),
        // An IANA zone for floating times and all-day dates; empty: the system's.
        TimeZone: z.string().refine((v) => v === '' || isTimeZone(v), 'not a time zone this machine knows: an IANA name such as "Europe/Berlin", or "" for the system\'s').default(''),
        Me: z.array(z.string().min(1)).default([]),
        // Each expression compiled as the matching does (meeting-event/series-projects.ts).
        Projects: z.record(z.string(), z.string().refine((v) => !regexProblem(v), { error: (i) => `not a valid regular expression: ${regexProblem(String(i.input))}` })).default({}),
        NotesAhead: z.enum(['projects', 'all', 'none']).default('projects'),
        NotesAheadMinutes: z.number().min(0).default(10),
      }),
    });

  const FileSchema = z.strictObject({ MeetingAssistant: SettingsSchema.prefault({} as never) });
  return { SettingsSchema, FileSchema };
}

type Schemas = ReturnType<typeof buildSchemas>;

// zod and the schemas are loaded for reading a configuration and let go once the daemon has its
// own (releaseConfigSchemas): some 4.7 MB of heap a daemon that reads no configuration again does
// not keep (docs/design.md §8). A memo of constants, not a cache: rebuilt the same when needed.
const requireCjs = createRequire(import.meta.url);
let schemas: Schemas | undefined;
function configSchemas(): Schemas {
  return (schemas ??= buildSchemas((requireCjs('zod') as typeof import('zod')).z));
}

/** Unloads zod and the schemas; the next configuration read loads them again. */
export function releaseConfigSchemas(): void {
  schemas = undefined;
  unloadPackage(requireCjs, 'zod');
}

export type Settings = Zod.output<Schemas['SettingsSchema']>;
export type FolderKey = keyof Settings['Folders'];

/** Absolute paths of everything in the vault that the configuration names. */
export interface VaultLayout {
  root: string;
  folders: Record<FolderKey, string>;
  files: { glossary: string; dictionary: string };
  /** `Agent.MaxFileBytes`: no file larger is read (docs/design.md §4); absent = the default. */
  maxFileBytes?: number;
}

export interface AppConfig {
  /** The config file that was read; undefined when only defaults and environment apply. */
  file: string | undefined;
  settings: Settings;
  layout: VaultLayout;
  /** From `Endpoint.ApiKey`, else the variable named by `ApiKeyEnvironmentVariable`. */
  apiKey: string | undefined;
  /** Absolute `Logging.File`, or undefined for stdout. */
  logFile: string | undefined;
}

export class ConfigError extends MeetingAssistantError {
  constructor(
    readonly problems: string[],
    readonly file?: string,
  ) {
    super(
      `Invalid configuration${file ? ` in ${file}` : ''}:\n` + problems.map((p) => `  - ${p}`).join('\n'),
      true,
    );
  }
}

export const DEFAULT_SETTINGS: Settings = configSchemas().SettingsSchema.parse({});

export { defaultMaxOutputTokens } from './window-defaults.js';

const ENV_PREFIX = 'MeetingAssistant__';

/**
 * All loadConfig reads: the config file. Its own small interface rather than vault/'s `Fs`
 * (which satisfies it) because config is the bottom layer: vault/ is built on it.
 */
export interface ConfigReader {
  readFile(file: string): Promise<Uint8Array>;
}

export interface LoadConfigOptions {
  /** `--config`; when given it must exist. */
  configPath?: string;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  fs: ConfigReader;
  homedir?: string;
}

/** The files tried when `--config` is not given, in order. */
export function defaultConfigCandidates(env: NodeJS.ProcessEnv, cwd: string, homedir: string): string[] {
  const xdg = env.XDG_CONFIG_HOME || path.join(homedir, '.config');
  return [path.resolve(cwd, 'config.json'), path.join(xdg, 'meeting-assistant', 'config.json')];
}

export async function loadConfig(options: LoadConfigOptions): Promise<AppConfig> {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  const homedir = options.homedir ?? os.homedir();

  let file: string | undefined;
  let raw: unknown = {};
  const candidates = options.configPath
    ? [path.resolve(cwd, expandHome(options.configPath, homedir))]
    : defaultConfigCandidates(env, cwd, homedir);
  for (const candidate of candidates) {
    const text = await readConfigFile(options.fs, candidate);
    if (text === undefined) continue;
    file = candidate;
    try {
      raw = JSON.parse(stripBom(text));
    } catch (err) {
      throw new ConfigError([jsonSyntaxProblem(stripBom(text), err)], candidate);
    }
    const missing = sectionProblem(raw, Object.keys(DEFAULT_SETTINGS));
    if (missing) throw new ConfigError([missing], candidate);
    break;
  }
  if (!file && options.configPath) {
    throw new ConfigError([`config file not found: ${candidates[0]}`]);
  }
  return resolveConfig(raw, { file, env, cwd, homedir });
}

/** The file's text, or `undefined` when it does not exist; other errors (a folder, no permission) propagate. */
async function readConfigFile(fs: ConfigReader, file: string): Promise<string | undefined> {
  try {
    return Buffer.from(await fs.readFile(file)).toString('utf8');
  } catch (err) {
    if ((err as { code?: unknown } | null)?.code === 'ENOENT') return undefined;
    throw err;
  }
}

/** Validate a parsed config object, apply environment overrides, and resolve paths. */
export function resolveConfig(
  raw: unknown,
  context: { file?: string; env?: NodeJS.ProcessEnv; cwd?: string; homedir?: string } = {},
): AppConfig {
  const env = context.env ?? {};
  const homedir = context.homedir ?? os.homedir();
  const problems: string[] = [];
  const merged = applyEnvOverrides(raw, env, problems);
  const parsed = configSchemas().FileSchema.safeParse(merged, { reportInput: true });
  if (!parsed.success) problems.push(...parsed.error.issues.flatMap(describeIssue));
  problems.push(...crossFieldProblems(merged));
  if (problems.length > 0 || !parsed.success) throw new ConfigError(problems, context.file);

  const settings = parsed.data.MeetingAssistant;
  if (contextWindowOf(merged)?.MaxOutputTokens === undefined) {
    settings.ContextWindow.MaxOutputTokens = defaultMaxOutputTokens(settings.ContextWindow.Tokens);
  }
  const baseDir = context.file ? path.dirname(context.file) : (context.cwd ?? process.cwd());
  const root = path.resolve(baseDir, expandHome(settings.VaultPath, homedir));
  const inVault = (p: string) => path.resolve(root, expandHome(p, homedir));
  const folders = Object.fromEntries(
    Object.entries(settings.Folders).map(([k, v]) => [k, inVault(v)]),
  ) as Record<FolderKey, string>;
  const envKey = settings.Endpoint.ApiKeyEnvironmentVariable;
  const apiKey = settings.Endpoint.ApiKey || (envKey ? env[envKey] : undefined) || undefined;
  return {
    file: context.file,
    settings: { ...settings, VaultPath: root },
    layout: {
      root,
      folders,
      files: { glossary: inVault(settings.Files.Glossary), dictionary: inVault(settings.Files.Dictionary) },
      maxFileBytes: settings.Agent.MaxFileBytes,
    },
    apiKey,
    logFile: settings.Logging.File ? path.resolve(baseDir, expandHome(settings.Logging.File, homedir)) : undefined,
  };
}

function contextWindowOf(merged: unknown): Record<string, unknown> | undefined {
  return (merged as { MeetingAssistant?: { ContextWindow?: Record<string, unknown> } } | undefined)?.MeetingAssistant?.ContextWindow;
}

/**
 * Checked on the raw values so that it is reported together with every other problem. Only a
 * MaxOutputTokens that is set can be too large: left out, it follows Tokens.
 */
function crossFieldProblems(merged: unknown): string[] {
  const section = contextWindowOf(merged);
  const tokens = section?.Tokens ?? DEFAULT_SETTINGS.ContextWindow.Tokens;
  const output = section?.MaxOutputTokens;
  if (typeof tokens === 'number' && typeof output === 'number' && tokens <= output) {
    return [
      `MeetingAssistant.ContextWindow.Tokens: must be greater than ContextWindow.MaxOutputTokens (${output}); ` +
        `lower MaxOutputTokens, or leave MaxOutputTokens out: it is then a quarter of Tokens, at most ${DEFAULT_SETTINGS.ContextWindow.MaxOutputTokens}`,
    ];
  }
  return [];
}

function expandHome(p: string, homedir: string): string {
  if (p === '~') return homedir;
  if (p.startsWith('~/')) return path.join(homedir, p.slice(2));
  return p;
}

function stripBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

function fullPath(segments: readonly PropertyKey[]): string {
  return segments.map(String).join('.');
}

function describeIssue(issue: Zod.core.$ZodIssue): string[] {
  const where = fullPath(issue.path);
  if (issue.code === 'unrecognized_keys') {
    const known = knownKeysAt(issue.path);
    return issue.keys.map((key) => {
      const meant = closest(key, known.filter((k) => !issue.keys.includes(k)));
      return `${where ? `${where}.` : ''}${key}: unknown key${meant ? ` (did you mean ${meant}?)` : ''}`;
    });
  }
  if (issue.code === 'invalid_type') {
    return [`${where}: expected ${issue.expected}, got ${describeValue(issue.input)}`];
  }
  return [`${where}: ${issue.message}`];
}

/** The keys the configuration knows at a path (`MeetingAssistant.Endpoint`: BaseUrl, Model, …). */
function knownKeysAt(segments: readonly PropertyKey[]): string[] {
  if (segments.length === 0) return [SECTION];
  let level: unknown = DEFAULT_SETTINGS;
  for (const segment of segments.slice(1)) level = (level as Record<string, unknown> | undefined)?.[String(segment)];
  return level && typeof level === 'object' ? Object.keys(level) : [];
}

function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return `string ${JSON.stringify(value)}`;
  return typeof value;
}

/**
 * `MeetingAssistant__Section__Key=value` overrides the file, segments matched without regard
 * to case as .NET does. The value is coerced to the key's type, known from the defaults.
 */
function applyEnvOverrides(raw: unknown, env: NodeJS.ProcessEnv, problems: string[]): unknown {
  const overrides = Object.entries(env).filter(
    ([name, value]) => value !== undefined && name.toLowerCase().startsWith(ENV_PREFIX.toLowerCase()),
  );
  if (overrides.length === 0) return raw;
  const result = structuredClone((raw ?? {}) as Record<string, unknown>);
  if (typeof result !== 'object' || Array.isArray(result)) return raw;
  for (const [name, value] of overrides) {
    const segments = name.slice(ENV_PREFIX.length).split('__');
    let defaults: unknown = DEFAULT_SETTINGS;
    const keys: string[] = [];
    for (const segment of segments) {
      const match =
        defaults && typeof defaults === 'object'
          ? Object.keys(defaults).find((k) => k.toLowerCase() === segment.toLowerCase())
          : undefined;
      if (!match) {
        problems.push(`environment ${name}: MeetingAssistant.${[...keys, segment].join('.')} is not a key`);
        keys.length = 0;
        break;
      }
      keys.push(match);
      defaults = (defaults as Record<string, unknown>)[match];
    }
    if (keys.length !== segments.length) continue;
    if (defaults !== null && typeof defaults === 'object') {
      problems.push(`environment ${name}: MeetingAssistant.${keys.join('.')} is a section, not a value`);
      continue;
    }
    const coerced = coerce(value as string, defaults);
    if (coerced === undefined) {
      problems.push(
        `environment ${name}: MeetingAssistant.${keys.join('.')} expects a ${defaults === null ? "boolean" : typeof defaults}, got ${JSON.stringify(value)}`,
      );
      continue;
    }
    let target = ((result.MeetingAssistant ??= {}) as Record<string, unknown>);
    for (const key of keys.slice(0, -1)) {
      const next = target[key];
      target = (target[key] = next && typeof next === 'object' ? next : {}) as Record<string, unknown>;
    }
    target[keys[keys.length - 1]!] = coerced;
  }
  return result;
}

function coerce(value: string, like: unknown): string | number | boolean | null | undefined {
  // The one key whose default is null (Logging.Pretty) is a boolean that may be left unset.
  if (like === null) return ['', 'null'].includes(value.trim().toLowerCase()) ? null : coerce(value, false);
  if (typeof like === 'number') {
    const n = Number(value.trim());
    return value.trim() !== '' && Number.isFinite(n) ? n : undefined;
  }
  if (typeof like === 'boolean') {
    const v = value.trim().toLowerCase();
    if (v === 'true' || v === '1') return true;
    if (v === 'false' || v === '0') return false;
    return undefined;
  }
  return value;
}
