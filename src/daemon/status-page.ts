import { escapeHtml } from './html.js';
import { renderImports } from './import-status.js';
import type { LiveRun } from './run-board.js';
import type { RunRecord } from './run-history.js';
import type { FailureView, StatusView } from './status-view.js';

/**
 * The status page (docs/design.md §7, `GET /`): server-rendered HTML, complete without
 * JavaScript; a small script (STATUS_SCRIPT) swaps in a fresh `<main>` every second.
 */

const pad = (n: number) => String(n).padStart(2, '0');

/** Local time of the daemon's machine (the person's), to the second. */
function clock(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return escapeHtml(iso);
  const text = `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
  return `<time datetime="${escapeHtml(iso)}">${text}</time>`;
}

export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${pad(s % 60)} s`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h} h ${pad(m % 60)} min`;
  return `${Math.floor(h / 24)} d ${h % 24} h`;
}

const since = (from: string, to: string) => formatDuration(Date.parse(to) - Date.parse(from));
const number = (n: number) => n.toLocaleString('en-US');

/** `obsidian://open?vault=…&file=…`: opens the note in Obsidian. */
export function obsidianUrl(vaultName: string, file: string): string {
  return `obsidian://open?vault=${encodeURIComponent(vaultName)}&file=${encodeURIComponent(file)}`;
}

function nameOf(run: { title?: string; meeting: string }): string {
  return escapeHtml(run.title ?? run.meeting.replace(/^.*\//, '').replace(/\.md$/, ''));
}

function noteCell(view: StatusView, note: string | undefined): string {
  if (!note) return '<td class="path">—</td>';
  return `<td class="path"><a href="${escapeHtml(obsidianUrl(view.vaultName, note))}">Open in Obsidian</a><br><code>${escapeHtml(note)}</code></td>`;
}

function runningRow(view: StatusView, run: LiveRun): string {
  const turn = run.turn ? `turn ${run.turn.turn} of at most ${run.turn.maxTurns}` : 'starting';
  const part = run.transcriptPart
    ? `transcript part ${run.transcriptPart.part} of ${run.transcriptPart.parts} (lines ${run.transcriptPart.from}–${run.transcriptPart.to})`
    : '';
  const context = run.context
    ? `<progress max="${run.context.window}" value="${Math.min(run.context.tokens, run.context.window)}"></progress> ` +
      `${number(run.context.tokens)} of ${number(run.context.window)} tokens`
    : '';
  return (
    `<tr class="run" data-meeting="${escapeHtml(run.meeting)}"><td><strong>${nameOf(run)}</strong><br><code>${escapeHtml(run.meeting)}</code></td>` +
    `<td>${run.kind} (${escapeHtml(run.trigger)})</td><td>${clock(run.startedAt)}<br>${since(run.startedAt, view.now)}</td>` +
    `<td class="progress"><span class="turn">${turn}</span>${part ? `<br><span class="part">${part}</span>` : ''}${context ? `<br><span class="context">${context}</span>` : ''}</td></tr>`
  );
}

function recentRow(view: StatusView, run: RunRecord): string {
  const outcome = run.status === 'done' ? '<span class="ok">done</span>' : '<span class="err">failed</span>';
  return (
    `<tr class="recent ${run.status}"><td><strong>${nameOf(run)}</strong><br><small>${run.kind}, ${escapeHtml(run.trigger)}</small></td>` +
    `<td>${clock(run.startedAt)}</td><td>${since(run.startedAt, run.finishedAt)}</td><td>${outcome}</td>` +
    `<td class="num">${run.modelRequests ?? 0}</td>${noteCell(view, run.summary)}</tr>`
  );
}

function failureRow(view: StatusView, run: FailureView, csrf: string): string {
  const action = !run.summary
    ? '<small>no summary note to retry: fix the meeting note</small>'
    : run.retryPending
      ? '<span class="queued">retry queued</span>'
      : `<form method="post" action="/retry"><input type="hidden" name="note" value="${escapeHtml(run.summary)}">` +
        `<input type="hidden" name="csrf" value="${escapeHtml(csrf)}"><button type="submit">Retry</button></form>`;
  return (
    `<tr class="failure"><td><strong>${nameOf(run)}</strong><br>${clock(run.finishedAt)}</td>` +
    `<td class="error">${escapeHtml(run.error ?? 'unknown error')}</td>${noteCell(view, run.summary)}<td>${action}</td></tr>`
  );
}

function table(caption: string, head: string[], rows: string[], empty: string, id: string): string {
  const body = rows.length > 0 ? rows.join('\n') : `<tr><td colspan="${head.length}" class="empty">${empty}</td></tr>`;
  return (
    `<section id="${id}"><h2>${caption}</h2><table><thead><tr>${head.map((h) => `<th>${h}</th>`).join('')}</tr></thead>` +
    `<tbody>\n${body}\n</tbody></table></section>`
  );
}

/** The part of the page that changes: what the script fetches from `/status/live`. */
export function renderMain(view: StatusView, csrf: string): string {
  const e = view.endpoint;
  const about =
    `<section id="about"><dl>` +
    `<dt>Endpoint</dt><dd><code>${escapeHtml(e.url)}</code> (${escapeHtml(e.api)})</dd>` +
    `<dt>Model</dt><dd><code>${escapeHtml(e.model)}</code>, context window ${number(e.window)} tokens</dd>` +
    `<dt>Daemon</dt><dd>version ${escapeHtml(view.version)}, up ${since(view.startedAt, view.now)} (since ${clock(view.startedAt)})${view.stopping ? ', <strong>stopping</strong>' : ''}</dd>` +
    `<dt>Vault</dt><dd><code>${escapeHtml(view.vaultName)}</code></dd></dl></section>`;
  return [
    about,
    table('Running', ['Meeting', 'Kind', 'Started', 'Progress'], view.running.map((r) => runningRow(view, r)), 'Nothing is running.', 'running'),
    table(
      'Queue',
      ['Meeting', 'Kind', 'Waiting since'],
      view.pending.map((p) => `<tr class="pending"><td><code>${escapeHtml(p.target)}</code></td><td>${p.kind} (${escapeHtml(p.trigger)})</td><td>${clock(p.queuedAt)}</td></tr>`),
      'Nothing is waiting.',
      'queue',
    ),
    table('Failures', ['Meeting', 'Error', 'Failure report', ''], view.failures.map((f) => failureRow(view, f, csrf)), 'No meeting is failing.', 'failures'),
    ...(view.imports ? [renderImports(view, csrf, { clock, since, noteCell })] : []),
    table(
      `Recent runs (last ${view.recent.length})`,
      ['Meeting', 'Start', 'Duration', 'Outcome', 'Model requests', 'Note'],
      view.recent.map((r) => recentRow(view, r)),
      'No run yet.',
      'recent',
    ),
  ].join('\n');
}

const STYLE = `
body{font:15px/1.45 system-ui,sans-serif;margin:0;color:#1d1d1f;background:#fafafa}
header{background:#243b53;color:#fff;padding:.6em 1.2em;display:flex;gap:1em;align-items:baseline}
header h1{font-size:1.2em;margin:0}#live{font-size:.85em;opacity:.8}
main{padding:0 1.2em 2em;max-width:75em}h2{font-size:1.05em;margin:1.4em 0 .4em}
table{border-collapse:collapse;width:100%;background:#fff}th,td{border-bottom:1px solid #e3e3e3;padding:.35em .5em;text-align:left;vertical-align:top}
th{font-weight:600;background:#f0f0f0}td.num{text-align:right}td.empty{color:#777;font-style:italic}
code{font-size:.88em;background:#f3f3f3;padding:0 .2em;overflow-wrap:anywhere}.ok{color:#17602a;font-weight:600}.err,td.error{color:#9b1c1c}
.failed{background:#fff7f7}dl{display:grid;grid-template-columns:max-content 1fr;gap:.2em 1em;margin:1em 0}dt{font-weight:600}dd{margin:0}
time{white-space:nowrap}progress{width:10em;vertical-align:middle}button{font:inherit;padding:.2em .9em;cursor:pointer}.queued{color:#8a5a00}
`;

/** The whole page: the same `<main>` the live updates replace, in a frame. */
export function renderPage(view: StatusView, csrf: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="robots" content="noindex">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Meeting Assistant</title><style>${STYLE}</style>
<script src="/status.js" defer></script></head>
<body><header><h1>Meeting Assistant</h1><span id="live">Reload the page to update it.</span></header>
<main>
${renderMain(view, csrf)}
</main></body></html>
`;
}

/**
 * Polls `/status/live` and replaces each section whose HTML changed, only that one: a button
 * in an unchanged section keeps its focus while the running run's figures move.
 */
export const STATUS_SCRIPT = `'use strict';
(() => {
  const live = document.getElementById('live');
  const main = document.querySelector('main');
  const shown = new Map();
  const tick = async () => {
    try {
      const res = await fetch('/status/live', { credentials: 'same-origin', cache: 'no-store' });
      if (res.status === 401) { live.textContent = 'Signed out: open the page again with meeting-assistant open.'; return; }
      if (!res.ok) throw new Error('HTTP ' + res.status);
      const next = document.createElement('template');
      next.innerHTML = await res.text();
      for (const section of next.content.querySelectorAll('section[id]')) {
        const html = section.outerHTML;
        if (shown.get(section.id) === html) continue;
        shown.set(section.id, html);
        const current = document.getElementById(section.id);
        if (current) current.replaceWith(section);
        else main.append(section);
      }
      live.textContent = 'Live';
    } catch {
      live.textContent = 'The daemon does not answer; retrying…';
    }
    setTimeout(tick, 1000);
  };
  live.textContent = 'Live';
  setTimeout(tick, 1000);
})();
`;
