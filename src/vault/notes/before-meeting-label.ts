/**
 * How the `## Before the meeting` section of a note made ahead is labelled (docs/design.md §12):
 * the daemon writes it at the top of the context note (meeting-event/before-meeting.ts), and a
 * run that finds it tells the agent what it is (meeting/prompt.ts), so that nothing in it is
 * summarized as something said in the meeting.
 */

export const BEFORE_MEETING_HEADING = '## Before the meeting';

/** The line under the heading: whoever reads the note (a person, `ask`, the agent) sees it is no record of the meeting. */
export const BEFORE_MEETING_LABEL =
  '*Written by Meeting Assistant before the meeting, from earlier notes in the vault. Nothing here was said in this meeting.*';

/** The context note's body holds the section (its heading on a line of its own). */
export function hasBeforeMeetingSection(body: string): boolean {
  return body.split(/\r?\n/).some((line) => line.trimEnd() === BEFORE_MEETING_HEADING);
}
