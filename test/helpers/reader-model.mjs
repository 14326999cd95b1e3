// A scripted READER model for long-meeting tests and benchmarks: it reads like a careful small
// model. With tools, it reads the whole transcript first, then goes on from the first line it
// has not seen (in a tool result, or covered by the transcript notes in its first message),
// `chunk` lines at a time, then writes the summary, then says it is done. Without tools, it
// answers a notes request with bullets of the lines it was shown, a condensing request with a
// selection of the bullets it was shown, and anything else (a compaction summary) briefly;
// always within the number of words asked for. With `updatesProjects`, once the summary is
// written and a request offers write_projectfile, it reads that project file and appends the
// meeting's decision to it (the project update the default prompt asks for), then says it is done.
//
// It can stand behind a server that cuts silently: a request the server counts over
// `serverWindow` is cut as Ollama cuts it, to its first 4 tokens plus the newest half of the
// window (only the lines in that tail reach the model), and the usage reports those kept
// tokens, 4 + (serverWindow - 4) / 2, as Ollama does (src/agent/window/truncation.ts). The server
// counts with its own tokenizer: `scale` times the client's estimate. Behind the scripted
// server's emulation (server-kinds.ts) the server decides instead: a request's `cut` says what
// it kept.
//
// Plain JavaScript, shared by the tests (through reader-model.ts) and bench/long-meeting.mjs.

/** Ollama keeps this many tokens of the start of a prompt it cuts, and the tail up to half its window. */
const OLLAMA_KEEP = 4;
const CAT_LINE = /^\s*(\d+)\t(.*)$/gm;
const NOTES_HEADING = /^### Lines (\d+)[–-](\d+)/gm;
const SUMMARY =
  '## Summary\nThe team planned the quarter: the billing release, the PostgreSQL 16 migration and the budget.\n\n' +
  '## Decisions\n- Ship the billing release behind a feature flag.\n\n## Next steps\n- Alice Martin: send the rollback plan by Friday.';

/**
 * @param {{ first: number, last: number, chunk?: number, countTokens: (text: string) => number,
 *   serverWindow?: number, scale?: number, updatesProjects?: { project: string, path: string, content: string } }} options
 */
export function createReaderModel(options) {
  const { first, last, countTokens } = options;
  const chunk = options.chunk ?? 400;
  const serverWindow = options.serverWindow ?? Infinity;
  const scale = options.scale ?? 1;
  /** Lines that reached the model in any request. */
  const reached = new Set();
  /** Lines the agent has seen in tool results: its own memory of the reading. */
  const memory = new Set();
  const state = { readWhole: false, summaryAsked: false, projectRead: false, projectWritten: false };
  const stats = {
    requests: 0,
    agentRequests: 0,
    promptTokens: 0,
    largest: 0,
    cut: 0,
    /** Set when the model asks to write the summary: had every line reached it by then? */
    everyLineBeforeSummary: undefined,
    /** Requests after the summary call that offered write_projectfile. */
    projectOffersAfterSummary: 0,
    /** The tool names of each agent request, in order. */
    toolSets: [],
  };

  /** @param {{ instructions: string, texts: string[], hasTools: boolean, tokens: number }} request */
  function respond(request) {
    stats.requests++;
    const count = request.cut?.sent ?? Math.ceil(request.tokens * scale);
    stats.promptTokens += count;
    stats.largest = Math.max(stats.largest, count);
    let visible = [request.instructions, ...request.texts].join('\n\n');
    let input = count;
    const cut = request.cut !== undefined || count > serverWindow;
    if (cut) {
      stats.cut++;
      input = request.cut?.kept ?? OLLAMA_KEEP + Math.floor((serverWindow - OLLAMA_KEEP) / 2);
      visible = visible.slice(Math.floor(visible.length * (1 - input / count)));
    }
    const shown = catLines(visible).filter((l) => l.n >= first && l.n <= last);
    for (const line of shown) reached.add(line.n);
    let reply;
    if (request.hasTools) {
      stats.agentRequests++;
      const tools = request.tools ?? [];
      stats.toolSets.push(tools);
      if (state.summaryAsked && tools.includes('write_projectfile')) stats.projectOffersAfterSummary++;
      reply = agentTurn(visible, shown, !cut, tools);
    } else {
      reply = notesTurn(visible, shown);
    }
    return { ...reply, usage: { input, output: countTokens(reply.content ?? JSON.stringify(reply.toolCalls ?? '')) + 8 } };
  }

  function agentTurn(visible, shown, commit, tools) {
    // A request that names its tools and offers no transcript read is after the reading.
    const reads = (names) => names.length === 0 || names.includes('read_transcript');
    if (state.summaryAsked || !reads(tools)) return afterSummary(commit, tools);
    const covered = [...visible.matchAll(NOTES_HEADING)].map((m) => [Number(m[1]), Number(m[2])]);
    if (commit) for (const line of shown) memory.add(line.n);
    const seen = (n) => memory.has(n) || covered.some(([a, b]) => n >= a && n <= b);
    if (!state.readWhole) {
      if (commit) state.readWhole = true;
      return { toolCalls: [{ name: 'read_transcript', arguments: {} }] };
    }
    for (let n = first; n <= last; n++) {
      if (!seen(n)) return { toolCalls: [{ name: 'read_transcript', arguments: { from: n, to: n + chunk - 1 } }] };
    }
    if (!state.summaryAsked) {
      if (commit) {
        state.summaryAsked = true;
        stats.everyLineBeforeSummary = reached.size === last - first + 1;
      }
      return { toolCalls: [{ name: 'write_summary', arguments: { content: SUMMARY } }] };
    }
    return afterSummary(commit, tools);
  }

  function afterSummary(commit, tools) {
    const update = options.updatesProjects;
    if (update && !state.projectWritten && tools.includes('write_projectfile')) {
      const { project, path } = update;
      if (!state.projectRead && tools.includes('read_projectfile')) {
        if (commit) state.projectRead = true;
        return { toolCalls: [{ name: 'read_projectfile', arguments: { project, path } }] };
      }
      if (commit) state.projectWritten = true;
      return { toolCalls: [{ name: 'write_projectfile', arguments: { project, path, content: update.content } }] };
    }
    return { content: 'Done.' };
  }

  function notesTurn(visible, shown) {
    const words = Number(/at most (\d+) words/.exec(visible)?.[1] ?? 60);
    let items;
    if (/Write the notes of lines/.test(visible)) {
      items = shown.map((l) => {
        const m = /^\[[^\]]*\]\s*([^:]+):\s*(.*)$/.exec(l.text);
        return `- ${m ? m[1] : 'Someone'}: ${(m ? m[2] : l.text).split(/\s+/).slice(0, 10).join(' ')} (L${l.n})`;
      });
    } else if (/Condense them/.test(visible)) {
      items = visible.split('\n').filter((l) => l.startsWith('- '));
    } else {
      return { content: `Earlier: the transcript was read up to line ${Math.max(first - 1, ...memory)}.` };
    }
    return { content: pickEvenly(items, words).join('\n') || '- (nothing said)' };
  }

  return {
    respond,
    stats,
    /** Lines (first..last) that reached the model. */
    linesReached: () => reached.size,
    totalLines: last - first + 1,
  };
}

function catLines(text) {
  return [...text.matchAll(CAT_LINE)].map((m) => ({ n: Number(m[1]), text: m[2] }));
}

/** As many items as fit `words`, spread evenly over the list. */
function pickEvenly(items, words) {
  if (items.length === 0) return [];
  const perItem = items.reduce((s, i) => s + i.split(/\s+/).length, 0) / items.length;
  const k = Math.max(1, Math.min(items.length, Math.floor(words / perItem)));
  const out = [];
  for (let i = 0; i < k; i++) out.push(items[Math.floor((i * items.length) / k)]);
  return out;
}
