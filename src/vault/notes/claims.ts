import { mapLimit } from '../files/concurrency.js';
import { FrontmatterError, parseNote } from '../format/frontmatter.js';
import { type Head, HeadCache } from '../scan/head-cache.js';
import { LinkError, linkTarget, resolveLink, resolveOrPlanLink, type VaultFiles, vaultFiles } from '../format/links.js';
import type { VaultListing } from '../scan/vault-listing.js';
import { defaultNoteName } from './meeting-paths.js';
import type { Vault } from '../files/vault.js';

/**
 * docs/design.md §1: two meetings never share a summary or a context note. The note a
 * meeting's link names belongs to another meeting when its own `meeting` link says so (the
 * daemon writes that link into every summary, failure report and context note), or, while
 * that cannot tell, when another meeting note's `summary`/`context` link names it too.
 */

export type ClaimKind = 'summary' | 'context';

async function dataOf(vault: Vault, file: string): Promise<Record<string, unknown> | undefined> {
  const content = await vault.readIfExists(file);
  if (content === undefined) return undefined;
  try {
    return parseNote(content).data;
  } catch (err) {
    if (err instanceof FrontmatterError) return undefined;
    throw err;
  }
}

/** The existing meeting note the note's `meeting` link names; undefined when it names none. */
async function ownerOf(vault: Vault, file: string, files: VaultFiles | undefined): Promise<string | undefined> {
  const link = (await dataOf(vault, file))?.meeting;
  if (typeof link !== 'string' || linkTarget(link) === undefined) return undefined;
  try {
    const owner = await resolveLink(vault, link, files);
    return vault.kindOf(owner) === 'meeting' ? owner : undefined;
  } catch (err) {
    if (err instanceof LinkError) return undefined;
    throw err;
  }
}

/** What the cheap test compares a link with: the target's names, worked out once per pass, not per meeting note. */
interface TargetNames {
  abs: string;
  lowerAbs: string;
  rel: string;
  base: string;
}

function targetNames(vault: Vault, targetAbs: string): TargetNames {
  const rel = vault.rel(targetAbs).toLowerCase();
  return { abs: targetAbs, lowerAbs: targetAbs.toLowerCase(), rel, base: rel.split('/').pop() ?? rel };
}

/** Cheap test before a link is followed: could `value` name the target at all? */
function mayName(vault: Vault, value: string, target: TargetNames): boolean {
  const named = linkTarget(value);
  if (named === undefined) return false;
  const wanted = named.replace(/^\/+/, '').toLowerCase();
  // Each test below names a note of the target's own name: most links fail here, before the path work.
  if (!wanted.endsWith(target.base)) return false;
  return target.rel === wanted || target.rel.endsWith(`/${wanted}`) || target.base === wanted || vault.abs(named).toLowerCase() === target.lowerAbs;
}

export interface Claim {
  kind: ClaimKind;
  /** The note claimed (absolute). */
  target: string;
  /** The other meeting note that has it (vault-relative). */
  other: string;
}

/** Where the pass over the other meeting notes gets their heads: a HeadCache, or one a watcher vouches for (tools/cache/meeting-heads.ts). */
export interface HeadSource {
  get(absPath: string): Promise<Head | undefined>;
  /** Before a pass: back from where the heads waited between processes, when they did. */
  restore(): Promise<void>;
}

/**
 * Where a pass looks, when kept between runs (tools/binding/run-caches.ts): the meeting notes'
 * heads, and the vault's listing (scan/vault-listing.ts) for the meeting notes and the links'
 * look-ups; default, each read for this call alone.
 */
export interface ClaimLook {
  heads?: HeadSource;
  listing?: Pick<VaultListing, 'files' | 'meetingNotes'>;
}

/** What the pass over the other meeting notes needs of each: the links that can claim a note. */
export const CLAIM_KEYS = ['summary', 'context'] as const satisfies readonly ClaimKind[];

/**
 * Meeting notes whose heads are looked at once: stats, mostly (head-cache.ts reads at most 16
 * at once). One note at a time, a vault of 4,000 meetings took 1–2 s before every run's first
 * model request (BENCHMARKS.md, run start).
 */
export const CLAIM_CONCURRENCY = 64;

/**
 * Which of this meeting's notes another meeting note claims: `targets` are the absolute paths
 * its summary and context links resolve to (or are planned at). One pass over the meeting
 * notes, and only for notes whose own `meeting` link does not settle it. A note whose
 * `meeting` link names this meeting is its own, whatever other meeting notes link to it:
 * those are the ones to fix.
 *
 * `look.heads`: the meeting notes' frontmatter as the run's caches remember it (run-caches.ts:
 * kept between runs, and in the state folder between run processes), so that a pass reads
 * only the notes that changed; `look.listing`: the vault's files, checked by a stat per folder
 * instead of walked.
 */
export async function claimsByOthers(
  vault: Vault,
  meetingAbs: string,
  targets: Partial<Record<ClaimKind, string>>,
  look: ClaimLook = {},
): Promise<Claim[]> {
  const heads = look.heads ?? new HeadCache(vault, CLAIM_KEYS);
  // One look at the listing for the whole pass.
  const files = look.listing ? vaultFiles(vault, () => look.listing!.files()) : undefined;
  const out: Claim[] = [];
  const open: [ClaimKind, TargetNames][] = [];
  for (const [kind, target] of Object.entries(targets) as [ClaimKind, string][]) {
    const owner = await ownerOf(vault, target, files);
    if (owner === undefined) open.push([kind, targetNames(vault, target)]);
    else if (owner !== meetingAbs) out.push({ kind, target, other: vault.rel(owner) });
  }
  if (open.length === 0) return out;
  await heads.restore();
  const others = (await (look.listing ? look.listing.meetingNotes() : vault.listNotesOf('Meetings'))).filter((file) => file !== meetingAbs);
  // A note that cannot be read or parsed claims nothing, as one whose frontmatter is broken.
  const data = await mapLimit(others, CLAIM_CONCURRENCY, (file) => heads.get(file).then((head) => (head?.ok ? head.data : undefined), () => undefined));
  // In the order of the listing, as before: the first claimant is the one named.
  for (let i = 0; i < others.length && open.length > 0; i++) {
    const head = data[i];
    if (head === undefined) continue;
    // The cheap test first, without an await: most of 4,000 notes name nothing like the target.
    const named = open.filter(([kind, target]) => {
      const value = head[kind];
      return typeof value === 'string' && mayName(vault, value, target);
    });
    for (const [kind, target] of named) {
      if (!(await linkNames(vault, kind, head[kind], target, others[i]!, files))) continue;
      out.push({ kind, target: target.abs, other: vault.rel(others[i]!) });
      open.splice(open.findIndex(([k]) => k === kind), 1);
    }
  }
  return out;
}

/** Whether `value`, the `kind` link of the meeting note `linker`, names `targetAbs` (existing or still to be created). */
async function linkNames(vault: Vault, kind: ClaimKind, value: unknown, target: TargetNames, linker: string, files: VaultFiles | undefined): Promise<boolean> {
  if (typeof value !== 'string' || !mayName(vault, value, target)) return false;
  const folder = kind === 'summary' ? vault.layout.folders.Summaries : vault.layout.folders.Context;
  try {
    return (await resolveOrPlanLink(vault, value, folder, defaultNoteName(vault, linker), files)).path === target.abs;
  } catch (err) {
    if (err instanceof LinkError) return false;
    throw err;
  }
}
