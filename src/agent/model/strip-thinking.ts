/**
 * Reasoning models served by Ollama, vLLM, llama.cpp or LM Studio often put their chain of
 * thought into the visible content as `<think>…</think>`. It is not part of the answer, so it
 * is removed before the loop sees the text.
 */
const BLOCK = /<(think|thinking)>[\s\S]*?<\/\1>/gi;
/** A close tag without its opening: templates like Qwen3's put `<think>` into the prompt. */
const ORPHAN_CLOSE = /^[\s\S]*?<\/think(?:ing)?>/i;
/** An opening tag never closed: the model ran out of tokens while still thinking. */
const UNCLOSED_OPEN = /^\s*<think(?:ing)?>/i;

export function stripThinking(text: string): string {
  let out = text.replace(BLOCK, '');
  out = out.replace(ORPHAN_CLOSE, '');
  if (UNCLOSED_OPEN.test(out)) return '';
  return out.trim();
}
