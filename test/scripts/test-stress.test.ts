import { once } from 'node:events';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startBusyLoops } from '../../scripts/busy-loops.mjs';
import { startCacheDrops } from '../../scripts/cold-cache.mjs';
import { failuresOf, summary } from '../../scripts/stress-report.mjs';

/** `npm run test:stress` (README "Development"): what it reads from vitest's reports, and its load. */

const ROOT = '/repo';
const file = (rel: string, status: string, tests: { title: string; status: string; ancestorTitles?: string[] }[], message = '') => ({
  name: path.join(ROOT, rel),
  status,
  message,
  assertionResults: tests,
});

describe("the stress run's report", () => {
  it('names each failed test by its file, its describes and its title, and nothing that passed', () => {
    const report = {
      testResults: [
        file('test/a.test.ts', 'failed', [
          { title: 'counts folders', status: 'failed', ancestorTitles: ['the watcher', 'removal'] },
          { title: 'adds', status: 'passed', ancestorTitles: ['the watcher'] },
        ]),
        file('test/b.test.ts', 'passed', [{ title: 'fine', status: 'passed' }]),
      ],
    };
    expect(failuresOf(report, 1, ROOT)).toEqual(['test/a.test.ts > the watcher > removal > counts folders']);
  });

  it('a file that failed outside its tests (an import, a hook) is named with its message, a run without a report as the run', () => {
    const report = { testResults: [file('test/c.test.ts', 'failed', [], 'SyntaxError: no export named x\n    at line 2')] };
    expect(failuresOf(report, 1, ROOT)).toEqual(['test/c.test.ts (the file: SyntaxError: no export named x)']);
    expect(failuresOf(undefined, null, ROOT)).toEqual(['the run (exit code none: killed, no report)']);
    expect(failuresOf({ testResults: [] }, 1, ROOT)).toEqual(['the run (exit code 1, no test failed: an unhandled error, see the run\'s output)']);
    expect(failuresOf({ testResults: [] }, 0, ROOT)).toEqual([]);
  });

  it('the summary counts each failing test over the runs, the most frequent first, and gives the suite times', () => {
    const lines = summary(
      [
        { ms: 200_000, failures: ['x > flaky'] },
        { ms: 180_000, failures: [] },
        { ms: 240_000, failures: ['x > flaky', 'y > once'] },
      ],
      2,
    );
    expect(lines).toEqual([
      'test:stress: 1 of 3 run(s) passed beside 2 busy loop(s); suite 180 s–240 s, median 200 s',
      '  failed in 2 of 3: x > flaky',
      '  failed in 1 of 3: y > once',
    ]);
    expect(summary([{ ms: 700_000, failures: [] }, { ms: 900_000, failures: [] }], 2)[0]).toBe(
      'test:stress: 2 of 2 run(s) passed beside 2 busy loop(s); suite 700 s–900 s, median 800 s',
    );
  });
});

describe("the stress run's busy loops", () => {
  it('each loop ends by itself at its deadline, with nobody stopping it', async () => {
    const { loops } = startBusyLoops(2, Date.now() + 100);
    const codes = await Promise.all(loops.map(async (loop) => (await once(loop, 'exit'))[0] as number));
    expect(codes).toEqual([0, 0]);
  });

  it('stop ends them before their deadline', async () => {
    const { loops, stop } = startBusyLoops(1, Date.now() + 600_000);
    // Running, not merely created: a loop still starting ends with code 0 when terminated.
    await once(loops[0]!, 'online');
    const exited = once(loops[0]!, 'exit');
    await stop();
    expect((await exited)[0]).toBe(1);
  });
});

describe("the stress run's cold cache (--cold-cache)", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('drops the page cache at once and every period until its deadline, then no more', () => {
    vi.useFakeTimers({ now: 0 });
    let count = 0;
    const drops = startCacheDrops(20_000, 65_000, () => count++);
    expect(count).toBe(1);
    vi.advanceTimersByTime(60_000);
    expect(count).toBe(4);
    vi.advanceTimersByTime(60_000);
    expect(count).toBe(4);
    expect(drops.drops()).toBe(4);
  });

  it('stop ends the drops; a refused first drop (not root) is an error saying what it needs', () => {
    vi.useFakeTimers({ now: 0 });
    let count = 0;
    const drops = startCacheDrops(1_000, 600_000, () => count++);
    drops.stop();
    vi.advanceTimersByTime(10_000);
    expect(count).toBe(1);
    const refuse = () => {
      throw Object.assign(new Error('permission denied'), { code: 'EACCES' });
    };
    expect(() => startCacheDrops(1_000, 600_000, refuse)).toThrow('--cold-cache needs root on Linux: it writes 1 to /proc/sys/vm/drop_caches (EACCES)');
  });
});
