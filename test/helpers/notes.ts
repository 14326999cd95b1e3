/**
 * The notes of one meeting `name`, as a recorder and a transcriber write them: the meeting
 * note (Meetings/<name>.md), its transcript and its context note. The unit tests (memfs) and
 * the daemon integration tests build their vaults from these.
 */

/** The meeting note; `extra` adds frontmatter lines, each ending in a newline. */
export const meetingNote = (name: string, extra = '') =>
  `---\ntitle: ${name}\nstart_time: 2026-11-30T09:00:00+01:00\nattendees: [Alice, Bob]\nprojects: [Alpha]\n` +
  `transcript: "[[Meetings/Transcripts/${name}]]"\n${extra}---\nUser notes of ${name}.\n`;

/** Frontmatter lines linking the context and summary notes, which the daemon otherwise adds at its first look. */
export const contextAndSummaryLinks = (name: string) =>
  `context: "[[Meetings/Context/${name}]]"\nsummary: "[[Meetings/Summaries/${name}]]"\n`;

export const TRANSCRIPT_BODY = '[00:00:05] Alice: Good morning.\n[00:00:12] Bob: Hi.\n';

export const transcriptNote = (name: string, state: string, body = TRANSCRIPT_BODY) =>
  `---\nmeeting: "[[Meetings/${name}]]"\nstate: ${state}\n---\n${body}`;

/** The context note the session commands keep; `extra` adds frontmatter lines. */
export const contextNote = (name: string, state: string, extra = '') =>
  `---\ntitle: ${name}\nmeeting: "[[Meetings/${name}]]"\nstate: ${state}\n${extra}---\n`;
