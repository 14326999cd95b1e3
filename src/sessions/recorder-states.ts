import type { ContextState } from '../vault/notes/context.js';

/**
 * Whose context states are whose (docs/design.md §6). A recorder or transcriber moves the
 * context note through the first three; `summarizing`, `finished` and `error` are the
 * daemon's, written by its runs. A recorder that says `finished` means "the recording is
 * done", which is `session finish`: that sets the transcript's state, the summary's trigger.
 * Setting the context to `finished` instead would mark the meeting done and no summary
 * would ever run.
 */
export const RECORDER_STATES = ['collecting metadata', 'transcribing', 'speaker recognition'] as const;

export type RecorderState = (typeof RECORDER_STATES)[number];

export function isRecorderState(state: ContextState): state is RecorderState {
  return (RECORDER_STATES as readonly string[]).includes(state);
}

/** The refusal of one of the daemon's own states, pointing to what the caller meant. */
export function daemonStateRefusal(state: ContextState): string {
  return (
    `"${state}" is the daemon's own state, set by its runs; a recorder sets only ${RECORDER_STATES.join(', ')}. ` +
    'When the recording is done, call `meeting-assistant session finish <meeting-note>` ' +
    '(PUT /api/sessions/finish {"meeting": …}): it sets the transcript\'s state, which starts the summary'
  );
}
