import type { ModelClient } from '../agent/types.js';

/**
 * The run's model client, counting the requests it sends: the run's outcome (RunOutcome
 * modelRequests) and the status page show them, retries and the transcript's notes included.
 */
export function countingRequests(model: ModelClient): ModelClient & { readonly requests: number } {
  let requests = 0;
  return {
    api: model.api,
    complete: (request) => {
      requests++;
      return model.complete(request);
    },
    get requests() {
      return requests;
    },
  };
}
