import net from 'node:net';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { type AppConfig, ConfigError, type FolderKey } from './config.js';
import { authHeaders, baseUrl, check, checkEndpoint, type DoctorCheck } from './agent/endpoint-check.js';
import { type Fs, isNotFound, TEMP_SUFFIX } from './vault/fs.js';
import { resolveTemplate, TemplateError } from './vault/template.js';
import { Vault } from './vault/vault.js';
import { probeServerWindow, raiseWindowHint, type ServerWindow } from './agent/server-window.js';

/**
 * `meeting-assistant doctor` without the command line: every check a person needs when the
 * service misbehaves, each with what was found and how to fix it. Printing is the
 * command's job (src/commands/doctor.ts).
 */

export type { CheckStatus, DoctorCheck } from './agent/endpoint-check.js';

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
