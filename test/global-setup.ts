import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));

/**
 * Build dist/ once before any test file runs, so tests that spawn bin/meeting-assistant.js
 * run the current source. tsc emits even when some file has a type error (others may be
 * mid-edit), so a failed typecheck is tolerated as long as the CLI entry point was emitted.
 */
export default async function setup(): Promise<void> {
  try {
    await promisify(execFile)('npx', ['tsc', '-p', 'tsconfig.build.json'], { cwd: REPO_ROOT });
  } catch (err) {
    if (existsSync(path.join(REPO_ROOT, 'dist', 'cli.js'))) return;
    const { stdout, stderr } = err as { stdout?: string; stderr?: string };
    throw new Error(`the build (tsc -p tsconfig.build.json) failed and dist/cli.js is missing:\n${stdout ?? ''}${stderr ?? ''}`);
  }
}
