import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS, loadConfig } from '../../src/config.js';
import { guideSection } from '../helpers/guide.js';
import { nodeFs } from '../../src/vault/files/fs.js';

const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
const DEFAULT_CONFIG = path.join(REPO_ROOT, 'config.default.json');
const EXAMPLE_CONFIG = path.join(REPO_ROOT, 'config.example.json');

/** Every leaf key of a nested object as a dotted path: `Endpoint.BaseUrl`. */
function keyPaths(value: unknown, prefix = ''): string[] {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return [prefix];
  return Object.entries(value as Record<string, unknown>).flatMap(([k, v]) =>
    keyPaths(v, prefix ? `${prefix}.${k}` : k),
  );
}

/** Load from a foreign working directory, with no overrides, and a key in the usual variable. */
const load = (file: string, env: NodeJS.ProcessEnv = {}) =>
  loadConfig({ configPath: file, fs: nodeFs, env, cwd: os.tmpdir(), homedir: os.tmpdir() });

describe('config.default.json (what npm start uses)', () => {
  it('loads without errors: local Ollama, vault ./vault next to the file, HTTP on 127.0.0.1:4777, JSON logs', async () => {
    const config = await load(DEFAULT_CONFIG);

    expect(config.file).toBe(DEFAULT_CONFIG);
    expect(config.layout.root).toBe(path.join(REPO_ROOT, 'vault'));
    expect(config.settings.Endpoint).toMatchObject({
      BaseUrl: 'http://127.0.0.1:11434/v1',
      Model: 'qwen3:8b',
      Api: 'chat-completions',
    });
    expect(config.settings.Http).toMatchObject({ Enabled: true, Host: '127.0.0.1', Port: 4777 });
    // Unset: readable lines at a terminal, JSON lines for services.
    expect(config.settings.Logging.Pretty).toBeNull();
    expect(config.logFile).toBeUndefined();
  });

  it('needs no API key, and does not pick up OPENAI_API_KEY to send it to the local endpoint', async () => {
    const config = await load(DEFAULT_CONFIG, { OPENAI_API_KEY: 'sk-someone-elses-key' });

    expect(config.apiKey).toBeUndefined();
  });
});

describe('config.example.json (every key with its default)', () => {
  const example = JSON.parse(readFileSync(EXAMPLE_CONFIG, 'utf8')) as { MeetingAssistant: unknown };

  it('loads without errors', async () => {
    const config = await load(EXAMPLE_CONFIG);

    expect(config.file).toBe(EXAMPLE_CONFIG);
    expect(config.layout.root).toBe(path.join(REPO_ROOT, 'vault'));
  });

  it('carries every key of DEFAULT_SETTINGS and no other', () => {
    expect(keyPaths(example.MeetingAssistant).sort()).toEqual(keyPaths(DEFAULT_SETTINGS).sort());
  });

  it('gives every key its default value', () => {
    expect(example.MeetingAssistant).toEqual(DEFAULT_SETTINGS);
  });
});

describe('the guide', () => {
  it('documents every configuration key in its configuration table', () => {
    const tableKeys = new Set(
      guideSection('## Configuration')
        .map((line) => /^\| `([A-Za-z.]+)` \|/.exec(line)?.[1])
        .filter((key): key is string => key !== undefined),
    );
    const missing = keyPaths(DEFAULT_SETTINGS).filter((key) => !tableKeys.has(key));

    expect(missing).toEqual([]);
  });
});
