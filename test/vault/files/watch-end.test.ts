import { describe, expect, it } from 'vitest';
import { WatchEnd } from '../../../src/vault/files/watch-end.js';

describe('WatchEnd', () => {
  it('each pause leaves the set when it is over, so nothing grows with the number of writes', async () => {
    const end = new WatchEnd();
    await Promise.all(Array.from({ length: 50 }, () => end.sleep(1)));
    expect(end.sleeping).toBe(0);
  });

  it('end() wakes every pause at once and later pauses do not wait', async () => {
    const end = new WatchEnd();
    const long = Array.from({ length: 20 }, () => end.sleep(600_000));
    expect(end.sleeping).toBe(20);
    end.end();
    await Promise.all(long);
    expect(end.sleeping).toBe(0);
    expect(end.ended).toBe(true);
    await end.sleep(600_000);
  });
});
