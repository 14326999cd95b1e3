import { type Clock, systemClock } from '../../clock.js';
import type { Logger } from '../../log.js';
import { MAX_ANSWER_BYTES } from '../../http-io.js';
import { defaultGet, fetchGet } from '../model/http-get.js';

/**
 * The context window the server really has (docs/design.md §3 step 8). Local servers often run
 * a model with far less than it supports (Ollama's default is 4,096 tokens on most machines)
 * and some cut a longer prompt without a word, so the daemon asks those that can tell:
 *
 * - llama.cpp's server: `GET /props`, `default_generation_settings.n_ctx` (one slot's share);
 * - Ollama: `GET /api/ps`, the `context_length` of the loaded model (loaded first with an
 *   empty generate request when it is not), else `POST /api/show`'s `num_ctx` parameter;
 * - LM Studio: `GET /api/v0/models`, the model's `loaded_context_length`;
 * - vLLM: `GET /v1/models`, the model's `max_model_len`.
 *
 * The native routes live at the server root, the base URL without its `/v1`. A server that
 * tells nothing leaves the configured window in use. Every request goes through an injected
 * fetch, so tests and `doctor` use the same code on their own servers.
 */

export type ServerKind = 'llama.cpp' | 'ollama' | 'lm-studio' | 'vllm';

export interface ServerWindow {
  server: ServerKind;
  /** Tokens one request may use (prompt and answer), when the server says so. */
  tokens?: number;
  /** The most the model supports, when the server says so. */
  modelMax?: number;
  /** llama.cpp: the slots `-c` is shared by. */
  slots?: number;
  /** Ollama, LM Studio: the model is loaded, so `tokens` is what it runs with now. */
  loaded?: boolean;
  /** Ollama: the model's `num_ctx` parameter (Modelfile), when set. */
  numCtx?: number;
}

export interface ProbeOptions {
  /** `Endpoint.BaseUrl`, e.g. `http://localhost:11434/v1`. */
  baseUrl: string;
  model: string;
  apiKey?: string;
  fetch?: typeof fetch;
  /** Per info request; default 5 s. */
  timeoutMs?: number;
  /** Ollama: load a model that is not loaded, to read the window it runs with. Default false. */
  load?: boolean;
  /** The load request may take as long as loading a model does; default 120 s. */
  loadTimeoutMs?: number;
}

/** The base URL without the OpenAI `/v1` suffix: where the native routes live. */
export function serverRoot(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '');
}

function positiveInt(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.floor(value) : undefined;
}

type Json = Record<string, unknown>;

async function getJson(options: ProbeOptions, url: string, init: { body?: unknown; timeoutMs?: number } = {}): Promise<Json | undefined> {
  // The daemon's own process asks too: node's HTTP client, not fetch (http-get.ts).
  const get = options.fetch ? fetchGet(options.fetch) : defaultGet();
  try {
    const response = await get(url, {
      method: init.body !== undefined ? 'POST' : 'GET',
      headers: {
        ...(options.apiKey ? { Authorization: `Bearer ${options.apiKey}` } : {}),
        ...(init.body !== undefined ? { 'Content-Type': 'application/json' } : {}),
      },
      ...(init.body !== undefined && { body: JSON.stringify(init.body) }),
      signal: AbortSignal.timeout(init.timeoutMs ?? options.timeoutMs ?? 5000),
    });
    if (!response.ok) {
      response.discard();
      return undefined;
    }
    // The run's cap holds for these answers too (docs/design.md §3 step 4): a server's info page is small.
    const body = JSON.parse(await response.text(MAX_ANSWER_BYTES, () => new Error('info answer too large'))) as unknown;
    return body && typeof body === 'object' && !Array.isArray(body) ? (body as Json) : undefined;
  } catch {
    return undefined;
  }
}

const sameModel = (model: string) => (entry: Json) =>
  [entry.name, entry.model, entry.id].some((id) => id === model || id === `${model}:latest`);

/** What the server tells about its window; undefined when it tells nothing. */
export async function probeServerWindow(options: ProbeOptions): Promise<ServerWindow | undefined> {
  const root = serverRoot(options.baseUrl);
  // llama.cpp first: it also answers Ollama's /api/show, with the training context.
  const props = await getJson(options, `${root}/props`);
  const settings = props?.default_generation_settings as Json | undefined;
  const nCtx = positiveInt(settings?.n_ctx) ?? positiveInt(props?.n_ctx);
  if (props && nCtx !== undefined) return { server: 'llama.cpp', tokens: nCtx, slots: positiveInt(props.total_slots) ?? 1 };

  const ollama = await probeOllama(options, root);
  if (ollama) return ollama;

  const lms = await getJson(options, `${root}/api/v0/models`);
  const lmsModel = Array.isArray(lms?.data) ? (lms.data as Json[]).find(sameModel(options.model)) : undefined;
  if (lmsModel && (lmsModel.max_context_length !== undefined || lmsModel.loaded_context_length !== undefined)) {
    const loaded = positiveInt(lmsModel.loaded_context_length);
    const max = positiveInt(lmsModel.max_context_length);
    return { server: 'lm-studio', loaded: loaded !== undefined, ...(loaded ? { tokens: loaded } : {}), ...(max ? { modelMax: max } : {}) };
  }

  const models = await getJson(options, `${options.baseUrl.replace(/\/+$/, '')}/models`);
  const vllmModel = Array.isArray(models?.data) ? (models.data as Json[]).find(sameModel(options.model)) : undefined;
  const maxLen = positiveInt(vllmModel?.max_model_len);
  if (maxLen !== undefined) return { server: 'vllm', tokens: maxLen };
  return undefined;
}

async function probeOllama(options: ProbeOptions, root: string): Promise<ServerWindow | undefined> {
  const { model } = options;
  const show = await getJson(options, `${root}/api/show`, { body: { model, name: model } });
  if (!show || !(show.model_info || show.parameters !== undefined || show.modelfile !== undefined)) return undefined;
  const info = (show.model_info ?? {}) as Json;
  const arch = typeof info['general.architecture'] === 'string' ? info['general.architecture'] : undefined;
  const maxKey = arch ? `${arch}.context_length` : Object.keys(info).find((k) => k.endsWith('.context_length'));
  const modelMax = maxKey ? positiveInt(info[maxKey]) : undefined;
  const params = typeof show.parameters === 'string' ? show.parameters : '';
  const numCtx = positiveInt(Number(/(?:^|\n)\s*num_ctx\s+(\d+)/.exec(params)?.[1] ?? NaN));
  let running = await loadedOllamaModel(options, root);
  if (!running && options.load) {
    // An empty prompt loads the model and generates nothing; /api/ps then shows its window.
    await getJson(options, `${root}/api/generate`, { body: { model, prompt: '', stream: false }, timeoutMs: options.loadTimeoutMs ?? 120_000 });
    running = await loadedOllamaModel(options, root);
  }
  const loaded = positiveInt(running?.context_length);
  const tokens = loaded ?? numCtx;
  return {
    server: 'ollama',
    loaded: loaded !== undefined,
    ...(tokens !== undefined ? { tokens } : {}),
    ...(modelMax !== undefined ? { modelMax } : {}),
    ...(numCtx !== undefined ? { numCtx } : {}),
  };
}

async function loadedOllamaModel(options: ProbeOptions, root: string): Promise<Json | undefined> {
  const ps = await getJson(options, `${root}/api/ps`);
  return Array.isArray(ps?.models) ? (ps.models as Json[]).find(sameModel(options.model)) : undefined;
}

/** The server's name for people. */
export function serverName(kind: ServerKind): string {
  return { 'llama.cpp': "llama.cpp's server", ollama: 'Ollama', 'lm-studio': 'LM Studio', vllm: 'vLLM' }[kind];
}

/** How to give `model` a window of `wanted` tokens on that server: the setting to change. */
export function raiseWindowHint(window: ServerWindow, model: string, wanted: number): string {
  switch (window.server) {
    case 'ollama':
      return (
        `start Ollama with OLLAMA_CONTEXT_LENGTH=${wanted} (for the service: systemctl edit ollama, Environment=OLLAMA_CONTEXT_LENGTH=${wanted}), ` +
        `or create a model with "PARAMETER num_ctx ${wanted}" in its Modelfile (ollama create)`
      );
    case 'llama.cpp': {
      const slots = window.slots ?? 1;
      return `restart llama-server with -c ${wanted * slots} (--ctx-size ${wanted * slots}${slots > 1 ? `, shared by its ${slots} --parallel slots` : ''})`;
    }
    case 'lm-studio':
      return `load ${model} in LM Studio with a context length of at least ${wanted} (lms load ${model} --context-length ${wanted}, or the model's load settings in the app)`;
    case 'vllm':
      return `start vLLM with --max-model-len ${wanted}`;
  }
}

export interface ServerWindowSourceOptions extends ProbeOptions {
  /** `ContextWindow.Tokens`. */
  configured: number;
  log: Logger;
  /** How long an answer is reused; default 3 minutes. */
  ttlMs?: number;
  clock?: Clock;
}

/**
 * The daemon's one view of the server's window: asked at start and when a run begins, the
 * answer kept for a few minutes (a person may reload the model meanwhile). A window below
 * `ContextWindow.Tokens` is logged as a warning once per figure, naming the setting that
 * raises it; runs then use the smaller one.
 */
export class ServerWindowSource {
  readonly #options: ServerWindowSourceOptions;
  #cached: { at: number; value: ServerWindow | undefined; loaded: boolean } | undefined;
  /** The probe in flight, per `load`: a look without loading cannot answer a run that needs the loaded window. */
  readonly #pending = new Map<boolean, Promise<ServerWindow | undefined>>();
  #warned: number | undefined;

  constructor(options: ServerWindowSourceOptions) {
    this.#options = options;
  }

  /**
   * The server's answer (cached); `load` lets Ollama load the model to tell its window. `log`:
   * where a new answer is reported (a run's logger, so its lines carry the run's id).
   */
  async get(load = false, log: Logger = this.#options.log): Promise<ServerWindow | undefined> {
    const now = (this.#options.clock ?? systemClock)().getTime();
    const cached = this.#cached;
    if (cached && now - cached.at < (this.#options.ttlMs ?? 180_000) && (cached.loaded || !load || cached.value?.loaded)) return cached.value;
    // A load in flight answers a look too; a look in flight does not answer a load (the start-up
    // look would give a run "not loaded, no window" and the run would use ContextWindow.Tokens).
    const inFlight = this.#pending.get(load) ?? (load ? undefined : this.#pending.get(true));
    if (inFlight) return inFlight;
    const probe = probeServerWindow({ ...this.#options, load })
      .then((value) => {
        const kept = this.#cached;
        // A look that ends after a load began must not replace the loaded answer.
        if (load || !kept?.loaded || kept.at < now) {
          this.#cached = { at: now, value, loaded: load };
          this.#report(value, log);
        }
        return value;
      })
      .finally(() => this.#pending.delete(load));
    this.#pending.set(load, probe);
    return probe;
  }

  /** The window a run uses: the smaller of the server's and `ContextWindow.Tokens`. */
  async window(load = true): Promise<number> {
    const told = (await this.get(load))?.tokens;
    return told !== undefined ? Math.min(told, this.#options.configured) : this.#options.configured;
  }

  /** The window as last told, without asking (the status page): configured until the server tells. */
  known(): number {
    const told = this.#cached?.value?.tokens;
    return told !== undefined ? Math.min(told, this.#options.configured) : this.#options.configured;
  }

  #report(value: ServerWindow | undefined, log: Logger): void {
    const { configured, model } = this.#options;
    if (!value || value.tokens === undefined) {
      log.debug({ server: value?.server }, 'the server does not tell its context window: ContextWindow.Tokens is used as configured');
      return;
    }
    if (value.tokens >= configured || this.#warned === value.tokens) return;
    this.#warned = value.tokens;
    log.warn(
      { server: value.server, serverWindow: value.tokens, configured },
      `${serverName(value.server)} runs ${model} with a context window of ${value.tokens} tokens, less than ContextWindow.Tokens (${configured}): ` +
        `requests are sized for ${value.tokens}. To give meetings more room, ${raiseWindowHint(value, model, configured)}.`,
    );
  }
}
