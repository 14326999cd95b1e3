import { describe, expect, it } from 'vitest';
import { ImportBoard } from '../../../src/daemon/intake/import-board.js';
import { importLines } from '../../../src/daemon/http/import-status.js';
import { escapeHtml } from '../../../src/daemon/http/html.js';
import { obsidianUrl, renderMain } from '../../../src/daemon/http/status-page.js';
import type { StatusView } from '../../../src/daemon/http/status-view.js';

const now = new Date('2026-12-02T10:00:00Z');

function view(imports: StatusView['imports']): StatusView {
  return {
    version: '0.1.0',
    startedAt: '2026-12-02T09:00:00Z',
    now: now.toISOString(),
    vaultName: 'vault',
    endpoint: { url: 'http://x', model: 'm', api: 'chat-completions', window: 1000, health: { state: 'unknown' } },
    stopping: false,
    running: [],
    pending: [],
    recent: [],
    failures: [],
    summaries: [],
    imports,
  };
}

describe('imports on the status page and in status (docs/design.md §9)', () => {
  const board = () => {
    let t = new Date('2026-12-02T09:58:00Z');
    const b = new ImportBoard(() => t);
    b.set('Meetings/Inbox/big.m4a', 'transcribing');
    t = new Date('2026-12-02T09:59:50Z');
    b.set('Meetings/Inbox/new.vtt', 'settling');
    b.set('Meetings/Inbox/ok.vtt', 'imported', { meeting: 'Meetings/2026-12-02 0900 ok.md' });
    b.set('Meetings/Inbox/bad.pdf', 'failed', { error: 'bad.pdf: ".pdf" is not a format', failureNote: 'Meetings/Inbox/bad.pdf (import failed).md' });
    return b;
  };

  it('shows waiting, transcribing with its elapsed time, imported with a link, failed with its error and a Retry button', () => {
    const html = renderMain(view(board().list()), 'CSRF');
    const section = html.slice(html.indexOf('<section id="imports">'));
    expect(section).toMatch(/big\.m4a[\s\S]*transcribing, 2 min 00 s/);
    expect(section).toMatch(/new\.vtt[\s\S]*waiting for the file to settle, 10 s/);
    expect(section).toContain(escapeHtml(obsidianUrl('vault', 'Meetings/2026-12-02 0900 ok.md')));
    expect(section).toContain(`class="error">${escapeHtml('bad.pdf: ".pdf" is not a format')}`);
    expect(section).toContain('<form method="post" action="/imports/retry"><input type="hidden" name="file" value="Meetings/Inbox/bad.pdf (import failed).md"><input type="hidden" name="csrf" value="CSRF"><button type="submit">Retry</button></form>');
  });

  it('an empty inbox says how to use it; a view without imports has no section', () => {
    expect(renderMain(view([]), 'c')).toMatch(/Nothing in the inbox/);
    expect(renderMain(view(undefined), 'c')).not.toContain('id="imports"');
  });

  it('status prints one line per file, active ones first', () => {
    expect(importLines(board().list(), now)).toEqual([
      'imports:',
      '  transcribing (120 s) Meetings/Inbox/big.m4a',
      '  settling (10 s)    Meetings/Inbox/new.vtt',
      '  failed             Meetings/Inbox/bad.pdf: bad.pdf: ".pdf" is not a format (see Meetings/Inbox/bad.pdf (import failed).md)',
      '  imported           Meetings/Inbox/ok.vtt: Meetings/2026-12-02 0900 ok.md',
    ]);
  });

  it('the board keeps the last 20 outcomes', () => {
    const b = new ImportBoard(() => now);
    for (let i = 0; i < 30; i++) b.set(`f${i}`, 'imported');
    b.set('active', 'waiting');
    expect(b.list()).toHaveLength(21);
    expect(b.list()[0]!.file).toBe('active');
  });
});
