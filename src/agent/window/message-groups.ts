import type { Message, ToolCall } from '../types.js';

/**
 * A conversation as units that compaction keeps or drops whole, and the check that both wire
 * APIs would accept it: every tool result right after its call, no call without its result.
 */

/** `messages.slice(start, end)` is one unit: never split by compaction. */
export interface Group {
  start: number;
  end: number;
}

/**
 * The groups of `messages` from index `from` (1: after the first user message). An assistant
 * message with tool calls takes the tool results that follow it and answer its calls; every
 * other message is a group of its own.
 */
export function groupMessages(messages: readonly Message[], from = 1): Group[] {
  const groups: Group[] = [];
  let i = from;
  while (i < messages.length) {
    const message = messages[i]!;
    let end = i + 1;
    if (message.role === 'assistant' && message.toolCalls && message.toolCalls.length > 0) {
      const ids = new Set(message.toolCalls.map((c) => c.id));
      while (end < messages.length) {
        const next = messages[end]!;
        if (next.role !== 'tool' || !ids.has(next.toolCallId)) break;
        end++;
      }
    }
    groups.push({ start: i, end });
    i = end;
  }
  return groups;
}

/**
 * What both wire APIs would reject: a tool result whose call is not right before it, or a
 * call without its result. Empty when the conversation is well formed.
 */
export function conversationProblems(messages: readonly Message[]): string[] {
  const problems: string[] = [];
  let open = new Map<string, string>();
  const closeOpen = (at: number) => {
    for (const [id, name] of open) problems.push(`call ${id} (${name}) before message ${at} has no result`);
    open = new Map();
  };
  messages.forEach((message, index) => {
    if (message.role === 'tool') {
      if (!open.has(message.toolCallId)) problems.push(`tool result ${index} (${message.toolCallId}) has no call before it`);
      open.delete(message.toolCallId);
      return;
    }
    closeOpen(index);
    if (message.role === 'assistant') {
      for (const call of message.toolCalls ?? []) open.set(call.id, call.name);
    }
  });
  closeOpen(messages.length);
  return problems;
}

/** Every tool call of the conversation by its id. */
export function callsById(messages: readonly Message[]): Map<string, ToolCall> {
  const calls = new Map<string, ToolCall>();
  for (const message of messages) {
    if (message.role === 'assistant') for (const call of message.toolCalls ?? []) calls.set(call.id, call);
  }
  return calls;
}
