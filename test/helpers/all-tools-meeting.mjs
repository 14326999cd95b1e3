// The meeting with everything (issue 21): a 3-hour transcript bound to two projects that have
// an AGENTS.md and a file each, past summaries of both, a speaker identity, a glossary and a
// dictionary, so that all nineteen tools have something to act on. Plain JavaScript so that
// the tests (through the .d.mts next to it) and bench/all-tools-meeting.mjs use the very same
// vault. The files are vault-relative paths with their content, for memfs or a temp folder.
import { transcriptLines } from './long-meeting-text.mjs';

export const NAME = '2026-11-30 Quarterly Planning';
export const MEETING = `Meetings/${NAME}.md`;
export const TRANSCRIPT = `Meetings/Transcripts/${NAME}.md`;
export const CONTEXT = `Meetings/Context/${NAME}.md`;
export const SUMMARY = `Meetings/Summaries/${NAME}.md`;
/** The project file the reader model appends to after the summary. */
export const PROJECT_FILE = 'Projects/Alpha/Overview.md';
/** Lines before the first transcript line (the transcript note's frontmatter). */
export const HEADER_LINES = 4;

/** The 3-hour transcript's speech lines (1,500 lines, about 53,000 tokens). */
export function allToolsSpeech() {
  return transcriptLines(32_300);
}

/** Every file of the vault, by vault-relative path. */
export function allToolsVault(speech = allToolsSpeech()) {
  return {
    [MEETING]:
      '---\ntitle: Quarterly Planning\nstart_time: 2026-11-30T09:00:00+01:00\nend_time: 2026-11-30T12:00:00+01:00\n' +
      `attendees: [Alice Martin, Bob Chen, Carol Diaz, Dan Okafor]\nprojects: [Alpha, Beta]\ntranscript: "[[Meetings/Transcripts/${NAME}]]"\n` +
      `context: "[[Meetings/Context/${NAME}]]"\nsummary: "[[Meetings/Summaries/${NAME}]]"\n---\n` +
      '## Agenda\n- Billing release\n- PostgreSQL 16 migration\n- Budget\n',
    [TRANSCRIPT]: `---\nmeeting: "[[Meetings/${NAME}]]"\nstate: finished\n---\n${speech.join('\n')}\n`,
    'Projects/Alpha/AGENTS.md': 'Alpha is the billing service. Record decisions in Overview.md under "## Decisions", newest last.\n',
    [PROJECT_FILE]: '# Alpha\n\nThe billing service.\n\n## Decisions\n- 2026-11-23: usage-based pricing in Q3.\n',
    'Projects/Beta/AGENTS.md': 'Beta is the platform team (databases, Kubernetes). Keep Roadmap.md short.\n',
    'Projects/Beta/Roadmap.md': '# Beta roadmap\n\n- Q4: PostgreSQL 16\n- Q1: Kubernetes 1.30\n',
    'Meetings/Summaries/2026-11-23 Alpha sync.md':
      '---\nstatus: done\nmeeting: "[[Meetings/2026-11-23 Alpha sync]]"\nprojects:\n- Alpha\nstart_time: 2026-11-23T09:00:00+01:00\n---\n' +
      '## Summary\nUsage-based pricing for Q3.\n\n## Decisions\n- Usage-based pricing.\n\n## Next steps\nNone.\n',
    'Meetings/Summaries/2026-11-24 Beta sync.md':
      '---\nstatus: done\nmeeting: "[[Meetings/2026-11-24 Beta sync]]"\nprojects:\n- Beta\nstart_time: 2026-11-24T09:00:00+01:00\n---\n' +
      '## Summary\nThe schema freeze until the migration is done.\n\n## Decisions\n- Freeze the schema.\n\n## Next steps\nNone.\n',
    'Meetings/Speakers/Alice Martin.md': '---\nvoice: alice-01\n---\nAlice Martin\n',
    'Meetings/Glossary.md': 'PG16: PostgreSQL 16\nBFF: backend for frontend\n',
    'Meetings/Dictionary.md': 'Okafor\n',
  };
}
