import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { doctor, type DoctorCommandDeps } from '../../src/commands/doctor.js';
import { type DoctorCheck, type DoctorDeps, listenCheck, runDoctor } from '../../src/doctor/index.js';
import { loadConfig, resolveConfig } from '../../src/config.js';
import { BUNDLED_DEFAULT_CONFIG } from '../../src/example-vault.js';
import { createApiHandlers } from '../../src/daemon/http/api-handlers.js';
import { startHttpServer } from '../../src/daemon/http/server.js';
import { Vault } from '../../src/vault/files/vault.js';
import { vaultIdentity } from '../../src/vault/files/state.js';
import { silentLogger } from '../../src/log.js';
import { type Fs, nodeFs } from '../../src/vault/files/fs.js';
import { freePort } from '../helpers/daemon-process.js';
import { memoryIo } from '../helpers/memory-io.js';
import { startScriptedServer, type ScriptedServer } from '../helpers/scripted-server.js';

const FOLDERS = ['Meetings', 'Meetings/Transcripts', 'Meetings/Summaries', 'Meetings/Context', 'Projects', 'Meetings/Speakers'];

let tmp: string;
let vault: string;
const closers: (() => Promise<void>)[] = [];

beforeEach(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'ma-doctor-'));
  vault = path.join(tmp, 'vault');
  for (const f of FOLDERS) await mkdir(path.join(vault, f), { recursive: true });
});
afterEach(async () => {
  while (closers.length > 0) await closers.pop()!();
  await rm(tmp, { recursive: true, force: true });
});

async function scripted(options: Parameters<typeof startScriptedServer>[0] = {}): Promise<ScriptedServer> {
  const server = await startScriptedServer(options);
  closers.push(() => server.close());
  return server;
}

type Route = (req: http.IncomingMessage, body: string) => { status: number; body: unknown } | undefined;

/** A small HTTP server on 127.0.0.1 for the native routes of Ollama, llama.cpp and LM Studio. */
async function fakeServer(route: Route): Promise<{ url: string; port: number }> {
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const answer = route(req, body) ?? { status: 404, body: { error: 'not found' } };
      const text = typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body);
      res.writeHead(answer.status, { 'content-type': typeof answer.body === 'string' ? 'text/plain' : 'application/json' });
      res.end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  const port = (server.address() as AddressInfo).port;
  return { url: `http://127.0.0.1:${port}`, port };
}


/** The daemon's real HTTP server for the vault at `root` (its routes; the handlers unused here). */
async function daemonHttp(root: string): Promise<{ port: number }> {
  const config = resolveConfig({ MeetingAssistant: { VaultPath: root } });
  const vaultOf = new Vault(nodeFs, config.layout);
  const running = await startHttpServer({
    settings: { ...config.settings.Http, Port: 0 },
    token: 'doctor-test-token-0123456789',
    log: silentLogger,
    vaultId: await vaultIdentity(nodeFs, root),
    handlers: createApiHandlers({ vault: vaultOf, enqueue: () => { throw new Error('not in this test'); }, status: () => ({ queue: { running: [], pending: [] } }) as never, clock: () => new Date() }),
  });
  closers.push(() => running.close());
  return { port: running.port };
}

async function writeConfig(settings: Record<string, unknown>): Promise<string> {
  const file = path.join(tmp, 'config.json');
  const port = await freePort();
  await writeFile(
    file,
    JSON.stringify({ MeetingAssistant: { VaultPath: vault, Http: { Host: '127.0.0.1', Port: port }, ...settings } }),
  );
  return file;
}

async function runDoctorCommand(configFile: string, env: NodeJS.ProcessEnv = {}, extra: Partial<DoctorCommandDeps> = {}) {
  const io = memoryIo();
  const code = await doctor({ config: configFile }, { io, env, ...extra });
  return { code, io };
}

async function checksFor(configFile: string, env: NodeJS.ProcessEnv = {}, extra: Partial<DoctorDeps> = {}): Promise<Map<string, DoctorCheck>> {
  const config = await loadConfig({ configPath: configFile, fs: nodeFs, env });
  const report = await runDoctor(config, { fs: nodeFs, ...extra });
  return new Map(report.checks.map((c) => [c.name, c]));
}

describe('doctor against the scripted endpoint', () => {
  it('passes every check and exits 0', async () => {
    const server = await scripted({ models: ['test-model', 'other-model'] });
    const config = await writeConfig({ Endpoint: { BaseUrl: server.baseUrl, Model: 'test-model' } });
    const { code, io } = await runDoctorCommand(config);
    expect(code, io.text()).toBe(0);
    expect(io.text()).not.toContain('[FAIL]');
    expect(io.text()).toContain('All checks passed');
    const checks = await checksFor(config);
    for (const name of ['config', 'vault', 'folder Meetings', 'folder Summaries', 'file Glossary', 'file Dictionary', 'endpoint', 'api key', 'model', 'http port']) {
      expect(checks.get(name)?.status, name).toBe('pass');
    }
    // The scripted server has no native routes: the context check is skipped, not failed.
    expect(checks.get('context length')!.status).toBe('skip');
    expect(server.requests.some((r) => r.path === '/v1/models')).toBe(true);
  });

  it('reports an endpoint that is down, with its fix, and exits non-zero', async () => {
    const port = await freePort();
    const config = await writeConfig({ Endpoint: { BaseUrl: `http://127.0.0.1:${port}/v1`, Model: 'test-model' } });
    const { code, io } = await runDoctorCommand(config);
    expect(code).toBe(1);
    const line = io.lines.find((l) => l.startsWith('[FAIL] endpoint'));
    expect(line).toContain(`GET http://127.0.0.1:${port}/v1/models failed`);
    expect(line).toContain('ECONNREFUSED');
    expect(io.text()).toMatch(/fix: Start the model server.*MeetingAssistant\.Endpoint\.BaseUrl/);
    expect(io.lines.some((l) => l.startsWith('[skip] model'))).toBe(true);
  });

  it('reports an endpoint that does not answer in time', async () => {
    const server = await scripted();
    const config = await writeConfig({ Endpoint: { BaseUrl: server.baseUrl, Model: 'test-model' } });
    const hanging: typeof fetch = (_url, init) =>
      new Promise((_resolve, reject) => init?.signal?.addEventListener('abort', () => reject(init.signal!.reason)));
    const checks = await checksFor(config, {}, { fetch: hanging, timeoutMs: 50, netCheck: async () => ({ state: 'free' }) });
    expect(checks.get('endpoint')!.status).toBe('fail');
    expect(checks.get('endpoint')!.detail).toContain('did not answer within');
  });

  it('reports a missing model with close names and exits non-zero', async () => {
    const server = await scripted({ models: ['qwen3:8b', 'qwen3:14b', 'llama3.1:8b'] });
    const config = await writeConfig({ Endpoint: { BaseUrl: server.baseUrl, Model: 'qwen3:7b' } });
    const { code, io } = await runDoctorCommand(config);
    expect(code).toBe(1);
    const line = io.lines.find((l) => l.startsWith('[FAIL] model'))!;
    expect(line).toContain('qwen3:7b is not listed; close names: qwen3:8b, qwen3:14b');
    expect(io.text()).toContain('fix: Set MeetingAssistant.Endpoint.Model to one of: qwen3:8b, qwen3:14b');
  });

  it('accepts an Ollama model named without its :latest tag', async () => {
    const server = await scripted({ models: ['mistral:latest'] });
    const config = await writeConfig({ Endpoint: { BaseUrl: server.baseUrl, Model: 'mistral' } });
    const checks = await checksFor(config);
    expect(checks.get('model')!.status).toBe('pass');
    expect(checks.get('model')!.detail).toContain('as mistral:latest');
  });

  it('on a new, empty vault only the endpoint fails: the folders and files run makes itself are said as such, not failures', async () => {
    const port = await freePort();
    await rm(vault, { recursive: true });
    await mkdir(vault);
    const config = await writeConfig({ Endpoint: { BaseUrl: `http://127.0.0.1:${port}/v1`, Model: 'test-model' } });
    const { code, io } = await runDoctorCommand(config);
    expect(code).toBe(1);
    expect(io.lines.filter((l) => l.startsWith('[FAIL]')).map((l) => l.split(/\s+/)[1])).toEqual(['endpoint']);
    const summaries = path.join(vault, 'Meetings/Summaries');
    expect(io.lines.find((l) => l.startsWith('[ok  ] folder Summaries'))).toMatch(/does not exist yet: run creates it at first start$/);
    expect(io.text()).toContain(`${summaries} does not exist yet: run creates it at first start`);
    // Only the folders run watches are made at its start; the others come with their first note.
    expect(io.lines.find((l) => l.startsWith('[ok  ] folder Context'))).toMatch(/does not exist yet: made with the first note written there$/);
    expect(io.lines.find((l) => l.startsWith('[ok  ] file Glossary'))).toContain('its folder');
    expect(io.text()).not.toContain('mkdir -p');
    expect(io.text()).toContain('1 check failed.');
  });

  it('a folder run cannot make fails with its fix: its parent is a file, or not writable', async () => {
    const server = await scripted();
    await rm(path.join(vault, 'Meetings'), { recursive: true });
    await writeFile(path.join(vault, 'Meetings'), 'a file where the folder should be');
    const config = await writeConfig({ Endpoint: { BaseUrl: server.baseUrl, Model: 'test-model' } });
    const { code, io } = await runDoctorCommand(config);
    expect(code).toBe(1);
    expect(io.lines.find((l) => l.startsWith('[FAIL] folder Meetings'))).toContain('is not a folder');
    expect(io.lines.find((l) => l.startsWith('[FAIL] folder Summaries'))).toContain(`${path.join(vault, 'Meetings')} is a file, not a folder`);

    await rm(path.join(vault, 'Meetings'));
    await mkdir(path.join(vault, 'Meetings'));
    const readOnly: Fs = {
      ...nodeFs,
      writeFile: async (file, data, options) => {
        if (path.dirname(file) === path.join(vault, 'Meetings')) throw Object.assign(new Error(`EACCES: permission denied, open '${file}'`), { code: 'EACCES' });
        return nodeFs.writeFile(file, data, options);
      },
    };
    const denied = await runDoctorCommand(config, {}, { fs: readOnly });
    expect(denied.io.lines.find((l) => l.startsWith('[FAIL] folder Summaries'))).toContain('where run would create it, is not writable: EACCES');
  });

  it("a vault of a person's own config that does not exist still fails: a typo must not start an empty vault", async () => {
    const server = await scripted();
    await rm(vault, { recursive: true });
    const config = await writeConfig({ Endpoint: { BaseUrl: server.baseUrl, Model: 'test-model' } });
    const { code, io } = await runDoctorCommand(config);
    expect(code).toBe(1);
    expect(io.lines.find((l) => l.startsWith('[FAIL] vault'))).toContain(`${vault} does not exist`);
    expect(io.text()).toContain(`fix: Create it (mkdir -p ${vault})`);
  });

  it('the bundled config.default.json may name a vault still to be made: run seeds it, so doctor says so', async () => {
    const fresh = path.join(tmp, 'fresh-vault');
    const config = resolveConfig({ MeetingAssistant: { VaultPath: fresh, Http: { Enabled: false } } }, { file: BUNDLED_DEFAULT_CONFIG });
    const report = await runDoctor(config, { fs: nodeFs, fetch: async () => Response.json({ data: [] }) });
    const checks = new Map(report.checks.map((c) => [c.name, c]));
    expect(checks.get('vault')).toMatchObject({ status: 'pass', detail: `${fresh} does not exist yet: run seeds it with the example vault at first start` });
    expect(checks.get('folder Meetings')!.status).toBe('pass');
    // Which config was taken, and how to check another.
    expect(checks.get('config')!.detail).toBe(`${BUNDLED_DEFAULT_CONFIG} is valid (the bundled config, which npm start runs while the checkout has no config.json; another: --config F)`);
  });

  it('checks Agent.DefaultTemplate when it is set: a missing one fails naming it, a found one passes', async () => {
    const server = await scripted();
    const endpoint = { BaseUrl: server.baseUrl, Model: 'test-model' };
    expect((await checksFor(await writeConfig({ Endpoint: endpoint }))).has('default template')).toBe(false);
    const missing = (await checksFor(await writeConfig({ Endpoint: endpoint, Agent: { DefaultTemplate: 'Templates/Stand-up.md' } }))).get('default template')!;
    expect(missing.status).toBe('fail');
    expect(missing.detail).toContain('"Templates/Stand-up.md" (Agent.DefaultTemplate)');
    expect(missing.fix).toContain('MeetingAssistant.Agent.DefaultTemplate');
    await mkdir(path.join(vault, 'Templates'), { recursive: true });
    await writeFile(path.join(vault, 'Templates/Stand-up.md'), '## Yesterday\n## Today\n');
    const found = (await checksFor(await writeConfig({ Endpoint: endpoint, Agent: { DefaultTemplate: 'Stand-up' } }))).get('default template')!;
    expect(found.status).toBe('pass');
  });

  it('reports a folder that is not writable', async () => {
    const server = await scripted();
    const config = await writeConfig({ Endpoint: { BaseUrl: server.baseUrl, Model: 'test-model' } });
    const projects = path.join(vault, 'Projects');
    // Root writes everywhere: a read-only folder is simulated at the Fs seam.
    const readOnly: Fs = {
      ...nodeFs,
      writeFile: async (file, data, options) => {
        if (path.dirname(file) === projects) throw Object.assign(new Error(`EACCES: permission denied, open '${file}'`), { code: 'EACCES' });
        return nodeFs.writeFile(file, data, options);
      },
    };
    const { code, io } = await runDoctorCommand(config, {}, { fs: readOnly });
    expect(code).toBe(1);
    expect(io.lines.find((l) => l.startsWith('[FAIL] folder Projects'))).toContain('is not writable: EACCES');
    expect(io.text()).toContain('fix: Give the user that runs meeting-assistant read and write access');
  });

  it('reports a missing key when the endpoint demands one, and never prints the key', async () => {
    const key = 'sk-test-SECRET-1234';
    const server = await scripted({ requireKey: key });
    const config = await writeConfig({ Endpoint: { BaseUrl: server.baseUrl, Model: 'test-model', ApiKeyEnvironmentVariable: 'MA_TEST_KEY' } });

    const missing = await runDoctorCommand(config, {});
    expect(missing.code).toBe(1);
    expect(missing.io.lines.find((l) => l.startsWith('[FAIL] api key'))).toContain('the endpoint demands a key (HTTP 401) and none is configured');
    expect(missing.io.text()).toContain('export MA_TEST_KEY=<your key>');

    const wrong = await runDoctorCommand(config, { MA_TEST_KEY: 'sk-wrong-0000' });
    expect(wrong.code).toBe(1);
    expect(wrong.io.lines.find((l) => l.startsWith('[FAIL] api key'))).toContain('refused the key from the environment variable MA_TEST_KEY');
    expect(wrong.io.text()).not.toContain('sk-wrong-0000');

    const right = await runDoctorCommand(config, { MA_TEST_KEY: key });
    expect(right.code, right.io.text()).toBe(0);
    expect(right.io.lines.find((l) => l.startsWith('[ok  ] api key'))).toContain('is accepted');
    expect(right.io.text()).not.toContain(key);
  });
});

describe('doctor: config and HTTP port', () => {
  it('reports every config problem at once, names what it cannot check, and exits 2', async () => {
    const file = path.join(tmp, 'config.json');
    // The schedule and the log file too: `run` would refuse them, so doctor does not call them ok.
    const settings = { Http: { Port: 70000 }, Agent: { MaxTurns: 0 }, Typo: true, Daemon: { ReconcileSchedule: 'every five minutes' }, Logging: { File: 'a?b.log' } };
    await writeFile(file, JSON.stringify({ MeetingAssistant: settings }));
    const { code, io } = await runDoctorCommand(file);
    expect(code).toBe(2);
    const text = io.text();
    expect(text).toContain('[FAIL] config');
    expect(text).toContain('5 problems');
    const keys = ['Http.Port', 'Agent.MaxTurns', 'Typo', 'Daemon.ReconcileSchedule', 'Logging.File'];
    for (const key of keys) expect(text).toContain(`MeetingAssistant.${key}`);
    expect(text).toMatch(/\[skip\] endpoint\s+not checked: the config did not load/);
  });

  it("passes a port held by this vault's daemon; fails one held by another vault's daemon, by an older daemon that does not say its vault, or by another program", async () => {
    const server = await scripted();
    const otherVault = path.join(tmp, 'other-vault');
    await mkdir(otherVault);
    const ours = await daemonHttp(vault);
    const another = await daemonHttp(otherVault);
    const older = await fakeServer((req) => (req.url === '/healthz' ? { status: 200, body: 'ok' } : undefined));
    const theirs = await fakeServer(() => ({ status: 200, body: '<html>someone else</html>' }));
    const tokens: (string | undefined)[] = [];
    const watching: typeof fetch = async (url, init) => {
      tokens.push(new Headers(init?.headers).get('authorization') ?? undefined);
      return fetch(url, init);
    };
    const base = { Endpoint: { BaseUrl: server.baseUrl, Model: 'test-model' } };
    const file = path.join(tmp, 'config.json');
    const portCheck = async (port: number) => {
      await writeFile(file, JSON.stringify({ MeetingAssistant: { VaultPath: vault, ...base, Http: { Host: '127.0.0.1', Port: port } } }));
      return (await checksFor(file, {}, { fetch: watching })).get('http port')!;
    };

    expect(await portCheck(ours.port)).toMatchObject({ status: 'pass', detail: `127.0.0.1:${ours.port} is held by this vault's running meeting-assistant daemon` });
    const other = await portCheck(another.port);
    expect(other.status).toBe('fail');
    expect(other.detail).toContain('held by a meeting-assistant daemon of another vault');
    expect(other.fix).toContain('MeetingAssistant.Http.Port');
    expect((await portCheck(older.port)).detail).toContain('of another vault (or of a version that does not say which)');
    // The token goes to no daemon before it is known to serve this vault.
    expect(tokens.filter(Boolean)).toEqual([]);

    await writeFile(file, JSON.stringify({ MeetingAssistant: { VaultPath: vault, ...base, Http: { Host: '127.0.0.1', Port: theirs.port } } }));
    const { code, io } = await runDoctorCommand(file);
    expect(code).toBe(1);
    expect(io.lines.find((l) => l.startsWith('[FAIL] http port'))).toContain(`127.0.0.1:${theirs.port} is in use by another program`);
    expect(io.text()).toContain('set MeetingAssistant.Http.Port to a free port');
  });

  it('GET /api/whoami answers without a token, with a hash of the real vault path and never the path', async () => {
    const link = path.join(tmp, 'vault-link');
    await symlink(vault, link);
    const served = await daemonHttp(vault);
    const res = await fetch(`http://127.0.0.1:${served.port}/api/whoami`);
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).not.toContain(path.basename(tmp));
    const body = JSON.parse(text) as { service: string; vault: string };
    expect(body.service).toBe('meeting-assistant');
    expect(body.vault).toMatch(/^[0-9a-f]{32}$/);
    // The same folder by another name is the same vault.
    expect(await vaultIdentity(nodeFs, link)).toBe(body.vault);
    expect(await vaultIdentity(nodeFs, path.join(tmp, 'elsewhere'))).not.toBe(body.vault);
  });

  it('listenCheck tells a free port from a taken one', async () => {
    const taken = await fakeServer(() => undefined);
    expect(await listenCheck('127.0.0.1', taken.port)).toEqual({ state: 'in-use' });
    expect(await listenCheck('127.0.0.1', await freePort())).toEqual({ state: 'free' });
  });
});

describe('doctor: effective context length where the server exposes it', () => {
  /** An OpenAI-compatible /v1/models plus one native route family. */
  function withModels(model: string, native: Route): Route {
    return (req, body) =>
      req.url === '/v1/models' ? { status: 200, body: { object: 'list', data: [{ id: model, object: 'model' }] } } : native(req, body);
  }

  async function contextCheck(native: Route, model: string, tokens = 32768): Promise<DoctorCheck> {
    const server = await fakeServer(withModels(model, native));
    const config = await writeConfig({
      Endpoint: { BaseUrl: `${server.url}/v1`, Model: model },
      ContextWindow: { Tokens: tokens, MaxOutputTokens: 1024 },
    });
    return (await checksFor(config)).get('context length')!;
  }

  const ollamaShow = (parameters: string | undefined, max = 40960) => ({
    model_info: { 'general.architecture': 'qwen3', 'qwen3.context_length': max },
    ...(parameters !== undefined ? { parameters } : {}),
    details: { family: 'qwen3' },
  });

  it('Ollama without num_ctx: warns that the default context applies and names the settings', async () => {
    const seen: string[] = [];
    const check = await contextCheck((req, body) => {
      if (req.url === '/api/show' && req.method === 'POST') {
        seen.push(body);
        return { status: 200, body: ollamaShow(undefined) };
      }
      if (req.url === '/api/ps') return { status: 200, body: { models: [] } };
      return undefined;
    }, 'qwen3:8b');
    expect(check.status).toBe('warn');
    expect(check.ok).toBe(true);
    expect(check.detail).toContain('default context length');
    expect(check.fix).toContain('OLLAMA_CONTEXT_LENGTH=32768');
    expect(check.fix).toContain('PARAMETER num_ctx 32768');
    expect(JSON.parse(seen[0]!)).toMatchObject({ model: 'qwen3:8b' });
  });

  it('Ollama with num_ctx below ContextWindow.Tokens: fails naming the settings to change', async () => {
    const check = await contextCheck(
      (req) => (req.url === '/api/show' ? { status: 200, body: ollamaShow('temperature 0.6\nnum_ctx 8192') } : undefined),
      'qwen3:8b',
    );
    expect(check.status).toBe('fail');
    expect(check.detail).toContain('8192');
    expect(check.fix).toContain('OLLAMA_CONTEXT_LENGTH=32768');
    expect(check.fix).toContain('MeetingAssistant.ContextWindow.Tokens to 8192');
  });

  it('Ollama: a loaded model with enough context passes; a model whose maximum is too small fails', async () => {
    const loaded = await contextCheck((req) => {
      if (req.url === '/api/show') return { status: 200, body: ollamaShow(undefined) };
      if (req.url === '/api/ps') return { status: 200, body: { models: [{ name: 'qwen3:8b', model: 'qwen3:8b', context_length: 40960 }] } };
      return undefined;
    }, 'qwen3:8b');
    expect(loaded.status).toBe('pass');
    expect(loaded.detail).toContain('40960');

    const small = await contextCheck((req) => (req.url === '/api/show' ? { status: 200, body: ollamaShow('num_ctx 65536', 8192) } : undefined), 'tiny:1b');
    expect(small.status).toBe('fail');
    expect(small.detail).toContain('supports at most 8192');
    expect(small.fix).toContain('MeetingAssistant.ContextWindow.Tokens');
  });

  it("llama.cpp's server: /props n_ctx below ContextWindow.Tokens fails with --ctx-size", async () => {
    const check = await contextCheck(
      (req) => (req.url === '/props' ? { status: 200, body: { default_generation_settings: { n_ctx: 4096 }, total_slots: 1 } } : undefined),
      'model.gguf',
    );
    expect(check.status).toBe('fail');
    // The same figure the daemon uses for its runs (issue 12).
    expect(check.detail).toContain('runs use 4096 tokens, with answers of at most 1024');
    expect(check.fix).toContain('--ctx-size 32768');
    expect(check.fix).toContain('MeetingAssistant.ContextWindow.Tokens to 4096');

    const enough = await contextCheck(
      (req) => (req.url === '/props' ? { status: 200, body: { default_generation_settings: { n_ctx: 65536 } } } : undefined),
      'model.gguf',
    );
    expect(enough.status).toBe('pass');
  });

  it('LM Studio: the loaded context length is compared; not loaded warns', async () => {
    const route = (loaded: number | undefined): Route => (req) =>
      req.url === '/api/v0/models'
        ? {
            status: 200,
            body: {
              object: 'list',
              data: [
                {
                  id: 'qwen2.5-7b-instruct',
                  state: loaded ? 'loaded' : 'not-loaded',
                  max_context_length: 131072,
                  ...(loaded ? { loaded_context_length: loaded } : {}),
                },
              ],
            },
          }
        : undefined;
    const small = await contextCheck(route(4096), 'qwen2.5-7b-instruct');
    expect(small.status).toBe('fail');
    expect(small.fix).toContain('lms load qwen2.5-7b-instruct --context-length 32768');
    expect((await contextCheck(route(65536), 'qwen2.5-7b-instruct')).status).toBe('pass');
    expect((await contextCheck(route(undefined), 'qwen2.5-7b-instruct')).status).toBe('warn');
  });

  it('vLLM: max_model_len in /v1/models is the window; below ContextWindow.Tokens names --max-model-len', async () => {
    const server = await fakeServer((req) =>
      req.url === '/v1/models'
        ? { status: 200, body: { object: 'list', data: [{ id: 'Qwen/Qwen3-8B', object: 'model', max_model_len: 16384 }] } }
        : undefined,
    );
    const config = await writeConfig({
      Endpoint: { BaseUrl: `${server.url}/v1`, Model: 'Qwen/Qwen3-8B' },
      ContextWindow: { Tokens: 32768, MaxOutputTokens: 4096 },
    });
    const check = (await checksFor(config)).get('context length')!;
    expect(check.status).toBe('fail');
    expect(check.detail).toContain('16384');
    expect(check.fix).toContain('--max-model-len 32768');
  });

  it('advises a configuration that is accepted: lowering Tokens to the window names MaxOutputTokens too when its value would be refused', async () => {
    const props = (n: number): Route => (req) => (req.url === '/props' ? { status: 200, body: { default_generation_settings: { n_ctx: n } } } : undefined);
    const server = await fakeServer(withModels('model.gguf', props(4096)));
    for (const output of [undefined, 4096]) {
      const config = await writeConfig({
        Endpoint: { BaseUrl: `${server.url}/v1`, Model: 'model.gguf' },
        ContextWindow: { Tokens: 32768, ...(output ? { MaxOutputTokens: output } : {}) },
      });
      const check = (await checksFor(config)).get('context length')!;
      expect(check.fix).toContain('MeetingAssistant.ContextWindow.Tokens to 4096 or less and ContextWindow.MaxOutputTokens below it (1024');
      // What the advice says is accepted.
      expect(resolveConfig({ MeetingAssistant: { ContextWindow: { Tokens: 4096 } } }).settings.ContextWindow.MaxOutputTokens).toBe(1024);
      expect(resolveConfig({ MeetingAssistant: { ContextWindow: { Tokens: 4096, MaxOutputTokens: 1024 } } }).settings.ContextWindow.MaxOutputTokens).toBe(1024);
    }
    const small = await writeConfig({ Endpoint: { BaseUrl: `${server.url}/v1`, Model: 'model.gguf' }, ContextWindow: { Tokens: 32768, MaxOutputTokens: 1024 } });
    expect((await checksFor(small)).get('context length')!.fix).not.toContain('MaxOutputTokens');
  });

  it('the command exits 1 when the context is too small', async () => {
    const server = await fakeServer(
      withModels('model.gguf', (req) => (req.url === '/props' ? { status: 200, body: { default_generation_settings: { n_ctx: 2048 } } } : undefined)),
    );
    const config = await writeConfig({ Endpoint: { BaseUrl: `${server.url}/v1`, Model: 'model.gguf' } });
    const { code, io } = await runDoctorCommand(config);
    expect(code).toBe(1);
    expect(io.lines.find((l) => l.startsWith('[FAIL] context length'))).toContain('2048');
  });
});

describe('doctor: tool calling', () => {
  it('passes when the model calls the one tool it is given, fails naming the fix when it answers in text', async () => {
    const server = await scripted({ fallback: { reply: { toolCalls: [{ name: 'confirm_check', arguments: { word: 'ready' } }] } } });
    const config = await writeConfig({ Endpoint: { BaseUrl: server.baseUrl, Model: 'test-model' } });
    expect((await checksFor(config)).get('tool calling')).toMatchObject({ status: 'pass' });
    const sent = server.modelRequests().at(-1)!.body as { tools?: unknown[] };
    expect(sent.tools).toHaveLength(1);

    // A model without tool calls still gets its meetings summarized, without tools: a warning with the fix.
    server.setFallback({ reply: { content: 'I am ready!' } });
    const { io } = await runDoctorCommand(config);
    expect(io.lines.find((l) => l.startsWith('[WARN] tool calling'))).toContain('answered in text without calling the tool');
    expect(io.text()).toMatch(/fix: Set MeetingAssistant\.Endpoint\.Model to a model with tool calling/);
  });

  it("warns when the server refuses tools for the model (Ollama's 400), naming its words", async () => {
    const server = await scripted({
      fallback: { status: 400, body: { error: { message: 'registry.ollama.ai/library/gemma:2b does not support tools', type: 'api_error', param: null, code: null } } },
    });
    const config = await writeConfig({ Endpoint: { BaseUrl: server.baseUrl, Model: 'test-model' } });
    const c = (await checksFor(config)).get('tool calling')!;
    expect(c.status).toBe('warn');
    expect(c.detail).toContain('does not support tools');
    expect(c.detail).toContain('summarized without tools');
  });
});
