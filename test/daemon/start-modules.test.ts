import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const dist = (p: string) => pathToFileURL(path.join(REPO, 'dist', p)).href;

/**
 * docs/design.md §8: what an idle daemon holds. The packages only a start or a run needs are not
 * among the modules a daemon keeps loaded after reading its configuration: checked in a
 * process of its own, as the daemon's modules load (`dist/`, built by the global setup).
 */
describe('the packages a started daemon keeps loaded', () => {
  it('are not the tokenizer, zod, mammoth or pino-pretty', async () => {
    const script = `
      import { createRequire } from 'node:module';
      await import(${JSON.stringify(dist('commands/run.js'))});
      const { resolveConfig, releaseConfigSchemas } = await import(${JSON.stringify(dist('config.js'))});
      const { createLoggerFromConfig } = await import(${JSON.stringify(dist('log.js'))});
      const config = resolveConfig({ MeetingAssistant: { VaultPath: '/v', Logging: { Pretty: false } } });
      releaseConfigSchemas();
      createLoggerFromConfig(config);
      const packages = new Set(Object.keys(createRequire(import.meta.url).cache)
        .map((id) => /[\\\\/]node_modules[\\\\/]((?:@[^\\\\/]+[\\\\/])?[^\\\\/]+)/.exec(id)?.[1])
        .filter(Boolean));
      console.log(JSON.stringify([...packages]));
    `;
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], { cwd: REPO });
    const loaded = JSON.parse(stdout) as string[];
    for (const name of ['gpt-tokenizer', 'zod', 'mammoth', 'pino-pretty']) expect(loaded, name).not.toContain(name);
    // The check sees CommonJS packages at all: pino is one, and the daemon logs with it.
    expect(loaded).toContain('pino');
  });

  it('are not the runs’ own modules: the daemon’s process leaves the caches, their search, the tokenizer’s module, the runtime and the pipeline to the run process', async () => {
    // Every module of dist/ the import resolves, told by a resolve hook on stderr.
    const hooks = `export async function resolve(specifier, context, next) {
      const resolved = await next(specifier, context);
      process.stderr.write('resolved ' + resolved.url + '\\n');
      return resolved;
    }`;
    const script = `
      import { register } from 'node:module';
      register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(hooks)}`)});
      await import(${JSON.stringify(dist('commands/run.js'))});
    `;
    const { stderr } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], { cwd: REPO });
    const loaded = [...stderr.matchAll(/^resolved (.*)$/gm)].map((m) => m[1]!).filter((url) => url.startsWith(pathToFileURL(path.join(REPO, 'dist')).href));
    // The check sees the daemon's modules at all.
    expect(loaded).toContain(dist('daemon/runs/run-process/host.js'));
    for (const module of ['tools/run-caches.js', 'tools/search/worker-pool.js', 'tools/past-index.js', 'agent/window/tokens.js', 'runtime.js', 'meeting/pipeline.js', 'agent/model/client.js']) {
      expect(loaded, module).not.toContain(dist(module));
    }
  });
});
