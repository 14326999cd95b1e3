import type { AppConfig } from '../config.js';
import { lowerTokensAdvice, outputReserve } from '../agent/window/window-budget.js';
import { check, type DoctorCheck } from '../agent/model/endpoint-check.js';
import { probeServerWindow, raiseWindowHint, type ServerWindow } from '../agent/window/server-window.js';
import type { DoctorDeps } from './types.js';

/** The effective context length: the probe the daemon uses (src/agent/window/server-window.ts). */

export async function checkContextLength(config: AppConfig, deps: DoctorDeps, model: string | undefined): Promise<DoctorCheck> {
  const name = 'context length';
  if (!model) return check(name, 'skip', 'not checked: the model is not available');
  const wanted = config.settings.ContextWindow.Tokens;
  const lower = (n: number) => lowerTokensAdvice(n, config.settings.ContextWindow);
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
  const used = (n: number) => (n < wanted ? `; runs use ${n} tokens, with answers of at most ${outputReserve(n, config.settings.ContextWindow)}` : '');
  if (told.modelMax !== undefined && told.modelMax < wanted) {
    return check(
      name,
      'fail',
      `${told.server === 'lm-studio' ? 'LM Studio: ' : ''}${model} supports at most ${told.modelMax} tokens; ContextWindow.Tokens is ${wanted}`,
      `${capitalize(lowerTokensAdvice(told.modelMax, config.settings.ContextWindow))}, or use a model with a longer context.`,
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
    return check(name, 'fail', `${where} ${told.tokens} tokens, below ContextWindow.Tokens (${wanted})${used(told.tokens)}`, `${raise}, or ${lower(told.tokens)}.`);
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
