import { ENGLISH_HEADINGS, LANGUAGES, type TaskFormat, codeOfName, headingsFor } from '../vault/notes/summary-sections.js';

/**
 * The shape of the summary the agent writes, appended to the instructions: its structure (a
 * template's body or the built-in sections), its language, and how action items are written.
 * Kept apart from the procedure prompt (Agent.InitialPrompt or the built-in one), which it
 * accompanies either way: the shape is chosen with the template and language settings.
 * Without a template it must stay short: it is sent with every request.
 */

export interface ShapeTemplate {
  name: string;
  /** Vault-relative path. */
  rel: string;
  body: string;
}

/**
 * Where the language came from: the meeting note, Agent.Language, or a clear guess from the
 * transcript's words. Without one the summary follows the transcript's language, unnamed.
 */
export type LanguageChoice = { value: string; source: 'meeting' | 'config' | 'transcript' } | undefined;

export interface SummaryShape {
  template?: ShapeTemplate;
  language: LanguageChoice;
  taskFormat: TaskFormat;
}

/** `de` -> German, `pt-BR` -> Brazilian Portuguese; a name stays as written. */
export function describeLanguage(value: string): { name: string; code: string | undefined } {
  const text = value.trim();
  // The table's languages by their plain code: without Intl.DisplayNames, whose lookup maps
  // 4 MB of ICU data into the daemon for the rest of its life (BENCHMARKS.md).
  const code = text.toLowerCase();
  // Own keys only: "constructor" is a language name as written, not the table's prototype.
  if (Object.hasOwn(LANGUAGES, code)) return { name: LANGUAGES[code]!.english, code };
  if (/^[a-z]{2,3}(?:[-_][a-z0-9]{2,8})*$/i.test(text)) {
    try {
      const [canonical] = Intl.getCanonicalLocales(text.replace(/_/g, '-'));
      const name = canonical && new Intl.DisplayNames(['en'], { type: 'language', fallback: 'none' }).of(canonical);
      if (canonical && name) return { name, code: canonical };
    } catch {
      // Not a language code after all ("Ido"? a name): used as written below.
    }
  }
  return { name: text, code: codeOfName(text) };
}

const TASK_EXAMPLES: Record<TaskFormat, string> = {
  tasks: 'one task line each: - [ ] Alice: send the draft 📅 2026-12-03',
  dataview: 'one task line each: - [ ] send the draft [owner:: Alice] [due:: 2026-12-03]',
  plain: 'one bullet each: - Alice: send the draft (by 2026-12-03)',
};

/** The section appended to the instructions. */
export function summaryShapeSection(shape: SummaryShape): string {
  const language = shape.language ? describeLanguage(shape.language.value) : undefined;
  const headings = language?.code === undefined ? undefined : headingsFor(language.code);
  const lines: string[] = [];
  if (shape.template) {
    const { name, rel, body } = shape.template;
    lines.push(
      `Summary structure (write_summary's content): the template "${name}" (${rel}). Use its headings in its order; the text under each heading says what to write there (do not copy it).`,
      '<template>',
      body.replace(/\s+$/, ''),
      '</template>',
    );
  } else {
    const h = headings ?? ENGLISH_HEADINGS;
    lines.push(
      "Summary structure (write_summary's content), exactly these sections:",
      `## ${h.summary}`,
      'Short paragraphs: what was discussed, for a reader who was not there.',
      `## ${h.decisions}`,
      'A bullet per decision made; "None." if none.',
      `## ${h.nextSteps}`,
      'The action items; "None." if none.',
    );
  }
  lines.push(
    `Action items: owner first, a date only when one was said (YYYY-MM-DD), ${TASK_EXAMPLES[shape.taskFormat]}`,
    languageSentence(shape, language?.name, headings !== undefined),
  );
  return lines.join('\n');
}

function languageSentence(shape: SummaryShape, name: string | undefined, localized: boolean): string {
  if (!shape.language || name === undefined) return 'Language: write the summary in the language of the transcript.';
  const asked = { meeting: ' (the meeting note asks for it)', config: '', transcript: ', the language of the transcript' }[shape.language.source];
  const headings = shape.template
    ? " Keep the template's headings as written."
    : localized
      ? ''
      : ' Keep the headings as given.';
  return `Language: write the summary in ${name}${asked}.${headings}`;
}

/** The first user message's lines about the summary's template. */
export function templateFact(template: ShapeTemplate | undefined): string {
  return template ? `Template: ${template.name} (${template.rel})` : 'Template: built-in';
}

/** The first user message's line asking the agent to put names to the speaker labels that are none. */
export function unnamedSpeakersFact(labels: readonly string[]): string[] {
  if (labels.length === 0) return [];
  return [
    `Unnamed speakers: ${labels.join(', ')}. When the transcript shows who one is, rename it with override_speaker; the summary uses names, never these labels.`,
  ];
}
