import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runCli, startDaemonProcess } from '../helpers/daemon-process.js';
import { daemonSetup, daemonTestFile, summarizingModel } from '../helpers/daemon-helpers.js';
import { lastToolResults, type RecordedRequest, type ScriptedServer, type Step, startScriptedServer, toolNamesOf } from '../helpers/scripted-server.js';
import { type HostileLinks, leaked, writeHostileLinks } from './hostile-links.js';
import { writeMcpVault } from './mcp-vault.js';

/**
 * Issue 43 point 1 through `ask` and `POST /api/ask` (docs/design.md §10 "Confinement", §11): a
 * model that asks for every way out of the vault gets `Error:` results, and no request the
 * endpoint receives holds the config's key, the token or any other secret.
 */

const CONFIG_SECRET = 'sk-CONFIG-SECRET-4343';

/** Every way in, then by their own paths, then a search for the secrets; the answer once the results are in. */
function greedyModel(hostile: HostileLinks): Step {
  return {
    handler: (req: RecordedRequest): Step => {
      if (toolNamesOf(req).includes('write_summary') || !toolNamesOf(req).includes('read_meeting')) return summarizingModel();
      if (lastToolResults(req).length > 0) return { reply: { content: 'Nothing to tell.' } };
      const calls = [
        ...hostile.ways.map((w) => ({ name: 'read_meeting', arguments: { meeting: w.meeting, part: w.part } })),
        ...hostile.ownPaths.map((p) => ({ name: 'read_meeting', arguments: { meeting: p } })),
        { name: 'search_meetings', arguments: { query: 'SECRET|root:|sk-', in: 'all' } },
        { name: 'list_action_items', arguments: { status: 'all' } },
      ];
      return { reply: { toolCalls: calls } };
    },
  };
}

/** The tool results all refused what leads out (the two listing tools answer, without secrets), and no request body holds a secret. */
function expectNothingLeaked(requests: RecordedRequest[], hostile: HostileLinks): void {
  const asking = requests.filter((r) => toolNamesOf(r).includes('read_meeting'));
  const withResults = asking.find((r) => lastToolResults(r).length > 0);
  expect(withResults, 'a request with the tool results').toBeDefined();
  const results = lastToolResults(withResults!);
  const reads = results.filter((r) => r.name === 'read_meeting');
  expect(reads.length).toBe(hostile.ways.length + hostile.ownPaths.length);
  for (const r of reads) expect(r.output, r.output).toMatch(/^Error: /);
  for (const req of requests) expect(leaked(JSON.stringify(req.body), hostile.secrets)).toEqual([]);
}

describe('ask (the command)', () => {
  let dir: string;
  let vault: string;
  let server: ScriptedServer;
  let hostile: HostileLinks;
  let config: string;

  beforeAll(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'ma-ask-confine-'));
    vault = path.join(dir, 'vault');
    writeMcpVault(vault);
    config = path.join(dir, 'cfg', 'config.json');
    mkdirSync(path.dirname(config), { recursive: true });
    hostile = writeHostileLinks(vault, { configFile: config, configSecret: CONFIG_SECRET, tokenFile: path.join(vault, '.meeting-assistant', 'token'), outside: path.join(dir, 'outside') });
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  beforeEach(async () => {
    server = await startScriptedServer();
    const settings = {
      VaultPath: vault,
      Endpoint: { BaseUrl: server.baseUrl, Model: 'test-model', TimeoutSeconds: 10, ApiKey: CONFIG_SECRET },
      Reconnect: { Attempts: 0, DelaySeconds: 0 },
    };
    writeFileSync(config, JSON.stringify({ MeetingAssistant: settings }));
  });
  afterEach(async () => {
    await server.close();
  });

  it('sends the model none of the files a meeting links to out of the vault, into a dot-folder, through a link out, or a FIFO', async () => {
    server.setFallback(greedyModel(hostile));
    const result = await runCli(['ask', 'What is in the files?', '--config', config], { cwd: dir, env: { HOME: path.join(dir, 'home') } });
    expect(result.code, result.stderr).toBe(0);
    expect(leaked(result.stdout, hostile.secrets)).toEqual([]);
    expectNothingLeaked(server.modelRequests(), hostile);
  });
});

describe('POST /api/ask (the daemon)', () => {
  const file = daemonTestFile('all');

  it('sends the model none of them either, the daemon token included', async () => {
    const setup = await daemonSetup(file.server, { Endpoint: { ApiKey: CONFIG_SECRET } });
    writeMcpVault(setup.vault);
    const hostile = writeHostileLinks(setup.vault, {
      configFile: setup.configPath,
      configSecret: CONFIG_SECRET,
      tokenFile: path.join(setup.vault, '.meeting-assistant', 'token'),
      outside: path.join(setup.dir, 'outside'),
    });
    // Nothing runs at start: no transcript is finished.
    for (const name of ['2026-11-02 Kickoff', '2026-11-16 Review', '2026-11-20 Broken', '2026-11-30 Sync', '2026-12-02 Planning', 'Undated chat']) {
      rmSync(path.join(setup.vault, 'Meetings/Transcripts', `${name}.md`), { force: true });
    }
    file.server.setFallback(greedyModel(hostile));
    const daemon = await startDaemonProcess({ configPath: setup.configPath });
    try {
      const token = readFileSync(path.join(setup.vault, '.meeting-assistant', 'token'), 'utf8').trim();
      hostile.secrets.push(token);
      const res = await fetch(`http://127.0.0.1:${setup.port}/api/ask`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ question: 'What is in the files?' }),
      });
      const stream = await res.text();
      expect(res.status).toBe(200);
      expect(stream).toContain('event: done');
      expect(leaked(stream, hostile.secrets)).toEqual([]);
      expectNothingLeaked(file.server.modelRequests(), hostile);
    } finally {
      await daemon.stop();
    }
  });
});
