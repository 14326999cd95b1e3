// Shared by the daemon benchmarks (not run by bench/run.mjs: the name starts with "_").
import { mkdirSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';

export const SUMMARY_BODY = '## Summary\nBenchmark.\n## Decisions\n- None.\n## Next steps\n- None.\n';

export function meetingNote(name) {
  return (
    `---\ntitle: ${name}\nstart_time: 2026-11-30T09:00:00+01:00\nattendees: [Alice, Bob]\nprojects: [Alpha]\n` +
    `transcript: "[[Meetings/Transcripts/${name}]]"\ncontext: "[[Meetings/Context/${name}]]"\nsummary: "[[Meetings/Summaries/${name}]]"\n---\nNotes.\n`
  );
}

export function transcriptNote(name, state, lines = 40) {
  let body = '';
  for (let i = 0; i < lines; i++) body += `[00:${String(Math.floor(i / 60)).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}] Speaker ${i % 3}: line ${i} of the meeting.\n`;
  return `---\nmeeting: "[[Meetings/${name}]]"\nstate: ${state}\n---\n${body}`;
}

function write(file, content) {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, content);
}

/**
 * A settled vault of `total` notes: a quarter each meetings+transcripts, contexts, summaries
 * (all finished, nothing to do), the rest project files in 20 projects.
 */
export function generateVault(root, total = 20_000) {
  const meetings = Math.floor(total / 5);
  for (let i = 0; i < meetings; i++) {
    const name = `2026-01-01 ${String(i).padStart(5, '0')} Meeting`;
    write(path.join(root, 'Meetings', `${name}.md`), meetingNote(name));
    write(path.join(root, 'Meetings/Transcripts', `${name}.md`), transcriptNote(name, 'finished'));
    write(path.join(root, 'Meetings/Context', `${name}.md`), `---\ntitle: ${name}\nmeeting: "[[Meetings/${name}]]"\nstate: finished\nagenda: ""\n---\nNotebook.\n`);
    write(
      path.join(root, 'Meetings/Summaries', `${name}.md`),
      `---\ntitle: ${name}\nprojects: [Alpha]\nmeeting: "[[Meetings/${name}]]"\nstatus: done\n---\n${SUMMARY_BODY}`,
    );
  }
  const projectFiles = total - meetings * 4;
  for (let i = 0; i < projectFiles; i++) {
    write(path.join(root, 'Projects', `P${i % 20}`, `Note ${i}.md`), `# Note ${i}\nSome project knowledge.\n`);
  }
  return { meetings, projectFiles, total: meetings * 4 + projectFiles };
}

/**
 * A tiny OpenAI-compatible chat-completions endpoint: the first request of a conversation gets
 * a write_summary call, the next one "Done.". `onFirstRequest(body)` sees every conversation's start.
 * `before` lists tool calls (`{ name, arguments }`) made first, one per turn (a search, say).
 */
export async function startModelServer(onFirstRequest = () => {}, { before = [] } = {}) {
  let n = 0;
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (d) => (raw += d));
    req.on('end', () => {
      const body = raw ? JSON.parse(raw) : {};
      if (!req.url.endsWith('/chat/completions')) {
        res.writeHead(404).end();
        return;
      }
      const messages = body.messages ?? [];
      const hasSummary = messages.some((m) => m.role === 'assistant' && (m.tool_calls ?? []).some((c) => c.function?.name === 'write_summary'));
      if (!messages.some((m) => m.role === 'assistant')) onFirstRequest(body);
      const turn = messages.filter((m) => m.role === 'assistant' && m.tool_calls?.length).length;
      const call = turn < before.length ? before[turn] : { name: 'write_summary', arguments: { content: SUMMARY_BODY } };
      const message = hasSummary
        ? { role: 'assistant', content: 'Done.' }
        : {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: `call_${++n}`, type: 'function', function: { name: call.name, arguments: JSON.stringify(call.arguments) } }],
          };
      const answer = JSON.stringify({
        id: `chatcmpl-${n}`,
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model: body.model ?? 'bench',
        choices: [{ index: 0, message, finish_reason: hasSummary ? 'stop' : 'tool_calls', logprobs: null }],
        usage: { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110 },
      });
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(answer) }).end(answer);
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address();
  return { baseUrl: `http://127.0.0.1:${port}/v1`, close: () => new Promise((r) => server.close(r)) };
}

export function stats(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  const median = sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  return { median, min: sorted[0], max: sorted[sorted.length - 1], n: sorted.length };
}
