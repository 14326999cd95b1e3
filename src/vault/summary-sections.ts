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
 * Base language code -> the built-in headings, and the names people write for the language
 * (English and native, lower case, accents optional). Other languages keep English headings.
 */
export const LANGUAGES: Record<string, { names: string[]; headings: BuiltInHeadings }> = {
  en: { names: ['english'], headings: { summary: 'Summary', decisions: 'Decisions', nextSteps: 'Next steps' } },
  de: { names: ['german', 'deutsch'], headings: { summary: 'Zusammenfassung', decisions: 'Entscheidungen', nextSteps: 'Nächste Schritte' } },
  fr: { names: ['french', 'français', 'francais'], headings: { summary: 'Résumé', decisions: 'Décisions', nextSteps: 'Prochaines étapes' } },
  es: { names: ['spanish', 'español', 'espanol', 'castellano'], headings: { summary: 'Resumen', decisions: 'Decisiones', nextSteps: 'Próximos pasos' } },
  it: { names: ['italian', 'italiano'], headings: { summary: 'Riepilogo', decisions: 'Decisioni', nextSteps: 'Prossimi passi' } },
  pt: { names: ['portuguese', 'português', 'portugues'], headings: { summary: 'Resumo', decisions: 'Decisões', nextSteps: 'Próximos passos' } },
  nl: { names: ['dutch', 'nederlands', 'flemish', 'vlaams'], headings: { summary: 'Samenvatting', decisions: 'Besluiten', nextSteps: 'Volgende stappen' } },
  sv: { names: ['swedish', 'svenska'], headings: { summary: 'Sammanfattning', decisions: 'Beslut', nextSteps: 'Nästa steg' } },
  da: { names: ['danish', 'dansk'], headings: { summary: 'Resumé', decisions: 'Beslutninger', nextSteps: 'Næste skridt' } },
  nb: { names: ['norwegian', 'norsk', 'bokmål', 'bokmal', 'nynorsk'], headings: { summary: 'Sammendrag', decisions: 'Beslutninger', nextSteps: 'Neste steg' } },
  pl: { names: ['polish', 'polski'], headings: { summary: 'Podsumowanie', decisions: 'Decyzje', nextSteps: 'Następne kroki' } },
};

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
const TASK_LINE = /^\s*(?:[-*+]|\d+[.)])\s+\[[^\]]\]\s+\S/;
const LIST_ITEM = /^\s*(?:[-*+]|\d+[.)])\s+(.*\S)/;
const HEADING = /^#{1,6}\s+(.*?)\s*#*\s*$/;
const FENCE = /^\s*(```|~~~)/;
/** An item saying there is nothing: "None.", "Keine.", "Aucune", "n/a". */
const NOTHING = /^(?:none|nothing|n\/a|-+|keine?|nichts|aucune?|rien|ninguno|ninguna|nada|nessuno|nessuna|nenhum|nenhuma|geen|inga|ingen|brak)\.?$/i;

/**
 * Headings under which plain bullets are action items: every built-in "Next steps" heading,
 * and the usual names a template gives the section.
 */
const ACTION_HEADING = new RegExp(
  `^(?:${Object.values(LANGUAGES)
    .map((l) => l.headings.nextSteps.toLowerCase())
    .join('|')}|action items?|actions?|to-?dos?|tasks|follow-?ups?|aufgaben|todo)\\b`,
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
