/**
 * The sections of a summary note: the built-in headings in the languages people ask for most,
 * and the action items counted from a written summary (its `action_items` property).
 */

export interface BuiltInHeadings {
  summary: string;
  decisions: string;
  nextSteps: string;
}

export type TaskFormat = 'tasks' | 'dataview' | 'plain';

/**
 * Base language code -> the built-in headings, the names people write for the language
 * (English and native, lower case, accents optional) and its English name as ICU gives it (a
 * test holds them equal; the run then needs no ICU data for these). Other languages keep
 * English headings.
 */
export const LANGUAGES: Record<string, { english: string; names: string[]; headings: BuiltInHeadings }> = {
  en: { english: 'English', names: ['english'], headings: { summary: 'Summary', decisions: 'Decisions', nextSteps: 'Next steps' } },
  de: { english: 'German', names: ['german', 'deutsch'], headings: { summary: 'Zusammenfassung', decisions: 'Entscheidungen', nextSteps: 'Nächste Schritte' } },
  fr: { english: 'French', names: ['french', 'français', 'francais'], headings: { summary: 'Résumé', decisions: 'Décisions', nextSteps: 'Prochaines étapes' } },
  es: { english: 'Spanish', names: ['spanish', 'español', 'espanol', 'castellano'], headings: { summary: 'Resumen', decisions: 'Decisiones', nextSteps: 'Próximos pasos' } },
  it: { english: 'Italian', names: ['italian', 'italiano'], headings: { summary: 'Riepilogo', decisions: 'Decisioni', nextSteps: 'Prossimi passi' } },
  pt: { english: 'Portuguese', names: ['portuguese', 'português', 'portugues'], headings: { summary: 'Resumo', decisions: 'Decisões', nextSteps: 'Próximos passos' } },
  nl: { english: 'Dutch', names: ['dutch', 'nederlands', 'flemish', 'vlaams'], headings: { summary: 'Samenvatting', decisions: 'Besluiten', nextSteps: 'Volgende stappen' } },
  sv: { english: 'Swedish', names: ['swedish', 'svenska'], headings: { summary: 'Sammanfattning', decisions: 'Beslut', nextSteps: 'Nästa steg' } },
  da: { english: 'Danish', names: ['danish', 'dansk'], headings: { summary: 'Resumé', decisions: 'Beslutninger', nextSteps: 'Næste skridt' } },
  nb: { english: 'Norwegian Bokmål', names: ['norwegian', 'norsk', 'bokmål', 'bokmal', 'nynorsk'], headings: { summary: 'Sammendrag', decisions: 'Beslutninger', nextSteps: 'Neste steg' } },
  pl: { english: 'Polish', names: ['polish', 'polski'], headings: { summary: 'Podsumowanie', decisions: 'Decyzje', nextSteps: 'Następne kroki' } },
};

/**
 * Frequent short words that tell the languages apart in speech. Danish and Norwegian share
 * theirs, so neither wins against the other: such a transcript keeps the generic sentence.
 */
const FUNCTION_WORDS: Record<string, string[]> = {
  en: ['the', 'and', 'is', 'are', 'we', 'you', 'that', 'this', 'to', 'of', 'have', 'will', 'what', 'not', 'it'],
  de: ['der', 'die', 'das', 'und', 'ist', 'nicht', 'wir', 'ich', 'es', 'mit', 'auf', 'ein', 'eine', 'auch', 'dass'],
  fr: ['le', 'les', 'et', 'est', 'nous', 'vous', 'je', 'pas', 'une', 'des', 'pour', 'avec', 'ce', 'on', 'mais'],
  es: ['el', 'los', 'las', 'y', 'es', 'no', 'pero', 'una', 'por', 'con', 'para', 'lo', 'está', 'vamos', 'hay'],
  it: ['il', 'gli', 'è', 'che', 'non', 'noi', 'per', 'una', 'sono', 'con', 'del', 'anche', 'ma', 'questo', 'abbiamo'],
  pt: ['o', 'os', 'é', 'não', 'nós', 'uma', 'para', 'com', 'do', 'da', 'mas', 'isso', 'vamos', 'está', 'em'],
  nl: ['het', 'een', 'en', 'niet', 'wij', 'ik', 'dat', 'van', 'op', 'ook', 'maar', 'je', 'we', 'is', 'de'],
  sv: ['och', 'att', 'det', 'är', 'inte', 'vi', 'jag', 'som', 'på', 'med', 'för', 'har', 'så', 'en', 'vad'],
  da: ['og', 'at', 'det', 'er', 'ikke', 'vi', 'jeg', 'som', 'på', 'med', 'for', 'har', 'så', 'en', 'hvad'],
  nb: ['og', 'at', 'det', 'er', 'ikke', 'vi', 'jeg', 'som', 'på', 'med', 'for', 'har', 'så', 'en', 'hva'],
  pl: ['i', 'w', 'nie', 'się', 'na', 'że', 'jest', 'to', 'z', 'do', 'jak', 'ale', 'co', 'tak', 'mamy'],
};

/**
 * The language of a stretch of speech among the table's, when it is clear: enough function
 * words, and at least twice as many of one language's as of any other's. Otherwise undefined,
 * and the agent is told to use the transcript's language without naming it.
 */
export function guessLanguage(speech: string): string | undefined {
  const counts = new Map<string, number>();
  for (const word of speech.toLowerCase().match(/\p{L}+/gu) ?? []) counts.set(word, (counts.get(word) ?? 0) + 1);
  const scores = Object.entries(FUNCTION_WORDS)
    .map(([code, words]) => ({ code, score: words.reduce((sum, w) => sum + (counts.get(w) ?? 0), 0) }))
    .sort((a, b) => b.score - a.score);
  const [best, second] = scores;
  return best && best.score >= 20 && best.score >= 2 * (second?.score ?? 0) ? best.code : undefined;
}

/** Norwegian has three codes; the table keys Bokmål. */
const CODE_ALIASES: Record<string, string> = { no: 'nb', nn: 'nb' };

export const ENGLISH_HEADINGS = LANGUAGES.en!.headings;

/** The built-in headings in a language (`de`, `pt-BR`), undefined for one the table lacks. */
export function headingsFor(code: string): BuiltInHeadings | undefined {
  const base = code.toLowerCase().split(/[-_]/)[0]!;
  return LANGUAGES[CODE_ALIASES[base] ?? base]?.headings;
}

/** The table's code for a language name ("Brazilian Portuguese" -> pt), matched by whole words. */
export function codeOfName(name: string): string | undefined {
  const words = name.toLowerCase().split(/[^\p{L}]+/u);
  return Object.entries(LANGUAGES).find(([, entry]) => entry.names.some((n) => words.includes(n)))?.[0];
}

/** `- [ ] text`, `* [x] text`, `1. [ ] text`: what Obsidian's Tasks and Dataview plugins read as tasks. */
export const TASK_LINE = /^\s*(?:[-*+]|\d+[.)])\s+\[[^\]]\]\s+\S/;
export const LIST_ITEM = /^\s*(?:[-*+]|\d+[.)])\s+(.*\S)/;
export const HEADING = /^#{1,6}\s+(.*?)\s*#*\s*$/;
export const FENCE = /^\s*(```|~~~)/;
/** An item saying there is nothing: "None.", "Keine.", "Aucune", "n/a". */
export const NOTHING = /^(?:none|nothing|n\/a|-+|keine?|nichts|aucune?|rien|ninguno|ninguna|nada|nessuno|nessuna|nenhum|nenhuma|geen|inga|ingen|brak)\.?$/i;

/**
 * Headings under which plain bullets are action items: every built-in "Next steps" heading,
 * and the usual names a template gives the section.
 */
export const ACTION_HEADING = new RegExp(
  `^(?:${Object.values(LANGUAGES)
    .map((l) => l.headings.nextSteps.toLowerCase())
    .join('|')}|action items?|actions?|commitments?|to-?dos?|tasks|follow-?ups?|aufgaben|todo)\\b`,
  'iu',
);

/**
 * The action items of a written summary: its task lines (formats `tasks` and `dataview`), or
 * with `plain`, the list items under an action-items heading. `undefined` when `plain` finds
 * no such heading: no count is better than a wrong one.
 */
export function countActionItems(body: string, format: TaskFormat): number | undefined {
  let inFence = false;
  let inActions = false;
  let sawActions = false;
  let count = 0;
  for (const line of body.split(/\r?\n/)) {
    if (FENCE.test(line)) inFence = !inFence;
    if (inFence) continue;
    const heading = HEADING.exec(line);
    if (heading) {
      inActions = ACTION_HEADING.test(heading[1]!.replace(/[*_]/g, '').trim());
      sawActions ||= inActions;
      continue;
    }
    if (format !== 'plain') {
      if (TASK_LINE.test(line)) count++;
      continue;
    }
    const item = LIST_ITEM.exec(line);
    if (inActions && item && !/^\s/.test(line) && !NOTHING.test(item[1]!.trim())) count++;
  }
  return format === 'plain' && !sawActions ? undefined : count;
}
