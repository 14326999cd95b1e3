/**
 * What the ask run's model is told (docs/design.md §11): short, since at Ollama's default
 * 4,096 tokens the instructions and the four schemas go with every request. The rule that
 * matters most is the honest "the meetings do not say": a question the meetings do not answer
 * must not get an invention.
 */

export interface AskFilters {
  projects: string[];
  from?: string;
  to?: string;
}

export function askInstructions(language: string): string {
  const lang = language.trim() === '' ? 'the language of the question' : language.trim();
  return [
    'You answer questions about past meetings, using only what the tools return from the meeting notes.',
    'Look first: list_meetings or search_meetings to find meetings, read_meeting to read a summary (or its transcript for detail), list_action_items for who agreed to do what.',
    'Base every statement on what you read, and name each meeting you used as a [[link]] with the path the tools gave (without .md).',
    'If the meetings you read do not answer the question, say plainly that the meetings do not say, and do not guess.',
    `Answer briefly, in ${lang}.`,
  ].join('\n');
}

export function askFirstMessage(question: string, filters: AskFilters): string {
  const scope: string[] = [];
  if (filters.projects.length > 0) scope.push(`of the project${filters.projects.length > 1 ? 's' : ''} ${filters.projects.join(', ')}`);
  if (filters.from) scope.push(`from ${filters.from}`);
  if (filters.to) scope.push(`to ${filters.to}`);
  const only = scope.length > 0 ? `\n\nOnly meetings ${scope.join(' ')} count.` : '';
  return `${question.trim()}${only}`;
}

/** Told once when the model answers before it looked: a model without tool calling answers so twice (docs/design.md §2). */
export const LOOK_FIRST =
  'You have not looked at any meeting yet. Call a tool (list_meetings, search_meetings, read_meeting or list_action_items) to find the answer in the meetings first.';
