import net from 'node:net';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { type AppConfig, ConfigError, type FolderKey } from './config.js';
import { authHeaders, baseUrl, check, checkEndpoint, type DoctorCheck } from './agent/endpoint-check.js';
import { type Fs, isNotFound, TEMP_SUFFIX } from './vault/fs.js';

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
  return checks;
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
// Effective context length (Ollama, llama.cpp's server, LM Studio)

/** The server root without the OpenAI `/v1` suffix: where the native routes live. */
function serverRoot(config: AppConfig): string {
  return baseUrl(config).replace(/\/v1$/, '');
}

async function getJson(
  deps: DoctorDeps,
  config: AppConfig,
  url: string,
  init: { method?: string; body?: unknown } = {},
): Promise<Record<string, unknown> | undefined> {
  const doFetch = deps.fetch ?? fetch;
  try {
    const response = await doFetch(url, {
      method: init.method ?? 'GET',
      headers: { ...authHeaders(config), ...(init.body !== undefined ? { 'Content-Type': 'application/json' } : {}) },
      body: init.body !== undefined ? JSON.stringify(init.body) : undefined,
      signal: AbortSignal.timeout(deps.timeoutMs ?? 5000),
    });
    if (!response.ok) return undefined;
    const body = (await response.json()) as unknown;
    return body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function positiveInt(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.floor(value) : undefined;
}

async function checkContextLength(config: AppConfig, deps: DoctorDeps, model: string | undefined): Promise<DoctorCheck> {
  const name = 'context length';
  if (!model) return check(name, 'skip', 'not checked: the model is not available');
  const wanted = config.settings.ContextWindow.Tokens;
  const root = serverRoot(config);
  const lower = (n: number) => `or lower MeetingAssistant.ContextWindow.Tokens to ${n} or less`;

  // llama.cpp's server first: GET /props, the context of one slot. (It also answers
  // /api/show for Ollama clients, with the training context rather than the running one.)
  const props = await getJson(deps, config, `${root}/props`);
  const settings = (props?.default_generation_settings ?? undefined) as Record<string, unknown> | undefined;
  const nCtx = positiveInt(settings?.n_ctx) ?? positiveInt(props?.n_ctx);
  if (props && nCtx !== undefined) {
    const slots = positiveInt(props.total_slots) ?? 1;
    if (nCtx < wanted) {
      return check(
        name,
        'fail',
        `llama.cpp's server runs with a context of ${nCtx} tokens${slots > 1 ? ` per slot (${slots} slots)` : ''}, below ContextWindow.Tokens (${wanted})`,
        `Restart llama-server with --ctx-size ${wanted * slots}${slots > 1 ? ` (shared by its ${slots} --parallel slots)` : ''}, ${lower(nCtx)}.`,
      );
    }
    return check(name, 'pass', `llama.cpp's server runs with a context of ${nCtx} tokens (ContextWindow.Tokens is ${wanted})`);
  }

  // Ollama: POST /api/show names the model's maximum and a num_ctx parameter when one is set.
  const show = await getJson(deps, config, `${root}/api/show`, { method: 'POST', body: { model, name: model } });
  if (show && (show.model_info || show.parameters !== undefined || show.modelfile !== undefined)) {
    const info = (show.model_info ?? {}) as Record<string, unknown>;
    const arch = typeof info['general.architecture'] === 'string' ? info['general.architecture'] : undefined;
    const maxKey = arch ? `${arch}.context_length` : Object.keys(info).find((k) => k.endsWith('.context_length'));
    const max = maxKey ? positiveInt(info[maxKey]) : undefined;
    const params = typeof show.parameters === 'string' ? show.parameters : '';
    const numCtx = Number(/(?:^|\n)\s*num_ctx\s+(\d+)/.exec(params)?.[1] ?? NaN);
    // A loaded model shows the context it actually runs with (newer Ollama versions).
    const ps = await getJson(deps, config, `${root}/api/ps`);
    const running = Array.isArray(ps?.models)
      ? (ps.models as Record<string, unknown>[]).find((m) => m.name === model || m.model === model)
      : undefined;
    const loaded = positiveInt(running?.context_length);
    if (max !== undefined && max < wanted) {
      return check(
        name,
        'fail',
        `${model} supports at most ${max} tokens; ContextWindow.Tokens is ${wanted}`,
        `Lower MeetingAssistant.ContextWindow.Tokens to ${max} or less, or use a model with a longer context.`,
      );
    }
    const raise =
      `Raise Ollama's context: start the server with OLLAMA_CONTEXT_LENGTH=${wanted} (for the service: systemctl edit ollama, Environment=OLLAMA_CONTEXT_LENGTH=${wanted}), ` +
      `or create a model with "PARAMETER num_ctx ${wanted}" in its Modelfile (ollama create), ${lower(loaded ?? (Number.isFinite(numCtx) ? numCtx : 4096))}.`;
    const effective = loaded ?? (Number.isFinite(numCtx) ? numCtx : undefined);
    if (effective === undefined) {
      return check(
        name,
        'warn',
        `Ollama: ${model} has no num_ctx set, so Ollama runs it with its default context length (often 4096 tokens or less, longer prompts are cut silently) unless OLLAMA_CONTEXT_LENGTH is raised on the server; ContextWindow.Tokens is ${wanted}${max ? `, the model supports ${max}` : ''}`,
        raise,
      );
    }
    const source = loaded !== undefined ? 'runs it (loaded now) with' : 'has num_ctx';
    if (effective < wanted) {
      return check(name, 'fail', `Ollama ${source} ${effective} tokens for ${model}, below ContextWindow.Tokens (${wanted})`, raise);
    }
    return check(name, 'pass', `Ollama ${source} ${effective} tokens for ${model} (ContextWindow.Tokens is ${wanted})`);
  }

  // LM Studio: GET /api/v0/models/<id>, the loaded context or the model's maximum.
  const lms = await getJson(deps, config, `${root}/api/v0/models/${encodeURIComponent(model)}`);
  if (lms && (lms.max_context_length !== undefined || lms.loaded_context_length !== undefined)) {
    const loadedCtx = positiveInt(lms.loaded_context_length);
    const maxCtx = positiveInt(lms.max_context_length);
    const load = `Load ${model} in LM Studio with a context length of at least ${wanted} (lms load ${model} --context-length ${wanted}, or the model's load settings in the app)`;
    if (maxCtx !== undefined && maxCtx < wanted) {
      return check(
        name,
        'fail',
        `LM Studio: ${model} supports at most ${maxCtx} tokens; ContextWindow.Tokens is ${wanted}`,
        `Lower MeetingAssistant.ContextWindow.Tokens to ${maxCtx} or less, or use a model with a longer context.`,
      );
    }
    if (loadedCtx !== undefined) {
      if (loadedCtx < wanted) {
        return check(name, 'fail', `LM Studio has ${model} loaded with a context of ${loadedCtx} tokens, below ContextWindow.Tokens (${wanted})`, `${load}, ${lower(loadedCtx)}.`);
      }
      return check(name, 'pass', `LM Studio has ${model} loaded with a context of ${loadedCtx} tokens (ContextWindow.Tokens is ${wanted})`);
    }
    return check(
      name,
      'warn',
      `LM Studio: ${model} is not loaded; it will be loaded with LM Studio's default context length, which may be below ContextWindow.Tokens (${wanted})`,
      `${load}.`,
    );
  }

  return check(
    name,
    'skip',
    `the server does not report its context length (Ollama, llama.cpp's server and LM Studio do); make sure ${model} runs with at least ContextWindow.Tokens (${wanted}) tokens`,
  );
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
