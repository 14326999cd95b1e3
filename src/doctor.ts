import net from 'node:net';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { type AppConfig, ConfigError, type FolderKey } from './config.js';
import { causeChain } from './log.js';
import { type Fs, isNotFound, TEMP_SUFFIX } from './vault/fs.js';
import { resolveTemplate, TemplateError } from './vault/template.js';
import { Vault } from './vault/vault.js';
import { probeServerWindow, raiseWindowHint, type ServerWindow } from './agent/server-window.js';

/**
 * `meeting-assistant doctor` without the command line: every check a person needs when the
 * service misbehaves, each with what was found and how to fix it. Printing is the
 * command's job (src/commands/doctor.ts).
 */

export type CheckStatus = 'pass' | 'warn' | 'fail' | 'skip';

export interface DoctorCheck {
  name: string;
  /** False only for `fail`: a warning or a check the server does not support is not a failure. */
  ok: boolean;
  status: CheckStatus;
  /** What was found, for people. */
  detail: string;
  /** What to do about it, naming the setting to change. */
  fix?: string;
}

export interface DoctorReport {
  checks: DoctorCheck[];
  /** Every check passed or was only a warning or skipped. */
  ok: boolean;
}

export type PortState = { state: 'free' } | { state: 'in-use' } | { state: 'error'; message: string };

export interface DoctorDeps {
  fs: Fs;
  fetch?: typeof fetch;
  now?: () => number;
  /** Can the daemon listen on host:port? Default: try it. */
  netCheck?: (host: string, port: number) => Promise<PortState>;
  /** Per HTTP request; default 5 s. */
  timeoutMs?: number;
}

const FOLDER_KEYS: FolderKey[] = ['Meetings', 'Transcripts', 'Summaries', 'Context', 'Projects', 'Identities'];

function check(name: string, status: CheckStatus, detail: string, fix?: string): DoctorCheck {
  return { name, ok: status !== 'fail', status, detail, ...(fix ? { fix } : {}) };
}

/** Names of the checks after `config`, reported as skipped when the config does not load. */
const DEPENDENT_CHECKS = ['vault and folders', 'endpoint', 'api key', 'model', 'context length', 'http port'];

export async function runDoctor(config: AppConfig | ConfigError, deps: DoctorDeps): Promise<DoctorReport> {
  const checks: DoctorCheck[] = [];
  if (config instanceof ConfigError) {
    checks.push(
      check(
        'config',
        'fail',
        `${config.file ? `${config.file}: ` : ''}${config.problems.length} problem${config.problems.length === 1 ? '' : 's'}:\n${config.problems.map((p) => `- ${p}`).join('\n')}`,
        'Correct each key named above (see config.example.json for every key with its default), then run doctor again.',
      ),
    );
    for (const name of DEPENDENT_CHECKS) checks.push(check(name, 'skip', 'not checked: the config did not load'));
    return { checks, ok: false };
  }

  checks.push(
    config.file
      ? check('config', 'pass', `${config.file} is valid`)
      : check(
          'config',
          'warn',
          'no config file found (./config.json, $XDG_CONFIG_HOME/meeting-assistant/config.json): using the defaults and environment overrides',
          'Create a config file (copy config.example.json) and pass it with --config.',
        ),
  );
  checks.push(...(await checkVault(config, deps.fs)));
  const endpoint = await checkEndpoint(config, deps);
  checks.push(...endpoint.checks);
  checks.push(await checkContextLength(config, deps, endpoint.modelListed));
  checks.push(await checkHttpPort(config, deps));
  return { checks, ok: checks.every((c) => c.ok) };
}

// ---------------------------------------------------------------------------------------
// Vault, folders and files

async function checkVault(config: AppConfig, fs: Fs): Promise<DoctorCheck[]> {
  const root = config.layout.root;
  const vault = await checkFolder(fs, 'vault', root, 'VaultPath');
  if (vault.status === 'fail') {
    return [vault, check('folders', 'skip', 'not checked: the vault folder is not usable')];
  }
  const checks = [vault];
  for (const key of FOLDER_KEYS) {
    checks.push(await checkFolder(fs, `folder ${key}`, config.layout.folders[key], `Folders.${key}`));
  }
  const { glossary, dictionary } = config.layout.files;
  const glossaryFolder = await checkFolder(fs, 'file Glossary', path.dirname(glossary), 'Files.Glossary');
  if (glossaryFolder.status === 'pass') {
    const exists = await existsFile(fs, glossary);
    glossaryFolder.detail = exists ? `${glossary} exists` : `${glossary} does not exist yet (the agent reads it as empty)`;
  }
  checks.push(glossaryFolder);
  const dictionaryFolder = await checkFolder(fs, 'file Dictionary', path.dirname(dictionary), 'Files.Dictionary');
  if (dictionaryFolder.status === 'pass') {
    const exists = await existsFile(fs, dictionary);
    dictionaryFolder.detail = exists ? `${dictionary} exists` : `${dictionary} does not exist yet (created by the first new word)`;
  }
  checks.push(dictionaryFolder);
  if (config.settings.Agent.DefaultTemplate.trim()) checks.push(await checkDefaultTemplate(config, fs));
  return checks;
}

/** A default template that cannot be found fails every meeting without its own: better said now. */
async function checkDefaultTemplate(config: AppConfig, fs: Fs): Promise<DoctorCheck> {
  try {
    const template = await resolveTemplate(new Vault(fs, config.layout), config.settings.Agent.DefaultTemplate.trim(), 'config');
    return check('default template', 'pass', `${template.path} is the summary template of meetings that name none`);
  } catch (err) {
    if (!(err instanceof TemplateError)) throw err;
    return check(
      'default template',
      'fail',
      err.message,
      'Point MeetingAssistant.Agent.DefaultTemplate at a note with headings (a vault path like Templates/Stand-up.md, or a name), or empty it for the built-in structure.',
    );
  }
}

async function existsFile(fs: Fs, file: string): Promise<boolean> {
  try {
    return (await fs.stat(file)).isFile();
  } catch {
    return false;
  }
}

async function checkFolder(fs: Fs, name: string, folder: string, setting: string): Promise<DoctorCheck> {
  const key = `MeetingAssistant.${setting}`;
  try {
    const stat = await fs.stat(folder);
    if (!stat.isDirectory()) {
      return check(name, 'fail', `${folder} is not a folder`, `Point ${key} at a folder, or move the file ${folder} away.`);
    }
  } catch (err) {
    if (isNotFound(err)) {
      return check(name, 'fail', `${folder} does not exist`, `Create it (mkdir -p ${quote(folder)}) or set ${key} to the folder you use.`);
    }
    return check(name, 'fail', `${folder} cannot be read: ${errorText(err)}`, permissionFix(folder));
  }
  // The only reliable writability test is writing: permissions, ACLs, read-only mounts and
  // systemd's ProtectSystem all show up here. The temp suffix keeps the watcher away.
  const probe = path.join(folder, `.ma-doctor-${randomBytes(4).toString('hex')}${TEMP_SUFFIX}`);
  try {
    await fs.writeFile(probe, 'meeting-assistant doctor\n', { flag: 'wx' });
    await fs.unlink(probe);
  } catch (err) {
    await fs.unlink(probe).catch(() => undefined);
    return check(name, 'fail', `${folder} is not writable: ${errorText(err)}`, permissionFix(folder));
  }
  return check(name, 'pass', `${folder} exists and is writable`);
}

function permissionFix(folder: string): string {
  return `Give the user that runs meeting-assistant read and write access (e.g. chown -R "$USER" ${quote(folder)}; chmod u+rwX ${quote(folder)}).`;
}

function quote(p: string): string {
  return /^[A-Za-z0-9_/.,:@%+=-]+$/.test(p) ? p : `'${p.replace(/'/g, `'\\''`)}'`;
}

// ---------------------------------------------------------------------------------------
// Endpoint, key, model

interface EndpointOutcome {
  checks: DoctorCheck[];
  /** The configured model as listed (undefined when it was not checked or not listed). */
  modelListed: string | undefined;
}

function baseUrl(config: AppConfig): string {
  return config.settings.Endpoint.BaseUrl.replace(/\/+$/, '');
}

function keySource(config: AppConfig): string {
  const endpoint = config.settings.Endpoint;
  if (endpoint.ApiKey) return 'MeetingAssistant.Endpoint.ApiKey';
  return `the environment variable ${endpoint.ApiKeyEnvironmentVariable} (Endpoint.ApiKeyEnvironmentVariable)`;
}

function authHeaders(config: AppConfig): Record<string, string> {
  return config.apiKey ? { Authorization: `Bearer ${config.apiKey}` } : {};
}

function looksLikeOllama(config: AppConfig): boolean {
  return /:11434(\/|$)/.test(config.settings.Endpoint.BaseUrl);
}

async function checkEndpoint(config: AppConfig, deps: DoctorDeps): Promise<EndpointOutcome> {
  const doFetch = deps.fetch ?? fetch;
  const now = deps.now ?? Date.now;
  const timeoutMs = deps.timeoutMs ?? 5000;
  const url = `${baseUrl(config)}/models`;
  const skipped = (why: string) => [check('api key', 'skip', `not checked: ${why}`), check('model', 'skip', `not checked: ${why}`)];

  const started = now();
  let response: Response;
  try {
    response = await doFetch(url, { headers: authHeaders(config), signal: AbortSignal.timeout(timeoutMs) });
  } catch (err) {
    const timedOut = err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError');
    const serverHint = looksLikeOllama(config)
      ? 'Start Ollama (ollama serve, or the Ollama app)'
      : 'Start the model server (Ollama: ollama serve; LM Studio: Developer > Start server; llama.cpp: llama-server)';
    return {
      checks: [
        check(
          'endpoint',
          'fail',
          timedOut
            ? `GET ${url} did not answer within ${Math.round(timeoutMs / 1000)} s`
            : `GET ${url} failed: ${causeChain(err).join(' <- ')}`,
          `${serverHint}, or correct MeetingAssistant.Endpoint.BaseUrl (it must be the API root, e.g. http://localhost:11434/v1).`,
        ),
        ...skipped('the endpoint did not answer'),
      ],
      modelListed: undefined,
    };
  }
  const latency = now() - started;
  const text = await response.text().catch(() => '');

  if (response.status === 401 || response.status === 403) {
    const endpointCheck = check('endpoint', 'pass', `GET ${url} answered ${response.status} in ${latency} ms (the server is up)`);
    const keyCheck = config.apiKey
      ? check(
          'api key',
          'fail',
          `the endpoint refused the key from ${keySource(config)} (HTTP ${response.status}: ${errorMessageOf(text)})`,
          `Put a valid key in ${keySource(config)}. For the service, the variable must be set in the service's environment (systemctl --user edit meeting-assistant: [Service] Environment=...), or use Endpoint.ApiKey.`,
        )
      : check(
          'api key',
          'fail',
          `the endpoint demands a key (HTTP ${response.status}) and none is configured`,
          `Set MeetingAssistant.Endpoint.ApiKey, or export ${config.settings.Endpoint.ApiKeyEnvironmentVariable}=<your key> where meeting-assistant runs (Endpoint.ApiKeyEnvironmentVariable names the variable).`,
        );
    return {
      checks: [endpointCheck, keyCheck, check('model', 'skip', 'not checked: the endpoint refused to list models without a valid key')],
      modelListed: undefined,
    };
  }
  if (!response.ok) {
    const fix =
      response.status === 404
        ? `MeetingAssistant.Endpoint.BaseUrl must be the API root that serves /models and /chat/completions (usually ending in /v1, e.g. http://localhost:11434/v1).`
        : `Check the server's own log; correct MeetingAssistant.Endpoint.BaseUrl if it points at the wrong server.`;
    return {
      checks: [check('endpoint', 'fail', `GET ${url} answered HTTP ${response.status}: ${errorMessageOf(text)}`, fix), ...skipped(`the endpoint answered ${response.status}`)],
      modelListed: undefined,
    };
  }
  const ids = modelIds(text);
  if (!ids) {
    return {
      checks: [
        check(
          'endpoint',
          'fail',
          `GET ${url} answered 200 but not with an OpenAI-style model list: ${clip(text, 120)}`,
          'MeetingAssistant.Endpoint.BaseUrl must point at an OpenAI-compatible API root (usually ending in /v1).',
        ),
        ...skipped('the endpoint did not list models'),
      ],
      modelListed: undefined,
    };
  }
  const checks = [
    check('endpoint', 'pass', `GET ${url} answered in ${latency} ms, ${ids.length} model${ids.length === 1 ? '' : 's'} listed`),
    config.apiKey
      ? check('api key', 'pass', `the key from ${keySource(config)} is accepted`)
      : check('api key', 'pass', 'no key configured and none needed'),
  ];
  const model = config.settings.Endpoint.Model;
  const listed = findModel(model, ids);
  if (listed) {
    checks.push(check('model', 'pass', `${model} is listed${listed !== model ? ` (as ${listed})` : ''}`));
    return { checks, modelListed: listed };
  }
  const close = closestNames(model, ids);
  const pull = looksLikeOllama(config) ? `, or download it (ollama pull ${model})` : '';
  checks.push(
    check(
      'model',
      'fail',
      ids.length === 0
        ? `${model} is not listed: the endpoint lists no models`
        : `${model} is not listed${close.length > 0 ? `; close names: ${close.join(', ')}` : ''}`,
      ids.length === 0
        ? `Load or download a model on the server${pull}, then set MeetingAssistant.Endpoint.Model to its id.`
        : `Set MeetingAssistant.Endpoint.Model to one of: ${(close.length > 0 ? close : ids.slice(0, 10)).join(', ')}${pull}.`,
    ),
  );
  return { checks, modelListed: undefined };
}

function modelIds(text: string): string[] | undefined {
  try {
    const body = JSON.parse(text) as { data?: unknown; models?: unknown };
    const list = Array.isArray(body.data) ? body.data : undefined;
    if (!list) return undefined;
    return list
      .map((m) => (m && typeof m === 'object' ? (m as { id?: unknown }).id : undefined))
      .filter((id): id is string => typeof id === 'string');
  } catch {
    return undefined;
  }
}

/** Exact, else Ollama's implicit `:latest`, else a case-insensitive match. */
function findModel(model: string, ids: string[]): string | undefined {
  if (ids.includes(model)) return model;
  if (!model.includes(':') && ids.includes(`${model}:latest`)) return `${model}:latest`;
  return ids.find((id) => id.toLowerCase() === model.toLowerCase());
}

function closestNames(model: string, ids: string[]): string[] {
  const m = model.toLowerCase();
  const base = m.split(':')[0]!;
  const scored = ids.map((id) => {
    const l = id.toLowerCase();
    const related = l.includes(base) || base.includes(l.split(':')[0]!);
    return { id, score: levenshtein(m, l) - (related ? 100 : 0) };
  });
  const limit = Math.max(3, Math.floor(m.length / 2));
  return scored
    .filter((s) => s.score < 0 || s.score <= limit)
    .sort((a, b) => a.score - b.score)
    .slice(0, 3)
    .map((s) => s.id);
}

function levenshtein(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = tmp;
    }
  }
  return row[b.length]!;
}

function errorMessageOf(text: string): string {
  try {
    const body = JSON.parse(text) as { error?: { message?: unknown } | string; message?: unknown };
    if (typeof body.error === 'string') return clip(body.error, 200);
    if (body.error && typeof body.error.message === 'string') return clip(body.error.message, 200);
    if (typeof body.message === 'string') return clip(body.message, 200);
  } catch {
    // Not JSON: an HTML error page or plain text.
  }
  return clip(text.replace(/\s+/g, ' ').trim() || '(empty body)', 200);
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

function errorText(err: unknown): string {
  const code = (err as { code?: unknown })?.code;
  const message = err instanceof Error ? err.message : String(err);
  return typeof code === 'string' && !message.includes(code) ? `${code}: ${message}` : message;
}

// ---------------------------------------------------------------------------------------
// Effective context length (the probe the daemon uses: src/agent/server-window.ts)

async function checkContextLength(config: AppConfig, deps: DoctorDeps, model: string | undefined): Promise<DoctorCheck> {
  const name = 'context length';
  if (!model) return check(name, 'skip', 'not checked: the model is not available');
  const wanted = config.settings.ContextWindow.Tokens;
  const lower = (n: number) => `or lower MeetingAssistant.ContextWindow.Tokens to ${n} or less`;
  // Ollama loads the model to tell its window, as the daemon does when a run begins.
  const told = await probeServerWindow({
    baseUrl: config.settings.Endpoint.BaseUrl,
    model,
    ...(config.apiKey ? { apiKey: config.apiKey } : {}),
    ...(deps.fetch ? { fetch: deps.fetch } : {}),
    timeoutMs: deps.timeoutMs ?? 5000,
    load: true,
    loadTimeoutMs: Math.max(deps.timeoutMs ?? 5000, config.settings.Endpoint.TimeoutSeconds * 1000),
  });
  if (!told) {
    return check(
      name,
      'skip',
      `the server does not report its context length (Ollama, llama.cpp's server, LM Studio and vLLM do); make sure ${model} runs with at least ContextWindow.Tokens (${wanted}) tokens`,
    );
  }
  const raise = capitalize(raiseWindowHint(told, model, wanted));
  // The figure a run uses: the smaller of the server's window and ContextWindow.Tokens.
  const used = (n: number) => (n < wanted ? `; runs use ${n} tokens, with answers of at most ${Math.min(config.settings.ContextWindow.MaxOutputTokens, Math.floor(n / 4))}` : '');
  if (told.modelMax !== undefined && told.modelMax < wanted) {
    return check(
      name,
      'fail',
      `${told.server === 'lm-studio' ? 'LM Studio: ' : ''}${model} supports at most ${told.modelMax} tokens; ContextWindow.Tokens is ${wanted}`,
      `Lower MeetingAssistant.ContextWindow.Tokens to ${told.modelMax} or less, or use a model with a longer context.`,
    );
  }
  const where = describeWindow(told, model);
  if (told.tokens === undefined) {
    const unknown =
      told.server === 'ollama'
        ? `Ollama: ${model} has no num_ctx set, so Ollama runs it with its default context length (often 4096 tokens or less, longer prompts are cut silently) unless OLLAMA_CONTEXT_LENGTH is raised on the server; ContextWindow.Tokens is ${wanted}${told.modelMax ? `, the model supports ${told.modelMax}` : ''}`
        : `LM Studio: ${model} is not loaded; it will be loaded with LM Studio's default context length, which may be below ContextWindow.Tokens (${wanted})`;
    return check(name, 'warn', unknown, `${raise}.`);
  }
  if (told.tokens < wanted) {
    return check(name, 'fail', `${where} ${told.tokens} tokens, below ContextWindow.Tokens (${wanted})${used(told.tokens)}`, `${raise}, ${lower(told.tokens)}.`);
  }
  return check(name, 'pass', `${where} ${told.tokens} tokens (ContextWindow.Tokens is ${wanted})`);
}

function describeWindow(told: ServerWindow, model: string): string {
  switch (told.server) {
    case 'llama.cpp':
      return `llama.cpp's server runs with a context${(told.slots ?? 1) > 1 ? ` per slot (${told.slots} slots)` : ''} of`;
    case 'ollama':
      return told.loaded ? `Ollama runs ${model} (loaded now) with a context of` : `Ollama: ${model} has num_ctx`;
    case 'lm-studio':
      return `LM Studio has ${model} loaded with a context of`;
    case 'vllm':
      return `vLLM serves ${model} with --max-model-len`;
  }
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

// ---------------------------------------------------------------------------------------
// HTTP port

export function listenCheck(host: string, port: number): Promise<PortState> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', (err: NodeJS.ErrnoException) => {
      resolve(err.code === 'EADDRINUSE' ? { state: 'in-use' } : { state: 'error', message: errorText(err) });
    });
    server.listen({ host, port, exclusive: true }, () => {
      server.close(() => resolve({ state: 'free' }));
    });
  });
}

async function checkHttpPort(config: AppConfig, deps: DoctorDeps): Promise<DoctorCheck> {
  const name = 'http port';
  const http = config.settings.Http;
  if (!http.Enabled) return check(name, 'skip', 'Http.Enabled is false: no HTTP API, retry links in failure reports will not work');
  const where = `${http.Host}:${http.Port}`;
  const state = await (deps.netCheck ?? listenCheck)(http.Host, http.Port);
  if (state.state === 'free') return check(name, 'pass', `${where} is free`);
  if (state.state === 'error') {
    return check(
      name,
      'fail',
      `cannot listen on ${where}: ${state.message}`,
      `Set MeetingAssistant.Http.Host to an address of this machine (127.0.0.1) and Http.Port to a free port above 1023.`,
    );
  }
  const host = http.Host === '0.0.0.0' || http.Host === '::' ? '127.0.0.1' : http.Host;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${http.Port}/healthz`;
  try {
    const response = await (deps.fetch ?? fetch)(url, { signal: AbortSignal.timeout(Math.min(deps.timeoutMs ?? 5000, 2000)) });
    const body = (await response.text()).trim();
    if (response.status === 200 && body === 'ok') {
      return check(name, 'pass', `${where} is held by a running meeting-assistant daemon (GET /healthz answered ok)`);
    }
  } catch {
    // Not an HTTP server, or not answering: some other program.
  }
  return check(
    name,
    'fail',
    `${where} is in use by another program`,
    `Stop that program (find it with: ss -ltnp 'sport = :${http.Port}' or lsof -i :${http.Port}) or set MeetingAssistant.Http.Port to a free port. Retry links in existing failure reports name the old port.`,
  );
}
