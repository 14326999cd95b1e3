import { describe, expect, it } from 'vitest';
import { healthFromRuns } from '../../../src/daemon/http/endpoint-health.js';
import { RunBoard } from '../../../src/daemon/runs/run-board.js';
import { RunHistory } from '../../../src/daemon/runs/run-history.js';
import { renderPage } from '../../../src/daemon/http/status-page.js';
import { buildStatusView } from '../../../src/daemon/http/status-view.js';
import { summaryHtml } from '../../../src/daemon/http/summary-html.js';
import { SummaryTexts } from '../../../src/daemon/http/summary-texts.js';
import { triggerLabel } from '../../../src/daemon/http/trigger-labels.js';
import { silentLogger } from '../../../src/log.js';
import { memoryVault } from '../../helpers/memfs.js';
import { symlink } from '../../helpers/tool-harness.js';
import { runRecord } from '../../helpers/run-records.js';

/** docs/design.md §7: the status page's endpoint health, trigger labels, summaries with Regenerate. */

const run = runRecord;

const UNREACHABLE = 'ModelError (network): Could not reach the model endpoint http://127.0.0.1:11434/v1/chat/completions';

function viewWith(board: RunBoard, pending: Parameters<typeof buildStatusView>[0]['pending'] = () => []) {
  return buildStatusView({
    version: '9.9.9',
    startedAt: new Date('2026-11-30T09:00:00Z'),
    vaultRoot: '/vault',
    board,
    pending,
    stopping: () => false,
    endpoint: { url: 'http://127.0.0.1:11434/v1', model: 'qwen3:8b', api: 'chat-completions' },
    endpointWindow: () => 32768,
    clock: () => new Date('2026-11-30T11:00:00Z'),
  });
}

describe('endpoint health', () => {
  it('up after a run that reached it, down since the first of the unreachable failures in a row, unknown before any', () => {
    expect(healthFromRuns([])).toEqual({ state: 'unknown' });
    const ok = run('A', 'done', 1);
    expect(healthFromRuns([ok])).toEqual({ state: 'up', since: ok.finishedAt });
    const down1 = run('B', 'failed', 2, { error: UNREACHABLE });
    const down2 = run('C', 'failed', 3, { error: UNREACHABLE });
    // Newest first, as the history lists them.
    expect(healthFromRuns([down2, down1, ok])).toEqual({ state: 'down', since: down1.finishedAt, detail: UNREACHABLE });
    // A broken meeting note says nothing about the endpoint: the run before it does.
    const broken = run('D', 'failed', 4, { error: 'BrokenMeetingError: no transcript', modelRequests: 0 });
    expect(healthFromRuns([broken, ok]).state).toBe('up');
  });

  it('the page says down since when, with the error, and shows the waiting runs when a source gives them', async () => {
    const board = new RunBoard(new RunHistory(memoryVault(), silentLogger));
    await board.history.add(run('B', 'failed', 2, { error: UNREACHABLE }));
    const html = renderPage(viewWith(board), 'c');
    expect(html).toMatch(/<span class="health down">● down<\/span> since <time datetime="2026-11-30T10:02:42Z">/);
    expect(html).toContain('Could not reach the model endpoint');
    const waiting = buildStatusView({
      ...{ version: '1', startedAt: new Date(), vaultRoot: '/vault', board, pending: () => [], stopping: () => false },
      endpoint: { url: 'u', model: 'm', api: 'chat-completions' },
      endpointWindow: () => 1,
      endpointHealth: () => ({ state: 'down', since: '2026-11-30T10:00:00Z', waiting: { since: '2026-11-30T10:00:05Z', runs: 2 } }),
    });
    expect(renderPage(waiting, 'c')).toMatch(/2 runs waiting for it since <time/);
  });
});

describe('trigger labels', () => {
  it.each([
    ['retry', 'retry checkbox'],
    ['link', 'retry link'],
    ['cli', 'command line'],
    ['api', 'API'],
    ['import', 'import'],
    ['catch-up', 'catch-up'],
    ['page', 'status page'],
    ['transcript', 'transcript finished'],
    ['catch-up, resumed', 'catch-up, resumed at start'],
  ])('%s is shown as "%s"', (code, label) => {
    expect(triggerLabel(code)).toBe(label);
  });

  it('the page shows the labels, not the codes', async () => {
    const board = new RunBoard(new RunHistory(memoryVault(), silentLogger));
    await board.history.add(run('A', 'done', 1, { kind: 'retry', trigger: 'retry' }));
    board.start('Meetings/B.md', { meeting: 'Meetings/B.md', kind: 'summarize', trigger: 'cli', startedAt: '2026-11-30T10:59:00Z' });
    const html = renderPage(viewWith(board), 'c');
    expect(html).toContain('retry, retry checkbox');
    expect(html).toContain('summarize (command line)');
  });
});

describe('summaries on the page', () => {
  it('the latest good summary of each meeting with its text and a Regenerate button (CSRF form); a queued one says so', async () => {
    const vault = memoryVault({
      'Meetings/Summaries/A.md': '---\nstatus: done\n---\n## Summary\nWe **agreed** on `v2`, see [[Projects/Alpha/Plan|the plan]].\n\n## Next steps\n- [ ] Ann: ship it\n- Bob <b>reviews</b>\n',
      'Meetings/Summaries/B.md': '---\nstatus: done\n---\n## Summary\nB text\n',
      'Meetings/Summaries/C.md': '---\nstatus: failed\n---\n# Summary failed\n',
    });
    const board = new RunBoard(new RunHistory(vault, silentLogger));
    await board.history.add(run('A', 'done', 1));
    await board.history.add(run('B', 'done', 2));
    await board.history.add(run('C', 'done', 3));
    await board.history.add(run('C', 'failed', 4, { error: UNREACHABLE }));
    const pending = () => [{ key: 'Meetings/B.md', kind: 'retry' as const, target: 'Meetings/Summaries/B.md', trigger: 'page', queuedAt: '2026-11-30T10:59:00Z' }];
    const view = await new SummaryTexts(vault).fill(viewWith(board, pending));
    expect(view.summaries.map((s) => s.title)).toEqual(['B', 'A']);
    const html = renderPage(view, 'the-csrf');
    const section = html.slice(html.indexOf('id="summaries"'), html.indexOf('id="recent"'));
    expect(section.match(/<button type="submit">Regenerate<\/button>/g)).toHaveLength(1);
    expect(section).toContain('<input type="hidden" name="note" value="Meetings/Summaries/A.md"><input type="hidden" name="csrf" value="the-csrf">');
    expect(section).toContain('regeneration queued');
    expect(section).toContain('We <strong>agreed</strong> on <code>v2</code>, see <span class="link">the plan</span>.');
    expect(section).toContain('<li>☐ Ann: ship it</li>');
    expect(section).toContain('Bob &#60;b&#62;reviews&#60;/b&#62;');
    expect(section).not.toContain('Summary failed');
  });

  it('a summary note that became a symbolic link out of the vault or into a dot-folder shows no text (issue #43 point 1)', async () => {
    const secret = '---\nstatus: done\n---\nSECRET-4343\n';
    const vault = memoryVault({ '/outside/note.md': secret, '.obsidian/note.md': secret });
    await vault.fs.mkdir(vault.abs('Meetings/Summaries'), { recursive: true });
    const link = (vault.fs as unknown as { symlink(t: string, p: string): Promise<void> }).symlink;
    await link.call(vault.fs, '/outside/note.md', vault.abs('Meetings/Summaries/A.md'));
    await link.call(vault.fs, vault.abs('.obsidian/note.md'), vault.abs('Meetings/Summaries/B.md'));
    const board = new RunBoard(new RunHistory(vault, silentLogger));
    await board.history.add(run('A', 'done', 1));
    await board.history.add(run('B', 'done', 2));
    const view = await new SummaryTexts(vault).fill(viewWith(board));
    expect(view.summaries.map((s) => s.html)).toEqual([undefined, undefined]);
    expect(renderPage(view, 'c')).not.toContain('SECRET-4343');
  });

  it('a summary note that became a failure report, or is gone, shows no text', async () => {
    const vault = memoryVault({ 'Meetings/Summaries/A.md': '---\nstatus: failed\n---\n# Summary failed\n' });
    const board = new RunBoard(new RunHistory(vault, silentLogger));
    await board.history.add(run('A', 'done', 1));
    await board.history.add(run('Gone', 'done', 2));
    const view = await new SummaryTexts(vault).fill(viewWith(board));
    expect(view.summaries.map((s) => s.html)).toEqual([undefined, undefined]);
    expect(renderPage(view, 'c')).toContain('The note is no longer a summary, or is gone.');
  });

  it('a summary that is a symbolic link out of the vault or into a dot-folder shows no text (issue 43)', async () => {
    const vault = memoryVault({ '/outside/secret.md': '---\nstatus: done\n---\nOUTSIDE-SECRET\n', '.obsidian/s.md': '---\nstatus: done\n---\nDOT-SECRET\n' });
    await vault.fs.mkdir('/vault/Meetings/Summaries', { recursive: true });
    await symlink(vault.fs, '/outside/secret.md', '/vault/Meetings/Summaries/A.md');
    await symlink(vault.fs, '/vault/.obsidian/s.md', '/vault/Meetings/Summaries/B.md');
    const board = new RunBoard(new RunHistory(vault, silentLogger));
    await board.history.add(run('A', 'done', 1));
    await board.history.add(run('B', 'done', 2));
    const view = await new SummaryTexts(vault).fill(viewWith(board));
    expect(view.summaries.map((s) => s.html)).toEqual([undefined, undefined]);
  });

  it('renders headings below the page\'s own and escapes everything', () => {
    expect(summaryHtml('# Title\n<script>x</script>')).toBe('<h3>Title</h3>\n<p>&#60;script&#62;x&#60;/script&#62;</p>');
  });
});

describe('layout', () => {
  it('every table cell names its column (the cards of a narrow screen), and the page has a dark scheme', async () => {
    const board = new RunBoard(new RunHistory(memoryVault(), silentLogger));
    await board.history.add(run('A', 'done', 1));
    const html = renderPage(viewWith(board), 'c');
    expect(html).toContain('<td data-label="Outcome"><span class="ok">done</span></td>');
    expect(html).toContain('@media (max-width:600px)');
    expect(html).toContain('@media (prefers-color-scheme:dark)');
    expect(html).toContain('<meta name="color-scheme" content="light dark">');
  });
});

describe('notes while the meeting runs on the page', () => {
  it('shows each meeting being noted ("notes: parts 1–4 of ~6"), and nothing when none is', () => {
    const board = new RunBoard(new RunHistory(memoryVault(), silentLogger));
    const view = { ...viewWith(board), liveNotes: [{ meeting: 'Meetings/<Planning>.md', parts: 4, about: 6, active: true }] };
    const html = renderPage(view, 'c');
    expect(html).toContain('<code>Meetings/&#60;Planning&#62;.md</code>: notes: parts 1–4 of ~6 (noting now)');
    expect(renderPage({ ...viewWith(board), liveNotes: [] }, 'c')).not.toContain('Notes while the meeting runs');
  });
});
