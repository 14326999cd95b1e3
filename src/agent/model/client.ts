import type { Clock } from '../../clock.js';
import type { AppConfig } from '../../config.js';
import { ChatCompletionsClient } from './chat-completions.js';
import { ResponsesClient } from './responses.js';
import type { ModelClient } from '../types.js';

/** The model client for `Endpoint.Api`, over the one SDK instance built by createOpenAI. */
export function createModelClient(config: AppConfig, clock?: Clock): ModelClient {
  const endpoint = config.settings.Endpoint;
  const options = clock ? { clock } : {};
  switch (endpoint.Api) {
    case 'responses':
      return new ResponsesClient(endpoint, config.apiKey, options);
    case 'chat-completions':
      return new ChatCompletionsClient(endpoint, config.apiKey, options);
  }
}
