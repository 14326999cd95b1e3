import { MeetingAssistantError } from '../errors.js';
/**
 * A refusal or a bad argument, worded for the model. The registry turns it into a tool
 * result starting with `Error: `; anything else a handler throws is an unexpected failure.
 */
export class ToolError extends MeetingAssistantError {
  constructor(message: string) {
    super(message, true);
  }
}
