// The model endpoint of bench/trigger-latency.mjs, in a thread of its own: a real endpoint is
// another program, and one served from the daemon's own event loop saw each request late by
// whatever the daemon was doing then (relaying the run process's log lines, file events of
// the run's own writes), which the figures then blamed on the run.
//
// Each conversation calls list_projects once where it is offered, write_summary where it is
// offered and not yet called, and ends with "Done.". The thread posts, on the Unix-epoch clock
// both threads share (performance.timeOrigin + performance.now()):
//   { type: 'listening', port }
//   { type: 'first', meeting, at }    a meeting's first request arrived
//   { type: 'turn', meeting, ms }     list_projects answered -> that conversation's next request
import http from 'node:http';
import { parentPort, workerData } from 'node:worker_threads';

const { names, summary } = workerData;
const now = () => performance.timeOrigin + performance.now();
const calls = (messages, name) => messages.some((m) => m.role === 'assistant' && (m.tool_calls ?? []).some((c) => c.function?.name === name));
const offers = (body, name) => (body.tools ?? []).some((tool) => (tool.function?.name ?? tool.name) === name);
const pendingTurn = new Map();
let n = 0;

const server = http.createServer((req, res) => {
  const arrived = now();
  let raw = '';
  req.on('data', (d) => (raw += d));
  req.on('end', () => {
    if (!req.url.endsWith('/chat/completions')) {
      res.writeHead(404).end();
      return;
    }
    const body = JSON.parse(raw);
    const messages = body.messages ?? [];
    const first = String(messages.find((m) => m.role === 'user')?.content ?? '');
    const meeting = names.find((name) => first.includes(name));
    const conversation = `${meeting}|${first.slice(0, 200)}`;
    if (meeting && messages.every((m) => m.role !== 'assistant')) parentPort.postMessage({ type: 'first', meeting, at: arrived });
    const sent = pendingTurn.get(conversation);
    if (sent !== undefined) {
      pendingTurn.delete(conversation);
      parentPort.postMessage({ type: 'turn', meeting, ms: arrived - sent });
    }
    let call;
    if (offers(body, 'list_projects') && !calls(messages, 'list_projects')) call = { name: 'list_projects', arguments: {} };
    else if (offers(body, 'write_summary') && !calls(messages, 'write_summary')) call = { name: 'write_summary', arguments: { content: summary } };
    const message = call
      ? { role: 'assistant', content: null, tool_calls: [{ id: `call_${++n}`, type: 'function', function: { name: call.name, arguments: JSON.stringify(call.arguments) } }] }
      : { role: 'assistant', content: 'Done.' };
    const answer = JSON.stringify({
      id: `chatcmpl-${++n}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: body.model ?? 'bench',
      choices: [{ index: 0, message, finish_reason: call ? 'tool_calls' : 'stop', logprobs: null }],
      usage: { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110 },
    });
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(answer) });
    res.end(answer, () => {
      if (call?.name === 'list_projects') pendingTurn.set(conversation, now());
    });
  });
});
server.keepAliveTimeout = 10 * 60_000;
server.listen(0, '127.0.0.1', () => parentPort.postMessage({ type: 'listening', port: server.address().port }));
parentPort.on('message', (message) => {
  if (message === 'close') {
    server.closeAllConnections();
    server.close(() => process.exit(0));
  }
});
