import type { Worker } from 'node:worker_threads';

export function startBusyLoops(count: number, deadline: number): { loops: Worker[]; stop(): Promise<void> };
