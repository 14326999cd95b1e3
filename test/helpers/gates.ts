import type { Fs } from '../../src/vault/files/fs.js';

/** `fs` whose first rename onto `file` waits until `release()`; `held` resolves once it waits. */
export function renameGate(base: Fs, file: string): { fs: Fs; held: Promise<void>; release: () => void } {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let onHeld!: () => void;
  const held = new Promise<void>((resolve) => (onHeld = resolve));
  let armed = true;
  const fs: Fs = Object.create(base) as Fs;
  fs.rename = async (from, to) => {
    if (armed && to === file) {
      armed = false;
      onHeld();
      await gate;
    }
    return base.rename(from, to);
  };
  return { fs, held, release };
}

/** Polls `happened` until it is true or `ms` have passed. */
export async function eventWithin(happened: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (happened()) return true;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return happened();
}
