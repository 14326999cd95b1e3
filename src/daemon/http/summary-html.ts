import { escapeHtml } from './html.js';

/**
 * A summary note's body for the status page (docs/design.md §7): the Markdown the agent
 * writes (headings, lists, task lines, paragraphs, **bold**, `code`, [[links]]) as plain,
 * safe HTML. Everything is escaped first; no raw HTML of the note reaches the page, and a
 * link is shown as its text (the page opens notes through Obsidian, not as web links).
 */

/** A longer body is cut here: the page shows summaries, not whole notebooks. */
export const SUMMARY_HTML_MAX_CHARS = 20_000;

export function summaryHtml(markdown: string): string {
  const cut = markdown.length > SUMMARY_HTML_MAX_CHARS;
  const lines = (cut ? markdown.slice(0, SUMMARY_HTML_MAX_CHARS) : markdown).split(/\r?\n/);
  const out: string[] = [];
  let list: string[] | undefined;
  let paragraph: string[] = [];
  const flush = () => {
    if (paragraph.length > 0) out.push(`<p>${paragraph.map(inline).join('<br>')}</p>`);
    paragraph = [];
    if (list) out.push(`<ul>${list.join('')}</ul>`);
    list = undefined;
  };
  for (const line of lines) {
    const heading = /^(#{1,6})\s+(.*)$/.exec(line);
    const item = /^\s*[-*+]\s+(?:\[( |x|X)\]\s+)?(.*)$/.exec(line);
    if (heading) {
      flush();
      // The page's own headings are h1 and h2: a note's start at h3.
      const level = Math.min(6, heading[1]!.length + 2);
      out.push(`<h${level}>${inline(heading[2]!)}</h${level}>`);
    } else if (item) {
      if (paragraph.length > 0) flush();
      const box = item[1] === undefined ? '' : item[1] === ' ' ? '☐ ' : '☑ ';
      (list ??= []).push(`<li>${box}${inline(item[2]!)}</li>`);
    } else if (line.trim() === '') {
      flush();
    } else {
      if (list) flush();
      paragraph.push(line.trim());
    }
  }
  flush();
  if (cut) out.push('<p><em>… (cut here: open the note for the rest)</em></p>');
  return out.join('\n');
}

/** Bold, code and links inside a line, after escaping it. */
function inline(text: string): string {
  return escapeHtml(text)
    .replace(/`([^`]+)`/g, '<code>$1</code>')
    .replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>')
    .replace(/\[\[([^\]|]*)(?:\|([^\]]*))?\]\]/g, (_, target: string, alias?: string) => `<span class="link">${alias ?? target.replace(/#.*$/, '')}</span>`);
}
