import { escapeHtml } from './html.js';

/**
 * The status page's Ask box (docs/design.md §11): a question posted to `POST /api/ask` with
 * the page's cookie and CSRF value, the answer shown as it streams in, the sources as links
 * that open the notes in Obsidian. It sits outside `<main>`, which the page's live update
 * replaces every second: a question being typed or answered is never swept away.
 */
export function renderAskBox(vaultName: string, csrf: string): string {
  return `<section id="ask-box" class="ask" aria-label="Ask your meetings"><h2>Ask your meetings</h2>
<form id="ask-form" data-csrf="${escapeHtml(csrf)}" data-vault="${escapeHtml(vaultName)}">
<input id="ask-question" name="question" type="text" maxlength="4000" required placeholder="What did we decide about the release?" aria-label="Question">
<button type="submit">Ask</button></form>
<p id="ask-state" role="status" hidden></p>
<div id="ask-answer" class="answer" aria-live="polite"></div>
<ul id="ask-sources" class="sources"></ul></section>`;
}

export const ASK_STYLE = `.ask{padding:0 1.2em;max-width:75em}.ask form{display:flex;gap:.5em}.ask input{flex:1;font:inherit;padding:.25em .4em}
.ask .answer{white-space:pre-wrap;margin:.5em 0}.ask .sources{margin:.3em 0;padding-left:1.4em}`;

/** The box's script (served as /ask.js: the page's CSP allows only its own scripts). */
export const ASK_SCRIPT = `'use strict';
(() => {
  const form = document.getElementById('ask-form');
  if (!form) return;
  const input = document.getElementById('ask-question');
  const button = form.querySelector('button');
  const state = document.getElementById('ask-state');
  const answer = document.getElementById('ask-answer');
  const sources = document.getElementById('ask-sources');
  const link = (file) => 'obsidian://open?vault=' + encodeURIComponent(form.dataset.vault) + '&file=' + encodeURIComponent(file);
  const say = (text, kind) => { state.textContent = text; state.className = kind || ''; state.hidden = text === ''; };
  const handle = (name, data) => {
    if (name === 'waiting') say('Waiting: ' + data.ahead + ' question' + (data.ahead === 1 ? '' : 's') + ' ahead of this one (Ask.MaxConcurrent is ' + data.maxConcurrent + ').', 'queued');
    else if (name === 'delta') { say(''); answer.textContent += data.text; }
    else if (name === 'sources') {
      for (const s of data.sources) {
        const item = document.createElement('li');
        const a = document.createElement('a');
        a.href = link(s.path);
        a.textContent = s.title || s.path;
        item.append(a, ' ' + [s.start_time ? s.start_time.slice(0, 10) : '', s.path].filter(Boolean).join(' · '));
        sources.append(item);
      }
    } else if (name === 'done') { say(''); if (answer.textContent === '') answer.textContent = data.answer; }
    else if (name === 'error') say(data.error, 'err');
  };
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const question = input.value.trim();
    if (question === '') return;
    button.disabled = true;
    answer.textContent = '';
    sources.replaceChildren();
    say('Asking…', 'queued');
    try {
      const res = await fetch('/api/ask', { method: 'POST', credentials: 'same-origin', headers: { 'content-type': 'application/json', 'x-csrf-token': form.dataset.csrf }, body: JSON.stringify({ question }) });
      if (!res.ok) { const body = await res.json().catch(() => ({})); say(body.error || 'HTTP ' + res.status, 'err'); return; }
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = '';
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        buffer += value;
        let end;
        while ((end = buffer.indexOf('\\n\\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          let name = 'message';
          const data = [];
          for (const line of block.split('\\n')) {
            if (line.startsWith('event: ')) name = line.slice(7);
            else if (line.startsWith('data: ')) data.push(line.slice(6));
          }
          if (data.length > 0) handle(name, JSON.parse(data.join('\\n')));
        }
      }
    } catch (err) {
      say('The daemon does not answer: ' + err.message, 'err');
    } finally {
      button.disabled = false;
    }
  });
})();
`;
