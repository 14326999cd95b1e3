import { readFileSync } from 'node:fs';
import type { AppConfig } from '../../src/config.js';
import { testConfig } from './memfs.js';

/**
 * The bundled default configuration (config.default.json: qwen3:8b on Ollama's address,
 * ContextWindow as the defaults leave it, 32,768) pointed at the scripted server, for the tests
 * of what a first run with the shipped settings does.
 */
export function bundledConfig(baseUrl: string, overrides: Record<string, unknown> = {}): AppConfig {
  const bundled = JSON.parse(readFileSync(new URL('../../config.default.json', import.meta.url), 'utf8')) as {
    MeetingAssistant: Record<string, Record<string, unknown>>;
  };
  const { Endpoint, ...rest } = bundled.MeetingAssistant;
  delete (rest as Record<string, unknown>).VaultPath;
  return testConfig({ ...rest, Endpoint: { ...Endpoint, BaseUrl: baseUrl, ApiKeyEnvironmentVariable: 'MA_TEST_NO_KEY' }, Reconnect: { Attempts: 0 }, ...overrides });
}
