import { type Clock, systemClock } from '../../clock.js';
import { BLOCKED_PORT_ADVICE, isBlockedPort } from './blocked-port.js';
import type { AppConfig } from '../../config.js';
import { causeChain, type Logger } from '../../log.js';
import { MAX_ANSWER_BYTES } from '../../http-io.js';
import { fetchGet, type HttpAnswer, defaultGet } from './http-get.js';

/**
 * Is the configured endpoint up, does it accept the key, does it list the model? One
 * `GET <BaseUrl>/models`, each finding with what to do about it. `doctor` prints the
 * findings; the daemon checks once at start and says in one line what is wrong
 * (reportEndpointProblems), before a meeting fails on it.
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

export function check(name: string, status: CheckStatus, detail: string, fix?: string): DoctorCheck {
  return { name, ok: status !== 'fail', status, detail, ...(fix ? { fix } : {}) };
}

export interface EndpointCheckDeps {
  fetch?: typeof fetch;
  clock?: Clock;
  /** For the request; default 5 s. */
  timeoutMs?: number;
  /** Ends the request early (the daemon is stopping). */
  signal?: AbortSignal;
}

export interface EndpointOutcome {
  checks: DoctorCheck[];
  /** The configured model as listed (undefined when it was not checked or not listed). */
  modelListed: string | undefined;
}

export function baseUrl(config: AppConfig): string {
  return config.settings.Endpoint.BaseUrl.replace(/\/+$/, '');
}

function keySource(config: AppConfig): string {
  const endpoint = config.settings.Endpoint;
  if (endpoint.ApiKey) return 'MeetingAssistant.Endpoint.ApiKey';
  return `the environment variable ${endpoint.ApiKeyEnvironmentVariable} (Endpoint.ApiKeyEnvironmentVariable)`;
}

export function authHeaders(config: AppConfig): Record<string, string> {
  return config.apiKey ? { Authorization: `Bearer ${config.apiKey}` } : {};
}

function looksLikeOllama(config: AppConfig): boolean {
  return /:11434(\/|$)/.test(config.settings.Endpoint.BaseUrl);
}

export async function checkEndpoint(config: AppConfig, deps: EndpointCheckDeps = {}): Promise<EndpointOutcome> {
  // The daemon's own process makes this check: node's HTTP client, not fetch (http-get.ts).
  const get = deps.fetch ? fetchGet(deps.fetch) : defaultGet();
  const clock = deps.clock ?? systemClock;
  const timeoutMs = deps.timeoutMs ?? 5000;
  const url = `${baseUrl(config)}/models`;

  const started = clock().getTime();
  let response: HttpAnswer;
  try {
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = deps.signal ? AbortSignal.any([deps.signal, timeout]) : timeout;
    response = await get(url, { headers: authHeaders(config), signal });
  } catch (err) {
    return unreachable(config, url, timeoutMs, err);
  }
  const latency = clock().getTime() - started;
  // The run's cap holds for the model list too (docs/design.md §3 step 4).
  const text = await response.text(MAX_ANSWER_BYTES, () => new Error('answer too large')).catch(() => '');

  if (response.status === 401 || response.status === 403) return keyRefused(config, url, response.status, latency, text);
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
  const model = modelCheck(config, ids);
  return { checks: [...checks, model.check], modelListed: model.listed };
}

/** The key and model checks when the endpoint could not be asked. */
function skipped(why: string): DoctorCheck[] {
  return [check('api key', 'skip', `not checked: ${why}`), check('model', 'skip', `not checked: ${why}`)];
}

/** GET /models failed or timed out: start the server, or fix the URL. */
function unreachable(config: AppConfig, url: string, timeoutMs: number, err: unknown): EndpointOutcome {
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
        isBlockedPort(err)
          ? `${BLOCKED_PORT_ADVICE}.`
          : `${serverHint}, or correct MeetingAssistant.Endpoint.BaseUrl (it must be the API root, e.g. http://localhost:11434/v1).`,
      ),
      ...skipped('the endpoint did not answer'),
    ],
    modelListed: undefined,
  };
}

/** 401/403: the server is up, the key (or its absence) is the problem. */
function keyRefused(config: AppConfig, url: string, status: number, latency: number, text: string): EndpointOutcome {
  const endpointCheck = check('endpoint', 'pass', `GET ${url} answered ${status} in ${latency} ms (the server is up)`);
  const keyCheck = config.apiKey
    ? check(
        'api key',
        'fail',
        `the endpoint refused the key from ${keySource(config)} (HTTP ${status}: ${errorMessageOf(text)})`,
        `Put a valid key in ${keySource(config)}. For the service, the variable must be set in the service's environment (systemctl --user edit meeting-assistant: [Service] Environment=...), or use Endpoint.ApiKey.`,
      )
    : check(
        'api key',
        'fail',
        `the endpoint demands a key (HTTP ${status}) and none is configured`,
        `Set MeetingAssistant.Endpoint.ApiKey, or export ${config.settings.Endpoint.ApiKeyEnvironmentVariable}=<your key> where meeting-assistant runs (Endpoint.ApiKeyEnvironmentVariable names the variable).`,
      );
  return {
    checks: [endpointCheck, keyCheck, check('model', 'skip', 'not checked: the endpoint refused to list models without a valid key')],
    modelListed: undefined,
  };
}

/** Is Endpoint.Model among the listed ids? Close names and a download hint when it is not. */
function modelCheck(config: AppConfig, ids: string[]): { check: DoctorCheck; listed: string | undefined } {
  const model = config.settings.Endpoint.Model;
  const listed = findModel(model, ids);
  if (listed) return { check: check('model', 'pass', `${model} is listed${listed !== model ? ` (as ${listed})` : ''}`), listed };
  const close = closestNames(model, ids);
  const pull = looksLikeOllama(config) ? `, or download it (ollama pull ${model})` : '';
  return {
    check: check(
      'model',
      'fail',
      ids.length === 0
        ? `${model} is not listed: the endpoint lists no models`
        : `${model} is not listed${close.length > 0 ? `; close names: ${close.join(', ')}` : ''}`,
      ids.length === 0
        ? `Load or download a model on the server${pull}, then set MeetingAssistant.Endpoint.Model to its id.`
        : `Set MeetingAssistant.Endpoint.Model to one of: ${(close.length > 0 ? close : ids.slice(0, 10)).join(', ')}${pull}.`,
    ),
    listed: undefined,
  };
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

/** The daemon's start-up check: quick, since it only has to tell a person what is wrong. */
const START_CHECK_TIMEOUT_MS = 3000;

/**
 * Checks the endpoint once and logs one warn line when it cannot be reached, refuses the key
 * or does not list the model, with the fix; a debug line when all is well. Never throws and
 * never holds up a start: the daemon calls it without waiting, after "ready".
 */
export async function reportEndpointProblems(config: AppConfig, log: Logger, deps: EndpointCheckDeps = {}): Promise<DoctorCheck | undefined> {
  const endpoint = baseUrl(config);
  try {
    const { checks } = await checkEndpoint(config, { timeoutMs: START_CHECK_TIMEOUT_MS, ...deps });
    if (deps.signal?.aborted) return undefined;
    const problem = checks.find((c) => c.status === 'fail');
    if (!problem) {
      log.debug({ endpoint, model: config.settings.Endpoint.Model }, 'endpoint check: the endpoint is up and lists the model');
      return undefined;
    }
    // Nothing answered (not an HTTP error): runs wait for it (docs/design.md §2) rather than fail.
    // A port fetch refuses (blocked-port.ts) is not waited for either: meetings fail, saying why.
    const unanswered = problem.name === 'endpoint' && !/ answered |: bad port/.test(problem.detail);
    log.warn(
      { endpoint, model: config.settings.Endpoint.Model, check: problem.name },
      `the model endpoint is not ready, ${unanswered ? 'runs wait until it answers' : 'meetings will fail until it is'}: ${problem.detail}. ${problem.fix ?? ''}`.trim(),
    );
    return problem;
  } catch (err) {
    log.warn({ endpoint, err }, 'could not check the model endpoint');
    return undefined;
  }
}
