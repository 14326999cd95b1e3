/**
 * Links and headings of a Markdown page as GitHub renders them: headings and links inside
 * fenced code blocks are not headings or links; a heading's anchor is its text in lower case,
 * punctuation dropped, spaces as hyphens, a repeated one numbered (-1, -2, …).
 */

/** Each line of `text` with whether it lies inside a fenced code block. */
function linesOutsideFences(text: string): { line: string; number: number }[] {
  const out: { line: string; number: number }[] = [];
  let fence: string | undefined;
  text.split('\n').forEach((line, i) => {
    const open = /^\s*(```+|~~~+)/.exec(line);
    if (open) {
      if (fence === undefined) fence = open[1];
      else if (line.trim().startsWith(fence)) fence = undefined;
      return;
    }
    if (fence === undefined) out.push({ line, number: i + 1 });
  });
  return out;
}

export function headingAnchors(text: string): string[] {
  const seen = new Map<string, number>();
  const anchors: string[] = [];
  for (const { line } of linesOutsideFences(text)) {
    const m = /^#{1,6} (.*)$/.exec(line);
    if (!m) continue;
    const base = m[1]!
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .replace(/<[^>]+>/g, '')
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.push(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

/** The relative link targets of a page (not `scheme:` ones), with their line numbers; code spans skipped. */
export function relativeLinks(text: string): { target: string; line: number }[] {
  const links: { target: string; line: number }[] = [];
  for (const { line, number } of linesOutsideFences(text)) {
    const prose = line.replace(/`[^`]*`/g, '');
    for (const m of prose.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      const target = m[1]!;
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
      links.push({ target, line: number });
    }
  }
  return links;
}
