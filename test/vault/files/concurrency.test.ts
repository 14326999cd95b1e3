import { describe, expect, it } from 'vitest';
import { mapLimit, Slots } from '../../../src/vault/files/concurrency.js';

describe('Slots', () => {
  it('runs at most its size at once, in the order asked, and a task that fails gives its slot back', async () => {
    const slots = new Slots(2);
    let running = 0;
    let most = 0;
    const started: number[] = [];
    const task = (i: number) => async () => {
      started.push(i);
      running++;
      most = Math.max(most, running);
      await new Promise((resolve) => setImmediate(resolve));
      running--;
      if (i % 3 === 0) throw new Error(`task ${i}`);
      return i;
    };
    const results = await Promise.allSettled(Array.from({ length: 10 }, (_, i) => slots.run(task(i))));
    expect(most).toBe(2);
    expect(started).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).message))).toEqual(['task 0', 1, 2, 'task 3', 4, 5, 'task 6', 7, 8, 'task 9']);
    // Every slot came back: a new task starts at once.
    expect(await slots.run(async () => running)).toBe(0);
  });
});

describe('mapLimit', () => {
  it('runs at most `limit` at once and gives the results in the order of the items', async () => {
    let running = 0;
    let most = 0;
    const results = await mapLimit([5, 1, 4, 2, 3], 2, async (n) => {
      running++;
      most = Math.max(most, running);
      for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
      running--;
      return n * 10;
    });
    expect(results).toEqual([50, 10, 40, 20, 30]);
    expect(most).toBe(2);
    expect(await mapLimit([], 4, async () => 1)).toEqual([]);
  });
});
