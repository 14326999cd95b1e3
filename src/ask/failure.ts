import { AgentError } from '../agent/loop.js';
import { isUnreachable } from '../agent/model/endpoint-wait.js';
import { MeetingAssistantError } from '../errors.js';
import { TOOL_CALLING_ADVICE } from '../meeting/no-tool-calls.js';

/**
 * Why a question got no answer, in words a person can act on (docs/design.md §11: the
 * endpoint's failure as §2 words it; a model without tool calling as the summaries say it).
 */
export class AskError extends MeetingAssistantError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, true, options);
  }
}

export function askFailure(err: unknown, settings: { Endpoint: { BaseUrl: string; Model: string } }): AskError {
  if (err instanceof AskError) return err;
  const detail = err instanceof Error ? err.message : String(err);
  if (isUnreachable(err)) {
    return new AskError(
      `the model endpoint could not be reached at all (nothing answered): the model server is not running, or Endpoint.BaseUrl ` +
        `(${settings.Endpoint.BaseUrl}) names the wrong host or port. Start the model server and ask again. (${detail})`,
      { cause: err },
    );
  }
  if (err instanceof AgentError && err.kind === 'no-tool-calls') {
    return new AskError(
      `the model \`${settings.Endpoint.Model}\` does not call tools: it answered in text, even after a reminder, without looking ` +
        `at a meeting, so its answer would not come from them. ${TOOL_CALLING_ADVICE}, then ask again.`,
      { cause: err },
    );
  }
  return new AskError(detail, { cause: err });
}
