import path from 'node:path';
import { eolOf, splitLines } from '../../vault/format/lines.js';
import { isTempFile, walkFiles } from '../../vault/files/fs.js';
import { isSyncToolFile } from '../../vault/files/sync-files.js';
import { inertMarkdown } from '../../vault/format/inert.js';
import { FrontmatterError, parseNote } from '../../vault/format/frontmatter.js';
import { normLabel, speakerLabel } from '../../vault/notes/transcript.js';
import { Vault } from '../../vault/files/vault.js';
import { defineTool } from '../define/define.js';
import { ToolError } from '../errors.js';
import { nameArgument } from '../define/args.js';
import { rewriteHint } from './speaker-names.js';

import { checkFolderName, realLocation } from '../../vault/files/confine.js';
import { readTextFile } from '../define/read.js';
import { UNCHANGED } from '../../vault/files/update.js';
import type { ToolBinding } from '../binding/types.js';

/**
 * Speech recognition aids: the dictation dictionary, speaker labels in the transcript, and the
 * speaker identities the recognizer learned. Every change is audited.
 */

export const addDictationWord = defineTool({
  name: 'add_dictation_word',
  description: 'Teach the transcriber a misheard word.',
  params: { word: { type: 'string', required: true, nonEmpty: true } },
  async handler(args, ctx) {
    // A note like any other: words added one by one must not make up a block that runs (docs/design.md §4).
    const word = inertMarkdown(nameArgument(args.word, 'word'));
    const abs = ctx.vault.layout.files.dictionary;
    // A folder or a binary file is refused before anything is written.
    await readTextFile(ctx.vault, abs);
    // Applied to the dictionary as it is at the moment of writing: words added meanwhile stay.
    const result = await ctx.audit.update(abs, (current) => {
      const text = current ?? '';
      if (splitLines(text).some((l) => l.trim().toLowerCase() === word.toLowerCase())) return UNCHANGED;
      const eol = eolOf(text);
      const sep = text !== '' && !text.endsWith('\n') ? eol : '';
      return `${text}${sep}${word}${eol}`;
    });
    if (!result.changed) return `${JSON.stringify(word)} is already in the dictionary; nothing changed.`;
    return `Added ${JSON.stringify(word)} to the dictionary ${ctx.vault.rel(abs)}.`;
  },
});

export const overrideSpeaker = defineTool({
  name: 'override_speaker',
  description: 'Rename a speaker label, e.g. "Speaker 2".',
  params: {
    speaker: { type: 'string', required: true, nonEmpty: true },
    name: { type: 'string', required: true, nonEmpty: true },
  },
  async handler(args, ctx) {
    const speaker = nameArgument(args.speaker, 'speaker');
    const name = nameArgument(args.name, 'name');
    if (/[:[\]]|\*\*/.test(name)) throw new ToolError('the name must not contain ":", "[", "]" or "**"; give the plain name.');
    const abs = ctx.meeting.transcriptPath;
    if ((await readTextFile(ctx.vault, abs)) === undefined) throw new ToolError(`the transcript ${ctx.vault.rel(abs)} does not exist.`);
    let changed = 0;
    // Applied to the transcript as it is at the moment of writing: lines added meanwhile are kept (and relabelled).
    await ctx.audit.update(abs, (text) => {
      if (text === undefined) throw new ToolError(`the transcript ${ctx.vault.rel(abs)} does not exist.`);
      const relabelled = relabel(ctx, text, abs, speaker, name);
      changed = relabelled.changed;
      return relabelled.changed === 0 ? UNCHANGED : relabelled.text;
    });
    // The summary must use the name from now on (write_summary refuses the label), and one
    // already written that says the label must be written again (the run's end checks it).
    (ctx.run.speakerNames ??= new Map()).set(speaker, name);
    const hint = rewriteHint(ctx.run, speaker, name);
    if (changed === 0) return `The lines of ${JSON.stringify(speaker)} are already labelled ${JSON.stringify(name)}.${hint}`;
    return `Relabelled ${changed} transcript line${changed === 1 ? '' : 's'} from ${JSON.stringify(speaker)} to ${JSON.stringify(name)}.${hint}`;
  },
});

/** Every transcript line spoken by `speaker` relabelled `name`; a ToolError when nobody speaks as `speaker`. */
function relabel(ctx: ToolBinding, text: string, abs: string, speaker: string, name: string): { text: string; changed: number } {
  let bodyStart: number;
  try {
    bodyStart = parseNote(text, ctx.vault.rel(abs)).bodyStartLine;
  } catch (err) {
    if (err instanceof FrontmatterError) throw new ToolError(`the transcript's frontmatter does not parse (${err.message}), so it is not edited.`);
    throw err;
  }
  // Split keeping each line's own ending, so nothing but the labels changes.
  const lines = text.split(/(?<=\n)/);
  const wanted = normLabel(speaker);
  const seen = new Set<string>();
  let changed = 0;
  for (let i = bodyStart - 1; i < lines.length; i++) {
    const line = lines[i]!;
    const found = speakerLabel(line);
    if (!found) continue;
    seen.add(found.text);
    if (normLabel(found.text) !== wanted) continue;
    if (found.text === name) continue;
    lines[i] = line.slice(0, found.start) + name + line.slice(found.end);
    changed++;
  }
  if (changed === 0 && ![...seen].some((s) => normLabel(s) === wanted)) {
    const speakers = [...seen].slice(0, 30);
    throw new ToolError(
      `no transcript line is spoken by ${JSON.stringify(speaker)}. Speakers in the transcript: ${speakers.length > 0 ? speakers.join(', ') : '(none found)'}.`,
    );
  }
  return { text: lines.join(''), changed };
}

/** Identity files below the identities folder (absolute paths), dot-entries and temp files skipped. */
async function identityFiles(ctx: ToolBinding): Promise<string[]> {
  const out: string[] = [];
  const skip = (name: string) => name.startsWith('.') || isTempFile(name) || isSyncToolFile(name);
  await walkFiles(ctx.vault.fs, ctx.vault.layout.folders.Identities, { skip }, ({ abs, entry }) => {
    if (entry.isFile() || entry.isSymbolicLink()) out.push(abs);
  });
  return out.sort();
}

/** Whether there is any identity for delete_identity to act on. */
export async function hasIdentities(ctx: ToolBinding): Promise<boolean> {
  return (await identityFiles(ctx)).length > 0;
}

function stem(file: string): string {
  return path.basename(file, path.extname(file));
}

export const deleteIdentity = defineTool({
  name: 'delete_identity',
  description: 'Trash a wrong voice profile.',
  params: { name: { type: 'string', required: true, nonEmpty: true } },
  async handler(args, ctx) {
    const name = checkFolderName(args.name, 'identity').replace(/\.md$/i, '');
    const folder = ctx.vault.layout.folders.Identities;
    const files = await identityFiles(ctx);
    let matches = files.filter((f) => stem(f) === name);
    if (matches.length === 0) matches = files.filter((f) => stem(f).toLowerCase() === name.toLowerCase());
    if (matches.length === 0) {
      const known = [...new Set(files.map(stem))].slice(0, 50);
      throw new ToolError(`there is no identity ${JSON.stringify(name)} in ${ctx.vault.rel(folder)}/. Identities: ${known.join(', ') || '(none)'}.`);
    }
    if (new Set(matches.map((f) => path.dirname(f))).size > 1) {
      throw new ToolError(`${JSON.stringify(name)} matches identities in several folders (${matches.map((f) => ctx.vault.rel(f)).join(', ')}); nothing was moved.`);
    }
    const realFolder = await realLocation(ctx.vault.fs, folder);
    for (const file of matches) {
      if (!Vault.isInside(realFolder, await realLocation(ctx.vault.fs, file))) {
        throw new ToolError(`the identity file ${ctx.vault.rel(file)} links outside ${ctx.vault.rel(folder)}/; refused.`);
      }
    }
    const moved: string[] = [];
    for (const file of matches) moved.push(`${ctx.vault.rel(file)} -> ${ctx.vault.rel(await ctx.audit.moveToTrash(file))}`);
    return `Moved the identity ${JSON.stringify(name)} to the trash: ${moved.join('; ')}.`;
  },
});
