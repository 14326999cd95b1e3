import { localDateTime } from '../../clock.js';
import { escapeHtml } from './html.js';
import { ASK_STYLE, renderAskBox } from './ask-box.js';
import type { EndpointHealth } from './endpoint-health.js';
import { triggerLabel } from './trigger-labels.js';
import { renderImports } from './import-status.js';
import { liveNotesLine } from '../runs/live-notes-lane.js';
import type { LiveRun } from '../runs/run-board.js';
import type { RunRecord } from '../runs/run-history.js';
import type { FailureView, StatusView, SummaryView } from './status-view.js';

/**
 * The status page (docs/design.md §7, `GET /`): server-rendered HTML, complete without
 * JavaScript; a small script (STATUS_SCRIPT) swaps in a fresh `<main>` every second.
 */

const pad = (n: number) => String(n).padStart(2, '0');

/** Local time of the daemon's machine (the person's), to the second. */
function clock(iso: string): string {
  const text = localDateTime(iso, { seconds: true });
  return text === undefined ? escapeHtml(iso) : `<time datetime="${escapeHtml(iso)}">${text}</time>`;
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
  const turn = run.waitingForEndpoint
    ? `<strong class="queued">waiting for the model endpoint</strong>${view.endpoint.health.state === 'down' && view.endpoint.health.since ? ` (not answering since ${clock(view.endpoint.health.since)})` : ''}`
    : run.turn
      ? `turn ${run.turn.turn} of at most ${run.turn.maxTurns}`
      : 'starting';
  const part = run.transcriptPart
    ? `transcript part ${run.transcriptPart.part} of ${run.transcriptPart.parts} (lines ${run.transcriptPart.from}–${run.transcriptPart.to})`
    : '';
  const context = run.context
    ? `<progress max="${run.context.window}" value="${Math.min(run.context.tokens, run.context.window)}"></progress> ` +
      `${number(run.context.tokens)} of ${number(run.context.window)} tokens`
    : '';
  return (
    `<tr class="run" data-meeting="${escapeHtml(run.meeting)}"><td><strong>${nameOf(run)}</strong><br><code>${escapeHtml(run.meeting)}</code></td>` +
    `<td>${run.kind} (${escapeHtml(triggerLabel(run.trigger))})</td><td>${clock(run.startedAt)}<br>${since(run.startedAt, view.now)}</td>` +
    `<td class="progress"><span class="turn">${turn}</span>${part ? `<br><span class="part">${part}</span>` : ''}${context ? `<br><span class="context">${context}</span>` : ''}</td></tr>`
  );
}

function recentRow(view: StatusView, run: RunRecord): string {
  const outcome = run.status === 'done' ? '<span class="ok">done</span>' : '<span class="err">failed</span>';
  return (
    `<tr class="recent ${run.status}"><td><strong>${nameOf(run)}</strong><br><small>${run.kind}, ${escapeHtml(triggerLabel(run.trigger))}</small></td>` +
    `<td>${clock(run.startedAt)}</td><td>${since(run.startedAt, run.finishedAt)}</td><td>${outcome}</td>` +
    `<td class="num">${run.modelRequests ?? 0}</td>${noteCell(view, run.summary)}</tr>`
  );
}

/** The Retry and Regenerate buttons: a form POST to /retry with the page's CSRF value (page-routes.ts). */
export function retryForm(note: string, csrf: string, label: 'Retry' | 'Regenerate'): string {
  return (
    `<form method="post" action="/retry"><input type="hidden" name="note" value="${escapeHtml(note)}">` +
    `<input type="hidden" name="csrf" value="${escapeHtml(csrf)}"><button type="submit">${label}</button></form>`
  );
}

function failureRow(view: StatusView, run: FailureView, csrf: string): string {
  const action = !run.summary
    ? '<small>no summary note to retry: fix the meeting note</small>'
    : run.retryPending
      ? '<span class="queued">retry queued</span>'
      : retryForm(run.summary, csrf, 'Retry');
  return (
    `<tr class="failure"><td><strong>${nameOf(run)}</strong><br>${clock(run.finishedAt)}</td>` +
    `<td class="error">${escapeHtml(run.error ?? 'unknown error')}</td>${noteCell(view, run.summary)}<td>${action}</td></tr>`
  );
}

function table(caption: string, head: string[], rows: string[], empty: string, id: string): string {
  // Each cell names its column: on a narrow screen the rows become cards that show the names (STYLE).
  const labelled = rows.map((row) => {
    let column = 0;
    return row.replace(/<td\b/g, () => `<td data-label="${escapeHtml(head[column++] ?? '')}"`);
  });
  const body = labelled.length > 0 ? labelled.join('\n') : `<tr><td colspan="${head.length}" class="empty">${empty}</td></tr>`;
  return (
    `<section id="${id}"><h2>${caption}</h2><table><thead><tr>${head.map((h) => `<th>${h}</th>`).join('')}</tr></thead>` +
    `<tbody>\n${body}\n</tbody></table></section>`
  );
}

/**
 * The latest good summary of each meeting (newest first, the first one open): its text, an
 * Open in Obsidian link, and a Regenerate button (a retry of a good summary, docs/design.md
 * §2: it is replaced by the new summary, or by a failure report that says where it was kept).
 */
function renderSummaries(view: StatusView, csrf: string): string {
  const items = view.summaries.map((s, i) => summaryItem(view, s, csrf, i === 0));
  const body = items.length > 0 ? items.join('\n') : '<p class="empty">No summary yet.</p>';
  return `<section id="summaries"><h2>Summaries</h2>\n${body}\n</section>`;
}

function summaryItem(view: StatusView, run: SummaryView, csrf: string, open: boolean): string {
  const note = run.summary!;
  const action = run.retryPending ? '<span class="queued">regeneration queued</span>' : retryForm(note, csrf, 'Regenerate');
  const text = run.html ?? '<p class="empty">The note is no longer a summary, or is gone.</p>';
  return (
    `<article class="summary" data-meeting="${escapeHtml(run.meeting)}"><div class="meta"><strong>${nameOf(run)}</strong> ` +
    `<small>${clock(run.finishedAt)}, ${escapeHtml(triggerLabel(run.trigger))}</small> ` +
    `<a href="${escapeHtml(obsidianUrl(view.vaultName, note))}">Open in Obsidian</a> ${action}</div>` +
    `<details${open ? ' open' : ''}><summary><code>${escapeHtml(note)}</code></summary><div class="note">${text}</div></details></article>`
  );
}

/** Up, or down since when; and the runs waiting for it (the endpoint wait, docs/design.md §2). */
function healthLine(health: EndpointHealth): string {
  const state =
    health.state === 'up'
      ? `<span class="health up">● up</span>${health.since ? `, last answered ${clock(health.since)}` : ''}`
      : health.state === 'down'
        ? `<span class="health down">● down</span>${health.since ? ` since ${clock(health.since)}` : ''}${health.detail ? `<br><small class="error">${escapeHtml(health.detail)}</small>` : ''}`
        : '<span class="health unknown">● not used yet</span>';
  const waiting = health.waiting
    ? `<br><strong class="waiting">${health.waiting.runs} run${health.waiting.runs === 1 ? '' : 's'} waiting for it since ${clock(health.waiting.since)}</strong>`
    : '';
  return state + waiting;
}

/** Today's events (docs/design.md §12), the calendar's text escaped: an event's title is whatever its sender wrote. */
function renderTodayEvents(view: StatusView): string {
  const day = view.calendar!;
  const rows = day.events.map(
    (e) =>
      `<tr class="event"><td>${clock(e.start)} – ${clock(e.end)}</td><td><strong>${escapeHtml(e.title)}</strong></td>` +
      (e.meeting ? noteCell(view, e.meeting) : '<td class="empty">no meeting note yet</td>') +
      `</tr>`,
  );
  const body = rows.length > 0 ? rows.join('\n') : '<tr><td colspan="3" class="empty">No event today.</td></tr>';
  const failing = day.failing.map((s) => `<li class="error">${escapeHtml(s.name)}: ${escapeHtml(s.error)}</li>`).join('');
  return (
    `<section id="calendar"><h2>Today's events</h2>${failing ? `<ul>${failing}</ul>` : ''}` +
    `<table><thead><tr><th>When</th><th>Event</th><th>Meeting note</th></tr></thead><tbody>\n${body}\n</tbody></table></section>`
  );
}

/** The part of the page that changes: what the script fetches from `/status/live`. */
export function renderMain(view: StatusView, csrf: string): string {
  const e = view.endpoint;
  const about =
    `<section id="about"><dl>` +
    `<dt>Endpoint</dt><dd>${healthLine(e.health)}<br><code>${escapeHtml(e.url)}</code> (${escapeHtml(e.api)})</dd>` +
    `<dt>Model</dt><dd><code>${escapeHtml(e.model)}</code>, context window ${number(e.window)} tokens</dd>` +
    `<dt>Daemon</dt><dd>version ${escapeHtml(view.version)}, up ${since(view.startedAt, view.now)} (since ${clock(view.startedAt)})${view.stopping ? ', <strong>stopping</strong>' : ''}</dd>` +
    `<dt>Vault</dt><dd><code>${escapeHtml(view.vaultName)}</code></dd>` +
    (view.machine ? `<dt>Machine</dt><dd>${escapeHtml(view.machine)}</dd>` : '') +
    `</dl></section>`;
  return [
    about,
    table('Running', ['Meeting', 'Kind', 'Started', 'Progress'], view.running.map((r) => runningRow(view, r)), 'Nothing is running.', 'running'),
    table(
      'Queue',
      ['Meeting', 'Kind', 'Waiting since'],
      view.pending.map((p) => `<tr class="pending"><td><code>${escapeHtml(p.target)}</code></td><td>${p.kind} (${escapeHtml(triggerLabel(p.trigger))})</td><td>${clock(p.queuedAt)}</td></tr>`),
      'Nothing is waiting.',
      'queue',
    ),
    ...(view.liveNotes && view.liveNotes.length > 0
      ? [`<section id="live-notes"><h2>Notes while the meeting runs</h2><ul>${view.liveNotes.map((n) => `<li><code>${escapeHtml(n.meeting)}</code>: ${escapeHtml(liveNotesLine(n))}</li>`).join('')}</ul></section>`]
      : []),
    table('Failures', ['Meeting', 'Error', 'Failure report', ''], view.failures.map((f) => failureRow(view, f, csrf)), 'No meeting is failing.', 'failures'),
    renderSummaries(view, csrf),
    ...(view.imports ? [renderImports(view, csrf, { clock, since, noteCell })] : []),
    ...(view.calendar ? [renderTodayEvents(view)] : []),
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
:root{color-scheme:light dark;--fg:#1d1d1f;--bg:#fafafa;--card:#fff;--line:#e3e3e3;--head:#f0f0f0;--code:#f3f3f3;--muted:#6b6b6b;
--ok:#17602a;--err:#9b1c1c;--errbg:#fff7f7;--warn:#8a5a00;--bar:#243b53;--link:#1a56db}
@media (prefers-color-scheme:dark){:root{--fg:#e6e6e6;--bg:#15171a;--card:#1e2125;--line:#33373d;--head:#262a2f;--code:#2a2e34;
--muted:#a0a0a0;--ok:#6fcf8a;--err:#ff8a8a;--errbg:#2a1c1e;--warn:#e0b050;--bar:#0f2236;--link:#8ab4ff}}
body{font:15px/1.45 system-ui,sans-serif;margin:0;color:var(--fg);background:var(--bg)}a{color:var(--link)}
header{background:var(--bar);color:#fff;padding:.6em 1.2em;display:flex;flex-wrap:wrap;gap:.2em 1em;align-items:baseline}
header h1{font-size:1.2em;margin:0}#live{font-size:.85em;opacity:.8}
main{padding:0 1.2em 2em;max-width:75em}h2{font-size:1.05em;margin:1.4em 0 .4em}
table{border-collapse:collapse;width:100%;background:var(--card)}th,td{border-bottom:1px solid var(--line);padding:.35em .5em;text-align:left;vertical-align:top}
th{font-weight:600;background:var(--head)}td.num{text-align:right}td.empty,.empty{color:var(--muted);font-style:italic}
code{font-size:.88em;background:var(--code);padding:0 .2em;overflow-wrap:anywhere}.ok{color:var(--ok);font-weight:600}.err,td.error,.error{color:var(--err)}
.failed{background:var(--errbg)}dl{display:grid;grid-template-columns:max-content 1fr;gap:.2em 1em;margin:1em 0}dt{font-weight:600}dd{margin:0;min-width:0}
time{white-space:nowrap}progress{width:10em;max-width:100%;vertical-align:middle}button{font:inherit;padding:.2em .9em;cursor:pointer}.queued,.waiting{color:var(--warn)}
.health{font-weight:600}.health.up{color:var(--ok)}.health.down{color:var(--err)}.health.unknown{color:var(--muted)}
form{display:inline}.summary{background:var(--card);border:1px solid var(--line);border-radius:4px;padding:.5em .8em;margin:.5em 0}
.summary .meta{display:flex;flex-wrap:wrap;gap:.3em .8em;align-items:baseline}.summary summary{cursor:pointer;margin:.3em 0}
.note h3,.note h4,.note h5,.note h6{font-size:1em;margin:.8em 0 .2em}.note ul{margin:.2em 0;padding-left:1.4em}.note p{margin:.3em 0}
@media (max-width:600px){main{padding:0 .6em 2em}dl{grid-template-columns:1fr}dd{margin-bottom:.4em}
table,thead,tbody,tr,td{display:block}thead{display:none}tr{border-bottom:1px solid var(--line);padding:.3em 0}td{border:0;padding:.15em .3em}
td[data-label]:not([data-label=""])::before{content:attr(data-label);display:block;font-size:.8em;color:var(--muted)}td.num{text-align:left}}
`;

/** The whole page: the same `<main>` the live updates replace, in a frame. */
export function renderPage(view: StatusView, csrf: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="robots" content="noindex">
<meta name="viewport" content="width=device-width, initial-scale=1"><meta name="color-scheme" content="light dark">
<title>Meeting Assistant</title><style>${STYLE}${ASK_STYLE}</style>
<script src="/status.js" defer></script><script src="/ask.js" defer></script></head>
<body><header><h1>Meeting Assistant</h1><span id="live">Reload the page to update it.</span></header>
${renderAskBox(view.vaultName, csrf)}
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
