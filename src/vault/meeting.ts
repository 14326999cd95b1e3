/**
 * A meeting and its artifacts, resolved from the meeting note (the hub). Implementation of
 * the resolution rules (links, defaults, write-back) lives below in this module.
 */
export interface MeetingArtifacts {
  /** Absolute paths. */
  meetingPath: string;
  transcriptPath: string;
  contextPath: string;
  summaryPath: string;
  /** From the meeting note's frontmatter; undefined when missing. */
  title: string | undefined;
  startTime: string | undefined;
  endTime: string | undefined;
  attendees: string[];
  /** Names of project folders as listed (existing or not). */
  projects: string[];
}
