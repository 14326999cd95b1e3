import { escapeHtml } from './html.js';
import { type ImportEntry, isActiveImport } from '../intake/import-board.js';
import type { StatusView } from './status-view.js';

/**
 * The inbox on the status page and in `status` (docs/design.md §9): files waiting to settle or
 * for their turn, being transcribed (with the time it has taken so far), imported (a link to
 * the meeting), failed (the error and a Retry button, which imports the file again).
 */

/** The page's own cell renderers, passed in so this module and status-page.ts do not import each other. */
export interface Cells {
  clock(iso: string): string;
  since(from: string, to: string): string;
  noteCell(view: StatusView, note: string | undefined): string;
}

const LABEL: Record<ImportEntry['state'], string> = {
  settling: 'waiting for the file to settle',
  waiting: 'waiting for its turn',
  transcribing: 'transcribing',
  importing: 'importing',
  imported: '<span class="ok">imported</span>',
  duplicate: 'imported before: not again',
  failed: '<span class="err">failed</span>',
};

function row(view: StatusView, entry: ImportEntry, csrf: string, cells: Cells): string {
  const state = isActiveImport(entry) ? `${LABEL[entry.state]}, ${cells.since(entry.since, view.now)}` : LABEL[entry.state];
  const detail =
    entry.state === 'failed'
      ? `<td class="error">${escapeHtml(entry.error ?? 'unknown error')}</td>`
      : `<td>${entry.meeting ? '' : '—'}</td>`;
  const action =
    entry.state === 'failed' && entry.failureNote
      ? `<form method="post" action="/imports/retry"><input type="hidden" name="file" value="${escapeHtml(entry.failureNote)}">` +
        `<input type="hidden" name="csrf" value="${escapeHtml(csrf)}"><button type="submit">Retry</button></form>`
      : '';
  return (
    `<tr class="import ${entry.state}"><td><code>${escapeHtml(entry.file)}</code><br>${cells.clock(entry.since)}</td><td>${state}</td>` +
    `${detail}${cells.noteCell(view, entry.meeting ?? entry.failureNote)}<td>${action}</td></tr>`
  );
}

export function renderImports(view: StatusView, csrf: string, cells: Cells): string {
  const imports = view.imports ?? [];
  const body =
    imports.length > 0
      ? imports.map((e) => row(view, e, csrf, cells)).join('\n')
      : '<tr><td colspan="5" class="empty">Nothing in the inbox. Drop a transcript or a recording there to import it.</td></tr>';
  return (
    `<section id="imports"><h2>Imports</h2><table><thead><tr><th>File</th><th>State</th><th>Error</th><th>Note</th><th></th></tr></thead>` +
    `<tbody>\n${body}\n</tbody></table></section>`
  );
}

/** The lines `status` prints for the inbox. */
export function importLines(imports: readonly ImportEntry[], now: Date): string[] {
  if (imports.length === 0) return [];
  const lines = ['imports:'];
  for (const e of imports) {
    const elapsed = Math.round((now.getTime() - Date.parse(e.since)) / 1000);
    const what = isActiveImport(e) ? `${e.state} (${elapsed} s)` : e.state;
    const tail = e.state === 'failed' ? `: ${e.error ?? ''}${e.failureNote ? ` (see ${e.failureNote})` : ''}` : e.meeting ? `: ${e.meeting}` : '';
    lines.push(`  ${what.padEnd(18)} ${e.file}${tail}`);
  }
  return lines;
}
