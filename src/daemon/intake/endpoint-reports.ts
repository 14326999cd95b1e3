import type { Vault } from '../../vault/files/vault.js';
import { RETRY_WHEN_ENDPOINT } from '../../vault/notes/summary.js';
import type { HeadCache } from '../../vault/scan/head-cache.js';

/**
 * docs/design.md §2: a failure report whose cause was an unreachable endpoint is retried when
 * the endpoint answers again. Such a report says so in its frontmatter (`retry_when`); one
 * written before that key existed is known by its error section (a network error whose
 * message names a connection that could not be made), read once per version of the file.
 */

/** The error section of a report of an endpoint nothing answered at. */
const UNREACHABLE_BODY = /^- Type: ModelError \(network\)$[\s\S]*?(ECONNREFUSED|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH|UND_ERR_CONNECT_TIMEOUT)/m;

export class EndpointReports {
  /** Per report without `retry_when`: the version last read, and whether its body names an unreachable endpoint. */
  readonly #bodies = new Map<string, { signature: string; unreachable: boolean }>();

  constructor(
    private readonly vault: Vault,
    private readonly heads: HeadCache,
  ) {}

  /** Whether the failure report (its frontmatter `data`) waits for the endpoint to answer again. */
  async waitsForEndpoint(summary: string, data: Record<string, unknown>): Promise<boolean> {
    if (data.status !== 'failed') return false;
    if (typeof data.retry_when === 'string') return data.retry_when.trim() === RETRY_WHEN_ENDPOINT;
    const signature = this.heads.signature([summary]);
    const known = this.#bodies.get(summary);
    if (known?.signature === signature) return known.unreachable;
    const text = await this.vault.readIfExists(summary);
    const unreachable = text !== undefined && UNREACHABLE_BODY.test(text);
    this.#bodies.set(summary, { signature, unreachable });
    return unreachable;
  }
}
