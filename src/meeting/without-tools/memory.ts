import type { Logger } from '../../log.js';

/**
 * Servers that refused tools, remembered per endpoint and model for the life of the process
 * that runs the meetings (docs/design.md §3 step 11): in the daemon its run process, which ends
 * a minute after its last run. The other meetings of a catch-up go without tools at once
 * instead of being refused again, logged once; after a pause the first run asks with tools
 * again, so a server or model fixed meanwhile gets the full agent without a restart. A model
 * that only answered in text is not remembered: a next run may fare better, and the agent is
 * worth its two requests.
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
      `the server refuses tools for ${endpoint.Model}: meetings are summarized without tools while this process runs them (meeting-assistant doctor says what gives the full agent)`,
    );
  }
}

function key(endpoint: { BaseUrl: string; Model: string }): string {
  return `${endpoint.BaseUrl.replace(/\/+$/, '')}\n${endpoint.Model}`;
}
