#!/usr/bin/env node
import { main } from '../dist/cli.js';

// An unexpected rejection is reported by node itself (exit code 1).
void main(process.argv).then((code) => {
  process.exitCode = code;
});
