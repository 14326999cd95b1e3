// The load beside `npm run test:stress`: one worker thread per loop, each keeping a core busy.
import { Worker } from 'node:worker_threads';

// A deadline inside the loop: a loop stops by itself even if nobody ever terminates it.
const LOOP = `
const { workerData } = require('node:worker_threads');
let x = 0;
while (Date.now() < workerData.deadline) for (let i = 0; i < 1e6; i++) x = (x * 31 + i) | 0;
`;

/**
 * `count` busy loops until `deadline` (ms since the epoch). Threads, not processes: they end
 * with this process however it ends, SIGKILL included. Resolves to a stop that ends them now.
 */
export function startBusyLoops(count, deadline) {
  const loops = [];
  for (let i = 0; i < count; i++) {
    const loop = new Worker(LOOP, { eval: true, workerData: { deadline } });
    // A loop never keeps the script alive once its runs are done.
    loop.unref();
    loops.push(loop);
  }
  return { loops, stop: () => Promise.all(loops.map((loop) => loop.terminate())).then(() => undefined) };
}
