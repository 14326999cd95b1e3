import OpenAI from 'openai';
import type { Settings } from '../../config.js';

/**
 * The one place an `OpenAI` SDK client is built. The SDK's own retries are off: our retry
 * policy (agent/model/retry.ts) follows docs/design.md §3 step 4 and logs every attempt.
 * Local endpoints need no key, but the SDK insists on one, so a placeholder is sent.
 */
export function createOpenAI(endpoint: Settings['Endpoint'], apiKey: string | undefined): OpenAI {
  return new OpenAI({
    baseURL: endpoint.BaseUrl,
    apiKey: apiKey || 'no-key',
    maxRetries: 0,
    timeout: endpoint.TimeoutSeconds * 1000,
  });
}
