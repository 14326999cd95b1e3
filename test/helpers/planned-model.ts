import { estimateRequestTokens } from '../../src/agent/window/tokens.js';
import type { RecordedRequest, Step } from './scripted-server.js';
import { toolNamesOf } from './scripted-server.js';
import { requestAsConversation } from './server-kinds.js';

/**
 * A model that reads before it writes (issue 31): it makes the planned tool calls in order, one
 * per answer, each as soon as a request offers its tool (a call planned `afterSummary` only once
 * write_summary was called), and gives its final answer once nothing it can call is left. A
 * tool-less request (notes of a transcript part, a compaction summary) is not the agent's turn:
 * it gets a short note. Behind the scripted server, on either wire API.
 */

export interface PlannedCall {
  name: string;
  args: object;
  afterSummary?: boolean;
}

export interface PlannedModelOptions {
  /** Before the answer that makes `call` (a sync tool changing a file between two calls, say). */
  beforeCall?: (call: PlannedCall, index: number, req: RecordedRequest) => void | Promise<void>;
  /**
   * `server`: the usage a server reports for what it was sent (our estimate of the request, the
   * answer 50 tokens); default the scripted server's own small count.
   */
  usage?: 'server';
}

export interface PlannedModel {
  step: Step;
  /** Answers without a tool call, so far. */
  finalAnswers(): number;
}

export function plannedModel(plan: readonly PlannedCall[], options: PlannedModelOptions = {}): PlannedModel {
  const done = new Set<number>();
  const summaryAt = plan.findIndex((p) => p.name === 'write_summary');
  let finalAnswers = 0;
  const usageOf = (req: RecordedRequest) =>
    options.usage === 'server' ? { usage: { input: estimateRequestTokens(requestAsConversation(req.kind === 'chat' ? 'chat' : 'responses', req.body)), output: 50 } } : {};
  const step: Step = {
    handler: async (req: RecordedRequest): Promise<Step> => {
      const offered = toolNamesOf(req);
      if (offered.length === 0) return { reply: { content: '- Alice Martin: the billing release ships behind a flag (L5)', ...usageOf(req) } };
      const summarized = done.has(summaryAt);
      const next = plan.findIndex((p, i) => !done.has(i) && offered.includes(p.name) && (p.afterSummary !== true || summarized));
      if (next < 0) {
        finalAnswers++;
        return { reply: { content: 'Done.', ...usageOf(req) } };
      }
      done.add(next);
      await options.beforeCall?.(plan[next]!, next, req);
      return { reply: { toolCalls: [{ name: plan[next]!.name, arguments: plan[next]!.args }], ...usageOf(req) } };
    },
  };
  return { step, finalAnswers: () => finalAnswers };
}
