/**
 * Reasoning models served by Ollama, vLLM, llama.cpp or LM Studio often put their chain of
 * thought into the visible content as `<think>…</think>`. It is not part of the answer, so it
 * is removed before the loop sees the text (docs/design.md §3 step 11).
 *
 * One pass over the tags (a lazy `<think>[\s\S]*?</think>` pattern retried at every opening
 * is quadratic on an answer full of unclosed tags): a block runs from an opening to the first
 * close of the same name.
 */
const TAG = /<(\/?)(think|thinking)>/gi;
/** A close tag without its opening: templates like Qwen3's put `<think>` into the prompt. */
const ORPHAN_CLOSE = /<\/think(?:ing)?>/i;
/**
 * An opening tag never closed: the model ran out of tokens while still thinking. Everything
 * from it on is reasoning, whether it opens the answer or comes after some text (as a stream
 * shows it too: visible-text.ts hides all that follows an opening).
 */
const UNCLOSED_OPEN = /<think(?:ing)?>/i;

export function stripThinking(text: string): string {
  let out = withoutClosedBlocks(text);
  const orphan = ORPHAN_CLOSE.exec(out);
  if (orphan) out = out.slice(orphan.index + orphan[0].length);
  const unclosed = UNCLOSED_OPEN.exec(out);
  if (unclosed) out = out.slice(0, unclosed.index);
  return out.trim();
}

function withoutClosedBlocks(text: string): string {
  if (!text.includes('<')) return text;
  const open: Record<string, number | undefined> = {};
  const blocks: [number, number][] = [];
  for (const match of text.matchAll(TAG)) {
    const name = match[2]!.toLowerCase();
    if (match[1] === '') {
      open[name] ??= match.index;
      continue;
    }
    const start = open[name];
    if (start === undefined) continue;
    const end = match.index + match[0].length;
    // A block that holds earlier ones replaces them; an opening inside it is part of it.
    while (blocks.length > 0 && blocks[blocks.length - 1]![0] >= start) blocks.pop();
    blocks.push([start, end]);
    for (const key of Object.keys(open)) if ((open[key] ?? -1) >= start) open[key] = undefined;
  }
  if (blocks.length === 0) return text;
  let out = '';
  let last = 0;
  for (const [start, end] of blocks) {
    out += text.slice(last, start);
    last = end;
  }
  return out + text.slice(last);
}
