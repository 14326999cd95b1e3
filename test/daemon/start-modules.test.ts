import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const dist = (p: string) => pathToFileURL(path.join(REPO, 'dist', p)).href;

/**
 * Every module the import of `entry` (below dist/) resolves, told by a resolve hook. The hook
 * writes each to a file as it resolves it: hooks run on a thread of their own, whose stderr the
 * process's exit cut off before it was written on node 24.
 */
async function resolvedModules(entry: string): Promise<string[]> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'ma-resolved-'));
  try {
    const list = path.join(dir, 'resolved.txt');
    const hooks = `import { appendFileSync } from 'node:fs';
    export async function resolve(specifier, context, next) {
      const resolved = await next(specifier, context);
      appendFileSync(${JSON.stringify(list)}, resolved.url + '\\n');
      return resolved;
    }`;
    const script = `
      import { register } from 'node:module';
      register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(hooks)}`)});
      await import(${JSON.stringify(dist(entry))});
      process.exit(0);
    `;
    await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], { cwd: REPO });
    return readFileSync(list, 'utf8').split('\n').filter(Boolean);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

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
    const loaded = (await resolvedModules('commands/run.js')).filter((url) => url.startsWith(pathToFileURL(path.join(REPO, 'dist')).href));
    // The check sees the daemon's modules at all.
    expect(loaded).toContain(dist('daemon/runs/run-process/host.js'));
    for (const module of ['tools/binding/run-caches.js', 'tools/search/worker-pool.js', 'tools/cache/past-index.js', 'agent/window/tokens.js', 'runtime.js', 'meeting/pipeline.js', 'agent/model/client.js']) {
      expect(loaded, module).not.toContain(dist(module));
    }
  });
});

/**
 * What the daemon's own process loads (docs/design.md §8): the runs are in the run process, so
 * nothing of a run (the openai client, the pipeline, the tools, diff) and not fetch's undici,
 * whose code and compiled parser cost about 8 MB: the probes the daemon makes go through node's
 * HTTP client (agent/model/http-get.ts). A daemon is started on an empty vault with an endpoint
 * that answers, does its start-up check and scan, and stops; a loader hook lists every module.
 */
describe('the modules the daemon’s own process loads', () => {
  it('include nothing of a run and not fetch', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'ma-modules-'));
    try {
      const list = path.join(dir, 'loaded.txt');
      const hook = `import { appendFileSync } from 'node:fs'; export async function load(url, context, next) { appendFileSync(${JSON.stringify(list)}, url + '\\n'); return next(url, context); }`;
      const register = `import { register } from 'node:module'; register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(hook)}`)});`;
      // node:http required, as the daemon does (src/http-io.ts): an ES import of it loads undici on node 22 and later.
      const script = `
        import { createRequire } from 'node:module';
        const http = createRequire(process.cwd() + '/')('node:http');
        const server = http.createServer((req, res) => res.end(JSON.stringify({ object: 'list', data: [{ id: 'm' }] })));
        await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
        const probe = http.createServer();
        await new Promise((resolve) => probe.listen(0, '127.0.0.1', resolve));
        const httpPort = probe.address().port;
        await new Promise((resolve) => probe.close(resolve));
        const { resolveConfig, releaseConfigSchemas } = await import(${JSON.stringify(dist('config.js'))});
        const { startDaemon } = await import(${JSON.stringify(dist('daemon/daemon.js'))});
        const { reportEndpointProblems } = await import(${JSON.stringify(dist('agent/model/endpoint-check.js'))});
        const { silentLogger } = await import(${JSON.stringify(dist('log.js'))});
        await import(${JSON.stringify(dist('commands/run.js'))});
        const config = resolveConfig({ MeetingAssistant: { VaultPath: ${JSON.stringify(path.join(dir, 'vault'))}, Http: { Enabled: true, Port: httpPort },
          Endpoint: { BaseUrl: 'http://127.0.0.1:' + server.address().port + '/v1', Model: 'm' } } });
        releaseConfigSchemas();
        const daemon = await startDaemon(config, { log: silentLogger, runProcess: true, schedule: false });
        await daemon.startupScan;
        await reportEndpointProblems(config, silentLogger);
        const page = await new Promise((resolve) => http.get(daemon.http.url + '/healthz', (res) => { res.resume(); res.on('end', () => resolve(res.statusCode)); }));
        await daemon.stop('test');
        server.close();
        console.log(JSON.stringify({ page, undici: process.moduleLoadList.some((m) => m.includes('undici')) }));
      `;
      const { stdout } = await promisify(execFile)(process.execPath, ['--import', `data:text/javascript,${encodeURIComponent(register)}`, '--input-type=module', '-e', script], { cwd: REPO });
      const result = JSON.parse(stdout.trim().split('\n').pop()!) as { page: number; undici: boolean };
      expect(result.page).toBe(200);
      expect(result.undici).toBe(false);
      const loaded = readFileSync(list, 'utf8').split('\n').filter(Boolean);
      // The check sees the daemon's modules at all.
      expect(loaded.some((u) => u.endsWith('/dist/daemon/intake/catch-up.js'))).toBe(true);
      // meeting/ is the run's folder; meeting-event/ (what a calendar match writes, §12) is the importer's and the sessions'.
      const ofRuns = loaded.filter((u) => /\/node_modules\/(openai|diff|gpt-tokenizer)\/|\/dist\/(meeting\/|tools\/search\/search-tool|runtime\.js|agent\/loop)/.test(u));
      expect(ofRuns).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
});
});

/**
 * What the run process loads before its first run (docs/design.md §8, BENCHMARKS.md run start):
 * it is given the daemon's configuration as read, so not the configuration's loader, whose
 * schemas (zod) and cron parser took 0.2–0.3 s of every cold start.
 */
describe('the modules the run process loads', () => {
  it('are not the configuration loader, zod or node-cron', async () => {
    const loaded = await resolvedModules('daemon/runs/run-process/child.js');
    // The check sees the run's modules at all.
    expect(loaded).toContain(dist('meeting/pipeline.js'));
    expect(loaded).not.toContain(dist('config.js'));
    expect(loaded.filter((url) => /\/node_modules\/(zod|node-cron)\//.test(url))).toEqual([]);
  });
});

/**
 * docs/design.md §8 and §11: a question to the daemon (`POST /api/ask`) is answered away from
 * the daemon's own process, as a run is: the ask code, the agent loop, the model client and
 * the tools' caches never load into it. A loader hook records every module with the pid of
 * the process that loaded it (a forked child inherits the hook); the daemon's pid must have
 * none of them, whatever the endpoint answered.
 */
describe('a question to the daemon', () => {
  it('loads nothing of a run into the daemon’s own process', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'ma-ask-modules-'));
    try {
      mkdirSync(path.join(dir, 'vault'));
      const list = path.join(dir, 'loaded.txt');
      const hook = `import { appendFileSync } from 'node:fs'; export async function load(url, context, next) { appendFileSync(${JSON.stringify(list)}, process.pid + ' ' + url + '\\n'); return next(url, context); }`;
      const register = `import { register } from 'node:module'; register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(hook)}`)});`;
      // node:http required, as the daemon does (src/http-io.ts): an ES import of it loads undici on node 22 and later.
      const script = `
        import { createRequire } from 'node:module';
        const http = createRequire(process.cwd() + '/')('node:http');
        const server = http.createServer((req, res) => res.end(JSON.stringify({ object: 'list', data: [{ id: 'm' }] })));
        await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
        const probe = http.createServer();
        await new Promise((resolve) => probe.listen(0, '127.0.0.1', resolve));
        const httpPort = probe.address().port;
        await new Promise((resolve) => probe.close(resolve));
        const { resolveConfig, releaseConfigSchemas } = await import(${JSON.stringify(dist('config.js'))});
        const { startDaemon } = await import(${JSON.stringify(dist('daemon/daemon.js'))});
        const { silentLogger } = await import(${JSON.stringify(dist('log.js'))});
        await import(${JSON.stringify(dist('commands/run.js'))});
        const config = resolveConfig({ MeetingAssistant: { VaultPath: ${JSON.stringify(path.join(dir, 'vault'))}, Http: { Enabled: true, Port: httpPort },
          Reconnect: { Attempts: 0 }, Endpoint: { BaseUrl: 'http://127.0.0.1:' + server.address().port + '/v1', Model: 'm' } } });
        releaseConfigSchemas();
        const daemon = await startDaemon(config, { log: silentLogger, runProcess: true, schedule: false });
        await daemon.startupScan;
        const res = await fetch(daemon.http.url + '/api/ask', { method: 'POST', headers: { authorization: 'Bearer ' + daemon.token, 'content-type': 'application/json' }, body: JSON.stringify({ question: 'What was decided?' }) });
        const body = await res.text();
        await daemon.stop('test');
        server.close();
        console.log(JSON.stringify({ status: res.status, ended: /event: (done|error)/.test(body), pid: process.pid }));
      `;
      const file = path.join(dir, 'script.mjs');
      writeFileSync(file, script);
      const { stdout } = await promisify(execFile)(process.execPath, ['--import', `data:text/javascript,${encodeURIComponent(register)}`, file], { cwd: REPO });
      const result = JSON.parse(stdout.trim().split('\n').pop()!) as { status: number; ended: boolean; pid: number };
      expect(result.status).toBe(200);
      expect(result.ended).toBe(true);
      const loaded = readFileSync(list, 'utf8').split('\n').filter((l) => l.startsWith(`${result.pid} `)).map((l) => l.slice(l.indexOf(' ') + 1));
      // The check sees the daemon's modules at all, and its own route.
      expect(loaded.some((u) => u.endsWith('/dist/daemon/http/ask-route.js'))).toBe(true);
      // Only the check of the request's scope (ask/filters.js, mcp/filters.js) is the daemon's own.
      const ofRuns = loaded.filter((u) => /\/node_modules\/(openai|gpt-tokenizer)\/|\/dist\/(ask\/(?!filters\.js)|mcp\/(?!filters\.js)|agent\/loop|agent\/model\/client|tools\/run-caches)/.test(u));
      expect(ofRuns).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
});
});
