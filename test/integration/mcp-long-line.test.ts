import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN } from '../helpers/daemon-process.js';
import { writeMcpVault } from './mcp-vault.js';

/**
 * `mcp` and a stdin line over its 10 MB bound (issue 33 point 7): answered with a JSON-RPC
 * error, and the server goes on serving (it quit with exit 0 and "MCP server stopped").
 */

let dir: string;
let configPath: string;

beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'ma-mcp-line-'));
  writeMcpVault(path.join(dir, 'vault'));
  configPath = path.join(dir, 'config.json');
  writeFileSync(configPath, JSON.stringify({ MeetingAssistant: { VaultPath: path.join(dir, 'vault') } }));
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('meeting-assistant mcp: a message line of 12 MB', () => {
  it('is answered with a JSON-RPC error carrying its id; the next request is served; closing stdin ends with exit 0', async () => {
    const child = spawn(process.execPath, [BIN, 'mcp', '--config', configPath], { stdio: ['pipe', 'pipe', 'pipe'], cwd: dir });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const answers = createInterface({ input: child.stdout });
    const pending = new Map<unknown, (message: Record<string, unknown>) => void>();
    answers.on('line', (line) => {
      const message = JSON.parse(line) as Record<string, unknown>;
      pending.get(message.id)?.(message);
    });
    const answer = (id: unknown) => new Promise<Record<string, unknown>>((resolve) => pending.set(id, resolve));
    const send = (message: object) => child.stdin.write(`${JSON.stringify(message)}\n`);
    try {
      const init = answer(1);
      send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'test', version: '1' } } });
      expect((await init).result).toBeDefined();
      send({ jsonrpc: '2.0', method: 'notifications/initialized' });

      const refused = answer(7);
      send({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'search_meetings', arguments: { query: 'x'.repeat(12 * 1024 * 1024) } } });
      expect((await refused).error).toMatchObject({ code: -32600, message: expect.stringContaining('10485760 bytes') as string });

      const listed = answer(8);
      send({ jsonrpc: '2.0', id: 8, method: 'tools/list' });
      const tools = ((await listed).result as { tools: { name: string }[] }).tools.map((t) => t.name);
      expect(tools).toContain('search_meetings');
    } finally {
      child.stdin.end();
    }
    expect(await exited).toBe(0);
    expect(stderr).toContain('was dropped and answered with an error');
  });
});
