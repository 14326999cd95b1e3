#!/usr/bin/env node
import { leanIfDaemon } from '../dist/daemon/lean-code.js';

// The daemon's own process without the optimizing compilers, set before anything else loads
// (src/daemon/lean-code.ts); then the CLI.
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
