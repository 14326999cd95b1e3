import type { Clock } from '../clock.js';
import { parseNote, renderFrontmatter } from '../vault/format/frontmatter.js';
import { formatLink } from '../vault/format/links.js';
import type { Vault } from '../vault/files/vault.js';
import { failureNoteOf } from './inbox-rules.js';

/**
 * `<file name> (import failed).md` beside a file that could not be imported (docs/design.md
 * §9): `status: failed`, `retry: false` (a checkbox in Obsidian: ticking it imports again),
 * `source`, `failed_at`, and the error with what to do. The file itself is left as it is.
 */

export interface ImportFailure {
  message: string;
  /** What the person can do about it. */
  hint: string;
  /** The transcriber's last stderr lines, when it failed. */
  stderr?: string;
}

export async function writeFailureNote(vault: Vault, file: string, failure: ImportFailure, clock: Clock): Promise<string> {
  const note = failureNoteOf(file);
  const name = vault.rel(file).split('/').pop()!;
  const content =
    renderFrontmatter({
      status: 'failed',
      retry: false,
      source: formatLink(vault, file),
      failed_at: clock().toISOString().replace(/\.\d{3}Z$/, 'Z'),
    }) +
    `# Import failed: ${name}\n\n` +
    `${failure.message}\n\n` +
    `**What to do:** ${failure.hint}\n\n` +
    'Then tick `retry` in this note\'s properties (or set `retry: true`): the file is imported again. ' +
    'Nothing was changed or deleted; the file stays in the inbox until it is imported.\n\n' +
    (failure.stderr ? `The transcriber's last lines on stderr:\n\n\`\`\`\n${failure.stderr}\n\`\`\`\n\n` : '') +
    `- File: ${vault.rel(file)} (${file})\n`;
  await vault.write(note, content);
  return note;
}

/** Whether the note at `note` asks for the import to be tried again (`retry: true`). */
export function isRetryTicked(text: string | undefined): boolean {
  if (text === undefined) return false;
  try {
    const { data } = parseNote(text);
    return data.status === 'failed' && (data.retry === true || data.retry === 'true');
  } catch {
    return false;
  }
}

/** After a successful import the error note goes to `.trash/` (nothing is deleted). */
export async function clearFailureNote(vault: Vault, file: string): Promise<void> {
  const note = failureNoteOf(file);
  if (await vault.exists(note)) await vault.moveToTrash(note);
}
