import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkDependencies, describeViolation } from '../scripts/dependency-rules.mjs';
import { ROOMS } from '../scripts/rooms.cjs';

/**
 * The dependency rules of docs/design.md §8 (.dependency-cruiser.cjs and
 * scripts/dependency-rules.mjs), checked on the TypeScript sources in src/: the compiled
 * dist/ has lost its type-only imports, which count.
 */

const temps: string[] = [];
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

/** A folder with a src/ made of these files. */
function project(files: Record<string, string>): string {
  const root = mkdtempSync(path.join(tmpdir(), 'ma-deps-'));
  temps.push(root);
  for (const [name, text] of Object.entries(files)) {
    const file = path.join(root, 'src', name);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, text);
  }
  return root;
}

describe('dependency rules', () => {
  it('src/ has no import cycle (between files or units) and no import against the layers', async () => {
    const violations = await checkDependencies();
    expect(violations.map(describeViolation).join('\n')).toBe('');
  });

  it('reads type-only imports from the .ts sources: a cycle and an upward import made only of them are found', async () => {
    const root = project({
      'config.ts': "import type { Fs } from './vault/files/fs.js';\nexport type Config = { fs: Fs };\n",
      'vault/files/fs.ts': "import type { Config } from '../../config.js';\nexport interface Fs { config?: Config }\n",
      'agent/a.ts': "import { type B } from './b.js';\nexport type A = B[];\n",
      'agent/b.ts': "import type { A } from './a.js';\nexport type B = { a: A };\n",
    });
    const violations = await checkDependencies(root);
    const seen = violations.map((v) => `${v.rule}: ${v.from} → ${v.to}`);
    expect(seen).toContain('layer-config-not-vault-log-and-external-programs: src/config.ts → src/vault/files/fs.ts');
    expect(seen).toContain('no-unit-cycle: config.ts → vault/ → config.ts');
    expect(seen.some((s) => s.startsWith('no-circular: src/agent/a.ts → src/agent/b.ts → src/agent/a.ts'))).toBe(true);
    const layer = violations.find((v) => v.rule === 'layer-config-not-vault-log-and-external-programs');
    expect(layer?.message).toMatch(/^config \(config\.ts, config-hints\.ts\) may not use vault, log and external programs \(vault\/, log\.ts, external-programs\.ts\)/);
  });

  it('the model engine knows no notes: agent/ importing vault/ is refused though vault/ lies below it', async () => {
    const root = project({
      'vault/format/lines.ts': 'export const catLine = (n: number) => String(n);\n',
      'agent/engine.ts': "import { catLine } from '../vault/format/lines.js';\nexport const line = catLine(1);\n",
    });
    const shown = (await checkDependencies(root)).map(describeViolation).join('\n');
    expect(shown).toContain('agent-not-vault: src/agent/engine.ts → src/vault/format/lines.ts');
    expect(shown).toContain('agent/ may not use vault/: the agent is a model engine that knows no meetings');
  });

  it('a failure names the layer that may not use the other: agent/ importing tools/ (one layer, a rule of its own)', async () => {
    const root = project({
      'tools/define/format.ts': 'export const catLine = (n: number) => String(n);\n',
      'agent/notes.ts': "import { catLine } from '../tools/define/format.js';\nexport const line = catLine(1);\n",
    });
    const violations = await checkDependencies(root);
    const shown = violations.map(describeViolation).join('\n');
    expect(shown).toContain('agent-not-tools-or-audit: src/agent/notes.ts → src/tools/define/format.ts');
    expect(shown).toContain('agent/ may not use tools/, audit.ts');
  });

  it('the rooms of vault/ and tools/ run one way: a lower room using an upper one is refused, naming both and the order', async () => {
    const root = project({
      'vault/notes/meeting.ts': 'export const title = (s: string) => s;\n',
      'vault/files/fs.ts': "import { title } from '../notes/meeting.js';\nexport const name = title('x');\n",
    });
    const violation = (await checkDependencies(root)).find((v) => v.rule === 'room-vault-files-not-vault-notes');
    expect(violation && describeViolation(violation)).toContain('src/vault/files/fs.ts → src/vault/notes/meeting.ts');
    expect(violation?.message).toContain('the rooms of vault/ run vault/files/ → vault/format/ → vault/scan/ → vault/notes/');
  });
});

describe('the rooms of vault/ and tools/', () => {
  const root = path.resolve(import.meta.dirname, '..');

  it.each(ROOMS.map((r) => [r.unit, r.rooms.map((x) => x.room)] as const))('every file of %s lies in a listed room, and every listed room exists', (unit, listed) => {
    const dir = path.join(root, 'src', unit);
    const present = readdirSync(dir, { withFileTypes: true })
      .filter((e) => e.isDirectory() || e.name.endsWith('.ts'))
      .map((e) => (e.isDirectory() ? `${e.name}/` : e.name));
    expect(present.filter((room) => !listed.includes(room))).toEqual([]);
    expect(listed.filter((room) => !present.includes(room))).toEqual([]);
  });
});

describe('the maps of the tree', () => {
  const root = path.resolve(import.meta.dirname, '..');
  /** Every folder below src/ (vault-relative to src/, with a trailing slash) and every file directly in src/. */
  function units(): string[] {
    const out: string[] = [];
    const walk = (dir: string, rel: string): void => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        if (entry.isDirectory()) {
          out.push(`${rel}${entry.name}/`);
          walk(path.join(dir, entry.name), `${rel}${entry.name}/`);
        } else if (rel === '' && entry.name.endsWith('.ts')) out.push(entry.name);
      }
    };
    walk(path.join(root, 'src'), '');
    return out;
  }
  const section8 = (): string => {
    const design = readFileSync(path.join(root, 'docs/design.md'), 'utf8');
    return design.slice(design.indexOf('## 8.'), design.indexOf('## 9.'));
  };
  /** A unit is named when its last segment stands in the map (nested folders are indented under their parent). */
  const named = (map: string, unit: string): boolean => new RegExp(`(^|[\\s(/\`])${unit.replace(/\/$/, '').split('/').at(-1)!.replace(/[.]/g, '\\.')}(/|\\b)`, 'm').test(map);

  it('docs/design.md §8 names every folder of src/ and every file directly in it', () => {
    const map = section8();
    expect(units().filter((unit) => !named(map, unit))).toEqual([]);
  });
});

describe('file sizes', () => {
  /** Every file below `dir` ending in `.ts`. */
  const sources = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sources(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : []));

  it('no folder of src/ has more than 16 source files directly inside (issue #35: a reader can hold a room in mind)', () => {
    const crowded = [path.resolve('src'), ...sources('src').map((f) => path.dirname(f))]
      .filter((dir, i, all) => all.indexOf(dir) === i)
      .map((dir) => ({ dir, files: readdirSync(dir).filter((name) => name.endsWith('.ts')).length }))
      .filter(({ files }) => files > 16)
      .map(({ dir, files }) => `${path.relative('.', dir)}: ${files} files`);
    expect(crowded).toEqual([]);
  });

  it('no source file is over 450 lines (issue #25: small modules, one job each)', () => {
    const long = sources('src')
      .map((file) => ({ file, lines: readFileSync(file, 'utf8').split('\n').length - 1 }))
      .filter(({ lines }) => lines > 450)
      .map(({ file, lines }) => `${file}: ${lines} lines`);
    expect(long).toEqual([]);
  });
});
