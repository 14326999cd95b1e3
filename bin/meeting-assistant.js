#!/usr/bin/env node
import { main } from '../dist/cli.js';

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
