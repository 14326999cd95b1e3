#!/usr/bin/env node
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// A checkout builds dist/ itself (`npm run build`; `npm start` and `npm test` do it first):
// no install script does it, so `npm link` and an install of the tarball stay quiet
// (docs/install.md). Without it, say so rather than fail on a missing module.
if (!existsSync(new URL('../dist/cli.js', import.meta.url))) {
  const root = fileURLToPath(new URL('..', import.meta.url));
  process.stderr.write(`meeting-assistant: ${root}dist/ is not built yet: run \`npm run build\` in ${root}\n`);
  process.exit(1);
}

// The daemon's own process without the optimizing compilers, set before anything else loads
// (src/daemon/lean-code.ts); then the CLI.
const { leanIfDaemon } = await import('../dist/daemon/lean-code.js');
leanIfDaemon(process.argv);
const { main } = await import('../dist/cli.js');

// A reader that stops early (`meeting-assistant status | head`) closes the pipe: the rest of
// the output has nowhere to go, which is no error of the command. Its work goes on to its own
// exit code; a daemon keeps running (its log then has no reader, as under a closed terminal).
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err) => {
    if (err.code !== 'EPIPE' && err.code !== 'ERR_STREAM_DESTROYED') throw err;
  });
}

// An unexpected rejection is reported by node itself (exit code 1).
void main(process.argv).then((code) => {
  process.exitCode = code;
});
