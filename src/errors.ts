/**
 * The one error family of the project. `expected` marks the errors that are the user's or
 * the vault's (a bad config, a broken note, a refused path): the CLI shows their message
 * without a stack, the tool registry returns them to the model as `Error: …` results, a run
 * reports them as a broken meeting. Anything else is a fault of the program or the machine.
 */
export class MeetingAssistantError extends Error {
  /** The class's own name, so subclasses need not set it (and cannot set it wrongly). */
  override readonly name: string;

  constructor(
    message: string,
    readonly expected: boolean,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** Whether `err` is one the user or the vault caused (see MeetingAssistantError). */
export function isExpectedError(err: unknown): err is MeetingAssistantError {
  return err instanceof MeetingAssistantError && err.expected;
}
