/**
 * The default answer reserve (`ContextWindow.MaxOutputTokens` left out, docs/design.md §5), apart
 * from config.ts: the run process's window budget needs it, and config.ts builds its schemas
 * (zod) and loads node-cron as it is loaded, which a run has no use for: 0.2–0.3 s of a cold
 * run process's start (BENCHMARKS.md, run start).
 */

export const DEFAULT_MAX_OUTPUT_TOKENS = 4096;

/**
 * `ContextWindow.MaxOutputTokens` when it is left out: 4,096, or a quarter of a smaller
 * `ContextWindow.Tokens` (4,096 would leave nothing of a 4,096 window and half of 8,192).
 */
export function defaultMaxOutputTokens(tokens: number): number {
  return Math.max(1, Math.min(DEFAULT_MAX_OUTPUT_TOKENS, Math.floor(tokens / 4)));
}
