/**
 * What a refusal of an over-long prompt says about the server's window: the limit it names
 * (OpenAI and vLLM "maximum context length is N", LM Studio "context length of only N",
 * llama.cpp `n_ctx`) and the prompt tokens it counted (llama.cpp `n_prompt_tokens`).
 */

/**
 * The window a context-too-long error names, if any: OpenAI and vLLM ("maximum context length
 * is 8192 tokens"), LM Studio ("context length of only 4096 tokens"), llama.cpp (`n_ctx` in the
 * error body).
 */
export function contextLimitFrom(cause: unknown): number | undefined {
  const patterns = [
    /maximum context length (?:is|of) (\d+)/i,
    /context length of (?:only )?(\d+)/i,
    /context (?:size|window) (?:is|of) (\d+)/i,
    /n_ctx\W{0,4}(\d+)/i,
  ];
  let current: unknown = cause;
  for (let depth = 0; current !== undefined && current !== null && depth < 4; depth++) {
    if (current instanceof Error) {
      for (const pattern of patterns) {
        const match = pattern.exec(current.message);
        if (match) return Number(match[1]);
      }
      const body = (current as { error?: unknown }).error;
      const nCtx = typeof body === 'object' && body !== null ? (body as { n_ctx?: unknown }).n_ctx : undefined;
      if (typeof nCtx === 'number' && nCtx > 0) return nCtx;
      const nested = typeof body === 'object' && body !== null ? (body as { error?: { n_ctx?: unknown } }).error?.n_ctx : undefined;
      if (typeof nested === 'number' && nested > 0) return nested;
      current = current.cause;
    } else {
      return undefined;
    }
  }
  return undefined;
}

/** The prompt tokens a refusal says the server counted (llama.cpp: `n_prompt_tokens`). */
export function promptTokensFrom(cause: unknown): number | undefined {
  let current: unknown = cause;
  for (let depth = 0; current instanceof Error && depth < 4; depth++) {
    const body = (current as { error?: unknown }).error;
    const inner = typeof body === 'object' && body !== null ? ((body as { error?: unknown }).error ?? body) : undefined;
    const n = typeof inner === 'object' && inner !== null ? (inner as { n_prompt_tokens?: unknown }).n_prompt_tokens : undefined;
    if (typeof n === 'number' && n > 0) return n;
    current = current.cause;
  }
  return undefined;
}
