import type { Logger } from '../../log.js';

/**
 * Servers that refused tools, remembered for the process's life (the daemon's, or its run
 * process's) per endpoint and model (docs/design.md §3 step 11): a later run goes without
 * tools at once instead of being refused again; logged once. A model that only answered in text
 * is not remembered: a next run may fare better, and the agent is worth its two requests.
 * A restart (after the server or the model changed) asks with tools again.
 */
export class ToolsRefusals {
  readonly #refused = new Map<string, string>();

  /** The server's words when it refused tools for this endpoint and model before. */
  refusal(endpoint: { BaseUrl: string; Model: string }): string | undefined {
    return this.#refused.get(key(endpoint));
  }

  remember(endpoint: { BaseUrl: string; Model: string }, serverWords: string, log: Logger): void {
    const k = key(endpoint);
    if (this.#refused.has(k)) return;
    this.#refused.set(k, serverWords);
    log.warn(
      { baseUrl: endpoint.BaseUrl, model: endpoint.Model, server: serverWords },
      `the server refuses tools for ${endpoint.Model}: its meetings are summarized without tools until the daemon restarts (run meeting-assistant doctor)`,
    );
  }
}

function key(endpoint: { BaseUrl: string; Model: string }): string {
  return `${endpoint.BaseUrl.replace(/\/+$/, '')}\n${endpoint.Model}`;
}
