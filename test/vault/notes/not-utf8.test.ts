import { describe, expect, it } from 'vitest';
import { resolveMeeting } from '../../../src/vault/notes/meeting.js';
import type { UnwritableFileError } from '../../../src/vault/files/regular-file.js';
import { memoryVault } from '../../helpers/memfs.js';
import { meetingNote, transcriptNote } from '../../helpers/notes.js';

/** docs/design.md §4: a frontmatter edit of a note that is not valid UTF-8 is skipped, logged, and the run goes on. */

describe('frontmatter edits of a note that is not UTF-8', () => {
  it("the meeting note's links are not written back; the meeting still resolves and the skip is reported", async () => {
    const vault = memoryVault({ 'Meetings/Transcripts/Latin.md': transcriptNote('Latin', 'finished') });
    const file = vault.abs('Meetings/Latin.md');
    const bytes = Buffer.concat([Buffer.from(meetingNote('Latin')), Buffer.from('Gr\xfc\xdfe aus K\xf6ln\n', 'latin1')]);
    await vault.fs.writeFile(file, bytes);
    const skipped: UnwritableFileError[] = [];
    vault.onSkippedWrite((err) => skipped.push(err));
    const artifacts = await resolveMeeting(vault, file);
    expect(vault.rel(artifacts.summaryPath)).toBe('Meetings/Summaries/Latin.md');
    expect(Buffer.from(await vault.fs.readFile(file)).equals(bytes)).toBe(true);
    expect(skipped.map((e) => [e.file, e.reason])).toEqual([['Meetings/Latin.md', 'not-utf8']]);
  });
});
