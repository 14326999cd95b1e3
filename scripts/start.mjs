// `npm start`: the daemon in the foreground with ./config.json when the checkout has one
// (a person's own settings), else the bundled config.default.json, which seeds ./vault with
// the example on first start (README "Quick start"). Runs the CLI in this process, so
// Ctrl-C reaches the daemon as it would under `meeting-assistant run`.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = path.dirname(path.dirname(fileURLToPath(import.meta.url)));

/** The config file `npm start` runs with, relative to the package folder. */
export function startConfig(root = ROOT) {
  return existsSync(path.join(root, 'config.json')) ? 'config.json' : 'config.default.json';
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  // `run`'s process, as bin/meeting-assistant.js makes it: no optimizing compiler (src/daemon/lean-code.ts).
  (await import('../dist/daemon/lean-code.js')).withoutOptimizingCompiler();
  const { main } = await import('../dist/cli.js');
  const config = path.join(ROOT, startConfig());
  process.stderr.write(`npm start: meeting-assistant run --config ${path.relative(process.cwd(), config) || config}\n`);
  process.exitCode = await main([process.argv[0], 'meeting-assistant', 'run', '--config', config, ...process.argv.slice(2)]);
}
