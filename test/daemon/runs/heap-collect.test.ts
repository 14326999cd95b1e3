import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { collectGarbage } from '../../../src/daemon/runs/heap-collect.js';

describe('the collection after the idle release', () => {
  it('collects what nothing holds any more, without a node flag', async () => {
    let built: number[][] | undefined = Array.from({ length: 1_000 }, (_, i) => Array.from({ length: 100 }, () => i));
    const ref = new WeakRef(built);
    built = undefined;
    // A WeakRef's target lives to the end of the job that made it.
    await nextTurn();
    collectGarbage();
    expect(ref.deref()).toBeUndefined();
  });
});
