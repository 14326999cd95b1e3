import { parseNote } from '../../vault/format/frontmatter.js';
import { readConfinedText } from '../../vault/files/real-place.js';
import type { Vault } from '../../vault/files/vault.js';
import type { StatusView } from './status-view.js';
import { summaryHtml } from './summary-html.js';

/**
 * The texts of the summaries the status page shows, read from the vault and kept by mtime
 * and size: the page refreshes every second, the notes rarely change. A note that is gone,
 * or no longer a summary (a later run wrote a failure report there), shows no text.
 */
export class SummaryTexts {
  readonly #cache = new Map<string, { mtimeMs: number; size: number; html: string | undefined }>();

  constructor(private readonly vault: Vault) {}

  /** The view with each summary's text filled in. */
  async fill(view: StatusView): Promise<StatusView> {
    const summaries = await Promise.all(view.summaries.map(async (s) => ({ ...s, html: s.summary ? await this.html(s.summary) : undefined })));
    const kept = new Set(summaries.map((s) => s.summary));
    for (const note of this.#cache.keys()) if (!kept.has(note)) this.#cache.delete(note);
    return { ...view, summaries };
  }

  private async html(note: string): Promise<string | undefined> {
    const file = this.vault.abs(note);
    if (!this.vault.contains(file)) return undefined;
    const stat = await this.vault.fs.stat(file).catch(() => undefined);
    if (!stat) return undefined;
    const cached = this.#cache.get(note);
    if (cached && cached.mtimeMs === stat.mtimeMs && cached.size === stat.size) return cached.html;
    let html: string | undefined;
    try {
      // Confined as every read of a note vault content names (docs/design.md §10): a summary that
      // became a symbolic link to the token, or out of the vault, shows no text.
      const text = await readConfinedText(this.vault, file);
      const parsed = text === undefined ? undefined : parseNote(text);
      html = parsed?.data.status === 'done' ? summaryHtml(parsed.body) : undefined;
    } catch {
      // Unreadable or broken frontmatter: no text rather than a broken page.
      html = undefined;
    }
    this.#cache.set(note, { mtimeMs: stat.mtimeMs, size: stat.size, html });
    return html;
  }
}
