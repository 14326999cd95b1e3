#!/usr/bin/env node
// `npm run bench`: runs every bench/*.mjs script (or those named on the command line) in its
// own process, one after another, so that one benchmark's heap and timers do not skew the next.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const wanted = process.argv.slice(2);
const scripts = readdirSync(here)
  .filter((f) => f.endsWith('.mjs') && f !== 'run.mjs' && !f.startsWith('_'))
  .filter((f) => wanted.length === 0 || wanted.some((w) => f.includes(w)))
  .sort();

console.log(`# Meeting Assistant benchmarks — node ${process.version}, nproc ${os.availableParallelism()}, ${os.cpus()[0]?.model ?? 'cpu'}`);
let failed = 0;
for (const script of scripts) {
  console.log(`\n## ${script}`);
  const result = spawnSync(process.execPath, ['--expose-gc', path.join(here, script)], { stdio: 'inherit' });
  if (result.status !== 0) {
    failed++;
    console.log(`!! ${script} exited with ${result.status ?? result.signal}`);
  }
}
process.exitCode = failed ? 1 : 0;
