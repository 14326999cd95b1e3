import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startConfig } from '../scripts/start.mjs';
import { describe, expect, it } from 'vitest';

/**
 * The package manifest as a fresh clone meets it (README "Install"): `npm ci` says nothing
 * about install scripts, and an install from git builds dist/ (the `bin` imports it).
 */
const manifest = JSON.parse(readFileSync('package.json', 'utf8')) as {
  scripts: Record<string, string>;
  allowScripts?: Record<string, boolean>;
};
const lock = JSON.parse(readFileSync('package-lock.json', 'utf8')) as {
  packages: Record<string, { hasInstallScript?: boolean; version?: string }>;
};

describe('package.json', () => {
  it('every dependency with an install script has a decision in allowScripts (npm 11 warns about the others at each npm ci)', () => {
    const withScripts = Object.entries(lock.packages)
      .filter(([where, entry]) => where !== '' && entry.hasInstallScript)
      .map(([where]) => where.replace(/^.*node_modules\//, ''));
    const decided = Object.keys(manifest.allowScripts ?? {}).map((name) => name.replace(/(.)@[^/]*$/, '$1'));
    expect(withScripts.filter((name) => !decided.includes(name))).toEqual([]);
  });

  it('@swc/core runs no install script: its postinstall only fetches @swc/wasm when the native binary is missing, and the binary comes as an optional dependency', () => {
    expect(manifest.allowScripts?.['@swc/core']).toBe(false);
    expect(Object.keys(lock.packages).some((where) => where.startsWith('node_modules/@swc/core-linux-'))).toBe(true);
  });

  it('no install script (npm link and an install of the tarball print no allowScripts warning); the tarball, npm start, npm test and the benches build dist/ first', () => {
    for (const hook of ['preinstall', 'install', 'postinstall', 'prepare']) expect(manifest.scripts[hook]).toBeUndefined();
    for (const hook of ['prepack', 'prestart', 'pretest', 'prebench']) expect(manifest.scripts[hook]).toBe('npm run build');
  });

  it('npm start takes ./config.json when there is one', () => {
    expect(manifest.scripts.start).toContain('scripts/start.mjs');
    const checkout = mkdtempSync(path.join(os.tmpdir(), 'ma-start-'));
    try {
      expect(startConfig(checkout)).toBe('config.default.json');
      writeFileSync(path.join(checkout, 'config.json'), '{}');
      expect(startConfig(checkout)).toBe('config.json');
    } finally {
      rmSync(checkout, { recursive: true, force: true });
    }
  });

  it('ships the bundled config.default.json (run seeds the example vault only for that file)', () => {
    expect((manifest as { files?: string[] }).files).toContain('config.default.json');
  });

  it('ships the LICENSE (MIT, as package.json says) and the docs the README links to, and no source maps (their sources are not shipped)', () => {
    const files = (manifest as { files?: string[] }).files ?? [];
    expect(files).toEqual(expect.arrayContaining(['LICENSE', 'docs', 'BENCHMARKS.md', '!dist/**/*.map']));
    expect(readFileSync('LICENSE', 'utf8')).toMatch(/^MIT License\n\nCopyright \(c\) 2026 Meeting Assistant contributors\n/);
    expect((manifest as { license?: string }).license).toBe('MIT');
  });
});
