import type { ToolCall, ToolExecutor, ToolResult, ToolSchema } from '../agent/types.js';
import { callMeetingTool, MEETING_TOOLS, meetingToolSchema, parseToolArguments } from '../mcp/meeting-tools.js';
import type { McpContext } from '../mcp/tool.js';
import type { AskFilters } from './instructions.js';

/**
 * The ask run's tools (docs/design.md §11): the four of §10, the MCP server's own definitions
 * (mcp/meeting-tools.ts), offered to the agent loop. The question's `--project`, `--from` and
 * `--to` are the default of every call that leaves them out, so a model that forgets the
 * scope it was told still searches inside it; one that sets them itself is taken at its word.
 */
export class AskTools implements ToolExecutor {
  readonly schemas: ToolSchema[] = MEETING_TOOLS.map(meetingToolSchema);
  /** Calls made, by tool name (the run's log and the bench). */
  readonly calls = new Map<string, number>();

  constructor(
    private readonly ctx: McpContext,
    private readonly filters: AskFilters,
    private readonly signal: AbortSignal,
  ) {}

  async call(call: ToolCall): Promise<ToolResult> {
    const tool = MEETING_TOOLS.find((t) => t.name === call.name);
    if (!tool) return { isError: true, content: `Error: there is no tool named ${JSON.stringify(call.name)}; the tools are ${MEETING_TOOLS.map((t) => t.name).join(', ')}.` };
    this.calls.set(tool.name, (this.calls.get(tool.name) ?? 0) + 1);
    const parsed = parseToolArguments(tool, call.arguments);
    if ('error' in parsed) return { isError: true, content: `Error: ${parsed.error}` };
    const answer = await callMeetingTool(tool, this.#scoped(tool.name, parsed.args), this.ctx, this.signal);
    return { isError: answer.isError, content: answer.text };
  }

  #scoped(name: string, args: Record<string, unknown>): Record<string, unknown> {
    const { projects, from, to } = this.filters;
    const out = { ...args };
    const dated = name === 'list_meetings' || name === 'search_meetings';
    if (dated && from !== undefined) out.from ??= from;
    if (dated && to !== undefined) out.to ??= to;
    if (name === 'search_meetings' && projects.length > 0) out.projects ??= projects;
    // list_meetings and list_action_items take one project: only a single --project is a default there.
    if ((name === 'list_meetings' || name === 'list_action_items') && projects.length === 1) out.project ??= projects[0];
    return out;
  }
}
