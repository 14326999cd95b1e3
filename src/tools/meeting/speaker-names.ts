import { isUnnamedLabel } from '../../vault/notes/transcript.js';
import type { RunState } from '../binding/types.js';

/**
 * The summary must not say "Speaker 2" once `override_speaker` named that speaker in this run
 * (issue 16). Shared by `write_summary` (which refuses such a summary), `override_speaker` (which
 * says when the summary already written needs rewriting) and the end-of-run check.
 */

/**
 * The mappings of `names` whose label `body` still says, as a whole word in any case. Only
 * labels a transcriber writes for an unknown speaker count: `Bob` → `Bob Smith` or a case-only
 * fix (`alice` → `Alice`) leaves a label people can read. The name itself is taken out first, so
 * `Guest` → `Dana Guest` does not find "Guest" inside "Dana Guest".
 */
export function staleSpeakerLabels(body: string, names: ReadonlyMap<string, string> | undefined): [label: string, name: string][] {
  const stale: [string, string][] = [];
  for (const [label, name] of names ?? []) {
    if (!isUnnamedLabel(label)) continue;
    // Compared in lower case, as the label is matched in any case.
    const rest = body.toLowerCase().split(name.toLowerCase()).join(' ');
    if (mentionsWord(rest, label)) stale.push([label, name]);
  }
  return stale;
}

/** "the summary still says X, whom you identified as Y" for each stale label (undefined: none). */
export function staleLabelsSentence(stale: readonly [string, string][]): string | undefined {
  if (stale.length === 0) return undefined;
  const each = stale.map(([label, name]) => `${JSON.stringify(label)}, whom you identified as ${JSON.stringify(name)}`);
  return `the summary still says ${each.join(', and ')}`;
}

/** What `override_speaker` adds to its result when the summary already written says `label`. */
export function rewriteHint(run: RunState, label: string, name: string): string {
  if (run.summaryBody === undefined || staleSpeakerLabels(run.summaryBody, new Map([[label, name]])).length === 0) return '';
  return ` The summary you wrote still says ${JSON.stringify(label)}: call write_summary again with the name ${JSON.stringify(name)}.`;
}

/** What the model is told when it ends the run with a summary that still says a mapped label. */
export function staleSummaryReminder(run: RunState): string | undefined {
  if (run.summaryBody === undefined) return undefined;
  const sentence = staleLabelsSentence(staleSpeakerLabels(run.summaryBody, run.speakerNames));
  if (!sentence) return undefined;
  return `The summary you wrote is not finished: ${sentence}. Call write_summary again with the names instead of the labels.`;
}

/** Whether `hay` (in lower case) has `word` as a whole word. */
function mentionsWord(hay: string, word: string): boolean {
  const needle = word.toLowerCase();
  const wordChar = (c: string | undefined) => c !== undefined && /[\p{L}\p{N}_]/u.test(c);
  for (let i = hay.indexOf(needle); i >= 0; i = hay.indexOf(needle, i + 1)) {
    if (!wordChar(hay[i - 1]) && !wordChar(hay[i + needle.length])) return true;
  }
  return false;
}
