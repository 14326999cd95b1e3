import path from 'node:path';
import { isFailureReportText } from './summary.js';
import type { Vault } from '../files/vault.js';

/**
 * docs/design.md §1: a failure report that replaces a good summary (a regeneration that
 * failed) keeps the summary in `.trash/` first and says where it is and how to put it back.
 */

export interface KeptSummary {
  /** What the note held when it was copied. */
  content: string;
  /** Absolute path of the copy in `.trash/`. */
  trash: string;
}

/** Copies the note at `summaryPath` to `.trash/` unless it is missing or already a failure report. */
export async function keepReplacedSummary(vault: Vault, summaryPath: string): Promise<KeptSummary | undefined> {
  const content = await vault.readIfExists(summaryPath);
  if (content === undefined || isFailureReportText(content)) return undefined;
  return { content, trash: await vault.copyToTrash(summaryPath) };
}

/** The report's paragraph on the kept summary: where it is, and how to put it back. */
export function keptSummaryNote(vault: Vault, kept: KeptSummary, summaryPath: string): string {
  const trash = vault.rel(kept.trash);
  const here = vault.rel(summaryPath);
  return (
    `**The previous summary is kept** in \`${trash}\` (absolute: \`${path.resolve(vault.root, kept.trash)}\`). ` +
    `To put it back instead of retrying, move that file back to \`${here}\`, replacing this report ` +
    `(Obsidian does not show \`.trash\`: use your file manager, or in a terminal ` +
    `\`mv "${path.resolve(vault.root, kept.trash)}" "${path.resolve(vault.root, summaryPath)}"\`).`
  );
}
