import { MODEL_WITH_TOOLS } from '../agent/model/tools-refused.js';

/**
 * docs/design.md §2, "A model that does not call tools": many small local models answer in
 * text and never call a tool. A meeting's run then makes its summary without tools
 * (without-tools/); `ask` cannot answer from the meetings without them, and says so.
 */

/** What to do about a model without tool calling: `ask` (docs/design.md §11) says it. */
export const TOOL_CALLING_ADVICE =
  `Many small local models have no tool calling. Set \`Endpoint.Model\` to ${MODEL_WITH_TOOLS}, run \`meeting-assistant doctor\` ` +
  '(its "tool calling" check asks the model to call one tool)';
