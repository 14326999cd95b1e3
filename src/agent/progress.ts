/**
 * What a run reports while it works: the log, the status page and the context note show it,
 * so a person sees a long meeting move. Emitters call the sink synchronously and never
 * wait on it; a sink must not throw.
 */
export type RunProgress =
  /** A model request of the main conversation is about to be sent. */
  | { kind: 'turn'; turn: number; maxTurns: number }
  /** Tokens in use after a response, against the window that counts. */
  | { kind: 'context'; tokens: number; window: number }
  /** A part of a long transcript is being read into notes (1-based part, inclusive lines). */
  | { kind: 'transcript-part'; part: number; parts: number; from: number; to: number };

export type ProgressSink = (event: RunProgress) => void;
