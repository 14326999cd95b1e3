import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * A sync tool between two folders, for the two-machine tests (docs/design.md §2), behaving as
 * Syncthing does where it matters: a change is carried over once it has stood still for
 * `delayMs` (a file still being written is not); it arrives whole, through a rename, with its
 * modification time; when both sides changed a file before either saw the other's change, the
 * newer modification wins and the loser is kept beside it as
 * `<name>.sync-conflict-<YYYYMMDD>-<HHMMSS>-<device>.<ext>`; a deletion is carried over too.
 */

type Side = 'a' | 'b';

interface Seen {
  hash: string;
  mtimeMs: number;
  /** As scanned: what is carried over is what was seen, not what the file holds by then. */
  content: Buffer;
}

export interface SyncLoop {
  /** The conflict copies it made, vault-relative, in order. */
  readonly conflicts: string[];
  /** Every path a side changed by itself (not the loop), since the start or the last `clearChanges`. */
  changedOn(side: Side): string[];
  clearChanges(): void;
  stop(): void;
}

const OWN_TEMP = /^\.syncloop-[0-9a-f]+\.tmp$/;

function scan(root: string): Map<string, Seen> {
  const out = new Map<string, Seen>();
  const walk = (dir: string, rel: string) => {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return;
    }
    for (const name of names) {
      if (OWN_TEMP.test(name)) continue;
      const abs = path.join(dir, name);
      const r = rel ? `${rel}/${name}` : name;
      try {
        const st = statSync(abs);
        if (st.isDirectory()) {
          walk(abs, r);
          continue;
        }
        if (!st.isFile()) continue;
        const content = readFileSync(abs);
        out.set(r, { hash: createHash('sha256').update(content).digest('hex'), mtimeMs: st.mtimeMs, content });
      } catch {
        // Gone between the listing and the read: the next tick sees what is there.
      }
    }
  };
  walk(root, '');
  return out;
}

const pad = (n: number) => String(n).padStart(2, '0');

function conflictName(rel: string, device: string, at: Date): string {
  const ext = path.extname(rel);
  const stamp = `${at.getFullYear()}${pad(at.getMonth() + 1)}${pad(at.getDate())}-${pad(at.getHours())}${pad(at.getMinutes())}${pad(at.getSeconds())}`;
  return `${rel.slice(0, rel.length - ext.length)}.sync-conflict-${stamp}-${device}${ext}`;
}

/** Writes `content` at `abs` as a sync tool does: a temporary file in the folder, then a rename. */
function arrive(abs: string, content: Buffer, mtimeMs: number): void {
  mkdirSync(path.dirname(abs), { recursive: true });
  const tmp = path.join(path.dirname(abs), `.syncloop-${randomBytes(6).toString('hex')}.tmp`);
  writeFileSync(tmp, content);
  utimesSync(tmp, mtimeMs / 1000, mtimeMs / 1000);
  renameSync(tmp, abs);
}

export function startSyncLoop(roots: Record<Side, string>, options: { delayMs?: number; intervalMs?: number } = {}): SyncLoop {
  const delayMs = options.delayMs ?? 150;
  const devices: Record<Side, string> = { a: 'AAAAAAA', b: 'BBBBBBB' };
  const base = new Map<string, string | null>();
  // What both sides hold at the start is agreed on.
  const first = { a: scan(roots.a), b: scan(roots.b) };
  for (const [rel, seen] of first.a) if (first.b.get(rel)?.hash === seen.hash) base.set(rel, seen.hash);
  const pending = new Map<string, { hash: string | null; since: number }>();
  const changed: Record<Side, Set<string>> = { a: new Set(), b: new Set() };
  const conflicts: string[] = [];

  const tick = () => {
    const now = Date.now();
    const seen = { a: scan(roots.a), b: scan(roots.b) };
    const rels = new Set([...seen.a.keys(), ...seen.b.keys(), ...base.keys()]);
    for (const rel of rels) {
      // Both sides hold the same (both got it from a third device, or both made the same change): in step.
      const [ha, hb] = [seen.a.get(rel)?.hash ?? null, seen.b.get(rel)?.hash ?? null];
      if (ha === hb) {
        base.set(rel, ha);
        pending.delete(`a:${rel}`);
        pending.delete(`b:${rel}`);
        continue;
      }
      for (const side of ['a', 'b'] as const) {
        const cur = seen[side].get(rel)?.hash ?? null;
        const key = `${side}:${rel}`;
        if (cur === (base.get(rel) ?? null)) {
          pending.delete(key);
          continue;
        }
        changed[side].add(rel);
        const p = pending.get(key);
        if (!p || p.hash !== cur) pending.set(key, { hash: cur, since: now });
      }
      const ready = (['a', 'b'] as const).filter((side) => {
        const p = pending.get(`${side}:${rel}`);
        return p && now - p.since >= delayMs;
      });
      if (ready.length === 0) continue;
      apply(rel, seen, ready[0]!);
    }
  };

  const apply = (rel: string, seen: Record<Side, Map<string, Seen>>, from: Side) => {
    const to: Side = from === 'a' ? 'b' : 'a';
    const src = seen[from].get(rel);
    const dst = seen[to].get(rel);
    const agreed = base.get(rel) ?? null;
    pending.delete(`a:${rel}`);
    pending.delete(`b:${rel}`);
    if ((src?.hash ?? null) === (dst?.hash ?? null)) {
      base.set(rel, src?.hash ?? null);
      return;
    }
    const otherChanged = (dst?.hash ?? null) !== agreed;
    if (!otherChanged || !src || !dst) {
      // One side changed (or one deleted while the other changed: the change wins).
      const winner = src ?? dst!;
      const winnerSide = src ? from : to;
      const loserSide: Side = winnerSide === 'a' ? 'b' : 'a';
      const target = path.join(roots[loserSide], rel);
      if (otherChanged || src) arrive(target, winner.content, winner.mtimeMs);
      else rmSync(target, { force: true });
      base.set(rel, winner.hash);
      return;
    }
    // Both changed: the newer modification wins, the loser is kept as a conflict copy.
    const [winnerSide, loserSide]: [Side, Side] = src.mtimeMs >= dst.mtimeMs ? [from, to] : [to, from];
    const winner = seen[winnerSide].get(rel)!;
    const loser = seen[loserSide].get(rel)!;
    const copy = conflictName(rel, devices[loserSide], new Date(loser.mtimeMs));
    arrive(path.join(roots[loserSide], copy), loser.content, loser.mtimeMs);
    arrive(path.join(roots[loserSide], rel), winner.content, winner.mtimeMs);
    base.set(rel, winner.hash);
    conflicts.push(copy);
  };

  let stopped = false;
  const timer = setInterval(() => {
    if (stopped) return;
    try {
      tick();
    } catch {
      // A file that moved under the loop: the next tick sees the folders as they are then.
    }
  }, options.intervalMs ?? 40);
  return {
    conflicts,
    changedOn: (side) => [...changed[side]].sort(),
    clearChanges() {
      changed.a.clear();
      changed.b.clear();
    },
    stop() {
      stopped = true;
      clearInterval(timer);
    },
  };
}
